"""``mjenv view LOG.jsonl --out hand.html``: a self-contained HTML page that replays a logged hand.

The page needs no network and works from ``file://``: the frames are JSON inside it, the drawing is
its own small script and style sheet (tiles are drawn as cards with the rank and suit letter, so no
mahjong font is needed). It shows, step by step, the four hands face up (the log sees everything),
the drawn tile, melds, discards (a claimed discard marked, the discard awaiting claims outlined),
what each rule set adds (rows of named items, notes, indicator tiles), every seat's score and the
step's actions. The arrow keys (or ``h``/``l``), Home/End, the buttons and the slider step through it;
space plays it; ``#step=k`` in the address opens step ``k`` (0 = the deal, ``k`` = after the log's
first ``k`` steps) and follows the page as it moves.

Frames are built per log format (the header's ``"format"``) by a frame builder registered with
:func:`register_frame_builder`, so a rule set whose hands are logged in their own format adds its own
builder (tiles laid sideways, marked tiles, indicator tiles: the frame schema below has a place for
them) and the page draws it unchanged; a room registers its builders in the module its ``viewer``
names (:mod:`mjenv.rulesets.protocol`), imported the first time a log of a format not yet known is
viewed. The builder of the shared engine's logs (``"mjenv-hand"``) replays the hand through the engine,
every action checked again; what a rule set shows beside the tiles comes from
:func:`mjenv.render.seat_extras`.

A log file is JSON lines: the shared engine's records (``"type"`` header, step, result; a hand per
header) or one whole log per line (its own ``"format"``, no ``"type"``), which the builder's ``hands``
function may split into hands (a game of many hands: ``--hand`` counts the hands of all its games).

A frame (JSON) is::

    {"step": k, "caption": "player_1: pong; ...", "phase": "discard", "wall": 83, "to_act": [1],
     "indicators": [{"label": "...", "tiles": [TILE, ...]}], "result": "" | "player_2 wins 5s ...",
     "info": ["East 1", "honba 0", ...],   # optional: short facts of the table
     "seats": [{"name": "player_0", "dealer": true, "score": 0, "hand": [TILE, ...], "drawn": TILE | null,
                "melds": [{"kind": "pong", "tiles": [TILE, ...]}], "discards": [TILE, ...],
                "rows": [{"label": "...", "items": ["...", ...]}], "notes": ["...", ...]}, ...4]}

where a TILE is a label (``"5s"``, ``"3z"``) or an object ``{"t": "5p", "claimed": bool, "last": bool,
"sideways": bool, "red": bool, "grey": bool}`` (every flag optional; ``red`` draws a marked face, ``grey`` a
greyed one).
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable
from importlib import resources
from typing import Any

import numpy as np

from mjenv.game.engine import LOG_FORMAT
from mjenv.render import result_line, seat_extras
from mjenv.tiles import tile_name

__all__ = ["FRAME_BUILDERS", "build_frames", "mjenv_hand_frames", "page", "read_logs", "register_frame_builder",
           "write_page"]

FrameBuilder = Callable[[dict[str, Any]], list[dict[str, Any]]]

#: log format (a header's ``"format"``) -> frame builder ``log dict -> frames`` (one per state, the deal first)
FRAME_BUILDERS: dict[str, FrameBuilder] = {}
#: log format -> ``hands(log) -> [log of one hand, ...]`` for a format whose logs hold several hands
HAND_SPLITTERS: dict[str, Callable[[dict[str, Any]], list[dict[str, Any]]]] = {}

_PHASES = ("discard", "claim", "rob kong", "end", "declare missing suit")


def register_frame_builder(log_format: str, builder: FrameBuilder, *, replace: bool = False,
                           hands: Callable[[dict[str, Any]], list[dict[str, Any]]] | None = None) -> None:
    """Make :func:`build_frames` (and ``mjenv view``) draw logs of ``log_format`` with ``builder``.

    Args:
        log_format: the ``"format"`` of the log's header, e.g. ``"mjenv-hand"``.
        builder: ``builder(log) -> frames``: ``log`` as :func:`mjenv.game.log.read_jsonl` returns a hand (or
            as ``hands`` returns one); frames as the module docstring describes, the deal first, one per
            logged step after it.
        replace: allow replacing a builder already registered for that format.
        hands: for a format whose logs hold several hands, ``hands(log) -> [log, ...]``, one log of the
            format per hand, each one the builder draws (:func:`read_logs` splits them).

    Raises:
        ValueError: a builder for ``log_format`` is registered (and ``replace`` is False).
    """
    if log_format in FRAME_BUILDERS and not replace:
        raise ValueError(f"a frame builder for log format {log_format!r} is already registered")
    FRAME_BUILDERS[log_format] = builder
    if hands is not None:
        HAND_SPLITTERS[log_format] = hands


def _builder(fmt: Any) -> FrameBuilder:
    """The builder of ``fmt``, after importing the rooms' viewers once when no builder knows it."""
    if fmt not in FRAME_BUILDERS:
        import importlib

        from mjenv import rulesets

        for room in rulesets.rooms():
            if room.viewer is not None:
                importlib.import_module(room.viewer)
    if fmt not in FRAME_BUILDERS:
        raise ValueError(f"no frame builder for log format {fmt!r}; registered: {', '.join(FRAME_BUILDERS)}")
    return FRAME_BUILDERS[fmt]


def build_frames(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames of one logged hand, by the builder registered for its format.

    Raises:
        ValueError: no builder is registered for the log's format (the message lists those that are).
    """
    return _builder(log.get("format"))(log)


def _tiles(counts) -> list[str]:
    c = np.asarray(counts)
    return [tile_name(int(t)) for t in np.repeat(np.arange(len(c)), c.astype(np.int64))]


def _frame(game, k: int, caption: str, claimed: set[tuple[int, int]]) -> dict[str, Any]:
    seats = []
    drawer = int(game.current_player) if int(game.phase) == 0 and int(game.last_drawn) >= 0 else -1
    for s in range(4):
        hand = np.array(game.hands[s], dtype=np.int64)
        drawn = None
        if s == drawer and not game.is_over:
            drawn = tile_name(int(game.last_drawn))
            hand[int(game.last_drawn)] -= 1  # drawn apart, at the right of the hand
        n = int(game.num_discards[s])
        discards: list[Any] = []
        for i, t in enumerate(game.discards[s][:n].tolist()):
            last = s == int(game.last_discarder) and i == n - 1 and int(game.last_discard) >= 0
            mark = (s, i) in claimed
            name = tile_name(int(t))
            discards.append({"t": name, "claimed": mark, "last": last} if mark or last else name)
        rows, notes = seat_extras(game, s)
        seats.append({
            "name": f"player_{s}",
            "dealer": s == game.dealer,
            "score": int(game.scores[s]),
            "hand": _tiles(hand),
            "drawn": drawn,
            "melds": [{"kind": m.kind, "tiles": [tile_name(t) for t in m.tiles]} for m in game.melds[s]],
            "discards": discards,
            "rows": rows,
            "notes": notes,
        })
    return {
        "step": k,
        "caption": caption,
        "phase": _PHASES[int(game.phase)],
        "wall": int(game.wall_remaining),
        "to_act": [int(s) for s in game.acting_seats()],
        "indicators": [],
        "result": result_line(game),
        "seats": seats,
    }


def mjenv_hand_frames(log: dict[str, Any]) -> list[dict[str, Any]]:
    """Frames of a ``"mjenv-hand"`` log (the shared engine's, every rule set it plays), one per state.

    The hand is replayed from the header's wall through :class:`mjenv.game.Game`, step by step, each
    action checked again (an illegal one raises ``ValueError`` naming the step).
    """
    from mjenv.game import Game
    from mjenv.game.log import log_rules
    from mjenv.render import ClaimMarks

    game = Game(log_rules(log), log["seed"], dealer=log["dealer"], wall=log.get("wall"))
    marks = ClaimMarks()
    frames = [_frame(game, 0, "the deal", marks.claimed)]
    for i, step in enumerate(log["steps"]):
        acts = {int(s): int(a) for s, a in step}
        told = [f"player_{s}: {game.layout.describe(a)}" for s, a in acts.items() if a != game.layout.pass_]
        if not told:
            told = ["everyone passes"] if acts else ["nobody can claim"]
        marks.before(game)
        try:
            game.step(acts)
        except ValueError as e:
            raise ValueError(f"log step {i}: {e}") from e
        marks.after(game)
        frames.append(_frame(game, i + 1, "; ".join(told), marks.claimed))
    return frames


register_frame_builder(LOG_FORMAT, mjenv_hand_frames)


def page(log: dict[str, Any], title: str | None = None, frames: list[dict[str, Any]] | None = None) -> str:
    """The self-contained HTML page of one logged hand (see the module docstring); ``frames``: its frames when
    built already (:func:`build_frames`)."""
    frames = build_frames(log) if frames is None else frames
    rules = log.get("rules", {})
    name = rules.get("name", "?") if isinstance(rules, dict) else str(rules)
    data = {
        "title": title or log.get("title") or f"mjenv {name} hand, seed {log.get('seed')}",
        "rules": name,
        "frames": frames,
    }
    blob = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")  # no "</script>" inside the script
    template = resources.files("mjenv").joinpath("view.html").read_text(encoding="utf-8")
    return template.replace("{{TITLE}}", html.escape(data["title"])).replace("{{DATA}}", blob)


def write_page(log_path: str | os.PathLike[str], out: str | os.PathLike[str], hand: int = 0) -> int:
    """Write the page of hand number ``hand`` (0-based) of the JSON-lines log ``log_path`` to ``out``.

    Returns:
        The number of frames (logged steps + 1).

    Raises:
        ValueError: the file holds no hand ``hand``, or a record or step is not valid.
    """
    hands = read_logs(log_path)
    if not 0 <= hand < len(hands):
        raise ValueError(f"{os.fspath(log_path)} holds {len(hands)} hand(s); --hand must be 0..{len(hands) - 1}")
    frames = build_frames(hands[hand])
    text = page(hands[hand], frames=frames)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return len(frames)


def read_logs(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every hand of a JSON-lines log file, as the logs the frame builders draw (the module docstring).

    Raises:
        ValueError: a line that is not JSON, records of both kinds in one file, or a bad record.
    """
    from mjenv.game.log import read_jsonl

    records = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise ValueError(f"line {i} is not JSON ({e.msg})") from None
    whole = [isinstance(r, dict) and "type" not in r and "format" in r for r in records]
    if not any(whole):
        return read_jsonl(path)
    if not all(whole):
        raise ValueError("the file mixes hand records ('type') with whole logs ('format' and no 'type')")
    hands: list[dict[str, Any]] = []
    for rec in records:
        _builder(rec["format"])  # a format no builder knows is refused here
        split = HAND_SPLITTERS.get(rec["format"])
        hands += split(rec) if split else [rec]
    return hands
