"""The tables an env shell steps, and the one end of a step.

Every env shell (``mjenv.parallel_env``, the AEC ``mjenv.env``, ``mjenv.vector_env`` on either engine)
ends its step in :func:`step_tables`: check the actions, move, reward (the illegal action, the scores,
the shaping term), terminate, autoreset, observe (one writer call). It works on per-table arrays
through a small interface that two engines implement:

* :class:`PythonTables` (here): N :class:`_Table` s, each a ``mjenv.game.Game`` (the PettingZoo envs
  are one table of it; the vector env uses it where the compiled step does not apply);
* ``mjenv.vector_batch.BatchTables``: N tables as the arrays of the compiled batch step.

An engine has ``num_tables``, ``shaping``, ``gamma``, ``plays_on`` (a win leaves the hand going
on: :func:`mjenv.rulesets.plays_on`) and the arrays ``deficiency``
(int[N, 4], the current state's), ``scores`` and ``won`` ([N, 4], the games'), and the steps
``check(actions) -> (chosen, illegal)``, ``move(chosen, illegal) -> ended``,
``finish(ended)``, ``final_states(ended)``, ``deal(rows)`` and ``observe(final)``: see
:func:`step_tables` for what each must do. Rendering and the observation/info formats are the
shells' (``mjenv.env``, ``mjenv.vector``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
from gymnasium.utils import seeding

from mjenv import AGENTS, rulesets
from mjenv.contract import ILLEGAL_REWARD, POTENTIAL_CAP, infos, potential, shape
from mjenv.game import Phase
from mjenv.game.actions import ActionLayout
from mjenv.observation import ObservationSpec
from mjenv.rules import Rules, get_rules

__all__ = [
    "ILLEGAL_REWARD", "POTENTIAL_CAP", "PythonTables", "StepResult", "deal_game", "game_seed_of", "potential",
    "step_tables",
]

OBSERVATIONS = ("default", "oracle")
SHAPINGS = (None, "deficiency")
ILLEGAL_ACTIONS = ("penalize", "raise")
_PHASE_END = Phase.END


def check_gamma(gamma) -> float:
    """``gamma`` as a float; ValueError unless it is a number in (0, 1] (the one check of a shaping discount)."""
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not 0.0 < float(gamma) <= 1.0:
        raise ValueError(f"gamma must be a number in (0, 1] (the learner's discount), got {gamma!r}")
    return float(gamma)


def _check_seed(seed) -> int | None:
    """``seed`` as a Python int (numpy integers accepted); ValueError for anything else."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be None or an int >= 0 (numpy integers too), got {seed!r}")
    return int(seed)


def table_seeds_and_options(seed, options, n: int) -> tuple[list[int | None], list[dict | None]]:
    """One seed and one options dict per table from a vector env's ``reset(seed, options)``.

    ``seed``: None, an int >= 0 (table i gets ``seed + i``; a 0-d integer array counts as its number) or a
    sequence of ``n`` of them (None or ints); ``options``: None, a dict for every table or a sequence of ``n``
    dicts or None. Raises ValueError for anything else (saying what is allowed).
    """
    if isinstance(seed, np.ndarray) and seed.ndim == 0:  # a 0-d array is the number it holds
        seed = seed.item() if seed.dtype.kind in "iu" else seed
    if seed is None:
        seeds: list[int | None] = [None] * n
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        first = _check_seed(seed)
        seeds = [first + i for i in range(n)]
    elif isinstance(seed, (str, bytes, dict)) or not isinstance(seed, (Sequence, np.ndarray)):
        raise ValueError(f"seed must be None, an int >= 0 or a sequence of {n} ints, got {seed!r}")
    else:
        seeds = [_check_seed(s) for s in seed]
        if len(seeds) != n:
            raise ValueError(f"reset got {len(seeds)} seeds for {n} tables; give one per table")
    if options is None or isinstance(options, dict):
        per_table = [options] * n
    elif isinstance(options, Sequence) and not isinstance(options, (str, bytes)):
        per_table = list(options)
        if len(per_table) != n or any(o is not None and not isinstance(o, dict) for o in per_table):
            raise ValueError(f"options must be None, a dict, or a sequence of {n} dicts or None (one per table)")
    else:
        raise ValueError(f"options must be None, a dict, or a sequence of {n} dicts or None, got {options!r}")
    return seeds, per_table


def _check_options(options) -> tuple[Any, int]:
    """(wall, dealer) from reset options; ValueError unless a dict or None. The game checks the values."""
    if options is None:
        return None, 0
    if not isinstance(options, dict):
        raise ValueError(f"reset options must be a dict or None, got {type(options).__name__}")
    # other keys are ignored, as gymnasium envs do (PettingZoo's api_test passes one)
    return options.get("wall"), options.get("dealer", 0)


def deal_game(rules: Rules, np_random: np.random.Generator, seed: int | None = None, options: dict | None = None):
    """A table's next hand: ``(generator, Game)``; ``seed`` reseeds the table's generator first.

    The one definition of how a table deals (the PettingZoo envs and both vector-env engines).
    """
    from mjenv.game import Game

    wall, dealer = _check_options(options)
    np_random, game_seed = game_seed_of(np_random, seed)
    return np_random, Game(rules=rules, seed=game_seed, dealer=dealer, wall=wall)


def game_seed_of(np_random: np.random.Generator, seed: int | None = None) -> tuple[np.random.Generator, int]:
    """(generator, the next hand's ``Game`` seed) of a table (``seed``: reseed the generator first);
    :func:`deal_game`'s draw, also for deals that build no ``Game`` (``mjenv.vector_batch``)."""
    seed = _check_seed(seed)
    if seed is not None:
        np_random, _ = seeding.np_random(seed)
    return np_random, int(np_random.integers(0, 2**63 - 1))


def _deals(generators: list, rules: Rules, seeds: list | None, options: list | None) -> list[tuple]:
    """:func:`deal_game` of each generator (``seeds``/``options``: None or one per generator), all
    drawn before the caller changes any table (a bad seed or wall raises first)."""
    return [deal_game(rules, rng, seeds[k] if seeds else None, options[k] if options else None)
            for k, rng in enumerate(generators)]


class StepResult(NamedTuple):
    """What :func:`step_tables` returns for N tables.

    Attributes:
        rewards: float64[N, 4] (scores at the end of a hand, -1 for an illegal action, shaping).
        done: bool[N] whether the table's hand ended this step.
        final_obs, final_masks: float32[N, 4, size], int8[N, 4, A]: with ``autoreset``, the last
            observations of the hands that ended (zeros elsewhere); else None.
        scores: int64[N, 4] score changes of the hands that ended (0 elsewhere); None when no hand
            ended and there is no autoreset (the PettingZoo envs read the tables' infos instead).
        winners, illegal: bool[N, 4] winning seats and seats whose illegal action ended the hand (None
            as ``scores``).
    """

    rewards: np.ndarray
    done: np.ndarray
    final_obs: np.ndarray | None
    final_masks: np.ndarray | None
    scores: np.ndarray | None
    winners: np.ndarray | None
    illegal: np.ndarray | None


def step_tables(tables, actions, autoreset: bool = False) -> StepResult:
    """The one end of a step, for every env shell and both engines: check, move, reward, finish, observe.

    All-or-nothing: every table's actions are checked (``tables.check``: range, omitted seats, and
    illegal actions under ``illegal_action="raise"``) before any table moves, so a ``ValueError``
    leaves every table as it was. Then the games move (``tables.move``; a table with an illegal
    action does not move: its hand ends on the state it had), and the rewards are this step's
    payments where the hand plays on after a win (``tables.plays_on``), at the end of a hand its score changes or
    ``ILLEGAL_REWARD`` for the seats whose illegal action ended it, plus the shaping term
    ``gamma * Phi(s') - Phi(s)`` (``Phi = 0`` once the hand is over). Ended hands are finished
    (``tables.finish``: logs). With ``autoreset`` (the vector env) their final states are kept
    (``tables.final_states``) and the next hands dealt (``tables.deal``). Last, the current states of
    all tables and the kept final states are observed in one writer call (``tables.observe``).

    Args:
        tables: an engine (:class:`PythonTables`, ``mjenv.vector_batch.BatchTables``; see the module
            docstring).
        actions: what the engine's ``check`` takes: per table ``{seat: action}`` (an omitted seat
            takes its only legal action) or an int[N, 4] array.
        autoreset: deal the next hand at tables whose hand ended.

    Returns:
        :class:`StepResult`.

    Raises:
        ValueError: an action outside the action space, an omitted seat with a real choice, or (in
            ``"raise"`` mode) an illegal action; nothing has moved then.
    """
    chosen, illegal = tables.check(actions)  # {table: seats whose action was illegal}; raises first
    n = tables.num_tables
    before = left_before = None
    if tables.shaping == "deficiency":
        before = tables.deficiency.copy()
        if tables.plays_on:  # a seat that has left the hand (it won, play went on) has Phi = 0
            left_before = tables.won.copy()
    # a hand that plays on after a win pays during the hand; each step rewards its score changes
    paid = tables.scores.copy() if tables.plays_on else None
    ended = tables.move(chosen, illegal)  # ascending table indices, the illegal ones included
    rewards = np.zeros((n, 4))
    done = np.zeros(n, dtype=bool)
    if paid is not None:  # this step's payments (none at a table whose action was illegal)
        rewards += tables.scores - paid
    scores = winners = illegal_seats = final = None
    if ended or autoreset:
        scores = np.zeros((n, 4), dtype=np.int64)
        winners = np.zeros((n, 4), dtype=bool)
        illegal_seats = np.zeros((n, 4), dtype=bool)
    if ended:
        done[ended] = True
        for i, seats in illegal.items():
            rewards[i, seats] = ILLEGAL_REWARD
            illegal_seats[i, seats] = True
        # the results so far, also of a hand an illegal action ended (a hand that plays on paid its
        # earlier wins already; in other games nothing is paid before the end)
        scores[ended] = tables.scores[ended]
        winners[ended] = tables.won[ended]
        moved = [i for i in ended if i not in illegal]
        if moved and paid is None:  # a hand that plays on rewarded its payments step by step above
            rewards[moved] += scores[moved]
        tables.finish(ended)
    if autoreset:
        final = tables.final_states(ended)  # before the deal replaces them
        if ended:
            tables.deal(ended)
    final_obs, final_masks = tables.observe(final)
    if before is not None:  # Phi(s') = 0 once the hand is over (done, not the next hand's) and for a seat that left
        left_after = tables.won if tables.plays_on else None
        shape(rewards, before, tables.deficiency, done, tables.gamma, left_before, left_after)
    return StepResult(rewards, done, final_obs, final_masks, scores, winners, illegal_seats)


class _Table:
    """The state of one table: the game, its generator, the env options, this step's observations.

    Logging and rendering are not part of it (``mjenv.env._Output``); one step of any env shell is
    :func:`step_tables` over a :class:`PythonTables` of these.
    """

    def __init__(
        self,
        rules: str | Rules | dict | None = "basic",
        observation: str = "default",
        shaping: str | None = None,
        gamma: float = 1.0,
        illegal_action: str = "penalize",
    ):
        self.rules = get_rules(rules)
        #: a win leaves the hand going on (the winners leave it): :func:`mjenv.rulesets.plays_on`
        self.plays_on = rulesets.plays_on(self.rules)
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {OBSERVATIONS}, got {observation!r}")
        if shaping not in SHAPINGS:
            raise ValueError(f"shaping must be None or 'deficiency', got {shaping!r}")
        gamma = check_gamma(gamma)
        if illegal_action not in ILLEGAL_ACTIONS:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTIONS}, got {illegal_action!r}")
        self.observation_kind = observation
        self.shaping = shaping
        self.gamma = float(gamma)
        self.illegal_action = illegal_action
        self.layout = ActionLayout.for_rules(self.rules)
        self.spec = ObservationSpec(self.rules, oracle=observation == "oracle")
        #: the observation writer's per-table scratch (the compiled kernel's memo of seats)
        self.memo = self.spec.new_memo()
        self.np_random, _ = seeding.np_random(None)
        self.game = None
        self.ended_by_illegal = False
        self.illegal_seats: list[int] = []

    # -- state ------------------------------------------------------------------------------------

    def deal(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand (``seed``: reseed the generator first); observations are not written yet."""
        self.start(*deal_game(self.rules, self.np_random, seed, options))

    def start(self, np_random: np.random.Generator, game) -> None:
        """Take a dealt hand (:func:`deal_game`'s generator and game)."""
        self.np_random, self.game = np_random, game
        self.ended_by_illegal = False
        self.illegal_seats = []

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new hand and observe it."""
        self.deal(seed, options)
        self.observe_now()

    def observe_now(self) -> None:
        """Write the current state's observations (the writer's one-state call)."""
        self.install(*self.spec.observe(self.game, self.memo))

    def install(self, obs: np.ndarray, deficiency: np.ndarray) -> None:
        """Take this state's observations (float32[4, size]) and deficiencies (int32[4])."""
        g = self.game
        self.obs, self.deficiency = obs, deficiency
        self.masks = g.legal_action_masks()
        self.acting = g.acting_seats()  # a fresh list of Python ints (empty once the hand is over)

    def answering(self) -> list[int]:
        """Seats the AEC env selects for the current decision, in order: the current player on her turn;
        in a claim / rob-kong window the three other seats in turn order from the discarder (kong
        declarer), whether or not they can claim, so the selection reveals nothing hidden."""
        if self.over:
            return []
        d = self._window_discarder()
        if d < 0:
            return list(self.acting)
        if self.plays_on:  # seats that have won are out of the hand
            won = self.won
            return [(d + k) % 4 for k in (1, 2, 3) if not won[(d + k) % 4]]
        return [(d + 1) % 4, (d + 2) % 4, (d + 3) % 4]

    def _window_discarder(self) -> int:
        """The discarder (kong declarer) of the current claim / rob-kong window; -1 outside one."""
        g = self.game
        return int(g.last_discarder) if g.phase in (Phase.CLAIM, Phase.ROB_KONG) else -1

    @property
    def over(self) -> bool:
        return self.ended_by_illegal or self.game.phase == _PHASE_END  # ``game.is_over``, without its lookups

    @property
    def scores(self) -> np.ndarray:
        """int64[4] the game's score changes so far."""
        return self.game.scores

    @property
    def won(self) -> np.ndarray:
        """bool[4] the game's winners so far."""
        return self.game.won

    def observation(self, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self.obs[seat], "action_mask": self.masks[seat]}

    def infos(self) -> dict[str, dict[str, Any]]:
        """Every agent's info for the current state (:func:`mjenv.contract.infos`)."""
        acting, over, end, left = self.acting, self.over, None, ()
        if over or self.plays_on:  # a seat that has left the hand (it won, play goes on): its final keys now
            winners = np.flatnonzero(self.won).tolist()
            end = (self.illegal_seats, self.scores, winners)
            left = () if over else winners
        return infos(self.deficiency.tolist(), (0 in acting, 1 in acting, 2 in acting, 3 in acting), over, end, left)

    def finish(self) -> None:
        """The hand is over: nobody acts (a hand ended by an illegal action keeps its game's acting seats)."""
        self.acting = []

    # -- checks (no state changes) ----------------------------------------------------------------

    def check_action(self, seat: int, action) -> int:
        """The action as an int; ValueError if it is outside the action space."""
        if type(action) is int and 0 <= action < self.layout.size:  # the common case
            return action
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
                action = action.item()
            else:
                raise ValueError(
                    f"{AGENTS[seat]}: action must be an int in 0..{self.layout.size - 1}, got {action!r}; "
                    f"legal actions: {self.legal_names(seat)}"
                )
        a = int(action)
        if not 0 <= a < self.layout.size:
            raise ValueError(
                f"{AGENTS[seat]}: action {a} is outside the action space 0..{self.layout.size - 1}; "
                f"legal actions: {self.legal_names(seat)}"
            )
        return a

    def legal_names(self, seat: int) -> str:
        return ", ".join(f"{a} ({self.layout.describe(int(a))})" for a in np.flatnonzero(self.masks[seat]))

    def choose(self, given: dict[int, Any]) -> tuple[dict[int, int], list[int]]:
        """The checked actions and the seats whose action is illegal (in one pass: the env's hot path).

        Every given action must be in the action space (ValueError otherwise, see :meth:`check_action`);
        an illegal one raises in ``illegal_action="raise"`` mode (:meth:`illegal`) and otherwise ends the
        hand whatever the others do. Without one, an omitted acting seat takes its only legal action (a
        forced move); ValueError for an omitted seat with a choice. A seat that is not acting has only
        PASS legal (the game's invariant): :meth:`move` gives it PASS.
        """
        size, masks, out, bad = self.layout.size, self.masks, {}, []
        for s, a in given.items():
            if type(a) is not int or not 0 <= a < size:  # the common case (a Python int in range) inline
                a = self.check_action(s, a)
            out[s] = a
            if not masks[s, a]:
                bad.append(s)
        if bad:
            return out, self.illegal(out)  # raises in "raise" mode
        for s in self.acting:
            if s not in out:
                legal = np.flatnonzero(masks[s])
                if len(legal) != 1:
                    raise ValueError(
                        f"{AGENTS[s]} must act now (legal actions: {self.legal_names(s)}) but has no action"
                    )
                out[s] = int(legal[0])
        return out, bad

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

    # -- the move ---------------------------------------------------------------------------------

    def move(self, actions: dict[int, int], bad: list[int] | None) -> None:
        """Apply checked actions (``bad``: the seats :meth:`choose` found illegal) to the game; the new state's
        observations still have to be written (:func:`step_tables` does)."""
        if bad:
            self.ended_by_illegal = True
            self.illegal_seats = bad
            # the state does not change, but callers keep what they were given: hand out fresh arrays
            self.obs = self.obs.copy()
            self.masks = self.masks.copy()
            return
        # checked against the masks by choose() (every acting seat has an action): no second check
        chosen = [self.layout.pass_] * 4
        for s in self.acting:
            chosen[s] = actions[s]
        self.game._advance(chosen)


class PythonTables:
    """N :class:`_Table` s as one engine of :func:`step_tables` (the Python engine).

    Args:
        tables: the tables (one for the PettingZoo envs), of one env's options.
        output: where finished hands are logged (``write_log(game)``; ``mjenv.env._Output``).
    """

    def __init__(self, tables: list[_Table], output):
        self.tables = tables
        self.output = output
        first = tables[0]
        self.num_tables = len(tables)
        self.spec = first.spec
        self.shaping, self.gamma, self.plays_on = first.shaping, first.gamma, first.plays_on

    @property
    def deficiency(self) -> np.ndarray:
        """int32[N, 4] each table's seats' deficiencies in its current state."""
        ts = self.tables
        return ts[0].deficiency[None] if len(ts) == 1 else np.stack([t.deficiency for t in ts])

    @property
    def scores(self) -> np.ndarray:
        """int64[N, 4] the games' score changes so far."""
        return np.stack([t.scores for t in self.tables])

    @property
    def won(self) -> np.ndarray:
        """bool[N, 4] the games' winners so far."""
        return np.stack([t.won for t in self.tables])

    def check(self, actions) -> tuple[list[dict[int, int]], dict[int, list[int]]]:
        """Every table's actions as ``{seat: action}`` (omitted seats completed) and the illegal seats.

        Args:
            actions: per table ``{seat: action}``, or an int[N, 4] array (one action per seat).
        """
        if isinstance(actions, np.ndarray):
            actions = [dict(enumerate(row)) for row in actions.tolist()]
            if self.plays_on:  # the vector env's rows hold every seat: a seat that has left the hand is ignored
                actions = [{s: a for s, a in given.items() if not t.won[s]} for t, given in zip(self.tables, actions)]
        if self.num_tables == 1:  # the PettingZoo envs: no loop (their hot path)
            c, bad = self.tables[0].choose(actions[0])
            return [c], ({0: bad} if bad else {})
        chosen, illegal = [], {}
        for i, (t, given) in enumerate(zip(self.tables, actions)):
            c, bad = t.choose(given)
            chosen.append(c)
            if bad:
                illegal[i] = bad
        return chosen, illegal

    def move(self, chosen: list[dict[int, int]], illegal: dict[int, list[int]]) -> list[int]:
        if self.num_tables == 1:  # the PettingZoo envs: no loop (their hot path)
            t = self.tables[0]
            t.move(chosen[0], illegal.get(0))
            return [0] if t.over else []
        ended = []
        for i, (t, c) in enumerate(zip(self.tables, chosen)):
            t.move(c, illegal.get(i))
            if t.over:
                ended.append(i)
        return ended

    def finish(self, ended: list[int]) -> None:
        for i in ended:
            t = self.tables[i]
            t.finish()
            if self.output.log_dir is not None:  # (a compiled table builds its Game only when asked)
                self.output.write_log(t.game)

    def final_states(self, ended: list[int]) -> list[tuple[int, Any]]:
        """(table, game) of the hands that ended, to observe after the next deal replaced them."""
        return [(i, self.tables[i].game) for i in ended]

    def deal(self, rows, seeds: list | None = None, options: list | None = None) -> None:
        """Deal the next hand at tables ``rows`` from their own generators (``seeds``/``options``: one per
        row); every deal is drawn before any table changes, so a bad one raises with nothing changed."""
        ts = self.tables
        for i, dealt in zip(rows, _deals([ts[i].np_random for i in rows], ts[0].rules, seeds, options)):
            ts[i].start(*dealt)

    def observe(self, final: list[tuple[int, Any]] | None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Observes every table's current state (unless its hand ended on an illegal action) and the
        ``final`` states, in one writer call; returns their (final_obs, final_masks), [N, ...] zeros
        elsewhere, or (None, None) without ``final``."""
        ts = self.tables
        if final is None and len(ts) == 1:  # the PettingZoo envs: the spec's one-state call
            t = ts[0]
            if not t.ended_by_illegal:
                t.observe_now()
            return None, None
        live = [t for t in ts if not t.ended_by_illegal]
        finals, final = final is not None, final or []
        games = [t.game for t in live] + [g for _, g in final]
        if games:
            obs, deficiency = self.spec.observe_many(games, [t.memo for t in live] + [ts[i].memo for i, _ in final])
            for k, t in enumerate(live):
                t.install(obs[k], deficiency[k])
        if not finals:
            return None, None
        n = len(ts)
        final_obs = np.zeros((n, 4, self.spec.size), dtype=np.float32)
        final_masks = np.zeros((n, 4, ts[0].layout.size), dtype=np.int8)
        for k, (i, game) in enumerate(final, len(live)):
            final_obs[i], final_masks[i] = obs[k], game.legal_action_masks()
        return final_obs, final_masks

    # -- the vector env's batch (mjenv.vector) -------------------------------------------------------

    def observations(self) -> dict[str, np.ndarray]:
        return {"observation": np.stack([t.obs for t in self.tables]),
                "action_mask": np.stack([t.masks for t in self.tables])}

    def acting_bits(self) -> np.ndarray:
        """int64[N] each table's acting-seat bit set."""
        return np.array([sum(1 << s for s in t.acting) for t in self.tables], dtype=np.int64)
