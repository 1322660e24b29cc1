"""Multi-agent PPO with Ray RLlib: one shared action-masked policy plays all four seats.

Needs ``pip install 'mjenv[rllib]'`` (RLlib pins gymnasium 1.2.2). Run::

    python examples/rllib_ppo.py                    # 2 iterations of 512 env-runner steps each
    python examples/rllib_ppo.py --iterations 50 --shaping deficiency
    python examples/rllib_ppo.py --help

The shaping (``--shaping deficiency``) is applied by the adapter between each seat's consecutive
decisions with PPO's own ``--gamma`` (``ppo_config(gamma=...)`` hands the same value to the env), so it
stays potential-based in each seat's decision process (see ``mjenv.wrappers.rllib``). The trained
network is the same PolicyNet as mjenv's PPO script, so it is saved as a PolicyAgent checkpoint that
``mjenv eval policy:runs/rllib_policy.pt greedy greedy greedy`` can evaluate; ``--eval-deals`` does a
short evaluation against three greedy agents at the end.
"""

from __future__ import annotations

import argparse

from mjenv.shaping import SHAPINGS

#: --shaping values: "none" plus every shaping of mjenv.shaping (the one list)
SHAPING_CHOICES = ["none", *(s for s in SHAPINGS if s is not None)]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--iterations", type=int, default=2, help="PPO iterations (default: %(default)s)")
    p.add_argument("--train-batch-size", type=int, default=512,
                   help="env-runner steps per iteration (default: %(default)s)")
    p.add_argument("--shaping", default="none", choices=SHAPING_CHOICES,
                   help="potential-based shaping applied by the adapter (default: %(default)s)")
    p.add_argument("--gamma", type=float, default=0.99,
                   help="PPO's discount per decision, also the adapter's shaping gamma (default: %(default)s)")
    p.add_argument("--torch-threads", type=int, default=1, help="torch intra-op threads (default: %(default)s)")
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs for the local Ray (default: %(default)s)")
    p.add_argument("--out", default="runs/rllib_policy.pt", help="policy checkpoint path (default: %(default)s)")
    p.add_argument("--eval-deals", type=int, default=0,
                   help="duplicate deals against three greedy agents at the end, 0 = none (default: %(default)s)")
    args = p.parse_args(argv)
    for name in ("iterations", "train_batch_size", "torch_threads", "num_cpus"):
        if getattr(args, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be a positive int, got {getattr(args, name)}")
    if args.eval_deals < 0:
        raise ValueError(f"--eval-deals must be 0 or more, got {args.eval_deals}")
    if not 0.0 < args.gamma <= 1.0:
        raise ValueError(f"--gamma must be in (0, 1], got {args.gamma}")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import ray
    import torch
    from mjenv.wrappers.rllib import policy_agent_from_module, ppo_config

    torch.set_num_threads(args.torch_threads)
    ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    # point ray.init at a cluster address and raise num_env_runners to scale out
    shaping = None if args.shaping == "none" else args.shaping
    config = ppo_config(train_batch_size=args.train_batch_size, minibatch_size=min(128, args.train_batch_size),
                        num_epochs=2, num_env_runners=0, gamma=args.gamma, env_config={"shaping": shaping})
    algo = config.build_algo()
    for it in range(args.iterations):
        result = algo.train()
        runners, learner = result["env_runners"], result["learners"]["shared"]
        print(f"iteration {it + 1}: env steps {runners['num_env_steps_sampled_lifetime']:.0f}, "
              f"episodes {runners.get('num_episodes_lifetime', 0):.0f}, policy loss {learner['policy_loss']:+.4f}, "
              f"entropy {learner['entropy']:.3f}")
    agent = policy_agent_from_module(algo.get_module("shared"))
    print("saved", agent.save(args.out))
    algo.stop()
    ray.shutdown()
    if args.eval_deals:
        from mjenv.baselines.evaluate import evaluate

        report = evaluate([f"policy:{args.out}", "greedy", "greedy", "greedy"], args.eval_deals, 434_343,
                          labels=["rllib", "greedy", "greedy", "greedy"], progress=False)
        print(report.table())


if __name__ == "__main__":
    main()
