"""The Riichi wall: 136 tiles (one red five per suit), 14 of them the dead wall.

Layout of :attr:`Wall.tiles` (Tenhou 136-ids, each once):

==========  ==========================================================================
positions   use
==========  ==========================================================================
0-51        the deal: the seat ``k`` places after the dealer gets ``tiles[13k:13k+13]``
52-121      live draws, in order (70 of them; each kan moves the end one tile earlier)
122-125     kan replacement (rinshan) draws, in order
126-130     dora indicators, in reveal order (the first is shown at the deal)
131-135     ura-dora indicators, paired with the dora indicators
==========  ==========================================================================

A kan's replacement tile comes from the dead wall, and the dead wall keeps 14 tiles by taking the
last live tile: so the live wall ends one tile earlier per kan (:attr:`Wall.live_end`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mjenv.rulesets.riichi.tiles136 import RED_FIVES as RED_FIVES

NUM_TILES136 = 136
DEAL = 52
LIVE_START = 52
LIVE_END = 122
RINSHAN_START = 122
DORA_START = 126
URA_START = 131


class Wall:
    """One hand's wall; cheap to copy (one list and three ints).

    Attributes:
        tiles: the 136 tile ids in the layout above (list of int).
        live_pos: position of the next live draw (starts at 52).
        live_end: one past the last live draw (122 minus the number of kans).
        rinshan_drawn: replacement tiles drawn so far (0-4).
    """

    __slots__ = ("tiles", "live_pos", "live_end", "rinshan_drawn")

    def __init__(self, tiles: Sequence[int]) -> None:
        tiles = [int(t) for t in tiles]
        if len(tiles) != NUM_TILES136 or sorted(tiles) != list(range(NUM_TILES136)):
            raise ValueError("a Riichi wall holds each of the 136 tile ids 0..135 exactly once")
        self.tiles = tiles
        self.live_pos = LIVE_START
        self.live_end = LIVE_END
        self.rinshan_drawn = 0

    @classmethod
    def shuffled(cls, rng: np.random.Generator) -> Wall:
        """A uniformly shuffled wall drawn from ``rng``."""
        return cls(rng.permutation(NUM_TILES136).tolist())

    @classmethod
    def from_parts(
        cls,
        hands: Sequence[Sequence[int]],
        live: Sequence[int],
        rinshan: Sequence[int],
        dora: Sequence[int],
        ura: Sequence[int] = (),
    ) -> Wall:
        """A wall whose known parts are given; the unknown positions get the unused tiles in order.

        Args:
            hands: four 13-tile starting hands, the dealer's first (seat order from the dealer).
            live: the live draws in order (at most 70).
            rinshan: the replacement draws in order (at most 4).
            dora: the dora indicators in reveal order (1 to 5).
            ura: the ura-dora indicators known (at most as many as ``dora``).

        Raises:
            ValueError: a tile id out of 0..135, used twice, or a part too long.
        """
        if len(hands) != 4 or any(len(h) != 13 for h in hands):
            raise ValueError("a deal is four hands of 13 tiles")
        if len(live) > LIVE_END - LIVE_START or len(rinshan) > 4 or not 1 <= len(dora) <= 5 or len(ura) > 5:
            raise ValueError(
                f"too many tiles for the wall: {len(live)} live draws (at most 70), {len(rinshan)} "
                f"replacement draws (at most 4), {len(dora)} dora indicators (1-5), {len(ura)} ura (at most 5)"
            )
        slots: list[int | None] = [None] * NUM_TILES136
        for k, hand in enumerate(hands):
            slots[13 * k : 13 * k + 13] = list(hand)
        slots[LIVE_START : LIVE_START + len(live)] = list(live)
        slots[RINSHAN_START : RINSHAN_START + len(rinshan)] = list(rinshan)
        slots[DORA_START : DORA_START + len(dora)] = list(dora)
        slots[URA_START : URA_START + len(ura)] = list(ura)
        seen: set[int] = set()
        for t in slots:
            if t is None:
                continue
            if not isinstance(t, int) or not 0 <= t < NUM_TILES136:
                raise ValueError(f"tile id {t!r} is not a Riichi tile (0..135)")
            if t in seen:
                raise ValueError(f"tile id {t} appears twice in one hand's wall")
            seen.add(t)
        spare = iter(t for t in range(NUM_TILES136) if t not in seen)
        return cls([t if t is not None else next(spare) for t in slots])

    def copy(self) -> Wall:
        """A copy sharing nothing mutable."""
        w = Wall.__new__(Wall)
        w.tiles = self.tiles  # never mutated after construction
        w.live_pos, w.live_end, w.rinshan_drawn = self.live_pos, self.live_end, self.rinshan_drawn
        return w

    def deal(self, k: int) -> list[int]:
        """The starting hand of the seat ``k`` places after the dealer."""
        return self.tiles[13 * k : 13 * k + 13]

    @property
    def remaining(self) -> int:
        """Live tiles left to draw."""
        return self.live_end - self.live_pos

    def draw(self) -> int:
        """Take the next live tile."""
        if self.live_pos >= self.live_end:
            raise ValueError("the live wall is empty")
        t = self.tiles[self.live_pos]
        self.live_pos += 1
        return t

    def draw_rinshan(self) -> int:
        """Take the next replacement tile (the live wall ends one tile earlier)."""
        if self.rinshan_drawn >= 4:
            raise ValueError("no replacement tile left (four kans already)")
        t = self.tiles[RINSHAN_START + self.rinshan_drawn]
        self.rinshan_drawn += 1
        self.live_end -= 1
        return t

    def dora_indicators(self, n: int) -> list[int]:
        """The first ``n`` dora indicators."""
        return self.tiles[DORA_START : DORA_START + n]

    def ura_indicators(self, n: int) -> list[int]:
        """The first ``n`` ura-dora indicators."""
        return self.tiles[URA_START : URA_START + n]
