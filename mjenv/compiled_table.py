"""One table of the PettingZoo envs on the compiled batch step, N = 1.

``mjenv.parallel_env()`` and ``mjenv.env()`` step one table. On the Python engine that table is a
:class:`mjenv.tables._Table` over a ``mjenv.game.Game``: about 7 us of Python per step to move the
game, plus the observation writer's Python that reads the game. :class:`CompiledTable` is the same
table on :class:`mjenv.game.batch.BatchGames` with one table: a step of well-formed legal actions is
one C call (``_step.step_observe``: check, move, state record, the observation writer) that returns
arrays (observations, masks, phase, acting seats, deficiencies); what they mean to the agents (rewards
with the shaping term, infos, termination) is :mod:`mjenv.contract`'s, as on every other road
(:meth:`CompiledTable.step_quick`).

It is a :class:`~mjenv.tables._Table` (the checks, ``choose``, ``infos`` and the errors are that class's,
so the messages are the same) whose state lives in the arrays. The ``Game`` the envs expose
(``env.game``: rendering, ``log_dir``, tests) is rebuilt on demand: the hand's deal (its seed, or the
dealt ``Game`` of a reset with options) replayed through ``Game._advance`` with the moves the C table
logged, only the steps not yet replayed; reading it every step costs one Python step each, never
reading it costs nothing. Everything the envs return equals the Python engine's byte for byte
(``tests/test_compiled_table.py`` plays both side by side).

Not on this path (the envs keep the Python engine, :func:`single_table`): ``observation="oracle"`` (its
wall view is computed from a ``Game``), the numpy writer (``MJENV_NO_KERNEL=1``), ``mjenv.game._step``
not built, and rules ``BatchGames`` refuses (a room's fields its compiled hooks do not cover, such as tai scoring).
"""

from __future__ import annotations

import numpy as np

from mjenv.contract import NEEDS_OF_BITS, SEATS_OF_BITS, shape_seats
from mjenv.contract import infos as _infos
from mjenv.game import batch as _batch
from mjenv.game.actions import Phase
from mjenv.game.batch import SCALARS, BatchGames, record_layout
from mjenv.tables import _check_options, _Table, deal_game, game_seed_of

__all__ = ["ENGINES", "OMITTED", "CompiledTable", "single_table"]

#: The envs' engines (``parallel_env(engine=...)``, ``mjenv.env(engine=...)``, ``vector_env(engine=...)``).
ENGINES = ("auto", "compiled", "python")
#: What :meth:`CompiledTable.step_quick` takes for a seat without an action (it takes PASS unless it must act).
OMITTED = object()
# BatchGames.scalars columns and the phases, named where they are defined
_LAST_DISCARDER = SCALARS.index("last_discarder")
_CLAIM, _ROB_KONG, _END = int(Phase.CLAIM), int(Phase.ROB_KONG), int(Phase.END)
_step = _batch._step


class CompiledTable(_Table):
    """A :class:`~mjenv.tables._Table` on the compiled step (see the module docstring).

    Args: as :class:`~mjenv.tables._Table`.

    Raises:
        ValueError: options the compiled step does not cover (an oracle observation, the numpy writer,
            rules ``BatchGames`` refuses); :func:`single_table` falls back to the Python engine then.
    """

    def __init__(self, rules="basic", observation="default", shaping=None, gamma=1.0, illegal_action="penalize"):
        super().__init__(rules, observation, shaping, gamma, illegal_action)
        spec = self.spec
        if spec._game_views:
            raise ValueError("observation='oracle': its wall view is computed from a Game")
        if not spec.compiled:
            raise ValueError("the compiled kernel is off (MJENV_NO_KERNEL=1 or not built)")
        self.batch = b = BatchGames(self.rules, 1)  # ValueError for rules it does not implement
        layout = record_layout(spec)  # the rule set's own fields are its room's hooks' (BatchGames.room)
        self._record = np.empty(spec.state_size, dtype=np.int16)
        self._plays_on = self.plays_on
        self._scores_row, self._won_row = b.scores[0], b.won[0]  # views of the table's arrays (step_quick)
        # the table's arrays and the writer bound once in C (no buffer exports per step); C handles, so copies
        # and pickles bind their own (__setstate__)
        self._bind_args = (b._params, layout, b.tiles, b.wall, b.discards, b.num_discards, b.meld_table,
                           b.melds_declared, b.won, b.scores, b.masks, b.scalars, b.dealer, self._record)  # fmt: skip
        self._bind()
        self._phase = _END
        self._bits = 0  # the acting-seat bit set
        self._def = (0, 0, 0, 0)  # the seats' deficiencies (Python ints)
        self._log_prefix: list[list[int]] = []  # moves of this hand logged before a copy (the C log holds the rest)

    def _bind(self) -> None:
        self._bound = _step.bind_one(*self._bind_args)
        self._observer = _step.bind_observer(self._bound, self.spec._records_plan, [self.memo], np.empty, np.integer,
                                             OMITTED)  # fmt: skip

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_log_prefix"] = self._moves()
        del state["_bound"], state["_observer"]  # C handles of this table's arrays: a copy binds its own
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()

    def _moves(self) -> list[list[int]]:
        """This hand's moves so far, each the four seats' actions (``Game._advance``'s)."""
        return self._log_prefix + _step.taken(self._bound, 0)

    # -- the Game, rebuilt on demand --------------------------------------------------------------

    @property
    def game(self):
        """The hand as a ``mjenv.game.Game`` (None before the first deal), brought up to date on demand."""
        if self._deal is None:
            return None
        game = self._game
        if game is None:
            from mjenv.game import Game

            game = self._game = Game(rules=self.rules, seed=self._deal, dealer=0)
            self._replayed = 0
        moves = self._moves()
        for chosen in moves[self._replayed:]:
            game._advance(chosen)
        self._replayed = len(moves)
        return game

    @game.setter
    def game(self, value) -> None:  # _Table.__init__'s "no hand yet"
        if value is not None:
            raise ValueError("a CompiledTable deals its own hands (deal())")
        self._deal = self._game = None

    @property
    def scores(self) -> np.ndarray:
        return self.batch.scores[0]

    @property
    def won(self) -> np.ndarray:
        return self.batch.won[0]

    # -- state ------------------------------------------------------------------------------------

    def deal(self, seed: int | None = None, options: dict | None = None) -> None:
        wall, dealer = _check_options(options)
        if wall is None and type(dealer) is int and dealer == 0:  # the common case: dealt into the arrays
            self.np_random, game_seed = game_seed_of(self.np_random, seed)
            self.batch.deal([0], [game_seed])
            self._deal, self._game = game_seed, None
        else:  # a chosen wall or dealer: the Game deals (and checks them), its state is copied in
            self.np_random, game = deal_game(self.rules, self.np_random, seed, options)
            self.batch.load(0, game)
            self._deal, self._game, self._replayed = game.seed, game, 0
        _step.clear_taken(self._bound)
        self._log_prefix = []
        self._phase = _END  # observe_now() reads the state
        self.ended_by_illegal = False
        self.illegal_seats = []

    def start(self, np_random, game) -> None:
        raise NotImplementedError("a CompiledTable deals its own hands (deal())")

    def observe_now(self) -> None:
        """Observes the current state (fresh arrays)."""
        self.obs, self.masks, self._phase, self._bits, self._def, _, _ = _step.observe_state(self._observer)

    @property
    def deficiency(self) -> np.ndarray:
        """int32[4] the seats' deficiencies in the current state."""
        return np.array(self._def, dtype=np.int32)

    @property
    def acting(self) -> list[int]:
        """The acting seats (a fresh list; empty once the hand is over)."""
        return [] if self.ended_by_illegal else list(SEATS_OF_BITS[self._bits])

    def finish(self) -> None:
        pass  # acting follows the arrays: empty at the end of a hand

    @property
    def over(self) -> bool:
        return self.ended_by_illegal or self._phase == _END

    def _window_discarder(self) -> int:  # _Table.answering's, from the batch's scalars
        return int(self.batch.scalars[0, _LAST_DISCARDER]) if self._phase in (_CLAIM, _ROB_KONG) else -1

    # -- the move ---------------------------------------------------------------------------------

    def move(self, actions: dict[int, int], bad: list[int] | None) -> None:
        if bad:
            _Table.move(self, actions, bad)
            return
        chosen = [self.layout.pass_] * 4
        for s in self.acting:
            chosen[s] = actions[s]
        self.advance(chosen)

    def step_quick(self, chosen: list) -> tuple | None:
        """One step of well-formed legal actions in one C call (``_step.step_observe``), and what it means to the
        agents (:mod:`mjenv.contract`).

        Args:
            chosen: the four seats' actions (ints, numpy integers), :data:`OMITTED` for a seat without one.

        Returns:
            (obs, masks, rewards: 4 floats, over, infos) of the new state, fresh; obs and masks are the four
            rows (views) of float32[4, size] and int8[4, A];
            None, with nothing changed, when the actions need the checks of :func:`mjenv.tables.step_tables`
            (one not an int in the action space or not legal, an acting seat omitted, the hand over).
        """
        if self.ended_by_illegal:
            return None
        if self._plays_on:  # a game that plays on after a win pays during the hand
            paid, left_before = self._scores_row.tolist(), self._won_row.tolist()
        out = _step.step_observe(self._observer, *chosen)
        if out is None:
            return None
        before = self._def
        self.obs, self.masks, phase, bits, d, obs, masks = out
        self._phase, self._bits, self._def = phase, bits, d
        over = phase == _END
        if self._plays_on:  # this step's payments; a seat that has won has left (its end keys now, Phi = 0)
            scores, won = self._scores_row.tolist(), self._won_row.tolist()
            rewards = [0.0, 0.0, 0.0, 0.0] if scores == paid else [float(x - p) for x, p in zip(scores, paid)]
            winners = [s for s in range(4) if won[s]] if True in won else []
            if self.shaping is not None:
                rewards = shape_seats(rewards, before, d, over, self.gamma, left_before, won)
            return obs, masks, rewards, over, _infos(d, NEEDS_OF_BITS[bits], over, ((), scores, winners),
                                                     () if over else winners)
        if over:
            scores = self.batch.scores[0]
            end = ((), scores, np.flatnonzero(self.batch.won[0]).tolist())
            rewards = [float(x) for x in scores.tolist()]
        else:
            end, rewards = None, [0.0, 0.0, 0.0, 0.0]
        if self.shaping is not None:
            rewards = shape_seats(rewards, before, d, over, self.gamma)
        return obs, masks, rewards, over, _infos(d, NEEDS_OF_BITS[bits], over, end)

    def advance(self, chosen: list[int]) -> None:
        """One C step with checked actions (``chosen[s]``: seat s's, PASS for the seats not acting); the new
        state is observed later (:meth:`observe_now`, by ``step_tables``)."""
        phase = _step.step_one(self._bound, *chosen)
        if phase < 0:
            raise RuntimeError("mjenv.compiled_table: the C step refused actions the legal masks allow")
        self._phase = phase


def single_table(engine: str, rules, observation, shaping, gamma, illegal_action) -> _Table:
    """The PettingZoo envs' table: a :class:`CompiledTable` where it applies (``engine="auto"``), else
    the Python engine's :class:`~mjenv.tables._Table`; ``"compiled"`` raises a ``ValueError`` saying why
    not instead of falling back, ``"python"`` forces the Python engine."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    if engine != "python":
        why = None if _batch.available() else "mjenv.game._step is not built (no C compiler when mjenv was installed)"
        if why is None:
            try:
                return CompiledTable(rules, observation, shaping, gamma, illegal_action)
            except ValueError as e:
                why = str(e)
        if engine == "compiled":
            # the arguments themselves may be bad: the Python table's check names them first
            _Table(rules, observation, shaping, gamma, illegal_action)
            raise ValueError(f"engine='compiled' is not available here: {why}; use engine='auto' or 'python'")
    return _Table(rules, observation, shaping, gamma, illegal_action)
