"""Riichi's 136 tile ids and their conversion to mjenv's 34 tile types, in one place.

Riichi logs and libraries (Tenhou, mjx, the ``mahjong`` library) number the 136 tiles in the order
characters, dots, bamboo, honours: 136-id ``i`` is copy ``i % 4`` of Tenhou type ``i // 4``, where Tenhou
types 0-8 are 1m-9m, 9-17 are 1p-9p, 18-26 are 1s-9s and 27-33 are E S W N white green red.
mjenv's 34 types are bamboo, characters, dots, honours (``mjenv.tiles``: 0-8 = 1s-9s, 9-17 = 1m-9m,
18-26 = 1p-9p, 27-33 = E S W N white green red). The red fives are 136-ids 16 (5m), 52 (5p) and 88 (5s).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

NUM_136 = 136
#: The 136-ids of the three red fives (5m, 5p, 5s); each counts one dora ("aka dora").
RED_FIVES = (16, 52, 88)
_RED = frozenset(RED_FIVES)


def _tenhou_type_to_34(k: int) -> int:
    if k < 9:  # characters
        return k + 9
    if k < 18:  # dots
        return k + 9
    if k < 27:  # bamboo
        return k - 18
    return k


#: mjenv 34-type of each 136-id (a tuple: indexing it is the fast path).
TYPE34 = tuple(_tenhou_type_to_34(i // 4) for i in range(NUM_136))
#: The first 136-id of each mjenv 34-type (``FIRST136[t] + c`` is copy ``c``).
FIRST136 = tuple(TYPE34.index(t) for t in range(34))


def to34(tile136: int) -> int:
    """mjenv's 34-type (0-8 s, 9-17 m, 18-26 p, 27-33 z) of one 136-id."""
    if not 0 <= tile136 < NUM_136:
        raise ValueError(f"136-tile id {tile136} is out of range; allowed 0..135")
    return TYPE34[tile136]


def is_red(tile136: int) -> bool:
    """Whether a 136-id is one of the red fives (16, 52, 88)."""
    return tile136 in _RED


def counts34(tiles136: Iterable[int]) -> np.ndarray:
    """Count vector, shape ``(34,)`` int8 in mjenv's order, of some 136-ids."""
    out = np.zeros(34, dtype=np.int8)
    for t in tiles136:
        out[to34(t)] += 1
    return out


def tiles136_of(t34: int) -> range:
    """The four 136-ids of one mjenv 34-type."""
    if not 0 <= t34 < 34:
        raise ValueError(f"tile type {t34} is out of range; allowed 0..33")
    return range(FIRST136[t34], FIRST136[t34] + 4)


def dora_of_indicator(t34: int) -> int:
    """The dora type (mjenv 34-type) an indicator of type ``t34`` shows.

    Suits wrap 9 -> 1, winds E -> S -> W -> N -> E, dragons white -> green -> red -> white.
    """
    if t34 < 27:
        return t34 - 8 if t34 % 9 == 8 else t34 + 1
    if t34 < 31:
        return 27 + (t34 - 27 + 1) % 4
    return 31 + (t34 - 31 + 1) % 3
