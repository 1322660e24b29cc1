"""The sichuan room's part of the shared agents: the missing-suit declaration (定缺)."""

from __future__ import annotations

from typing import Any

from mjenv.deficiency import best_missing_suit
from mjenv.rulesets.protocol import AgentParts


class SichuanAgentParts(AgentParts):
    """Declare, from the own hand and knowledge base only, the suit cheapest to drop by the missing-suit
    deficiency (:func:`mjenv.deficiency.best_missing_suit`)."""

    def own_phase(self, situation: Any) -> int:
        return situation.layout.declare(best_missing_suit(situation.hand, situation.kb))


AGENTS = SichuanAgentParts()
