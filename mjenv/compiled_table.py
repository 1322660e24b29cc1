"""One table of the PettingZoo envs on the compiled batch step, N = 1.

``mjenv.parallel_env()`` and ``mjenv.env()`` step one table. On the Python engine that table is a
:class:`mjenv.tables._Table` over a ``mjenv.game.Game``: about 7 us of Python per step to move the
game, plus the observation writer's Python that reads the game. :class:`CompiledTable` is the same
table on :class:`mjenv.game.batch.BatchGames` with one table: the move and its state record are one
C call, the observation the kernel's ``observe`` on that record: what the vector env does for N tables
(:mod:`mjenv.vector_batch`), with N = 1 and no numpy temporaries. The parallel env's step for
well-formed legal actions is a single C call (:data:`parallel_step`: check, move, record, observe,
rewards and the five returned dicts), and so is the AEC env's table step (:meth:`CompiledTable.step_checked`).

It is a :class:`~mjenv.tables._Table` (the checks, ``choose``, ``infos`` and the errors are that class's,
so the messages are the same) whose state lives in the arrays. The ``Game`` the envs expose
(``env.game``: rendering, ``log_dir``, tests) is rebuilt on demand: the hand's deal (its seed, or the
dealt ``Game`` of a reset with options) replayed through ``Game._advance`` with the actions the table
took, only the steps not yet replayed; reading it every step costs one Python step each, never
reading it costs nothing. Everything the envs return equals the Python engine's byte for byte
(``tests/test_compiled_table.py`` plays both side by side).

Not on this path (the envs keep the Python engine, :func:`single_table`): ``observation="oracle"`` (its
wall view is computed from a ``Game``), the numpy writer (``MJENV_NO_KERNEL=1``), ``mjenv.game._step``
not built, and rule sets ``BatchGames`` refuses (``taiwan16``, ``sichuan``).
"""

from __future__ import annotations

import numpy as np

from mjenv import AGENTS
from mjenv.game import batch as _batch
from mjenv.game.actions import Phase
from mjenv.game.batch import RECORD_FIELDS, SCALARS, BatchGames
from mjenv.tables import _NEG_POTENTIAL, _check_options, _Table, deal_game, game_seed_of

__all__ = ["ENGINES", "CompiledTable", "single_table"]

#: The PettingZoo envs' engines (``parallel_env(engine=...)``, as ``mjenv.vector_env``'s).
ENGINES = ("auto", "compiled", "python")
# BatchGames.scalars columns and the phases, named where they are defined
_PHASE, _LAST_DISCARDER, _ACTING = (SCALARS.index(n) for n in ("phase", "last_discarder", "_acting"))
_CLAIM, _ROB_KONG, _END = int(Phase.CLAIM), int(Phase.ROB_KONG), int(Phase.END)
#: the seats of each acting-seat bit set, ascending (``Game.acting_seats``)
_SEATS_OF_BITS = tuple(tuple(s for s in range(4) if b >> s & 1) for b in range(16))
#: what ``_step.step_env`` writes: the observation and info keys (mjenv.env's), the table's attributes
_ENV_KEYS = ("observation", "action_mask", "seat", "needs_action", "deficiency", "potential", "illegal_action",
             "scores", "winners")
_ENV_ATTRS = ("obs", "masks", "deficiency", "acting", "_phase", "_taken", "ended_by_illegal")


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
        start = {name: begin for name, (begin, _, _) in spec._fields.items()}
        missing = [f for f in RECORD_FIELDS if f not in start]
        if missing:
            raise ValueError(f"the state record has no fields {missing}")
        # the record holds nothing but these fields (flowers and the Sichuan fields are empty here)
        unknown = {name for name, (_, shape, _) in spec._fields.items()
                   if name not in RECORD_FIELDS and int(np.prod(shape, dtype=np.int64)) > 0}
        if unknown:
            raise ValueError(f"the compiled step cannot fill the state fields {sorted(unknown)}")
        layout = np.array([start[f] for f in RECORD_FIELDS] + [spec.state_size], dtype=np.int32)
        self._record = np.empty(spec.state_size, dtype=np.int16)
        # the table's arrays bound once in C (step_one / record_one: no buffer exports per step); a C
        # handle, so copies and pickles bind their own (__getstate__)
        self._bind_args = (b._params, layout, b.tiles, b.wall, b.discards, b.num_discards, b.meld_table,
                           b.melds_declared, b.won, b.scores, b.masks, b.scalars, b.dealer, self._record)  # fmt: skip
        self._bound = self._env = None
        self._masks = b.masks[0]
        self._scalars = b.scalars[0]
        self._phase = _END
        self._taken: list[list[int]] = []  # this hand's moves, each the four seats' actions (Game._advance's)

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
        for chosen in self._taken[self._replayed:]:
            game._advance(chosen)
        self._replayed = len(self._taken)
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
        self._taken = []
        self._phase = int(self._scalars[_PHASE])
        self.ended_by_illegal = False
        self.illegal_seats = []

    def start(self, np_random, game) -> None:
        raise NotImplementedError("a CompiledTable deals its own hands (deal())")

    def observe_now(self) -> None:
        """Writes the current state's observations, deficiencies, masks and acting seats (fresh arrays)."""
        self._observe(_batch._step.record_one(self._bound or self._bind()))

    def _observe(self, phase: int) -> None:
        """The observations of the state whose record ``step_one`` / ``record_one`` just wrote."""
        self._phase = phase
        obs = np.empty((4, self.spec.size), dtype=np.float32)
        deficiency = np.empty(4, dtype=np.int32)
        self.spec._kernel_observe_records(self._record, [self.memo], obs, deficiency)
        self.obs, self.deficiency = obs, deficiency
        self.masks = self._masks.copy()
        self.acting = list(_SEATS_OF_BITS[self._scalars[_ACTING]])

    def _bind(self):
        self._bound = _batch._step.bind_one(*self._bind_args)
        return self._bound

    def _bind_env(self):
        """The env step bound once in C (``_step.bind_env``; :func:`parallel_step` calls this the first time):
        what it writes and the names it uses."""
        spec = self.spec
        self._env = _batch._step.bind_env(
            self._bound or self._bind(), spec._kernel_observe_records, self._record, [self.memo], np.empty,
            np.dtype(np.float32), np.empty(4, dtype=np.int32), self._masks, np.integer, spec.size, tuple(AGENTS),
            _ENV_KEYS, _ENV_ATTRS, _NEG_POTENTIAL, self.shaping is not None, self.gamma)  # fmt: skip
        return self._env

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_bound"] = state["_env"] = None  # C handles of this table's arrays: a copy binds its own
        del state["_masks"], state["_scalars"]  # views of the batch's rows: the copy's own (__setstate__)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._masks, self._scalars = self.batch.masks[0], self.batch.scalars[0]

    @property
    def over(self) -> bool:
        return self.ended_by_illegal or self._phase == _END

    def _window_discarder(self) -> int:  # _Table.answering's, from the batch's scalars
        return int(self._scalars[_LAST_DISCARDER]) if self._phase == _CLAIM or self._phase == _ROB_KONG else -1

    # -- the move ---------------------------------------------------------------------------------

    def move(self, actions: dict[int, int], bad: list[int] | None) -> None:
        if bad:
            _Table.move(self, actions, bad)
            return
        chosen = [self.layout.pass_] * 4
        for s in self.acting:
            chosen[s] = actions[s]
        self.advance(chosen)

    def step_checked(self, chosen: list[int]) -> tuple[list[float], dict]:
        """The AEC env's step (it checks the actions as it collects them), in one C call
        (``_step.step_seats``): ``chosen[s]`` is seat s's legal action (PASS for the seats not acting).

        Returns:
            (the four seats' rewards as :func:`parallel_step` computes them, :meth:`infos`).
        """
        return _batch._step.step_seats(self, *chosen)

    def advance(self, chosen: list[int]) -> None:
        """One C step with checked actions (``chosen[s]``: seat s's, PASS for the seats not acting); the new
        state is observed later (:meth:`observe_now`, by ``step_tables``)."""
        phase = _batch._step.step_one(self._bound or self._bind(), *chosen)
        if phase < 0:
            raise RuntimeError("mjenv.compiled_table: the C step refused actions the legal masks allow")
        self._taken.append(chosen)
        self._phase = phase


#: The parallel env's step on a :class:`CompiledTable` for well-formed legal actions, in one C call:
#: ``parallel_step(table, actions) -> (observations, rewards, terminations, truncations, infos) | None``
#: (``_step.step_env``; actions: the parallel env's ``{agent: action}``). The tuple is what ``mjenv.env``
#: returns (rewards: the scores at the end of the hand plus the shaping term, as
#: :func:`mjenv.tables.step_tables` computes them; observations and masks fresh arrays). None, with nothing
#: changed, when the actions need that function's checks: not a dict, a key that is not an agent, an action
#: that is not an int (numpy integers included) in the action space or not legal, an acting seat left out,
#: or the hand over. Logging the finished hand is the caller's (``PythonTables.finish``).
parallel_step = _batch._step.step_env if _batch.available() else None


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
