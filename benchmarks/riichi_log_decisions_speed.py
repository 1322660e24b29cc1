"""Reading real Tenhou games as imitation data (``mjenv.rulesets.riichi.policy.log_decisions``, what
``mjenv train bc --rules riichi --logs`` reads) on one process against ``--workers`` processes, in one run.

Both read the same folder (the repository's test games by default) in turns (``--repeats``, alternating which goes
first); the rows must be equal. It prints games and samples per wall-second (several processes: wall time is what
they save) and the ratio.

    python -m benchmarks.riichi_log_decisions_speed --workers 2 --repeats 3
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

DEFAULT = Path(__file__).resolve().parents[1] / "tests" / "data" / "mjlog"


def main(argv: list[str] | None = None) -> None:
    from mjenv.rulesets.riichi.policy import LOG_SUFFIXES, log_decisions

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--logs", default=str(DEFAULT), help="a folder of mjlogs (default: the test games)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args(argv)
    games = len([f for f in Path(a.logs).iterdir() if f.is_file() and f.name.endswith(LOG_SUFFIXES)])
    ways = {1: [], a.workers: []}
    rows = {}
    for r in range(a.repeats):
        for w in (ways if r % 2 == 0 else list(ways)[::-1]):
            t0 = time.perf_counter()
            rows[w] = log_decisions(a.logs, progress=False, workers=w)
            ways[w].append(time.perf_counter() - t0)
        if not all(np.array_equal(x, y) for x, y in zip(rows[1], rows[a.workers])):
            raise SystemExit("the rows differ between one process and several")
    n = len(rows[1][2])
    print(f"{games} games, {n} samples, {a.repeats} repeats (best of each)")
    print("| processes | games / wall-s | samples / wall-s |")
    print("|---|---|---|")
    for w, ts in ways.items():
        print(f"| {w} | {games / min(ts):.2f} | {n / min(ts):.0f} |")
    print(f"{a.workers} processes / 1: {min(ways[1]) / min(ways[a.workers]):.2f}x the games per wall-second")


if __name__ == "__main__":
    main()
