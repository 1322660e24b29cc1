"""Multi-agent PPO with Ray RLlib: one shared action-masked policy plays all four seats.

Needs ``pip install 'mjenv[rllib]'`` (RLlib pins gymnasium 1.2.2). Run:
``python examples/rllib_ppo.py [iterations]`` (default 2; each samples 512 env steps). The trained
network is the same PolicyNet as mjenv's PPO script, so it is saved as a PolicyAgent checkpoint that
``mjenv eval policy:runs/rllib_policy.pt greedy greedy greedy`` can evaluate.
"""

from __future__ import annotations

import sys

import ray
from mjenv.wrappers.rllib import policy_agent_from_module, ppo_config


def main(iterations: int = 2) -> None:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    # point ray.init at a cluster address and raise num_env_runners to scale out
    algo = ppo_config(train_batch_size=512, minibatch_size=128, num_epochs=2, num_env_runners=0).build_algo()
    for it in range(iterations):
        result = algo.train()
        runners, learner = result["env_runners"], result["learners"]["shared"]
        print(f"iteration {it + 1}: env steps {runners['num_env_steps_sampled_lifetime']:.0f}, "
              f"episodes {runners['num_episodes_lifetime']:.0f}, policy loss {learner['policy_loss']:+.4f}, "
              f"entropy {learner['entropy']:.3f}")
    agent = policy_agent_from_module(algo.get_module("shared"))
    print("saved", agent.save("runs/rllib_policy.pt"))
    algo.stop()
    ray.shutdown()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
