"""The vector env's tables on the compiled batch step.

:class:`BatchTables` is what :class:`mjenv.vector.MahjongVectorEnv` runs on when the compiled step
(``mjenv.game._step``) is built and supports the rule set: the N games live as the arrays of one
:class:`mjenv.game.batch.BatchGames`, one C call moves them all, and the observations come from the
same writer as on the Python path: the games' arrays are read into the writer's state records
(:meth:`ObservationSpec.state`'s layout, all tables in one C call, :meth:`BatchGames.records`)
and the spec's plan is executed on them (:meth:`ObservationSpec.observe_records`: one C call of the
kernel's ``observe``, or the numpy executor with ``MJENV_NO_KERNEL=1``).

It is one engine of the one end of a step, :func:`mjenv.tables.step_tables` (the other is
:class:`mjenv.tables.PythonTables`): this class checks, moves, keeps the final states, deals and
observes; the rewards, termination and autoreset are that function's, for both engines. A
well-formed step takes a shorter road with the same results (:meth:`BatchTables.step`): three
C calls around the writer's on arrays bound once (``_step.step_batch``: the checks, the moves, the
final states and every state record; ``_step.finish_batch``: ``step_tables``' rewards in its float
operations and order, the final observations and the infos' arrays), about 0.5 us of a table-step
where ``step_tables`` and its numpy temporaries took 1.2; whatever it refuses (an action outside the
action space, an illegal one under ``illegal_action="raise"``) goes through ``step_tables``, which
raises. Everything the env returns equals the Python engine byte for byte: observations, masks,
rewards, terminations, infos, final observations and infos, autoreset from each table's own generator
(``tests/test_vector_batch.py`` plays both side by side). New hands take their ``Game`` seed from
the table's generator as the Python engine does (:func:`mjenv.tables.game_seed_of`, so seeds give the
same walls) and are dealt straight into the arrays (:meth:`BatchGames.deal`; a reset with a given wall
or dealer loads a dealt ``Game``); everything after the deal runs in C.

Not on this path (the vector env falls back to the Python path): ``log_dir`` (the batch keeps no
game log), ``observation="oracle"`` (its wall view is computed from a ``Game``), and rule sets
``BatchGames`` refuses (flowers, a draw at N tiles left, tai scoring: ``taiwan16``).
"""

from __future__ import annotations

import numpy as np
from gymnasium.utils import seeding

from mjenv import AGENTS
from mjenv.game.actions import ActionLayout, Phase
from mjenv.game.batch import RECORD_FIELDS, SCALARS, BatchGames, _step
from mjenv.observation import ObservationSpec
from mjenv.tables import POTENTIAL_CAP, _deals, game_seed_of

__all__ = ["BatchTables"]

#: row b: whether each seat is in the acting-seat bit set b (BatchGames' scalar ``_acting``)
_NEEDS_ACTION = (np.arange(16)[:, None] >> np.arange(4) & 1) > 0
# scalars columns of BatchGames, named where they are defined
_PHASE, _ACTING = SCALARS.index("phase"), SCALARS.index("_acting")
_END = int(Phase.END)


class BatchTables:
    """N tables of the vector env on :class:`BatchGames` (see the module docstring).

    Args:
        num_envs: N >= 1.
        spec: the tables' observation spec (without game views).
        shaping, gamma, illegal_action: checked values of the env's arguments.

    Raises:
        ValueError: rules ``BatchGames`` does not support, or a spec with views computed from a game.
    """

    def __init__(self, num_envs: int, spec: ObservationSpec, shaping: str | None, gamma: float, illegal_action: str):
        if spec._game_views:
            raise ValueError("the batch step cannot write views computed from a game (observation='oracle')")
        self.rules = spec.rules
        self.spec = spec
        self.layout = ActionLayout(self.rules.num_tile_types)
        self.games = BatchGames(self.rules, num_envs)
        self.num_envs = self.num_tables = n = int(num_envs)
        self.shaping, self.gamma, self.illegal_action = shaping, gamma, illegal_action
        self.bloody = False  # the Sichuan game is not on the compiled step
        self.np_random = [seeding.np_random(None)[0] for _ in range(n)]
        self.memos = [spec.new_memo() for _ in range(n)]
        self.deficiency = np.zeros((n, 4), dtype=np.int32)
        start = {name: begin for name, (begin, _, _) in spec._fields.items()}
        # fields of rules the step does not implement (flowers, the Sichuan fields) are empty for the
        # others: they take no room in the record, so only a non-empty unknown field is refused
        unknown = {name for name, (_, shape, _) in spec._fields.items()
                   if name not in RECORD_FIELDS and int(np.prod(shape, dtype=np.int64)) > 0}
        if unknown:
            raise ValueError(f"the batch step cannot fill the state fields {sorted(unknown)}")
        self._layout = np.array([start[f] for f in RECORD_FIELDS] + [spec.state_size], dtype=np.int32)
        self._all_rows = np.arange(n, dtype=np.int64)
        #: where each (table, seat)'s mask row starts in the flat masks (check's one take)
        self._mask_offsets = np.arange(4 * n, dtype=np.int64) * self.games.masks.shape[2]
        self._bound = None  # the arrays bound in C for step() (_bind; a C handle, so copies bind their own)
        #: step()'s state records: rows 0..N-1 the tables' current states, then the final states of the hands that
        #: ended in the last step
        self._step_records = np.empty((2 * n, spec.state_size), dtype=np.int16)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_bound"] = None  # a C handle: a copy binds its own arrays on its first step
        return state

    def _bind(self):
        g = self.games
        self._bound = _step.bind_batch(g._params, self._layout, g.tiles, g.wall, g.discards, g.num_discards,
                                       g.meld_table, g.melds_declared, g.won, g.scores, g.masks, g.scalars, g.dealer,
                                       self._step_records)  # fmt: skip
        return self._bound

    # -- the vector env's step in three C calls and the writer's --------------------------------------

    def step(self, acts: np.ndarray) -> tuple | None:
        """The vector env's step (:func:`mjenv.tables.step_tables` with autoreset, byte for byte) in a few C calls.

        ``_step.step_batch`` checks the actions, moves the tables (one with an illegal action ends on the state
        it had), keeps the final states and writes every state record; the hands that ended are dealt again
        (:meth:`BatchGames.deal`, their records rewritten); the writer observes all records in one call; and
        ``_step.finish_batch`` writes the rewards and the infos' arrays. No numpy temporaries but the
        returned arrays.

        Args:
            acts: int[N, 4] (shape and dtype checked by the caller).

        Returns:
            None, with nothing changed, when the actions need the checked path (an action outside the action
            space, or an illegal one under ``illegal_action="raise"``: :meth:`check` raises there); else
            (rewards float32[N, 4], done bool[N], final_obs float32[N, 4, size], final_masks int8[N, 4, A],
            scores int64[N, 4], winners bool[N, 4], illegal bool[N, 4], infos) with infos
            ``{"needs_action": bool[N, 4], "deficiency": int64[N, 4], "potential": float32[N, 4]}``: the
            vector env's returns (:class:`mjenv.tables.StepResult`'s, fresh arrays).
        """
        n, bound = self.num_envs, self._bound or self._bind()
        done = np.empty(n, dtype=bool)
        illegal, winners = np.empty((n, 4), dtype=bool), np.empty((n, 4), dtype=bool)
        scores = np.empty((n, 4), dtype=np.int64)
        final_masks = np.zeros(self.games.masks.shape, dtype=np.int8)
        ended = _step.step_batch(bound, np.ascontiguousarray(acts, dtype=np.int64), self.illegal_action == "raise",
                                 done, illegal, scores, winners, final_masks)  # fmt: skip
        if ended is None:
            return None
        memos = self.memos
        if ended:  # the next hands, from each table's own generator (as deal()); their records rewritten
            self.deal(ended)
            _step.records_batch(bound, np.array(ended, dtype=np.int64))
            memos = memos + [memos[i] for i in ended]
        out, deficiency = self.spec.observe_records(self._step_records[: n + len(ended)], memos)
        final_obs = np.zeros((n, 4, self.spec.size), dtype=np.float32)
        rewards, potential = np.empty((n, 4), dtype=np.float32), np.empty((n, 4), dtype=np.float32)
        needs, deficiency64 = np.empty((n, 4), dtype=bool), np.empty((n, 4), dtype=np.int64)
        _step.finish_batch(bound, self.deficiency, deficiency, out, final_obs, rewards, deficiency64, potential, needs,
                           self.gamma, self.shaping == "deficiency", POTENTIAL_CAP)  # fmt: skip
        self.obs, self.deficiency = out[:n], deficiency[:n]
        infos = {"needs_action": needs, "deficiency": deficiency64, "potential": potential}
        return rewards, done, final_obs, final_masks, scores, winners, illegal, infos

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
        # one reduction for both ends: a negative id viewed as uint64 is larger than any action id
        if acts.view(np.uint64).max() >= size:
            self._refuse(acts, (acts < 0) | (acts >= size), f"is outside the action space 0..{size - 1}")
        # each seat's mask entry of its action, read from the flat masks (a take_along_axis costs 5x more)
        bad = (masks.reshape(-1).take(acts.reshape(-1) + self._mask_offsets) == 0).reshape(acts.shape)
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
            return
        # the common case (autoreset, reset without options): the same generators' draws, the hands
        # dealt into the arrays without a Game (BatchGames.deal)
        drawn = [game_seed_of(self.np_random[i], seeds[k] if seeds else None) for k, i in enumerate(rows)]
        for i, (rng, _) in zip(rows, drawn):
            self.np_random[i] = rng
        self.games.deal(rows, [s for _, s in drawn])

    def observe(self, final: tuple | None) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Observes every table's current state and the ``final`` records after them, in one writer call."""
        n = self.num_envs
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
        return {"observation": self.obs, "action_mask": self.games.masks.copy()}

    def needs_action(self) -> np.ndarray:
        # the acting-seat bit set (0..15) looked up in its 16 rows: one take, not four array operations
        return _NEEDS_ACTION.take(self.games.scalars[:, _ACTING], axis=0)
