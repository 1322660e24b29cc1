"""Masked PPO self-play with mjenv's own script, starting from the shipped policy, then an evaluation.

Run: ``python examples/ppo_selfplay.py`` (a tiny budget: about a minute). The same run from the command
line is ``mjenv train ppo --init <pretrained> --total-timesteps 2048 ...`` or
``python -m mjenv.baselines.train_ppo --help`` for every option.
"""

from __future__ import annotations

from mjenv.baselines import train_ppo
from mjenv.baselines.policy import pretrained_path


def main() -> None:
    policy = train_ppo.main([
        "--init", str(pretrained_path()),     # warm start (behaviour cloning of the greedy agent)
        "--total-timesteps", "2048",          # 2 updates of 8 games x 128 steps
        "--num-envs", "8",
        "--opponents", "self,greedy,past",    # opponent pool: self-play, baselines, past snapshots
        "--shaping", "deficiency",            # potential-based shaping from the deficiency core
        "--eval-hands", "4",                  # 4 duplicate deals x 4 rotations against 3 greedy agents
        "--out-dir", "runs/example_ppo",
    ])
    print(f"policy: {policy}; logs, curve and evaluation tables in runs/example_ppo/")


if __name__ == "__main__":
    main()
