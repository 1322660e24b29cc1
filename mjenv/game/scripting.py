"""Scripted hands: walls that deal chosen hands and draws, for tests, demos and teaching positions.

``Game(rules, wall=make_wall(rules, hands=..., draws=..., replacements=...))`` plays a hand whose deal
and draws are written out; everything else about it (steps, claims, logs) is an ordinary hand.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from mjenv import rulesets
from mjenv.game.engine import NUM_SEATS
from mjenv.rules import Rules, get_rules
from mjenv.tiles import COPIES, MPS_OFFSET, parse, to_tiles

__all__ = ["make_wall"]


def make_wall(
    rules: str | Rules = "basic",
    hands: Sequence[Sequence[int] | str] = (),
    draws: Sequence[int] | str = (),
    replacements: Sequence[int] | str = (),
    dealer: int = 0,
) -> np.ndarray:
    """Build a wall that deals chosen hands and draws: the way to script a hand for tests and demos.

    The deal gives ``hand_size`` tiles to each seat in turn from the front of the wall, starting with
    the dealer; then the dealer draws her extra tile, and every later draw comes from the front too.
    Replacement draws after a kong come from the end of the wall.

    Args:
        rules: the rule set (its tile count and hand size).
        hands: up to 4 hands (tile id lists or mps strings) for seats 0..3 (absolute seats, not
            relative to the dealer); missing or short hands are filled from the leftover tiles.
        draws: the tiles drawn from the front after the deal, in order (the dealer's first). A str
            in mps notation keeps the written order (``"9s7p1s"``); other notations are sorted.
        replacements: the replacement draws, in order (taken from the wall's end).
            A room's own tiles in the wall (:func:`mjenv.rulesets.extra_tiles`) sit after the
            filler tiles of the middle.
        dealer: the dealer seat of the game this wall is for.

    Returns:
        int8[N] the wall: a permutation of the full tile set. Pass it as ``Game(rules, wall=...)``.

    Raises:
        ValueError: a hand longer than ``hand_size``, or more copies of a tile than the set holds.
    """
    r = get_rules(rules)
    t_count = r.num_tile_types

    def as_tiles(x: Sequence[int] | str) -> list[int]:
        if isinstance(x, str):
            text = re.sub(r"\s+", "", x)
            if re.fullmatch(r"(?:[1-9]+[mpsz])*", text):
                # mps in the written order (draw order matters; parse() would sort)
                out = []
                for digits, suit in re.findall(r"([1-9]+)([mpsz])", text):
                    out += [MPS_OFFSET[suit] + int(d) - 1 for d in digits]
                return out
            return to_tiles(parse(x, t_count))
        return [int(v) for v in x]

    left = np.full(t_count, COPIES, dtype=np.int64)

    def take(tiles: list[int], what: str) -> list[int]:
        for t in tiles:
            if not 0 <= t < t_count:
                raise ValueError(f"{what}: tile id {t} is out of range 0..{t_count - 1}")
            left[t] -= 1
            if left[t] < 0:
                raise ValueError(f"{what}: more than {COPIES} copies of tile {t} in the scripted wall")
        return tiles

    if len(hands) > NUM_SEATS:
        raise ValueError(f"hands: at most {NUM_SEATS} hands, got {len(hands)}")
    chosen = [take(as_tiles(h), f"hands[{i}]") for i, h in enumerate(hands)]
    chosen += [[] for _ in range(NUM_SEATS - len(chosen))]
    for i, h in enumerate(chosen):
        if len(h) > r.hand_size:
            raise ValueError(f"hands[{i}] has {len(h)} tiles; at most hand_size={r.hand_size}")
    front = take(as_tiles(draws), "draws")
    back = take(as_tiles(replacements), "replacements")
    filler = [t for t in range(t_count) for _ in range(int(left[t]))]
    fill = iter(filler)
    deal: list[int] = []
    for k in range(NUM_SEATS):
        h = chosen[(dealer + k) % NUM_SEATS]
        deal += h + [next(fill) for _ in range(r.hand_size - len(h))]
    # a room's own tiles go last in the middle: a scripted hand meets none unless it
    # draws that far (script them with Game(wall=...) where a test needs them).
    middle = list(fill) + list(rulesets.extra_tiles(r))
    if len(deal) + len(front) + len(back) + len(middle) != r.num_tiles or len(front) + len(back) > r.dead_wall_start:
        raise ValueError(
            f"draws ({len(front)}) + replacements ({len(back)}) exceed the "
            f"{r.dead_wall_start} tiles left after the deal"
        )
    wall = deal + front + middle + back[::-1]
    return np.array(wall, dtype=np.int8)
