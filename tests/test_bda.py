"""Tests of ``method="bda"`` (block deficiency algorithm, BDA paper) in ``mjenv.deficiency.bda``.

Ground truth is the exact ``dp`` backend, itself cross-checked here against the slow enumerator of
the definition (``reference_deficiency``) on a subset.
"""

from __future__ import annotations

import numpy as np
import pytest

from mjenv import tiles
from mjenv.deficiency import INCOMPLETABLE, bda, deficiency, dp
from mjenv.deficiency.blocks import kb_blocks
from mjenv.deficiency.reference import reference_one

BIG = bda.BIG


def _kb(text: str) -> np.ndarray:
    return tiles.parse(text)


# ------------------------------------------------------------------------------------------------
# The paper's examples
# ------------------------------------------------------------------------------------------------
def test_paper_prop1_example_deficiency_6():
    assert deficiency("(B3B5B6B9)(C2C2C3C6C9)(D1D1D2D5D8)", method="bda") == 6


def test_paper_example4_deficiency_4():
    hand = "()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)"
    kb = "(001100121)(010000030)(032242321)"
    assert deficiency(hand, kb, method="bda") == 4
    assert deficiency(hand, kb, method="bda", variant="paper") == 4


def test_paper_complete_hand_eq1():
    assert deficiency("(B1B2B2B3B3B4B7B7B7)(C1C1)(D4D5D6)", method="bda") == 0


def test_paper_example1():
    # Example 1 (KB = 4 - H): dfncy = 3. (Example 3's KB lists two B8 next to the hand's three, which
    # is not compatible with the hand, so it cannot be checked.)
    assert deficiency("(B1B5B6B8B8B8B9)()(D1D2D4D5D5D6D7)", method="bda") == 3


def test_sec5_local_types_of_running_example():
    hand = tiles.parse("()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)")
    kb = _kb("(001100121)(010000030)(032242321)")
    b1, b2, b3, b4, b5 = kb_blocks(hand, kb)
    kb_c, kb_d = b1.local_kb(kb), b4.local_kb(kb)
    assert kb_c == (0, 1, 0, 0, 0, 0, 0, 3, 0) and kb_d == (0, 3, 2, 2, 4, 2, 3, 2, 1)
    # b1 = (C1), b2 = (C4): only the empty qDCMP, type (0,0,0,0,0,0,0)
    assert bda.local_types(b1.local_counts(), kb_c) == {(0, 0, 0, 0, 0, 0, 0)}
    assert bda.local_types(b2.local_counts(), kb_c) == {(0, 0, 0, 0, 0, 0, 0)}
    # pi3 = ((C6C7C8)) with remainder (C9): (1,0,0,0,0,0,0)
    assert (1, 0, 0, 0, 0, 0, 0) in bda.local_types(b3.local_counts(), kb_c)
    # pi4 = ((D1D2D3)): (1,0,0,0,0,0,0)
    assert (1, 0, 0, 0, 0, 0, 0) in bda.local_types(b4.local_counts(), kb_d)
    # pi5 = ((D6D7D8)), remainder (D6): re = rm = 1 and an eye-meld conflict. The paper prints
    # (2,0,0,0,1,1,1) once (a typo: pi5 holds one meld) and (1,0,0,0,1,1,1) in Sec. 5.2.
    t5 = bda.local_types(b5.local_counts(), kb_d)
    assert (1, 0, 0, 0, 1, 1, 1) in t5
    assert all(x[0] <= 1 for x in t5)
    # Sec. 5.2: joining pi1..pi5 gives (3,0,0,0,1,1,1), and Lemma 4 (c) prices it at 4
    joined = {(0, 0, 0, 0, 0, 0, 0)}
    for x in [(0, 0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 0, 0, 0), (1, 0, 0, 0, 1, 1, 1)]:
        joined = bda.join(joined, {x})
    assert joined == {(3, 0, 0, 0, 1, 1, 1)}
    assert bda.decide((3, 0, 0, 0, 1, 1, 1), ke=1, km=1) == 4


def test_example4_incompletable_pchows_are_not_qdcmps():
    # KB has one C2 and three C8: (C7C8) and (C8C9) are incompletable (need C6/C9 resp. C7), so no
    # type of b3 = (C6C7C8C9) holds two pmelds, but (C6C7) (needs C8) is a pmeld.
    kb_c = (0, 1, 0, 0, 0, 0, 0, 3, 0)
    types = bda.local_types((0, 0, 0, 0, 0, 1, 1, 1, 1), kb_c)
    # (C6C7), remainder (C8C9): C8 can become the eye or a pong with KB tiles, but not both at once
    # while C9 can do neither (em = 1)
    assert (0, 1, 0, 0, 1, 1, 1) in types
    assert all(x[1] <= 1 for x in types)


# ------------------------------------------------------------------------------------------------
# Alg. 1 (Decide) and Alg. 3 (join) on hand-computed types
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "ke", "km", "expected"),
    [
        ((4, 1, 1, 0, 0, 0, 0), 0, 0, 0),  # Lemma 3 (a): complete
        ((3, 2, 1, 0, 0, 0, 0), 0, 0, 1),  # Lemma 3 (a): 4 - m
        ((2, 3, 1, 1, 0, 0, 0), 0, 0, 2),  # Lemma 3 (a) with the incompletable pair as eye
        ((4, 0, 0, 0, 1, 0, 1), 0, 0, 1),  # Lemma 3 (b): eye from the remainder
        ((4, 0, 0, 0, 0, 0, 0), 1, 0, 2),  # Lemma 3 (c): eye from the KB
        ((4, 0, 0, 0, 0, 1, 0), 0, 1, BIG),  # Lemma 2 (a): no pair anywhere
        ((3, 1, 1, 1, 0, 1, 0), 0, 0, 2),  # Lemma 3 (b): p > 0, rm = 1
        ((3, 1, 1, 1, 0, 0, 0), 0, 1, 3),  # Lemma 3 (c): meld from the KB
        ((3, 1, 1, 1, 0, 0, 0), 1, 0, BIG),  # Lemma 2 (c)
        ((2, 1, 1, 1, 0, 1, 0), 0, 0, 4),  # Alg. 1 line 22: 0 + 2 * 2
        ((3, 0, 0, 0, 1, 1, 0), 0, 0, 3),  # line 25: 0 + 2 + 1 + 0
        ((3, 0, 0, 0, 1, 1, 1), 1, 1, 4),  # Lemma 4 (c)
        ((3, 0, 0, 0, 1, 1, 1), 0, 0, BIG),  # Lemma 2 (d)
        ((2, 1, 1, 0, 1, 1, 0), 0, 0, 4),  # line 29: min(1 + 2 + 1, 0 + 4)
        ((2, 1, 1, 0, 0, 1, 0), 1, 0, 4),  # line 29: min(1 + 2 + 2, 0 + 4)
        ((0, 0, 0, 0, 0, 0, 0), 1, 1, 14),  # nothing: 4 melds from the KB (3 each) + eye (2)
    ],
)
def test_decide_hand_computed(x, ke, km, expected):
    assert bda.decide(x, ke, km) == expected


def test_decide_line29_worked():
    # (1,1,1,0,0,0,0), mcost = 3, ecost = 2: f1 = 1 + 3*2 + 2 = 9, f2 = 0 + 3*3 = 9 -> 9?
    # No: m + n = 2, so 4 - m - n = 2 new melds: f1 = 1 + 6 + 2 = 9; f2 = 0 + 3 * 3 = 9.
    assert bda.decide((1, 1, 1, 0, 0, 0, 0), 1, 1) == 9


def test_decide_generalises_melds():
    assert bda.decide((0, 1, 1, 0, 0, 0, 0), 0, 0, melds=0) == 0  # a pair is a complete 2-tile hand
    assert bda.decide((0, 0, 0, 0, 1, 0, 0), 0, 0, melds=0) == 1  # pair a remainder tile
    assert bda.decide((0, 0, 0, 0, 0, 0, 0), 1, 0, melds=0) == 2  # pair from the KB
    assert bda.decide((5, 0, 0, 0, 1, 0, 0), 0, 0, melds=5) == 1  # 16-tile rules: 5 melds + eye


def test_join_eye_meld_conflict_and_lemma1():
    conflict = {(0, 0, 0, 0, 1, 1, 1)}
    assert bda.join(conflict, {(1, 0, 0, 0, 0, 0, 0)}) == {(1, 0, 0, 0, 1, 1, 1)}
    assert bda.join(conflict, {(1, 0, 0, 0, 1, 0, 0)}) == {(1, 0, 0, 0, 1, 1, 0)}  # eye elsewhere
    assert bda.join({(0, 1, 1, 1, 0, 0, 0)}, {(0, 1, 1, 1, 0, 0, 0)}) == set()  # e > 1
    assert bda.join({(3, 0, 0, 0, 0, 0, 0)}, {(0, 3, 1, 0, 0, 0, 0)}) == set()  # m + n > 5
    assert bda.join({(3, 0, 0, 0, 0, 0, 0)}, {(0, 2, 0, 0, 0, 0, 0)}) == set()  # 5 elements, no pair
    assert bda.join({(3, 0, 0, 0, 0, 0, 0)}, {(0, 2, 0, 0, 0, 0, 0)}, melds=5) == {(3, 2, 0, 0, 0, 0, 0)}


def test_kb_attributes():
    assert bda.kb_attributes(np.zeros(27, int)) == (0, 0)
    assert bda.kb_attributes(_kb("(110000000)(000000000)(000000000)")) == (0, 0)
    assert bda.kb_attributes(_kb("(111000000)(000000000)(000000000)")) == (0, 1)
    assert bda.kb_attributes(_kb("(000000011)(100000000)(000000000)")) == (0, 0)  # B8 B9 C1 no chow
    assert bda.kb_attributes(_kb("(200000000)(000000000)(000000000)")) == (1, 0)
    honours = np.zeros(34, int)
    honours[30] = 3
    assert bda.kb_attributes(honours) == (1, 1)


# ------------------------------------------------------------------------------------------------
# Where the corrected variant differs from the text as written (module docstring)
# ------------------------------------------------------------------------------------------------
def test_pchows_sharing_the_last_kb_copy():
    # (B1B3) and (B3B4) both need the only B2; the KB has no pair and no meld: incompletable.
    # Taken one by one both pchows are completable, so the text as written prices
    # (C2C3C4)(D3D4D5)(B1B3)(B3B4)(D6D6) at 2; needing them completed together removes that qDCMP.
    # What is left is beyond the paper's guarantee (> 4), where BDA only gives a lower bound.
    hand = "(B1B3B3B4B6)(C2C3C4C9)(D3D4D5D6D6)"
    kb = "(010000100)(000011000)(000000000)"
    assert deficiency(hand, kb, method="dp") == INCOMPLETABLE
    assert deficiency(hand, kb, method="bda", variant="paper") == 2
    assert deficiency(hand, kb, method="bda") > 4


def test_kb_pair_used_by_a_completion():
    # (B1B3) takes one of the two B2 in the KB, so the KB has no pair left for an eye.
    hand = "(B1B3B6B7B8)(C1C2C2C3C3C4C5C6C8)()"
    kb = "(020000001)(000000001)(111101000)"
    assert deficiency(hand, kb, method="dp") == 4
    assert deficiency(hand, kb, method="bda", variant="paper") == 3
    assert deficiency(hand, kb, method="bda") == 4


def test_known_limitation_cross_block_kb_contention():
    # Documented residual error (module docstring): (D5D6) is completed by the only D7 while the
    # remainder tile D9, in another KB-block, counts on that D7 for a meld from scratch (rm = 1).
    hand = "(B7B8B9)(C1C2C5C5C5C8C8)(D3D5D6D9)"
    kb = "(000110000)(000111100)(000000111)"
    assert deficiency(hand, kb, method="dp") == 4
    assert deficiency(hand, kb, method="bda") == 3


# ------------------------------------------------------------------------------------------------
# Random cross-checks against the exact dp (and dp against the reference)
# ------------------------------------------------------------------------------------------------
def _random_cases(seed: int, n: int, num_types: int, suits: tuple[int, ...], melds: int = 4):
    rng = np.random.default_rng(seed)
    hands, kbs, needed = [], [], []
    for _ in range(n):
        m = melds - int(rng.integers(0, 4))
        size = 3 * m + int(rng.integers(1, 3))
        s = int(rng.choice(suits))
        pool = np.repeat(np.arange(9 * s if s < 4 else num_types), 4)
        if rng.random() < 0.15:  # four-copy hands
            quad = int(rng.choice(pool))
            rest = rng.choice(pool[pool != quad], size - 4, replace=False)
            hand = np.bincount(np.r_[[quad] * 4, rest], minlength=num_types)
        else:
            hand = np.bincount(rng.choice(pool, size, replace=False), minlength=num_types)
        style = rng.random()
        if style < 0.15:
            kb = 4 - hand  # the ordinary shanten KB
        elif style < 0.3:
            kb = rng.binomial(4 - hand, 0.05)  # tiny KB, often incompletable
        else:
            kb = rng.binomial(4 - hand, rng.random() ** 2)
        hands.append(hand)
        kbs.append(kb)
        needed.append(m)
    return np.array(hands, np.int8), np.array(kbs, np.int8), np.array(needed, np.int64)


@pytest.mark.parametrize(
    ("seed", "n", "num_types", "suits"),
    [
        (101, 1500, 27, (3,)),
        (102, 1000, 27, (2,)),
        (103, 150, 27, (1,)),
        (104, 1000, 34, (3, 4)),
    ],
)
def test_exact_when_at_most_4_and_never_above(seed, n, num_types, suits):
    hands, kbs, needed = _random_cases(seed, n, num_types, suits)
    exact = dp.deficiency_batch(hands, kbs, needed)
    got = bda.deficiency_batch(hands, kbs, needed)
    small = exact <= 4
    assert small.sum() > n // 4  # the sample does exercise the guarantee
    bad = np.flatnonzero(small & (got != exact))
    assert bad.size == 0, [(tiles.format_hand(hands[i]), kbs[i].tolist(), exact[i], got[i]) for i in bad[:3]]
    # Theorem 3, first half: block_dfncy <= dfncy (every error we measured is an under-estimate)
    assert np.all(got <= exact)


def test_sixteen_tile_rules_melds_5():
    hands, kbs, needed = _random_cases(105, 500, 27, (3,), melds=5)
    exact = dp.deficiency_batch(hands, kbs, needed)
    got = bda.deficiency_batch(hands, kbs, needed)
    assert np.all(got[exact <= 4] == exact[exact <= 4])
    assert np.all(got <= exact)


def test_dp_ground_truth_against_reference_subset():
    hands, kbs, needed = _random_cases(106, 40, 27, (3,))
    exact = dp.deficiency_batch(hands, kbs, needed)
    ref = [reference_one(h, k, int(m)) for h, k, m in zip(hands, kbs, needed)]
    assert exact.tolist() == ref
    got = bda.deficiency_batch(hands, kbs, needed)
    assert np.all(got[exact <= 4] == exact[exact <= 4])


def test_tiny_hands_melds_needed_0():
    # 1- and 2-tile hands (four exposed melds): only the eye is missing
    assert deficiency("B5", exposed_melds=4, method="bda") == 1
    assert deficiency("B5B5", exposed_melds=4, method="bda") == 0
    assert deficiency("B5B6", exposed_melds=4, method="bda") == 1
    kb = np.zeros(27, int)
    kb[20] = 2
    assert deficiency("B5B6", kb, exposed_melds=4, method="bda") == 2  # pair from the KB
    kb[20] = 1
    assert deficiency("B5B6", kb, exposed_melds=4, method="bda") == INCOMPLETABLE


def test_draw_rule_for_13_tiles_matches_definition_9():
    hands, kbs, needed = _random_cases(107, 60, 27, (3,))
    short = (hands.sum(axis=1) % 3) == 1
    hands, kbs, needed = hands[short], kbs[short], needed[short]
    exact = dp.deficiency_batch(hands, kbs, needed)
    for h, k, m, d in zip(hands, kbs, needed, exact):
        got = bda.deficiency_one(h, k, int(m), thirteen="draw")
        # Definition 9: min over t in KB of dfncy(H + t, KB - t) + 1, each by Alg. 2
        want = INCOMPLETABLE
        for t in np.flatnonzero(k):
            h2, k2 = h.copy(), k.copy()
            h2[t] += 1
            k2[t] -= 1
            v = bda.deficiency_one(h2, k2, int(m))
            want = min(want, v + 1 if v != INCOMPLETABLE else INCOMPLETABLE)
        assert got == want
        if d <= 4:
            assert got == d


def test_batch_equals_single_and_public_api():
    hands, kbs, needed = _random_cases(108, 200, 34, (3, 4))
    batch = deficiency(hands, kbs, method="bda", exposed_melds=4 - needed)
    singles = [deficiency(h, k, method="bda", exposed_melds=int(4 - m)) for h, k, m in zip(hands, kbs, needed)]
    assert batch.dtype == np.int32 and batch.tolist() == singles
    assert batch.tolist() == bda.deficiency_batch(hands, kbs, needed).tolist()


def test_bad_options():
    hand = tiles.parse("(B1B2B3B4B5B6B7B8B9)(C1C1C2C3)()")
    with pytest.raises(ValueError, match="variant must be"):
        deficiency(hand, method="bda", variant="exact")
    with pytest.raises(ValueError, match="thirteen must be"):
        deficiency(hand, method="bda", thirteen="twice")


def test_honours_form_pongs_and_pairs_only():
    # (1z2z3z) is no chow: one honour pong is still missing (two draws)
    assert deficiency("123456789m11s123z", method="bda") == 2
    assert deficiency("123456789m11s111z", method="bda") == 0
    # an honour pair whose last copies are gone cannot become a pong, only the eye
    kb = 4 - tiles.parse("123456789m11s777z", 34)
    kb[33] = 0
    assert deficiency("123456789m11s777z", kb, method="bda") == 0
    hand = tiles.parse("123456789m11s77z", 34)  # 13 tiles: 77z is the eye, 11s needs its third copy
    kb = 4 - hand
    kb[33] = 0
    assert deficiency(hand, kb, method="bda") == deficiency(hand, kb, method="dp") == 1


# --------------------------------------------------------------------------- the compiled local search
def _python_search(monkeypatch):
    """Make bda use its Python local search (and forget what the compiled one put in the memos)."""
    monkeypatch.setattr(bda, "_bda_ext", None)
    for f in (bda._window_bits, bda._window_types, bda._structures, bda._remainder_attrs, bda._leftover_kbs):
        f.cache_clear()


def _block_windows(rng, n):
    """Windows (counts, kb) of the KB-blocks of n random hands (1-3 suits, 13-14 tiles, any KB)."""
    out = []
    for i in range(n):
        suits = [(0,), (0, 1), (0, 1, 2)][i % 3]
        ids = np.concatenate([np.arange(9 * s, 9 * s + 9) for s in suits])
        hand = np.zeros(27, np.int64)
        np.add.at(hand, rng.choice(np.repeat(ids, 4), 13 + i % 2, replace=False), 1)
        kb = rng.binomial(4 - hand, rng.random() ** (1 + i % 3))
        for block in kb_blocks(hand, kb):
            lo, hi = min(block.tiles), max(block.tiles)
            ranks = range(lo - 2, hi + 3)
            same_suit = [t // 9 == lo // 9 and t >= 0 for t in ranks]
            counts = tuple(int(hand[t]) if ok and lo <= t <= hi else 0 for t, ok in zip(ranks, same_suit))
            k = tuple(int(kb[t]) if ok else 0 for t, ok in zip(ranks, same_suit))
            out.append((counts, k))
    return out


def test_compiled_local_search_equals_the_python_search(monkeypatch):
    assert bda._compiled_search()  # CI has a C compiler: the compiled search is built and used
    rng = np.random.default_rng(11)
    windows = _block_windows(rng, 400)
    got = {(c, k, me): bda._window_bits(c, k, False, me, False) for c, k in windows for me in (3, 5, 6)}
    honours = [((h,), (k,)) for h in range(1, 5) for k in range(5 - h)]
    got.update({(c, k, me): bda._window_bits(c, k, True, me, False) for c, k in honours for me in range(1, 7)})
    _python_search(monkeypatch)
    for (c, k, me), bits in got.items():
        assert bits == bda._window_bits(c, k, len(c) == 1, me, False), (c, k, me)
    assert len(got) > 1000


def test_bda_answers_do_not_depend_on_the_compiled_search(monkeypatch):
    hands, kbs, needed = _random_cases(109, 400, 34, (1, 2, 3, 4))
    compiled = bda.deficiency_batch(hands, kbs, needed)
    _python_search(monkeypatch)
    assert (bda.deficiency_batch(hands, kbs, needed) == compiled).all()
    monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    assert not bda._compiled_search()
