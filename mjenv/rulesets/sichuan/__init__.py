"""sichuan: the Sichuan bloody battle (血战到底), the BDA paper's game.

Missing suit declared after the deal (定缺), no chow, play on after a win, fan scoring with kong
payments and the draw settlement. The game's rules are in :mod:`mjenv.rulesets.sichuan.game` (its
hooks into the shared engine) and :mod:`mjenv.rulesets.sichuan.scoring` (fan and payments, pure
functions); docs/DESIGN.md, "Sichuan", gives the sources and the choices where tables differ.
"""

from __future__ import annotations

from mjenv.rules import Rules
from mjenv.rulesets.protocol import RuleSet


def uses(rules: Rules) -> bool:
    """Whether ``rules`` turns on a field of this room (missing suit, bloody battle, its scoring)."""
    return rules.missing_suit or rules.bloody or rules.scoring == "sichuan"


ROOM = RuleSet(
    name="sichuan",
    preset=Rules(
        name="sichuan", allow_chow=False, seven_pairs=True, multiple_winners=True, missing_suit=True, bloody=True,
        scoring="sichuan",
    ),
    summary="108 tiles, missing suit, no chow, play on after a win, fan scoring (BDA paper)",
    uses=uses,
    game_hooks="mjenv.rulesets.sichuan.game",
    views="mjenv.rulesets.sichuan.views",
    agents="mjenv.rulesets.sichuan.agents",
)
