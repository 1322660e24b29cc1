"""``RandomAgent``: uniform over the legal actions of its own observation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from mjenv.baselines._common import Agent, Situation


class RandomAgent(Agent):
    """Picks uniformly among the legal actions (its ``action_mask``).

    Args:
        seed: seed of its ``np.random.Generator``.
        rules: preset name or :class:`~mjenv.rules.Rules` the observations are encoded with.
    """

    name = "random"
    answers_forced_at_once = True  # decide() draws from range(1) for one legal action: no draw at all

    def decide(self, s: Situation) -> int:
        legal = s.legal
        return int(legal[self.rng.integers(len(legal))])

    @classmethod
    def act_rows(cls, agents: Sequence[Agent], observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """:meth:`act` of each row from its mask alone (the same draws from each agent's generator).

        Raises:
            ValueError: masks of another length than the agents' rules have actions, or a row with none legal.
        """
        masks = np.asarray(masks)
        size = agents[0].layout.size if len(agents) else 0
        if masks.ndim != 2 or any(a.layout.size != masks.shape[1] for a in agents):
            raise ValueError(f"masks must be [B, {size}] for these agents' rules, got shape {masks.shape}")
        legal = masks != 0
        if not legal.any(axis=1).all():
            raise ValueError("action_mask has no legal action; the environment always leaves at least PASS legal")
        out = np.empty(len(agents), dtype=np.int64)
        for i, (a, row) in enumerate(zip(agents, legal)):
            choices = np.flatnonzero(row)
            out[i] = choices[a.rng.integers(len(choices))]
        return out
