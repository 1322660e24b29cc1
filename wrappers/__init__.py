"""Adapters of the mjenv environments for single-agent and distributed RL libraries (``mjenv.wrappers``).

- :class:`SingleAgentEnv`: one learning seat, the other seats fixed agents; a gymnasium ``Env`` with
  ``action_masks()`` for sb3-contrib's ``MaskablePPO``; :func:`mask_fn` for ``ActionMasker``.
- :class:`RLlibParallelEnv`, :func:`rllib_env`, :class:`MaskedPolicyRLModule`, :func:`ppo_config`: Ray
  RLlib multi-agent PPO through PettingZoo's ``ParallelPettingZooEnv`` with action masking
  (``mjenv.wrappers.rllib``; needs ``ray[rllib]``).

Everything loads on first use, so ``import mjenv.wrappers`` does not import Ray or torch.
"""

from __future__ import annotations

_LAZY = {
    "SingleAgentEnv": ("mjenv.wrappers.single_agent", "SingleAgentEnv"),
    "mask_fn": ("mjenv.wrappers.single_agent", "mask_fn"),
    "RLlibParallelEnv": ("mjenv.wrappers.rllib", "RLlibParallelEnv"),
    "rllib_env": ("mjenv.wrappers.rllib", "rllib_env"),
    "MaskedPolicyRLModule": ("mjenv.wrappers.rllib", "MaskedPolicyRLModule"),
    "ppo_config": ("mjenv.wrappers.rllib", "ppo_config"),
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'mjenv.wrappers' has no attribute {name!r}")
