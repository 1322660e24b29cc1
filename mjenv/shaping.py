"""Shaping potentials computed from a seat's own observation, for learners that shape by themselves.

Potential-based shaping (Ng, Harada and Russell 1999, Theorem 1) adds ``F = gamma * Phi(s') - Phi(s)``
to every transition of the learner's own decision process, with the learner's discount ``gamma`` and
``Phi = 0`` once the hand is over. Over a hand the discounted sum of ``F`` is then ``-Phi(s_0)`` for
every policy, so optimal policies are unchanged.

The potentials here read only the seat's own observation (the ``deficiency`` and ``effective_count``
views: its hand under its own knowledge base), so nothing hidden enters the reward:

* ``"deficiency"``: ``Phi = -min(deficiency, 15)``, exactly :func:`mjenv.contract.potential` (the env's own
  ``shaping="deficiency"`` and ``infos["potential"]``; 15 stands for INCOMPLETABLE).
* ``"deficiency_tiles"``: ``Phi = -min(deficiency, 15) + TILES_WEIGHT * effective_count / (4 * T)``:
  among hands of the same deficiency, those with more unseen copies of tiles that lower it are
  worth more. ``effective_count / (4 * T)`` is at most 1 and in practice below 0.5, so with
  ``TILES_WEIGHT = 1`` one step of deficiency always outweighs the tile count (the greedy agent's
  order of preference).

```python
from mjenv.shaping import Potential
phi = Potential("deficiency_tiles", rules="basic")
phi(obs["observation"])        # float64 of the leading shape: one potential per observation
```

The wrappers (:class:`mjenv.wrappers.SingleAgentEnv`, :class:`mjenv.wrappers.rllib.RLlibParallelEnv`)
and ``mjenv train ppo`` apply these between the learner's own consecutive decisions.
"""

from __future__ import annotations

import numpy as np

from mjenv.contract import POTENTIAL_CAP, potential  # noqa: F401  (POTENTIAL_CAP: re-exported)
from mjenv.env import check_gamma  # noqa: F401  (re-exported for the wrappers)
from mjenv.observation import ObservationSpec

#: Shaping names accepted by the wrappers and ``mjenv train ppo`` (None = no shaping).
SHAPINGS = (None, "deficiency", "deficiency_tiles")
#: Weight of the normalised effective-tile count in the ``"deficiency_tiles"`` potential.
TILES_WEIGHT = 1.0


def check_shaping(shaping: str | None) -> None:
    """ValueError unless ``shaping`` is one of :data:`SHAPINGS`."""
    if shaping not in SHAPINGS:
        raise ValueError(f"shaping must be one of {SHAPINGS}, got {shaping!r}")


class Potential:
    """A shaping potential of observations (see the module docstring).

    Args:
        shaping: ``"deficiency"`` or ``"deficiency_tiles"``.
        rules: rule set of the observations (their layout), for the shared observation spec.
        spec: the observations' spec instead (``env.spec``: any spec with ``slices`` of a ``deficiency`` and an
            ``effective_count`` view and ``num_tile_types``, such as a room's own engine's); None: ``rules``'.
    """

    def __init__(self, shaping: str, rules="basic", spec=None):
        check_shaping(shaping)
        if shaping is None:
            raise ValueError("Potential needs a shaping name, not None")
        self.shaping = shaping
        if spec is None:
            spec = ObservationSpec(rules)
        elif not all(name in getattr(spec, "slices", ()) for name in ("deficiency", "effective_count")):
            raise ValueError(f"spec must be an observation spec with 'deficiency' and 'effective_count' views, got "
                             f"{spec!r}")
        self._deficiency = spec.slices["deficiency"].start
        self._count = spec.slices["effective_count"].start
        self._count_scale = TILES_WEIGHT / (4.0 * spec.num_tile_types)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        """Potentials of observations.

        Args:
            observation: float32[..., N] default (or oracle) observations of one rule set.

        Returns:
            float64[...]: one potential per observation (a 0-d array for one observation).
        """
        obs = np.asarray(observation)
        phi = potential(obs[..., self._deficiency])  # the env's own potential (integral floats: the same values)
        if self.shaping == "deficiency_tiles":
            phi = phi + self._count_scale * obs[..., self._count].astype(np.float64)
        return phi
