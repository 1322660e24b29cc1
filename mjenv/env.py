"""Four-player Mahjong as a PettingZoo environment.

```python
import mjenv
env = mjenv.parallel_env(rules="basic")          # ParallelEnv: every live agent acts every step
obs, infos = env.reset(seed=0)
while env.agents:
    actions = {a: env.action_space(a).sample(obs[a]["action_mask"]) for a in env.agents}
    obs, rewards, terminations, truncations, infos = env.step(actions)

aec = mjenv.env(rules="basic")                    # AEC: one agent at a time (OrderEnforcingWrapper)
```

| | |
|---|---|
| Import | `mjenv.parallel_env()`, `mjenv.env()`, `mjenv.raw_env` |
| Agents | `player_0`, `player_1`, `player_2`, `player_3` (seats 0..3; seat 0 deals first) |
| Action space | `Discrete(2T + 7)`: 61 for the papers' 108-tile game (T = 27), 75 with honours (T = 34) |
| Observation space | `Dict(observation=Box(float32[N]), action_mask=Box(int8[2T + 7]))`, N = {SIZE} for `"basic"` |
| Parallel | the pure game (`mjenv.game`) decides simultaneous claims by priority |

One hand of Mahjong per episode under a rule set of `mjenv.rules` (`"basic"` is the papers' game:
108 suited tiles, chow/pong/kong, win = four melds and a pair).

## Actions

{ACTIONS}

A seat with nothing to decide has exactly one legal action, PASS; a mask is never all zero.
In the parallel API every live agent sends an action every step (agents that are not deciding send
PASS; an omitted one counts as PASS).

## Claim windows and the AEC order

Under the default rules (`Rules.claim_window="always"`) every discard, and every added kong, is
followed by a claim (or rob-kong) step, whether or not anyone can claim: seats that cannot claim have
only PASS, and when nobody can, every agent just passes (`needs_action` is False for all four). So
the number of steps, the phases and everything a seat observes are the same whether or not an
opponent could have claimed (tested). `claim_window="when_possible"` restores the shorter game that
opens a window only when some seat can claim; it leaks that fact (a seat that sees phase `claim` with
only PASS legal learns that an opponent can claim) and is meant for speed, not for fair play.

The AEC API selects on a seat's own turn that seat, and in a claim or rob-kong window each of the
three other seats in turn order from the discarder (the kong's declarer), every time, including
seats whose only legal action is PASS and windows nobody can claim. Which agents are selected thus
depends only on public information (an agent selection is visible to every agent). The game applies
the answers of one window together, so no seat sees another's choice.

## Observation

`{"observation": float32[N], "action_mask": int8[2T + 7]}` for every live agent after every step.
Everything is seat-relative: index 0 = the observing seat, 1 = right (next to act), 2 = across,
3 = left. `mjenv.observation.decode(obs, rules=...)` returns these views by name (table for
`rules="basic"`):

{OBSERVATION}

`observation="oracle"` appends the hidden views `oracle_hands` (every seat's concealed tiles) and
`oracle_wall` (the wall in drawing order) for oracle-guided training. Nothing hidden is in the default
observation: a seat's default observation depends only on what that seat has seen (tested), and with
the default `claim_window="always"` so do the number of steps and the AEC agent order (see above).

## Infos

`infos[agent]`: `seat` (0..3), `needs_action` (the seat has a real choice now: it is in
`game.acting_seats()`, exactly when its mask holds an action other than PASS; False for every agent in
a window nobody can claim, and for AEC agents selected only to pass), `deficiency` (its own
knowledge-aware deficiency; 99 = incompletable), `potential` (the shaping potential of the current
state, see below), `illegal_action` (True only on the step an illegal action ended the hand), and on
the last step `scores` (the seat's score change) and `winners` (winning seats).

## Rewards

At the end of the hand each agent receives its score change (zero-sum; points from the rule set: a
discard win takes `discard_win_points` from the discarder, a self-draw `self_draw_points` from each
opponent; an exhaustive draw scores 0). Every other step rewards 0.

`shaping="deficiency"` adds potential-based shaping (Ng, Harada and Russell 1999, Theorem 1) to every
step: `F = gamma * Phi(s') - Phi(s)` with `Phi(s) = -min(deficiency, 15)` of the agent's own hand
under its own knowledge base, and `Phi = 0` at the end of the hand. 15 stands for INCOMPLETABLE: one
more than the largest deficiency a completable hand can have (14), so the potential stays finite. The
shaped terms telescope: over a hand the discounted sum of `F` is `-Phi(s_0)` whatever the policy, so
optimal policies are unchanged. `gamma` should equal the learner's discount.

An illegal action (not in the mask) ends the hand by default (`illegal_action="penalize"`): the
offending agent receives -1, the others 0 (as PettingZoo's classic games), and
`infos[offender]["illegal_action"] = True`. `illegal_action="raise"` raises a `ValueError` naming the
agent, the action and the legal actions instead. An action outside the action space always raises a
`ValueError`.

## Arguments

`raw_env`, `env` and `parallel_env` take the same keyword arguments:

| argument | default | meaning |
|---|---|---|
| `rules` | `"basic"` | preset name, `mjenv.rules.Rules` or dict |
| `render_mode` | `None` | `"ansi"` (text), `"human"` (printed after every reset and step), `"rgb_array"` |
| `render_seat` | `None` | `None` renders the full table; a seat 0..3 renders what that seat sees |
| `observation` | `"default"` | `"default"` or `"oracle"` |
| `shaping` | `None` | `None` or `"deficiency"` |
| `gamma` | `1.0` | discount used by the shaping term, in (0, 1] |
| `illegal_action` | `"penalize"` | `"penalize"` or `"raise"` |
| `log_dir` | `None` | a folder: each finished hand's game log is appended to `log_dir/hands.jsonl` |

## Seeding

`reset(seed=s)` seeds a `np.random.Generator`; the deal (the wall order, the only chance event of the
game) is drawn from it, so equal seeds give equal hands, observations, rewards and infos for equal
actions. `reset()` without a seed deals the next hand from the same generator.
`reset(options={"wall": wall, "dealer": d})` deals a chosen wall instead (int[N] tile ids in draw
order, e.g. from `mjenv.game.make_wall`; `dealer` defaults to 0; other keys are ignored): for scripted
hands in tests and demos. A bad wall or dealer raises the game's `ValueError`.

## Version history

* v0 (mjenv 0.1.0): first release. During its development the default became a claim window after
  every discard (`Rules.claim_window="always"`) with the AEC env selecting all three other seats in
  every window; hands logged before that replay as `claim_window="when_possible"`.
"""

from __future__ import annotations

import copy
import os
import sys
import types
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from mjenv.game import Phase
from mjenv.game.actions import CLAIM_NAMES, ActionLayout
from mjenv.observation import ObservationSpec
from mjenv.rules import Rules, get_rules


def _action_table(layout: ActionLayout) -> str:
    t = layout.num_tile_types
    rows = ["| id | action | when |", "|---|---|---|",
            f"| 0..{t - 1} | discard tile t | own turn |",
            f"| {t}..{2 * t - 1} | kong of tile t - {t} (concealed, or added to an exposed pong) | own turn |"]
    when = {"chow_low": "on the left seat's discard", "chow_mid": "on the left seat's discard",
            "chow_high": "on the left seat's discard", "pong": "on any discard",
            "exposed_kong": "on any discard", "win": "own turn (self-draw), a discard or a robbed kong",
            "pass": "whenever the seat decides; the only action of a seat with nothing to decide"}
    for i, name in enumerate(CLAIM_NAMES):
        rows.append(f"| {2 * t + i} | {name} | {when[name]} |")
    return "\n".join(rows)


__all__ = [
    "POTENTIAL_CAP",
    "MahjongParallelEnv",
    "env",
    "parallel_env",
    "potential",
    "raw_env",
    "replay_observations",
]

#: Deficiency counted for INCOMPLETABLE in the shaping potential (one more than any completable hand).
POTENTIAL_CAP = 15
AGENTS = tuple(f"player_{i}" for i in range(4))
OBSERVATIONS = ("default", "oracle")
SHAPINGS = (None, "deficiency")
ILLEGAL_ACTIONS = ("penalize", "raise")
RENDER_MODES = ("ansi", "human", "rgb_array")
#: Reward of an agent whose illegal action ended the hand (PettingZoo's classic games use -1).
ILLEGAL_REWARD = -1.0

# The documentation page above is completed from the one definition of each table.
__doc__ = (
    __doc__.replace("{ACTIONS}", _action_table(ActionLayout(27)))
    .replace("{OBSERVATION}", ObservationSpec("basic").markdown_table())
    .replace("{SIZE}", str(ObservationSpec("basic").size))
)


def potential(deficiency) -> np.ndarray:
    """Shaping potential of hands with these deficiencies: ``-min(deficiency, POTENTIAL_CAP)``.

    Args:
        deficiency: int array (any shape) of knowledge-aware deficiencies; INCOMPLETABLE (99) allowed.

    Returns:
        float64 array of the same shape, in ``[-POTENTIAL_CAP, 0]``.
    """
    return -np.minimum(np.asarray(deficiency), POTENTIAL_CAP).astype(np.float64)


class _Table:
    """The state both APIs share: the game, the options, and this step's observations and infos."""

    def __init__(
        self,
        rules: str | Rules | dict | None = "basic",
        render_mode: str | None = None,
        observation: str = "default",
        shaping: str | None = None,
        gamma: float = 1.0,
        illegal_action: str = "penalize",
        log_dir: str | os.PathLike | None = None,
        render_seat: int | None = None,
    ):
        self.rules = get_rules(rules)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        if shaping not in SHAPINGS:
            raise ValueError(f"shaping must be None or 'deficiency', got {shaping!r}")
        if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0.0 < float(gamma) <= 1.0:
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        if render_seat is not None and render_seat not in (0, 1, 2, 3):
            raise ValueError(f"render_seat must be None (full table) or a seat 0..3, got {render_seat!r}")
        self.render_mode = render_mode
        self.render_seat = render_seat
        self.observation_kind = observation
        self.shaping = shaping
        self.gamma = float(gamma)
        self.illegal_action = illegal_action
        self.log_dir = None if log_dir is None else os.fspath(log_dir)
        self.layout = ActionLayout(self.rules.num_tile_types)
        self.spec = ObservationSpec(self.rules, oracle=observation == "oracle")
        self.np_random, _ = seeding.np_random(None)
        self.game = None
        self.ended_by_illegal = False

    # -- state ------------------------------------------------------------------------------------

    def reset(self, seed: int | None, options: dict | None = None) -> None:
        from mjenv.game import Game

        wall, dealer = None, 0
        if options is not None:
            if not isinstance(options, dict):
                raise ValueError(f"reset options must be a dict or None, got {type(options).__name__}")
            # other keys are ignored, as gymnasium envs do (PettingZoo's api_test passes one)
            wall, dealer = options.get("wall"), options.get("dealer", 0)
        if seed is not None:
            self.np_random, _ = seeding.np_random(seed)
        game_seed = int(self.np_random.integers(0, 2**63 - 1))
        self.game = Game(rules=self.rules, seed=game_seed, dealer=dealer, wall=wall)
        self.ended_by_illegal = False
        self.illegal_seats: list[int] = []
        self._refresh()

    def _refresh(self) -> None:
        g = self.game
        self.obs, self.deficiency = self.spec.observe(g)
        self._potentials = None  # computed when asked (shaping, the vector env)
        self.masks = g.legal_action_masks()
        self.acting = [] if g.is_over else [int(s) for s in g.acting_seats()]

    def answering(self) -> list[int]:
        """Seats the AEC env selects for the current decision, in order: the current player on her turn;
        in a claim / rob-kong window the three other seats in turn order from the discarder (kong
        declarer), whether or not they can claim, so the selection reveals nothing hidden."""
        g = self.game
        if self.over:
            return []
        if g.phase in (Phase.CLAIM, Phase.ROB_KONG):
            d = int(g.last_discarder)
            return [(d + k) % 4 for k in (1, 2, 3)]
        return list(self.acting)

    @property
    def over(self) -> bool:
        return self.ended_by_illegal or bool(self.game.is_over)

    def potentials(self) -> np.ndarray:
        """float64[4] shaping potential of each seat in the current state (0 once the hand is over)."""
        if self.over:
            return np.zeros(4)
        if self._potentials is None:
            self._potentials = potential(self.deficiency)
        return self._potentials

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self.obs[seat], "action_mask": self.masks[seat]}

    def infos(self) -> dict[str, dict[str, Any]]:
        """Every agent's info for the current state (what :meth:`info` gives, built in one pass)."""
        defs = self.deficiency.tolist()
        # potential() of each seat, in Python: -min(deficiency, cap), 0 once the hand is over
        pots = [0.0] * 4 if self.over else [-float(min(d, POTENTIAL_CAP)) for d in defs]
        acting = self.acting
        return {a: self._info(i, i in acting, defs[i], pots[i]) for i, a in enumerate(AGENTS)}

    def _info(self, seat: int, needs_action: bool, deficiency: int, potential: float) -> dict[str, Any]:
        out = {"seat": seat, "needs_action": needs_action, "deficiency": deficiency, "potential": potential}
        if self.ended_by_illegal or self.game.phase == Phase.END:
            out["illegal_action"] = seat in self.illegal_seats
            out["scores"] = 0 if self.ended_by_illegal else int(self.game.scores[seat])
            out["winners"] = [] if self.ended_by_illegal else [int(w) for w in self.game.winners]
        return out

    # -- transitions ------------------------------------------------------------------------------

    def check_action(self, seat: int, action) -> int:
        """The action as an int; ValueError if it is outside the action space."""
        if type(action) is int and 0 <= action < self.layout.size:  # the common case
            return action
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = action.item()
            else:
                raise ValueError(
                    f"{AGENTS[seat]}: action must be an int in 0..{self.layout.size - 1}, got {action!r}"
                )
        a = int(action)
        if not 0 <= a < self.layout.size:
            raise ValueError(f"{AGENTS[seat]}: action {a} is outside the action space 0..{self.layout.size - 1}")
        return a

    def legal_names(self, seat: int) -> str:
        return ", ".join(f"{a} ({self.layout.describe(int(a))})" for a in np.flatnonzero(self.masks[seat]))

    def illegal(self, actions: dict[int, int]) -> list[int]:
        """Seats whose action is not in their mask; raises in ``illegal_action="raise"`` mode."""
        masks = self.masks
        bad = [s for s, a in actions.items() if not masks[s, a]]
        if bad and self.illegal_action == "raise":
            s = bad[0]
            raise ValueError(
                f"illegal action for {AGENTS[s]}: {actions[s]} ({self.layout.describe(actions[s])}); "
                f"legal actions: {self.legal_names(s)}"
            )
        return bad

    def apply(self, actions: dict[int, int]) -> np.ndarray:
        """Apply the deciding seats' actions (checked by the caller); returns float64[4] rewards."""
        shaped = self.shaping == "deficiency"
        before = self.potentials() if shaped else None
        bad = self.illegal(actions)
        rewards = np.zeros(4)
        acting = self.acting
        if bad:
            self.ended_by_illegal = True
            self.illegal_seats = bad
            # the state does not change, but callers keep what they were given: hand out fresh arrays
            self.obs = self.obs.copy()
            self.masks = self.masks.copy()
            rewards[bad] = ILLEGAL_REWARD
        else:
            # checked against the masks above (every acting seat has an action, see step): no second check
            chosen = [self.layout.pass_] * 4
            for s in acting:
                chosen[s] = actions[s]
            self.game._advance(chosen)
            self._refresh()
            if self.game.is_over:
                rewards += np.asarray(self.game.scores, dtype=np.float64)
        if shaped:
            rewards += self.gamma * self.potentials() - before
        if self.over:
            self.acting = []
            self.write_log()
        return rewards

    # -- logs and rendering -----------------------------------------------------------------------

    def write_log(self) -> None:
        """Append the finished hand to ``log_dir/hands.jsonl`` in the game's JSON-lines format."""
        if self.log_dir is None:
            return
        os.makedirs(self.log_dir, exist_ok=True)
        # a hand ended by an illegal action has no result line: its log stops at the last legal step
        self.game.to_jsonl(os.path.join(self.log_dir, "hands.jsonl"), append=True)

    def render(self):
        from mjenv import render as _render

        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass 'ansi', 'human' or 'rgb_array'")
            return None
        if self.game is None:
            raise ValueError("render() needs a hand: call reset() first")
        if self.render_mode == "rgb_array":
            return _render.render_rgb(self.game, seat=self.render_seat, acting=self.acting)
        text = _render.render_text(self.game, seat=self.render_seat, acting=self.acting)
        if self.render_mode == "human":
            print(text)
            return None
        return text


def _spaces(table: _Table):
    """Observation and action spaces, one object per agent (seeding one agent's leaves the others)."""
    template = spaces.Dict(
        {
            "observation": table.spec.space,
            "action_mask": spaces.Box(0, 1, (table.layout.size,), np.int8),
        }
    )
    # deepcopy, not a new Box: Box.__init__ formats its bounds for repr, slow for 1000+ entries
    obs_spaces = {a: copy.deepcopy(template) for a in AGENTS}
    act_spaces = {a: spaces.Discrete(table.layout.size) for a in AGENTS}
    return obs_spaces, act_spaces


class MahjongParallelEnv(ParallelEnv):
    """Four-player Mahjong, PettingZoo parallel API (see the module docstring)."""

    metadata = {"name": "mjenv_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": True, "render_fps": 1}

    def __init__(self, rules="basic", render_mode=None, observation="default", shaping=None, gamma=1.0,
                 illegal_action="penalize", log_dir=None, render_seat=None):
        self._table = _Table(rules, render_mode, observation, shaping, gamma, illegal_action, log_dir, render_seat)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces, self.action_spaces = _spaces(self._table)

    @property
    def game(self):
        """The underlying ``mjenv.game.Game`` (read it; stepping it directly desynchronises the env)."""
        return self._table.game

    @property
    def spec(self) -> ObservationSpec:
        return self._table.spec

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        t = self._table
        t.reset(seed, options)
        self.agents = list(AGENTS)
        if self.render_mode == "human":
            t.render()
        return {a: t.observation(i) for i, a in enumerate(AGENTS)}, t.infos()

    def step(self, actions: dict[str, Any]):
        t = self._table
        if not self.agents:
            raise ValueError("step() after the hand ended; call reset()")
        for a in actions:
            if a not in self.agents:
                raise ValueError(f"unknown or finished agent {a!r}; live agents: {self.agents}")
        chosen: dict[int, int] = {}
        for i, a in enumerate(AGENTS):
            if a in actions:
                chosen[i] = t.check_action(i, actions[a])
            elif i in t.acting:
                raise ValueError(f"{a} must act now (legal actions: {t.legal_names(i)}) but has no action")
        rewards = t.apply(chosen).tolist()
        over = t.over
        obs_rows, masks = t.obs, t.masks
        obs = {a: {"observation": obs_rows[i], "action_mask": masks[i]} for i, a in enumerate(AGENTS)}
        rew = dict(zip(AGENTS, rewards))
        term = dict.fromkeys(AGENTS, over)
        trunc = dict.fromkeys(AGENTS, False)
        infos = t.infos()
        if over:
            self.agents = []
        if self.render_mode == "human":
            t.render()
        return obs, rew, term, trunc, infos

    def render(self):
        return self._table.render()

    def close(self) -> None:
        pass


class raw_env(AECEnv):  # noqa: N801  (PettingZoo's name for the unwrapped AEC class)
    """Four-player Mahjong, PettingZoo AEC API (see the module docstring)."""

    metadata = {"name": "mjenv_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": True, "render_fps": 1}

    def __init__(self, rules="basic", render_mode=None, observation="default", shaping=None, gamma=1.0,
                 illegal_action="penalize", log_dir=None, render_seat=None):
        super().__init__()
        self._table = _Table(rules, render_mode, observation, shaping, gamma, illegal_action, log_dir, render_seat)
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = []
        self.observation_spaces, self.action_spaces = _spaces(self._table)

    @property
    def game(self):
        return self._table.game

    @property
    def spec(self) -> ObservationSpec:
        return self._table.spec

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        return self._table.observation(AGENTS.index(agent))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        t = self._table
        t.reset(seed, options)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = t.infos()
        self._pending: dict[int, int] = {}
        self._queue = t.answering()
        self.agent_selection = AGENTS[self._queue[0]]
        if self.render_mode == "human":
            t.render()

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        t = self._table
        seat = AGENTS.index(agent)
        a = t.check_action(seat, action)
        # checked before any state changes, so a caught ValueError leaves the env as it was
        bad = t.illegal({seat: a})
        self._cumulative_rewards[agent] = 0.0
        self._pending[seat] = a
        self._queue.pop(0)
        # an illegal action ends the hand at once; otherwise wait for every selected seat
        if self._queue and not bad:
            self._clear_rewards()
            self.agent_selection = AGENTS[self._queue[0]]
            self._accumulate_rewards()
            return
        pending, self._pending = self._pending, {}
        rewards = t.apply({seat: a} if bad else pending).tolist()
        self.rewards = dict(zip(AGENTS, rewards))
        self.infos = t.infos()
        if t.over:
            for ag in AGENTS:
                self.terminations[ag] = True
            self._queue = []
            self.agent_selection = AGENTS[(seat + 1) % 4]
        else:
            self._queue = t.answering()  # never empty while the hand goes on (see answering)
            self.agent_selection = AGENTS[self._queue[0]]
        self._accumulate_rewards()
        if self.render_mode == "human":
            t.render()

    def render(self):
        return self._table.render()

    def close(self) -> None:
        pass


def env(**kwargs) -> AECEnv:
    """The AEC environment with PettingZoo's standard wrappers (keyword arguments of ``raw_env``).

    Only ``OrderEnforcingWrapper`` is applied: ``raw_env`` already raises a ``ValueError`` for an
    action outside the action space (``AssertOutOfBoundsWrapper`` would raise a bare
    ``AssertionError`` first), and handles illegal actions itself (so no ``TerminateIllegalWrapper``).
    """
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with a direct ``last()``.

    The inherited ``last()`` reads five attributes through the wrapper's ``__getattr__`` chain on every
    call (about a tenth of an AEC step here); this one makes the same check (reset first) and asks the
    wrapped env, which returns the same tuple.
    """

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def parallel_env(**kwargs) -> MahjongParallelEnv:
    """The parallel environment (keyword arguments of :class:`MahjongParallelEnv`)."""
    return MahjongParallelEnv(**kwargs)


def replay_observations(log: dict | str | os.PathLike, observation: str = "default") -> list[np.ndarray]:
    """Observations of a logged hand, recomputed state by state from its log.

    Args:
        log: one hand's log dict (``game.log`` or an entry of ``mjenv.game.read_jsonl``), or a path
            to a JSON-lines file (its first hand).
        observation: ``"default"`` or ``"oracle"``.

    Returns:
        One float32[4, N] array per state of the hand (row s = seat s), from the deal to the last
        logged step, in order.

    Raises:
        ValueError: not a hand log, or an action that is illegal on replay.
    """
    from mjenv.game import Game, log_rules, read_jsonl

    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
    if not isinstance(log, dict):
        hands = read_jsonl(log)
        if not hands:
            raise ValueError(f"{log!s} holds no hand")
        log = hands[0]
    game = Game(log_rules(log), log["seed"], dealer=log["dealer"], wall=log.get("wall"))
    spec = ObservationSpec(game.rules, oracle=observation == "oracle")
    out = [spec.encode_all(game)]
    for i, step in enumerate(log["steps"]):
        try:
            game.step({int(seat): int(a) for seat, a in step})
        except ValueError as e:
            raise ValueError(f"replay step {i}: {e}") from e
        out.append(spec.encode_all(game))
    return out


# ``import mjenv.env`` binds the attribute ``mjenv.env`` to this module, shadowing the factory
# ``mjenv.env()``; a callable module keeps ``mjenv.env(...)`` working either way.
class _CallableModule(types.ModuleType):
    def __call__(self, **kwargs) -> AECEnv:
        return env(**kwargs)


sys.modules[__name__].__class__ = _CallableModule
