"""The protocol between a rule set's room and the shared code.

A room is a package ``mjenv/rulesets/<name>/`` whose ``__init__`` defines ``ROOM``, a :class:`RuleSet`.
The shared code (the game engine, the observation writer, the env shells, the agents' shared code)
never names a rule set: it asks the registry (:mod:`mjenv.rulesets`) for the room of a rule set and
calls the room through this protocol.

What a room holds:

* ``preset``: its :class:`~mjenv.rules.Rules` (``get_rules("<name>")`` returns it).
* ``engines``: which engines can run it. ``"python"`` is the shared :class:`~mjenv.game.Game`; ``"compiled"``
  adds the compiled batch step (``mjenv.game.batch``), which runs the rules of the fields it implements.
* ``uses(rules)``: whether a rule set (of any name) turns on fields that this room's hooks implement.
  The engine then calls the room's :class:`GameHooks` at its hook points.
* ``game_hooks``: the module path of the room's :class:`GameHooks` object (its ``HOOKS``), imported only
  when a game of those rules is built.
* ``step_hooks``: the module path of the room's part of the compiled batch step (a :class:`StepHooks`
  module: its C hooks and which rules they run), or None when the shared compiled step needs nothing of the room.
* ``agents``: the module path of the room's :class:`AgentParts` (its attribute ``AGENTS``): what the
  shared agents (greedy, flat MC) do in a phase of the room's own.
* ``views``: the module path of the room's :class:`ObservationViews` (its attribute ``VIEWS``): the public
  facts its rules add to the observation (state-record fields and the views that show them).
* ``wall``: the module path of the room's :class:`WallParts` (its attribute ``WALL``): tiles of its own
  in the wall (ids from 34 on, outside the deficiency core) that a seat sets aside when it draws them.
* ``render``: the module path of the room's :class:`RenderParts` (its attribute ``RENDER``): what the
  shared rendering, ``mjenv play`` and the human agent show of its public facts.
* ``own_engine``: the module path of a room that brings its own engine, observation and env shells
  instead of the shared ones; None for the rooms that play on the shared engine. ``mjenv.parallel_env``,
  ``mjenv.env`` and ``mjenv.vector_env`` hand their keyword arguments to the module's
  ``make_parallel_env(**kwargs)``, ``make_env(**kwargs)`` and ``make_vector_env(num_envs, **kwargs)``, whose
  keywords its ``ARGUMENTS`` lists (the wrappers pass those on); ``mjenv play --rules <name>`` calls its
  ``play(args, input, output)``, and documentation generators read
  its ``observation_spec()`` (``markdown_table()``, ``size``, ``views``, ``decode``) and ``action_table()``.
* ``own_agents``: the module path of the room's own baseline agents, for a room whose observation the
  shared agents cannot read (one with ``own_engine``); None where the shared agents play it. The
  module's ``AGENTS`` maps a shared agent's ``name`` (``"random"``, ``"greedy"``, ``"flatmc"``) to the
  room's subclass of that agent, which ``GreedyAgent(rules=<name>)`` and the others build instead
  (``mjenv.baselines._common.Agent.__new__``). Its ``play_deal``, ``EPISODES``, ``METRICS``,
  ``METRIC_TITLES`` and ``PAIRED`` are the evaluation harness's games of the rule set
  (``mjenv.baselines.evaluate``); its optional ``TOURNAMENT_AGENTS`` and ``TOURNAMENT_EPISODE`` are
  ``mjenv tournament``'s line-up and episode for it.
* ``own_policy``: the module path of the room's policy network, for a room with ``own_engine`` that
  ``mjenv train ppo|bc --rules <name>`` train (None: the scripts train the shared rule sets alone there). The
  module's ``POLICY_NET`` is a subclass of :class:`~mjenv.baselines.policy.PolicyNet` (``POLICY_NET(hidden=,
  discard_effective=, trunk=)``; its ``config()`` holds ``"rules": <name>``, which ``PolicyNet.from_config`` and
  ``policy:PATH`` read), ``TRUNKS`` the trunks it builds, ``TRAIN_EPISODES`` the ``episode=`` values its vector env
  trains on, and ``episode_wins(final_info, game)`` says which seats won an episode that ended (bool[N, 4]; ``game``:
  the episodes are games of several hands); an optional ``log_decisions(path, progress)`` reads the room's own logs
  as behaviour cloning's ``--logs`` data (obs, masks, actions, hand ids).
* ``viewer``: the module path whose import registers the replay viewer's frame builders of the room's own
  log formats (:func:`mjenv.view.register_frame_builder`); ``mjenv view`` imports it for a format it
  does not know yet.

Module paths are strings so that importing the registry imports no room: a room may import from every
layer it needs (the engine, the observation writer, the agents) without an import loop.

Adding a rule set: a new folder ``mjenv/rulesets/<name>/`` with an ``__init__.py`` that defines
``ROOM``, plus one line in :data:`mjenv.rulesets.ROOMS` (docs/ARCHITECTURE.md, "Adding a rule set").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mjenv.rules import Rules

#: Engines a room may list in :attr:`RuleSet.engines`.
ENGINE_KINDS = ("python", "compiled")


def _uses_nothing(rules: Rules) -> bool:
    return False


@dataclass(frozen=True)
class RuleSet:
    """One rule set's room (see the module docstring).

    Attributes:
        name: the preset's name (the registry key, ``Rules.name`` of the preset).
        preset: the rules of the preset.
        summary: one line for tables and ``--help``.
        engines: the engines that can run the preset: ``("python",)`` or ``("python", "compiled")``.
        uses: ``uses(rules) -> bool``: whether ``rules`` turns on fields that ``game_hooks`` implements.
        declares_suit: ``declares_suit(rules) -> bool``: whether every seat declares a suit missing in a
            first step of the hand (the three ``declare(s)`` action ids after PASS, ``Phase.DECLARE``).
        plays_on: ``plays_on(rules) -> bool``: whether a win leaves the hand going on under ``rules`` (the
            winners leave it, the others play on): the env shells then terminate a winner mid-hand, reward
            each step's payments and ignore the actions of seats that have left.
        game_hooks: module path of the room's :class:`GameHooks` (its attribute ``HOOKS``), or None.
        step_hooks: module path of the room's part of the compiled step (see :class:`StepHooks`), or None.
        views: module path of the room's :class:`ObservationViews` (its attribute ``VIEWS``), or None.
        agents: module path of the room's :class:`AgentParts` (its attribute ``AGENTS``), or None.
        wall: module path of the room's :class:`WallParts` (its attribute ``WALL``), or None.
        render: module path of the room's :class:`RenderParts` (its attribute ``RENDER``), or None.
        own_engine: module path of a room that brings its own engine, observation and env shells
            (``make_parallel_env``, ``make_env``, ``make_vector_env``), or None.
        own_agents: module path of the room's own baseline agents and evaluation games, or None.
        own_policy: module path of the room's policy network for ``mjenv train ppo|bc``, or None.
        viewer: module path that registers the frame builders of the room's own log formats, or None.
    """

    name: str
    preset: Rules
    summary: str = ""
    engines: tuple[str, ...] = ("python",)
    uses: Callable[[Rules], bool] = _uses_nothing
    plays_on: Callable[[Rules], bool] = _uses_nothing
    declares_suit: Callable[[Rules], bool] = _uses_nothing
    game_hooks: str | None = None
    step_hooks: str | None = None
    views: str | None = None
    agents: str | None = None
    wall: str | None = None
    render: str | None = None
    own_engine: str | None = None
    own_agents: str | None = None
    own_policy: str | None = None
    viewer: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise ValueError(f"RuleSet.name must be an identifier (its folder's name), got {self.name!r}")
        if not isinstance(self.preset, Rules) or self.preset.name != self.name:
            raise ValueError(f"RuleSet {self.name!r}: preset must be a Rules named {self.name!r}, got {self.preset!r}")
        if not self.engines or any(e not in ENGINE_KINDS for e in self.engines) or "python" not in self.engines:
            raise ValueError(f"RuleSet {self.name!r}: engines must include 'python', from {ENGINE_KINDS}; "
                             f"got {self.engines!r}")


class GameHooks:
    """The hook points of the shared engine (:class:`mjenv.game.Game`) for a room's own rules.

    The engine calls a room's hooks only where the matching flag is set, so a game without a room's rules
    runs none of them. Everything here has the plain game's behaviour; a room overrides what its rules change.
    Hooks change the game only through its public methods (``Game.draw``, ``Game.finish``,
    ``Game.set_turn_masks``, ``Game.set_decision``) and the state arrays the engine documents.

    Flags:
        restricts: the room restricts claims, kongs and wins (:meth:`may_meld`, :meth:`wins_with`,
            :meth:`restrict_turn`); a seat that has won is out of the claim windows.
        plays_on: a win does not end the hand (:meth:`win`, :meth:`next_seat`).
        pays_kongs: kongs are paid as they are made (:meth:`pay_kong`).
        settles: the room scores the end of the hand (:meth:`settle`).
        seven_pairs_form: the seven-pairs hand of these rules (not a flag: read when ``seven_pairs`` is on).
    """

    restricts = False
    plays_on = False
    pays_kongs = False
    settles = False
    #: The seven-pairs hand the rules let win, when ``Rules.seven_pairs`` is on: ``"distinct"`` (seven
    #: different pairs) or ``"fours"`` (a four of a kind counts as two pairs); the deficiency features count it.
    seven_pairs_form = "distinct"

    def start(self, game: Any) -> None:
        """After the deal and the dealer's first draw: a room may open a phase of its own here."""

    def on_phase(self, game: Any, chosen: list[int]) -> None:
        """Apply a step in a phase the engine does not know (the room's own, opened by :meth:`start`)."""
        raise ValueError(f"phase {game.phase!r} is not a phase of these rules")

    def may_meld(self, game: Any, seat: int, tile: int) -> bool:
        """Whether ``seat`` may pong or kong ``tile`` (a claim)."""
        return True

    def wins_with(self, game: Any, seat: int, tile: int) -> bool:
        """Whether ``seat``'s concealed hand plus ``tile`` is a win under these rules (a claim or rob)."""
        raise NotImplementedError

    def restrict_turn(self, game: Any, seat: int, row: np.ndarray) -> None:
        """Restrict ``seat``'s own-turn mask ``row`` (int8[A], in place); the win entry is the room's."""

    def win(self, game: Any, winners: list[int], deal_in: int, tile: int, reason: int) -> None:
        """A win when the hand plays on after it: pay it, and go on or end the hand (``Game.finish``)."""
        raise NotImplementedError

    def next_seat(self, game: Any, seat: int) -> int:
        """The seat that draws after ``seat``'s discard was passed."""
        return (seat + 1) % 4

    def pay_kong(self, game: Any, seat: int, kind: str, discarder: int | None = None) -> None:
        """Pay ``seat``'s kong as it is made: ``kind`` is ``"exposed"``, ``"added"`` or ``"concealed"``."""

    def settle(self, game: Any, winners: list[int], deal_in: int, reason: int, scores: np.ndarray) -> np.ndarray:
        """int64[4] the hand's scores at its end; ``scores`` are the plain game's (fixed points)."""
        return scores

    def result(self, game: Any) -> dict[str, Any]:
        """Keys the room adds to ``Game.result()`` (after the plain ones)."""
        return {}


class StepHooks:
    """What a room's ``step_hooks`` module defines: its part of the compiled batch step (``mjenv.game.batch``).

    The C hooks (``mjenv/game/_step_room.h``) are an extension module in the room's folder; the module named by
    :attr:`RuleSet.step_hooks` holds them and says which rules they run. Module attributes:

    * ``HOOKS``: the capsule of the room's ``RoomHooks`` (None when the extension is not built: the rules then
      run on the Python engine).
    * ``FIELDS``: the :class:`~mjenv.rules.Rules` fields (away from their defaults) the hooks implement.
    * ``active(rules) -> bool``: whether ``rules`` turns on a field of the room's, so the step needs its hooks.
    * ``covers(rules) -> bool``: whether the hooks play ``rules`` as the Python engine does (an active room that
      does not cover them leaves the rules to the Python engine).
    * ``state(game) -> list[int]``: the room's state in a ``Game`` as the step's room scalars (at most
      ``mjenv.game.batch.NUM_ROOM_SCALARS`` ints; the rest are 0).
    """


class ObservationViews:
    """A room's part of the observation (:class:`mjenv.observation.ObservationSpec`): public facts its rules
    add. Each fact is a state-record field (ints the writer reads from the game once per state) and a view
    that shows it; the shared writer lays both out and fills them, on the compiled and the numpy path.

    A room's fields follow the shared ones, before the record's last entry, in ascending ``position``
    (then registry order); its views follow the shared views, before the oracle views, in the same order.
    Every method gets the rules and returns nothing (empty) for rules that do not turn its facts on.
    """

    #: Where this room's fields and views go among the rooms' (ascending).
    position = 0

    def state_fields(self, rules: Rules) -> list[tuple[str, tuple[int, ...], int]]:
        """``(name, shape, add)`` of each field it adds (per-seat fields lead with 4, the absolute seats)."""
        return []

    def views(self, rules: Rules) -> list[Any]:
        """The :class:`mjenv.observation.View` s that show its fields."""
        return []

    def state_ints(self, rules: Rules, game: Any) -> list[int]:
        """The values of its fields for ``game``'s state, in field order (as many as the fields' sizes)."""
        return []

    def excluded_suit(self, rules: Rules) -> str | None:
        """The name of a field holding each seat's one-hot of a suit the deficiency features leave out
        (int[4, 3]; all 0 for none), or None."""
        return None


class AgentParts:
    """The rule-specific parts of the shared agents (``mjenv.baselines``): decisions in the room's own phases.

    The agents decide from a ``Situation`` (their own observation, decoded); they call :meth:`own_phase`
    for a phase after ``END`` (one the room opened, :meth:`GameHooks.start`).
    """

    def own_phase(self, situation: Any) -> int:
        """The action id a shared agent takes in a phase of the room's own."""
        raise ValueError(f"phase {situation.phase!r} is not a phase of these rules")


class WallParts:
    """A room's own tiles in the wall: ids ``SET_ASIDE_BASE + f`` (``f < SET_ASIDE_IDS``,
    :mod:`mjenv.game.engine`), outside the deficiency core. The shared engine deals and draws them like
    any tile; a seat that gets one sets it aside face up (public; ``Game.set_aside[seat, f] = 1``) and
    draws a replacement from the wall's end.

    Attributes:
        noun: what one such tile is called (error messages).
        state_name: the name under which ``Game`` also shows ``set_aside`` (read-only alias), or None.
    """

    noun = "set-aside tile"
    state_name: str | None = None

    def extra_tiles(self, rules: Rules) -> tuple[int, ...]:
        """The ids of the room's tiles a wall of ``rules`` holds, once each, ascending (empty: none)."""
        return ()


class RenderParts:
    """A room's part of the shared rendering (``mjenv.render``), of ``mjenv play`` (``mjenv.cli``) and of
    the human agent's table (``mjenv.baselines.human``): the public facts its rules add to a seat.

    Every method gets what the shared code has and returns nothing (empty, None) for rules that do not
    turn the room's facts on. Rooms are asked in ascending ``position`` (then registry order).
    """

    #: Where this room's lines go among the rooms' (ascending).
    position = 0

    def seat_extras(self, game: Any, s: int) -> tuple[list[dict], list[str]]:
        """Rows ``{"label", "items"}`` and short notes seat ``s`` shows beside its tiles (the viewer)."""
        return [], []

    def seat_lines(self, game: Any, s: int) -> list[str]:
        """Lines of seat ``s`` in the text table (after its melds), e.g. ``"     flowers  ..."``."""
        return []

    def image_lines(self, game: Any, s: int) -> list[str]:
        """Lines of seat ``s``'s panel in the image (drawn marked, after its melds)."""
        return []

    def result_line(self, game: Any) -> str | None:
        """The line saying how an ended hand ended (``"result: ..."``), or None for the shared one."""
        return None

    def public_count(self, game: Any, s: int) -> int:
        """A count of seat ``s``'s public room facts that grows when it makes one (``mjenv play`` tells it)."""
        return 0

    def narrate(self, game: Any, s: int, name: str) -> list[str]:
        """What ``mjenv play`` tells when :meth:`public_count` of seat ``s`` (called ``name``) grew."""
        return []

    def end_lines(self, game: Any, names: list[str], you: int) -> list[str] | None:
        """``mjenv play``'s lines for the wins of an ended hand, or None for the shared ones."""
        return None

    def view_notes(self, views: dict[str, Any], seat: int) -> str:
        """What the human agent's table adds to seat ``seat``'s row from its decoded views (``"; ..."``)."""
        return ""
