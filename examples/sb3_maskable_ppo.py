"""Train one seat with sb3-contrib's MaskablePPO against three fixed agents, then play a few hands.

Needs ``pip install 'mjenv[train]'``. Run: ``python examples/sb3_maskable_ppo.py [timesteps]``
(default 2048: a minute or two on one core; real training wants far more).
"""

from __future__ import annotations

import sys

import numpy as np
from mjenv.wrappers import SingleAgentEnv
from sb3_contrib import MaskablePPO


def main(timesteps: int = 2048) -> None:
    # the learner sits at a random seat each hand; the other three seats are random agents
    env = SingleAgentEnv(opponents="random", seat=None, shaping="deficiency", gamma=0.99)
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, gamma=0.99, seed=0, verbose=1)
    model.learn(total_timesteps=timesteps)

    returns = []
    for hand in range(5):
        obs, info = env.reset(seed=1000 + hand)
        done, total = False, 0.0
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, reward, done, _, info = env.step(int(action))
            total += reward
        returns.append(total)
        print(f"hand {hand}: seat {info['seat']}, return {total:+.2f}, score {info['scores']:+d}")
    print(f"mean return over {len(returns)} hands: {np.mean(returns):+.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2048)
