"""The registry of rule sets: one line per room (see :mod:`mjenv.rulesets.protocol`).

Each line maps a preset name to the module of its room (a package ``mjenv/rulesets/<name>/`` whose
``ROOM`` is a :class:`~mjenv.rulesets.protocol.RuleSet`). Rooms are imported on first use, by name,
so this module imports no room and no other part of mjenv: every layer may ask it for a room.

```python
from mjenv import rulesets
rulesets.room("sichuan").engines       # ('python', 'compiled')
rulesets.names()                       # ('basic', 'honours', 'sichuan', 'taiwan16', 'riichi')
rulesets.shared_names()                # the same without riichi (its room brings its own engine)
```
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

#: Preset name -> module of its room. Adding a rule set is one more line here (and its folder).
ROOMS: dict[str, str] = {
    "basic": "mjenv.rulesets.basic",
    "honours": "mjenv.rulesets.honours",
    "sichuan": "mjenv.rulesets.sichuan",
    "taiwan16": "mjenv.rulesets.taiwan16",
    "riichi": "mjenv.rulesets.riichi",
}

__all__ = [
    "ROOMS", "agent_parts", "check_shared", "declares_suit", "engines", "excluded_suit_view", "extra_tiles",
    "game_hooks", "names", "observation_views", "own_engine", "own_policy", "plays_on", "render_parts", "room", "rooms",
    "set_aside_names", "shared_names", "step_hooks", "wall_parts",
]


def names() -> tuple[str, ...]:
    """The registered preset names, in registry order."""
    return tuple(ROOMS)


def shared_names() -> tuple[str, ...]:
    """The presets the shared engine, observation writer and env shells play: every room without an
    ``own_engine``, in registry order."""
    return tuple(n for n in ROOMS if room(n).own_engine is None)


def check_shared(rules: Any, what: str, also: tuple[str, ...] = ()) -> None:
    """Refuse rules whose room brings its own engine (``what`` names the shared part asked to play them), but
    for the presets ``what`` plays ``also``.

    Raises:
        ValueError: saying which env factories play them and which presets ``what`` plays.
    """
    name = getattr(rules, "name", rules)
    if isinstance(name, str) and name in ROOMS and room(name).own_engine is not None and name not in also:
        raise ValueError(f"rules {name!r} are played by their room's own engine: use mjenv.parallel_env, mjenv.env "
                         f"or mjenv.vector_env with rules={name!r}; {what} plays {', '.join(shared_names() + also)}")


def room(name: str) -> Any:
    """The :class:`~mjenv.rulesets.protocol.RuleSet` of preset ``name``.

    Raises:
        ValueError: an unregistered name (the message lists the registered ones).
    """
    if not isinstance(name, str) or name not in ROOMS:
        raise ValueError(f"unknown rules {name!r}; allowed presets: {', '.join(ROOMS)}")
    return _load(name, ROOMS[name])


@cache
def _load(name: str, module: str) -> Any:
    found = getattr(importlib.import_module(module), "ROOM", None)
    if found is None or getattr(found, "name", None) != name:
        raise ValueError(f"{module} must define ROOM, the RuleSet named {name!r}")
    return found


def rooms() -> list[Any]:
    """Every registered room, in registry order."""
    return [room(n) for n in ROOMS]


def game_hooks(rules: Any) -> Any:
    """The :class:`~mjenv.rulesets.protocol.GameHooks` of the room whose own fields ``rules`` turns on,
    or None when ``rules`` is a plain game for the shared engine.

    Raises:
        ValueError: ``rules`` turns on the fields of two rooms (no room combines them).
    """
    using = [r for r in rooms() if r.game_hooks is not None and r.uses(rules)]
    if not using:
        return None
    if len(using) > 1:
        raise ValueError(f"rules {rules!r} combine the own fields of rule sets {[r.name for r in using]}; "
                         "a game plays the fields of at most one")
    return importlib.import_module(using[0].game_hooks).HOOKS


def step_hooks(rules: Any) -> Any:
    """The ``step_hooks`` module (:class:`~mjenv.rulesets.protocol.StepHooks`) of the room whose fields ``rules``
    turns on, or None when the shared compiled step plays ``rules`` alone.

    Raises:
        ValueError: ``rules`` turns on the fields of two rooms (no room combines them).
    """
    found = [m for m in (importlib.import_module(r.step_hooks) for r in rooms() if r.step_hooks) if m.active(rules)]
    if len(found) > 1:
        raise ValueError(f"rules {rules!r} combine the own fields of two rule sets; a game plays at most one's")
    return found[0] if found else None


def plays_on(rules: Any) -> bool:
    """Whether a win leaves the hand of ``rules`` going on (a room's ``plays_on``): the winners leave it
    and the others play on, so the env shells terminate seats mid-hand and pay as the hand goes."""
    return any(r.plays_on(rules) for r in rooms())


def declares_suit(rules: Any) -> bool:
    """Whether every seat of ``rules`` declares a suit missing in a first step of the hand (a room's
    ``declares_suit``): the action layout then has the three declaration ids after PASS."""
    return any(r.declares_suit(rules) for r in rooms())


def engines(rules: Any) -> tuple[str, ...]:
    """The engines that can run ``rules``: its preset's room's (both for a name no room has, where the fields
    alone decide); ``("python",)`` when a room's own fields are on that the room's compiled hooks do not cover
    (or are not built)."""
    own = room(rules.name).engines if rules.name in ROOMS else ("python", "compiled")
    if "compiled" not in own:
        return own
    for r in rooms():
        if r.game_hooks is not None and r.uses(rules) or r.step_hooks is not None and _step_active(r, rules):
            m = importlib.import_module(r.step_hooks) if r.step_hooks else None
            if "compiled" not in r.engines or m is None or m.HOOKS is None or not m.covers(rules):
                return ("python",)
    return own


def _step_active(r: Any, rules: Any) -> bool:
    return importlib.import_module(r.step_hooks).active(rules)


def own_engine(rules: Any) -> Any:
    """The module of the room that brings its own engine, observation and env shells for ``rules`` (a
    preset name, a dict with ``"name"``, or a Rules), or None when the shared ones play it.

    The env factories hand their keyword arguments to it: ``make_parallel_env(**kwargs)``,
    ``make_env(**kwargs)`` (AEC) and ``make_vector_env(num_envs, **kwargs)``.
    """
    return _room_module(rules, "own_engine")


def _room_module(rules: Any, field: str) -> Any:
    """The module named by the ``RuleSet`` field ``field`` of the room of ``rules`` (a preset name, a dict with
    ``"name"``, or a Rules), imported; None when the field is None or ``rules`` names no room."""
    name = rules.get("name", "basic") if isinstance(rules, dict) else getattr(rules, "name", rules)
    if not isinstance(name, str) or name not in ROOMS:
        return None
    module = getattr(room(name), field)
    return None if module is None else importlib.import_module(module)


def own_policy(rules: Any) -> Any:
    """The module of the room's own policy network (``RuleSet.own_policy``: ``POLICY_NET``, ``TRUNKS``,
    ``TRAIN_EPISODES``, ``episode_wins``) for ``rules`` (a preset name, a dict with ``"name"``, or a Rules), or
    None when the shared network plays it (or no room has one for it)."""
    return _room_module(rules, "own_policy")


def observation_views(rules: Any) -> list[Any]:
    """The :class:`~mjenv.rulesets.protocol.ObservationViews` of every room that adds fields to the
    observation of ``rules``, in ascending ``position`` (then registry order)."""
    found = []
    for r in rooms():
        if r.views is not None:
            v = importlib.import_module(r.views).VIEWS
            if v.state_fields(rules):
                found.append(v)
    return sorted(found, key=lambda v: v.position)


def excluded_suit_view(rules: Any) -> str | None:
    """The name of the view (and state field) holding each seat's one-hot of a suit declared out of
    every completion under ``rules`` (:meth:`~mjenv.rulesets.protocol.ObservationViews.excluded_suit`),
    or None."""
    for v in observation_views(rules):
        name = v.excluded_suit(rules)
        if name is not None:
            return name
    return None


def wall_parts(rules: Any) -> Any:
    """The :class:`~mjenv.rulesets.protocol.WallParts` of the room whose own tiles a wall of ``rules``
    holds, or None (no room's tiles in the wall)."""
    for r in rooms():
        if r.wall is not None:
            parts = importlib.import_module(r.wall).WALL
            if parts.extra_tiles(rules):
                return parts
    return None


def extra_tiles(rules: Any) -> tuple[int, ...]:
    """The ids of a room's own tiles in a wall of ``rules`` (:func:`wall_parts`), ascending; () for none."""
    parts = wall_parts(rules)
    return () if parts is None else tuple(parts.extra_tiles(rules))


def set_aside_names() -> tuple[str, ...]:
    """The names the rooms give ``Game.set_aside`` (each room's ``WallParts.state_name``)."""
    found = []
    for r in rooms():
        if r.wall is not None:
            name = importlib.import_module(r.wall).WALL.state_name
            if name:
                found.append(name)
    return tuple(found)


def render_parts() -> list[Any]:
    """Every room's :class:`~mjenv.rulesets.protocol.RenderParts`, in ascending ``position`` (then
    registry order); each shows nothing for rules that do not turn its facts on."""
    found = [importlib.import_module(r.render).RENDER for r in rooms() if r.render is not None]
    return sorted(found, key=lambda p: p.position)


def agent_parts(rules: Any) -> Any:
    """The :class:`~mjenv.rulesets.protocol.AgentParts` of the room whose own fields ``rules`` turns on
    (its ``uses``), or None when no room has agent parts for them."""
    for r in rooms():
        if r.agents is not None and r.uses(rules):
            return importlib.import_module(r.agents).AGENTS
    return None
