"""The vector env's tables on the compiled batch step.

:class:`BatchTables` is what :class:`mjenv.vector.MahjongVectorEnv` runs on when the compiled step
(``mjenv.game._step``) is built and supports the rule set: the N games live as the arrays of one
:class:`mjenv.game.batch.BatchGames`, one C call moves them all, and the observations come from the
same writer as on the Python path: the games' arrays are read into the writer's state records
(:meth:`ObservationSpec.state`'s layout) and the spec's plan is executed on them.

It is one engine of the one end of a step, :func:`mjenv.tables.step_tables` (the other is
:class:`mjenv.tables.PythonTables`). A well-formed step takes a shorter road with the same results
(:meth:`BatchTables.step`): one C call (``_step.step_batch``: the checks, the moves, the state records
and the writer's observations, and the next hands of the tables whose hand ended, dealt and observed, on
``num_threads`` threads with the GIL released) returns arrays, and :mod:`mjenv.contract` turns them into
the rewards and infos, as for every other road. Whatever the C call refuses (an
action outside the action space, an illegal one under ``illegal_action="raise"``) goes through
``step_tables``, which raises. Everything the env returns equals the Python engine byte for byte,
for every number of threads (``tests/test_vector_batch.py``). New hands take their ``Game`` seed from
the table's generator as the Python engine does (:func:`mjenv.tables.game_seed_of`, so seeds give the
same walls) and are dealt straight into the arrays: in the step's C call, which draws the seed and
shuffles the wall as numpy does (``mjenv/game/_numpy_random.h``, through each generator's
``bit_generator.capsule``), or on a reset by :meth:`BatchGames.deal` (a reset with a given wall or
dealer loads a dealt ``Game``).

Not on this path (the vector env falls back to the Python path): ``log_dir`` (the batch keeps no
game log), ``observation="oracle"`` (its wall view is computed from a ``Game``), and rules ``BatchGames``
refuses (a room's fields its compiled hooks do not cover, such as tai scoring).
"""

from __future__ import annotations

import sys

import numpy as np
from gymnasium.utils import seeding

from mjenv import AGENTS, rulesets
from mjenv.contract import table_rewards, vector_infos
from mjenv.game.actions import ActionLayout, Phase
from mjenv.game.batch import SCALARS, BatchGames, _step, record_layout
from mjenv.observation import ObservationSpec
from mjenv.tables import _deals, game_seed_of

__all__ = ["BatchTables"]


def outside(acts: np.ndarray, size: int) -> np.ndarray | None:
    """bool[N, 4]: the actions (int64[N, 4]) outside the action space 0..size-1; None when none is (one reduction
    for both ends: a negative id viewed as uint64 is larger than any action id)."""
    if acts.view(np.uint64).max() < size:
        return None
    return (acts < 0) | (acts >= size)


def mask_misses(masks: np.ndarray, acts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """bool[N, 4]: whether each seat's action (int64[N, 4], in the action space) is not in its mask (int8[N, 4, A]),
    read from the flat masks (``offsets``: int64[4N], ``arange(4N) * A``; a take_along_axis costs 5x more)."""
    return (masks.reshape(-1).take(acts.reshape(-1) + offsets) == 0).reshape(acts.shape)


class _Spares:
    """Arrays a step hands out, each written again once nothing but this pool holds it.

    A vector env's step returns a few large arrays (the observations and the final observations of 64 tables
    are 578 KB each); allocating and zeroing them costs about half a microsecond a table-step. An array the
    caller has dropped is unreachable, so writing it again is invisible: ``take`` returns such an array (its
    rows written since it was handed out set back to ``fill``), or a fresh one when the caller still holds
    every array of the pool (``depth`` of them: the last step's is usually held while the next is taken).
    """

    def __init__(self, shape: tuple[int, ...], dtype, fill: int | None, depth: int = 2):
        self.shape, self.dtype, self.fill = shape, dtype, fill
        self.arrays: list[np.ndarray | None] = [None] * depth
        self.written: list[list[int] | None] = [None] * depth  # rows written since handed out (None: all)
        self.next = 0

    def take(self) -> tuple[np.ndarray, int]:
        """(an array nobody else holds, filled; its slot for :meth:`wrote`)."""
        arrays = self.arrays
        for k in range(len(arrays)):
            # the list's reference and getrefcount's argument, and no other: nobody holds the array
            if arrays[k] is not None and sys.getrefcount(arrays[k]) == 2:
                rows, a = self.written[k], arrays[k]
                if self.fill is not None and rows:
                    a[rows] = self.fill
                return a, k
        k = self.next
        self.next = (k + 1) % len(arrays)
        a = np.empty(self.shape, self.dtype) if self.fill is None else np.full(self.shape, self.fill, self.dtype)
        arrays[k] = a
        return a, k

    def wrote(self, k: int, rows: list[int]) -> None:
        """The rows of slot k's array written since it was taken (refilled when it is taken again)."""
        self.written[k] = rows

# scalars columns of BatchGames, named where they are defined
_PHASE, _ACTING = SCALARS.index("phase"), SCALARS.index("_acting")
_END = int(Phase.END)


class BatchTables:
    """N tables of the vector env on :class:`BatchGames` (see the module docstring).

    Args:
        num_envs: N >= 1.
        spec: the tables' observation spec (without game views).
        shaping, gamma, illegal_action: checked values of the env's arguments.
        num_threads: threads that step and observe the tables (the same outputs for every number).

    Raises:
        ValueError: rules ``BatchGames`` does not support, or a spec with views computed from a game.
    """

    def __init__(self, num_envs: int, spec: ObservationSpec, shaping: str | None, gamma: float, illegal_action: str,
                 num_threads: int = 1):
        if spec._game_views:
            raise ValueError("the batch step cannot write views computed from a game (observation='oracle')")
        self.rules = spec.rules
        self.spec = spec
        self.layout = ActionLayout.for_rules(self.rules)
        self.games = BatchGames(self.rules, num_envs)
        self.num_envs = self.num_tables = n = int(num_envs)
        self.shaping, self.gamma, self.illegal_action = shaping, gamma, illegal_action
        self.num_threads = num_threads
        self.plays_on = rulesets.plays_on(self.rules)  # a win leaves the hand going on: each step pays
        self.np_random = [seeding.np_random(None)[0] for _ in range(n)]
        self.memos = [spec.new_memo() for _ in range(n)]
        self.deficiency = np.zeros((n, 4), dtype=np.int32)
        self._layout = record_layout(spec)  # the rule set's own fields are its room's hooks' (BatchGames.room)
        self._all_rows = np.arange(n, dtype=np.int64)
        #: where each (table, seat)'s mask row starts in the flat masks (check's one take)
        self._mask_offsets = np.arange(4 * n, dtype=np.int64) * self.games.masks.shape[2]
        self._bound = None  # the arrays bound in C for step() (_bind; a C handle, so copies bind their own)
        self._masks = None  # step()'s copy of the masks, for the observations that follow it
        #: step()'s state records, one row a table
        self._step_records = np.empty((n, spec.state_size), dtype=np.int16)
        size = (n, 4, spec.size)
        self._spare_obs, self._spare_final = _Spares(size, np.float32, None), _Spares(size, np.float32, 0)
        self._spare_final_masks = _Spares(self.games.masks.shape, np.int8, 0)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_bound"] = None  # a C handle (and threads): a copy binds its own arrays on its first step
        for name in ("_spare_obs", "_spare_final", "_spare_final_masks"):  # a copy's arrays are its own
            state[name] = _Spares(state[name].shape, state[name].dtype, state[name].fill)
        return state

    def _bind(self):
        g = self.games
        self._bound = _step.bind_batch(g._params, self._layout, g.tiles, g.wall, g.discards, g.num_discards,
                                       g.meld_table, g.melds_declared, g.won, g.scores, g.masks, g.scalars, g.dealer,
                                       self._step_records, self.spec._records_plan, self.memos,
                                       self.num_threads)  # fmt: skip
        self._bind_generators()
        return self._bound

    def _bind_generators(self) -> None:
        """Gives the step's C call the tables' generators (after a reset with seeds replaced some)."""
        if self._bound is not None:
            _step.bind_deals(self._bound, self.games.full_tiles(), self.np_random)

    # -- the vector env's step in one C call ----------------------------------------------------------

    def step(self, acts: np.ndarray) -> tuple | None:
        """The vector env's step (:func:`mjenv.tables.step_tables` with autoreset, byte for byte) in a few C calls.

        ``_step.step_batch`` checks the actions, moves the tables (one with an illegal action ends on the state
        it had), observes every table (the final states of the hands that ended) and deals and observes the
        next hands of those (each from its table's generator, as :meth:`deal`); :mod:`mjenv.contract` gives
        the rewards and the infos.

        Args:
            acts: int[N, 4] (shape and dtype checked by the caller).

        Returns:
            None, with nothing changed, when the actions need the checked path (an action outside the action
            space, or an illegal one under ``illegal_action="raise"``: :meth:`check` raises there) or the
            writer is numpy's; else
            (rewards float32[N, 4], done bool[N], final_obs float32[N, 4, size], final_masks int8[N, 4, A],
            scores int64[N, 4], winners bool[N, 4], illegal bool[N, 4], infos) with infos
            ``{"needs_action": bool[N, 4], "deficiency": int64[N, 4], "potential": float32[N, 4]}``: the
            vector env's returns (:class:`mjenv.tables.StepResult`'s, fresh arrays).
        """
        if not self.spec.compiled:  # the numpy writer (MJENV_NO_KERNEL=1): the checked path observes
            return None
        n, bound = self.num_envs, self._bound or self._bind()
        g = self.games
        if self.plays_on:  # a game that plays on after a win: a seat that has left is not asked, the step pays
            acts = np.where(g.won, self.layout.pass_, acts)
            paid, left_before = g.scores.copy(), g.won.copy()
        done = np.empty(n, dtype=bool)
        illegal, winners = np.empty((n, 4), dtype=bool), np.empty((n, 4), dtype=bool)
        scores = np.empty((n, 4), dtype=np.int64)
        (final_masks, km), (final_obs, kf) = self._spare_final_masks.take(), self._spare_final.take()
        obs, _ = self._spare_obs.take()
        deficiency = np.empty((n, 4), dtype=np.int32)
        outs = [done, illegal, scores, winners, final_masks, final_obs, obs, deficiency]
        if not self.plays_on:  # the returned masks copied in the C call too
            masks = np.empty(g.masks.shape, dtype=np.int8)
            outs.append(masks)
        ended = _step.step_batch(bound, np.ascontiguousarray(acts, dtype=np.int64), self.illegal_action == "raise",
                                 *outs)
        if ended is None:
            return None
        if self.plays_on and ended:  # a hand an illegal action ended (it did not move) reports what it had paid
            stopped = done & illegal.any(axis=1)
            scores[stopped], winners[stopped] = paid[stopped], left_before[stopped]
        if self.plays_on:  # what was paid this step (a hand that ended: up to its end, before the next deal)
            paid = np.where(done[:, None], scores, g.scores) - paid
        self._spare_final_masks.wrote(km, ended)
        self._spare_final.wrote(kf, ended)
        before = self.deficiency if self.shaping == "deficiency" else None
        self.obs, self.deficiency = obs, deficiency
        if self.plays_on:
            rewards = table_rewards(paid, illegal if ended and illegal.any() else None, before, deficiency, done,
                                    self.gamma, left_before, g.won)  # fmt: skip
        else:
            rewards = table_rewards(scores, illegal if ended and illegal.any() else None, before, deficiency, done,
                                    self.gamma)  # fmt: skip
        if not self.plays_on:
            self._masks = masks  # observations()'s (once)
        return rewards, done, final_obs, final_masks, scores, winners, illegal, self.infos()

    def thread_stats(self) -> tuple[float, float, float]:
        """(work, critical, spun): CPU seconds of the threaded C runs so far, all threads together and the slowest
        thread of each run summed (their critical path), and of the threads' waiting awake for a run or for each
        other (``benchmarks/vector_threads.py``)."""
        return _step.thread_stats(self._bound or self._bind())

    def infos(self) -> dict[str, np.ndarray]:
        """The vector env's infos of the tables' current states (:func:`mjenv.contract.vector_infos`)."""
        return vector_infos(self.games.scalars[:, _ACTING], self.deficiency, self.games.won if self.plays_on else None)

    # -- the state records (ObservationSpec.sources, read from the arrays of many tables) -------------

    def _records(self, rows: np.ndarray | slice, out: np.ndarray) -> None:
        """Writes the state records of tables ``rows`` into ``out`` (int16[len(rows), state_size]), in C.

        The same values as ``spec.state(game)`` of each table's game (the tests compare them).
        """
        if isinstance(rows, slice):
            rows = self._all_rows
        self.games.records(self._layout, rows, out)

    # -- the engine of step_tables (mjenv.tables) -----------------------------------------------------

    @property
    def scores(self) -> np.ndarray:
        return self.games.scores

    @property
    def won(self) -> np.ndarray:
        return self.games.won

    def _refuse(self, acts: np.ndarray, mask: np.ndarray, why: str) -> None:
        """Raises the ValueError for the first (table, seat) in ``mask`` (nothing has moved)."""
        i, s = (int(x) for x in np.argwhere(mask)[0])
        a = int(acts[i, s])
        layout = self.layout
        legal = ", ".join(f"{x} ({layout.describe(int(x))})" for x in np.flatnonzero(self.games.masks[i, s]))
        raise ValueError(f"table {i}: {AGENTS[s]}: action {a} {why}; legal actions: {legal}")

    def check(self, acts: np.ndarray) -> tuple[np.ndarray, dict[int, list[int]]]:
        """The actions (int[N, 4], shape checked by the caller) as int64 and the illegal seats per table."""
        masks = self.games.masks
        size = masks.shape[2]
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        if self.plays_on:  # a seat that has left the hand (it won, play goes on) is not asked: its action is ignored
            acts = np.where(self.games.won, self.layout.pass_, acts)
        out = outside(acts, size)
        if out is not None:
            self._refuse(acts, out, f"is outside the action space 0..{size - 1}")
        bad = mask_misses(masks, acts, self._mask_offsets)
        if not bad.any():
            return acts, {}
        if self.illegal_action == "raise":
            self._refuse(acts, bad, "is illegal")
        return acts, {i: np.flatnonzero(bad[i]).tolist() for i in np.flatnonzero(bad.any(axis=1)).tolist()}

    def move(self, acts: np.ndarray, illegal: dict[int, list[int]]) -> list[int]:
        g = self.games
        rows = list(illegal)
        if rows:  # the C step skips ended tables: a table with an illegal action does not move
            phase = g.scalars[rows, _PHASE]
            g.scalars[rows, _PHASE] = _END
        if g.advance(acts):  # every live table's actions were checked against its masks
            raise RuntimeError("mjenv.vector_batch: the C step refused actions the legal masks allow")
        done = g.scalars[:, _PHASE] == _END
        if rows:  # its hand ends on the state it had (observed as its final state)
            g.scalars[rows, _PHASE] = phase
            done[rows] = True
        return np.flatnonzero(done).tolist()

    def finish(self, ended: list[int]) -> None:
        pass  # the batch keeps no game log

    def final_states(self, ended: list[int]) -> tuple[list[int], np.ndarray, np.ndarray]:
        """(tables, state records, masks) of the hands that ended."""
        if not ended:
            return ended, None, None
        records = np.empty((len(ended), self.spec.state_size), dtype=np.int16)
        self._records(np.array(ended, dtype=np.int64), records)
        return ended, records, self.games.masks[ended]

    def deal(self, rows: list[int], seeds: list | None = None, options: list | None = None) -> None:
        """Deal the next hand at tables ``rows`` from their own generators (``seeds``/``options``: one per
        row); every deal is drawn before any table changes, so a bad one raises with nothing changed."""
        if options is not None and any(o is not None for o in options):  # a given wall or dealer: a Game's deal
            for i, (rng, game) in zip(rows, _deals([self.np_random[i] for i in rows], self.rules, seeds, options)):
                self.np_random[i] = rng
                self.games.load(i, game)
            self._bind_generators()
            return
        # the common case (autoreset, reset without options): the same generators' draws, the hands
        # dealt into the arrays without a Game (BatchGames.deal)
        drawn = [game_seed_of(self.np_random[i], seeds[k] if seeds else None) for k, i in enumerate(rows)]
        for i, (rng, _) in zip(rows, drawn):
            self.np_random[i] = rng
        self.games.deal(rows, [s for _, s in drawn])
        if seeds:
            self._bind_generators()

    def observe(self, final: tuple | None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Observes every table's current state and the ``final`` records after them, in one writer call."""
        n = self.num_envs
        self._masks = None
        rows, final_records, masks = final if final is not None else ([], None, None)
        records = np.empty((n + len(rows), self.spec.state_size), dtype=np.int16)
        self._records(slice(None), records[:n])
        if rows:
            records[n:] = final_records
        out, deficiency = self.spec.observe_records(records, self.memos + [self.memos[i] for i in rows])
        self.obs, self.deficiency = out[:n], deficiency[:n]
        if final is None:
            return None, None
        final_obs = np.zeros((n, 4, self.spec.size), dtype=np.float32)
        final_masks = np.zeros_like(self.games.masks)
        if rows:
            final_obs[rows], final_masks[rows] = out[n:], masks
        return final_obs, final_masks

    # -- the vector env's batch (mjenv.vector) -------------------------------------------------------

    def observations(self) -> dict[str, np.ndarray]:
        masks, self._masks = self._masks, None  # the last step's copy of the masks, or a fresh one
        return {"observation": self.obs, "action_mask": self.games.masks.copy() if masks is None else masks}

    def acting_bits(self) -> np.ndarray:
        """int32[N] each table's acting-seat bit set."""
        return self.games.scalars[:, _ACTING]
