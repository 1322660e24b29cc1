"""Masked PPO self-play with mjenv's own script, starting from the shipped policy, then an evaluation.

Needs ``pip install "mjenv[train]"``. Run ``python examples/ppo_selfplay.py`` (the default budget, 2048
env steps, takes about a minute on one core) or ``python examples/ppo_selfplay.py --help``. The same
run from the command line is ``mjenv train ppo --init <pretrained> --total-timesteps 2048 ...``;
``mjenv train ppo --help`` lists every option.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-timesteps", type=int, default=2048,
                   help="env steps to train for, summed over the games (default 2048: two updates)")
    p.add_argument("--num-envs", type=int, default=8, help="games stepped together (default 8)")
    p.add_argument("--num-steps", type=int, default=128, help="env steps per game per update (default 128)")
    p.add_argument("--eval-deals", type=int, default=4,
                   help="duplicate deals against three greedy agents at the end, each played in the four seat "
                        "rotations (default 4 = 16 hands; 0 skips the evaluation)")
    p.add_argument("--torch-threads", type=int, default=1,
                   help="torch intra-op threads (default 1: small networks run fastest on one thread)")
    p.add_argument("--out-dir", default="runs/example_ppo", help="folder for the logs (default runs/example_ppo)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    # imported after parsing, so --help answers without loading torch
    from mjenv.baselines import train_ppo
    from mjenv.baselines.policy import pretrained_path

    policy = train_ppo.main([
        # warm start: the shipped policy (behaviour cloning of the greedy agent, then of flat Monte
        # Carlo decisions; see research/notes/TRAINING.md)
        "--init", str(pretrained_path()),
        "--total-timesteps", str(args.total_timesteps),
        "--num-envs", str(args.num_envs),
        "--num-steps", str(args.num_steps),
        "--opponents", "self,greedy,past",    # opponent pool: self-play, baselines, past snapshots
        "--shaping", "deficiency",            # potential-based shaping from the deficiency core
        "--eval-hands", str(args.eval_deals),  # the script's flag counts duplicate deals
        "--torch-threads", str(args.torch_threads),
        "--out-dir", args.out_dir,
        "--no-progress",
    ])
    print(f"policy: {policy}; logs and curve in {args.out_dir}/")
    tables = sorted(Path(args.out_dir).glob("eval/update_*/policy_vs_greedy.md"))
    if tables:
        print(f"\nthe policy against three greedy agents ({tables[-1]}):\n{tables[-1].read_text()}")


if __name__ == "__main__":
    main()
