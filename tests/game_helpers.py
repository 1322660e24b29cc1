"""Shared helpers of the game tests: scripted games, random play, from-scratch recounts."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mjenv.game import Game, make_wall
from mjenv.rules import FLOWER_BASE, NUM_FLOWERS, get_rules
from mjenv.tiles import parse, to_tiles


def tid(name: str) -> int:
    """Tile id of one tile in mps notation, e.g. ``tid("5m") == 13``."""
    ids = to_tiles(parse(name, 34))
    assert len(ids) == 1, name
    return ids[0]


def script(
    hands: Sequence[str],
    draws: str = "",
    replacements: str = "",
    rules="basic",
    dealer: int = 0,
) -> Game:
    """A game whose four hands (absolute seats), draws and replacement draws are chosen.

    Every hand must be given in full (``hand_size`` tiles) so no filler tile can open a claim.
    """
    r = get_rules(rules)
    for i, h in enumerate(hands):
        n = len(to_tiles(parse(h, r.num_tile_types)))
        assert n == r.hand_size, f"scripted hand {i} has {n} tiles, expected {r.hand_size}"
    wall = make_wall(r, hands=hands, draws=draws, replacements=replacements, dealer=dealer)
    return Game(r, seed=0, dealer=dealer, wall=wall)


def tile_totals(game: Game) -> np.ndarray:
    """int[T]: copies of each tile found in hands + melds + unclaimed discards + the undrawn wall."""
    t_count = game.num_tile_types
    total = game.hands.sum(axis=0).astype(np.int64) + game.meld_counts.sum(axis=0)
    total += discard_counts(game) - claimed_counts(game)
    undrawn = game.wall[game.wall_head : game.wall_tail].astype(np.intp)
    total += np.bincount(undrawn[undrawn < t_count], minlength=t_count)
    # flowers (taiwan16): each one is either set aside by exactly one seat or still in the wall
    flowers_left = np.bincount(undrawn[undrawn >= FLOWER_BASE] - FLOWER_BASE, minlength=NUM_FLOWERS)
    held = game.flowers.sum(axis=0)
    want = 1 if game.rules.flowers else 0
    assert (flowers_left + held == want).all(), (flowers_left, held)
    return total


def discard_counts(game: Game) -> np.ndarray:
    """int[T]: every tile in every discard history (claimed ones included)."""
    t_count = game.num_tile_types
    out = np.zeros(t_count, dtype=np.int64)
    for s in range(4):
        for t in game.discards[s, : game.num_discards[s]]:
            out[t] += 1
    return out


def claimed_counts(game: Game) -> np.ndarray:
    """int[T]: the discards that were claimed into melds (each one counted once)."""
    out = np.zeros(game.num_tile_types, dtype=np.int64)
    for s in range(4):
        for m in game.melds[s]:
            if m.claimed >= 0:
                out[m.claimed] += 1
    return out


def recount_kb(game: Game, seat: int) -> np.ndarray:
    """Knowledge base of ``seat`` recounted from scratch from the public record (not the running count)."""
    t_count = game.num_tile_types
    kb = np.full(t_count, 4, dtype=np.int64) - game.hands[seat]
    kb -= discard_counts(game)
    for s in range(4):
        for m in game.melds[s]:
            for t in m.tiles:
                kb[t] -= 1
            if m.claimed >= 0:  # the claimed discard was already taken off as a discard
                kb[m.claimed] += 1
    return kb


def random_action(game: Game, seat: int, rng: np.random.Generator, eager: bool = True) -> int:
    """A masked-legal random action; with ``eager``, wins are always taken and kongs/pongs often, so
    random games reach every kind of event."""
    legal = np.flatnonzero(game.legal_action_mask(seat))
    if eager:
        lay = game.layout
        win, pong, ekong = lay.win, lay.pong, lay.exposed_kong
        if win in legal and rng.random() < 0.9:
            return win
        kongs = legal[(legal >= lay.kongs.start) & (legal < lay.kongs.stop)]
        if len(kongs) and rng.random() < 0.6:
            return int(rng.choice(kongs))
        if ekong in legal and rng.random() < 0.6:
            return ekong
        if pong in legal and rng.random() < 0.6:
            return pong
    return int(rng.choice(legal))


def play_random(game: Game, rng: np.random.Generator, eager: bool = True, max_steps: int = 2000) -> Game:
    """Play ``game`` to the end with random legal actions (in place); returns it."""
    for _ in range(max_steps):
        if game.is_over:
            return game
        game.step({s: random_action(game, s, rng, eager) for s in game.acting_seats()})
    raise AssertionError("hand did not end")


def state_summary(game: Game) -> dict:
    """Comparable summary of every piece of state (used for clone, determinism and golden checks)."""
    from mjenv.tiles import format_hand

    return {
        "phase": game.phase.name,
        "current_player": game.current_player,
        "hands": [format_hand(h) for h in game.hands],
        "melds": [[[m.kind, list(m.tiles), m.from_seat, m.claimed] for m in ms] for ms in game.melds],
        "discards": [game.discards[s, : game.num_discards[s]].tolist() for s in range(4)],
        "wall_remaining": game.wall_remaining,
        "last_discard": game.last_discard,
        "last_discarder": game.last_discarder,
        "acting": game.acting_seats(),
        "masks": [game.legal_actions(s) for s in range(4)],
        "result": game.result(),
    }
