"""The taiwan16 room's hook into the shared engine: tai scoring (``Rules.scoring == "tai"``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mjenv.rulesets.protocol import GameHooks
from mjenv.rulesets.taiwan16.tai import tai_scores


class TaiHooks(GameHooks):
    """A win is scored by the tai table (:func:`~mjenv.rulesets.taiwan16.tai.tai_scores`); a draw scores 0."""

    settles = True

    def settle(self, game: Any, winners: list[int], deal_in: int, reason: int, scores: np.ndarray) -> np.ndarray:
        return tai_scores(game, winners, deal_in) if winners else scores


HOOKS = TaiHooks()
