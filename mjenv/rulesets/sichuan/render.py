"""The sichuan room's part of the rendering: the declared missing suits (public once declared), the
seats that have won and left the hand, and the hand's several wins."""

from __future__ import annotations

from typing import Any

import numpy as np

from mjenv import AGENTS as _SEAT_NAMES
from mjenv.rulesets.protocol import RenderParts
from mjenv.tiles import tile_name


class SichuanRender(RenderParts):
    """Missing suits, winners out of the hand, every win of the hand in order."""

    position = 1

    def seat_extras(self, game: Any, s: int) -> tuple[list[dict], list[str]]:
        notes = []
        if game.rules.missing_suit:
            m = int(game.missing[s])
            notes.append(f"missing suit {'smp'[m]}" if m >= 0 else "missing suit not declared")
        if game.rules.bloody and game.won[s]:
            notes.append("won: out of the hand")
        return [], notes

    def seat_lines(self, game: Any, s: int) -> list[str]:
        if not game.rules.missing_suit:  # the declarations are public once made
            return []
        m = int(game.missing[s])
        out = "  (won, out of the hand)" if game.won[s] else ""
        return [f"     missing  {'smp'[m] if m >= 0 else '-'}{out}"]

    def result_line(self, game: Any) -> str | None:
        if not game.rules.bloody:  # several wins in one hand
            return None
        wins = "; ".join(f"{_SEAT_NAMES[w['seat']]} {w['points']}" for w in game.wins) or "none"
        end = game.end_reason.replace("_", " ")
        return f"result: {end}; wins (points): {wins}; scores {list(map(int, game.scores))}"

    def end_lines(self, game: Any, names: list[str], you: int) -> list[str] | None:
        if not game.rules.bloody:  # every win of the hand in order (the last may be long before the end)
            return None
        lines = []
        for w in game.wins:
            giver = "your" if w["deal_in"] == you else f"{names[w['deal_in']]}'s"
            how = "self-draw" if w["deal_in"] < 0 else f"on {giver} tile"
            lines.append(f"win: {names[w['seat']]} ({how}, {tile_name(int(w['tile']))}), {w['points']} points")
        if not game.wins:
            lines.append("draw: nobody won")
        return lines

    def view_notes(self, views: dict[str, Any], seat: int) -> str:
        if "missing_suit" not in views:
            return ""
        missing = np.asarray(views["missing_suit"]).reshape(4, 3)
        if not missing[seat].any():  # every seat's declared suit is public
            return ""
        return f"; missing suit {'smp'[int(np.argmax(missing[seat]))]}"


RENDER = SichuanRender()
