"""The fixed action space of the game, one place for every action id, and the phases it is read in.

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
2T+7 .. 2T+9    ``declare(s)``     only where a room's rules declare a suit: declare suit s (0 bamboo,
                                   1 characters, 2 dots) missing, at the start of the hand
==============  =================  ===========================================================

The three declaration ids exist only in a layout made with ``declarations=True``
(:meth:`ActionLayout.for_rules` of rules whose room declares a suit, :func:`mjenv.rulesets.declares_suit`):
every other rule set's action
space, and so its masks and observations, is the same as without them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from mjenv.deficiency.features import CLAIM_KINDS

CLAIM_NAMES = (*CLAIM_KINDS, "win", "pass")


class Phase(IntEnum):
    """Phase of a hand (which actions a seat may take; see :mod:`mjenv.game`). ``DISCARD``: the current
    player acts on her own turn; ``CLAIM``: seats answer a discard; ``ROB_KONG``: seats may win on the
    tile of an added kong; ``END``: the hand is over. Defined here, with the actions, so that agent
    code can name phases without importing the game state. ``DECLARE`` (after ``END``, so the
    other rule sets' phase one-hot keeps its four entries): every seat declares its missing suit."""

    DISCARD = 0
    CLAIM = 1
    ROB_KONG = 2
    END = 3
    DECLARE = 4  # every seat declares its missing suit; only where rulesets.declares_suit(rules)


@dataclass(frozen=True)
class ActionLayout:
    """Action ids for a game with ``num_tile_types`` tile types (27 or 34).

    The ids are plain attributes (``pong``, ``win``, ``pass_``, ...) computed once, so the engine's hot
    paths read them at attribute cost; ``discards`` and ``kongs`` are the slices of the two per-tile
    blocks (``discard(t)`` is ``discards.start + t``, ``kong(t)`` is ``kongs.start + t``).
    With ``declarations`` (a suit declared missing), ``declares`` is the slice of the three ids after PASS
    (``declare(s)`` is ``declares.start + s``); without, it is empty and ``size`` is ``2T + 7``.
    """

    num_tile_types: int
    declarations: bool = False
    size: int = field(init=False, repr=False, compare=False)
    discards: slice = field(init=False, repr=False, compare=False)
    kongs: slice = field(init=False, repr=False, compare=False)
    chow_low: int = field(init=False, repr=False, compare=False)
    chow_mid: int = field(init=False, repr=False, compare=False)
    chow_high: int = field(init=False, repr=False, compare=False)
    pong: int = field(init=False, repr=False, compare=False)
    exposed_kong: int = field(init=False, repr=False, compare=False)
    win: int = field(init=False, repr=False, compare=False)
    pass_: int = field(init=False, repr=False, compare=False)
    declares: slice = field(init=False, repr=False, compare=False)

    @classmethod
    def for_rules(cls, rules) -> ActionLayout:
        """The layout of a :class:`~mjenv.rules.Rules` (declaration ids only where its room declares a
        suit, :func:`mjenv.rulesets.declares_suit`)."""
        from mjenv import rulesets

        return cls(rules.num_tile_types, declarations=rulesets.declares_suit(rules))

    def __post_init__(self) -> None:
        t = self.num_tile_types
        if t not in (27, 34):
            raise ValueError(f"num_tile_types must be 27 or 34, got {t}")
        ids = {"size": 2 * t + len(CLAIM_NAMES), "discards": slice(0, t), "kongs": slice(t, 2 * t)}
        ids.update({name: 2 * t + i for i, name in enumerate(CLAIM_NAMES)})
        ids["pass_"] = ids.pop("pass")
        n = 3 if self.declarations else 0
        ids["declares"] = slice(ids["size"], ids["size"] + n)
        ids["size"] += n
        for name, value in ids.items():
            object.__setattr__(self, name, value)  # frozen: set once, here

    def discard(self, tile: int) -> int:
        return tile

    def kong(self, tile: int) -> int:
        return self.num_tile_types + tile

    def declare(self, suit: int) -> int:
        if not self.declarations:
            raise ValueError("this layout has no declaration actions (the rules declare no suit)")
        return self.declares.start + suit

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
        if action >= self.declares.start:
            return f"declare {'smp'[action - self.declares.start]} missing"
        return CLAIM_NAMES[action - 2 * t].replace("_", " ")
