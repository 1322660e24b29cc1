"""The fixed action space of the game, one place for every action id.

With T tile types (27 for the papers' 108-tile game, 34 with honours) there are ``2T + 7`` actions:

==============  =================  ===========================================================
id              name               meaning
==============  =================  ===========================================================
0 .. T-1        ``discard(t)``     discard one tile t from the hand (own turn)
T .. 2T-1       ``kong(t)``        concealed kong of four t, or added kong of t onto an exposed
                                   pong (own turn; a replacement tile is drawn)
2T + 0          ``CHOW_LOW``       chow the discard as the lowest tile  (d, d+1, d+2)
2T + 1          ``CHOW_MID``       chow the discard as the middle tile  (d-1, d, d+1)
2T + 2          ``CHOW_HIGH``      chow the discard as the highest tile (d-2, d-1, d)
2T + 3          ``PONG``           pong the discard
2T + 4          ``EXPOSED_KONG``   exposed kong of the discard (a replacement tile is drawn)
2T + 5          ``WIN``            declare a win: self-draw on own turn, or on a discard / robbed kong
2T + 6          ``PASS``           do nothing (the only legal action of a seat with nothing to decide)
==============  =================  ===========================================================
"""

from __future__ import annotations

from dataclasses import dataclass

CLAIM_NAMES = ("chow_low", "chow_mid", "chow_high", "pong", "exposed_kong", "win", "pass")


@dataclass(frozen=True)
class ActionLayout:
    """Action ids for a game with ``num_tile_types`` tile types (27 or 34)."""

    num_tile_types: int

    def __post_init__(self) -> None:
        if self.num_tile_types not in (27, 34):
            raise ValueError(f"num_tile_types must be 27 or 34, got {self.num_tile_types}")

    @property
    def size(self) -> int:
        return 2 * self.num_tile_types + 7

    def discard(self, tile: int) -> int:
        return tile

    def kong(self, tile: int) -> int:
        return self.num_tile_types + tile

    @property
    def chow_low(self) -> int:
        return 2 * self.num_tile_types

    @property
    def chow_mid(self) -> int:
        return 2 * self.num_tile_types + 1

    @property
    def chow_high(self) -> int:
        return 2 * self.num_tile_types + 2

    @property
    def pong(self) -> int:
        return 2 * self.num_tile_types + 3

    @property
    def exposed_kong(self) -> int:
        return 2 * self.num_tile_types + 4

    @property
    def win(self) -> int:
        return 2 * self.num_tile_types + 5

    @property
    def pass_(self) -> int:
        return 2 * self.num_tile_types + 6

    def describe(self, action: int) -> str:
        """Human-readable name of an action id, e.g. ``"discard 3s"``, ``"pong"``."""
        from mjenv.tiles import tile_name

        t = self.num_tile_types
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is out of range; allowed 0..{self.size - 1}")
        if action < t:
            return f"discard {tile_name(action)}"
        if action < 2 * t:
            return f"kong {tile_name(action - t)}"
        return CLAIM_NAMES[action - 2 * t].replace("_", " ")
