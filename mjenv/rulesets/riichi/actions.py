"""Fixed action ids for Riichi: one ``Discrete(85)`` space, used as a mask by every seat.

Tile types in action ids are mjenv's tile ids (0-8 bamboo, 9-17 characters, 18-26 dots, 27-33
E S W N white green red); the engine works in Tenhou 136-ids, converted by
:mod:`~mjenv.rulesets.riichi.tiles136` (the one conversion) through :func:`to_mjenv_type` /
:func:`to_tenhou_type`.

=========  ======  =================================================================================
ids        name    meaning
=========  ======  =================================================================================
0-33       discard discard a tile of this mjenv type (a plain copy; the drawn tile when it is one)
34-36      discard discard the red five of bamboo / characters / dots
37-70      kan     closed kan (four in hand) or added kan (onto a pon) of tile type ``id - 37``
71         riichi  declare riichi; the seat then discards (only discards that keep tenpai are legal)
72         tsumo   win on the own draw
73         ron     win on the discard (or on the added-kan tile: chankan)
74-76      chi     chi with the called tile lowest / middle / highest, no red five from the hand
77-79      chi     the same three, using the red five from the hand
80         pon     pon without the hand's red five
81         pon     pon using the hand's red five
82         minkan  open kan on the discard
83         kyuushu abortive draw on nine terminal and honour types (first uninterrupted turn)
84         pass    decline every call (the only legal action of a seat with nothing to decide)
=========  ======  =================================================================================
"""

from __future__ import annotations

from mjenv.rulesets.riichi.tiles136 import FIRST136, TYPE34
from mjenv.rulesets.riichi.tiles136 import is_red as is_red

N_ACTIONS = 85
DISCARD = 0
DISCARD_RED = 34
KAN = 37
RIICHI = 71
TSUMO = 72
RON = 73
CHI = 74
CHI_RED = 77
PON = 80
PON_RED = 81
MINKAN = 82
KYUUSHU = 83
PASS = 84

#: Tenhou 34-type (``tile136 // 4``) -> mjenv tile id.
_TO_MJENV = TYPE34[::4]
#: Tenhou suit (0 m, 1 p, 2 s) -> the red-five discard action id (bamboo, characters, dots order).
_RED_ACTION_BY_SUIT = (DISCARD_RED + 1, DISCARD_RED + 2, DISCARD_RED)

ACTION_NAMES = (
    [f"discard_{i}" for i in range(34)]
    + ["discard_red_5s", "discard_red_5m", "discard_red_5p"]
    + [f"kan_{i}" for i in range(34)]
    + [
        "riichi",
        "tsumo",
        "ron",
        "chi_low",
        "chi_mid",
        "chi_high",
        "chi_low_red",
        "chi_mid_red",
        "chi_high_red",
        "pon",
        "pon_red",
        "minkan",
        "kyuushu",
        "pass",
    ]
)


def to_mjenv_type(tenhou_type: int) -> int:
    """mjenv tile id of a Tenhou 34-type (``tile136 // 4``)."""
    return _TO_MJENV[tenhou_type]


def to_tenhou_type(mjenv_type: int) -> int:
    """Tenhou 34-type of an mjenv tile id."""
    return FIRST136[mjenv_type] // 4


def discard_action(tile136: int) -> int:
    """The action id that discards this exact tile (red fives have their own ids)."""
    if is_red(tile136):
        return _RED_ACTION_BY_SUIT[tile136 // 36]
    return DISCARD + _TO_MJENV[tile136 // 4]


def kan_action(tenhou_type: int) -> int:
    """The closed/added kan action id of a Tenhou 34-type."""
    return KAN + _TO_MJENV[tenhou_type]


def describe(action: int) -> str:
    """A short name for an action id (``ValueError`` when out of range)."""
    if not 0 <= int(action) < N_ACTIONS:
        raise ValueError(f"Riichi action ids are 0..{N_ACTIONS - 1}, got {action}")
    return ACTION_NAMES[int(action)]
