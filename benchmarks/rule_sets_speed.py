"""Env steps per CPU-second of the shared rule sets, in the same run: basic against sichuan and taiwan16.

Two loops per rule set, each in this one process, with masked-random actions:

* ``parallel_env`` lean loop: ``mjenv.parallel_env(rules=...)``, one action per live agent whose
  ``infos[agent]["needs_action"]`` is true (the others left out take their only legal action);
  steps are calls of ``env.step``.
* ``vector_env(N)``: ``mjenv.vector_env(N, rules=...)``, every seat's action from its mask; steps are
  table-steps (N per call).

CPU seconds are ``time.process_time()``. Each repeat measures every rule set once (in turn), so the
ratios to basic compare runs that shared the machine's load; the table gives each rule set's range over
the repeats and the range of its per-repeat ratio to basic.

Usage::

    python benchmarks/rule_sets_speed.py --hands 200 --table-steps 40000 --repeats 3
    python benchmarks/rule_sets_speed.py --engine python   # the Python engine, for comparison
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.peers_speed import run_single  # noqa: E402  (the lean loop, the same as the peers' benchmark)

RULES = ("basic", "sichuan", "taiwan16")


def lean(rules: str, hands: int, seed: int, engine: str) -> tuple[float, int, str]:
    """(CPU seconds, steps, engine) of ``hands`` hands of the parallel env's lean loop (``peers_speed.py``'s)."""
    import mjenv

    run_single(2, seed, rules=rules, engine=engine)  # warm-up: tables and memos of first use
    t0 = time.process_time()
    _, steps = run_single(hands, seed, rules=rules, engine=engine)
    return time.process_time() - t0, steps, mjenv.parallel_env(rules=rules, engine=engine).engine


def vector(rules: str, num_envs: int, table_steps: int, seed: int, engine: str) -> tuple[float, int, str]:
    """(CPU seconds, table-steps, engine) of ``table_steps`` table-steps of ``vector_env(num_envs)``."""
    import mjenv

    venv = mjenv.vector_env(num_envs, rules=rules, engine=engine)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)

    def step(obs):
        m = obs["action_mask"]
        return venv.step(np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1))[0]

    for _ in range(5):  # warm-up
        obs = step(obs)
    calls = max(1, table_steps // num_envs)
    t0 = time.process_time()
    for _ in range(calls):
        obs = step(obs)
    return time.process_time() - t0, calls * num_envs, venv.engine


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=200, help="hands of the lean loop per rule set and repeat")
    p.add_argument("--table-steps", type=int, default=40_000, help="table-steps of vector_env per rule set")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--engine", default="auto", choices=("auto", "compiled", "python"))
    a = p.parse_args(argv)
    loops = (("parallel_env lean loop", lambda r, s: lean(r, a.hands, s, a.engine)),
             (f"vector_env({a.num_envs})", lambda r, s: vector(r, a.num_envs, a.table_steps, s, a.engine)))
    rates: dict[tuple[str, str], list[float]] = {}
    engines: dict[tuple[str, str], str] = {}
    with tqdm(total=a.repeats * len(loops) * len(RULES), desc="runs") as bar:
        for rep in range(a.repeats):
            for name, fn in loops:
                for rules in RULES:
                    dt, steps, eng = fn(rules, a.seed + 1000 * rep)
                    rates.setdefault((name, rules), []).append(steps / dt)
                    engines[name, rules] = eng
                    bar.update()
    print(f"env steps per CPU-second, {a.repeats} repeats (range over repeats); ratio to basic per repeat")
    print("| loop | rules | engine | steps/CPU-s | ratio to basic |\n|---|---|---|---|---|")
    for name, _ in loops:
        base = rates[name, "basic"]
        for rules in RULES:
            r = rates[name, rules]
            ratio = [x / b for x, b in zip(r, base)]
            print(f"| {name} | {rules} | {engines[name, rules]} | {min(r):,.0f} - {max(r):,.0f} "
                  f"| {min(ratio):.2f} - {max(ratio):.2f} |")


if __name__ == "__main__":
    main()
