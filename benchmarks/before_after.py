"""Speed of two trees of mjenv in the same run: ``env_speed.py`` and ``vector_speed.py`` alternated.

Each tree runs its own copy of the benchmark scripts with its own interpreter (a venv with that tree
installed), alternately, ``--repeats`` times; the table prints each tree's best rate and the ratio
new / old. Rates are per CPU second of the benchmark process (``env_speed.py``'s steps/s, and
``vector_speed.py``'s hands per CPU-second of the vector env), so neighbours' load weighs less.
Every process runs in its tree's folder with the tree first on ``PYTHONPATH``, so a tree whose
compiled modules are built in place runs on its own code whatever the interpreter has installed.

``--lean``: instead, the single env's lean loop of ``peers_speed.py`` (``run_single``: the
``mjenv single`` row of the peers benchmark), steps per CPU-second and CPU us per step.
``--peers-vector N``: instead, ``peers_speed.py``'s vector loop at N tables (``run_vector``: the
``mjenv vector N`` row, its random sampling included), table-steps per CPU-second and CPU us per table-step.

Run (old = the tree before a change, e.g. ``git worktree add /tmp/old <commit>`` with its own venv)::

    python benchmarks/before_after.py --old /work/main --old-python /work/main/.venv/bin/python \
        --new . --new-python .venv/bin/python --repeats 3
"""

from __future__ import annotations

import argparse
import os
import subprocess
from pathlib import Path


def _env_speed(python: str, tree: str, hands: int, env: dict) -> dict[str, float]:
    out = subprocess.run([python, str(Path(tree) / "benchmarks" / "env_speed.py"), "--envs", "mjenv,mjenv-aec",
                          "--hands", str(hands)], capture_output=True, text=True, check=True, env=env, cwd=tree).stdout
    rates = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 9 and parts[0] in ("mjenv", "mjenv-aec"):
            rates[f"{parts[0]} steps/s"] = float(parts[7])
    return rates


_LEAN = """
import time
from benchmarks.peers_speed import run_single
run_single(2, 10_000)  # warm-up
t0 = time.process_time()
hands, steps = run_single({hands}, 0)
print(steps / (time.process_time() - t0))
"""


def _lean(python: str, tree: str, hands: int, env: dict) -> dict[str, float]:
    out = subprocess.run([python, "-c", _LEAN.format(hands=hands)], capture_output=True, text=True, check=True,
                         env=env, cwd=tree).stdout
    return {"parallel_env lean loop steps/s": float(out.split()[-1])}


_PEERS_VECTOR = """
from benchmarks.peers_speed import run_vector
dt, table_steps, _, engine = run_vector({num_envs}, {table_steps}, 0, None, "auto")
print(engine, table_steps / dt)
"""


def _peers_vector(python: str, tree: str, num_envs: int, table_steps: int, env: dict) -> dict[str, float]:
    out = subprocess.run([python, "-c", _PEERS_VECTOR.format(num_envs=num_envs, table_steps=table_steps)],
                         capture_output=True, text=True, check=True, env=env, cwd=tree).stdout
    engine, rate = out.split()[-2:]
    return {f"vector_env({num_envs}) peers loop ({engine}) table-steps/s": float(rate)}


def _vector_speed(python: str, tree: str, num_envs: int, hands: int, env: dict) -> dict[str, float]:
    out = subprocess.run([python, str(Path(tree) / "benchmarks" / "vector_speed.py"), "--num-envs", str(num_envs),
                          "--hands", str(hands), "--repeats", "1", "--sampler", "batched"],
                         capture_output=True, text=True, check=True, env=env, cwd=tree).stdout
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == "vector_env":
            return {f"vector_env({num_envs}) hands/CPU-s": float(cells[3])}
    raise RuntimeError(f"no vector_env row in:\n{out}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--old", required=True, help="the old tree (its benchmarks/ are run)")
    p.add_argument("--old-python", required=True)
    p.add_argument("--new", default=".")
    p.add_argument("--new-python", required=True)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--hands", type=int, default=40, help="hands of env_speed.py per env")
    p.add_argument("--vector-hands", type=int, default=48)
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--numpy", action="store_true", help="both trees on the numpy path (MJENV_NO_KERNEL=1)")
    p.add_argument("--lean", action="store_true", help="only the lean single-env loop of peers_speed.py")
    p.add_argument("--peers-vector", type=int, metavar="N", help="only peers_speed.py's vector loop at N tables")
    p.add_argument("--table-steps", type=int, default=64_000, help="table-steps of a --peers-vector run")
    a = p.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    if a.numpy:
        env["MJENV_NO_KERNEL"] = "1"
    best: dict[str, dict[str, float]] = {"old": {}, "new": {}}
    for _ in range(a.repeats):
        for name, python, tree in (("old", a.old_python, a.old), ("new", a.new_python, a.new)):
            tree = os.path.abspath(tree)
            python = os.path.abspath(python) if os.sep in python else python  # the runs start in the tree
            here = {**env, "PYTHONPATH": tree}
            if a.peers_vector:
                rates = _peers_vector(python, tree, a.peers_vector, a.table_steps, here)
            elif a.lean:
                rates = _lean(python, tree, a.hands, here)
            else:
                rates = _env_speed(python, tree, a.hands, here)
                rates |= _vector_speed(python, tree, a.num_envs, a.vector_hands, here)
            for k, v in rates.items():
                best[name][k] = max(best[name].get(k, 0.0), v)
    print(f"repeats={a.repeats} path={'numpy' if a.numpy else 'kernel'} (best of the repeats, per CPU second)")
    print("| measure | old | new | new / old |")
    print("|---|---|---|---|")
    for k in best["old"]:
        o, n = best["old"][k], best["new"][k]
        print(f"| {k} | {o:.0f} | {n:.0f} | {n / o:.2f}x |")
        if k.endswith("steps/s"):
            unit = "table-step" if k.endswith("table-steps/s") else "step"
            print(f"| {k[:-len(unit + 's/s')]}CPU us/{unit} | {1e6 / o:.2f} | {1e6 / n:.2f} | |")


if __name__ == "__main__":
    main()
