"""Agents by name, as the command line writes them: ``random``, ``greedy``, ``flatmc``, ``flatmc:sp``,
``flatmc:sims=500,pruning=off,twice=original``, ``policy:PATH``.

A spec is ``name`` or ``name:argument``. Other modules add names with :func:`register_agent` (the
training scripts register their own policies this way); ``policy:PATH`` loads a checkpoint through
``mjenv.baselines.policy`` and says clearly what is missing when that module or torch is not there.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mjenv.rules import Rules, get_rules

#: factory(argument or None, seed, rules) -> agent with ``act(obs) -> int`` and ``reset(seed)``.
AgentFactory = Callable[[str | None, int | None, Rules], Any]

#: torch threads of the agents built here that run torch (``policy:PATH``): one per process by
#: default (see :func:`set_agent_threads`).
_AGENT_THREADS: dict[str, int | None] = {"torch": 1}


def set_agent_threads(threads: int | None) -> None:
    """torch's intra-op threads for the agents :func:`make_agent` builds from now on in this process
    (``PolicyAgent(threads=...)``); None leaves torch's own setting. The evaluation harness sets it
    in every worker.

    Raises:
        ValueError: not a positive int or None.
    """
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    _AGENT_THREADS["torch"] = threads


def agent_threads() -> int | None:
    """The torch threads of the agents :func:`make_agent` builds (:func:`set_agent_threads`)."""
    return _AGENT_THREADS["torch"]

_FACTORIES: dict[str, AgentFactory] = {}
_HELP: dict[str, str] = {}


def register_agent(name: str, factory: AgentFactory, help: str = "", *, replace: bool = False) -> None:
    """Make ``name[:argument]`` resolvable by :func:`make_agent`.

    Args:
        name: the prefix before ``:`` (letters, digits, ``_``).
        factory: ``factory(argument, seed, rules)`` returning an agent.
        help: one line for ``--help`` listings.
        replace: allow overriding an existing name (e.g. the training helper replacing ``policy``).

    Raises:
        ValueError: a bad name, or a name already taken without ``replace``.
    """
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"agent name must be letters, digits or '_', got {name!r}")
    if name in _FACTORIES and not replace:
        raise ValueError(f"agent name {name!r} is already registered (pass replace=True to override)")
    _FACTORIES[name] = factory
    _HELP[name] = help


def agent_names() -> dict[str, str]:
    """Registered names and their help lines."""
    return dict(_HELP)


def make_agent(spec: str, seed: int | None = 0, rules: str | Rules = "basic"):
    """Build an agent from its command-line spec.

    Args:
        spec: ``name`` or ``name:argument`` (see the module docstring).
        seed: the agent's seed.
        rules: the rules of the observations it will get.

    Raises:
        ValueError: an unknown name (the known ones are listed) or a bad argument.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string like 'greedy' or 'flatmc:sp', got {spec!r}")
    name, _, arg = spec.partition(":")
    if name not in _FACTORIES:
        known = ", ".join(sorted(_FACTORIES))
        raise ValueError(f"unknown agent {name!r} in {spec!r}; known agents: {known} (form name or name:argument)")
    return _FACTORIES[name](arg or None, seed, get_rules(rules))


def _no_arg(name: str, arg: str | None) -> None:
    if arg is not None:
        raise ValueError(f"agent {name!r} takes no argument, got {name}:{arg}")


def _random(arg, seed, rules):
    from mjenv.baselines.random_agent import RandomAgent

    _no_arg("random", arg)
    return RandomAgent(seed=seed, rules=rules)


def _greedy(arg, seed, rules):
    from mjenv.baselines.greedy import GreedyAgent

    _no_arg("greedy", arg)
    return GreedyAgent(seed=seed, rules=rules)


_BOOL = {"on": True, "off": False, "true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}


def parse_flatmc_options(arg: str | None) -> dict[str, Any]:
    """``"sp"`` or ``"sims=500,model=fp,pruning=off,twice=h1,time=0.2,rounds=6,prefilter=off,ron=on"`` -> kwargs.

    Raises:
        ValueError: an unknown key or a bad value (allowed keys and values are listed).
    """
    out: dict[str, Any] = {}
    if not arg:
        return out
    allowed = (
        "sp | fp | sims=INT | model=sp|fp | pruning=on|off | twice=h2+h1|h1|original | time=SECONDS | "
        "rounds=INT | prefilter=on|off | claimturn=on|off | ron=on|off"
    )
    for token in arg.split(","):
        key, eq, value = token.strip().partition("=")
        try:
            if not eq and key in ("sp", "fp"):
                out["model"] = key
            elif key == "model":
                out["model"] = value
            elif key in ("sims", "simulations"):
                out["simulations"] = int(value)
            elif key == "pruning":
                out["pruning"] = _BOOL[value.lower()]
            elif key == "twice":
                out["discard_twice"] = value.lower()
            elif key == "time":
                out["time_limit"] = float(value)
            elif key == "rounds":
                out["max_rounds"] = int(value)
            elif key == "prefilter":
                out["prefilter"] = _BOOL[value.lower()]
            elif key == "claimturn":
                out["claim_turn"] = _BOOL[value.lower()]
            elif key == "ron":
                out["ron"] = _BOOL[value.lower()]
            else:
                raise KeyError(key)
        except (KeyError, ValueError):
            raise ValueError(f"bad flatmc option {token!r} in 'flatmc:{arg}'; allowed: {allowed}") from None
    return out


def _flatmc(arg, seed, rules):
    from mjenv.baselines.flatmc import FlatMCAgent

    return FlatMCAgent(seed=seed, rules=rules, **parse_flatmc_options(arg))


def _policy(arg, seed, rules):
    if not arg:
        raise ValueError("policy agents need a checkpoint: policy:PATH (e.g. policy:runs/ppo/policy.pt)")
    from pathlib import Path

    if arg in ("bc", "rl"):
        # a shipped policy by name (mjenv.baselines.policy.PRETRAINED_FILES); a file of that name wins
        if not Path(arg).is_file():
            from mjenv.baselines.policy import pretrained_path

            arg = str(pretrained_path(arg))
    if not Path(arg).is_file():
        # checked before importing torch: a typo in a path should not cost a torch import to report
        raise ValueError(f"policy:{arg}: no checkpoint file at {arg!r}")
    try:
        from mjenv.baselines.policy import PolicyAgent
    except ImportError as exc:
        raise ValueError(
            f"policy:{arg} needs the policy module and torch ({exc}); install the training extra: "
            "pip install 'mjenv[train]'"
        ) from exc
    from mjenv import rulesets

    agent = PolicyAgent.load(arg, seed=seed, threads=agent_threads())
    # a room's own network (its config names its rules) reads that room's observations alone; the shared network
    # reads the shared rule sets'
    trained_on = agent.net.config().get("rules")
    wanted = rules.name if rulesets.own_policy(rules) is not None else None
    if trained_on != wanted:
        mine = f"rules {trained_on!r}" if trained_on is not None else "the shared rule sets"
        raise ValueError(f"policy:{arg} is a network of {mine}, not of rules {rules.name!r} (their observations and "
                         f"actions differ): train one with mjenv train ppo --rules {rules.name}")
    return agent


register_agent("random", _random, "uniform over the legal actions")
register_agent("greedy", _greedy, "deficiency-greedy (BDA/HBBA papers' strategy)")
register_agent("flatmc", _flatmc, "SIMCAT flat Monte Carlo; flatmc:sp, flatmc:sims=N,pruning=off,twice=h1|original")
register_agent("policy", _policy, "a trained policy checkpoint: policy:PATH, or a shipped one: policy:bc, policy:rl")
