"""Cold start: CPU time of a fresh process until its first answers, before (an older commit) and after (this tree).

Each figure runs in a fresh Python process, ``--repeats`` times, the two trees alternately:

* **parallel_env**: ``import mjenv``, ``mjenv.parallel_env()``, ``reset()`` and one step;
* **deficiency**: the first ``mjenv.deficiency.deficiency(hand)`` call (``import mjenv.deficiency``
  shown apart);
* **vector_env(64)**: ``import mjenv``, ``mjenv.vector_env(64)``, ``reset()`` and one step;
* **riichi parallel_env**, **riichi vector_env(64)**: the same with ``rules="riichi"`` (this tree only: the "before"
  commit has no Riichi env), held to the same limits.

Times are CPU seconds (``time.process_time``) inside the process from its first line; "whole" adds the
interpreter's own start-up (the child's user + system time from ``resource.getrusage``). The table
prints the median and the range over the repeats.

The tables' on-disk cache (``MJENV_CACHE_DIR``, see ``mjenv.deficiency._table_cache``): by default the
runs share one temporary cache folder, filled by a first run that is not counted (what every process
after the first meets on an install); ``--cold-cache`` gives every run an empty folder (what the very
first process meets). The older tree has no cache and builds its tables in every process.

Run: ``python benchmarks/cold_start.py --repeats 5`` (and ``--cold-cache``); ``--base REV`` picks the
"before" commit (a temporary worktree with its own venv, removed afterwards).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

if __package__ in (None, ""):  # run as ``python benchmarks/<script>.py``: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._base_tree import BASE_COMMIT, ROOT, base_tree  # noqa: E402

_HAND = "[1, 1, 1, 0, 0, 2, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 1, 1, 0, 0]"

CHILDREN = {
    "parallel_env": """
import time
t0 = time.process_time()
import numpy as np
import mjenv
env = mjenv.parallel_env()
obs, _ = env.reset(seed=0)
env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents})
print({"cpu": time.process_time() - t0})
""",
    "deficiency": f"""
import time
t0 = time.process_time()
import numpy as np
import mjenv.deficiency as d
hand = np.array({_HAND}, dtype=np.int8)
t1 = time.process_time()
d.deficiency(hand)
print({{"cpu": time.process_time() - t1, "import": t1 - t0}})
""",
    "vector_env(64)": """
import time
t0 = time.process_time()
import numpy as np
import mjenv
venv = mjenv.vector_env(64)
obs, _ = venv.reset(seed=0)
venv.step(np.argmax(obs["action_mask"], axis=-1))
print({"cpu": time.process_time() - t0})
""",
}
# the Riichi envs: the same children with rules="riichi" (a seat not acting takes its first legal action, PASS)
CHILDREN["riichi parallel_env"] = CHILDREN["parallel_env"].replace("mjenv.parallel_env()",
                                                                   'mjenv.parallel_env(rules="riichi")')
CHILDREN["riichi vector_env(64)"] = CHILDREN["vector_env(64)"].replace("mjenv.vector_env(64)",
                                                                       'mjenv.vector_env(64, rules="riichi")')
assert all("riichi" in CHILDREN[k] for k in ("riichi parallel_env", "riichi vector_env(64)"))
#: The issue's limits (CPU seconds in a fresh process); the Riichi envs are held to their shared twins' limits.
TARGETS = {"parallel_env": 0.5, "deficiency": 0.1, "vector_env(64)": 0.6, "riichi parallel_env": 0.5,
           "riichi vector_env(64)": 0.6}
#: figures the "before" tree cannot run (it has no Riichi env): "after" alone
AFTER_ONLY = {"riichi parallel_env", "riichi vector_env(64)"}


def run_child(python: str, tree: str, code: str, cache: str) -> dict[str, float]:
    """One fresh process: its own timings, plus ``whole`` (the child's user + system CPU seconds)."""
    env = {**os.environ, "MJENV_CACHE_DIR": cache, "PYTHONPATH": tree, "OMP_NUM_THREADS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, cwd=tree)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise RuntimeError(f"{python} in {tree} failed:\n{out.stderr}")
    got = json.loads(out.stdout.strip().splitlines()[-1].replace("'", '"'))
    got["whole"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return got


def fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5, help="fresh processes per figure and tree (default: %(default)s)")
    p.add_argument("--cold-cache", action="store_true", help="an empty table cache for every process")
    p.add_argument("--base", default=BASE_COMMIT, help="the 'before' commit (default: %(default)s)")
    p.add_argument("--base-python", help="an installed 'before' tree's interpreter (with --base-tree)")
    p.add_argument("--base-tree", help="an installed 'before' tree (with --base-python)")
    p.add_argument("--figures", default=",".join(CHILDREN), help="comma separated (default: %(default)s)")
    args = p.parse_args(argv)
    figures = [f.strip() for f in args.figures.split(",") if f.strip()]
    unknown = set(figures) - set(CHILDREN)
    if unknown or args.repeats < 1:
        raise ValueError(f"--figures must name some of {list(CHILDREN)} and --repeats be >= 1; got {args.figures!r}, "
                         f"{args.repeats}")
    only_after = set(figures) <= AFTER_ONLY  # no "before" tree to build
    before = contextlib.nullcontext(("", "")) if only_after else base_tree(args.base, args.base_python, args.base_tree)
    with before as (old_tree, old_python), tempfile.TemporaryDirectory(prefix="mjenv-cache-") as tmp:
        trees = {"after": (sys.executable, str(ROOT))} if only_after else {
            "before": (old_python, old_tree), "after": (sys.executable, str(ROOT))}
        shared = str(Path(tmp) / "shared")
        if not args.cold_cache:  # fill the shared cache, uncounted
            for python, tree in trees.values():
                run_child(python, tree, CHILDREN["vector_env(64)"], shared)
                run_child(python, tree, CHILDREN["deficiency"], shared)
            if AFTER_ONLY & set(figures):
                run_child(sys.executable, str(ROOT), CHILDREN["riichi vector_env(64)"], shared)
        res: dict[tuple[str, str], list[dict]] = {}
        for i in range(args.repeats):
            for fig in figures:
                for name, (python, tree) in trees.items():
                    if name == "before" and fig in AFTER_ONLY:
                        continue
                    cache = str(Path(tmp) / f"cold-{name}-{fig}-{i}") if args.cold_cache else shared
                    res.setdefault((fig, name), []).append(run_child(python, tree, CHILDREN[fig], cache))
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"cold start, CPU seconds in a fresh process, median (range) of {args.repeats}; "
          f"{'empty' if args.cold_cache else 'warm'} table cache; before = {args.base}, after = {commit} "
          "(with uncommitted changes if any)")
    print("| figure | target | before | after | after / before | before, whole process | after, whole process |")
    print("|---|---|---|---|---|---|---|")
    for fig in figures:
        a = [r["cpu"] for r in res[(fig, "after")]]
        aw = [r["whole"] for r in res[(fig, "after")]]
        if fig in AFTER_ONLY:
            print(f"| {fig} | <= {TARGETS[fig]} | n/a | {fmt(a)} | n/a | n/a | {fmt(aw)} |")
            continue
        b = [r["cpu"] for r in res[(fig, "before")]]
        bw = [r["whole"] for r in res[(fig, "before")]]
        print(f"| {fig} | <= {TARGETS[fig]} | {fmt(b)} | {fmt(a)} | {statistics.median(a) / statistics.median(b):.2f} "
              f"| {fmt(bw)} | {fmt(aw)} |")
    if "deficiency" in figures:
        print(f"import mjenv.deficiency (not in the deficiency figure): before "
              f"{fmt([r['import'] for r in res[('deficiency', 'before')]])}, after "
              f"{fmt([r['import'] for r in res[('deficiency', 'after')]])}")


if __name__ == "__main__":
    main()
