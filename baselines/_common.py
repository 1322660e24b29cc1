"""What every baseline agent shares: reading its own observation, seeding, the ``act`` contract.

An agent sees exactly what the environment gives its seat: ``{"observation": float32[size],
"action_mask": int8[A]}``. It decodes the array with the observation spec of the rules it was built
for (``mjenv.observation``, named views as in ``docs/ARCHITECTURE.md``) and turns the views it needs
into a :class:`Situation` of small integer arrays. Agents never receive a ``Game``: this module is the
only door between an agent and the world, and it takes an observation, nothing else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mjenv.game.actions import ActionLayout, Phase
from mjenv.rules import Rules, get_rules
from mjenv.rulesets import agent_parts, excluded_suit_view

#: Short names of the :class:`~mjenv.game.Phase` members, which index the one-hot ``phase`` view
#: (the agents compare ``Situation.phase`` with them; they never see a game).
PHASE_DISCARD, PHASE_CLAIM, PHASE_ROB_KONG, PHASE_END, PHASE_DECLARE = Phase


@dataclass(frozen=True)
class Situation:
    """One seat's decision point, read from its own observation.

    Attributes:
        hand: int16[T] own concealed tile counts (the drawn tile included).
        kb: int16[T] knowledge base: copies of each tile this seat has not seen.
        melds_needed: melds still to form (``rules.melds`` minus own declared melds).
        phase: the :class:`~mjenv.game.Phase` value (``PHASE_DISCARD``, ``PHASE_CLAIM``,
            ``PHASE_ROB_KONG``, ``PHASE_END``, ``PHASE_DECLARE``: a room's suit declaration).
        last_discard: tile id awaiting claims (the robbed tile in ``PHASE_ROB_KONG``), -1 when none.
        wall_count: tiles left in the wall.
        mask: bool[A] legal actions.
        layout: the action ids of these rules.
        excluded_suit: own declared missing suit (0..2; the view its room names,
            :func:`mjenv.rulesets.excluded_suit_view`), -1 before the declaration and under rules without
            one. Once declared, ``kb`` counts no tile of that suit: the seat will keep none, so none is
            available to it (as in :func:`mjenv.deficiency.forms.without_suit`).
    """

    hand: np.ndarray
    kb: np.ndarray
    melds_needed: int
    phase: int
    last_discard: int
    wall_count: int
    mask: np.ndarray
    layout: ActionLayout
    excluded_suit: int = -1

    @property
    def legal(self) -> np.ndarray:
        """int64[k] legal action ids, ascending."""
        return np.flatnonzero(self.mask)


def situation_from_views(views: dict[str, np.ndarray], action_mask: np.ndarray, rules: Rules) -> Situation:
    """Build a :class:`Situation` from decoded observation views and the legal-action mask.

    Args:
        views: decoded views (``hand``, ``knowledge_base``, ``num_melds``, ``last_discard``, ``phase``,
            ``wall_count``; others ignored), float or int arrays.
        action_mask: int8/bool[A] legal actions, A = 2T + 7.
        rules: the rules the observation was encoded with.

    Raises:
        ValueError: a missing view, a mask of the wrong length or with no legal action.
    """
    layout = ActionLayout.for_rules(rules)
    needed = ("hand", "knowledge_base", "num_melds", "last_discard", "phase", "wall_count")
    missing = [k for k in needed if k not in views]
    if missing:
        raise ValueError(f"observation views missing {missing}; an agent needs {list(needed)}")
    mask = np.asarray(action_mask).astype(bool).reshape(-1)
    if mask.shape != (layout.size,):
        raise ValueError(
            f"action_mask has {mask.size} entries; rules {rules.name!r} have {layout.size} actions "
            "(build the agent with the rules the environment uses)"
        )
    if not mask.any():
        raise ValueError("action_mask has no legal action; the environment always leaves at least PASS legal")
    hand = np.rint(np.asarray(views["hand"], dtype=np.float64)).astype(np.int16).reshape(-1)
    kb = np.rint(np.asarray(views["knowledge_base"], dtype=np.float64)).astype(np.int16).reshape(-1)
    num_melds = np.rint(np.asarray(views["num_melds"], dtype=np.float64)).astype(np.int64).reshape(-1)
    last = np.asarray(views["last_discard"]).reshape(-1)
    phase = np.asarray(views["phase"]).reshape(-1)
    missing = -1
    declared = excluded_suit_view(rules)
    if declared in views:  # own row of the public declarations
        own = np.asarray(views[declared]).reshape(4, 3)[0]
        if own.max() > 0:
            missing = int(np.argmax(own))
            kb[9 * missing : 9 * missing + 9] = 0
    return Situation(
        hand=hand,
        kb=kb,
        melds_needed=int(rules.melds - num_melds[0]),
        phase=int(np.argmax(phase)),
        last_discard=int(np.argmax(last)) if last.max() > 0 else -1,
        wall_count=int(round(float(np.asarray(views["wall_count"]).reshape(-1)[0]))),
        mask=mask,
        layout=layout,
        excluded_suit=missing,
    )


def room_agent(cls: type, rules: Any) -> type | None:
    """The room's subclass of agent class ``cls`` for ``rules`` (see ``RuleSet.own_agents``), or None when the
    room of those rules has none (the shared agent plays them)."""
    import importlib

    from mjenv.rulesets import ROOMS, room

    name = rules.get("name") if isinstance(rules, dict) else getattr(rules, "name", rules)
    if not isinstance(name, str) or name not in ROOMS or room(name).own_agents is None:
        return None
    sub = importlib.import_module(room(name).own_agents).AGENTS.get(cls.name)
    return sub if sub is not None and sub is not cls and issubclass(sub, cls) else None


def forced_action(observation: Any, size: int, num_actions: int) -> int | None:
    """The only legal action of a well-formed observation dict (an array of ``size`` entries, a mask of
    ``num_actions``) whose mask allows exactly one; else None, and the agent decodes the observation (and says what
    is wrong with a malformed one)."""
    if not isinstance(observation, dict) or "observation" not in observation or "action_mask" not in observation:
        return None
    mask = np.asarray(observation["action_mask"])
    if mask.shape != (num_actions,) or np.shape(observation["observation"]) != (size,):
        return None
    legal = np.flatnonzero(mask)
    return int(legal[0]) if len(legal) == 1 else None


class Agent:
    """Base class: seeding, rules, and ``act(observation) -> action id``.

    Subclasses implement :meth:`decide` on a :class:`Situation`. The observation spec is built once
    per agent; ``mjenv.observation`` is imported lazily so pure decision code (and its tests) runs on
    hand-made situations.

    Args:
        seed: seed of the agent's own ``np.random.Generator`` (reset with :meth:`reset`).
        rules: preset name or :class:`~mjenv.rules.Rules` the observations are encoded with.
    """

    name = "agent"
    #: Whether :meth:`decide` answers a seat with one legal action with that action and nothing else (no draw from
    #: the generator, nothing kept): then :meth:`act` answers such a seat without decoding its observation (most
    #: seats at most steps have only PASS).
    answers_forced_at_once = False

    def __new__(cls, *args: Any, **kwargs: Any):
        # a rule set whose room brings its own agents (RuleSet.own_agents) gets the room's subclass of this
        # agent (the room's greedy for GreedyAgent(rules=<its name>))
        rules = kwargs.get("rules", args[1] if len(args) > 1 else None)
        sub = room_agent(cls, rules) if rules is not None else None
        return object.__new__(sub or cls)

    def __init__(self, seed: int | None = 0, rules: str | Rules = "basic") -> None:
        self.rules = get_rules(rules)
        self.layout = ActionLayout.for_rules(self.rules)
        self._spec = None
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent (the evaluation harness calls this once per hand for reproducibility)."""
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def _decoder(self):
        """The observation spec of this agent's rules (built on first use)."""
        if self._spec is None:
            from mjenv.observation import ObservationSpec

            self._spec = ObservationSpec(rules=self.rules)
        return self._spec

    def _decode(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        return self._decoder().decode(np.asarray(observation))

    def situation(self, observation: dict[str, Any]) -> Situation:
        """Decode one seat's observation dict (``{"observation", "action_mask"}``)."""
        if not isinstance(observation, dict) or "observation" not in observation or "action_mask" not in observation:
            raise ValueError(
                "act() takes one seat's observation: a dict with keys 'observation' (the array) and "
                f"'action_mask'; got {type(observation).__name__}"
                + (f" with keys {sorted(observation)}" if isinstance(observation, dict) else "")
            )
        views = self._decode(observation["observation"])
        return situation_from_views(views, observation["action_mask"], self.rules)

    def act(self, observation: dict[str, Any]) -> int:
        """Choose a legal action id from this seat's observation dict."""
        if self.answers_forced_at_once:
            forced = forced_action(observation, self._decoder().size, self.layout.size)
            if forced is not None:
                return forced
        return int(self.decide(self.situation(observation)))

    @classmethod
    def act_rows(cls, agents: Sequence[Agent], observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``agents[i].act`` on row i, for agents of this class: what :func:`act_rows` calls.

        Subclasses override it to decide many rows in one call (the same actions, the same random
        draws from each agent's own generator); this default calls :meth:`act` row by row.

        Args:
            agents: B agents of this class (one per row; an agent may appear more than once).
            observations: float32[B, size], each row one seat's observation.
            masks: int8/bool[B, A] the rows' legal actions.

        Returns:
            int64[B] action ids.
        """
        return np.array([a.act({"observation": o, "action_mask": m}) for a, o, m in zip(agents, observations, masks)],
                        dtype=np.int64)

    def own_phase(self, s: Situation) -> int:
        """The decision in a phase of the rule set's own (after ``PHASE_END``): its room's agent part
        (:class:`mjenv.rulesets.protocol.AgentParts`)."""
        parts = agent_parts(self.rules)
        if parts is None:
            raise ValueError(f"phase {s.phase!r} is not a phase of rules {self.rules.name!r}")
        return parts.own_phase(s)

    def decide(self, s: Situation) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r}, rules={self.rules.name!r})"


def act_rows(agents: Sequence[Agent], observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Each agent's action on its own row, the agents of one class deciding together.

    The same actions as ``[agents[i].act({"observation": observations[i], "action_mask": masks[i]})]``
    (each agent's own random generator is drawn in row order), but one call per agent class: a
    training loop's opponents at every table in one batch.

    Args:
        agents: B agents.
        observations: float32[B, size] observation rows.
        masks: int8/bool[B, A] legal-action rows.

    Returns:
        int64[B] action ids.

    Raises:
        ValueError: a count of agents, observations and masks that differ.
    """
    if not (len(agents) == len(observations) == len(masks)):
        raise ValueError(f"act_rows needs one agent per row: {len(agents)} agents, {len(observations)} observations, "
                         f"{len(masks)} masks")
    out = np.zeros(len(agents), dtype=np.int64)
    by_class: dict[type, list[int]] = {}
    for i, a in enumerate(agents):
        by_class.setdefault(type(a), []).append(i)
    for cls, rows in by_class.items():
        idx = np.array(rows)
        out[idx] = cls.act_rows([agents[i] for i in rows], observations[idx], masks[idx])
    return out
