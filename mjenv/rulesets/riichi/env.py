"""Riichi Mahjong (Tenhou's ranked four-player rules) as PettingZoo and gymnasium-style vector environments.

```python
import mjenv
env = mjenv.parallel_env(rules="riichi")                 # a whole hanchan per episode
obs, infos = env.reset(seed=0)
while env.agents:
    actions = {a: env.action_space(a).sample(obs[a]["action_mask"]) for a in env.agents}
    obs, rewards, terminations, truncations, infos = env.step(actions)

aec = mjenv.env(rules="riichi", episode="hand")          # AEC: one agent at a time
venv = mjenv.vector_env(8, rules="riichi", episode="east")
```

| | |
|---|---|
| Agents | `player_0` .. `player_3` (seat 0 is the first dealer, East) |
| Action space | `Discrete(85)` (table below); the mask of every agent every step |
| Observation space | `Dict(observation=Box(float32[{SIZE}]), action_mask=Box(int8[85]))` |
| Episodes | `episode=`: `"hanchan"` (default, East-South), `"east"`, `"hand"` (one hand from 25,000 each) |
| Rewards | `reward="points"` (default): each hand's score change, in thousands; `"rank"`: placement points |
| Engine | pure Python (`mjenv.rulesets.riichi.game.RiichiGame`) |

## Rules

Tenhou's ranked four-player rules (hanchan, red fives, open tanyao); sources:
[riichi.wiki](https://riichi.wiki) and Tenhou's rule page (<https://tenhou.net/man/>).

- Tiles: 136, one red five per suit (each a dora); a 14-tile dead wall; dora, kan dora, ura dora. A
  closed kan shows its new indicator at once, an open or added kan after the replacement draw, before
  the next discard.
- Calls: chi, pon, open kan, added kan, closed kan; ron > pon/kan > chi; kuikae (swap-calling)
  forbidden; a red five is its own choice in calls and discards.
- Riichi: a closed tenpai, at least 1,000 points and 4 live tiles; deposit, ippatsu, double riichi;
  after riichi only closed kans of the drawn tile that keep the waits.
- Wins: at least one yaku; furiten (permanent, same-turn, riichi); haitei/houtei, rinshan, chankan;
  double ron (the seat nearest the discarder takes honba and sticks); pao for big three dragons and
  big four winds.
- Thirteen orphans may rob a closed kan by default (`kokushi_robs_ankan=True`, the project's rule
  list); Tenhou itself does not allow it: `kokushi_robs_ankan=False` plays Tenhou's rule.
- Draws: exhaustive (tenpai/noten 3,000), nagashi mangan; abortive: nine terminals (action 83), four
  winds, four riichi, four kans, triple ron.
- The game: the dealer repeats on a win or tenpai; honba and sticks carry over; a score below zero
  ends it; agari-yame; extension into West (South for an east-only game) until someone has 30,000.
- Scoring: han and fu for every yaku and yakuman on Tenhou's list; kazoe yakuman; no kiriage mangan;
  no double yakuman. Final: start 25,000, return 30,000, uma +20/+10/-10/-20, oka and leftover
  sticks to the first; ties go to the seat nearer the first dealer.

## Actions

{ACTIONS}

A seat with nothing to decide has exactly one legal action, PASS (84). After every discard, and every
kan, a claim (or kan-robbing) window opens whether or not anyone can claim: seats that cannot have
only PASS, so the steps and phases a seat sees say nothing about the other hands. In the parallel API
an omitted agent takes PASS when PASS is its only legal action; an omitted agent with a real choice is
refused with a `ValueError`. The AEC API selects the seat on its turn and, in a window, each of the
three other seats in turn order from the discarder, every time.

`claim_window="when_possible"` (not the default) opens a window only when some seat can claim (or rob
the kan): a window nobody can use is resolved inside the step of its discard or kan, as
`RiichiGame(claim_window="when_possible")` does, so a hand takes about 40% fewer steps (about 90 instead
of about 153 in random play). It leaks: a seat that sees a window in which it has only PASS learns that
an opponent can claim the tile (a pon, a chi or a ron wait), and a discard followed by no window tells
every seat that nobody could. It is meant for speed, not for fair play; the default `"always"` leaks nothing. In
the AEC API a window then always has a seat that can claim, and the three other seats are selected as
above. Both engines play either window, with the same arrays; the log record keeps the window (see
`log_dir`), so the replay, the viewer and the compiled engine's `game` follow it.

## Observation

`{"observation": float32[{SIZE}], "action_mask": int8[85]}` for every agent after every step.
`mjenv.rulesets.riichi.observation.decode(obs)` (or `env.spec.decode(obs)`) returns the views by name
(rows seat-relative: 0 = self, 1 = right, 2 = across, 3 = left; tiles are mjenv ids, `id + 1` where a
view lists tiles):

{OBSERVATION}

`observation="raw"` leaves out the views derived per tile from the own hand (`observation.DERIVED`: the deficiency
features and the per-discard tenpai and yaku facts): float32[{RAW_SIZE}], the other views as above in the same order
(`env.spec.decode`). It is for agents that build their own features; `infos[agent]["deficiency"]` is still given.
The engine skips the per-tile features, about 40% of a vector step's CPU time (docs/BENCHMARKS.md).

`observers="acting"` (not the default) observes only the agents that must act this step, as RiichiEnv does,
and every agent after each deal and at a hand's or the game's end: another agent's `observation` is all zeros
that step (its mask still holds PASS) and its `infos[agent]["deficiency"]` (which the shaping reads) stays the
one of its last observed step. Read an agent's observation at its `needs_action` steps. It saves the deficiency
features of the waiting seats (docs/RIICHI.md, "Observers").

## Rewards and infos

`reward="points"`: at the step a hand ends, each agent receives its score change over the hand in
thousands of points (riichi deposits included: the four rewards sum to minus the sticks put on the table
during the hand, plus those taken by a winner); at the game's end the leftover sticks go to the first
place in that step's reward too, so a game's rewards sum to zero and equal (final score - 25,000) / 1000.
`reward="rank"`: 0 at every step but the last, which gives each agent its final placement points
(Tenhou: (score - 30,000) / 1000 + uma, oka to the first; they sum to zero).
`shaping="deficiency"` adds `gamma * Phi(s') - Phi(s)`, `Phi = -min(deficiency, 15)`, `Phi = 0` at the
episode's end (potential-based: optimal policies unchanged). Rewards, shaping and the infos' common keys are
`mjenv.contract`'s, as for every rule set.

An illegal action (not in the mask) ends the episode by default (`illegal_action="penalize"`): the
offending agent receives -1, the others 0 (plus the shaping term, `- Phi(s)`, when shaping),
`infos[agent]["illegal_action"]` is True. With
`illegal_action="raise"` a `ValueError` names the agent, the action and the legal actions (a riichi
without tenpai, a discard that breaks kuikae). An action outside 0..84 always raises.

`infos[agent]`: `seat`, `needs_action`, `deficiency`, `potential`, `phase`; at the step a hand ends also
`hand` (`result`, `deltas` in points, `winners`, `round`, `honba`), `scores` (the seat's change over the
hand, points) and `winners`; at the episode's end `illegal_action`, `scores` and `winners` (the last hand's;
0 and none when an illegal action ended it), and, unless an illegal action ended it, `final_scores`,
`final_points` and `rank` (0 = first).

## Arguments

| argument | default | meaning |
|---|---|---|
| `rules` | `"riichi"` | this rule set |
| `episode` | `"hanchan"` | `"hanchan"`, `"east"` or `"hand"` |
| `reward` | `"points"` | `"points"` or `"rank"` |
| `observation` | `"default"` | `"default"`, `"planes"` (float32[C, 34] tile planes) or `"raw"` (no derived views) |
| `render_mode` | `None` | `"ansi"`, `"human"` (printed) or `"rgb_array"` |
| `render_seat` | `None` | `None` renders the full table; a seat 0..3 renders what that seat sees |
| `shaping`, `gamma` | `None`, `1.0` | `"deficiency"` shaping and its discount |
| `illegal_action` | `"penalize"` | `"penalize"` or `"raise"` |
| `log_dir`, `log_format` | `None`, `"mjenv"` | episodes appended to `log_dir`: `"mjenv"` or `"mjai"` (`log`) |
| `kokushi_robs_ankan` | `True` | thirteen orphans may rob a closed kan (False: Tenhou's rule) |
| `claim_window` | `"always"` | a window after each discard and kan; `"when_possible"`: fewer steps, leaks ("Actions") |
| `observers` | `"all"` | every agent observed every step; `"acting"`: only the agents that must act ("Observation") |
| `engine` | `"auto"` | `"compiled"` (C, `compiled`), `"python"` (`game.RiichiGame`); `"auto"`: compiled where built |

## Seeding

`reset(seed=s)` (an int >= 0) seeds the env's generator; every wall of the episode is drawn from it, so
equal seeds give equal games for equal actions. `reset()` without a seed plays on from that generator.
`reset(options={...})` may set where the game starts: `scores` (4 ints), `round` (0 = East 1 ..),
`honba`, `sticks`, and `wall` (136 tile ids in the layout of `mjenv.rulesets.riichi.wall`, the first
hand's wall). `env.copy()` (or `copy.deepcopy(env)`) is an independent copy that plays on identically.
"""

from __future__ import annotations

import copy as _copy
import os
import types
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from pettingzoo import AECEnv, ParallelEnv

from mjenv import AGENTS
from mjenv.contract import (
    NEEDS_OF_BITS,
    SEATS_OF_BITS,
    infos,
    parallel_dicts,
    seat_rewards,
    vector_final_infos,
    vector_infos,
)
from mjenv.env import AECTurns
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import compiled as _compiled
from mjenv.rulesets.riichi import log as _log
from mjenv.rulesets.riichi.game import PHASES, RiichiGame
from mjenv.rulesets.riichi.observation import hand_start
from mjenv.rulesets.riichi.observation import spec as _obs_spec
from mjenv.rulesets.riichi.settlement import LAST_ROUND_INDEX, placement
from mjenv.rulesets.riichi.wall import Wall
from mjenv.tables import check_gamma, table_seeds_and_options
from mjenv.vector import AsyncSteps

__all__ = [
    "EPISODES", "N_ACTIONS", "REWARDS", "RiichiAECEnv", "RiichiParallelEnv", "RiichiTable", "RiichiVectorEnv",
    "action_table", "make_env", "make_parallel_env", "make_vector_env", "observation_spec", "play",
]

#: size of the action space (``Discrete(N_ACTIONS)``)
N_ACTIONS = A.N_ACTIONS
EPISODES = ("hanchan", "east", "hand")
REWARDS = ("points", "rank")
ILLEGAL_ACTIONS = ("penalize", "raise")
RENDER_MODES = ("ansi", "human", "rgb_array")
OBSERVATIONS = ("default", "planes", "raw")
SHAPINGS = (None, "deficiency")
#: ``claim_window=``: a window after every discard and kan (the default), or only when some seat can claim
CLAIM_WINDOWS = ("always", "when_possible")
#: ``observers=``: every seat observed every step (the default), or only the seats that must act
OBSERVERS = ("all", "acting")
#: keyword arguments of the env factories (``rules`` must be "riichi")
ARGUMENTS = ("rules", "episode", "reward", "observation", "render_mode", "render_seat", "shaping", "gamma",
             "illegal_action", "log_dir", "log_format", "kokushi_robs_ankan", "claim_window", "observers",
             "engine")  # fmt: skip
ENGINES = ("auto", "compiled", "python")
_SEAT = {a: s for s, a in enumerate(AGENTS)}
_RESET_OPTIONS = ("scores", "round", "honba", "sticks", "wall")


def action_table() -> str:
    """The markdown table of the 85 action ids."""
    rows = ["| id | action | when |", "|---|---|---|",
            "| 0..33 | discard a tile of type t (a plain copy; the drawn tile when it is one) | own turn |",
            "| 34..36 | discard the red five of bamboo / characters / dots | own turn |",
            "| 37..70 | closed kan (four held) or added kan (onto a pon) of tile type id - 37 | own turn |",
            "| 71 | riichi (then the seat discards: only discards that keep tenpai are legal) | own turn |",
            "| 72 | tsumo (win on the own draw) | own turn |",
            "| 73 | ron (win on the discard, or rob an added kan) | claim / kan-robbing window |",
            "| 74..76 | chi with the called tile lowest / middle / highest, no red five from the hand | left seat |",
            "| 77..79 | the same chi, using the red five from the hand | left seat |",
            "| 80 | pon without the hand's red five | any discard |",
            "| 81 | pon using the hand's red five | any discard |",
            "| 82 | open kan on the discard | any discard |",
            "| 83 | abortive draw on nine terminal and honour types | first uninterrupted turn |",
            "| 84 | pass | whenever the seat decides; the only action of a seat with nothing to decide |"]  # fmt: skip
    return "\n".join(rows)


def _check_kwargs(kwargs: Mapping[str, Any]) -> None:
    unknown = sorted(set(kwargs) - set(ARGUMENTS))
    if unknown:
        raise ValueError(f"unknown arguments {unknown} for rules='riichi'; allowed: {list(ARGUMENTS)}")
    _engine_of(kwargs.get("engine", "auto"))
    rules = kwargs.get("rules", "riichi")
    name = rules.get("name") if isinstance(rules, dict) else getattr(rules, "name", rules)
    if name != "riichi" or (isinstance(rules, dict) and set(rules) != {"name"}):
        raise ValueError(f"rules must be 'riichi' here (its rules are set by this env's arguments: "
                         f"{list(ARGUMENTS[1:])}), got {rules!r}")


def _engine_of(engine) -> str:
    """``"compiled"`` or ``"python"`` for an ``engine`` argument (``"auto"``: compiled when it is built)."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine == "compiled" and not _compiled.available():
        raise ValueError("engine='compiled' is not available here: the extensions mjenv.rulesets.riichi._engine and "
                         "mjenv.deficiency._kernel were not built (no C compiler at install); use engine='python'")
    return "compiled" if engine == "compiled" or (engine == "auto" and _compiled.available()) else "python"


def _check_seed(seed) -> None:
    if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or an int >= 0, got {seed!r}")


def new_table(engine: str = "auto", **kwargs) -> RiichiTable:
    """A table on the engine ``engine`` names (:func:`_engine_of`); ``kwargs``: :class:`RiichiTable`'s."""
    if _engine_of(engine) == "compiled":
        return CompiledRiichiTable(**kwargs)
    return RiichiTable(**kwargs)


def hand_rewards(reward: str, deltas, final_scores=None, final_points=None, scores=None) -> list[float]:
    """The four rewards of a hand that ended, before shaping.

    ``reward="points"``: the hand's score changes in thousands, plus, when the game ended with it
    (``final_scores`` given), the leftover riichi sticks the first place takes (``final_scores - scores``).
    ``reward="rank"``: the game's ``final_points`` when it ended, else zeros.
    """
    if reward == "points":
        rewards = [d / 1000 for d in deltas]
        if final_scores is not None:
            rewards = [r + (f - s) / 1000 for r, f, s in zip(rewards, final_scores, scores)]
        return rewards
    return [0.0] * 4 if final_scores is None else [float(p) for p in final_points]


class RiichiTable:
    """One table: a :class:`RiichiGame` episode, its observations, rewards, infos and log.

    Its rewards, shaping, illegal-action rewards and infos are :mod:`mjenv.contract`'s, with the Riichi keys added.

    The env shells (parallel, AEC, vector) all step this one class (or
    :class:`CompiledRiichiTable`, the same on the compiled engine), so the
    episode, reward, illegal-action and info rules are written once.
    """

    engine = "python"
    #: no seat leaves while the episode goes on (what the shared AEC turns ask)
    plays_on = False

    def __init__(self, episode: str = "hanchan", reward: str = "points", shaping: str | None = None,
                 gamma: float = 1.0, illegal_action: str = "penalize", kokushi_robs_ankan: bool = True,
                 log_dir: str | os.PathLike | None = None, log_format: str = "mjenv", claim_window: str = "always",
                 observers: str = "all", raw: bool = False):
        for name, value, allowed in (("episode", episode, EPISODES), ("reward", reward, REWARDS),
                                     ("shaping", shaping, SHAPINGS), ("illegal_action", illegal_action,
                                                                      ILLEGAL_ACTIONS),
                                     ("claim_window", claim_window, CLAIM_WINDOWS),
                                     ("observers", observers, OBSERVERS)):  # fmt: skip
            if value not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
        if not isinstance(kokushi_robs_ankan, bool):
            raise ValueError(f"kokushi_robs_ankan must be True or False, got {kokushi_robs_ankan!r}")
        _log.check_format(log_format)
        self.episode, self.reward, self.shaping = episode, reward, shaping
        self.gamma = check_gamma(gamma)
        self.illegal_action = illegal_action
        self.kokushi_robs_ankan = kokushi_robs_ankan
        self.claim_window = claim_window
        self.observers = observers
        self.log_dir = None if log_dir is None else os.fspath(log_dir)
        self.log_format = log_format
        self.raw = bool(raw)
        self.spec = _obs_spec(self.raw)
        self.rng = np.random.default_rng()
        self.game: RiichiGame | None = None
        self.record: dict | None = None
        self.over = True
        self.illegal_seats: list[int] = []
        self._setup()

    def _setup(self) -> None:
        """The engine's own state (none for the Python engine)."""

    # ------------------------------------------------------------------ reset
    def reset(self, seed=None, options: Mapping | None = None) -> None:
        """Start an episode (see the module docstring, "Seeding")."""
        _check_seed(seed)
        if seed is not None:
            self.rng = np.random.default_rng(int(seed))
        start = _start_options(options)
        first_wall = start.pop("wall", None)

        def deal(game: RiichiGame) -> Wall:  # reads only the game: a clone deals the same future walls
            return first_wall if first_wall is not None and not game.results else Wall.shuffled(game.rng)

        self.game = RiichiGame(int(self.rng.integers(2**63)), length=self.episode, wall_factory=deal,
                               kokushi_robs_ankan=self.kokushi_robs_ankan, claim_window=self.claim_window, **start)
        self.record = _log.new_record(self, start)
        self.over = False
        self.illegal_seats = []
        self.hand_end: dict | None = None
        self._observe(dealt=True)

    # ------------------------------------------------------------------ observing
    def _observe(self, dealt: bool = False) -> None:
        """Observe the game (``dealt``: a hand has just been dealt). With ``observers="acting"`` only the acting seats
        are observed, or every seat after a deal and at a hand's or the game's end: another seat's row is zeros and
        its deficiency the one it was last observed with."""
        obs, self.masks, defs = self.spec.observe(self.game)
        self.acting = tuple(self.game.to_act())  # ascending
        self._bits = sum(1 << s for s in self.acting)
        self._phase = self.game.phase
        if self.observers == "acting" and not dealt and self.game.phase not in ("hand_over", "game_over"):
            for s in range(4):
                if s not in self.acting:
                    obs[s] = 0
                    defs[s] = self.deficiency[s]
        self.obs, self.deficiency = obs, defs

    @property
    def phase(self) -> str:
        """The game's phase (``RiichiGame.phase``) as last observed."""
        return self._phase

    def _final(self) -> tuple[list[int] | None, list[float] | None]:
        """The game's final scores and points (None before its end)."""
        g = self.game
        return (None, None) if g.final_scores is None else (list(g.final_scores), list(g.final_points))

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self.obs[seat], "action_mask": self.masks[seat]}

    def answering(self) -> list[int]:
        """The seats the AEC env selects now: the seat on its turn, or the three others in a window (with
        ``claim_window="when_possible"`` a window exists only when some seat can claim; the three are selected then
        too)."""
        g = self.game
        if g.phase in ("claim", "chankan"):
            return [(g.claim_from + k) % 4 for k in (1, 2, 3)]
        return [g.turn]

    def acting_bits(self) -> int:
        """The acting seats as a bit set (bit s: seat s must act)."""
        return self._bits

    def infos(self) -> dict[str, dict]:
        """Every agent's info: :func:`mjenv.contract.infos` (its end keys at the episode's end: ``scores`` and
        ``winners`` of the last hand, 0 and none when an illegal action ended it) plus ``phase``, at a hand's end
        its result (``hand``, ``scores``, ``winners``), at the game's end the final scores, points and ``rank``."""
        h, over = self.hand_end, self.over
        end = None
        if over:
            end = (self.illegal_seats, h["deltas"] if h is not None else (0, 0, 0, 0),
                   h["winners"] if h is not None else [])
        out = infos(self.deficiency, NEEDS_OF_BITS[self._bits], over, end, phase=self._phase)
        if h is None and not over:  # the common case: the phase alone
            return out
        final, points = self._final() if over else (None, None)
        for s, a in enumerate(AGENTS):
            info = out[a]
            if h is not None:
                info.update(hand=h, scores=h["deltas"][s], winners=list(h["winners"]))
            if final is not None:
                info.update(final_scores=list(final), final_points=list(points), rank=placement(final).index(s))
        return out

    # ------------------------------------------------------------------ stepping
    def check_action(self, seat: int, action) -> int:
        """``action`` as an int in the action space; ValueError otherwise (nothing changes)."""
        if type(action) is int and 0 <= action < A.N_ACTIONS:  # the common case, first
            return action
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"{AGENTS[seat]}: action must be an int in 0..{A.N_ACTIONS - 1}, got {action!r}; "
                             f"legal: {self.legal(seat)}")
        a = int(action)
        if not 0 <= a < A.N_ACTIONS:
            raise ValueError(f"{AGENTS[seat]}: action {a} is outside the action space 0..{A.N_ACTIONS - 1}; "
                             f"legal: {self.legal(seat)}")
        return a

    def legal(self, seat: int) -> list[str]:
        return [f"{i} ({A.describe(i)})" for i in np.flatnonzero(self.masks[seat])]

    def complete(self, actions: Mapping[int, int]) -> dict[int, int]:
        """Every seat's action: the given ones checked, an omitted seat's only legal action (PASS for a seat that
        does not act: its mask holds only PASS)."""
        out = {}
        acting = self.acting
        for s in range(4):
            if s in actions:
                out[s] = self.check_action(s, actions[s])
                continue
            if s not in acting:
                out[s] = A.PASS
                continue
            legal = np.flatnonzero(self.masks[s])
            if len(legal) != 1:
                raise ValueError(f"{AGENTS[s]} must act (it has a choice): legal {self.legal(s)}")
            out[s] = int(legal[0])
        return out

    def illegal(self, actions: Mapping[int, int]) -> list[int]:
        """Seats whose action is not in their mask (raises in ``illegal_action="raise"`` mode)."""
        masks, acting = self.masks, self.acting
        # a seat that does not act has only PASS in its mask
        bad = [s for s, a in actions.items() if (not masks[s, a] if s in acting else a != A.PASS)]
        if bad and self.illegal_action == "raise":
            s = bad[0]
            raise ValueError(f"{AGENTS[s]}: action {actions[s]} ({A.describe(actions[s])}) is illegal in phase "
                             f"{self.phase!r}; legal: {self.legal(s)}")
        return bad

    def _acting_actions(self, actions: Mapping, keys: Sequence = range(4)) -> list[list[int]] | None:
        """The common case checked at once: ``actions`` holds exactly the acting seats' actions (seat s under
        ``keys[s]``: the seat itself, or its agent), each a legal int (the others pass); then those actions as
        ``[seat, action]`` pairs (seats ascending), else None (:meth:`complete` and :meth:`illegal` decide)."""
        acting, masks = self.acting, self.masks
        if len(actions) != len(acting):
            return None
        pairs = []
        for s in acting:
            a = actions.get(keys[s])
            if type(a) is not int or not 0 <= a < A.N_ACTIONS or not masks[s, a]:
                return None
            pairs.append([s, a])
        return pairs

    def step(self, actions: Mapping[int, int]) -> list[float]:
        """Apply one action per seat (checked and completed by :meth:`complete`); the four rewards."""
        if self.over:
            raise ValueError("step() after the episode ended; call reset()")
        pairs = self._acting_actions(actions)
        bad = []
        if pairs is None:
            acts = self.complete(actions)
            bad = self.illegal(acts)
            pairs = [[s, acts[s]] for s in self.acting]
        before = self.deficiency if self.shaping is not None else None
        self.hand_end = None
        if bad:
            self.illegal_seats = bad
            self.over = True
            self._finish()
            return seat_rewards((), bad, before, self.deficiency, True, self.gamma)
        paid = self.advance(pairs)
        return seat_rewards(paid, (), before, self.deficiency, self.over, self.gamma)

    def step_quick(self, actions: dict) -> tuple | None:
        """The parallel env's common step at once: ``actions`` maps exactly the acting seats' agents to legal Python
        ints (the other seats pass) and no shaping is asked. Then it steps as :meth:`step` does and returns
        ``(rewards, obs, masks, infos)``: the four rewards, the new observations and masks and :meth:`infos`;
        otherwise None, with nothing changed (:meth:`step` checks, completes and reports). The compiled table's
        takes more in one engine call (:meth:`CompiledRiichiTable.step_quick`)."""
        if self.over or self.shaping is not None:
            return None
        pairs = self._acting_actions(actions, AGENTS)
        if pairs is None:
            return None
        self.hand_end = None
        rewards = self.advance(pairs)
        return rewards, self.obs, self.masks, self.infos()

    def advance(self, pairs: list[list[int]]) -> list[float]:
        """Step the game with the acting seats' ``[seat, action]`` pairs (seats ascending; the record keeps the list)
        and observe; the rewards before shaping."""
        g = self.game
        self.record["hands"][-1]["actions"].append(pairs)
        g.step(dict(pairs))
        rewards = [0.0] * 4
        dealt = False
        if g.phase in ("hand_over", "game_over"):
            rewards = self._hand_over()
            dealt = g.phase not in ("hand_over", "game_over")  # the game goes on: the next hand is dealt
        self._observe(dealt)
        return rewards

    def _hand_over(self) -> list[float]:
        g = self.game
        res = g.results[-1]
        wins = [e["seat"] for e in g.events[hand_start(g.events):] if e["type"] == "win"]
        self.hand_end = {"result": res["result"], "deltas": list(res["deltas"]), "winners": wins,
                         "round": res["round"], "honba": res["honba"]}
        self.record["hands"][-1]["result"] = dict(self.hand_end)
        if g.phase == "game_over":
            self.over = True
            rewards = hand_rewards(self.reward, res["deltas"], g.final_scores, g.final_points, g.scores)
            self._finish()
        else:
            rewards = hand_rewards(self.reward, res["deltas"])
            g.next_hand()
            _log.add_hand(self.record, g)
        return rewards

    def _finish(self) -> None:
        """The episode's end: its log."""
        self.record["illegal_seats"] = list(self.illegal_seats)
        if self.log_dir is not None:
            _log.write(self.log_dir, self.log_format, self.game, self.record)

    def copy(self) -> RiichiTable:
        t = _copy.copy(self)
        t.game = self.game.clone() if self.game is not None else None
        t.rng = _copy.deepcopy(self.rng)
        t.record = _copy.deepcopy(self.record) if self.game is not None else None
        t.obs, t.masks = self.obs.copy(), self.masks.copy()
        t.deficiency, t.acting, t.illegal_seats = list(self.deficiency), self.acting, list(self.illegal_seats)
        return t


def _record_game(wall) -> types.SimpleNamespace:
    """What ``log.new_record`` / ``log.add_hand`` read of a game: its wall's tiles."""
    return types.SimpleNamespace(wall=types.SimpleNamespace(tiles=list(wall)))


class CompiledRiichiTable(RiichiTable):
    """One env table on the compiled engine: :class:`~mjenv.rulesets.riichi.env.RiichiTable` (which the env shells
    step) with the engine's parts replaced (``env.new_table(engine="compiled")`` builds it)."""

    engine = "compiled"

    def _setup(self) -> None:
        self.core = _compiled.Tables(1, self.episode, self.kokushi_robs_ankan, claim_window=self.claim_window,
                                     observers=self.observers, raw=self.raw)
        self._acts = np.full((1, 4), A.PASS, dtype=np.int32)  # the actions of a step, written in place
        self._game = None
        self._game_key = None

    # ------------------------------------------------------------------ the game, rebuilt on demand
    @property
    def game(self):
        """The :class:`RiichiGame` in the same state (the record replayed through the Python engine)."""
        if self.record is None:
            return None
        key = (len(self.record["hands"]), sum(len(h["actions"]) for h in self.record["hands"]))
        if self._game is None or self._game_key != key:
            rec = dict(self.record, hands=[{k: v for k, v in h.items() if k != "result"} for h in self.record["hands"]],
                       final_scores=None)  # fmt: skip
            self._game, self._game_key = _log.replay(rec), key
        return self._game

    @game.setter
    def game(self, value) -> None:
        if value is not None:
            raise ValueError("the compiled table's game is read-only")

    def reset(self, seed=None, options=None) -> None:
        _check_seed(seed)
        start = _start_options(options)
        self.core.start([0], [seed], [start])
        rec_start = {k: v for k, v in start.items() if k != "wall"}
        table = types.SimpleNamespace(episode=self.episode, kokushi_robs_ankan=self.kokushi_robs_ankan,
                                      claim_window=self.claim_window, game=_record_game(self.core.walls[0]))
        self.record = _log.new_record(table, rec_start)
        self.over = False
        self.illegal_seats = []
        self.hand_end = None
        self._read()

    def _read(self) -> None:
        c = self.core
        obs, masks = c.obs, c.masks
        # the step handed out views of these arrays: the engine writes the next step into fresh ones (it writes
        # every entry)
        self.obs, self.masks = obs[0], masks[0]
        c.obs, c.masks = np.empty(obs.shape, np.float32), np.empty(masks.shape, np.int8)
        self.deficiency = c.defs[0].tolist()
        self._bits, phase, self._hand_ended = c.info[0, :3].tolist()  # I_ACTING, I_PHASE, I_HAND_ENDED
        self.acting = SEATS_OF_BITS[self._bits]
        self._phase = PHASES[phase]

    @property
    def _info(self) -> np.ndarray:
        """The table's info row (``compiled.I_*`` entries), as the last step left it."""
        return self.core.info[0]

    def answering(self) -> list[int]:
        if self.phase in ("claim", "chankan"):
            return [(int(self._info[_compiled.I_CLAIM_FROM]) + k) % 4 for k in (1, 2, 3)]
        return [int(self._info[_compiled.I_TURN])]

    def _final(self):
        return _compiled.game_result(self._info)[:2]

    def advance(self, pairs: list[list[int]]) -> list[float]:
        """Step the engine with the acting seats' ``[seat, action]`` pairs; the hand-end rewards (before shaping)."""
        self.record["hands"][-1]["actions"].append(pairs)
        acts = self._acts  # the engine reads the acting seats' entries only
        for s, a in pairs:
            acts[0, s] = a
        self.core.step(acts)
        self._read()
        return self._settle()

    def step_quick(self, actions: dict) -> tuple | None:
        """The parallel env's common step in one engine call (:meth:`Tables.step_observe
        <mjenv.rulesets.riichi.compiled.Tables.step_observe>`): ``actions`` maps agents to legal ints (numpy integers
        count), every acting seat's given, a seat left out passes. Then it steps as :meth:`step` does and returns
        ``(rewards, obs_rows, mask_rows, infos)``: the four rewards (shaped as :meth:`step`'s), the new observation's
        and masks' rows (tuples of views of ``self.obs`` and ``self.masks``) and :meth:`infos`; otherwise None, with
        nothing changed."""
        if self.over:
            return None
        before = self.deficiency
        chosen = [_compiled.OMITTED, _compiled.OMITTED, _compiled.OMITTED, _compiled.OMITTED]
        try:
            for a, x in actions.items():
                chosen[_SEAT[a]] = x
        except (KeyError, TypeError):  # not an agent: step() says so
            return None
        out = self.core.step_observe(chosen)
        if out is None:
            return None
        _, bits, phase, ended, deficiency, obs, masks, obs_rows, mask_rows, pairs = out
        self.record["hands"][-1]["actions"].append(pairs)
        # the state as _read sets it (inline: a method call here cost about 600 instructions a step)
        self.obs, self.masks, self.deficiency, self._hand_ended = obs, masks, deficiency, ended
        self._bits, self.acting, self._phase = bits, SEATS_OF_BITS[bits], PHASES[phase]
        if ended:
            rewards = self._settle()
        else:  # the common case: nothing paid, the phase alone in the infos (infos())
            self.hand_end, rewards = None, [0.0, 0.0, 0.0, 0.0]
        if self.shaping is not None:
            rewards = seat_rewards(rewards, (), before, deficiency, self.over, self.gamma)
        info = self.infos() if ended else infos(deficiency, NEEDS_OF_BITS[bits], False, None, phase=self._phase)
        return rewards, obs_rows, mask_rows, info

    def _settle(self) -> list[float]:
        """After a step (read): the end of a hand that ended (its result in the record, the rewards, the game's end
        or the next hand's record); the rewards before shaping."""
        rewards = [0.0] * 4
        self.hand_end = _compiled.hand_result(self._info) if self._hand_ended else None
        if self.hand_end is not None:
            info = self._info
            self.record["hands"][-1]["result"] = dict(self.hand_end)
            final, points, scores = _compiled.game_result(info)
            rewards = hand_rewards(self.reward, self.hand_end["deltas"], final, points, scores)
            if final is not None:
                self.over = True
                self._finish()
            else:
                _log.add_hand(self.record, _record_game(self.core.walls[0]))
        return rewards

    def copy(self):
        t = _copy.copy(self)
        t.core = self.core.copy()
        t.core.obs[0], t.core.masks[0] = self.obs, self.masks  # the arrays of the state (the engine's are fresh)
        t._acts = self._acts.copy()
        t.record = _copy.deepcopy(self.record)
        t._game = None
        t._read()
        t.over, t.illegal_seats, t.hand_end = self.over, list(self.illegal_seats), self.hand_end
        return t


def _start_options(options) -> dict:
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict or None, got {type(options).__name__}")
    out: dict[str, Any] = {}
    # other keys are ignored, as gymnasium envs do (PettingZoo's api_test passes one)
    if "scores" in options:
        sc = options["scores"]
        if not isinstance(sc, Sequence) or len(sc) != 4 or any(isinstance(x, bool) or int(x) != x for x in sc):
            raise ValueError(f"options['scores'] must be 4 integers (points), got {sc!r}")
        out["scores"] = [int(x) for x in sc]
    for key, field, hi in (("round", "round_index", LAST_ROUND_INDEX), ("honba", "honba", None),
                           ("sticks", "sticks", None)):  # fmt: skip
        if key in options:
            v = options[key]
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0 or (hi is not None and v > hi):
                raise ValueError(f"options[{key!r}] must be an int in 0..{hi if hi is not None else 'inf'}, got {v!r}")
            out[field] = int(v)
    if "wall" in options:
        out["wall"] = Wall(options["wall"])  # ValueError unless the 136 ids once each
    return out


# ---------------------------------------------------------------------------------------------
# The shells
# ---------------------------------------------------------------------------------------------


class _Shell:
    metadata = {"name": "mjenv_riichi_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": True,
                "render_fps": 1}

    def __init__(self, rules="riichi", episode="hanchan", reward="points", render_mode=None, render_seat=None,
                 shaping=None, gamma=1.0, illegal_action="penalize", log_dir=None, log_format="mjenv",
                 kokushi_robs_ankan=True, observation="default", engine="auto", claim_window="always", observers="all"):
        _check_kwargs({"rules": rules, "engine": engine})
        self.planes = _planes(observation)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}")
        if render_seat is not None and render_seat not in (0, 1, 2, 3):
            raise ValueError(f"render_seat must be None (full table) or a seat 0..3, got {render_seat!r}")
        self._table = new_table(engine, episode=episode, reward=reward, shaping=shaping, gamma=gamma,
                                illegal_action=illegal_action, kokushi_robs_ankan=kokushi_robs_ankan, log_dir=log_dir,
                                log_format=log_format, claim_window=claim_window, observers=observers,
                                raw=observation == "raw")
        #: the engine the table runs on, "compiled" or "python"
        self.engine = self._table.engine
        self.render_mode, self.render_seat = render_mode, render_seat
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        sp = self._table.spec if self.planes is None else self.planes
        template = spaces.Dict({"observation": sp.space, "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), np.int8)})
        self.observation_spaces = {a: _copy.deepcopy(template) for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(A.N_ACTIONS) for a in AGENTS}

    @property
    def game(self) -> RiichiGame | None:
        """The underlying :class:`RiichiGame` (read it; stepping it directly desynchronises the env). On the
        compiled engine it is rebuilt on demand, by replaying the episode's record through the Python engine."""
        return self._table.game

    @property
    def spec(self):
        """The observation spec (:class:`~mjenv.rulesets.riichi.observation.RiichiObservationSpec`)."""
        return self._table.spec

    #: The PASS action's id (the one legal action of a seat with nothing to decide).
    pass_action = A.PASS

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        """Every agent's observation (planes of all four in one call of the map)."""
        t = self._table
        flat = t.obs if self.planes is None else self.planes.planes(t.obs)
        return {a: {"observation": flat[i], "action_mask": t.masks[i]} for i, a in enumerate(AGENTS)}

    def action_space(self, agent):
        return self.action_spaces[agent]

    def log(self) -> dict:
        """The episode so far as mjenv's Riichi log record (:func:`mjenv.rulesets.riichi.log.replay`)."""
        if self._table.record is None:
            raise ValueError("no episode yet: call reset() first")
        return _copy.deepcopy(self._table.record)

    def _start(self, seed, options) -> None:
        self._table.reset(seed, options)
        self.agents = list(AGENTS)

    def _check_started(self) -> None:
        if self._table.record is None:
            raise ValueError("step() before reset(); call reset() first")

    def render(self):
        from mjenv.rulesets.riichi import render as _render

        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass 'ansi', 'human' or 'rgb_array'")
            return None
        if self._table.record is None:
            raise ValueError("render() needs a game: call reset() first")
        if self.render_mode == "rgb_array":
            return _render.render_rgb(self._table.game, self.render_seat)
        text = _render.render_text(self._table.game, self.render_seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _rendered(self) -> None:
        if self.render_mode == "human":
            self.render()

    def close(self) -> None:
        pass

    def copy(self):
        """An independent copy of the env (the same state and the same future walls)."""
        return _copy.deepcopy(self)

    def __deepcopy__(self, memo):
        new = _copy.copy(self)
        new._table = self._table.copy() if self._table.record is not None else _copy.deepcopy(self._table, memo)
        for k, v in self.__dict__.items():
            if k != "_table" and isinstance(v, (list, dict)):
                setattr(new, k, _copy.deepcopy(v, memo))
        return new


class RiichiParallelEnv(_Shell, ParallelEnv):
    """Riichi, PettingZoo parallel API (see the module docstring)."""

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._start(seed, options)
        self._rendered()
        return self._observations(), self._table.infos()

    def step(self, actions: dict[str, Any]):
        t = self._table
        out = t.step_quick(actions) if type(actions) is dict and self.agents else None  # the common case at once
        if out is None:  # copies: an illegal action leaves the state, and so the arrays last handed out, as they were
            out = (self._checked_step(actions), t.obs.copy(), t.masks.copy(), t.infos())
        rewards, obs, masks, info = out
        if self.planes is not None:
            obs = self.planes.planes(t.obs)
        dicts = parallel_dicts(obs, masks, rewards, t.over, info)
        if t.over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return dicts

    def _checked_step(self, actions) -> list[float]:
        """:meth:`step` outside the common case: the actions checked (clear errors) and completed; the rewards."""
        if not self.agents:
            self._check_started()
            raise ValueError("step() after the episode ended; call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        try:  # every agent is live until the episode ends
            by_seat = {_SEAT[a]: x for a, x in actions.items()}
        except (KeyError, TypeError):
            bad = next(a for a in actions if a not in self.agents)
            raise ValueError(f"unknown or finished agent {bad!r}; live agents: {self.agents}") from None
        return self._table.step(by_seat)


class RiichiAECEnv(_Shell, AECTurns, AECEnv):
    """Riichi, PettingZoo AEC API (see the module docstring; the turns are :class:`mjenv.env.AECTurns`')."""

    def observe(self, agent):
        obs = self._table.observation(_SEAT[agent])
        if self.planes is not None:
            obs = {**obs, "observation": self.planes.planes(obs["observation"])}
        return obs

    def _move(self, actions: dict[int, int], bad: bool) -> tuple[list[float], None]:
        return self._table.step(actions), None


class RiichiVectorEnv(AsyncSteps, VectorEnv):
    """``num_envs`` independent Riichi tables stepped together (gymnasium vector conventions).

    ``reset(seed=s)`` seeds table i with s + i; ``step(actions int[N, 4])`` returns
    ``({"observation": float32[N, 4, size], "action_mask": int8[N, 4, 85]}, rewards float32[N, 4],
    terminations bool[N], truncations bool[N], infos)``. Autoreset is ``SAME_STEP``: when an episode ends its
    table starts the next at once; ``infos["final_obs"]`` / ``infos["final_info"]`` (``mjenv.contract``'s
    ``scores``, ``winners`` and ``illegal_action`` of the last hand, and ``final_scores``, ``final_points``, all
    [N, 4]) hold the ended episode's, valid where ``infos["_final_obs"]`` is True. Every table is exactly the
    parallel env with the same arguments.

    On the compiled engine (``engine="auto"`` where it is built) one C call steps and observes every table, on
    ``num_threads`` threads with the GIL released (the same outputs for every number of threads). The threads are
    kept, and wait awake briefly after each step for the next one: use at most as many as there are free cores.
    ``step_async(actions)`` / ``step_wait()`` (gymnasium's async pair, :class:`mjenv.vector.AsyncSteps`) run a step
    on a worker thread, so that a learner's inference overlaps the compiled step.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, num_threads: int = 1, **kwargs):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or not 0 < num_threads < 257:
            raise ValueError(f"num_threads must be an int in 1..256, got {num_threads!r}")
        _check_kwargs(kwargs)
        if kwargs.get("render_mode") is not None:
            raise ValueError("the vector env does not render; render a parallel_env(rules='riichi') instead")
        table_args = {k: v for k, v in kwargs.items() if k not in ("rules", "render_mode", "render_seat",
                                                                    "observation", "engine")}
        self.planes = _planes(kwargs.get("observation", "default"))
        raw = kwargs.get("observation") == "raw"
        self.num_envs = int(num_envs)
        #: the engine the tables run on, "compiled" or "python"
        self.engine = _engine_of(kwargs.get("engine", "auto"))
        self._core = None
        if self.engine == "compiled" and table_args.get("log_dir") is None:
            t = RiichiTable(**table_args)  # checks the arguments (the Python table itself is not used)
            self._core = _compiled.VectorCore(self.num_envs, t.episode, t.reward, t.shaping, t.gamma, t.illegal_action,
                                              t.kokushi_robs_ankan, num_threads=int(num_threads),
                                              claim_window=t.claim_window, observers=t.observers, raw=raw)
            self.tables = []
        else:
            self.tables = [new_table(self.engine, **table_args, raw=raw) for _ in range(self.num_envs)]
        #: threads that step the tables (1 unless the compiled engine steps them in one call)
        self.num_threads = int(num_threads) if self._core is not None else 1
        self.spec_obs = _obs_spec(raw)
        self.possible_agents = list(AGENTS)
        self.render_mode = None
        sp = self.spec_obs if self.planes is None else self.planes
        shape = sp.space.shape
        self.single_observation_space = spaces.Dict(
            {"observation": sp.space, "action_mask": spaces.Box(0, 1, (A.N_ACTIONS,), np.int8)})
        self.single_action_space = spaces.Discrete(A.N_ACTIONS)
        lead = (self.num_envs, 4)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(np.broadcast_to(sp.low, (*lead, *shape)),
                                      np.broadcast_to(sp.high, (*lead, *shape)), (*lead, *shape), np.float32),
            "action_mask": spaces.Box(0, 1, (*lead, A.N_ACTIONS), np.int8)})  # fmt: skip
        self.action_space = spaces.MultiDiscrete(np.full(lead, A.N_ACTIONS))
        self._started = False

    def _flat(self, obs: np.ndarray) -> np.ndarray:
        """float32[N, 4, size] as the env hands them: flat, or planes [N, 4, C, 34]."""
        return obs if self.planes is None else self.planes.planes(obs)

    def _planed(self, obs: dict) -> dict:
        """The compiled engine's observation dict as the env hands it (``_flat`` of its observation)."""
        return obs if self.planes is None else {**obs, "observation": self.planes.planes(obs["observation"])}

    def _gather(self):
        obs = self._flat(np.stack([t.obs for t in self.tables]))
        masks = np.stack([t.masks for t in self.tables])
        bits = np.array([t.acting_bits() for t in self.tables])
        infos = vector_infos(bits, np.array([t.deficiency for t in self.tables], dtype=np.int64))
        return {"observation": obs, "action_mask": masks}, infos

    def reset(self, seed=None, options=None):
        self._no_step_pending("reset")
        seeds, per_table = table_seeds_and_options(seed, options, self.num_envs)
        if self._core is not None:
            obs, infos = self._core.reset(seeds, [_start_options(o) for o in per_table])
            self._started = True
            return self._planed(obs), infos
        for t, s, o in zip(self.tables, seeds, per_table):
            t.reset(s, o)
        self._started = True
        return self._gather()

    def step(self, actions):
        self._no_step_pending("step")
        return self._step(actions)

    def _step(self, actions):
        if not self._started:
            raise ValueError("step() before reset(); call reset() first")
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs, 4) or acts.dtype.kind not in "iu":
            raise ValueError(f"actions must be an int array of shape ({self.num_envs}, 4), got {acts.dtype} "
                             f"{acts.shape}")
        if self._core is not None:
            obs, rewards, done, trunc, infos = self._core.step(acts)
            if self.planes is not None:
                infos["final_obs"] = self._planed(infos["final_obs"])
            return self._planed(obs), rewards, done, trunc, infos
        rows = [{s: int(x) for s, x in enumerate(row)} for row in acts.tolist()]
        for i, (t, row) in enumerate(zip(self.tables, rows)):  # every table checked before any moves
            try:
                t.illegal(t.complete(row))
            except ValueError as e:
                raise ValueError(f"table {i}: {e}") from None
        n = self.num_envs
        rewards = np.zeros((n, 4), dtype=np.float32)
        done = np.zeros(n, dtype=bool)
        final_obs = np.zeros((n, 4, self.spec_obs.size), dtype=np.float32)
        final_masks = np.zeros((n, 4, A.N_ACTIONS), dtype=np.int8)
        scores, winners, illegal = np.zeros((n, 4), np.int64), np.zeros((n, 4), bool), np.zeros((n, 4), bool)
        final = {"final_scores": np.zeros((n, 4), np.int64), "final_points": np.zeros((n, 4), np.float64)}
        for i, (t, row) in enumerate(zip(self.tables, rows)):
            rewards[i] = t.step(row)
            if t.over:
                done[i] = True
                final_obs[i], final_masks[i] = t.obs, t.masks
                h = t.hand_end
                if h is not None:  # the last hand's result (none when an illegal action ended the episode)
                    scores[i], winners[i, h["winners"]] = h["deltas"], True
                final_scores, points = t._final()
                if final_scores is not None:
                    final["final_scores"][i] = final_scores
                    final["final_points"][i] = points
                illegal[i, t.illegal_seats] = True
                t.reset()
        obs, infos = self._gather()
        vector_final_infos(infos, done, self._flat(final_obs), final_masks, scores, winners, illegal, final)
        return obs, rewards, done, np.zeros(n, dtype=bool), infos

    def close_extras(self, **kwargs) -> None:
        self._close_async()


def _planes(observation: str):
    """The tile planes of ``observation="planes"`` (:class:`mjenv.planes.PlaneSpec`), None for ``"default"`` and
    ``"raw"``."""
    if observation not in OBSERVATIONS:
        raise ValueError(f"observation must be one of {OBSERVATIONS} for rules='riichi', got {observation!r}")
    if observation != "planes":
        return None
    from mjenv.planes import plane_spec

    return plane_spec("riichi")


def make_parallel_env(**kwargs) -> RiichiParallelEnv:
    """``mjenv.parallel_env(rules="riichi", ...)`` (arguments: :data:`ARGUMENTS`)."""
    _check_kwargs(kwargs)
    return RiichiParallelEnv(**kwargs)


def make_env(**kwargs) -> AECEnv:
    """``mjenv.env(rules="riichi", ...)``: the AEC env with PettingZoo's order enforcing."""
    from mjenv.env import _OrderEnforcing

    _check_kwargs(kwargs)
    return _OrderEnforcing(RiichiAECEnv(**kwargs))


def play(args, input=None, output=None) -> int:
    """``mjenv play --rules riichi`` (:func:`mjenv.rulesets.riichi.play.play`)."""
    from mjenv.rulesets.riichi.play import play as _play

    return _play(args, input=input, output=output)


def observation_spec(raw: bool = False):
    """The observation spec (for documentation generators: ``markdown_table()``, ``size``, ``views``); ``raw``:
    ``observation="raw"``'s."""
    return _obs_spec(raw)


def make_vector_env(num_envs: int, **kwargs) -> RiichiVectorEnv:
    """``mjenv.vector_env(num_envs, rules="riichi", ...)``."""
    return RiichiVectorEnv(num_envs, **kwargs)


__doc__ = (__doc__.replace("{ACTIONS}", action_table()).replace("{OBSERVATION}", _obs_spec().markdown_table())
           .replace("{SIZE}", str(_obs_spec().size)).replace("{RAW_SIZE}", str(_obs_spec(True).size)))
