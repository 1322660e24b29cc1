"""sichuan: the Sichuan bloody battle (血战到底), the BDA paper's game.

Missing suit declared after the deal (定缺), no chow, play on after a win, fan scoring with kong
payments and the draw settlement. The game's rules are in :mod:`mjenv.rulesets.sichuan.game` (its
hooks into the shared engine) and :mod:`mjenv.rulesets.sichuan.scoring` (fan and payments, pure
functions); docs/DESIGN.md, "Sichuan", gives the sources and the choices where tables differ.

In the env (``rules="sichuan"``): every seat first declares its missing suit (action ids ``2T + 7 ..
2T + 9``, all four in one step; view ``missing_suit``), wins and kongs are paid when they happen and each
step rewards that step's score changes, and a seat that wins leaves the hand (``plays_on``) while the
others play on until three have won or the wall is empty. Seven pairs win, a four of a kind counting as
two pairs; the deficiency views leave out the seat's declared missing suit.

Version history: ``rules="sichuan"`` became the Sichuan game (missing-suit declaration, bloody battle,
fan scoring) instead of ``basic`` without chow: 64 actions (3 declarations after PASS), observation 582
(``phase`` gains ``declare``; views ``missing_suit``, ``won``). Seven pairs in the deficiency features
then changed its values (its behaviour digest was re-recorded).
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
    engines=("python", "compiled"),
    plays_on=lambda rules: rules.bloody,
    declares_suit=lambda rules: rules.missing_suit,
    game_hooks="mjenv.rulesets.sichuan.game",
    step_hooks="mjenv.rulesets.sichuan.step",
    views="mjenv.rulesets.sichuan.views",
    agents="mjenv.rulesets.sichuan.agents",
    render="mjenv.rulesets.sichuan.render",
)
