"""``RandomAgent``: uniform over the legal actions of its own observation."""

from __future__ import annotations

from mjenv.baselines._common import Agent, Situation


class RandomAgent(Agent):
    """Picks uniformly among the legal actions (its ``action_mask``).

    Args:
        seed: seed of its ``np.random.Generator``.
        rules: preset name or :class:`~mjenv.rules.Rules` the observations are encoded with.
    """

    name = "random"

    def decide(self, s: Situation) -> int:
        legal = s.legal
        return int(legal[self.rng.integers(len(legal))])
