"""``mjenv train ppo ...`` and ``mjenv train bc ...``: the training scripts from the ``mjenv`` command.

Registered with :func:`mjenv.cli.register_command` when ``mjenv.cli`` loads its plugins (this module is
listed there and needs torch, the ``train`` extra). Everything after ``ppo`` / ``bc`` is passed to the
script's own parser, so ``mjenv train ppo --help`` lists the ``Args`` fields with their docstrings.
"""

from __future__ import annotations

import argparse
import sys

import torch  # noqa: F401  (the train extra: without torch, mjenv.cli skips this plugin)

from mjenv.cli import register_command


def _build(parser: argparse.ArgumentParser):
    parser.add_argument("algorithm", choices=["ppo", "bc"],
                        help="ppo: masked PPO self-play (train_ppo); bc: behaviour cloning (train_bc)")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="the script's options (see mjenv train ppo --help)")

    def handler(args: argparse.Namespace) -> int:
        if args.algorithm == "ppo":
            from mjenv.baselines.train_ppo import main
        else:
            from mjenv.baselines.train_bc import main
        try:
            main(list(args.options))
        except ValueError as exc:  # bad options (as mjenv eval): one line, no traceback
            print(f"mjenv: error: {exc}", file=sys.stderr)
            return 2
        return 0

    return handler


register_command("train", "train a policy: 'mjenv train ppo ...' or 'mjenv train bc ...' (needs the train extra)",
                 _build)
