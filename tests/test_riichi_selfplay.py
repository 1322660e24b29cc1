"""Whole Riichi games played by seeded random legal actions: the engine's invariants hold throughout."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.deficiency import deficiency
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.tiles136 import counts34


def _choose(game: RiichiGame, seat: int, rng: np.random.Generator) -> int:
    mask = game.legal_actions(seat)
    assert mask.dtype == np.int8 and mask.shape == (A.N_ACTIONS,) and mask.any()
    legal = np.flatnonzero(mask)
    for a in (A.TSUMO, A.RON):
        if a in legal:
            return int(a)
    if A.RIICHI in legal:
        return A.RIICHI
    calls = [a for a in legal if A.KAN <= a < A.KAN + 34 or a in (A.PON, A.PON_RED, A.MINKAN)]
    if calls and rng.random() < 0.5:
        return int(rng.choice(calls))
    return int(rng.choice(legal))


def _check(game: RiichiGame) -> None:
    assert sum(game.scores) + 1000 * game.sticks == 100_000
    held = sum(len(h) for h in game.hands) + sum(len(m.tiles) for ms in game.melds for m in ms)
    river = sum(1 for fl in game.discard_flags for f in fl if not f & 4)
    w = game.wall
    assert held + river == 52 + (w.live_pos - 52) + w.rinshan_drawn
    assert w.remaining >= 0 and 1 <= game.n_dora <= 5


@pytest.mark.parametrize("seed", [0, 1])
def test_random_hanchan_keeps_invariants(seed):
    rng = np.random.default_rng(seed)
    game = RiichiGame(seed=seed)
    steps = 0
    while game.phase != "game_over":
        if game.phase == "hand_over":
            game.next_hand()
            continue
        before = game.clone()
        acts = {s: _choose(game, s, rng) for s in game.to_act()}
        game.step(acts)
        steps += 1
        _check(game)
        assert len(before.events) < len(game.events)  # the clone did not move with the game
        assert steps < 20_000
    assert sum(game.final_scores) == 100_000
    assert abs(sum(game.final_points)) < 1e-9
    assert [e["type"] for e in game.events].count("start_hand") == len(game.results)


def test_clone_is_independent():
    game = RiichiGame(seed=3)
    copy = game.clone()
    seat = game.to_act()[0]
    a = int(np.flatnonzero(game.legal_actions(seat))[0])
    game.step({seat: a})
    assert copy.hands != game.hands or copy.discards != game.discards
    assert copy.phase == "act" and len(copy.events) < len(game.events)
    copy.step({seat: a})
    assert copy.hands == game.hands and copy.discards == game.discards


def test_illegal_action_and_missing_seat_are_refused():
    game = RiichiGame(seed=4)
    seat = game.to_act()[0]
    with pytest.raises(ValueError, match="must act"):
        game.step({(seat + 1) % 4: A.PASS})
    with pytest.raises(ValueError, match="not legal"):
        game.step({seat: A.RON})
    with pytest.raises(ValueError, match="not legal"):
        game.step({seat: 999})
    with pytest.raises(ValueError, match="length"):
        RiichiGame(length="north")


def _greedy(game: RiichiGame, seat: int, rng: np.random.Generator) -> int:
    """Win, riichi and kan whenever legal, call sometimes, else the discard of least deficiency."""
    legal = [int(a) for a in np.flatnonzero(game.legal_actions(seat))]
    for a in (A.TSUMO, A.RON, A.RIICHI, A.MINKAN, *range(A.KAN, A.KAN + 34)):
        if a in legal:
            return a
    calls = [a for a in legal if a in (A.PON, A.PON_RED) or A.CHI <= a < A.CHI + 6]
    if calls and rng.random() < 0.3:
        return int(rng.choice(calls))
    if A.PASS in legal:
        return A.PASS
    opts = game._options(seat)
    melds = len(game.melds[seat])

    def cost(a: int) -> float:
        rest = list(game.hands[seat])
        rest.remove(opts[a][0])
        rules = "riichi" if melds == 0 else "basic"
        return deficiency(counts34(rest), rules=rules, exposed_melds=melds) + rng.random() / 2

    return min((a for a in legal if a < A.KAN), key=cost)


def test_greedy_hanchans_call_kan_and_win():
    """Deficiency-greedy seats reach the rarer paths (calls, all three kans, wins) without an error."""
    rng = np.random.default_rng(7)
    kinds: dict[str, int] = {}
    wins = 0
    for seed in (11, 12):
        game = RiichiGame(seed=seed)
        while game.phase != "game_over":
            if game.phase == "hand_over":
                game.next_hand()
                continue
            game.step({s: _greedy(game, s, rng) for s in game.to_act()})
            _check(game)
        assert sum(game.final_scores) == 100_000
        wins += sum(1 for e in game.events if e["type"] == "win")
        for e in game.events:
            if e["type"] == "call":
                kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    assert wins >= 5 and {"chi", "pon", "minkan"} <= set(kinds)


def test_clone_keeps_the_future_walls_and_leaves_the_original_alone():
    a = RiichiGame(seed=5)
    b = a.clone()
    for g in (a, b):
        while g.phase != "hand_over" and g.phase != "game_over":
            seat = g.to_act()[0]
            mask = g.legal_actions(seat)
            g.step({s: (A.PASS if s != seat else int(np.flatnonzero(mask)[-1])) for s in g.to_act()})
        g.next_hand()
    assert a.wall.tiles == b.wall.tiles  # the second hand's wall is the same for the copy
