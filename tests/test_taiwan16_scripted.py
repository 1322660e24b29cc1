"""Scripted taiwan16 hands through the engine (SIMCAT Sec. 2.1): the draw with exactly 16
tiles left, a flower as the last drawable tile, the last-tile and robbing-a-kong tai, flowers in every
seat's observation and in the log, and ``mjenv play`` under taiwan16.

Walls are built with :func:`mjenv.game.make_wall` (its filler is sorted and its 8 flowers sit at
indices 136..143, out of reach of the front draws), then flowers are moved where a test needs them.
With no claim and no flower on the way, the front draws rotate from the dealer (seat 0): wall index
``64 + k`` is drawn by seat ``k % 4``, and the last drawable one is index 127 (then 16 are left).
"""

from __future__ import annotations

import argparse
import io
import re

import numpy as np

from mjenv.game import EndReason, Game, Phase, make_wall
from mjenv.game.log import replay
from mjenv.rules import FLOWER_BASE
from mjenv.rulesets.taiwan16.tai import tai_patterns
from tests.game_helpers import script, tid

TAI = {"name": "taiwan16", "scoring": "tai"}
LAST = 127  # index of the last drawable front tile when no flower or kong came before


def _tsumogiri(g: Game, until=lambda g: False) -> list[int]:
    """Discard every drawn tile and pass every claim until the hand ends or ``until(g)``; returns the
    wall count at each discard turn (what was left after that turn's draw)."""
    seen = []
    while not g.is_over and not until(g):
        if g.phase == Phase.DISCARD:
            seen.append(g.wall_remaining)
            g.step({g.current_player: g.last_drawn})
        else:
            g.step({})  # every claimant passes
    return seen


def _move(w: np.ndarray, src: int, dst: int) -> np.ndarray:
    w = w.copy()
    w[src], w[dst] = w[dst], w[src]
    return w


# ---------------------------------------------------------------- the draw at 16 left
def test_hand_is_drawn_exactly_when_16_tiles_are_left():
    g = Game("taiwan16", wall=make_wall("taiwan16"))
    seen = _tsumogiri(g)
    # every tile down to 16 left is drawn (the last turn draws the 17th-last tile, not one earlier)
    # and the next draw ends the hand (not one later); 144 - 64 dealt - 16 left = 64 draws
    assert seen[0] == 144 - 65 and seen[-1] == 16 and seen == list(range(79, 15, -1))
    assert g.end_code == EndReason.EXHAUSTIVE_DRAW and g.wall_remaining == 16
    assert int(g.num_discards.sum()) == 64 and g.current_player == 3  # seat 3 drew index 127
    assert g.flowers.sum() == 0 and g.scores.tolist() == [0, 0, 0, 0]


def test_flower_drawn_as_the_last_drawable_tile_ends_the_hand_without_replacement():
    w = _move(make_wall("taiwan16"), 136, LAST)  # flower 0 (id 34) becomes the last drawable tile
    assert w[LAST] == FLOWER_BASE
    g = Game("taiwan16", wall=w)
    seen = _tsumogiri(g)
    # seat 3 draws the flower with 17 left: it is set aside face up, and its replacement would
    # leave fewer than 16, so the hand is drawn at once: no replacement, no discard
    assert seen[-1] == 17 and len(seen) == 63
    assert g.end_code == EndReason.EXHAUSTIVE_DRAW and g.wall_remaining == 16
    assert g.flowers[3].tolist() == [1, 0, 0, 0, 0, 0, 0, 0] and g.flowers.sum() == 1
    assert g.wall_tail == 144  # nothing was taken from the wall's end (flower 7 still there)
    assert np.array_equal(replay(g.log).flowers, g.flowers)


def test_flower_before_the_last_tile_is_replaced_and_the_draw_still_comes_at_16():
    w = _move(make_wall("taiwan16"), 136, 115)  # seat 3 draws flower 0 with 28 left after it
    g = Game("taiwan16", wall=w)
    seen = _tsumogiri(g)
    # its replacement from the end is flower 7, then 6, ... 1, then the tile moved to index 136:
    # the wall's end came 8 tiles closer, so the front stops 8 draws earlier (at index 119)
    assert g.flowers[3].tolist() == [1] * 8 and g.wall_tail == 136 and g.wall_head == 120
    assert seen[-1] == 16 and g.wall_remaining == 16 and g.end_code == EndReason.EXHAUSTIVE_DRAW
    assert int(g.num_discards.sum()) == 64 - 8


# ---------------------------------------------------------------- last-tile and robbing-a-kong tai
# Seat 3 waits on 1z (east) alone: 123m 456m 789m 123s 456s + 1z.
WAIT_1Z = "123456789m 123456s 1z"


def _wall_with_last_tile(hands: list, tile: int) -> np.ndarray:
    """make_wall with ``hands`` and a copy of ``tile`` moved from the filler to the last drawable index."""
    w = make_wall("taiwan16", hands=hands)
    src = 64 + int(np.flatnonzero(w[64:136] == tile)[-1])
    return _move(w, src, LAST)


def test_self_draw_of_the_last_tile_scores_last_tile_tai():
    east = tid("1z")
    g = Game(TAI, wall=_wall_with_last_tile([(), (), (), WAIT_1Z], east))
    _tsumogiri(g, until=lambda g: g.phase == Phase.DISCARD and g.wall_remaining == 16)
    assert g.current_player == 3 and g.last_drawn == east
    g.step({3: g.layout.win})
    assert g.winners == [3] and g.end_reason == "self_draw"
    # tai by the module's table: self-draw 1, concealed 1, concealed self-draw 1, last tile 1
    want = {"self_draw": 1, "concealed": 1, "concealed_self_draw": 1, "last_tile": 1}
    assert tai_patterns(g, 3, self_draw=True) == want
    assert g.scores.tolist() == [-5, -5, -5, 15]  # 1 + 4 tai from each opponent


def test_win_on_the_last_discard_scores_last_discard_tai():
    east = tid("1z")
    g = Game(TAI, wall=_wall_with_last_tile([WAIT_1Z], east))  # the dealer waits on 1z
    _tsumogiri(g, until=lambda g: g.phase == Phase.DISCARD and g.wall_remaining == 16)
    assert g.current_player == 3 and g.last_drawn == east
    g.step({3: east})  # seat 3 discards the last drawn tile; the dealer wins on it
    assert g.phase == Phase.CLAIM and g.layout.win in g.legal_actions(0)
    g.step({0: g.layout.win})
    assert g.winners == [0] and g.deal_in == 3 and g.end_reason == "discard"
    # dealer 1, concealed 1, last discard 1 (no all-chows: the pair is an honour)
    assert tai_patterns(g, 0, self_draw=False) == {"dealer": 1, "concealed": 1, "last_discard": 1}
    assert g.scores.tolist() == [4, 0, 0, -4]


def test_the_same_win_one_discard_earlier_has_no_last_tile_tai():
    east = tid("1z")
    g = Game(TAI, wall=_move(_wall_with_last_tile([WAIT_1Z], east), LAST, LAST - 1))
    _tsumogiri(g, until=lambda g: g.phase == Phase.DISCARD and g.wall_remaining == 17)
    assert g.current_player == 2 and g.last_drawn == east
    g.step({2: east})
    g.step({0: g.layout.win})
    assert g.winners == [0] and tai_patterns(g, 0, self_draw=False) == {"dealer": 1, "concealed": 1}
    assert g.scores.tolist() == [3, 0, -3, 0]


# Seat 0 discards 5m; seat 1 pongs it, later draws the 4th 5m and adds it to the pong; seat 3 (4m 6m)
# robs it. Every hand is given in full so no filler tile opens a claim.
ROB = [
    "5m 1s2s3s 2p3p 2m2m 7m7m 8m8m 6s 1z2z3z",
    "5m5m 1m1m 4s5s 7s8s9s 5p6p7p8p 4z5z6z",
    "1p4p7p 2s5s8s 3m6m9m 9p3p6p9s 7z7z7z",
    "123s 456s 789s 1p1p 4m6m 1z1z1z",
]


def test_robbing_a_kong_scores_its_tai_through_the_engine():
    m5 = tid("5m")
    g = script(ROB, draws="9s 7p 9p 1s 5m", replacements="9m", rules=TAI)
    g.step({0: m5})
    g.step({1: g.layout.pong, 3: g.layout.pass_})  # seat 3 could win on it now; it waits for the kong
    for seat, tile in ((1, "1m"), (2, "7p"), (3, "9p"), (0, "1s")):
        assert g.phase == Phase.DISCARD and g.current_player == seat
        g.step({seat: tid(tile)})
        _tsumogiri(g, until=lambda g: g.phase == Phase.DISCARD)  # pass the claim window if any
    assert g.current_player == 1 and g.last_drawn == m5
    g.step({1: g.layout.kong(m5)})
    assert g.phase == Phase.ROB_KONG
    g.step({3: g.layout.win})
    assert g.winners == [3] and g.deal_in == 1 and g.end_code == EndReason.ROBBED_KONG
    # concealed 1, robbing a kong 1, a pong of east (the round wind) 1
    want = {"concealed": 1, "robbing_kong": 1, "round_wind_pong": 1}
    assert tai_patterns(g, 3, self_draw=False) == want
    assert g.scores.tolist() == [0, -4, 0, 4]  # the kong's declarer pays 1 + 3 tai


# ---------------------------------------------------------------- flowers in observations and log
def _two_flower_wall() -> np.ndarray:
    """Seat 2 draws flower 0 at index 70 (its 2nd draw), seat 1 flower 5 at index 97 (its 9th); both
    replacements are ordinary tiles; the six other flowers sit where no draw reaches them."""
    normal = list(make_wall("taiwan16")[:136])
    f = [FLOWER_BASE + i for i in range(8)]
    return np.array(normal[:70] + [f[0]] + normal[70:96] + [f[5]] + normal[96:128]
                    + [f[1], f[2], f[3], f[4], f[6], f[7]] + normal[128:], dtype=np.int8)  # fmt: skip


def test_flowers_reach_every_seats_observation_and_the_log():
    from mjenv.env import parallel_env
    from mjenv.observation import decode

    w = _two_flower_wall()
    assert w[70] == FLOWER_BASE and w[97] == FLOWER_BASE + 5
    env = parallel_env(rules="taiwan16")
    obs, _ = env.reset(seed=0, options={"wall": w})
    history = [env.game.flowers.copy()]
    seen_each = []
    while env.agents:
        g = env.game
        for i, a in enumerate(env.agents):
            fl = decode(obs[a]["observation"], "taiwan16")["flowers"]
            # seat-relative rows: row r is the seat r places to the right of seat i
            assert np.array_equal(fl, np.roll(g.flowers, -i, axis=0)), (i, g.flowers)
        seen_each.append(int(g.flowers.sum()))
        acts = {a: (int(g.last_drawn) if g.phase == Phase.DISCARD and i == g.current_player else g.layout.pass_)
                for i, a in enumerate(env.agents)}  # fmt: skip
        obs, *_ = env.step(acts)
        history.append(env.game.flowers.copy())
    g = env.game
    assert g.flowers[2, 0] == 1 and g.flowers[1, 5] == 1 and g.flowers.sum() == 2
    assert 0 in seen_each and 1 in seen_each and 2 in seen_each  # seen before, between, after
    assert g.end_code == EndReason.EXHAUSTIVE_DRAW and g.wall_remaining == 16
    # the log replays the same flowers at every step
    for k in range(0, len(history), 5):
        assert np.array_equal(replay(g.log, steps=k).flowers, history[k]), k
    assert np.array_equal(replay(g.log).flowers, g.flowers)


# ---------------------------------------------------------------- mjenv play under taiwan16
def test_mjenv_play_under_taiwan16_shows_flowers_and_finishes():
    from mjenv import cli
    from mjenv.rulesets.taiwan16.wall import FLOWER_NAMES

    seed = 3
    start = Game("taiwan16", seed=seed)  # the hand `play` deals: the same seed, the same wall
    assert start.flowers.sum() > 0
    out = io.StringIO()
    args = argparse.Namespace(opponents=["greedy"], seat=0, hands=1, seed=seed, rules="taiwan16")
    assert cli.play(args, input=io.StringIO("0\n" * 600), output=out) == 0
    text = out.getvalue()
    first_table = text.split("--- ")[1]
    # every seat's flowers from the deal are on the first table, on that seat's row
    for s, name in enumerate(("you", "right", "across", "left")):
        row = next(line for line in first_table.splitlines() if re.match(rf"\s*{name}( \(dealer\))?:", line))
        want = [FLOWER_NAMES[f] for f in np.flatnonzero(start.flowers[s])]
        if want:
            assert row.endswith("; flowers " + " ".join(want)), row
        else:
            assert "flowers" not in row, row
    # a flower drawn later is told as a public move, with the seat's flowers so far
    told = [line.strip() for line in text.splitlines() if "sets aside a flower" in line]
    want = "left (greedy) sets aside a flower (flowers: " + " ".join(FLOWER_NAMES[f] for f in (2, 6, 7)) + ")"
    assert told and told[0] == want
    assert np.flatnonzero(start.flowers[3]).tolist() == [6, 7]  # dealt to the left seat; autumn drawn later
    assert "=== hand 1 (seed 3) over ===" in text and "your total score:" in text
    assert "draw: the wall is down to 16 tiles" in text  # this hand is drawn (SIMCAT Sec. 2.1)
