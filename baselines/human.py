"""``HumanAgent``: a person plays one seat at the terminal (``mjenv play``).

The table is drawn from the seat's own observation only (what a player at the table sees): its hand,
every seat's melds (one group per meld) and discards, the public facts its rule set adds (a room's
``RenderParts.view_notes``, e.g. tiles set aside face up), the discard awaiting claims, the wall count.
Tiles are written in tile-id order everywhere (s bamboo, m characters, p dots, z honours: the order of
the Unicode glyphs and of the move list). Legal moves are listed with numbers; the person answers with
a number, a move name (``pong``, ``pass``, ``win``, ``kong 3s``) or a tile to discard (``3s`` or
``discard 3s``); ``help`` (or ``?``) explains this. Anything else gets a clear message and the prompt
again. A seat with only ``PASS`` legal passes without asking.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

import numpy as np
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DECLARE, PHASE_DISCARD, PHASE_ROB_KONG, Agent, Situation

from mjenv.rules import Rules
from mjenv.rulesets import render_parts
from mjenv.tiles import format_hand, tile_name

SEAT_NAMES = ("you", "right", "across", "left")
PHASE_NAMES = {PHASE_DISCARD: "your turn", PHASE_CLAIM: "claim window", PHASE_ROB_KONG: "rob a kong?",
               PHASE_DECLARE: "declare your missing suit"}
HELP = """how to answer:
  a number          the move with that number in the list, e.g. 0
  a move name       e.g. pass, pong, win, kong 3s, chow (a prefix is enough when only one move has it)
  a tile            on your turn, the tile to discard: 3s (or discard 3s)
tiles: 1-9 then s (bamboo), m (characters), p (dots), z (honours 1-7: E S W N white green red);
seats: right plays after you, then across, then left (the left seat's discards are the ones you may chow)."""


def hand_text(counts) -> str:
    """Tiles in tile-id order, one group per suit, as ``mjenv.render.hand_text``: ``"2557s 1349m 11z"``.

    (An agent module may not import the render layer, so the suits are cut here and each is written
    by ``mjenv.tiles.format_hand``.)
    """
    c = np.asarray(counts)
    suit = np.arange(len(c)) // 9
    groups = [format_hand(np.where(suit == s, c, 0)) for s in range(4) if c[suit == s].any()]
    return " ".join(groups) or "-"


def meld_groups(counts, num_melds: int) -> list[str]:
    """Split a seat's meld tile counts into ``num_melds`` melds (kongs, pongs, chows), e.g. ``["444m", "789m"]``.

    The observation holds the counts and the number of melds, not the melds: a split that uses every
    tile is returned (where two exist, as ``444555666m``, either shows the same tiles). When none
    exists the tiles are shown as one group.
    """
    c = np.asarray(counts).astype(int).copy()
    kongs = int(c.sum()) - 3 * num_melds
    found: list[list[int]] = []

    def search(left_kongs: int) -> bool:
        nz = np.flatnonzero(c)
        if len(nz) == 0:
            return left_kongs == 0
        t = int(nz[0])
        options = []
        if left_kongs > 0 and c[t] >= 4:
            options.append([t] * 4)
        if c[t] >= 3:
            options.append([t] * 3)
        if t < 27 and t % 9 <= 6 and c[t + 1] > 0 and c[t + 2] > 0:
            options.append([t, t + 1, t + 2])
        for meld in options:
            for u in meld:
                c[u] -= 1
            found.append(meld)
            if search(left_kongs - (len(meld) == 4)):
                return True
            found.pop()
            for u in meld:
                c[u] += 1
        return False

    if kongs < 0 or not search(kongs):
        return [hand_text(counts)] if np.asarray(counts).any() else []
    return [hand_text(np.bincount(m, minlength=len(c))) for m in found]


def render_observation(views: dict[str, np.ndarray], rules: Rules, claimed=()) -> str:
    """Text table of one seat's decoded observation (seat-relative: 0 = you, 1 = right, ...).

    Args:
        views: the decoded observation (``ObservationSpec.decode``).
        rules: its rules.
        claimed: ``(relative seat, index)`` of discards claimed into a meld (public; the observation keeps
            them in the pile): written in brackets, ``(5s)``.
    """
    claimed = set(claimed)
    n_t = rules.num_tile_types
    hand = np.rint(views["hand"]).astype(int)
    melds = np.rint(views["melds"]).astype(int).reshape(4, n_t)
    num_melds = np.rint(views["num_melds"]).astype(int).reshape(4)
    discards = np.rint(views["discards"]).astype(int).reshape(4, -1)
    last = np.asarray(views["last_discard"]).reshape(-1)
    last_from = np.asarray(views["last_discarder"]).reshape(-1)
    dealer = int(np.argmax(views["dealer"]))
    parts = render_parts()  # the rooms' public facts: every seat's row shows them
    lines = [f"wall: {int(round(float(np.ravel(views['wall_count'])[0])))} tiles left"]
    for seat in (2, 3, 1, 0):
        shown = [f"({tile_name(int(t) - 1)})" if (seat, i) in claimed else tile_name(int(t) - 1)
                 for i, t in enumerate(discards[seat]) if t > 0]
        meld_txt = " ".join(meld_groups(melds[seat], int(num_melds[seat]))) or "-"
        tag = " (dealer)" if seat == dealer else ""
        fl = "".join(part.view_notes(views, seat) for part in parts)
        lines.append(f"  {SEAT_NAMES[seat]:>6}{tag}: melds {meld_txt}; discards {' '.join(shown) or '-'}{fl}")
    if claimed:
        lines.append("  (a tile in brackets was claimed into a meld)")
    if last.max() > 0:
        lines.append(f"  on the table: {tile_name(int(np.argmax(last)))} from {SEAT_NAMES[int(np.argmax(last_from))]}")
    lines.append(f"  your hand: {hand_text(hand)}   ({format_hand(hand, 'unicode')})")
    if "deficiency" in views:
        lines.append(f"  deficiency: {int(round(float(np.ravel(views['deficiency'])[0])))}")
    return "\n".join(lines)


class HumanAgent(Agent):
    """A person at the terminal.

    Args:
        seed: unused (kept for the uniform agent interface).
        rules: preset name or :class:`~mjenv.rules.Rules`.
        input: where answers are read from (default ``sys.stdin``).
        output: where the table and prompts go (default ``sys.stdout``).
        max_attempts: bad answers in a row before giving up with ``ValueError`` (None: never).

    Raises (from ``act``):
        EOFError: the input ended.
    """

    name = "human"

    def __init__(
        self,
        seed: int | None = 0,
        rules: str | Rules = "basic",
        input: TextIO | None = None,
        output: TextIO | None = None,
        max_attempts: int | None = None,
    ) -> None:
        super().__init__(seed=seed, rules=rules)
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.max_attempts = max_attempts
        #: ``(relative seat, index)`` of the discards claimed so far (public; ``mjenv play`` keeps it up
        #: to date): they are bracketed in the table
        self.claimed: set[tuple[int, int]] = set()

    def act(self, observation: dict[str, Any]) -> int:
        s = self.situation(observation)
        if len(s.legal) == 1:
            return int(s.legal[0])
        views = self._decode(observation["observation"])
        self._print("")
        self._print(f"--- {PHASE_NAMES.get(s.phase, 'decide')} ---")
        self._print(render_observation(views, self.rules, self.claimed))
        return self.decide(s)

    def moves(self, s: Situation) -> list[tuple[int, str]]:
        """Legal moves as (action id, name), in action-id order."""
        return [(int(a), self._describe(int(a), s)) for a in s.legal]

    def _describe(self, a: int, s: Situation) -> str:
        lay = s.layout
        name = lay.describe(a)
        if lay.chow_low <= a <= lay.exposed_kong and s.last_discard >= 0:
            d = s.last_discard
            used = {
                lay.chow_low: (d, d + 1, d + 2), lay.chow_mid: (d - 1, d, d + 1), lay.chow_high: (d - 2, d - 1, d),
                lay.pong: (d,) * 3, lay.exposed_kong: (d,) * 4,
            }[a]  # fmt: skip
            name += " " + "".join(tile_name(t)[0] for t in used) + tile_name(d)[1]
        return name

    def decide(self, s: Situation) -> int:
        moves = self.moves(s)
        listing = "legal moves: " + ", ".join(f"[{i}] {n}" for i, (_, n) in enumerate(moves))
        self._print(listing + "   (help: how to answer)")
        attempts = 0
        while True:
            self.output.write("your move> ")
            self.output.flush()
            line = self.input.readline()
            if line == "":
                raise EOFError("input ended while waiting for a move")
            if line.strip().lower() in ("help", "?", "h"):
                self._print(HELP + "\n" + listing)
                continue
            choice, error = self.parse(line, s, moves)
            if error is None:
                return choice
            attempts += 1
            self._print(error)
            if self.max_attempts is not None and attempts >= self.max_attempts:
                raise ValueError(f"no legal move after {attempts} attempts; last answer {line.strip()!r}")

    def parse(self, line: str, s: Situation, moves: list[tuple[int, str]] | None = None) -> tuple[int, str | None]:
        """Read one answer: (action, None) or (-1, message saying what is wrong and what is allowed)."""
        moves = moves if moves is not None else self.moves(s)
        text = " ".join(line.strip().lower().split())
        allowed = (
            f"answer with a number 0..{len(moves) - 1}, a move name (e.g. '{moves[-1][1]}'), or a tile to discard "
            "like '3s'"
        )
        if not text:
            return -1, f"empty answer: {allowed}"
        if text.isdigit():
            i = int(text)
            if 0 <= i < len(moves):
                return moves[i][0], None
            return -1, f"{i} is not a listed move: {allowed}"
        exact = [a for a, name in moves if text == name]
        prefix = [a for a, name in moves if name.startswith(text)]
        if exact:
            return exact[0], None
        if len(prefix) == 1:
            return prefix[0], None
        if len(prefix) > 1:
            names = ", ".join(n for a, n in moves if a in prefix)
            return -1, f"{text!r} could mean {names}; type more of the name or its number"
        tile_text = text.removeprefix("discard ").strip()
        try:
            from mjenv.tiles import parse as parse_tiles

            counts = parse_tiles(tile_text, self.rules.num_tile_types)
        except ValueError:
            counts = None
        if counts is not None and counts.sum() == 1:
            t = int(np.argmax(counts))
            if s.phase == PHASE_DISCARD and s.mask[s.layout.discard(t)]:
                return s.layout.discard(t), None
            if s.phase == PHASE_DISCARD:
                held = hand_text(s.hand)
                return -1, f"you cannot discard {tile_name(t)}: it is not in your hand ({held}); {allowed}"
            return -1, f"this is not your turn to discard; {allowed}"
        return -1, f"did not understand {line.strip()!r}: {allowed}"

    def _print(self, text: str) -> None:
        self.output.write(text + "\n")
        self.output.flush()
