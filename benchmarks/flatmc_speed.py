"""Flat MC decision time: the compiled simulation against the numpy path, same positions, same run.

Positions: every decision with more than one legal action in seeded greedy self-play hands
(``baselines_timing.collect_positions``) of each rule set asked for. On each position both agents
are ``FlatMCAgent`` with the default settings (5,000 simulations, FP model, pruning, discard-twice
H2+H1, pre-filter) and the same seed, reseeded before every position, so both draw the same tiles and
must choose the same action (the script counts the positions where they do not; it should print 0):

* ``numpy``: ``engine="numpy"``, the path before this change (all simulations as arrays, the win
  check by the numpy ``dp`` core);
* ``compiled``: ``engine="auto"``, the simulation of ``baselines/_flatmc.c`` with the per-suit
  completeness table of ``mjenv/deficiency/_contains.h``.

Chunks of positions alternate which agent goes first, so both see the same machine load. Times are
CPU ms of this process per decision (``time.process_time``: the machine is shared) and wall ms; the
ratios numpy / compiled are the figures to read.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.flatmc_speed --hands 2
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from mjenv.baselines.flatmc import FlatMCAgent

from benchmarks.baselines_timing import collect_positions


def measure(rules: str, hands: int, seed: int, chunk: int) -> dict:
    positions = collect_positions(hands, seed, rules=rules)
    agents = {e: FlatMCAgent(seed=0, rules=rules, engine=e) for e in ("numpy", "auto")}
    for a in agents.values():  # warm-up: tables, imports
        a.reset(0)
        a.act(positions[0])
    spent = dict.fromkeys(agents, 0.0)
    wall = dict.fromkeys(agents, 0.0)
    chosen = {e: [] for e in agents}
    for c, lo in enumerate(range(0, len(positions), chunk)):
        part = positions[lo : lo + chunk]
        for e in list(agents)[:: 1 if c % 2 == 0 else -1]:
            agent = agents[e]
            t0, w0 = time.process_time(), time.perf_counter()
            for i, obs in enumerate(part):
                agent.reset(seed + lo + i)  # same draws for both engines on every position
                chosen[e].append(agent.act(obs))
            spent[e] += time.process_time() - t0
            wall[e] += time.perf_counter() - w0
    differ = int(np.sum(np.array(chosen["numpy"]) != np.array(chosen["auto"])))
    n = len(positions)
    return {"rules": rules, "positions": n, "numpy": 1000 * spent["numpy"] / n, "compiled": 1000 * spent["auto"] / n,
            "numpy_wall": 1000 * wall["numpy"] / n, "compiled_wall": 1000 * wall["auto"] / n,
            "differ": differ}  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=2, help="greedy self-play hands per rule set")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", nargs="+", default=["taiwan16", "basic", "sichuan"])
    p.add_argument("--chunk", type=int, default=10, help="positions per interleaved chunk")
    args = p.parse_args(argv)
    if args.hands < 1 or args.chunk < 1:
        raise ValueError("--hands and --chunk must be positive")
    print(f"flat MC, default settings; ms per decision (2-core shared machine); hands={args.hands} seed={args.seed}")
    print(f"{'rules':<10} {'positions':>9} {'numpy CPU':>10} {'compiled CPU':>13} {'ratio':>6} "
          f"{'numpy wall':>11} {'compiled wall':>14} {'ratio':>6} {'differ':>7}")  # fmt: skip
    for rules in args.rules:
        r = measure(rules, args.hands, args.seed, args.chunk)
        cpu, wall = r["numpy"] / r["compiled"], r["numpy_wall"] / r["compiled_wall"]
        print(f"{rules:<10} {r['positions']:>9} {r['numpy']:10.1f} {r['compiled']:13.1f} {cpu:6.2f} "
              f"{r['numpy_wall']:11.1f} {r['compiled_wall']:14.1f} {wall:6.2f} {r['differ']:>7}")  # fmt: skip


if __name__ == "__main__":
    main()
