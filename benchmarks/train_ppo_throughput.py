"""Env steps per second of ``mjenv train ppo`` end to end, and where its time goes; the bare env as the peer.

The training script runs unchanged (``baselines/train_ppo.py``'s ``main``, one torch thread) while a
few of its calls are timed by wrapping them:

* **env**: ``MahjongVectorEnv.step`` (game transitions, the deficiency features, observations);
* **opponents**: the baseline agents' ``act`` (random / greedy decisions of the non-learning seats);
* **inference**: ``PolicyNet.forward`` without gradients (the learner's actions during the rollout and
  the bootstrap values), of which **action features** is the numpy part of the network's input;
* **update**: ``PolicyNet.forward`` with gradients, ``backward`` and the optimiser steps (the PPO
  epochs);
* **bookkeeping**: checkpoints and the learning-curve plot.

In the same run the peer is the bare vector env with the same number of tables, stepped with uniformly
random legal actions for every seat (no learner, no opponents' decisions): the ratio says how much of
the env's own speed training keeps. Times are CPU seconds of this process (``time.process_time``): the
machine may be shared, and wall time then mostly measures the other processes.

Run: ``python benchmarks/train_ppo_throughput.py --steps 65536 --opponents random,greedy``
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import defaultdict

import numpy as np
import torch

SPENT: dict[str, float] = defaultdict(float)


def timed(name: str, fn, split_grad: bool = False):
    def wrapper(*args, **kwargs):
        key = name if not split_grad else (f"{name}_grad" if torch.is_grad_enabled() else name)
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[key] += time.process_time() - t0

    return wrapper


def patch() -> None:
    """Wrap the timed calls (the classes' methods, so the script's own objects are timed)."""
    import mjenv.baselines.train_bc as train_bc
    import mjenv.baselines.train_ppo as train_ppo
    from mjenv.baselines._common import Agent
    from mjenv.baselines.policy import PolicyNet

    from mjenv.vector import MahjongVectorEnv

    MahjongVectorEnv.step = timed("env", MahjongVectorEnv.step)
    Agent.act = timed("opponents", Agent.act)
    PolicyNet.forward = timed("inference", PolicyNet.forward, split_grad=True)
    PolicyNet.action_features = timed("action_features", PolicyNet.action_features, split_grad=True)
    torch.Tensor.backward = timed("backward", torch.Tensor.backward)
    torch.optim.Adam.step = timed("optimizer", torch.optim.Adam.step)
    train_ppo.plot_curve = timed("bookkeeping_plot", train_bc.plot_curve)
    torch.save = timed("bookkeeping_save", torch.save)


def bare_env(num_envs: int, steps: int, seed: int) -> float:
    """CPU seconds per env step of the vector env alone, random legal actions for every seat."""
    import mjenv

    venv = mjenv.vector_env(num_envs)
    obs, _ = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = steps // num_envs
    t0 = time.process_time()
    for _ in range(n):
        m = obs["action_mask"]
        # a random legal action per seat: argmax of random keys over the legal ones
        actions = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=2)
        obs, *_ = venv.step(actions)
    return (time.process_time() - t0) / (n * num_envs)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=65_536, help="env steps of training (default: %(default)s)")
    p.add_argument("--opponents", default="random,greedy", help="train_ppo's --opponents (default: %(default)s)")
    p.add_argument("--shaping", default="deficiency", help="train_ppo's --shaping (default: %(default)s)")
    p.add_argument("--num-envs", type=int, default=16, help="train_ppo's --num-envs (default: %(default)s)")
    p.add_argument("--env-steps", type=int, default=16_384, help="env steps of the bare env (default: %(default)s)")
    args = p.parse_args(argv)
    if args.steps < 2048 or args.env_steps < args.num_envs:
        raise ValueError("--steps must be at least 2048 and --env-steps at least --num-envs")
    torch.set_num_threads(1)
    patch()
    from mjenv.baselines import train_ppo

    with tempfile.TemporaryDirectory() as out:
        t0, w0 = time.process_time(), time.time()
        train_ppo.main(["--total-timesteps", str(args.steps), "--opponents", args.opponents, "--shaping", args.shaping,
                        "--num-envs", str(args.num_envs), "--eval-hands", "0", "--torch-threads", "1",
                        "--no-progress", "--no-tensorboard", "--out-dir", out])
        cpu, wall = time.process_time() - t0, time.time() - w0
    steps = (args.steps // (args.num_envs * 128)) * args.num_envs * 128
    env_only = bare_env(args.num_envs, args.env_steps, seed=1)
    parts = {
        "env (vector env step)": SPENT["env"],
        "opponents' decisions": SPENT["opponents"],
        "inference (no grad), of which:": SPENT["inference"],
        "  action features (numpy)": SPENT["action_features"],
        "update: forward with grad, of which:": SPENT["inference_grad"],
        "  action features (numpy) ": SPENT["action_features_grad"],
        "update: backward": SPENT["backward"],
        "update: optimiser": SPENT["optimizer"],
        "bookkeeping (checkpoints, plot)": SPENT["bookkeeping_plot"] + SPENT["bookkeeping_save"],
    }
    top = [k for k in parts if not k.startswith("  ")]
    parts["rest (rollout loop, GAE, batching)"] = cpu - sum(parts[k] for k in top)
    print(f"mjenv train ppo --opponents {args.opponents} --shaping {args.shaping} --num-envs {args.num_envs}: "
          f"{steps} env steps")
    print(f"end to end: {steps / cpu:,.0f} env steps per CPU-second ({steps / wall:,.0f} per wall second, "
          "the machine's load included)")
    print("| part | CPU s | share |\n|---|---|---|")
    for k, v in parts.items():
        print(f"| {k} | {v:.1f} | {v / cpu:.0%} |")
    print(f"bare vector env (random actions, same {args.num_envs} tables): {1 / env_only:,.0f} env steps "
          "per CPU-second")
    print(f"ratio training / bare env: {(steps / cpu) * env_only:.2f}")


if __name__ == "__main__":
    main()
