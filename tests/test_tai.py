"""Taiwanese tai scoring (``Rules(scoring="tai")``, :mod:`mjenv.rulesets.taiwan16.tai`): expected tai from the
module's table, worked out by hand for scripted hands."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.game import Game
from mjenv.rules import get_rules
from mjenv.rulesets.taiwan16.tai import tai_patterns
from tests.game_helpers import script, tid

TAI = {"name": "taiwan16", "scoring": "tai"}
FILLER = ["123456789m 123456s 1z", "123456789m 789s 2z3z4z 1z", "123456789s 123m 2z3z4z 5z"]


def _win(g: Game, seat: int) -> None:
    g.step({seat: g.layout.win})
    assert g.winners == [seat]


def test_full_flush_concealed_self_draw_by_the_dealer() -> None:
    g = script(["1112223334445679p", *FILLER], draws="9p", rules=TAI)
    want = {"dealer": 1, "self_draw": 1, "concealed": 1, "concealed_self_draw": 1, "full_flush": 8}
    assert tai_patterns(g, 0, self_draw=True) == want
    _win(g, 0)
    assert g.scores.tolist() == [39, -13, -13, -13]  # 1 + 12 tai from each opponent


def test_all_chows_on_a_discard() -> None:
    hands = ["1112223334445679p", "123456789m123456p5s", FILLER[1], FILLER[2]]
    g = script(hands, draws="5s", rules=TAI)
    g.step({0: tid("5s")})
    g.step({1: g.layout.win})
    assert g.winners == [1]
    assert tai_patterns(g, 1, self_draw=False) == {"concealed": 1, "all_chows": 2}
    assert g.scores.tolist() == [-4, 4, 0, 0]


def test_dragons_all_pongs_half_flush() -> None:
    g = script(["111222333p 555z 666z 7z", *FILLER], draws="7z", rules=TAI)
    want = {"dealer": 1, "self_draw": 1, "concealed": 1, "concealed_self_draw": 1, "dragon_pong": 2,
            "all_pongs": 4, "half_flush": 4, "small_three_dragons": 4}  # fmt: skip
    assert tai_patterns(g, 0, self_draw=True) == want


def test_flowers_score_seat_flowers_and_flower_sets() -> None:
    g = script(["1112223334445679p", *FILLER], draws="9p", rules=TAI)
    g.flowers[0] = [1, 0, 0, 0, 1, 0, 0, 0]  # the east seat's season and plant
    assert tai_patterns(g, 0, self_draw=True)["seat_flower"] == 2
    g.flowers[0] = [1, 1, 1, 1, 0, 1, 0, 0]  # all four seasons; plant 1 is the south seat's
    pats = tai_patterns(g, 0, self_draw=True)
    assert pats["flower_set"] == 2 and "seat_flower" not in pats


def test_default_scoring_is_points_and_tai_needs_honours() -> None:
    assert get_rules("taiwan16").scoring == "points"
    g = script(["1112223334445679p", *FILLER], draws="9p", rules="taiwan16")
    _win(g, 0)
    assert g.scores.tolist() == [3, -1, -1, -1]
    with pytest.raises(ValueError, match="scoring"):
        get_rules({"name": "basic", "scoring": "tai"})
    with pytest.raises(ValueError, match="scoring"):
        get_rules({"name": "taiwan16", "scoring": "fan"})


def test_random_tai_hands_are_zero_sum() -> None:
    rng = np.random.default_rng(5)
    for seed in range(100):
        g = Game(TAI, seed=seed)
        while not g.is_over:
            g.step({s: int(rng.choice(np.flatnonzero(g.legal_action_mask(s)))) for s in g.acting_seats()})
        assert g.scores.sum() == 0
        for w in g.winners:
            assert g.scores[w] > 0
