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
``--peers``: both of those (the lean loop and ``vector_env(64)``) and RiichiEnv's loop of ``peers_speed.py``
(``run_riichienv``) in every repeat, each repeat's ratios to RiichiEnv printed (hands per CPU-second; a vector
env's hands/s is its table-steps/s over the lean loop's steps per hand in that repeat), then the ranges.

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
print(steps / hands, steps / (time.process_time() - t0))
"""


def _lean(python: str, tree: str, hands: int, env: dict) -> dict[str, float]:
    out = subprocess.run([python, "-c", _LEAN.format(hands=hands)], capture_output=True, text=True, check=True,
                         env=env, cwd=tree).stdout
    per_hand, rate = out.split()[-2:]
    return {"parallel_env lean loop steps/s": float(rate), "steps per hand": float(per_hand)}


_RIICHI = """
import time
from benchmarks.peers_speed import run_riichienv
run_riichienv(2, 10_000)  # warm-up
t0 = time.process_time()
hands, steps = run_riichienv({hands}, 0)
print(hands / (time.process_time() - t0))
"""


def _riichienv(python: str, tree: str, hands: int, env: dict) -> float:
    """RiichiEnv's hands per CPU-second in peers_speed.py's loop (every observation encoded)."""
    out = subprocess.run([python, "-c", _RIICHI.format(hands=hands)], capture_output=True, text=True, check=True,
                         env=env, cwd=tree).stdout
    return float(out.split()[-1])


def _peers(a, trees: list[tuple[str, str, str]], env: dict) -> None:
    """``--peers``: RiichiEnv, then each tree's lean loop and vector_env(64), every repeat; ratios per repeat."""
    rows = []  # (repeat, riichienv hands/s, {tree: (lean hands/s, vector hands/s, lean steps/s, vector steps/s)})
    for r in range(a.repeats):
        riichi = _riichienv(trees[-1][1], trees[-1][2], a.hands, {**env, "PYTHONPATH": trees[-1][2]})
        got = {}
        for name, python, tree in trees:
            here = {**env, "PYTHONPATH": tree}
            lean = _lean(python, tree, a.hands, here)
            vec = next(iter(_peers_vector(python, tree, 64, a.table_steps, here).values()))
            per_hand = lean["steps per hand"]
            got[name] = (lean["parallel_env lean loop steps/s"] / per_hand, vec / per_hand,
                         lean["parallel_env lean loop steps/s"], vec)
        rows.append((r, riichi, got))
        print(f"repeat {r + 1}: RiichiEnv {riichi:,.0f} hands/s; " + "; ".join(
            f"{n}: parallel_env {g[0]:,.0f} hands/s ({g[0] / riichi:.2f}x, {1e6 / g[2]:.2f} us/step), "
            f"vector_env(64) {g[1]:,.0f} hands/s ({g[1] / riichi:.2f}x, {1e6 / g[3]:.2f} us/table-step)"
            for n, g in got.items()), flush=True)
    print(f"\n{a.repeats} repeats, per CPU second; ratio = mjenv hands/s / RiichiEnv hands/s of the same repeat")
    print("| tree | parallel_env / RiichiEnv | vector_env(64) / RiichiEnv | parallel_env us/step (best) | "
          "vector_env(64) us/table-step (best) |")
    print("|---|---|---|---|---|")
    for name, _, _ in trees:
        lean = [g[name][0] / riichi for _, riichi, g in rows]
        vec = [g[name][1] / riichi for _, riichi, g in rows]
        print(f"| {name} | {min(lean):.2f}-{max(lean):.2f}x (median {sorted(lean)[len(lean) // 2]:.2f}x) | "
              f"{min(vec):.2f}-{max(vec):.2f}x (median {sorted(vec)[len(vec) // 2]:.2f}x) | "
              f"{1e6 / max(g[name][2] for *_, g in rows):.2f} | {1e6 / max(g[name][3] for *_, g in rows):.2f} |")


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
    p.add_argument("--peers", action="store_true", help="RiichiEnv, the lean loop and vector_env(64), every repeat")
    a = p.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    if a.numpy:
        env["MJENV_NO_KERNEL"] = "1"
    if a.peers:
        _peers(a, [(name, os.path.abspath(py) if os.sep in py else py, os.path.abspath(tree))
                   for name, py, tree in (("old", a.old_python, a.old), ("new", a.new_python, a.new))], env)
        return
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
                if k != "steps per hand":
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
