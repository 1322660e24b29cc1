"""Waits, tenpai and the three forms of furiten (permanent, same-turn, riichi).

* permanent (discard) furiten: one of the seat's waits is among its own discards (called-away
  discards included);
* same-turn furiten: a winning tile passed by since the seat's last discard (set by the game when
  the seat does not ron or cannot, cleared by its next discard);
* riichi furiten: a winning tile passed by after the seat's riichi; it lasts to the end of the hand.

Tile ids are Tenhou 136-ids; types here are Tenhou types ``id // 4``. The scorer's ``waits`` reads
counts in mjenv's type order; Tenhou's order differs only by a permutation of the three suits, under
which waits are the same, so the counts are passed in Tenhou order and read back in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from mjenv.rulesets.riichi.hand import waits as _shape_waits


@lru_cache(maxsize=1 << 16)
def _cached_waits(counts: tuple[int, ...]) -> tuple[int, ...]:
    """The scorer's waits of a count tuple, memoised (a game asks about the same hands many times)."""
    return tuple(_shape_waits(counts))


def type_counts(tiles: Iterable[int]) -> list[int]:
    """Type counts (length 34, Tenhou type order) of 136-ids."""
    c = [0] * 34
    for t in tiles:
        c[t >> 2] += 1
    return c


def wait_types(concealed: Iterable[int], melded: Iterable[int] = ()) -> frozenset[int]:
    """Tenhou types that complete a concealed hand of 3k+1 tiles.

    A type whose four copies are all the seat's own (in hand or in its melds, ``melded``) is no wait:
    Tenhou counts such a hand as noten.
    """
    c = type_counts(concealed)
    ws = _cached_waits(tuple(c))
    if not ws:
        return frozenset()
    own = c
    for t in melded:
        own[t >> 2] += 1
    return frozenset(t for t in ws if own[t] < 4)


def is_tenpai(concealed: Iterable[int]) -> bool:
    """Whether a 3k+1-tile concealed hand waits on at least one tile."""
    return bool(wait_types(concealed))


def discard_furiten(waits: Iterable[int], own_discards: Iterable[int]) -> bool:
    """Permanent furiten: a wait (type) is among the seat's own discards (136-ids)."""
    river = {t >> 2 for t in own_discards}
    return any(w in river for w in waits)
