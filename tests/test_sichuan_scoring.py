"""Sichuan fan patterns, kong payments and draw settlement (mjenv.rulesets.sichuan.scoring)."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv import tiles
from mjenv.rulesets.sichuan import scoring as sc

S, M, P = 0, 1, 2  # tiles.suit_of: bamboo, characters, dots


def h(text: str) -> np.ndarray:
    return tiles.parse(text, 27)


def test_plain_win_and_missing_suit_blocks_it():
    assert sc.fan(h("123456m234678p55m"), [], P) is None  # holds dots, dots declared missing
    assert sc.fan(h("123456m234678p55m"), [], S) == {"plain": 0}
    assert sc.fan(h("123456m234678p56m"), [], S) is None  # not complete


def test_all_pongs():
    assert sc.fan(h("111333m555p777p99m"), [], S) == {"plain": 0, "all_pongs": 1}


def test_pure_suit():
    # a pong of another suit: a win, but not pure
    assert sc.fan(h("12345678999m"), [("pong", int(h("1p").argmax()))], S) == {"plain": 0}
    # 1m: three in the pong, one concealed: a gen
    pure = sc.fan(h("12345678999m"), [("pong", int(h("1m").argmax()))], S)
    assert pure == {"plain": 0, "pure_suit": 2, "gen": 1}
    assert sc.fan(h("123123456m77799m"), [], S) == {"plain": 0, "pure_suit": 2}


def test_seven_pairs_and_gen():
    assert sc.fan(h("1133557799m2244p"), [], S) == {"plain": 0, "seven_pairs": 2}
    fans = sc.fan(h("1111557799m2244p"), [], S)  # dragon seven pairs: four 1m are two pairs and a gen
    assert fans == {"plain": 0, "seven_pairs": 2, "gen": 1}
    assert sc.points(fans) == 8


def test_kong_is_gen_and_how_won():
    kong = ("kong", int(h("9m").argmax()))
    fans = sc.fan(h("123456m234p55m"), [kong], S, self_draw=True, after_kong=True)
    assert fans == {"plain": 0, "gen": 1, "self_draw": 1, "after_kong": 1}
    assert sc.points(fans) == 8
    assert sc.fan(h("123456m234678p55m"), [], S, robbing_kong=True) == {"plain": 0, "robbing_kong": 1}


def test_cap():
    assert sc.points({"plain": 0, "pure_suit": 2, "seven_pairs": 2, "gen": 2}) == 2**sc.FAN_CAP


def test_win_payments():
    assert sc.win_payments(0, 4, discarder=2, live=[0, 1, 2, 3]).tolist() == [4, 0, -4, 0]
    # self-draw after seat 3 left: only seats still in the hand pay
    assert sc.win_payments(0, 4, discarder=None, live=[0, 1, 2]).tolist() == [8, -4, -4, 0]


def test_kong_payments():
    assert sc.kong_payments(1, "exposed", discarder=3, live=[0, 1, 2, 3]).tolist() == [0, 2, 0, -2]
    assert sc.kong_payments(1, "added", discarder=None, live=[0, 1, 2, 3]).tolist() == [-1, 3, -1, -1]
    assert sc.kong_payments(1, "concealed", discarder=None, live=[1, 2, 3]).tolist() == [0, 4, -2, -2]
    with pytest.raises(ValueError, match="kong kind"):
        sc.kong_payments(1, "hidden", discarder=None, live=[0, 1])
    with pytest.raises(ValueError, match="discarder"):
        sc.kong_payments(1, "exposed", discarder=None, live=[0, 1])


def test_draw_settlement():
    # live 0..3; seat 3 a flower pig, seat 0 ready worth 4, seats 1 and 2 not ready
    d = sc.draw_settlement([0, 1, 2, 3], [3], {0: 4})
    assert d.tolist() == [16 + 8, 16 - 4, 16 - 4, -48]
    assert d.sum() == 0


def test_bad_input():
    with pytest.raises(ValueError, match="chow"):
        sc.fan(h("123456m234678p55m"), [("chow", 0)], S)
    with pytest.raises(ValueError, match="missing_suit"):
        sc.fan(h("123456m234678p55m"), [], 3)
