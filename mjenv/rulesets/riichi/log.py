"""Logs of the Riichi env: mjenv's own record, its exact replay, and a registry of log formats.

mjenv's record of an episode (``env.log()``; one JSON line per episode in ``log_dir/riichi.jsonl``)::

    {"format": "mjenv-riichi", "version": 1, "episode": "hanchan", "kokushi_robs_ankan": true,
     "claim_window": "always",                                                # absent in older records: "always"
     "start": {"scores": [...], "round_index": 0, "honba": 0, "sticks": 0},   # only the keys given
     "hands": [{"wall": [136 tile ids], "actions": [[[seat, action], ...], ...], "result": {...}}, ...],
     "final_scores": [...] | null, "final_points": [...] | null, "illegal_seats": [...]}

Each hand holds its wall (the layout of :mod:`mjenv.rulesets.riichi.wall`) and every engine step's
actions of the seats that had to act (with ``claim_window="always"`` a window nobody could use is a step
with no actions, ``[]``; with ``"when_possible"`` there is no such step: the env's ``claim_window`` is
the record's, and a record without it was played with ``"always"``); :func:`replay` plays them through
:class:`RiichiGame` with that window and checks every hand's result and the final scores against the
record, so the log reproduces the game exactly.

Log formats are pluggable: :func:`register_log_format` adds a writer ``writer(game, record) -> str``
(the text appended to ``log_dir/<file name>`` at each episode's end) that may read the engine's event
stream ``game.events`` (the one event stream; :mod:`mjenv.rulesets.riichi.game` lists its events). The
env's ``log_format`` picks one by name; ``"mjenv"`` is this module's record, ``"mjai"`` appends each
episode as an mjai game to ``log_dir/riichi.mjai.jsonl`` (:mod:`mjenv.rulesets.riichi.mjai`: ``split_games``
separates them, ``replay_mjai`` plays one back; an episode stopped by an illegal action ends mid-hand).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from mjenv.rulesets.riichi.game import CLAIM_WINDOWS, RiichiGame
from mjenv.rulesets.riichi.wall import Wall

__all__ = ["FORMAT", "LOG_FORMATS", "read", "register_log_format", "replay", "start_game", "write"]

FORMAT, VERSION = "mjenv-riichi", 1
_START_KEYS = ("scores", "round_index", "honba", "sticks")


def _write_mjenv(game: RiichiGame, record: dict) -> str:
    return json.dumps(record, separators=(",", ":")) + "\n"


def _write_mjai(game: RiichiGame, record: dict) -> str:
    from mjenv.rulesets.riichi.mjai import log_writer

    return log_writer(game, record)


#: name -> (file name in ``log_dir``, writer(game, record) -> text appended to it); ``"mjai"``: each
#: episode as an mjai game (:mod:`mjenv.rulesets.riichi.mjai`), one after another in the file.
LOG_FORMATS: dict[str, tuple[str, Callable[[RiichiGame, dict], str]]] = {
    "mjenv": ("riichi.jsonl", _write_mjenv),
    "mjai": ("riichi.mjai.jsonl", _write_mjai),
}


def register_log_format(name: str, file_name: str, writer: Callable[[RiichiGame, dict], str]) -> None:
    """Add a log format: at each episode's end ``writer(game, record)`` is appended to ``log_dir/file_name``.

    ``game`` is the finished :class:`RiichiGame` (its ``events`` are the engine's event stream), ``record``
    mjenv's record of the episode (module docstring).
    """
    if not isinstance(name, str) or not name or not callable(writer) or os.path.basename(file_name) != file_name:
        raise ValueError("register_log_format needs a name, a plain file name and a callable writer(game, record)")
    LOG_FORMATS[name] = (file_name, writer)


def check_format(name) -> None:
    if name not in LOG_FORMATS:
        raise ValueError(f"log_format must be one of {sorted(LOG_FORMATS)}, got {name!r}")


def new_record(table: Any, start: dict) -> dict:
    """The record of an episode that has just been dealt (``table``: episode and options of the env)."""
    rec = {"format": FORMAT, "version": VERSION, "episode": table.episode,
           "kokushi_robs_ankan": table.kokushi_robs_ankan, "claim_window": table.claim_window,
           "start": {k: (list(v) if k == "scores" else v) for k, v in start.items() if k in _START_KEYS},
           "hands": [], "final_scores": None, "final_points": None, "illegal_seats": []}  # fmt: skip
    add_hand(rec, table.game)
    return rec


def add_hand(record: dict, game: RiichiGame) -> None:
    """Start the record of the hand just dealt."""
    record["hands"].append({"wall": list(game.wall.tiles), "actions": []})


def write(log_dir: str, fmt: str, game: RiichiGame, record: dict) -> None:
    """Append the finished episode to ``log_dir`` in format ``fmt``."""
    record["final_scores"] = None if game.final_scores is None else list(game.final_scores)
    record["final_points"] = None if game.final_points is None else list(game.final_points)
    file_name, writer = LOG_FORMATS[fmt]
    os.makedirs(log_dir, exist_ok=True)
    with open(os.path.join(log_dir, file_name), "a", encoding="utf-8") as f:
        f.write(writer(game, record))


def read(path: str | os.PathLike) -> list[dict]:
    """The records of a ``riichi.jsonl`` file, in order (ValueError naming the line of a bad one)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}, line {i}: not JSON ({e.msg})") from None
    return out


def start_game(record: dict) -> RiichiGame:
    """The :class:`RiichiGame` of a record, dealt its first hand (each later deal takes the record's next wall).

    Raises:
        ValueError: not a record of this format, or one without hands.
    """
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise ValueError(f"not an mjenv Riichi log record (format {FORMAT!r})")
    hands = record.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ValueError("the record has no hands")
    window = record.get("claim_window", "always")  # records written before the field: the env's only window
    if window not in CLAIM_WINDOWS:
        raise ValueError(f"the record's claim_window must be one of {CLAIM_WINDOWS}, got {window!r}")
    walls = iter([Wall(h["wall"]) for h in hands])
    start = {k: v for k, v in record.get("start", {}).items() if k in _START_KEYS}
    return RiichiGame(length=record["episode"], wall_factory=lambda g: next(walls), claim_window=window,
                      kokushi_robs_ankan=bool(record.get("kokushi_robs_ankan", True)), **start)


def replay(record: dict) -> RiichiGame:
    """Play a record through :class:`RiichiGame` and check it; the finished game.

    Raises:
        ValueError: not a record of this format, an illegal action (naming the hand and the step), or a
            hand whose result differs from the recorded one.
    """
    game = start_game(record)
    for k, hand in enumerate(record["hands"]):
        if k:
            if game.phase != "hand_over":
                raise ValueError(f"hand {k + 1}: the record goes on after mjenv's game ended (phase {game.phase})")
            game.next_hand()
        for i, step in enumerate(hand["actions"]):
            try:
                game.step({int(s): int(a) for s, a in step})
            except (ValueError, TypeError) as e:
                raise ValueError(f"hand {k + 1}, step {i + 1}: {e}") from None
        want = hand.get("result")
        if want is not None:
            if game.phase not in ("hand_over", "game_over") or game.results[-1]["deltas"] != want["deltas"]:
                got = game.results[-1]["deltas"] if game.results and game.phase != "act" else None
                raise ValueError(f"hand {k + 1}: the record's result {want['deltas']} is not mjenv's ({got})")
    if record.get("final_scores") is not None and game.final_scores != record["final_scores"]:
        raise ValueError(f"final scores {record['final_scores']} are not mjenv's {game.final_scores}")
    return game
