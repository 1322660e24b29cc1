"""The taiwan16 room's part of the rendering: the flowers each seat has set aside (public, face up)."""

from __future__ import annotations

from typing import Any

import numpy as np

from mjenv.rulesets.protocol import RenderParts
from mjenv.rulesets.taiwan16.wall import FLOWER_NAMES


def _held(game: Any, s: int) -> list[int]:
    return np.flatnonzero(game.flowers[s]).tolist() if game.rules.flowers else []


class FlowerRender(RenderParts):
    """Flowers by name (with their glyph in text, without in the viewer and the image)."""

    position = 0

    def seat_extras(self, game: Any, s: int) -> tuple[list[dict], list[str]]:
        held = _held(game, s)
        return ([{"label": "flowers", "items": [FLOWER_NAMES[f][1:] for f in held]}] if held else []), []

    def seat_lines(self, game: Any, s: int) -> list[str]:
        held = _held(game, s)
        return [f"     flowers  {' '.join(FLOWER_NAMES[f] for f in held)}"] if held else []

    def image_lines(self, game: Any, s: int) -> list[str]:
        held = _held(game, s)
        return [f"flowers  {', '.join(FLOWER_NAMES[f][1:] for f in held)}"] if held else []

    def public_count(self, game: Any, s: int) -> int:
        return int(game.flowers[s].sum())

    def narrate(self, game: Any, s: int, name: str) -> list[str]:
        shown = " ".join(FLOWER_NAMES[f] for f in np.flatnonzero(game.flowers[s]))
        return [f"  {name} sets aside a flower (flowers: {shown})"]

    def view_notes(self, views: dict[str, Any], seat: int) -> str:
        if "flowers" not in views:
            return ""
        flowers = np.rint(views["flowers"]).astype(int).reshape(4, -1)
        if not flowers[seat].any():
            return ""
        return "; flowers " + " ".join(FLOWER_NAMES[f] for f in np.flatnonzero(flowers[seat]))


RENDER = FlowerRender()
