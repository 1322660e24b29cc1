"""Rendering of a Riichi game: text (``ansi``) and an RGB image (``rgb_array``).

Both show the round and its wind, honba, riichi sticks, dora indicators, the wall count, and for each
seat its wind, score, riichi state, hand, melds (with the seat each call came from) and discards
(tsumogiri in lower case brackets ``(..)``, the riichi tile marked ``*``, called-away tiles ``^``). With
``seat`` given the other concealed hands are face down (what that seat sees).
"""

from __future__ import annotations

import numpy as np

from mjenv.rulesets.riichi.tiles136 import TYPE34, is_red

__all__ = ["render_rgb", "render_text", "tile_text"]

SEAT_NAMES = ("player_0", "player_1", "player_2", "player_3")
WINDS = "ESWN"
_HONOURS = ("E", "S", "W", "N", "Wh", "Gr", "Rd")
_RELATIVE = ("self", "right", "across", "left")


def tile_text(tile136: int) -> str:
    """``"5s"``, ``"0m"`` (a red five), ``"Wh"``..."""
    t = TYPE34[tile136]
    if t >= 27:
        return _HONOURS[t - 27]
    return f"{0 if is_red(tile136) else t % 9 + 1}{'smp'[t // 9]}"


def _tiles(tiles) -> str:
    return " ".join(tile_text(t) for t in sorted(tiles, key=lambda x: (TYPE34[x], x)))


def _round_name(game) -> str:
    return f"{('East', 'South', 'West', 'North')[min(game.round_index // 4, 3)]} {game.round_index % 4 + 1}"


def render_text(game, seat: int | None = None) -> str:
    """The table as text.

    Args:
        game: a :class:`~mjenv.rulesets.riichi.game.RiichiGame`.
        seat: None shows every hand; a seat 0..3 shows what that seat sees.
    """
    dora = " ".join(tile_text(t) for t in game.dora_indicators)
    head = (f"mjenv riichi | {_round_name(game)} | honba {game.honba} | riichi sticks {game.sticks} | "
            f"dora indicators {dora} | wall {game.live_remaining} | phase {game.phase}")
    lines = [head + (f" | view of {SEAT_NAMES[seat]}" if seat is not None else "")]
    order = range(4) if seat is None else [(seat + i) % 4 for i in range(4)]
    for s in order:
        wind = WINDS[(s - game.dealer) % 4]
        state = {0: "", 1: " riichi", 2: " double riichi"}[game.riichi[s]]
        lines.append(f"{wind} {SEAT_NAMES[s]} {game.scores[s]:>6}{state}{' (dealer)' if s == game.dealer else ''}")
        if seat is None or s == seat:
            lines.append(f"     hand     {_tiles(game.hands[s])}")
        else:
            lines.append(f"     hand     {len(game.hands[s])} tiles face down")
        if game.melds[s]:
            ms = []
            for m in game.melds[s]:
                frm = "" if m.from_seat is None else f" from {SEAT_NAMES[m.from_seat]}"
                ms.append(f"{m.kind}[{_tiles(m.tiles)}]{frm}")
            lines.append(f"     melds    {'; '.join(ms)}")
        disc = []
        for t, f in zip(game.discards[s], game.discard_flags[s]):
            x = tile_text(t)
            x = f"({x})" if f & 1 else x
            disc.append(x + ("*" if f & 2 else "") + ("^" if f & 4 else ""))
        lines.append(f"     discards {' '.join(disc) or '-'}")
    if game.results and game.phase in ("hand_over", "game_over"):
        r = game.results[-1]
        lines.append(f"result: {r['result']}; deltas {r['deltas']}; scores {r['scores']}")
    if game.final_scores is not None:
        lines.append(f"game over: final scores {game.final_scores}; points {game.final_points}")
    return "\n".join(lines)


W, H = 1000, 600
_BG = (22, 96, 62)
_TEXT = (240, 240, 230)
_GOLD = (255, 200, 40)


def render_rgb(game, seat: int | None = None) -> np.ndarray:
    """The table as an image: uint8[H, W, 3] (header in gold, one block per seat)."""
    from PIL import Image, ImageDraw

    from mjenv.render import _font

    img = Image.new("RGB", (W, H), _BG)
    draw = ImageDraw.Draw(img)
    text = render_text(game, seat).splitlines()
    font, bold = _font(15), _font(16, True)
    y = 10
    for i, line in enumerate(text):
        first = i == 0 or line.startswith(("result", "game over"))
        draw.text((10, y), line, fill=_GOLD if first else _TEXT, font=bold if first else font)
        y += 24 if first else 20
        if y > H - 20:
            break
    return np.asarray(img, dtype=np.uint8)
