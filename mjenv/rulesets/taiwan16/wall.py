"""The taiwan16 room's tiles of its own: 8 flowers (SIMCAT Sec. 2.1), wall ids 34..41, set aside face up
when dealt or drawn and replaced from the wall's end (the shared engine's ``Game.set_aside``, shown as
``Game.flowers``)."""

from __future__ import annotations

from mjenv.rules import FLOWER_BASE, Rules
from mjenv.rulesets.protocol import WallParts

#: Names of the 8 flowers (``Game.flowers`` column f, wall id 34 + f): seasons then plants; flower f
#: belongs to seat wind f % 4 (east = the dealer). Here, beside the tiles, so that the agents (which may
#: read the room's parts but not the game's modules) can name them too.
FLOWER_NAMES = ("🀦spring", "🀧summer", "🀨autumn", "🀩winter", "🀢plum", "🀣orchid", "🀥chrysanthemum", "🀤bamboo")


class Flowers(WallParts):
    """With ``Rules.flowers``: one of each flower id in the wall (ids ``FLOWER_BASE`` + 0..7: the engine's
    ``SET_ASIDE_BASE`` + 0..7, a test keeps them equal)."""

    noun = "flower"
    state_name = "flowers"

    def extra_tiles(self, rules: Rules) -> tuple[int, ...]:
        return tuple(range(FLOWER_BASE, FLOWER_BASE + rules.flowers))


WALL = Flowers()
