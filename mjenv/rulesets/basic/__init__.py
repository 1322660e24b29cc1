"""basic: the papers' game, 108 suited tiles, 13-tile hands, chow allowed, fixed points (the default)."""

from __future__ import annotations

from mjenv.rules import Rules
from mjenv.rulesets.protocol import RuleSet

ROOM = RuleSet(
    name="basic",
    preset=Rules(),
    summary="108 suited tiles, 13-tile hands, chow; the papers' game (default)",
    engines=("python", "compiled"),
)
