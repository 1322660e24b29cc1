"""The taiwan16 room's part of the observation: the flowers each seat has set aside (public, face up)."""

from __future__ import annotations

from typing import Any

from mjenv.observation import View
from mjenv.rules import Rules
from mjenv.rulesets.protocol import ObservationViews


class FlowerViews(ObservationViews):
    """With ``Rules.flowers``: the field ``flowers`` int[4, F] and its seat-relative view."""

    position = 0

    def state_fields(self, rules: Rules) -> list[tuple[str, tuple[int, ...], int]]:
        return [("flowers", (4, rules.flowers), 0)] if rules.flowers else []

    def views(self, rules: Rules) -> list[View]:
        if not rules.flowers:
            return []
        return [View("flowers", (4, rules.flowers), 0, 1, "flowers each seat has set aside (public; seat-relative)",
                     "flowers", "relative")]

    def state_ints(self, rules: Rules, game: Any) -> list[int]:
        return game.flowers.ravel().tolist()


VIEWS = FlowerViews()
