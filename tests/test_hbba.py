"""Tests of the HBBA backend (``mjenv.deficiency.hbba``): UKOS, UKE, HBB layers, the papers' examples,
and seeded cross-checks against the slow reference and the exact dp."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv import tiles
from mjenv.deficiency import INCOMPLETABLE, deficiency, hbba
from mjenv.deficiency import dp as dp_backend
from mjenv.deficiency.reference import reference_deficiency
from tests.conftest import random_case


def _counts(*ranks: int, size: int = 9) -> tuple[int, ...]:
    out = [0] * size
    for r in ranks:
        out[r - 1] += 1
    return tuple(out)


def _leaves(block: tuple[int, ...], kb: tuple[int, ...], chows: bool = True) -> set[tuple]:
    """UKOS leaves as (m, n, p, e, remainder ranks, reserved ranks), ranks 1-based."""
    return {
        (q[1], q[2], q[3], q[4], tuple(i + 1 for i in q[5]), tuple(i + 1 for i in q[6]))
        for q in hbba.ukos_block(block, kb, chows)
    }


def _kb_vec(spec: str) -> np.ndarray:
    return tiles.parse(spec, 27) if spec else np.zeros(27, dtype=np.int8)


# --- the papers' examples --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("hand", "kb", "expected"),
    [
        # BDA paper, Sec. 2: deficiency 6 (the largest a 14-tile hand can have), KB = 4 - H
        ("(B3B5B6B9)(C2C2C3C6C9)(D1D1D2D5D8)", None, 6),
        # BDA paper, Example 4 (used again in Sec. 5 for KB-blocks)
        ("()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)", "(001100121)(010000030)(032242321)", 4),
        # a complete hand
        ("(B1B2B2B3B3B4B7B7B7)(C1C1)(D4D5D6)", None, 0),
    ],
)
def test_paper_examples(hand, kb, expected):
    assert deficiency(hand, kb, method="hbba") == expected
    assert reference_deficiency(hand, kb) == expected


def test_example1_only_kb_meld_needs_the_pmelds_tile():
    # HBBA paper, Sec. 3.2, Example 1: qDCMP (B1B1B1)(C1C1C1)(C6C7)(B6B6) needs one more meld; the
    # only meld KB can make, C7C8C9, needs the C8 that completes the pchow C6C7. BDA's indicators
    # (rm = 0, km = 1) give 4; the truth is that no complete hand fits the KB.
    hand = "(B1B1B1B6B6B9)(C1C1C1C6C7)(D1D4D7)"
    kb = "(000000000)(000000111)(000000000)"
    assert reference_deficiency(hand, kb) == INCOMPLETABLE
    assert deficiency(hand, kb, method="hbba") == INCOMPLETABLE
    # one more C8 in KB makes it completable: C6C7C8 (C8 from KB) and C7C8C9 (all three from KB)
    kb2 = "(000000000)(000000121)(000000000)"
    assert reference_deficiency(hand, kb2) == 4
    assert deficiency(hand, kb2, method="hbba") == 4


def test_eq4_co_used_kb_tile_is_incompletable():
    # Eq. 4 taken literally: pi = (D1D1D1)(D5D5D5)(D9D9), remainder holds B1, KB = B2B3B4, two
    # melds still needed: f_rm = 1 (B1B2B3), f_km = 1 (B2B3B4), so um = 1 and cost 5. Both melds
    # need B2 and B3, so no complete hand fits.
    hand = "(B1)(C1C4C7C9)(D1D1D1D5D5D5D9D9)"
    kb = "(011100000)(000000000)(000000000)"
    assert reference_deficiency(hand, kb) == INCOMPLETABLE
    assert deficiency(hand, kb, method="hbba") == INCOMPLETABLE
    rem = _kb_vec("B1")
    kb_pi = _kb_vec("(011100000)(000000000)(000000000)")
    assert hbba._um(tuple(rem), tuple(kb_pi), 1) == 1
    assert hbba._kb_max_melds(list(kb_pi)) == 1
    assert hbba._um(tuple(rem), tuple(kb_pi), 2) == -hbba.INF_COST


def test_eq5_kb_eye_outside_the_remainder():
    # Eq. 5 (ii) as written draws the KB eye only from remainder tiles; here the eye must be D5D5
    # from KB (D5 is not in the hand) and the meld B1B2B3: cost 2 + 2 = 4.
    hand = "(B1B6B9)(C1C1C1C4C4C4C7C7C7)(D9)"
    kb = "(011000000)(000000000)(000020000)"
    assert reference_deficiency(hand, kb) == 4
    assert deficiency(hand, kb, method="hbba") == 4


# --- UKOS (Sec. 3.1) -------------------------------------------------------------------------------
def test_ukos_pchow_types_reserve_their_completing_tile():
    # B3B4 with B2 and B5 in KB: A1 (both deleted), A3 (reserve B2), A4 (reserve B5)
    kb = _counts(2, 5)
    assert _leaves(_counts(3, 4), kb) == {
        (0, 0, 0, 0, (3, 4), ()),
        (0, 1, 0, 0, (), (2,)),
        (0, 1, 0, 0, (), (5,)),
    }
    # without B2 in KB only A4 applies
    assert _leaves(_counts(3, 4), _counts(5)) == {(0, 0, 0, 0, (3, 4), ()), (0, 1, 0, 0, (), (5,))}
    # A5: B3B5 completed by B4
    assert _leaves(_counts(3, 5), _counts(4)) == {(0, 0, 0, 0, (3, 5), ()), (0, 1, 0, 0, (), (4,))}
    # no completing tile in KB: only A1
    assert _leaves(_counts(3, 5), _counts()) == {(0, 0, 0, 0, (3, 5), ())}


def test_ukos_pair_eye_pong_and_chow():
    # B1B1B1 with one B1 left in KB: A1; A6 pair (reserves B1) + remainder B1; A7 eye + B1; A8 pong
    assert _leaves(_counts(1, 1, 1), _counts(1)) == {
        (0, 0, 0, 0, (1, 1, 1), ()),
        (0, 1, 1, 0, (1,), (1,)),
        (0, 1, 1, 1, (1,), ()),
        (1, 0, 0, 0, (), ()),
    }
    # honours: no chows; B1B2B3 suited: the chow appears
    assert (1, 0, 0, 0, (), ()) in _leaves(_counts(1, 2, 3), _counts())
    assert (1, 0, 0, 0, (), ()) not in _leaves(_counts(1, 2, 3, size=7), _counts(size=7), chows=False)


def test_ukos_updates_kb_along_the_search():
    # B1B2 and B4B5 both want B3; with one B3 in KB only one of them may reserve it
    block = _counts(1, 2, 4, 5)
    two = {q for q in _leaves(block, _counts(3)) if q[1] == 2}
    assert two == set()
    two = {q for q in _leaves(block, _counts(3, 3)) if q[1] == 2}
    assert two == {(0, 2, 0, 0, (), (3, 3))}


def test_ukos_at_most_one_eye_and_part_cap():
    leaves = _leaves(_counts(1, 1, 5, 5), _counts())
    assert all(q[3] <= 1 for q in leaves)
    assert (0, 1, 1, 1, (5, 5), ()) in leaves and (0, 1, 1, 1, (1, 1), ()) in leaves
    # four pongs and a chow in one block: capped at M = 4 meld-like parts
    block = _counts(1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 6, 7)
    assert max(q[1] + q[2] - q[4] for q in hbba.ukos_block(block, _counts(), True, 4)) == 4


def test_ukos_exact_splits_by_remainder_size():
    block, kb = _counts(2, 3, 3, 4, 6), _counts(1, 5, 5)
    every = hbba.ukos_block(block, kb)
    for r in range(6):
        part = hbba.ukos_exact(block, kb, True, hbba.MAX_MELDS, r)
        assert all(len(q[5]) == r for q in part)
        assert {q for q in every if len(q[5]) == r} == set(part)


# --- UKE (Sec. 3.2) --------------------------------------------------------------------------------
def test_uke_prop1_and_prop2():
    zero = np.zeros(27, dtype=int)
    # Prop. 1: e = 1, m + n - e = 4 -> 4 - m
    assert hbba.uke_cost(3, 2, 1, zero, zero, 4) == 1
    assert hbba.uke_cost(2, 3, 1, zero, zero, 4) == 2
    # Prop. 2: e = 0, m + n = 4 -> 6 - m - ue
    rem = _kb_vec("B5C3")
    assert hbba.uke_cost(4, 0, 0, rem, _kb_vec("C3"), 4) == 1  # ue = 1: C3 pairs with KB
    assert hbba.uke_cost(4, 0, 0, rem, _kb_vec("D7D7"), 4) == 2  # ue = 0: KB pair D7D7
    assert hbba.uke_cost(4, 0, 0, rem, _kb_vec("D7"), 4) == hbba.INF_COST  # ue = -100
    assert hbba.uke_cost(3, 1, 0, rem, _kb_vec("B5"), 4) == 2  # one pmeld + B5 eye


def test_uke_prop3_and_prop4():
    # Prop. 3: e = 1, one meld left: R = B1 with KB B2B3 -> 14 - 9 - 2 - 1 = 2
    assert hbba.uke_cost(3, 1, 1, _kb_vec("B1"), _kb_vec("B2B3"), 4) == 2
    # no remainder tile fits, KB alone makes a meld -> 3
    assert hbba.uke_cost(3, 1, 1, _kb_vec("B1"), _kb_vec("D4D5D6"), 4) == 3
    # Prop. 4: eye and a meld: B1 + KB B1 as the eye would leave B2B3 short of a meld; the KB eye
    # D5D5 with B1B2B3 costs 4
    assert hbba.uke_cost(3, 0, 0, _kb_vec("B1"), _kb_vec("B2B3D5D5"), 4) == 4
    # B1 eye (with KB B1) and meld C4C5C6 from KB: 1 + 3 = 4; B1B2B3 + D5D5 also 4
    assert hbba.uke_cost(3, 0, 0, _kb_vec("B1"), _kb_vec("B1C4C5C6"), 4) == 4
    # eye from B1 + meld from B7 with KB B8B9: 1 + 2 = 3
    assert hbba.uke_cost(3, 0, 0, _kb_vec("B1B7"), _kb_vec("B1B8B9"), 4) == 3
    # the only tiles for eye and meld overlap: B1 as eye uses KB B1, the meld B1B2B3 needs it too
    assert hbba.uke_cost(3, 0, 0, _kb_vec("B1"), _kb_vec("B1B2B3"), 4) == hbba.INF_COST


# --- HBB (Sec. 3.3) --------------------------------------------------------------------------------
# Table 2 (groups (m, n) per layer, by tiles) and Table 3 (minimal cost per layer), N = 14, M = 4.
TABLE2 = {
    14: [(4, 1)], 13: [(3, 2)], 12: [(4, 0), (2, 3)], 11: [(3, 1), (1, 4)], 10: [(2, 2), (0, 5)],
    9: [(3, 0), (1, 3)], 8: [(2, 1), (0, 4)], 7: [(1, 2)], 6: [(2, 0), (0, 3)], 5: [(1, 1)],
    4: [(0, 2)], 3: [(1, 0)], 2: [(0, 1)], 0: [(0, 0)],
}
TABLE3_MIN = {14: 0, 13: 1, 12: 1, 11: 2, 10: 3, 9: 3, 8: 4, 7: 5, 6: 5, 5: 6, 4: 7, 3: 7, 2: 8, 0: 9}
# Table 2's least cost of Group 2 where the paper lists one
TABLE2_GROUP2_MIN = {12: 2, 11: 3, 10: 4, 9: 4, 8: 5, 6: 6}
# Table 4: the last layer (by index, 1 = 14 tiles) to evaluate once a cost has been found
TABLE4 = {0: 1, 1: 2, 2: 3, 3: 4, 4: 6, 5: 7, 6: 9, 7: 10, 8: 12, 9: 14, 10: 15}


def test_hbb_layers_reproduce_tables_2_and_3():
    groups = hbba.hbb_layers(14, 4)
    by_layer: dict[int, list] = {}
    for tiles_, m, n, e, least in groups:
        by_layer.setdefault(tiles_, []).append((m, n, e, least))
    assert sorted(by_layer) == sorted(TABLE2)
    for tiles_, pairs in TABLE2.items():
        got = []
        for m, n, _, _ in by_layer[tiles_]:
            if (m, n) not in got:
                got.append((m, n))
        assert got == pairs, tiles_  # Group 1 (more melds) first
        assert min(g[3] for g in by_layer[tiles_]) == TABLE3_MIN[tiles_]
    for tiles_, least in TABLE2_GROUP2_MIN.items():
        m2, n2 = TABLE2[tiles_][1]
        assert min(g[3] for g in by_layer[tiles_] if (g[0], g[1]) == (m2, n2)) == least
    # the layers are visited in order of tiles, most first
    assert [g[0] for g in groups] == sorted((g[0] for g in groups), reverse=True)


def test_hbb_stopping_never_goes_deeper_than_table4():
    # Our rule: once `best` is found, layers whose least cost is >= best are skipped. The last
    # layer that rule still visits is never beyond the paper's Table 4.
    layer_index = {t: 15 - t for t in TABLE3_MIN}  # layer 1 holds 14 tiles, layer 15 none
    for cost, last_layer in TABLE4.items():
        visited = [layer_index[t] for t, least in TABLE3_MIN.items() if least < cost]
        assert max(visited, default=1) <= last_layer


# --- cross-checks ----------------------------------------------------------------------------------
def _cases(seed: int, count: int):
    rng = np.random.default_rng(seed)
    suit_sets = [(0,), (1,), (0, 1), (0, 1, 2), (0, 1, 2, 3), (3,), (2, 3)]
    modes = ("full", "empty", "random", "tiny", "suit")
    out = []
    for i in range(count):
        suits = suit_sets[i % len(suit_sets)]
        size = 34 if 3 in suits else 27
        exposed = int(rng.integers(0, 4))
        hand, kb = random_case(
            rng, suits=suits, num_tile_types=size, exposed=exposed, extra=int(rng.integers(1, 3)),
            kb_mode=modes[int(rng.integers(0, len(modes)))], four_copies=bool(rng.integers(0, 2)),
        )
        if hand.sum() in (3 * (4 - exposed) + 1, 3 * (4 - exposed) + 2):
            out.append((hand, kb, exposed))
    return out


def test_matches_reference_on_random_hands():
    cases = _cases(2024, 320)
    assert len(cases) >= 250
    kinds = set()
    for hand, kb, exposed in cases:
        got = hbba.hbba_one(hand, kb, 4 - exposed)
        want = reference_deficiency(hand, kb, exposed_melds=exposed)
        assert got == want, (tiles.format_hand(hand), kb.tolist(), exposed)
        kinds.add((hand.sum() % 3, int(kb.sum() == 0), int(want == INCOMPLETABLE)))
    # 3m+1 and 3m+2 hands, empty KBs and incompletable cases all occurred
    assert {k[0] for k in kinds} == {1, 2}
    assert any(k[1] for k in kinds) and any(k[2] for k in kinds)


@pytest.mark.parametrize("seed", [1, 2])
def test_matches_dp_on_random_hands(seed):
    cases = _cases(seed, 1500)
    size_groups: dict[int, list] = {}
    for hand, kb, exposed in cases:
        size_groups.setdefault(len(hand), []).append((hand, kb, exposed))
    for group in size_groups.values():
        hands = np.stack([c[0] for c in group])
        kbs = np.stack([c[1] for c in group])
        needed = np.array([4 - c[2] for c in group], dtype=np.int64)
        got = hbba.deficiency_batch(hands, kbs, needed)
        want = dp_backend.deficiency_batch(hands, kbs, needed)
        bad = np.flatnonzero(got != want)
        assert bad.size == 0, (hands[bad[0]].tolist(), kbs[bad[0]].tolist(), int(needed[bad[0]]))


def test_melds_needed_0_to_5_matches_dp():
    rng = np.random.default_rng(7)
    hands, kbs, needed = [], [], []
    for i in range(600):
        melds = 5 if i % 2 else 4
        exposed = int(rng.integers(0, melds + 1))
        hand, kb = random_case(
            rng, suits=((0,), (0, 1), (0, 1, 2))[i % 3], exposed=exposed, extra=int(rng.integers(1, 3)),
            kb_mode=("random", "tiny", "full")[i % 3], melds=melds,
        )
        m = melds - exposed
        if hand.sum() in (3 * m + 1, 3 * m + 2):
            hands.append(hand)
            kbs.append(kb)
            needed.append(m)
    hands_a, kbs_a, needed_a = np.stack(hands), np.stack(kbs), np.array(needed, dtype=np.int64)
    assert set(needed) == {0, 1, 2, 3, 4, 5}
    got = hbba.deficiency_batch(hands_a, kbs_a, needed_a)
    want = dp_backend.deficiency_batch(hands_a, kbs_a, needed_a)
    assert np.array_equal(got, want)


def test_public_api_batch_equals_single_hands():
    cases = _cases(99, 60)
    hands = np.stack([c[0] for c in cases if len(c[0]) == 27 and c[2] == 0])
    kbs = np.stack([c[1] for c in cases if len(c[0]) == 27 and c[2] == 0])
    batch = deficiency(hands, kbs)
    assert batch.dtype.kind == "i"
    assert [deficiency(h, k) for h, k in zip(hands, kbs)] == batch.tolist()


def test_results_do_not_depend_on_the_memo():
    # the per-block memo is shared across hands (and positions): answers must not depend on what
    # was computed before, nor on the LRU being cold
    cases = [c for c in _cases(5, 120) if len(c[0]) == 27]
    first = [hbba.hbba_one(h, k, 4 - x) for h, k, x in cases]
    hbba._block_entry.cache_clear()
    hbba._um.cache_clear()
    second = [hbba.hbba_one(h, k, 4 - x) for h, k, x in reversed(cases)][::-1]
    want = [reference_deficiency(h, k, exposed_melds=x) for h, k, x in cases[:40]]
    assert first == second
    assert first[:40] == want


def test_blocks_never_compete_for_a_reserved_kb_tile():
    # Sec. 3.4 combines block KBs by the componentwise minimum; that is exact only if no KB tile can
    # be reserved by pmelds of two different blocks.
    from mjenv.deficiency.blocks import kb_blocks

    def reservable(tiles_: tuple[int, ...], kb) -> set[int]:
        held = set(tiles_)
        out = {t for t in held if tiles_.count(t) >= 2 and kb[t] > 0}
        for x in held:
            if x >= 27:
                continue
            for y in held:
                if y <= x or y // 9 != x // 9 or y - x > 2:
                    continue
                done = {x + 1} if y - x == 2 else {x - 1, y + 1}
                out |= {c for c in done if c // 9 == x // 9 and 0 <= c < 27 and kb[c] > 0}
        return out

    checked = 0
    for hand, kb, _ in _cases(77, 400):
        seen: set[int] = set()
        for b in kb_blocks(hand, kb):
            mine = reservable(b.tiles, kb)
            assert not (mine & seen), (tiles.format_hand(hand), kb.tolist())
            seen |= mine
            checked += len(mine)
    assert checked > 100


def test_eq5_kb_eye_when_the_remainder_eye_blocks_the_meld():
    # ue = 1 (B1 pairs with the KB's B1), but that eye leaves B1B2B3 without its B1; the KB eye
    # D5D5 with B1B2B3 completes the hand: Eq. 5's max must take um_max2 even when ue = 1.
    assert hbba.uke_cost(3, 0, 0, _kb_vec("B1"), _kb_vec("B1B2B3D5D5"), 4) == 14 - 9 - 1
    hand = "(B1B6B9)(C1C1C1C4C4C4C7C7C7)(D9)"
    kb = "(111000000)(000000000)(000020000)"
    assert reference_deficiency(hand, kb) == 4
    assert deficiency(hand, kb, method="hbba") == 4


def test_threads_share_the_memo_safely():
    # memo entries are filled lazily; threads filling the same entries at once must agree
    from concurrent.futures import ThreadPoolExecutor

    cases = [c for c in _cases(8, 160) if len(c[0]) == 27]
    want = [hbba.hbba_one(h, k, 4 - x) for h, k, x in cases]
    hbba._block_entry.cache_clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = list(pool.map(lambda _: [hbba.hbba_one(h, k, 4 - x) for h, k, x in cases], range(4)))
    assert all(run == want for run in runs)


def _record_ukos(monkeypatch) -> list[int]:
    """Remainder sizes UKOS is asked for (fresh memo)."""
    hbba._block_entry.cache_clear()
    asked: list[int] = []
    real = hbba.ukos_exact

    def spy(counts, kb, chows, max_parts, num_rem, max_rem=None):
        asked.append(num_rem if max_rem is None else max_rem)
        return real(counts, kb, chows, max_parts, num_rem, max_rem)

    monkeypatch.setattr(hbba, "ukos_exact", spy)
    return asked


def test_hbb_stops_at_the_first_layer_for_a_complete_hand(monkeypatch):
    asked = _record_ukos(monkeypatch)
    assert deficiency("(B1B2B2B3B3B4B7B7B7)(C1C1)(D4D5D6)", method="hbba") == 0
    # layer 1 (14 tiles) gives cost 0 = its minimal cost: no block is searched past remainder 0
    assert asked and max(asked) == 0
    hbba._block_entry.cache_clear()


def test_hbb_goes_no_deeper_than_table4(monkeypatch):
    costed: list[int] = []
    real = hbba._best_in_class_combo

    def spy(choice, m, n, e, *rest):
        costed.append(3 * m + 2 * n)  # tiles of the qDCMPs costed: their layer
        return real(choice, m, n, e, *rest)

    monkeypatch.setattr(hbba, "_best_in_class_combo", spy)
    hbba._block_entry.cache_clear()
    assert deficiency("(B3B5B6B9)(C2C2C3C6C9)(D1D1D2D5D8)", method="hbba") == 6
    # cost 6: Table 4 evaluates down to layer 9 (qDCMPs of 6 tiles) and no further (the layers
    # above hold no qDCMP of this hand); no qDCMP of fewer tiles is costed
    assert costed and min(costed) == 6


def test_unknown_option_is_a_value_error():
    with pytest.raises(ValueError, match="takes no option .device.; its options: none"):
        deficiency("123m456p789s11z22z", method="hbba", device="cuda")
