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
108 suited tiles, chow/pong/kong, win = four melds and a pair). A rule set whose room brings its own
engine (`RuleSet.own_engine`, see `mjenv.rulesets`) has its own actions, views, episodes and rewards,
documented by its room's env module (`mjenv.rulesets.room(name).own_engine` names it).

## Actions

{ACTIONS}

A seat with nothing to decide has exactly one legal action, PASS; a mask is never all zero. The
exception: a seat can also have exactly one legal action that is not PASS (a forced discard, e.g. when
it holds one kind of tile); it is deciding (`needs_action` is True) and PASS is illegal for it.
In the parallel API every live agent may send an action every step; an omitted agent takes its only
legal action when it has exactly one (PASS for a seat with nothing to decide, or the forced move),
and an omitted agent with a real choice is refused with a `ValueError`.

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

Where seven pairs win (`Rules.seven_pairs`, in any preset), every deficiency view of a seat with no
declared meld (`deficiency`, after each discard, claim or kong, the effective tiles and counts, and so
`infos["deficiency"]` and the shaping potential) is the minimum of melds-and-pair and the rule set's
seven pairs (its room says whether a four of a kind is two pairs), and a tile is effective when its
draw lowers that minimum. Where a room lets a seat declare a suit out of its hand, the views leave that
suit out (its tiles are in no completion; discarding one leaves the deficiency as it is).

`observation="oracle"` appends the hidden views `oracle_hands` (every seat's concealed tiles) and
`oracle_wall` (the wall in drawing order) for oracle-guided training. Nothing hidden is in the default
observation: a seat's default observation depends only on what that seat has seen (tested), and with
the default `claim_window="always"` so do the number of steps and the AEC agent order (see above).

`observation="planes"` hands the default observation as float32[C, T] tile planes for convolutional
networks (`mjenv.planes`: one plane per tile-shaped row, each seat's discard counts and last four
discards, each scalar as a constant plane; C = 55 for `"basic"`); `env.planes.decode(obs)` names them.

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

A rule set's room may add actions, views and a phase of its own, and may play on after a win
(`mjenv.rulesets`; `help(mjenv.rulesets.<name>)` tells each room's). Where the hand plays on, payments
are made when they happen and each step rewards that step's score changes, and a seat that wins leaves
the hand: it is terminated (the parallel env returns it once more, then drops it from `agents`; the
AEC env selects it once to step `None`) while the others play on.

`shaping="deficiency"` adds potential-based shaping (Ng, Harada and Russell 1999, Theorem 1) to every
step: `F = gamma * Phi(s') - Phi(s)` with `Phi(s) = -min(deficiency, 15)` of the agent's own hand
under its own knowledge base, and `Phi = 0` at the end of the hand. 15 stands for INCOMPLETABLE: one
more than the largest deficiency a completable hand can have (14), so the potential stays finite. The
shaped terms telescope: over a hand the discounted sum of `F` is `-Phi(s_0)` whatever the policy, so
optimal policies are unchanged. `gamma` must be the learner's discount per env step (a learner that
sees every env step of its seat, as `mjenv train ppo` does). A learner that acts only at its own
decisions should leave this env unshaped and shape between its decisions instead, with its own gamma:
`mjenv.wrappers.SingleAgentEnv(shaping=..., gamma=...)` and the RLlib adapter do exactly that
(`mjenv.shaping`; docs/TRAINING.md, "which gamma to pass").

An illegal action (not in the mask) ends the hand by default (`illegal_action="penalize"`): the
offending agent receives -1, the others 0 (as PettingZoo's classic games), and
`infos[offender]["illegal_action"] = True`. `illegal_action="raise"` raises a `ValueError` naming the
agent, the action and the legal actions instead. An action outside the action space (or not an
int) always raises a `ValueError` naming the agent, the allowed range and the legal actions; a
refused step changes nothing.

## Arguments

`raw_env`, `env` and `parallel_env` take the same keyword arguments:

| argument | default | meaning |
|---|---|---|
| `rules` | `"basic"` | preset name, `mjenv.rules.Rules` or dict |
| `render_mode` | `None` | `"ansi"` (text), `"human"` (printed after every reset and step), `"rgb_array"` |
| `render_seat` | `None` | `None` renders the full table; a seat 0..3 renders what that seat sees |
| `observation` | `"default"` | `"default"`, `"oracle"` or `"planes"` |
| `shaping` | `None` | `None` or `"deficiency"` |
| `gamma` | `1.0` | discount used by the shaping term, in (0, 1] |
| `illegal_action` | `"penalize"` | `"penalize"` or `"raise"` |
| `log_dir` | `None` | a folder: each finished hand's game log is appended to `log_dir/hands.jsonl` |
| `engine` | `"auto"` | the compiled step where it applies (`"auto"`), `"compiled"` or `"python"`; see `env.engine` |

## Seeding

`reset(seed=s)` (an int >= 0, numpy integers included; anything else raises `ValueError`) seeds a
`np.random.Generator`; the deal (the wall order, the only chance event of the
game) is drawn from it, so equal seeds give equal hands, observations, rewards and infos for equal
actions. `reset()` without a seed deals the next hand from the same generator.
`reset(options={"wall": wall, "dealer": d})` deals a chosen wall instead (int[N] tile ids in draw
order, e.g. from `mjenv.game.make_wall`; `dealer` defaults to 0; other keys are ignored): for scripted
hands in tests and demos. A bad wall or dealer raises the game's `ValueError`. `step()` before the
first `reset()` raises a `ValueError` saying so.

## Version history

* v0 (mjenv 0.1.0): first release. During its development the default became a claim window after
  every discard (`Rules.claim_window="always"`) with the AEC env selecting all three other seats in
  every window; hands logged before that replay as `claim_window="when_possible"`.
* v0, observation layout 2: two per-action views appended after `deficiency_after_claim`,
  `effective_count_after_discard` and `deficiency_after_kong` (T entries each, -1 off the discard
  turn); the observation grows by 2T (511 -> 565 for `"basic"`). Every other view is unchanged; a
  policy checkpoint of the old layout reads the new one (`mjenv.baselines.policy.PolicyNet`).
* v0: the rooms' own rule sets (:mod:`mjenv.rulesets`; each room's docstring gives its own changes
  to the actions and the observation). Every other preset is unchanged.
* v0 (seven pairs in the features): where seven pairs win (any `seven_pairs=True`) the deficiency
  views, `infos["deficiency"]` and the shaping potential of a seat with no declared meld count seven
  pairs too (see Observation); they counted melds-and-pair only. Same layout; the values change only
  under those rule sets (their behaviour digests were re-recorded).
"""

from __future__ import annotations

import copy
import os
import sys
import types
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from mjenv import AGENTS, rulesets
from mjenv._extras import reject_unknown_keywords
from mjenv.compiled_table import OMITTED, CompiledTable, single_table
from mjenv.contract import leaving, parallel_dicts
from mjenv.game.actions import CLAIM_NAMES, ActionLayout
from mjenv.observation import ObservationSpec

# the tables and the one end of a step (re-exported: ``mjenv.env.POTENTIAL_CAP`` and the others are public)
from mjenv.tables import (  # noqa: F401  (check_gamma, deal_game, ILLEGAL_REWARD: re-exported)
    ILLEGAL_REWARD,
    OBSERVATIONS,
    POTENTIAL_CAP,
    PythonTables,
    _Table,
    check_gamma,
    deal_game,
    potential,
    step_tables,
)


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

RENDER_MODES = ("ansi", "human", "rgb_array")
#: the env's observation options: the tables' and the tile planes derived from the default one
ENV_OBSERVATIONS = (*OBSERVATIONS, "planes")
_SEAT = {a: s for s, a in enumerate(AGENTS)}
_A0, _A1, _A2, _A3 = AGENTS

# The documentation page above is completed from the one definition of each table.
__doc__ = (
    __doc__.replace("{ACTIONS}", _action_table(ActionLayout(27)))
    .replace("{OBSERVATION}", ObservationSpec("basic").markdown_table())
    .replace("{SIZE}", str(ObservationSpec("basic").size))
)


class _Output:
    """What a table shows outside its state: the hand logs and the rendering."""

    def __init__(self, render_mode: str | None = None, log_dir: str | os.PathLike | None = None,
                 render_seat: int | None = None):
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if render_seat is not None and render_seat not in (0, 1, 2, 3):
            raise ValueError(f"render_seat must be None (full table) or a seat 0..3, got {render_seat!r}")
        self.render_mode = render_mode
        self.render_seat = render_seat
        self.log_dir = None if log_dir is None else os.fspath(log_dir)

    def write_log(self, game) -> None:
        """Append the finished hand to ``log_dir/hands.jsonl`` in the game's JSON-lines format."""
        if self.log_dir is None:
            return
        os.makedirs(self.log_dir, exist_ok=True)
        # a hand ended by an illegal action has no result line: its log stops at the last legal step
        game.to_jsonl(os.path.join(self.log_dir, "hands.jsonl"), append=True)

    def render(self, table: _Table):
        from mjenv import render as _render

        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass 'ansi', 'human' or 'rgb_array'")
            return None
        if table.game is None:
            raise ValueError("render() needs a hand: call reset() first")
        if self.render_mode == "rgb_array":
            return _render.render_rgb(table.game, seat=self.render_seat, acting=table.acting)
        if self.render_mode == "human":
            # a pygame window kept on this output (text with a one-line note without pygame or a display)
            return _render.render_human(self, table.game, seat=self.render_seat, acting=table.acting)
        return _render.render_text(table.game, seat=self.render_seat, acting=table.acting)


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


class _Shell:
    """What the parallel and the AEC env share: the constructor, the properties, rendering."""

    metadata = {"name": "mjenv_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": True, "render_fps": 1}

    def __init__(self, rules="basic", render_mode=None, observation="default", shaping=None, gamma=1.0,
                 illegal_action="penalize", log_dir=None, render_seat=None, engine="auto", **unknown):
        reject_unknown_keywords(type(self).__name__, unknown, _Shell.__init__)
        self._output = _Output(render_mode, log_dir, render_seat)
        if observation not in ENV_OBSERVATIONS:
            raise ValueError(f"observation must be one of {ENV_OBSERVATIONS}, got {observation!r}")
        planes = observation == "planes"  # derived from the default observation (mjenv.planes)
        # the compiled step's one table where it applies (mjenv.compiled_table), else a Game's
        self._table = single_table(engine, rules, "default" if planes else observation, shaping, gamma, illegal_action)
        #: the engine the table runs on, "compiled" or "python"
        self.engine = "compiled" if isinstance(self._table, CompiledTable) else "python"
        self._quick = self.engine == "compiled"
        self._plays_on = self._table.plays_on
        self._tables = PythonTables([self._table], self._output)  # what step_tables steps
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self.observation_spaces, self.action_spaces = _spaces(self._table)
        if planes:
            from mjenv.planes import attach_planes

            attach_planes(self)

    @property
    def game(self):
        """The underlying ``mjenv.game.Game`` (read it; stepping it directly desynchronises the env).

        On the compiled engine it is rebuilt on demand (``mjenv.compiled_table``): the same object through a
        hand, brought up to date each time this property is read, so read it again after a step.
        """
        return self._table.game

    @property
    def spec(self) -> ObservationSpec:
        return self._table.spec

    @property
    def pass_action(self) -> int:
        """The PASS action's id (the one legal action of a seat with nothing to decide)."""
        return self._table.layout.pass_

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _start(self, seed, options) -> None:
        self._table.reset(seed, options)
        self.agents = list(AGENTS)

    def _check_started(self) -> None:
        # agents is empty before the first reset (a compiled table's game is built when asked: not per step)
        if not self.agents and self._table.game is None:
            raise ValueError("step() before reset(); call reset() first")

    def _rendered(self) -> None:
        if self.render_mode == "human":
            self._output.render(self._table)

    def render(self):
        return self._output.render(self._table)

    def close(self) -> None:
        window = getattr(self._output, "_window", None)  # render_mode="human" opens one on first render
        if window is not None:
            window.close()


class MahjongParallelEnv(_Shell, ParallelEnv):
    """Four-player Mahjong, PettingZoo parallel API (see the module docstring)."""

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._start(seed, options)
        self._live = list(AGENTS)  # a hand that plays on after a win: the agents live before the next step
        self._rendered()
        t = self._table
        return {a: t.observation(i) for i, a in enumerate(AGENTS)}, t.infos()

    def step(self, actions: dict[str, Any]):
        t = self._table
        # a compiled table moves on well-formed legal actions in one C call that returns arrays; the dicts are
        # mjenv.contract's (None: the checks below)
        if self._quick and type(actions) is dict:
            chosen = [OMITTED, OMITTED, OMITTED, OMITTED]
            try:
                for a, x in actions.items():
                    chosen[_SEAT[a]] = x
            except (KeyError, TypeError):  # not an agent: the checks below say so
                out = None
            else:  # (an action of an agent that has left a game that plays on: the checks below refuse it)
                left = self._plays_on and len(self.agents) < 4 and any(a not in self.agents for a in actions)
                out = None if left else t.step_quick(chosen)
            if out is not None:
                if out[3]:  # the hand is over
                    self.agents = []
                    self._tables.finish([0])  # step_tables' end of a hand: the log
                if self._plays_on:  # winners leave; the dicts hold the agents live before
                    return self._play_on_step(parallel_dicts(*out))
                if self.render_mode == "human":
                    self._output.render(t)
                return parallel_dicts(*out)
        self._check_started()
        if not self.agents:
            raise ValueError("step() after the hand ended; call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        for a in actions:
            if a not in self.agents:
                raise ValueError(f"unknown or finished agent {a!r}; live agents: {self.agents}")
        rewards = step_tables(self._tables, [{_SEAT[a]: x for a, x in actions.items()}]).rewards[0].tolist()
        over = t.over  # the hand was live before this step
        dicts = parallel_dicts(t.obs, t.masks, rewards, over, t.infos())
        if over:
            self.agents = []
        if t.plays_on:  # winners leave; the dicts hold the agents live before
            return self._play_on_step(dicts)
        self._rendered()
        return dicts

    def _play_on_step(self, dicts):
        """A hand that plays on after a win: a seat that has won is terminated and leaves ``agents``; every
        returned dict holds the agents that were live before this step (PettingZoo's parallel
        convention), so a winner gets its last observation, reward and ``terminated=True`` once."""
        live = self._live  # in agent order
        term, self._live = leaving(live, not self.agents, self._table.won.tolist())
        self.agents = self._live
        self._rendered()
        obs, rew, _, trunc, infos = dicts
        if len(live) == 4:  # nobody had left: the dicts as they are
            return obs, rew, term, trunc, infos
        return tuple({a: d[a] for a in live} for d in (obs, rew, term, trunc, infos))


class AECTurns:
    """The AEC turns, written once for every AEC env (mixed in before ``AECEnv``; the rule sets' own AEC envs use it
    too).

    On a seat's own turn that seat is selected, in a claim window each seat ``answering()`` names; the answers of
    one window are kept and moved together (so no seat sees another's choice), and an illegal action moves at
    once (it ends the episode). The env provides ``_table`` (``check_action``, ``masks``, ``illegal``,
    ``answering``, ``infos``, ``over``, ``plays_on``), ``_start(seed, options)``, ``_check_started()``,
    ``_rendered()`` and :meth:`_move`; an env whose hands play on after a win also ``_play_on_step``.
    """

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._start(seed, options)
        t = self._table
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = t.infos()
        self._pending: dict[int, int] = {}
        self._queue = t.answering()
        self.agent_selection = AGENTS[self._queue[0]]
        self._rendered()

    def _move(self, actions: dict[int, int], bad: bool) -> tuple[list[float], dict | None]:
        """Move the table with the selected seats' ``actions`` (``bad``: one illegal action, the episode ends);
        the four rewards, and the infos where the move made them (None: ``_table.infos()``)."""
        raise NotImplementedError

    def step(self, action) -> None:
        self._check_started()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        t = self._table
        seat = _SEAT[agent]
        a = t.check_action(seat, action)
        # checked before any state changes, so a caught ValueError leaves the env as it was
        bad = [] if t.masks[seat, a] else t.illegal({seat: a})  # illegal() raises in "raise" mode
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
        # every acting seat was selected, so nothing is omitted but seats with PASS only
        rewards, infos = self._move({seat: a} if bad else pending, bool(bad))
        if t.plays_on:  # winners leave, the others play on
            self._play_on_step(rewards, seat)
            return
        self.rewards = dict(zip(AGENTS, rewards))
        self.infos = t.infos() if infos is None else infos
        if t.over:
            for ag in AGENTS:
                self.terminations[ag] = True
            self._queue = []
            self.agent_selection = AGENTS[(seat + 1) % 4]
        else:
            self._queue = t.answering()  # never empty while the hand goes on (see answering)
            self.agent_selection = AGENTS[self._queue[0]]
        self._accumulate_rewards()
        self._rendered()


class raw_env(_Shell, AECTurns, AECEnv):  # noqa: N801  (PettingZoo's name for the unwrapped AEC class)
    """Four-player Mahjong, PettingZoo AEC API (see the module docstring)."""

    def observe(self, agent):
        return self._table.observation(_SEAT[agent])

    def last(self, observe: bool = True):
        """PettingZoo's ``last()``: the selected agent's observation, reward, terminated, truncated, info.

        Raises:
            ValueError: the hand is over and every agent has stepped its last (``None``) action; call
                ``reset()`` (``agent_iter()`` stops there).
        """
        if not self.agents and self._table.game is not None:
            raise ValueError("last() after the hand ended: every agent has left; call reset() for a new hand")
        return super().last(observe)

    def _move(self, actions: dict[int, int], bad: bool) -> tuple[list[float], dict | None]:
        t = self._table
        if self._quick and not bad:  # the compiled table moves the checked actions at once
            chosen = [t.layout.pass_] * 4
            for s, x in actions.items():
                chosen[s] = x
            out = t.step_quick(chosen)
            if out is None:
                raise RuntimeError("mjenv.env: the compiled step refused actions the legal masks allow")
            _, _, rewards, over, infos = out
            if over:
                self._tables.finish([0])  # step_tables' end of a hand: the log
            return rewards, infos
        return step_tables(self._tables, [actions]).rewards[0].tolist(), None

    def _play_on_step(self, rewards: list[float], seat: int) -> None:
        """The end of an AEC step of a hand that plays on after a win: the agents still in ``agents`` get
        their rewards and infos; a seat that has just won (all of them at the end of the hand) is
        terminated and, by PettingZoo's dead-agent convention, selected first to step ``None`` and
        leave (``_deads_step_first`` / ``_was_dead_step``), before play goes on."""
        t = self._table
        infos = t.infos()
        self.rewards = {a: rewards[_SEAT[a]] for a in self.agents}
        self.infos = {a: infos[a] for a in self.agents}
        won = t.won
        for a in self.agents:
            if t.over or won[_SEAT[a]]:
                self.terminations[a] = True
        self._queue = [] if t.over else t.answering()
        self.agent_selection = AGENTS[self._queue[0]] if self._queue else AGENTS[(seat + 1) % 4]
        if self.agent_selection not in self.agents:  # the hand is over: any agent left goes first
            self.agent_selection = self.agents[0]
        self._accumulate_rewards()
        self._deads_step_first()
        self._rendered()


def env(**kwargs) -> AECEnv:
    """The AEC environment with PettingZoo's standard wrappers (keyword arguments of ``raw_env``).

    Only ``OrderEnforcingWrapper`` is applied (its ``step()`` before ``reset()`` raises a ``ValueError``
    here, as every shell's does): ``raw_env`` already raises a ``ValueError`` for an
    action outside the action space (``AssertOutOfBoundsWrapper`` would raise a bare
    ``AssertionError`` first), and handles illegal actions itself (so no ``TerminateIllegalWrapper``).
    """
    own = rulesets.own_engine(kwargs.get("rules", "basic"))
    if own is not None:  # a rule set with an engine and env shells of its own
        return own.make_env(**kwargs)
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

    def step(self, action) -> None:
        if not self._has_reset:  # the wrapper's own check raises a bare AssertionError
            raise ValueError("step() before reset(); call reset() first")
        super().step(action)


def parallel_env(**kwargs) -> MahjongParallelEnv:
    """The parallel environment (keyword arguments of :class:`MahjongParallelEnv`; a rule set whose room
    brings its own env shells, :func:`mjenv.rulesets.own_engine`, builds its own from them)."""
    own = rulesets.own_engine(kwargs.get("rules", "basic"))
    if own is not None:
        return own.make_parallel_env(**kwargs)
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
        ValueError: not a hand log, a malformed step, or an action that is illegal on replay
            (:func:`mjenv.game.replay_states`).
    """
    from mjenv.game import replay_states

    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
    out, spec = [], None
    for game in replay_states(log):
        if spec is None:
            spec = ObservationSpec(game.rules, oracle=observation == "oracle")
        out.append(spec.encode_all(game))
    return out


# ``import mjenv.env`` binds the attribute ``mjenv.env`` to this module, shadowing the factory
# ``mjenv.env()``; a callable module keeps ``mjenv.env(...)`` working either way.
class _CallableModule(types.ModuleType):
    def __call__(self, **kwargs) -> AECEnv:
        return env(**kwargs)


sys.modules[__name__].__class__ = _CallableModule
