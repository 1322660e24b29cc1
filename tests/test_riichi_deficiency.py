"""Riichi's knowledge-aware deficiency (``deficiency(..., rules="riichi")``) and its features.

The least over m melds + a pair, seven distinct pairs and thirteen orphans (the last two for a hand
with no exposed meld), each by the definition of ``docs/DESIGN.md``. Every expected value comes from
the enumerating reference (:mod:`mjenv.deficiency.reference`: ``reference_deficiency(rules="riichi")``,
which enumerates the complete patterns W of the three forms), from the ``mahjong`` library's shanten
(+ 1, with no known tile), or is worked out by hand in the comments; never from the code under test.
The feature tests evaluate many rows (each draw, discard, discard then draw): there the melds-and-pair
half of the expected value is ``method="hbba"`` (the HBBA paper's search, checked against the reference
by the other suites; the features run the ``dp`` tables), the closed forms enumerated.
"""

from __future__ import annotations

import numpy as np
import pytest

from mjenv import tiles
from mjenv.deficiency import INCOMPLETABLE, RULES, deficiency, kernel
from mjenv.deficiency.features import (
    deficiency_after_claim,
    deficiency_after_discard,
    effective_count_after_discard,
    effective_tiles,
    is_complete,
)
from mjenv.deficiency.reference import (
    ORPHANS,
    reference_deficiency,
    reference_one,
    reference_seven_pairs,
    reference_thirteen_orphans,
)
from mjenv.deficiency.seat_features import DeficiencyFeatures, PartCache
from mjenv.deficiency.seven_pairs import seven_pairs_deficiency, variants
from tests.conftest import KB_MODES, random_case
from tests.test_seven_pairs_features import Reference as _EnumeratingReference

EXACT = ("auto", "hbba", "dp")
SUIT_SETS = ((0,), (3,), (0, 3), (1, 2), (0, 1, 3), (0, 1, 2), (0, 1, 2, 3))
BACKENDS = ["numpy", pytest.param("c", marks=pytest.mark.skipif(not kernel.available(), reason="no kernel"))]


def _fill(rng, h: np.ndarray, size: int) -> np.ndarray:
    """``h`` trimmed or topped up with random tiles (at most 4 a type) to ``size`` tiles."""
    h = np.minimum(h, 4)
    while h.sum() > size:
        h[rng.choice(np.flatnonzero(h))] -= 1
    while h.sum() < size:
        t = int(rng.integers(len(h)))
        if h[t] < 4:
            h[t] += 1
    return h


def closed_form_hand(rng: np.random.Generator, size: int) -> np.ndarray:
    """int8[34]: a hand near a closed form: mostly orphans (near thirteen orphans), or seven pairs
    with a four of a kind among them, or three fours."""
    h = np.zeros(34, np.int64)
    kind = int(rng.integers(3))
    if kind == 0:
        h[list(ORPHANS)] = rng.random(13) < 0.85
        h[ORPHANS[int(rng.integers(13))]] += 1
    elif kind == 1:
        pairs = rng.choice(34, 7, replace=False)
        h[pairs] = 2
        h[pairs[0]] = 4
    else:
        h[rng.choice(34, 3, replace=False)] = 4
    return _fill(rng, h, size).astype(np.int8)


def random_kb(rng: np.random.Generator, h: np.ndarray, mode: str) -> np.ndarray:
    """A knowledge base for ``h`` as ``conftest.random_case`` draws them (modes "full", "empty",
    "random", "tiny")."""
    rest = 4 - h.astype(np.int64)
    if mode == "full":
        return rest.astype(np.int8)
    if mode == "empty":
        return np.zeros_like(h)
    if mode == "random":
        return rng.binomial(rest, rng.uniform()).astype(np.int8)
    kb = np.zeros(34, np.int64)
    pool = np.repeat(np.arange(34), rest)
    np.add.at(kb, rng.choice(pool, size=int(rng.integers(1, 4)), replace=False), 1)
    return kb.astype(np.int8)


def reference_cases(seed: int, repeats: int) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(hand, KB, exposed melds) rows: every suit set (one, two, three suits, with and without honours,
    honours alone), every KB mode of ``random_case``, 13- and 14-tile closed hands, hands with four
    copies, hands with exposed melds, and hands near seven pairs or thirteen orphans."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(repeats):
        for suits in SUIT_SETS:
            for mode in KB_MODES:
                for extra in (1, 2):
                    exposed = int(rng.integers(1, 4))
                    for exp, four in ((0, False), (0, True), (exposed, bool(rng.integers(2)))):
                        h, kb = random_case(rng, suits=suits, num_tile_types=34, exposed=exp, extra=extra,
                                            kb_mode=mode, four_copies=four)  # fmt: skip
                        out.append((h, kb, exp))
        for i in range(24):
            h = closed_form_hand(rng, 13 + i % 2)
            out.append((h, random_kb(rng, h, ("full", "random", "tiny", "empty")[i % 4]), 0))
    return out


def _check_against_reference(cases) -> None:
    hands = np.array([c[0] for c in cases])
    kbs = np.array([c[1] for c in cases])
    exposed = np.array([c[2] for c in cases])
    want = np.array([reference_deficiency(h, k, exposed_melds=int(e), rules="riichi") for h, k, e in cases])
    # the closed forms must decide some rows, or the test would not test them
    regular = np.array([reference_one(h, k, 4 - int(e)) for h, k, e in cases])
    assert (want < regular).sum() >= len(cases) // 20
    for method in EXACT:
        np.testing.assert_array_equal(deficiency(hands, kbs, exposed_melds=exposed, rules="riichi", method=method),
                                      want, err_msg=method)  # fmt: skip
    # a large batch (the numpy dp path under auto) and each single call
    big = np.arange(600) % len(cases)
    got = deficiency(hands[big], kbs[big], exposed_melds=exposed[big], rules="riichi")
    np.testing.assert_array_equal(got, want[big])
    for (h, k, e), w in zip(cases, want):
        assert deficiency(h, k, exposed_melds=int(e), rules="riichi") == w
        assert deficiency(h, k, exposed_melds=int(e), rules="riichi", method="hbba") == w


@pytest.mark.heavy
def test_equals_the_reference_on_random_hands_and_knowledge_bases():
    _check_against_reference(reference_cases(seed=30, repeats=1))


@pytest.mark.slow
def test_equals_the_reference_on_many_random_hands():
    _check_against_reference(reference_cases(seed=31, repeats=8))


def test_closed_forms_are_the_least_of_the_enumerated_forms_on_many_hands():
    # breadth for the two closed forms: against their enumerations (the melds half by the exact
    # engine the other suites check against the reference)
    rng = np.random.default_rng(32)
    cases = [(closed_form_hand(rng, 13 + i % 2), i) for i in range(600)]
    hands = np.array([h for h, _ in cases])
    kbs = np.array([random_kb(rng, h, ("full", "random", "tiny", "empty")[i % 4]) for h, i in cases])
    seven = np.array([reference_seven_pairs(h, k, fours=False) for h, k in zip(hands, kbs)])
    orphans = np.array([reference_thirteen_orphans(h, k) for h, k in zip(hands, kbs)])
    regular = deficiency(hands, kbs, method="hbba")
    want = np.minimum(regular, np.minimum(seven, orphans))
    assert (orphans < np.minimum(regular, seven)).sum() > 30 and (seven < np.minimum(regular, orphans)).sum() > 30
    np.testing.assert_array_equal(deficiency(hands, kbs, rules="riichi"), want)
    np.testing.assert_array_equal(seven_pairs_deficiency(hands, kbs, "riichi"), np.minimum(seven, orphans))


# ---------------------------------------------------------------- the mahjong library


def _to_mahjong_lib_34(counts: np.ndarray) -> list[int]:
    # ours: 0-8 s (bamboo), 9-17 m, 18-26 p, 27-33 honours; the mahjong library: m, p, s, honours
    c = np.asarray(counts, dtype=int)
    return list(c[9:18]) + list(c[18:27]) + list(c[0:9]) + list(c[27:34])


def library_hands(seed: int, n: int) -> np.ndarray:
    """int8[n, 34]: 13- and 14-tile hands; three in four drawn from the 136-tile wall, one in four near
    a closed form (:func:`closed_form_hand`)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, 34), np.int8)
    for i in range(n):
        size = 13 + i % 2
        if i % 4 == 3:
            out[i] = closed_form_hand(rng, size)
        else:
            np.add.at(out[i], rng.choice(136, size, replace=False) // 4, 1)
    return out


def _check_against_library(n: int, seed: int) -> None:
    from mahjong.shanten import Shanten

    hands = library_hands(seed, n)
    theirs = np.array([Shanten.calculate_shanten(_to_mahjong_lib_34(h), use_chiitoitsu=True, use_kokushi=True) + 1
                       for h in hands])  # fmt: skip
    ours = deficiency(hands, rules="riichi")
    bad = np.flatnonzero(ours != theirs)
    assert len(bad) == 0, [(tiles.format_hand(hands[i]), int(ours[i]), int(theirs[i])) for i in bad[:5]]
    # the single call (the compiled path) on a sample
    for h, w in zip(hands[:500], theirs[:500]):
        assert deficiency(h, rules="riichi") == w
    assert len(np.unique(ours)) >= 6  # from complete hands to far ones


def test_equals_mahjong_library_shanten_plus_one():
    _check_against_library(5_000, seed=33)


@pytest.mark.slow
def test_equals_mahjong_library_shanten_plus_one_on_100000_hands():
    _check_against_library(100_000, seed=34)


# ---------------------------------------------------------------- fixed examples


def test_seven_pairs_with_four_copies_are_not_two_pairs():
    # 1111m 22p 33p 55s 66s 77z: six distinct pairs (1m held four times is one pair); the seventh
    # needs two draws of a new tile (no single held): 2 as seven pairs. As melds and a pair:
    # 111m + 1m, 2233p, 5566s, 77z is far (reference), so Riichi says 2; "fours" (Sichuan) would say 0.
    hand = tiles.parse("1111m2233p5566s77z", 34)
    assert reference_seven_pairs(hand, 4 - hand, fours=False) == 2
    assert reference_one(hand, 4 - hand, 4) > 2
    assert deficiency(hand, rules="riichi") == 2
    assert seven_pairs_deficiency(hand[None], (4 - hand)[None], "fours")[0] == 0
    assert not is_complete(hand, rules="riichi")
    # the same with a distinct seventh pair is complete
    assert is_complete(tiles.parse("11m2233p5566s5577z", 34), rules="riichi")
    assert not is_complete(tiles.parse("11m2233p5566s5577z", 34))


def test_thirteen_orphans_thirteen_sided_wait():
    # 19m19p19s1234567z: one of each orphan, tenpai on all thirteen (deficiency 1); every orphan is
    # effective, with all its three (or four) unseen copies
    hand = tiles.parse("19m19p19s1234567z", 34)
    assert deficiency(hand, rules="riichi") == 1
    assert deficiency(hand) > 5  # as melds and a pair it is far
    mask, count = effective_tiles(hand, rules="riichi")
    assert sorted(np.flatnonzero(mask)) == sorted(ORPHANS)
    assert count == 13 * 3
    # every 1z seen elsewhere: the other twelve still wait (1z itself can no longer be the pair)
    kb = 4 - hand
    kb[27] = 0
    assert deficiency(hand, kb, rules="riichi") == 1
    assert effective_tiles(hand, kb, rules="riichi")[1] == 12 * 3
    # no 9s left anywhere (none held, all seen): thirteen orphans is impossible
    hand2 = hand.copy()
    hand2[8], hand2[0] = 0, 2
    kb2 = 4 - hand2
    kb2[8] = 0
    assert reference_thirteen_orphans(hand2, kb2) == INCOMPLETABLE
    # seven pairs: 11s + six new pairs from singles 1m 9m 1p 9p 1z..7z: 6 draws; melds (hbba): more
    assert reference_seven_pairs(hand2, kb2, fours=False) == 6
    assert deficiency(hand2, kb2, rules="riichi") == min(6, deficiency(hand2, kb2, method="hbba"))
    # completed with 7z: complete, and after discarding any tile but the pair's 7z it is 1 again
    done = tiles.parse("19m19p19s12345677z", 34)
    assert deficiency(done, rules="riichi") == 0 and is_complete(done, rules="riichi")
    assert not is_complete(done)
    after = deficiency_after_discard(done, rules="riichi")
    assert after[33] == 1 and after[0] == 1


def test_mixed_forms_choose_the_least():
    # 11m 22m 33m 44p 55p 66s 7z: seven pairs needs one draw of 7z (1); as melds: 112233m is two
    # chows, 44p55p + 66s ... the reference decides; Riichi takes the least of both
    hand = tiles.parse("112233m4455p667z", 34)
    want = reference_deficiency(hand, rules="riichi")
    assert want == min(reference_one(hand, 4 - hand, 4), reference_seven_pairs(hand, 4 - hand, fours=False), 99)
    assert deficiency(hand, rules="riichi") == want == 1
    # one exposed meld: only melds and a pair count (no seven pairs, no thirteen orphans)
    open_hand = tiles.parse("19m19p19s12345z", 34)  # 11 tiles, one meld exposed
    assert deficiency(open_hand, exposed_melds=1, rules="riichi") == deficiency(open_hand, exposed_melds=1)
    assert deficiency(open_hand, exposed_melds=1, rules="riichi") > 3
    # 27 tile types: thirteen orphans cannot be made, seven pairs can
    h27 = tiles.parse("1122m3344p5566s9s", 27)
    assert deficiency(h27, rules="riichi") == 1 == reference_deficiency(h27, rules="riichi")


def test_default_rules_are_basic():
    hand = tiles.parse("19m19p19s1234567z", 34)
    assert deficiency(hand) == deficiency(hand, rules="basic") == deficiency(hand, method="hbba") == 9
    assert list(RULES) == ["basic", "riichi"]


def test_bad_rules_are_a_clear_value_error():
    hand = tiles.parse("19m19p19s1234567z", 34)
    for bad in ("sichuan", "Riichi", None, 3):
        with pytest.raises(ValueError, match="unknown rules .*allowed 'basic', 'riichi'"):
            deficiency(hand, rules=bad)
        with pytest.raises(ValueError, match="unknown rules"):
            deficiency_after_discard(tiles.parse("19m19p19s12345677z", 34), rules=bad)
        with pytest.raises(ValueError, match="unknown rules"):
            DeficiencyFeatures(34, rules=bad)
    with pytest.raises(ValueError, match="needs melds=4"):
        deficiency(tiles.parse("19m19p19s1234567z11p", 34), rules="riichi", melds=5)
    with pytest.raises(ValueError, match="missing_suit"):
        deficiency(hand, rules="riichi", missing_suit=0)
    with pytest.raises(ValueError, match="not both"):
        effective_tiles(hand, rules="riichi", seven_pairs="distinct")
    with pytest.raises(ValueError, match="unknown method"):
        deficiency(hand, rules="riichi", method="nope")


# ---------------------------------------------------------------- features


class Reference(_EnumeratingReference):
    """Riichi's deficiency of the feature rows: melds and a pair by ``hbba`` (an engine other than the
    features' ``dp`` tables), seven distinct pairs and thirteen orphans enumerated. A 3m+3-tile row
    (a 3m+2-tile hand after a draw) is the least over its discards (some tile of H is outside any W,
    and leaving it out costs nothing: ``mjenv.deficiency.features``' identity)."""

    def __init__(self):
        super().__init__("riichi")

    def __call__(self, hand: np.ndarray, kb: np.ndarray, m: int) -> int:
        key = (hand.tobytes(), kb.tobytes(), m)
        if key not in self.seen and hand.sum() == 3 * m + 3:
            unit = np.eye(len(hand), dtype=hand.dtype)
            self.seen[key] = min(self(hand - unit[d], kb, m) for d in np.flatnonzero(hand))
        if key not in self.seen:
            v = deficiency(hand, kb, exposed_melds=4 - m, method="hbba")
            if m == 4:
                v = min(v, reference_seven_pairs(hand, kb, fours=False), reference_thirteen_orphans(hand, kb))
            self.seen[key] = v
        return self.seen[key]


def _feature_cases(seed: int, n: int):
    """(hand, KB) rows for the feature functions: 14-tile closed hands near the closed forms and random
    ones, with tiny, random or full KBs."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        if i % 3 == 2:
            h, kb = random_case(rng, suits=(0, 1, 2, 3), num_tile_types=34, extra=2, kb_mode="tiny")
        else:
            h = closed_form_hand(rng, 14)
            kb = random_kb(rng, h, ("tiny", "random", "full")[i % 3])
        yield h, kb


def test_discard_and_draw_features_match_the_reference():
    ref = Reference()
    unit = np.eye(34, dtype=np.int8)
    rows = list(_feature_cases(35, 36))
    hands = np.array([h for h, _ in rows])
    kbs = np.array([k for _, k in rows])
    after = deficiency_after_discard(hands, kbs, rules="riichi")
    counts = effective_count_after_discard(hands, kbs, rules="riichi")
    mask, total = effective_tiles(hands, kbs, rules="riichi")
    below = 0
    for i, (h, kb) in enumerate(rows):
        now = ref(h, kb, 4)
        below += now < deficiency(h, kb, method="hbba")
        eff = [u for u in range(34) if kb[u] > 0 and ref(h + unit[u], kb - unit[u], 4) < now]
        assert sorted(np.flatnonzero(mask[i])) == eff
        assert total[i] == sum(int(kb[u]) for u in eff)
        for t in range(34):
            if h[t] == 0:
                assert after[i, t] == -1 and counts[i, t] == -1
                continue
            rest = h - unit[t]
            d = ref(rest, kb, 4)
            assert after[i, t] == d, (i, t)
            want = sum(int(kb[u]) for u in range(34) if kb[u] > 0 and ref(rest + unit[u], kb - unit[u], 4) < d)
            assert counts[i, t] == want, (i, t)
    assert below >= 5


def test_claims_and_completeness_under_riichi():
    rng = np.random.default_rng(36)
    for _ in range(20):
        h, kb = random_case(rng, suits=(0, 1, 2, 3), num_tile_types=34, extra=1, kb_mode="random")
        d = int(rng.choice(np.flatnonzero(h + kb < 4)))
        # a claim exposes a meld: melds and a pair only, as without rules
        want = deficiency_after_claim(h, kb, d)
        np.testing.assert_array_equal(deficiency_after_claim(h, kb, d, rules="riichi"), want)
    hands = library_hands(37, 400)
    hands = hands[hands.sum(axis=1) == 14]
    want = np.array([reference_deficiency(h, np.zeros(34, np.int8), rules="riichi") == 0 for h in hands])
    np.testing.assert_array_equal(is_complete(hands, rules="riichi"), want)
    assert want.sum() >= 3


@pytest.mark.parametrize(("backend", "with_memo"), [("numpy", False), *[pytest.param("c", m, marks=BACKENDS[1].marks)
                                                                          for m in (True, False)]])
def test_seat_features_match_the_reference(backend, with_memo):
    # the kernel finds each discard's melds-and-pair draws in its memo's record, or without a memo in
    # its own; both must give the reference
    rng = np.random.default_rng(38)
    rows = []
    for i in range(40):
        turn = bool(i % 2)
        exposed = int(i % 5 == 4)
        size = 13 + turn - 3 * exposed
        h = closed_form_hand(rng, size) if i % 3 else random_case(rng, suits=(0, 1, 2, 3), num_tile_types=34,
                                                                   exposed=exposed, extra=1 + turn)[0]  # fmt: skip
        kb = random_kb(rng, h, ("random", "full", "tiny")[i % 3])
        claim, chow = -1, False
        if not turn and i % 4 == 0:  # a discard on offer: a copy neither held nor in the KB
            claim, chow = int(rng.choice(np.flatnonzero(h < 4))), bool(i % 8)
            kb[claim] = min(kb[claim], 3 - h[claim])
        rows.append((h.astype(np.int64), kb.astype(np.int64), 4 - exposed, turn, claim, chow))
    ref = Reference()
    want = [ref.features(*row) for row in rows]
    hands, kbs, needed, turn, claim, chow = (np.array(x) for x in zip(*rows))
    engine = DeficiencyFeatures(34, backend=backend, rules="riichi", cache=PartCache())
    memo = kernel.new_memo() if with_memo else None
    got = engine.compute(hands, kbs, needed, turn, claim, chow, memo=memo)
    below = 0
    for i, w in enumerate(want):
        below += w["deficiency"] < deficiency(rows[i][0], rows[i][1], exposed_melds=4 - rows[i][2], method="hbba")
        for name, value in w.items():
            np.testing.assert_array_equal(got[name][i], value, err_msg=f"row {i} {name}")
    assert below >= 5


def test_closed_form_variants_match_the_reference():
    rng = np.random.default_rng(39)
    unit = np.eye(34, dtype=np.int64)

    def ref(h, kb):
        return min(reference_seven_pairs(h, kb, fours=False), reference_thirteen_orphans(h, kb))

    for i in range(6):
        h = closed_form_hand(rng, 13 + i % 2).astype(np.int64)
        kb = random_kb(rng, h.astype(np.int8), ("random", "tiny", "full")[i % 3]).astype(np.int64)
        v = variants(h[None], kb[None], 3, discard_draw=True)
        assert v["now"][0] == ref(h, kb)
        for t in range(34):
            if kb[t] > 0:
                assert v["draw"][0, t] == ref(h + unit[t], kb - unit[t])
            if h[t] == 0:
                continue
            assert v["discard"][0, t] == ref(h - unit[t], kb)
            for u in np.flatnonzero(kb > 0):
                assert v["discard_draw"][0, t, u] == ref(h - unit[t] + unit[u], kb - unit[u]), (t, u)
