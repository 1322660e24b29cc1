"""What ``observation="planes"`` costs per step against the flat observation, in the same run.

Two ``parallel_env`` of the same rule set, one flat and one with tile planes, play the same hands (same
seeds, same random legal actions chosen from the flat env's masks); their steps are timed in
alternating blocks of hands, which of the two goes first alternating too, so both see the same machine
load. Times are CPU seconds of this process (``time.process_time``). It also times the map alone
(:meth:`mjenv.planes.PlaneSpec.planes`) on one observation and on a batch of 256, with numpy and with
torch (what ``PolicyNet(trunk="cnn")`` runs).

Run: ``python benchmarks/planes_speed.py --hands 40 --repeats 3`` (about a minute per rule set).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from tqdm import tqdm

import mjenv
from mjenv.planes import plane_spec


def play_block(envs: list, first: int, seeds: list[int], rng_seed: int) -> tuple[float, float, int]:
    """Play the hands of ``seeds`` on both envs (``first`` of them first per hand); CPU seconds of each, steps."""
    spent = [0.0, 0.0]
    steps = 0
    for seed in seeds:
        actions: list[dict] = []
        for k in (first, 1 - first):
            env = envs[k]
            rng = np.random.default_rng(rng_seed + seed)
            obs, _ = env.reset(seed=seed)  # per step: the reset is not timed
            i = 0
            while env.agents:
                if k == first:  # the first env chooses the actions, the second replays them
                    act = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()
                           if a in env.agents}  # sichuan: a seat that has won leaves
                    actions.append(act)
                else:
                    act = actions[i]
                t0 = time.process_time()
                obs, *_ = env.step(act)
                spent[k] += time.process_time() - t0
                i += 1
            if k == first:
                steps += i
    return spent[0], spent[1], steps


def map_cost(rules: str, reps: int = 200) -> dict[str, float]:
    """Microseconds of the flat -> planes map per observation: one at a time and in a batch of 256."""
    spec = plane_spec(rules)
    env = mjenv.parallel_env(rules=rules)
    obs, _ = env.reset(seed=0)
    one = obs["player_0"]["observation"]
    batch = np.repeat(one[None], 256, axis=0)
    out = {}
    t0 = time.process_time()
    for _ in range(reps):
        spec.planes(one)
    out["numpy, 1"] = 1e6 * (time.process_time() - t0) / reps
    t0 = time.process_time()
    for _ in range(reps // 10):
        spec.planes(batch)
    out["numpy, batch 256"] = 1e6 * (time.process_time() - t0) / (reps // 10) / 256
    try:
        import torch

        torch.set_num_threads(1)
        tb = torch.as_tensor(batch)
        spec.planes(tb)
        t0 = time.process_time()
        for _ in range(reps // 10):
            spec.planes(tb)
        out["torch, batch 256"] = 1e6 * (time.process_time() - t0) / (reps // 10) / 256
    except ImportError:
        pass
    return out


def main(argv: list[str] | None = None) -> str:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rules", default="basic,honours,sichuan,taiwan16", help="rule sets, comma separated")
    p.add_argument("--hands", type=int, default=40, help="hands per repeat (default 40)")
    p.add_argument("--repeats", type=int, default=3, help="repeats (default 3): the range is reported")
    p.add_argument("--block", type=int, default=5, help="hands per alternating block (default 5)")
    p.add_argument("--seed", type=int, default=0, help="seed of the hands and actions (default 0)")
    args = p.parse_args(argv)
    rows = ["| rules | flat, ms/step | planes, ms/step | planes / flat (range over repeats) | map alone, µs/obs "
            "(numpy 1; numpy batch 256; torch batch 256) |", "|---|---|---|---|---|"]
    for rules in [r.strip() for r in args.rules.split(",") if r.strip()]:
        envs = [mjenv.parallel_env(rules=rules), mjenv.parallel_env(rules=rules, observation="planes")]
        flat_ms, plane_ms, ratios = [], [], []
        for rep in tqdm(range(args.repeats), desc=rules, unit="repeat"):
            seeds = list(range(args.seed + rep * args.hands, args.seed + (rep + 1) * args.hands))
            a = b = 0.0
            n = 0
            for i, lo in enumerate(range(0, len(seeds), args.block)):
                ta, tb, steps = play_block(envs, i % 2, seeds[lo:lo + args.block], args.seed)
                a, b, n = a + ta, b + tb, n + steps
            flat_ms.append(1000 * a / n)
            plane_ms.append(1000 * b / n)
            ratios.append(b / a)
        cost = map_cost(rules)
        rows.append(f"| {rules} | {np.median(flat_ms):.3f} | {np.median(plane_ms):.3f} | {np.median(ratios):.2f}x "
                    f"({min(ratios):.2f}-{max(ratios):.2f}) | " + "; ".join(f"{v:.1f}" for v in cost.values()) + " |")
    table = "\n".join(rows)
    print(table)
    return table


if __name__ == "__main__":
    main()
