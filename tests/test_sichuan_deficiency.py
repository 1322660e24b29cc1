"""Sichuan deficiency (missing suit, seven pairs) against the enumerating reference."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv import tiles
from mjenv.deficiency import INCOMPLETABLE, best_missing_suit, deficiency
from mjenv.deficiency.reference import reference_without_suit


def _random_cases(seed: int, n: int):
    rng = np.random.default_rng(seed)
    wall = np.repeat(np.arange(27), 4)
    for i in range(n):
        exposed = int(rng.integers(0, 3)) if i % 3 == 0 else 0
        size = (13, 14)[i % 2] - 3 * exposed
        hand = np.bincount(wall[rng.choice(108, size, replace=False)], minlength=27)
        if i % 4 == 0:  # a tiny KB: many hands become incompletable
            kb = np.minimum(4 - hand, rng.integers(0, 2, 27))
        else:
            kb = 4 - hand
        yield hand, kb, int(rng.integers(0, 3)), exposed


def _check(seed: int, n: int) -> None:
    for hand, kb, suit, exposed in _random_cases(seed, n):
        want = reference_without_suit(hand, kb, exclude_suit=suit, exposed_melds=exposed)
        for method in ("auto", "hbba", "dp"):
            got = deficiency(hand, kb, missing_suit=suit, exposed_melds=exposed, method=method)
            assert got == want, (hand.tolist(), kb.tolist(), suit, exposed, method)


def test_random_hands_match_reference():
    _check(7, 25)


@pytest.mark.slow
def test_many_random_hands_match_reference():
    _check(11, 400)


def test_missing_suit_tiles_cost_exchanges():
    # complete 14-tile hand in p/s; the same with its pair swapped for two m tiles costs 2 when m is missing
    assert deficiency("123456789p11122s", missing_suit="m") == 0
    assert deficiency("123456789p111s22m", missing_suit="m") == 2
    # ordinary deficiency of that hand is 0 (two m form the pair); so the constraint changed it
    assert deficiency("123456789p111s22m") == 0
    assert deficiency("123456789p11122s", missing_suit="p") > 0


def test_seven_pairs_and_dragon_pairs():
    assert deficiency("1122334455667p", missing_suit="m") == 1  # seven pairs, one short
    assert deficiency("11223344556677p", missing_suit="s") == 0
    assert deficiency("11113344556677p", missing_suit="s") == 0  # four of a kind = two pairs
    assert deficiency("11113344556677p", missing_suit="p") == 14  # every tile must go


def test_four_copies_and_empty_kb():
    hand = np.zeros(27, dtype=int)
    hand[9:13] = [4, 4, 4, 2]  # 1111222233334 4p -> 14 tiles
    assert deficiency(hand, np.zeros(27, dtype=int), missing_suit=0) == reference_without_suit(
        hand, np.zeros(27, dtype=int), exclude_suit=0
    )
    assert deficiency(hand, np.zeros(27, dtype=int), missing_suit=1) == INCOMPLETABLE  # suit 1 = ids 9..17


def test_batch_with_suit_per_row():
    hands = np.array([np.bincount([9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15], minlength=27)] * 2)
    # seven pairs of the characters (suit 1): complete when bamboo is missing, all 14 exchanged when characters are
    assert deficiency(hands, missing_suit=[0, 1]).tolist() == [0, 14]


@pytest.mark.parametrize("bad", [3, -1, "z", True, 1.5, "mp"])
def test_bad_missing_suit_is_value_error(bad):
    with pytest.raises(ValueError, match="missing_suit"):
        deficiency("123456789p11122s", missing_suit=bad)


def test_bad_combinations_are_value_errors():
    with pytest.raises(ValueError, match="missing_suit"):
        deficiency("123456789p11122s", missing_suit=0, melds=5)
    with pytest.raises(ValueError, match="missing_suit"):
        deficiency(np.array([tiles.parse("123456789p11122s", 27)] * 2), missing_suit=[0])
    with pytest.raises(ValueError, match="exact"):
        deficiency("123456789p11122s", missing_suit=0, method="ndde")


def test_best_missing_suit():
    # dots are nearly complete, characters too; the lone bamboo tiles are the cheapest to drop
    assert best_missing_suit("123456m123456p19s") == 0
    # bamboo (no tile) and dots (one tile) both cost 1: the tie goes to the suit with fewer tiles held
    assert best_missing_suit("1112345678999m5p") == 0
    assert best_missing_suit("1112345678999m5s") == 2
    with pytest.raises(ValueError, match="one hand"):
        best_missing_suit(np.array([tiles.parse("123456m123456p19s", 27)] * 2))
