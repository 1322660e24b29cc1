"""Hands/s of ``mjenv.vector_env(N)`` against a loop over N single ``mjenv.parallel_env()``s, same run.

Both play the same deals (table i seeded with seed + i) with masked uniformly random actions drawn
from one generator per table, so both do the same games' work; the only difference is that the
vector env observes all tables in one observation-writer call per step (one C call with the compiled
kernel, one batched feature evaluation on the numpy path).

Wall-clock rates and rates per CPU-second of this process are both printed: on a shared machine the
wall clock also counts time spent waiting for a core, CPU time does not.

Run: ``python benchmarks/vector_speed.py --num-envs 16 --hands 96``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import mjenv


def _random_actions(masks: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
    """int64[N, 4]: a uniformly random legal action per seat (masks int8[N, 4, A]), ``rng.choice`` per seat."""
    out = np.zeros(masks.shape[:2], dtype=np.int64)
    for i, rng in enumerate(rngs):
        for s in range(4):
            out[i, s] = rng.choice(np.flatnonzero(masks[i, s]))
    return out


def _batched_actions(masks: np.ndarray, rngs: list[np.random.Generator]) -> np.ndarray:
    """The same distribution drawn the way a batched policy samples: the legal action with the largest
    of i.i.d. uniforms (one draw per table, one argmax over all), so the harness costs little per step."""
    u = np.stack([rng.random(masks.shape[1:]) for rng in rngs])
    return np.argmax(np.where(masks > 0, u, -1.0), axis=-1)


SAMPLERS = {"choice": _random_actions, "batched": _batched_actions}


def run_vector(num_envs: int, hands: int, seed: int, rules: str, sample=_random_actions) -> tuple[float, int, int]:
    """(seconds, hands finished, env steps) for the vector env until ``hands`` hands ended."""
    venv = mjenv.vector_env(num_envs, rules=rules)
    rngs = [np.random.default_rng(seed + i) for i in range(num_envs)]
    t0 = time.perf_counter()
    obs, _ = venv.reset(seed=seed)
    done_hands = steps = 0
    while done_hands < hands:
        obs, _, term, _, _ = venv.step(sample(obs["action_mask"], rngs))
        done_hands += int(term.sum())
        steps += num_envs
    return time.perf_counter() - t0, done_hands, steps


def run_loop(num_envs: int, hands: int, seed: int, rules: str, sample=_random_actions) -> tuple[float, int, int]:
    """The same with a Python loop over ``num_envs`` single parallel envs."""
    envs = [mjenv.parallel_env(rules=rules) for _ in range(num_envs)]
    rngs = [np.random.default_rng(seed + i) for i in range(num_envs)]
    t0 = time.perf_counter()
    obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(envs)]
    done_hands = steps = 0
    while done_hands < hands:
        masks = np.stack([[o[a]["action_mask"] for a in e.possible_agents] for o, e in zip(obs, envs)])
        acts = sample(masks, rngs)
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
    p.add_argument("--repeats", type=int, default=2, help="alternate the contenders this many times")
    p.add_argument("--sampler", choices=sorted(SAMPLERS), default="choice",
                   help="how the harness draws random legal actions (the same for both contenders): "
                        "'choice' = rng.choice per seat (about 10 us each, counted in both), "
                        "'batched' = one vectorized draw per step, as a batched policy would")
    a = p.parse_args()
    # warm up: the deficiency core builds its lookup tables once per process (seconds); build them all
    # (KB = 4 - H and any KB) before either contender is timed, then play a hand with each
    from mjenv.deficiency import deficiency

    deficiency("123456789s1234m", method="dp")
    deficiency("123456789s1234m", "(111111111)(000000000)(111111111)", method="dp")
    run_loop(1, 1, a.seed + 999, a.rules)
    run_vector(1, 1, a.seed + 999, a.rules)
    rows = []
    for _ in range(a.repeats):
        for name, fn in (("loop of single envs", run_loop), ("vector_env", run_vector)):
            cpu = time.process_time()
            sec, hands, steps = fn(a.num_envs, a.hands, a.seed, a.rules, SAMPLERS[a.sampler])
            rows.append((name, hands / sec, steps / sec, hands / (time.process_time() - cpu)))
    print(f"num_envs={a.num_envs} hands>={a.hands} rules={a.rules} repeats={a.repeats} sampler={a.sampler}")
    print("| contender | hands/s (wall) | steps/s (wall) | hands per CPU-second | ratio vs loop (wall) | ratio (CPU) |")
    print("|---|---|---|---|---|---|")
    for k in range(0, len(rows), 2):
        base = rows[k]
        for name, hps, sps, cps in rows[k : k + 2]:
            print(f"| {name} | {hps:.1f} | {sps:.0f} | {cps:.1f} | {hps / base[1]:.2f}x | {cps / base[3]:.2f}x |")


if __name__ == "__main__":
    main()
