"""The sichuan room's part of the observation: the declared missing suits (public once declared, all at
once) and who has won and left the hand (public)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mjenv.observation import View
from mjenv.rules import Rules
from mjenv.rulesets.protocol import ObservationViews


def missing_onehots(missing: np.ndarray) -> list[int]:
    """The four seats' declared suits as 12 ints, one-hot per seat (all 0 for an undeclared seat)."""
    out = [0] * 12
    for s, m in enumerate(missing.tolist()):
        if m >= 0:
            out[3 * s + m] = 1
    return out


class SichuanViews(ObservationViews):
    """``missing_suit`` int[4, 3] (with ``Rules.missing_suit``) and ``won`` int[4] (with ``Rules.bloody``)."""

    position = 1

    def state_fields(self, rules: Rules) -> list[tuple[str, tuple[int, ...], int]]:
        return [("missing_suit", (4, 3), 0)] * rules.missing_suit + [("won", (4,), 0)] * rules.bloody

    def views(self, rules: Rules) -> list[View]:
        out = []
        if rules.missing_suit:  # declarations are made at once, public from then on
            out.append(View("missing_suit", (4, 3), 0, 1, "each seat's declared missing suit, one-hot s/m/p (all 0 "
                            "before the declaration; seat-relative)", "missing_suit", "relative"))
        if rules.bloody:  # who has won and left the hand is public
            out.append(View("won", (4,), 0, 1, "1 for a seat that has won and left the hand (seat-relative)", "won",
                            "relative"))
        return out

    def state_ints(self, rules: Rules, game: Any) -> list[int]:
        return (missing_onehots(game.missing) if rules.missing_suit else []) + (
            game.won.tolist() if rules.bloody else [])

    def excluded_suit(self, rules: Rules) -> str | None:
        return "missing_suit" if rules.missing_suit else None


VIEWS = SichuanViews()
