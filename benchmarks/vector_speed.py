"""Hands/s of ``mjenv.vector_env(N)`` against a loop over N single ``mjenv.parallel_env()``s, same run.

Both play the same deals (table i seeded with seed + i) with masked uniformly random actions drawn
from one generator per table, so both do the same games' work; the only difference is that the
vector env computes the deficiency features of all tables in one batched engine call per step.

Run: ``python benchmarks/vector_speed.py --num-envs 16 --hands 96``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import mjenv


def _random_actions(masks: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
    """int64[N, 4]: a uniformly random legal action per seat (masks int8[N, 4, A])."""
    out = np.zeros(masks.shape[:2], dtype=np.int64)
    for i, rng in enumerate(rngs):
        for s in range(4):
            out[i, s] = rng.choice(np.flatnonzero(masks[i, s]))
    return out


def run_vector(num_envs: int, hands: int, seed: int, rules: str) -> tuple[float, int, int]:
    """(seconds, hands finished, env steps) for the vector env until ``hands`` hands ended."""
    venv = mjenv.vector_env(num_envs, rules=rules)
    rngs = [np.random.default_rng(seed + i) for i in range(num_envs)]
    t0 = time.perf_counter()
    obs, _ = venv.reset(seed=seed)
    done_hands = steps = 0
    while done_hands < hands:
        obs, _, term, _, _ = venv.step(_random_actions(obs["action_mask"], rngs))
        done_hands += int(term.sum())
        steps += num_envs
    return time.perf_counter() - t0, done_hands, steps


def run_loop(num_envs: int, hands: int, seed: int, rules: str) -> tuple[float, int, int]:
    """The same with a Python loop over ``num_envs`` single parallel envs."""
    envs = [mjenv.parallel_env(rules=rules) for _ in range(num_envs)]
    rngs = [np.random.default_rng(seed + i) for i in range(num_envs)]
    t0 = time.perf_counter()
    obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    done_hands = steps = 0
    while done_hands < hands:
        masks = np.stack([[o[a]["action_mask"] for a in e.possible_agents] for o, e in zip(obs, envs)])
        acts = _random_actions(masks, rngs)
        for i, e in enumerate(envs):
            o, _, term, _, _ = e.step({a: int(acts[i, s]) for s, a in enumerate(e.possible_agents)})
            if term["player_0"]:
                done_hands += 1
                o, _ = e.reset()
            obs[i] = o
        steps += num_envs
    return time.perf_counter() - t0, done_hands, steps


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--num-envs", type=int, default=16)
    p.add_argument("--hands", type=int, default=96, help="hands to finish per contender")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="basic")
    a = p.parse_args()
    rows = []
    for name, fn in (("loop of single envs", run_loop), ("vector_env", run_vector)):
        sec, hands, steps = fn(a.num_envs, a.hands, a.seed, a.rules)
        rows.append((name, hands / sec, steps / sec))
    base = rows[0][1]
    print(f"num_envs={a.num_envs} hands>={a.hands} rules={a.rules}")
    print("| contender | hands/s | steps/s | ratio vs loop |")
    print("|---|---|---|---|")
    for name, hps, sps in rows:
        print(f"| {name} | {hps:.1f} | {sps:.0f} | {hps / base:.2f}x |")


if __name__ == "__main__":
    main()
