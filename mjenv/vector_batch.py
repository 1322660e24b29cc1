"""The vector env's tables on the compiled batch step (issue 16).

:class:`BatchTables` is what :class:`mjenv.vector.MahjongVectorEnv` runs on when the compiled step
(``mjenv.game._step``) is built and supports the rule set: the N games live as the arrays of one
:class:`mjenv.game.batch.BatchGames`, one C call moves them all, and the observations come from the
same writer as on the Python path: the games' arrays are read into the writer's state records
(:meth:`ObservationSpec.state`'s layout, all tables in one C call, :meth:`BatchGames.records`)
and the spec's plan is executed on them (:meth:`ObservationSpec.observe_records`: one C call of the
kernel's ``observe``, or the numpy executor with ``MJENV_NO_KERNEL=1``).

Everything the env returns equals the Python path (``mjenv.env.step_tables`` over ``_Table`` s) byte
for byte: observations, masks, rewards, terminations, infos, final observations and infos, autoreset
from each table's own generator (``tests/test_vector_batch.py`` plays both side by side). New hands
are dealt by the Python engine (:func:`mjenv.env.deal_game`, so seeds give the same walls) and loaded
into the arrays; everything after the deal runs in C.

Not on this path (the vector env falls back to the Python path): ``log_dir`` (the batch keeps no
game log), ``observation="oracle"`` (its wall view is computed from a ``Game``), and rule sets
``BatchGames`` refuses (flowers, a draw at N tiles left, tai scoring: ``taiwan16``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding

from mjenv import AGENTS
from mjenv.env import ILLEGAL_REWARD, deal_game, potential
from mjenv.game.actions import ActionLayout, Phase
from mjenv.game.batch import RECORD_FIELDS, BatchGames
from mjenv.observation import ObservationSpec

__all__ = ["BatchTables"]

_SEATS = np.arange(4)
# scalars columns of BatchGames (mjenv.game.batch.SCALARS)
_PHASE, _ACTING = 0, 10
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
        self.num_envs = n = int(num_envs)
        self.shaping, self.gamma, self.illegal_action = shaping, gamma, illegal_action
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

    # -- the state records (ObservationSpec.sources, read from the arrays of many tables) -------------

    def _records(self, rows: np.ndarray | slice, out: np.ndarray) -> None:
        """Writes the state records of tables ``rows`` into ``out`` (int16[len(rows), state_size]), in C.

        The same values as ``spec.state(game)`` of each table's game (the tests compare them).
        """
        if isinstance(rows, slice):
            rows = self._all_rows
        self.games.records(self._layout, rows, out)

    def _observe(self, final: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Observes every table's current state and, after them, the records in ``final`` (one writer call).

        Returns:
            (float32[N + F, 4, size], int32[N + F, 4]).
        """
        n = self.num_envs
        records = np.empty((n + len(final), self.spec.state_size), dtype=np.int16)
        self._records(slice(None), records[:n])
        records[n:] = final
        return self.spec.observe_records(records, self.memos + [self.memos[i] for i in self._final_rows])

    # -- the env's calls -----------------------------------------------------------------------------

    def reset(self, seeds: list, options: list) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Deals at every table (``seeds``, ``options``: one per table, checked by the caller's rules)."""
        dealt = []
        for i, (s, o) in enumerate(zip(seeds, options)):
            dealt.append(deal_game(self.rules, self.np_random[i], s, o))  # raises before any table changes
        for i, (rng, game) in enumerate(dealt):
            self.np_random[i] = rng
            self.games.load(i, game)
        self._final_rows = []
        obs, deficiency = self._observe(np.empty((0, self.spec.state_size), dtype=np.int16))
        self.deficiency = deficiency
        return {"observation": obs, "action_mask": self.games.masks.copy()}, self._infos()

    def _infos(self) -> dict[str, np.ndarray]:
        acting = self.games.scalars[:, _ACTING]
        deficiency = self.deficiency.astype(np.int64)
        return {
            "needs_action": (acting[:, None] >> _SEATS & 1) > 0,
            "deficiency": deficiency,
            "potential": potential(deficiency).astype(np.float32),
        }

    def _refuse(self, acts: np.ndarray, mask: np.ndarray, why: str) -> None:
        """Raises the ValueError for the first (table, seat) in ``mask`` (nothing has moved)."""
        i, s = (int(x) for x in np.argwhere(mask)[0])
        a = int(acts[i, s])
        layout = self.layout
        legal = ", ".join(f"{x} ({layout.describe(int(x))})" for x in np.flatnonzero(self.games.masks[i, s]))
        raise ValueError(f"table {i}: {AGENTS[s]}: action {a} {why}; legal actions: {legal}")

    def step(self, acts: np.ndarray) -> tuple[Any, ...]:
        """One step of every table (``acts``: int[N, 4], shape checked by the caller); the env's step tuple."""
        g, n = self.games, self.num_envs
        size = g.masks.shape[2]
        acts = np.ascontiguousarray(acts, dtype=np.int64)
        outside = (acts < 0) | (acts >= size)
        if outside.any():
            self._refuse(acts, outside, f"is outside the action space 0..{size - 1}")
        legal = np.take_along_axis(g.masks, acts[:, :, None], axis=2)[:, :, 0] > 0
        bad_seat = ~legal
        if self.illegal_action == "raise" and bad_seat.any():
            self._refuse(acts, bad_seat, "is illegal")
        bad = bad_seat.any(axis=1)
        before = potential(self.deficiency) if self.shaping == "deficiency" else None
        final_masks = np.zeros_like(g.masks)
        illegal_rows = np.flatnonzero(bad)
        final_pre = np.empty((len(illegal_rows), self.spec.state_size), dtype=np.int16)
        if len(illegal_rows):  # the hand ends on the state it had: observed again below as its final state
            self._records(illegal_rows, final_pre)
            final_masks[illegal_rows] = g.masks[illegal_rows]
            g.scalars[illegal_rows, _PHASE] = _END  # the C step skips ended tables
        if g.advance(acts):  # every live table's actions were checked against its masks above
            raise RuntimeError("mjenv.vector_batch: the C step refused actions the legal masks allow")
        done = g.scalars[:, _PHASE] == _END
        moved_ended = np.flatnonzero(done & ~bad)
        final_post = np.empty((len(moved_ended), self.spec.state_size), dtype=np.int16)
        rewards = np.zeros((n, 4))
        scores = np.zeros((n, 4), dtype=np.int64)
        winners = np.zeros((n, 4), dtype=bool)
        illegal = np.zeros((n, 4), dtype=bool)
        if len(illegal_rows):
            illegal[illegal_rows] = bad_seat[illegal_rows]
            rewards[illegal] = ILLEGAL_REWARD
        if len(moved_ended):
            scores[moved_ended] = g.scores[moved_ended]
            rewards[moved_ended] += scores[moved_ended]
            winners[moved_ended] = g.won[moved_ended]
            final_masks[moved_ended] = g.masks[moved_ended]
            self._records(moved_ended, final_post)
        ended = np.flatnonzero(done)
        for i in ended.tolist():  # autoreset: the next hand from the table's own generator
            self.np_random[i], game = deal_game(self.rules, self.np_random[i])
            g.load(i, game)
        self._final_rows = np.concatenate([illegal_rows, moved_ended]).tolist()
        out, deficiency = self._observe(np.concatenate([final_pre, final_post]))
        self.deficiency = deficiency[:n]
        final_obs = np.zeros((n, 4, self.spec.size), dtype=np.float32)
        if len(ended):
            final_obs[self._final_rows] = out[n:]
        if before is not None:
            # gamma * Phi(s') - Phi(s), Phi = 0 once the hand is over (as step_tables adds it)
            after = np.where(done[:, None], 0.0, potential(self.deficiency))
            rewards += self.gamma * after - before
        infos: dict[str, Any] = self._infos()
        infos["final_obs"] = {"observation": final_obs, "action_mask": final_masks}
        infos["_final_obs"] = done.copy()
        infos["final_info"] = {"scores": scores, "winners": winners, "illegal_action": illegal}
        infos["_final_info"] = done.copy()
        obs = {"observation": out[:n], "action_mask": g.masks.copy()}
        return obs, rewards.astype(np.float32), done, np.zeros(n, dtype=bool), infos
