"""Env steps per CPU-second of ``mjenv train ppo`` end to end, before (an older commit) and after (this tree).

**Before / after** (the default): the same command, ``mjenv train ppo --total-timesteps STEPS --opponents
random,greedy --shaping deficiency --num-envs 16 --eval-hands 0 --torch-threads 1 --no-progress
--no-tensorboard`` (``--torch-threads`` is the older name of ``--num-threads``, which both trees take), run
as a fresh process by each tree's own interpreter, the two trees alternately, ``--repeats`` times. A run's
CPU time is the child's user + system time (``resource.getrusage(RUSAGE_CHILDREN)``): everything the
command does, start-up, imports, checkpoints and plots included. The older tree is a temporary git
worktree at ``--base`` with its own venv (removed afterwards).

**Parts** (``--parts``): where this tree's time goes, the training script run in this process with a
few calls timed by wrapping them:

* **env**: ``MahjongVectorEnv.step``;
* **opponents**: the baseline agents' decisions (``act_rows``, or ``Agent.act`` one seat at a time);
* **inference**: ``PolicyNet.forward`` without gradients (the learner's actions during the rollout and
  the bootstrap values), of which **action features** is the per-action feature block;
* **update**: ``PolicyNet.forward`` with gradients, ``backward`` and the optimiser steps;
* **bookkeeping**: checkpoints and the learning-curve plot.

The peer there is the bare vector env with the same number of tables, random legal actions for every
seat. Times are CPU seconds (``time.process_time``): the machine may be shared.

Run: ``python benchmarks/train_ppo_throughput.py --steps 65536 --repeats 3`` and
``python benchmarks/train_ppo_throughput.py --parts --steps 65536``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as ``python benchmarks/<script>.py``: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._base_tree import BASE_COMMIT, ROOT, base_tree  # noqa: E402

SPENT: dict[str, float] = defaultdict(float)


def command(steps: int, opponents: str, shaping: str, num_envs: int, out_dir: str) -> list[str]:
    """``mjenv train ppo``'s arguments, the same for both trees."""
    return ["--total-timesteps", str(steps), "--opponents", opponents, "--shaping", shaping,
            "--num-envs", str(num_envs), "--eval-hands", "0", "--torch-threads", "1",
            "--no-progress", "--no-tensorboard", "--out-dir", out_dir]


def trained_steps(steps: int, num_envs: int) -> int:
    """Env steps the command makes: whole rollouts of ``num_envs * 128`` steps."""
    return max(1, steps // (num_envs * 128)) * num_envs * 128


def run_tree(python: str, tree: str, args: list[str]) -> tuple[float, float]:
    """One fresh ``python -m mjenv.baselines.train_ppo ARGS`` in ``tree``: (CPU seconds, wall seconds)."""
    env = {**os.environ, "PYTHONPATH": tree, "OMP_NUM_THREADS": "1"}
    before, w0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
    out = subprocess.run([python, "-m", "mjenv.baselines.train_ppo", *args], capture_output=True, text=True,
                         env=env, cwd=tree)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.time() - w0
    if out.returncode != 0:
        raise RuntimeError(f"{python} in {tree} failed:\n{out.stderr[-3000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def before_after(args) -> None:
    steps = trained_steps(args.steps, args.num_envs)
    rates: dict[str, list[float]] = {"before": [], "after": []}
    walls: dict[str, list[float]] = {"before": [], "after": []}
    with base_tree(args.base, args.base_python, args.base_tree) as (old_tree, old_python):
        trees = {"before": (old_python, old_tree), "after": (sys.executable, str(ROOT))}
        for _ in range(args.repeats):
            for name, (python, tree) in trees.items():
                with tempfile.TemporaryDirectory() as out:
                    cpu, wall = run_tree(python, tree, command(args.steps, args.opponents, args.shaping,
                                                                args.num_envs, out))
                rates[name].append(steps / cpu)
                walls[name].append(steps / wall)
                print(f"  {name}: {steps / cpu:,.0f} env steps per CPU-second ({cpu:.1f} CPU s, {wall:.1f} s wall)",
                      file=sys.stderr, flush=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"mjenv train ppo {' '.join(command(args.steps, args.opponents, args.shaping, args.num_envs, 'OUT'))}")
    print(f"{steps} env steps; before = {args.base}, after = {commit}; env steps per CPU-second of the whole "
          f"process, {args.repeats} runs each, alternately")
    print("| tree | median | range | per wall second (median) |\n|---|---|---|---|")
    for name in rates:
        print(f"| {name} | {statistics.median(rates[name]):,.0f} | {min(rates[name]):,.0f}-{max(rates[name]):,.0f} | "
              f"{statistics.median(walls[name]):,.0f} |")
    print(f"after / before: {statistics.median(rates['after']) / statistics.median(rates['before']):.2f}x "
          f"(median over median; pairwise {min(a / b for a, b in zip(rates['after'], rates['before'])):.2f}-"
          f"{max(a / b for a, b in zip(rates['after'], rates['before'])):.2f}x)")


def timed(name: str, fn, split_grad: bool = False):
    import torch

    def wrapper(*args, **kwargs):
        key = name if not split_grad else (f"{name}_grad" if torch.is_grad_enabled() else name)
        t0 = time.process_time()
        try:
            return fn(*args, **kwargs)
        finally:
            SPENT[key] += time.process_time() - t0

    return wrapper


def patch() -> None:
    """Wrap the timed calls (the classes' methods and the script's names, so its own objects are timed)."""
    import mjenv.baselines.train_bc as train_bc
    import mjenv.baselines.train_ppo as train_ppo
    import torch
    from mjenv.baselines._common import Agent
    from mjenv.baselines.policy import PolicyNet

    from mjenv.vector import MahjongVectorEnv

    MahjongVectorEnv.step = timed("env", MahjongVectorEnv.step)
    if hasattr(train_ppo, "act_rows"):
        train_ppo.act_rows = timed("opponents", train_ppo.act_rows)
    else:  # a tree whose opponents decide one seat at a time
        Agent.act = timed("opponents", Agent.act)
    PolicyNet.forward = timed("inference", PolicyNet.forward, split_grad=True)
    PolicyNet.action_features = timed("action_features", PolicyNet.action_features, split_grad=True)
    torch.Tensor.backward = timed("backward", torch.Tensor.backward)
    torch.optim.Adam.step = timed("optimizer", torch.optim.Adam.step)
    try:  # a tree whose trainer steps its own Adam (the same algorithm without torch.optim's start-up)
        from mjenv.baselines.optim import Adam

        Adam.step = timed("optimizer", Adam.step)
    except ImportError:
        pass
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


def parts(args) -> None:
    import torch

    torch.set_num_threads(1)
    patch()
    from mjenv.baselines import train_ppo

    with tempfile.TemporaryDirectory() as out:
        t0, w0 = time.process_time(), time.time()
        train_ppo.main(command(args.steps, args.opponents, args.shaping, args.num_envs, out))
        cpu, wall = time.process_time() - t0, time.time() - w0
    steps = trained_steps(args.steps, args.num_envs)
    env_only = bare_env(args.num_envs, args.env_steps, seed=1)
    rows = {
        "env (vector env step)": SPENT["env"],
        "opponents' decisions": SPENT["opponents"],
        "inference (no grad), of which:": SPENT["inference"],
        "  action features": SPENT["action_features"],
        "update: forward with grad": SPENT["inference_grad"],
        "update: backward": SPENT["backward"],
        "update: optimiser": SPENT["optimizer"],
        "bookkeeping (checkpoints, plot)": SPENT["bookkeeping_plot"] + SPENT["bookkeeping_save"],
    }
    top = [k for k in rows if not k.startswith("  ")]
    rows["rest (rollout loop, GAE, batching, start-up in main)"] = cpu - sum(rows[k] for k in top)
    print(f"mjenv train ppo --opponents {args.opponents} --shaping {args.shaping} --num-envs {args.num_envs}: "
          f"{steps} env steps, in this process from main() on (imports of the script before it not counted)")
    print(f"{steps / cpu:,.0f} env steps per CPU-second ({steps / wall:,.0f} per wall second, the machine's load "
          "included)")
    print("| part | CPU s | share |\n|---|---|---|")
    for k, v in rows.items():
        print(f"| {k} | {v:.1f} | {v / cpu:.0%} |")
    print(f"bare vector env (random actions, same {args.num_envs} tables): {1 / env_only:,.0f} env steps "
          "per CPU-second")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=65_536, help="env steps of training (default: %(default)s)")
    p.add_argument("--opponents", default="random,greedy", help="train_ppo's --opponents (default: %(default)s)")
    p.add_argument("--shaping", default="deficiency", help="train_ppo's --shaping (default: %(default)s)")
    p.add_argument("--num-envs", type=int, default=16, help="train_ppo's --num-envs (default: %(default)s)")
    p.add_argument("--repeats", type=int, default=3, help="runs of each tree (default: %(default)s)")
    p.add_argument("--base", default=BASE_COMMIT, help="the 'before' commit (default: %(default)s)")
    p.add_argument("--base-python", help="an installed 'before' tree's interpreter (with --base-tree)")
    p.add_argument("--base-tree", help="an installed 'before' tree (with --base-python)")
    p.add_argument("--parts", action="store_true", help="instead: where this tree's time goes, in this process")
    p.add_argument("--env-steps", type=int, default=16_384, help="--parts: env steps of the bare env (default: "
                   "%(default)s)")
    args = p.parse_args(argv)
    if args.steps < 2048 or args.env_steps < args.num_envs or args.repeats < 1:
        raise ValueError("--steps must be at least 2048, --env-steps at least --num-envs, --repeats at least 1")
    if args.parts:
        parts(args)
    else:
        before_after(args)


if __name__ == "__main__":
    main()
