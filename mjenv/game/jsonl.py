"""The hand log's format and its JSON-lines writer (no game needed: a log dict in, lines out).

:attr:`mjenv.game.Game.log` builds the dict, :func:`write_log_lines` writes it, and
:mod:`mjenv.game.log` reads it back and replays it; this module imports neither, so they share it
without an import loop.
"""

from __future__ import annotations

import json
import os
from typing import Any

LOG_FORMAT = "mjenv-hand"
#: 2: ``rules`` carries ``claim_window``. A version-1 log has no such field and was played with the
#: window opened only when some seat could claim, so :func:`mjenv.game.replay` reads it as
#: ``claim_window="when_possible"``.
LOG_VERSION = 2


def log_lines(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The JSON-lines records of a hand log: header, one per step, the result when present."""
    header = {"type": "header", **{k: v for k, v in log.items() if k not in ("steps", "result")}}
    out = [header]
    out += [{"type": "step", "i": i, "actions": s} for i, s in enumerate(log["steps"])]
    if "result" in log:
        out.append({"type": "result", **log["result"]})
    return out


def write_log_lines(log: dict[str, Any], path: str | os.PathLike[str], append: bool = False) -> None:
    """Write a hand log (:attr:`mjenv.game.Game.log`) as JSON lines to ``path``."""
    with open(path, "a" if append else "w", encoding="utf-8") as f:
        for line in log_lines(log):
            f.write(json.dumps(line, separators=(",", ":")) + "\n")
