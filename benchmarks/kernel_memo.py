"""Hit rate of the compiled kernel's seat memo with N tables stepped together.

The memo serves a seat whose hand, KB and melds did not change since its table's last step (the
three seats that did not draw after a claim window). mjenv keeps one memo per table (owned by the
table's state); before, one process-global memo of 256 slots was shared by all tables, so many tables
stepped together evicted each other's seats. This plays ``mjenv.vector_env(N)`` with masked random
actions and prints the hit rate and the time per table-step for each N. It runs on either tree: with
a per-table memo it sums the tables' counters, with the old global memo it reads the global one. Where
the memo also holds a part cache (each suit's and the honours' vectors, kept across steps)
it prints that cache's hit rate too ("-" on older trees).

Run: ``python benchmarks/kernel_memo.py --tables 1,16,64,256 --steps 6000``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import mjenv
from mjenv.deficiency import _kernel, kernel


def measure(num_envs: int, table_steps: int, seed: int) -> tuple[float, float, float | None]:
    """(seat-memo hit rate, CPU microseconds per table-step, part-cache hit rate or None) over about
    ``table_steps`` table-steps."""
    venv = mjenv.vector_env(num_envs)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    per_table = hasattr(kernel, "new_memo")
    # the compiled batch step keeps the tables' memos in its BatchTables
    memos = venv._batch.memos if getattr(venv, "engine", "python") == "compiled" else [t.memo for t in venv.tables]
    if per_table:
        start = [kernel.memo_stats(m) for m in memos]
    else:  # the old tree: one global memo
        _kernel.memo_clear()
    steps, t0 = 0, time.process_time()
    while steps < table_steps:
        u = rng.random(obs["action_mask"].shape)
        obs, *_ = venv.step(np.argmax(np.where(obs["action_mask"] > 0, u, -1.0), axis=-1))
        steps += num_envs
    dt = time.process_time() - t0
    parts = None
    if per_table:
        stats = [kernel.memo_stats(m) for m in memos]
        hits = sum(s["hits"] - b["hits"] for s, b in zip(stats, start))
        misses = sum(s["misses"] - b["misses"] for s, b in zip(stats, start))
        if "part_hits" in stats[0]:
            p_hits = sum(s["part_hits"] - b["part_hits"] for s, b in zip(stats, start))
            p_misses = sum(s["part_misses"] - b["part_misses"] for s, b in zip(stats, start))
            parts = p_hits / max(p_hits + p_misses, 1)
    else:
        s = _kernel.memo_stats()
        hits, misses = s["hits"], s["misses"]
    return hits / max(hits + misses, 1), dt / steps * 1e6, parts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", default="1,16,64,256")
    p.add_argument("--steps", type=int, default=6000, help="table-steps per measurement")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    if not kernel.available():
        raise SystemExit("the compiled kernel is not installed (or MJENV_NO_KERNEL is set)")
    memo = "per table" if hasattr(kernel, "new_memo") else "process-global, 256 slots"
    print(f"seat memo: {memo}; {a.steps} table-steps per row")
    print("| tables | memo hit rate | part-cache hit rate | CPU us per table-step |")
    print("|---|---|---|---|")
    for n in (int(x) for x in a.tables.split(",")):
        rate, us, parts = measure(n, a.steps, a.seed)
        print(f"| {n} | {rate:.3f} | {'-' if parts is None else f'{parts:.3f}'} | {us:.1f} |")


if __name__ == "__main__":
    main()
