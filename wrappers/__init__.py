"""Adapters of the mjenv environments for single-agent and distributed RL libraries (``mjenv.wrappers``).

- :class:`SingleAgentEnv`: one learning seat, the other seats fixed agents; a gymnasium ``Env`` with
  ``action_masks()`` for sb3-contrib's ``MaskablePPO``; :func:`mask_fn` for ``ActionMasker``;
  :class:`ObservationScaler` (its ``scale_observation=True``: every view divided by its bound).
- :class:`RLlibParallelEnv`, :func:`rllib_env`, :class:`MaskedPolicyRLModule`, :func:`ppo_config`: Ray
  RLlib multi-agent PPO through PettingZoo's ``ParallelPettingZooEnv`` with action masking
  (``mjenv.wrappers.rllib``; needs ``ray[rllib]``).

Everything loads on first use, so ``import mjenv.wrappers`` does not import Ray or torch.

``import mjenv`` registers the single-seat env with gymnasium as ``"mjenv/SingleSeat-v0"`` (keyword
arguments of :class:`SingleAgentEnv`), lazily: ``gymnasium.make("mjenv/SingleSeat-v0")`` works after
``import mjenv``. Later versions of the env get the next number (see ``mjenv.mjenv_v0``).
"""

from __future__ import annotations

_LAZY = {
    "SingleAgentEnv": ("mjenv.wrappers.single_agent", "SingleAgentEnv"),
    "mask_fn": ("mjenv.wrappers.single_agent", "mask_fn"),
    "ObservationScaler": ("mjenv.wrappers.single_agent", "ObservationScaler"),
    "RLlibParallelEnv": ("mjenv.wrappers.rllib", "RLlibParallelEnv"),
    "rllib_env": ("mjenv.wrappers.rllib", "rllib_env"),
    "MaskedPolicyRLModule": ("mjenv.wrappers.rllib", "MaskedPolicyRLModule"),
    "ppo_config": ("mjenv.wrappers.rllib", "ppo_config"),
}

__all__ = [*_LAZY, "SINGLE_SEAT_ID"]

#: gymnasium id of :class:`SingleAgentEnv` (version 0 of the env, ``metadata["name"] == "mjenv_v0"``)
SINGLE_SEAT_ID = "mjenv/SingleSeat-v0"


def _register() -> None:
    from mjenv._extras import register_gymnasium_ids

    register_gymnasium_ids()


_register()


def __getattr__(name: str):
    if name in _LAZY:
        from mjenv._extras import import_or_hint

        module, attr = _LAZY[name]
        return getattr(import_or_hint(module, f"mjenv.wrappers.{name}"), attr)
    raise AttributeError(f"module 'mjenv.wrappers' has no attribute {name!r}")
