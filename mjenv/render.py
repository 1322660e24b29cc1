"""Rendering of a hand: text with Unicode tiles (``ansi``), an RGB image (``rgb_array``) and a window
(``human``).

Both show either the full table (every hand face up) or one seat's view (the other concealed hands
face down; in a claim window a seat's view marks every answering seat as to act, not only those that
can claim, so it shows nothing hidden). The image is drawn with Pillow: each seat has a panel on its
side of the table (the viewing seat, or seat 0, at the bottom) with its concealed hand, declared melds,
what its rule set adds (a room's :class:`~mjenv.rulesets.protocol.RenderParts`) and discards; the
centre shows the wall count, the phase, the discard awaiting claims and whose turn it is. Tiles are
drawn as cards with the rank and a suit letter in the suit's colour (s bamboo green, m characters
red, p dots blue; honours E S W N Wh Gr Rd), so no mahjong font is needed. The last discard is marked in
its seat's discards (in brackets in the text, a gold card in the image) while it awaits claims.

``human`` shows the image in a pygame window, as PettingZoo's classic games do (``pip install
"mjenv[render]"``); without pygame or without a display it prints the text instead, after a one-line
note saying why (:func:`render_human`).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mjenv.rulesets import render_parts
from mjenv.tiles import UNICODE_TILES, tile_name

__all__ = [
    "ClaimMarks", "HumanWindow", "hand_text", "render_human", "render_rgb", "render_text", "result_line", "seat_extras",
]

SEAT_NAMES = ("player_0", "player_1", "player_2", "player_3")
PHASE_NAMES = ("discard", "claim", "rob kong", "end", "declare missing suit")
_BACK = "\U0001f02b"  # a tile seen from the back
_HONOURS = ("E", "S", "W", "N", "Wh", "Gr", "Rd")
_SUIT_COLOURS = ((24, 128, 56), (190, 30, 40), (30, 70, 170), (30, 30, 30))


def hand_text(counts) -> str:
    """Tiles of a count vector in tile-id order, one group per suit: ``"2557s 1349m 11z"`` ('-' if none).

    The order of the ids and of the Unicode glyphs (s bamboo, m characters, p dots, z honours), so the
    text reads in the same order as the glyphs beside it and the move lists.
    """
    c = np.asarray(counts).astype(int)
    groups = []
    for suit, letter in enumerate("smpz"):
        lo = 9 * suit
        ranks = "".join(str(t - lo + 1) * int(c[t]) for t in range(lo, min(lo + 9, len(c))))
        if ranks:
            groups.append(ranks + letter)
    return " ".join(groups) or "-"


def _tiles_of(counts) -> list[int]:
    c = np.asarray(counts)
    return [int(t) for t in np.repeat(np.arange(len(c)), c.astype(np.int64))]


def seat_extras(game, s: int) -> tuple[list[dict], list[str]]:
    """What seat ``s`` shows beside its tiles under its rules, for pages that draw a table generically.

    Returns:
        ``(rows, notes)``: rows ``{"label": str, "items": [str, ...]}`` (e.g. tiles set aside, by name) and
        short notes (e.g. a declared suit, or "won: out of the hand"): each room's
        :meth:`~mjenv.rulesets.protocol.RenderParts.seat_extras`.
    """
    rows: list[dict] = []
    notes: list[str] = []
    for part in render_parts():
        more_rows, more_notes = part.seat_extras(game, s)
        rows += more_rows
        notes += more_notes
    return rows, notes


def result_line(game) -> str:
    """One line saying how the hand ended ('' while it goes on), e.g. ``player_2 wins 5s on player_0's tile``."""
    return _result_line(game).removeprefix("result: ")


class ClaimMarks:
    """Which discards were claimed into a meld, followed step by step (the game keeps a claimed tile in its
    discarder's pile, as it was discarded; a table shows it marked).

    Call :meth:`before` before each ``game.step`` and :meth:`after` after it.

    Attributes:
        claimed: ``set[(seat, index)]``: seat ``seat``'s discard number ``index`` (0-based, in
            ``game.discards[seat]``) was claimed. Public: every seat at the table sees the claim.
    """

    def __init__(self) -> None:
        self.claimed: set[tuple[int, int]] = set()
        self._pending: tuple[int, int, int] | None = None

    def before(self, game) -> None:
        """Note the discard awaiting claims (if any) and the melds declared so far."""
        d = int(game.last_discarder)
        claim = int(game.phase) == 1 and d >= 0  # Phase.CLAIM: a rob-kong window takes no discard
        self._pending = (d, int(game.num_discards[d]) - 1, int(game.melds_declared.sum())) if claim else None

    def after(self, game) -> tuple[int, int] | None:
        """Record the discard claimed by the step just taken; returns it as (seat, index), or None."""
        if self._pending is None:
            return None
        d, index, melds = self._pending
        self._pending = None
        if int(game.melds_declared.sum()) > melds:
            self.claimed.add((d, index))
            return d, index
        return None


def _uni(tiles) -> str:
    return "".join(UNICODE_TILES[t] for t in tiles)


def _state(game, acting, seat: int | None) -> tuple[str, list[int]]:
    if seat is not None and int(game.phase) in (1, 2) and int(game.last_discarder) >= 0:
        # a seat's view of a claim / rob-kong window marks every seat that answers (all but the
        # discarder), not the seats that can claim: those would reveal the other hands
        d = int(game.last_discarder)
        return PHASE_NAMES[int(game.phase)], [(d + k) % 4 for k in (1, 2, 3)]
    acting = list(game.acting_seats()) if acting is None else list(acting)
    return PHASE_NAMES[int(game.phase)], acting


def _result_line(game) -> str:
    if not game.is_over:
        return ""
    for part in render_parts():  # a room's own line (e.g. several wins in one hand)
        line = part.result_line(game)
        if line is not None:
            return line
    if not game.winners:
        return "result: exhaustive draw"
    who = ", ".join(SEAT_NAMES[w] for w in game.winners)
    how = "self-draw" if game.deal_in < 0 else f"on {SEAT_NAMES[game.deal_in]}'s tile"
    tile = f" {tile_name(int(game.winning_tile))}" if game.winning_tile >= 0 else ""
    return f"result: {who} wins{tile} {how}; scores {list(map(int, game.scores))}"


def _awaiting_claims(game, s: int) -> bool:
    """Whether seat ``s``'s last discard is the one on the table (awaiting claims, or just claimed by a win)."""
    return int(game.last_discarder) == s and int(game.last_discard) >= 0


def render_text(game, seat: int | None = None, acting: list[int] | None = None) -> str:
    """The table as text with Unicode tiles (and mps notation beside them).

    Args:
        game: a ``mjenv.game.Game``.
        seat: None shows every hand; a seat 0..3 shows what that seat sees (other hands face down).
        acting: seats deciding now (default ``game.acting_seats()``). In a seat's view of a claim or
            rob-kong window the three seats that answer are marked instead, whoever can claim.

    Returns:
        A multi-line string.
    """
    phase, acting = _state(game, acting, seat)
    last = int(game.last_discard)
    head = (
        f"mjenv {game.rules.name} | phase {phase} | wall {game.wall_remaining} | dealer {SEAT_NAMES[game.dealer]}"
        f" | to act: {', '.join(SEAT_NAMES[s] for s in acting) or '-'}"
    )
    if last >= 0:
        head += f" | last discard {UNICODE_TILES[last]} {tile_name(last)} by {SEAT_NAMES[game.last_discarder]}"
    lines = [head + (f" | view of {SEAT_NAMES[seat]}" if seat is not None else "")]
    order = range(4) if seat is None else [(seat + i) % 4 for i in range(4)]
    for s in order:
        marks = ("D" if s == game.dealer else " ") + (">" if s in acting else " ")
        hand = np.asarray(game.hands[s])
        if seat is None or s == seat:
            shown = f"{_uni(_tiles_of(hand))}  {hand_text(hand)}"
        else:
            shown = f"{_BACK * int(hand.sum())}  ({int(hand.sum())} tiles)"
        melds = "  ".join(f"{m.kind}:{_uni(m.tiles)}" for m in game.melds[s])
        n = int(game.num_discards[s])
        disc = _uni(int(t) for t in game.discards[s][:n])
        if disc and _awaiting_claims(game, s):
            disc = f"{disc[:-1]}[{disc[-1]}]"  # the discard the other seats may claim
        lines.append(f"{marks} {SEAT_NAMES[s]}  hand {shown}")
        if melds:
            lines.append(f"     melds    {melds}")
        for part in render_parts():  # the rooms' public facts of the seat
            lines += part.seat_lines(game, s)
        lines.append(f"     discards {disc or '-'}")
    res = _result_line(game)
    if res:
        lines.append(res)
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# image
# ----------------------------------------------------------------------------------------------

W, H = 1200, 880
_BG = (22, 96, 62)
_PANEL = (16, 78, 50)
_TEXT = (240, 240, 230)
_HIGHLIGHT = (255, 200, 40)
_MARKED_FACE = (255, 236, 160)


@cache
def _font(size: int, bold: bool = False):
    from PIL import ImageFont

    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for path in (name, f"/usr/share/fonts/truetype/dejavu/{name}"):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def _fitting_font(draw, label: str, size: int, width: int):
    """The bold font of at most ``size`` px in which ``label`` fits ``width`` px ("Wh" on a narrow tile)."""
    while size > 6 and draw.textlength(label, font=_font(size, bold=True)) > width:
        size -= 1
    return _font(size, bold=True)


def _draw_tile(draw, x: int, y: int, w: int, h: int, tile: int | None, mark: bool = False) -> None:
    """One tile card at (x, y); ``tile=None`` draws its back."""
    r = max(3, w // 7)
    if tile is None:
        draw.rounded_rectangle((x, y, x + w, y + h), r, fill=(40, 120, 170), outline=(10, 40, 60), width=2)
        return
    outline = _HIGHLIGHT if mark else (90, 80, 60)
    face = _MARKED_FACE if mark else (250, 246, 232)
    draw.rounded_rectangle((x, y, x + w, y + h), r, fill=face, outline=outline, width=max(3, w // 8) if mark else 1)
    suit = min(tile // 9, 3)
    colour = _SUIT_COLOURS[suit]
    if suit == 3:
        label, small = _HONOURS[tile - 27], ""
    else:
        label, small = str(tile % 9 + 1), "smp"[suit]
    big = _fitting_font(draw, label, int(h * 0.48), int(w * 0.8))
    draw.text((x + w / 2, y + h * 0.40), label, fill=colour, font=big, anchor="mm")
    if small:
        draw.text((x + w / 2, y + h * 0.80), small, fill=colour, font=_font(int(h * 0.28)), anchor="mm")


def _row(draw, x: int, y: int, width: int, tiles, w: int, h: int, gap: int = 2, mark_last: bool = False) -> int:
    """Tiles left to right, wrapping at ``width``; returns the y below the last row."""
    if not tiles:
        return y
    per_row = max(1, (width + gap) // (w + gap))
    for i, t in enumerate(tiles):
        cx = x + (i % per_row) * (w + gap)
        cy = y + (i // per_row) * (h + gap)
        _draw_tile(draw, cx, cy, w, h, t, mark=mark_last and i == len(tiles) - 1)
    return y + ((len(tiles) - 1) // per_row + 1) * (h + gap)


def _panel(draw, box, game, s: int, face_up: bool, acting: list[int], big: tuple[int, int], small: tuple[int, int]):
    x0, y0, x1, y1 = box
    turn = s in acting
    draw.rounded_rectangle(box, 10, fill=_PANEL, outline=_HIGHLIGHT if turn else (10, 50, 30), width=4 if turn else 2)
    x, y, width = x0 + 10, y0 + 8, x1 - x0 - 20
    label = SEAT_NAMES[s] + ("  (dealer)" if s == game.dealer else "")
    if turn:
        label += "  - to act"
    if game.is_over and s in game.winners:
        label += "  - WINS"
    draw.text((x, y), label, fill=_HIGHLIGHT if turn else _TEXT, font=_font(18, bold=True))
    y += 26
    hand = _tiles_of(game.hands[s])
    if face_up:
        y = _row(draw, x, y, width, hand, *big)
    else:
        y = _row(draw, x, y, width, [None] * len(hand), *big)
    y += 6
    if game.melds[s]:
        draw.text((x, y), "melds", fill=(190, 220, 200), font=_font(13))
        y += 17
        mx = x
        for m in game.melds[s]:
            need = len(m.tiles) * (small[0] + 2) + 10
            if mx + need > x + width:
                mx = x
                y += small[1] + 4
            for t in m.tiles:
                _draw_tile(draw, mx, y, small[0], small[1], None if m.kind == "concealed_kong" and not face_up else t)
                mx += small[0] + 2
            mx += 10
        y += small[1] + 6
    for part in render_parts():  # the rooms' public facts of the seat
        for line in part.image_lines(game, s):
            draw.text((x, y), line, fill=_MARKED_FACE, font=_font(13, bold=True))
            y += 19
    n = int(game.num_discards[s])
    disc = [int(t) for t in game.discards[s][:n]]
    draw.text((x, y), "discards", fill=(190, 220, 200), font=_font(13))
    y += 17
    _row(draw, x, y, width, disc, small[0], small[1], mark_last=_awaiting_claims(game, s))


def render_rgb(game, seat: int | None = None, acting: list[int] | None = None) -> np.ndarray:
    """The table as an image.

    Args:
        game: a ``mjenv.game.Game``.
        seat: None: every hand face up, seat 0 at the bottom; a seat 0..3: that seat at the bottom and
            the other concealed hands face down.
        acting: seats deciding now (default ``game.acting_seats()``). In a seat's view of a claim or
            rob-kong window the three seats that answer are marked instead, whoever can claim.

    Returns:
        uint8[880, 1200, 3] RGB image.
    """
    from PIL import Image, ImageDraw

    phase, acting = _state(game, acting, seat)
    img = Image.new("RGB", (W, H), _BG)
    draw = ImageDraw.Draw(img)
    bottom = 0 if seat is None else seat
    boxes = {
        0: (300, 610, 900, 872),  # self / bottom
        1: (905, 150, 1192, 740),  # right
        2: (300, 8, 900, 270),  # across / top
        3: (8, 150, 295, 740),  # left
    }
    for i in range(4):
        s = (bottom + i) % 4
        side = i in (1, 3)
        big = (26, 36) if side else (38, 52)
        small = (20, 27) if side else (24, 32)
        _panel(draw, boxes[i], game, s, seat is None or s == seat, acting, big, small)
    # centre: the state of the hand
    cx0, cy0, cx1, cy1 = 320, 290, 880, 590
    draw.rounded_rectangle((cx0, cy0, cx1, cy1), 14, fill=(12, 64, 40), outline=(10, 40, 25), width=2)
    f = _font(20, bold=True)
    y = cy0 + 16
    draw.text(((cx0 + cx1) / 2, y), f"mjenv  {game.rules.name}", fill=_TEXT, font=_font(24, bold=True), anchor="mt")
    y += 40
    draw.text((cx0 + 24, y), f"wall: {game.wall_remaining} tiles left", fill=_TEXT, font=f)
    y += 32
    draw.text((cx0 + 24, y), f"phase: {phase}", fill=_TEXT, font=f)
    y += 32
    who = ", ".join(SEAT_NAMES[s] for s in acting) or "-"
    draw.text((cx0 + 24, y), f"to act: {who}", fill=_HIGHLIGHT, font=f)
    y += 32
    if seat is not None:
        draw.text((cx0 + 24, y), f"view of {SEAT_NAMES[seat]}", fill=_TEXT, font=_font(16))
    last = int(game.last_discard)
    if last >= 0:
        draw.text((cx1 - 150, cy0 + 70), "last discard", fill=_TEXT, font=_font(16), anchor="mt")
        _draw_tile(draw, cx1 - 180, cy0 + 95, 60, 82, last, mark=True)
        draw.text((cx1 - 150, cy0 + 186), f"by {SEAT_NAMES[game.last_discarder]}", fill=_TEXT, font=_font(16),
                  anchor="mt")
    res = _result_line(game)
    if res:
        draw.text(((cx0 + cx1) / 2, cy1 - 20), res.replace("result: ", ""), fill=_HIGHLIGHT, font=_font(16),
                  anchor="mb")
    return np.asarray(img, dtype=np.uint8)


# ----------------------------------------------------------------------------------------------
# window (render_mode="human")
# ----------------------------------------------------------------------------------------------


def _no_window_reason() -> str | None:
    """Why no pygame window can open here (None: one can)."""
    import os
    import sys

    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # no greeting line between the env's outputs
    try:
        import pygame  # noqa: F401
    except ImportError:
        return 'pygame is not installed (pip install "mjenv[render]")'
    if os.environ.get("SDL_VIDEODRIVER"):  # the user chose a driver (e.g. "dummy" in tests): let SDL try it
        return None
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return "there is no display (DISPLAY and WAYLAND_DISPLAY are unset)"
    return None


class HumanWindow:
    """A pygame window that shows :func:`render_rgb` frames, or the text with a note when it cannot open.

    Args:
        output: where the text goes when there is no window (default ``sys.stdout``).

    Attributes:
        reason: None while a window is (or can be) used; else why the text is printed instead.
    """

    def __init__(self, output=None) -> None:
        self.output = output
        self.reason = _no_window_reason()
        self._screen = None
        self._noted = False

    def show(self, game, seat: int | None = None, acting: list[int] | None = None) -> None:
        """Draw the table: in the window, or as text (the first time after a one-line note)."""
        if self.reason is None:
            try:
                self._draw(render_rgb(game, seat=seat, acting=acting))
                return
            except Exception as exc:  # noqa: BLE001  (pygame.error and friends: fall back, say why)
                self.reason = f"the pygame window could not open ({exc})"
                self.close()
        import sys

        out = self.output if self.output is not None else sys.stdout
        if not self._noted:
            print(f"mjenv: render_mode='human' prints text: {self.reason}", file=out)
            self._noted = True
        print(render_text(game, seat=seat, acting=acting), file=out)

    def _draw(self, frame: np.ndarray) -> None:
        import pygame

        if self._screen is None:
            pygame.display.init()
            pygame.display.set_caption("mjenv")
            self._screen = pygame.display.set_mode((frame.shape[1], frame.shape[0]))
        # surfarray is indexed (x, y): the frame's (row, column) axes swap
        pygame.surfarray.blit_array(self._screen, frame.swapaxes(0, 1))
        pygame.event.pump()  # keeps the window responsive between steps
        pygame.display.flip()

    def frame(self) -> np.ndarray | None:
        """The window's current pixels as uint8[H, W, 3] (None without a window)."""
        if self._screen is None:
            return None
        import pygame

        return np.ascontiguousarray(pygame.surfarray.array3d(self._screen).swapaxes(0, 1))

    def close(self) -> None:
        """Close the window (if one is open)."""
        if self._screen is not None:
            import pygame

            pygame.display.quit()
            self._screen = None


def render_human(owner, game, seat: int | None = None, acting: list[int] | None = None) -> None:
    """``render_mode="human"``: show the table in ``owner``'s window, opened on first use.

    The window (a :class:`HumanWindow`) is kept on ``owner`` (the environment) as ``owner._window`` and
    closed when the owner is collected (or by ``owner._window.close()``); without pygame or a display
    the text is printed instead, after a note saying why.

    Args:
        owner: any object that may hold the window (an environment).
        game: a ``mjenv.game.Game``.
        seat, acting: as for :func:`render_rgb`.
    """
    window = getattr(owner, "_window", None)
    if window is None:
        import weakref

        window = HumanWindow()
        owner._window = window
        try:
            weakref.finalize(owner, window.close)  # the window goes with its environment
        except TypeError:  # an owner without weak references keeps it until window.close()
            pass
    window.show(game, seat=seat, acting=acting)
