"""honours: basic with winds and dragons (136 tiles, tile ids 27-33)."""

from __future__ import annotations

from mjenv.rules import Rules
from mjenv.rulesets.protocol import RuleSet
from mjenv.tiles import NUM_TILES

ROOM = RuleSet(
    name="honours",
    preset=Rules(name="honours", num_tile_types=NUM_TILES),
    summary="136 tiles with winds and dragons, 13-tile hands, chow",
    engines=("python", "compiled"),
)
