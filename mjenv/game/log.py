"""Hand logs as JSON lines, and replay.

A hand is written as JSON lines::

    {"type": "header", "format": "mjenv-hand", "version": 2, "rules": {...}, "seed": 7, "dealer": 0, "wall": [...]}
    {"type": "step", "i": 0, "actions": [[0, 12]]}
    {"type": "step", "i": 1, "actions": [[2, 61], [3, 60]]}
    ...
    {"type": "result", "phase": "END", "winners": [2], "deal_in": 0, "winning_tile": 12, "scores": [...], ...}

``actions`` lists ``[seat, action]`` for every acting seat of the step (``[]`` for a claim or
rob-kong window in which nobody could claim; see ``Rules.claim_window``). Several hands may follow each
other in one file (each starts with its header). :func:`replay` rebuilds the game from the header
(the stored wall; the seed is kept for reference) and re-applies every step through
:meth:`Game.step`, so every action is checked again; when the log holds a result, the replayed result
must equal it. The header's ``rules`` holds every ``Rules`` field; a version-1 log (written before
``Rules.claim_window`` existed, when a window opened only if some seat could claim) lacks that field
and is read as ``claim_window="when_possible"`` (see :func:`log_rules`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from mjenv.game.engine import Game
from mjenv.game.jsonl import LOG_FORMAT, LOG_VERSION, write_log_lines
from mjenv.rules import QUIET_DEFAULTS

__all__ = ["log_rules", "read_jsonl", "replay", "replay_states", "write_jsonl"]


def log_rules(log: dict[str, Any]) -> dict[str, Any]:
    """The rules of a hand log as a dict for :func:`~mjenv.rules.get_rules`, version differences resolved.

    Args:
        log: a hand log dict (:attr:`Game.log` or an entry of :func:`read_jsonl`).

    Returns:
        The header's rules; for a version-1 log without ``claim_window``, with
        ``claim_window="when_possible"`` (the only behaviour version 1 knew); every field of
        :data:`~mjenv.rules.QUIET_DEFAULTS` it lacks at its quiet default (``Rules.to_dict`` leaves a
        field out only there, and a log written before the field existed played with that value).

    Raises:
        ValueError: not a hand log, or a version this code does not know.
    """
    if log.get("format") != LOG_FORMAT:
        raise ValueError(f"not a hand log: format is {log.get('format')!r}, expected {LOG_FORMAT!r}")
    version = log.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version not in range(1, LOG_VERSION + 1):
        raise ValueError(f"hand log version {version!r} is not supported; allowed 1..{LOG_VERSION}")
    rules = log["rules"]
    if isinstance(rules, dict) and version == 1 and "claim_window" not in rules:
        rules = {**rules, "claim_window": "when_possible"}
    if isinstance(rules, dict):
        # a field left out is at its quiet default: Rules.to_dict leaves it out only there, and a log
        # written before the field existed played with that value, whatever today's preset says
        rules = {**{k: v for k, v in QUIET_DEFAULTS.items() if k not in rules}, **rules}
    return rules


def write_jsonl(game: Game, path: str | os.PathLike[str], append: bool = False) -> None:
    """Write ``game`` (header, steps, result when over) as JSON lines to ``path``."""
    write_log_lines(game.log, path, append=append)


def _from_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    logs: list[dict[str, Any]] = []
    for i, rec in enumerate(records):
        kind = rec.get("type")
        if kind == "header":
            log = {k: v for k, v in rec.items() if k != "type"}
            log["steps"] = []
            logs.append(log)
        elif kind in ("step", "result"):
            if not logs:
                raise ValueError(f"log record {i} ({kind}) comes before any header record")
            if kind == "step":
                logs[-1]["steps"].append(rec["actions"])
            else:
                logs[-1]["result"] = {k: v for k, v in rec.items() if k != "type"}
        else:
            raise ValueError(f"log record {i} has type {kind!r}; allowed 'header', 'step', 'result'")
    return logs


def read_jsonl(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Read every hand of a JSON-lines file as log dicts (the form of :attr:`Game.log`)."""
    with open(path, encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    return _from_records(records)


def _step_actions(step: Any, i: int) -> dict[int, int]:
    """One logged step as ``{seat: action}``; ValueError unless it is a list of ``[seat, action]`` pairs of
    ints (not bools, floats or strings), each seat at most once."""
    if not isinstance(step, (list, tuple)):
        raise ValueError(f"replay step {i}: expected a list of [seat, action] pairs, got {step!r}")
    out: dict[int, int] = {}
    for pair in step:
        if (
            not isinstance(pair, (list, tuple))
            or len(pair) != 2
            or any(isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) for x in pair)
        ):
            raise ValueError(f"replay step {i}: each entry must be [seat, action], two ints, got {pair!r}")
        seat, action = int(pair[0]), int(pair[1])
        if seat in out:
            raise ValueError(f"replay step {i}: seat {seat} appears twice in {step!r}; one action per seat")
        out[seat] = action
    return out


def _log_of(log: dict[str, Any] | str | os.PathLike[str] | Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The log dict of ``log``: itself, or the first hand of a JSON-lines file or of a list of records."""
    if isinstance(log, dict):
        return log
    if isinstance(log, (str, os.PathLike)):
        hands = read_jsonl(log)
        if not hands:
            raise ValueError(f"{log!s} holds no hand")
        return hands[0]
    hands = _from_records(list(log))
    if not hands:
        raise ValueError("the records hold no hand")
    return hands[0]


def replay_states(
    log: dict[str, Any] | str | os.PathLike[str] | Iterable[dict[str, Any]], *, steps: int | None = None
) -> Iterator[Game]:
    """The states of a logged hand, one by one: the game after the deal, then after each logged step.

    The same game object is yielded each time (moved on between yields): read what you need from it,
    or :meth:`Game.clone` it. The arguments and errors are those of :func:`replay`, but the stored
    result is not compared (a caller that reads every state need not finish the hand).
    """
    log = _log_of(log)
    rules = log_rules(log)  # first: it says when this is not a hand log at all
    logged = len(log["steps"])
    if steps is not None and (
        not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or not 0 <= steps <= logged
    ):
        raise ValueError(f"steps must be None (all) or an int in 0..{logged} (the steps logged), got {steps!r}")
    game = Game(rules, log["seed"], dealer=log["dealer"], wall=log.get("wall"))
    yield game
    todo = log["steps"] if steps is None else log["steps"][:steps]
    for i, step in enumerate(todo):
        actions = _step_actions(step, i)
        try:
            game.step(actions)
        except ValueError as e:
            raise ValueError(f"replay step {i}: {e}") from e
        yield game


def replay(
    log: dict[str, Any] | str | os.PathLike[str] | Iterable[dict[str, Any]], *, steps: int | None = None
) -> Game:
    """Rebuild a hand from its log, state for state.

    Args:
        log: a :attr:`Game.log` dict, a path to a JSON-lines file (its first hand), or the list of its
            records.
        steps: replay only the first ``steps`` steps, an int in 0..len(log["steps"]) (None: all).

    Returns:
        The game after the replayed steps.

    Raises:
        ValueError: not a hand log, ``steps`` not an int in 0..len(log["steps"]) (a negative count
            is not read from the end), a step that is not a list of ``[seat, action]`` int pairs with
            each seat once, an action that is illegal on replay, or a replayed result that differs
            from the result stored in the log.
    """
    log = _log_of(log)
    *_, game = replay_states(log, steps=steps)  # the one game object, after the last step
    if steps is None and "result" in log and game.result() != log["result"]:
        raise ValueError(f"replayed result {game.result()} differs from the logged result {log['result']}")
    return game
