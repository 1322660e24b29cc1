"""Baseline agents and the evaluation harness (installed as ``mjenv.baselines``).

Every agent has ``act(observation_dict) -> int``, is seeded (``seed=``), decodes with the rules it is
built for (``rules="basic"``) and acts from its own observation only:

- :class:`RandomAgent`: uniform over the legal actions;
- :class:`GreedyAgent`: the BDA/HBBA papers' deficiency-greedy strategy, knowledge-aware;
- :class:`FlatMCAgent`: SIMCAT flat Monte Carlo (SP/FP models, progressive pruning, discard-twice);
- :class:`HumanAgent`: a person at the terminal (``mjenv play``).

:func:`act_rows` decides many seats in one call (one agent per row: a loop's opponents at every table of a vector
env), with the same choices as each agent's ``act``.

:func:`evaluate` plays duplicate deals and reports rates with 95% confidence intervals
(``mjenv eval``, ``mjenv tournament``). Agents by name: :func:`make_agent` / :func:`register_agent`.
``PolicyAgent`` and ``load_pretrained`` (trained policies, need torch) load on first use.
"""

from __future__ import annotations

from mjenv.baselines._common import act_rows
from mjenv.baselines.evaluate import evaluate
from mjenv.baselines.flatmc import FlatMCAgent
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.human import HumanAgent
from mjenv.baselines.random_agent import RandomAgent
from mjenv.baselines.registry import make_agent, register_agent

# torch-backed names load on first access so ``import mjenv.baselines`` stays light
_LAZY = {
    "PolicyAgent": ("mjenv.baselines.policy", "PolicyAgent"),
    "load_pretrained": ("mjenv.baselines.policy", "load_pretrained"),
}

__all__ = [
    "FlatMCAgent",
    "GreedyAgent",
    "HumanAgent",
    "RandomAgent",
    "act_rows",
    "evaluate",
    "make_agent",
    "register_agent",
    *_LAZY,
]


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        return getattr(importlib.import_module(module), attr)
    raise AttributeError(f"module 'mjenv.baselines' has no attribute {name!r}")
