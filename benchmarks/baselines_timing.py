"""Decision time of the baseline agents on the same positions (ratios against GreedyAgent).

Positions: every decision with more than one legal action met by the seats of greedy self-play hands
(seeded). Each agent decides every position once; the script prints mean / p50 / p95 / max ms per
decision and the ratio of its mean to GreedyAgent's mean, measured in the same run.

    .venv/bin/python benchmarks/baselines_timing.py --hands 6 --agents random greedy flatmc flatmc:sp
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.registry import make_agent


def collect_positions(hands: int, seed: int, rules: str = "basic") -> list[dict]:
    """Observation dicts of every real decision (more than one legal action) in greedy self-play."""
    from mjenv.game import Game
    from mjenv.observation import ObservationSpec

    spec = ObservationSpec(rules=rules)
    agents = [GreedyAgent(seed=s, rules=rules) for s in range(4)]
    out = []
    for h in range(hands):
        g = Game(rules=rules, seed=seed + h)
        while not g.is_over:
            actions = {}
            for seat in g.acting_seats():
                obs = {"observation": spec.encode(g, seat), "action_mask": g.legal_action_mask(seat)}
                if obs["action_mask"].sum() > 1:
                    out.append(obs)
                actions[seat] = agents[seat].act(obs)
            g.step(actions)
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=6, help="greedy self-play hands to take positions from")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--agents", nargs="+", default=["random", "greedy", "flatmc", "flatmc:sp"])
    args = p.parse_args(argv)
    positions = collect_positions(args.hands, args.seed)
    print(f"{len(positions)} positions from {args.hands} greedy self-play hands (2-core shared machine)")
    rows = []
    for spec in args.agents:
        agent = make_agent(spec, seed=0)
        agent.act(positions[0])  # warm-up: lookup tables, imports
        times = []
        for obs in positions:
            t0 = time.perf_counter()
            agent.act(obs)
            times.append(time.perf_counter() - t0)
        rows.append((spec, 1000 * np.array(times)))
    base = next((t.mean() for s, t in rows if s == "greedy"), None)
    print(f"{'agent':<34} {'mean ms':>9} {'p50':>8} {'p95':>8} {'max':>8} {'x greedy':>9}")
    for spec, t in rows:
        ratio = f"{t.mean() / base:9.1f}" if base else "      n/a"
        print(f"{spec:<34} {t.mean():9.2f} {np.median(t):8.2f} {np.percentile(t, 95):8.2f} {t.max():8.1f} {ratio}")


if __name__ == "__main__":
    main()
