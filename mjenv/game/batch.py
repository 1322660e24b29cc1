"""Batched game checks in compiled code, with the Python engine's functions as the fallback.

The batch-first compiled step: :class:`BatchGames` holds N tables as arrays with a leading
table dimension and advances them in one C call; :func:`is_winning_batch` answers the win check
(``mjenv.game._win.is_winning_bytes``) for M hands in one C call. Observations, rewards and autoreset
on top of it are the env layer's (``mjenv.vector_batch``); :class:`mjenv.game.engine.Game` stays the
readable reference engine (the differential tests compare the two after every step).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from mjenv.game._win import is_winning_bytes
from mjenv.game.actions import ActionLayout
from mjenv.game.engine import seeded_wall, tile_set

try:
    from mjenv.game import _step
except ImportError:  # no C compiler at install: the Python check gives the same answers
    _step = None


def available() -> bool:
    """Whether the compiled module ``mjenv.game._step`` is built."""
    return _step is not None


def is_winning_batch(hands: np.ndarray, seven_pairs: bool = False) -> np.ndarray:
    """Whether each concealed hand is complete (k melds + 1 pair, or seven pairs when allowed).

    Args:
        hands: int[M, T] tile counts, T = 27 or 34 (values 0..4).
        seven_pairs: also accept seven pairs.

    Returns:
        bool[M], equal to ``is_winning_bytes`` on each row.

    Raises:
        ValueError: when ``hands`` is not 2-D with 27 or 34 columns, or holds counts outside 0..4.
    """
    h = np.asarray(hands)
    if h.ndim != 2 or h.shape[1] not in (27, 34):
        raise ValueError(f"hands must have shape [M, 27] or [M, 34], got {h.shape}")
    if h.size and (h.min() < 0 or h.max() > 4):
        raise ValueError("hands must hold tile counts 0..4")
    h = np.ascontiguousarray(h, dtype=np.int8)
    if _step is None:
        return np.array([is_winning_bytes(row.tobytes(), seven_pairs) for row in h], dtype=bool)
    out = np.zeros(h.shape[0], dtype=np.uint8)
    _step.is_winning(h, h.shape[1], bool(seven_pairs), out)
    return out.astype(bool)


#: The :class:`~mjenv.rules.Rules` fields the shared compiled step implements (any value); BatchGames refuses rules
#: with any other field away from its default unless the room whose field it is implements it in its compiled hooks
#: (:func:`mjenv.rulesets.step_hooks`).
IMPLEMENTED_RULES = (
    "name", "num_tile_types", "hand_size", "melds", "allow_chow", "seven_pairs", "multiple_winners",
    "discard_win_points", "self_draw_points", "claim_window", "draw_at",
)  # fmt: skip

#: Per-table scalars of :class:`BatchGames` (``scalars[:, i]``), in the compiled step's order: the ``Game``
#: attributes, then :data:`NUM_ROOM_SCALARS` of the room's own state (its ``step_hooks`` module's ``state(game)``).
SCALARS = (
    "phase", "current_player", "last_discard", "last_discarder", "last_drawn", "deal_in", "winning_tile",
    "end_code", "_head", "_tail", "_acting", "_claimed_turn", "_kong_tile", "_after_kong",
)  # fmt: skip
#: Room scalars after :data:`SCALARS` (``NROOM`` of ``mjenv/game/_step_room.h``).
NUM_ROOM_SCALARS = 8


def scalars_of(game, room=None) -> list[int]:
    """A ``Game``'s row of :attr:`BatchGames.scalars`: :data:`SCALARS`, then the room's state (``room``: the
    rules' ``step_hooks`` module, or None), 0 padded."""
    own = room.state(game) if room is not None else []
    return [int(getattr(game, name)) for name in SCALARS] + own + [0] * (NUM_ROOM_SCALARS - len(own))

#: The state-record fields :meth:`BatchGames.records` writes (``mjenv.observation.STATE_FIELDS`` names).
RECORD_FIELDS = (
    "hands", "meld_counts", "knowledge_base", "discards", "num_melds", "melds_needed", "discard_turn", "claim_tile",
    "chow_ok", "last_discard", "last_discarder", "wall_count", "dealer", "phase", "zero",
)  # fmt: skip

def record_layout(spec) -> np.ndarray:
    """int32[17] the state-record layout the compiled step writes for an observation spec: the starts of
    :data:`RECORD_FIELDS`, the start of the rule set's own fields (its room's record hook writes them; they end where
    ``zero`` starts), the record's length.

    Raises:
        ValueError: the spec's record lacks a shared field.
    """
    fields = spec._fields
    missing = [f for f in RECORD_FIELDS if f not in fields]
    if missing:
        raise ValueError(f"the state record has no fields {missing}")
    room = [begin for name, (begin, _, _) in fields.items() if name not in RECORD_FIELDS]
    room_start = min(room, default=fields["zero"][0])
    return np.array([fields[f][0] for f in RECORD_FIELDS] + [room_start, spec.state_size], dtype=np.int32)


#: The arrays of :class:`BatchGames`, named as the :class:`~mjenv.game.engine.Game` attributes they hold.
ARRAYS = ("_tiles", "wall", "discards", "num_discards", "meld_table", "melds_declared", "won", "scores", "_masks")


class BatchGames:
    """N tables of one rule set as arrays with a leading table dimension, advanced by one C call.

    The compiled port of :class:`~mjenv.game.engine.Game`'s transitions (``mjenv.game._step.step``).
    Deals give the Python engine's states: :meth:`deal` writes the state ``Game(rules, seed=s)`` starts
    in (the same wall from the same seed), :meth:`load` copies any ``Game``'s state in; every later
    transition runs in C. ``mjenv.vector_batch`` runs the vector
    env on it (its observations come from these arrays through the observation writer's state records).

    Args:
        rules: the rule set (a :class:`~mjenv.rules.Rules`, preset name or dict).
        num_tables: N >= 1.
        log: keep each table's step log (``steps[i]``: the ``[[seat, action], ...]`` of its acting
            seats per step, as ``Game.log["steps"]``); costs a Python loop over the tables per step.

    Attributes:
        tiles: int8[N, 9, T]; wall: int8[N, W]; discards: int16[N, 4, D]; num_discards: int16[N, 4];
        meld_table: int8[N, 4, M, 4]; melds_declared: int8[N, 4]; won: bool[N, 4]; scores: int64[N, 4];
        masks: int8[N, 4, A]; scalars: int32[N, len(SCALARS)]; dealer: int8[N] (set by :meth:`load`).
    """

    def __init__(self, rules, num_tables: int, log: bool = False) -> None:
        from mjenv import rulesets
        from mjenv.rules import Rules, get_rules

        if _step is None:
            raise RuntimeError("mjenv.game._step is not built (no C compiler at install); use mjenv.game.Game")
        if isinstance(num_tables, bool) or not isinstance(num_tables, (int, np.integer)) or num_tables < 1:
            raise ValueError(f"num_tables must be an int >= 1, got {num_tables!r}")
        r = get_rules(rules)
        # every field the shared C step does not implement must be at its default or be the compiled hooks' of
        # the room whose field it is (a rule field added later is refused until ported)
        room = rulesets.step_hooks(r)
        done = IMPLEMENTED_RULES + (room.FIELDS if room is not None and room.HOOKS is not None else ())
        default = Rules()
        other = {f.name: getattr(r, f.name) for f in dataclasses.fields(r)
                 if f.name not in done and getattr(r, f.name) != getattr(default, f.name)}
        if other or (room is not None and room.HOOKS is not None and not room.covers(r)):
            allowed = ", ".join(f"{k}={getattr(default, k)!r}" for k in other)
            raise ValueError(
                f"BatchGames does not support rules {r.name!r} ({', '.join(f'{k}={v!r}' for k, v in other.items())}); "
                f"allowed: {allowed or 'the fields its compiled hooks cover'}; use mjenv.game.Game for the others")
        if "compiled" not in rulesets.engines(r):
            raise ValueError(f"BatchGames does not run rules {r.name!r}: its rule set lists the engines "
                             f"{rulesets.engines(r)}; use mjenv.game.Game")
        self.rules = r
        self.room = room  # the room's step_hooks module (its hooks and state), or None
        t, a = r.num_tile_types, ActionLayout.for_rules(r).size
        n = int(num_tables)
        self.tiles = np.zeros((n, 9, t), dtype=np.int8)
        self.wall = np.zeros((n, r.num_tiles), dtype=np.int8)
        self.discards = np.full((n, 4, r.max_discards), -1, dtype=np.int16)
        self.num_discards = np.zeros((n, 4), dtype=np.int16)
        self.meld_table = np.full((n, 4, r.melds, 4), -1, dtype=np.int8)
        self.melds_declared = np.zeros((n, 4), dtype=np.int8)
        self.won = np.zeros((n, 4), dtype=bool)
        self.scores = np.zeros((n, 4), dtype=np.int64)
        self.masks = np.zeros((n, 4, a), dtype=np.int8)
        self.scalars = np.zeros((n, len(SCALARS) + NUM_ROOM_SCALARS), dtype=np.int32)
        self.scalars[:, 0] = 3  # Phase.END until a deal is loaded
        self.dealer = np.zeros(n, dtype=np.int8)
        self.steps: list[list[list[list[int]]]] | None = [[] for _ in range(n)] if log else None
        self._full: np.ndarray | None = None  # tile_set(rules), made on first use (full_tiles())
        self._params = np.array(
            [t, a, r.num_tiles, r.max_discards, r.melds, r.allow_chow, r.seven_pairs, r.claim_window == "always",
             r.multiple_winners, r.discard_win_points, r.self_draw_points, r.draw_at, r.hand_size,
             0 if room is None else _step.room_index(room.HOOKS)],
            dtype=np.int32,
        )  # fmt: skip

    def _arrays(self) -> tuple[np.ndarray, ...]:
        return (self.tiles, self.wall, self.discards, self.num_discards, self.meld_table, self.melds_declared,
                self.won, self.scores, self.masks)  # fmt: skip

    def load(self, i: int, game) -> None:
        """Copies the state of ``game`` (a :class:`~mjenv.game.engine.Game` of these rules) into table i."""
        if game.rules != self.rules:
            raise ValueError(f"game has rules {game.rules.name!r}, the tables {self.rules.name!r}")
        for name, arr in zip(ARRAYS, self._arrays()):
            arr[i] = getattr(game, name)
        self.scalars[i] = scalars_of(game, self.room)
        self.dealer[i] = game.dealer
        if self.steps is not None:
            self.steps[i] = [list(map(list, st)) for st in game.log["steps"]]

    def deal(self, rows: list[int], game_seeds: list[int]) -> None:
        """Deals new hands at tables ``rows``, seat 0 dealing: the state ``Game(rules, seed=s)`` starts in.

        What :meth:`load` of that ``Game`` gives (``tests/test_step_kernel.py`` compares every array),
        without building it: the vector env deals a hand every ~2 steps at 64 tables, and a ``Game``
        costs ~35 us where this costs the wall's shuffle (:meth:`walls`) and one C call
        (``_step.deal``: the hands, the dealer's draw and turn row, the scalars).

        Args:
            rows: distinct table indices.
            game_seeds: one ``Game`` seed (an int >= 0) per row.
        """
        if not rows:
            return
        _step.deal(self._params, np.asarray(rows, dtype=np.int64), self.walls(game_seeds),
                   *self._arrays(), self.scalars, self.dealer)
        if self.steps is not None:
            for i in rows:
                self.steps[i] = []

    def walls(self, game_seeds: list[int]) -> np.ndarray:
        """The shuffled wall ``Game(rules, seed=s)`` deals from, of each seed (``Game.__init__``'s shuffle).

        Args:
            game_seeds: K ints >= 0.

        Returns:
            int8[K, W], W = ``rules.num_tiles``.
        """
        full = self.full_tiles()
        walls = np.empty((len(game_seeds), self.rules.num_tiles), dtype=np.int8)
        if all(0 <= s < 2**64 for s in game_seeds):  # numpy's shuffle in C, bit for bit (_step.shuffled_walls)
            _step.shuffled_walls(full, np.array(game_seeds, dtype=np.uint64), walls)
            return walls
        for j, seed in enumerate(game_seeds):
            walls[j] = seeded_wall(full, seed)
        return walls

    def full_tiles(self) -> np.ndarray:
        """int8[W] the tiles a wall shuffles (:func:`mjenv.game.engine.tile_set` of the rules)."""
        if self._full is None:
            self._full = tile_set(self.rules)
        return self._full

    def step(self, actions: np.ndarray) -> None:
        """Advances every table that is not over by one step.

        Args:
            actions: int[N, 4], one action id per seat (PASS for the seats not acting).

        Raises:
            ValueError: wrong shape, or an action out of range or not legal in its table's mask (then
                no table has changed).
        """
        acts = np.ascontiguousarray(actions, dtype=np.int64)
        if acts.shape != (self.tiles.shape[0], 4):
            raise ValueError(f"actions must have shape ({self.tiles.shape[0]}, 4), got {acts.shape}")
        size = self.masks.shape[2]
        live = self.scalars[:, 0] != 3
        if ((acts < 0) | (acts >= size)).any():
            raise ValueError(f"action ids must be 0..{size - 1}")
        legal = np.take_along_axis(self.masks, acts[:, :, None], axis=2)[:, :, 0] > 0
        bad = np.flatnonzero(live & ~legal.all(axis=1))
        if bad.size:
            raise ValueError(f"tables {bad.tolist()} got actions their legal masks do not allow; no table advanced")
        if self.steps is not None:
            acting = self.scalars[:, 10].tolist()
            for i in np.flatnonzero(live).tolist():
                self.steps[i].append([[s, int(acts[i, s])] for s in range(4) if acting[i] >> s & 1])
        refused = self.advance(acts)
        if refused:
            raise ValueError(f"{refused} table(s) got an action their legal mask does not allow; they did not advance")

    def records(self, layout: np.ndarray, rows: np.ndarray, out: np.ndarray) -> None:
        """Writes the observation writer's state records of tables ``rows`` (one C call).

        The values ``mjenv.observation.ObservationSpec.state`` gives for each table's ``Game``.

        Args:
            layout: int32[17], the record's field offsets in ``RECORD_FIELDS`` order, the start of the room's
                fields (they end where ``zero`` starts), then its length L (:func:`record_layout`).
            rows: int64[R] table indices.
            out: int16[R, L] C-contiguous, overwritten.
        """
        _step.records(self._params, layout, rows, self.tiles, self.discards, self.melds_declared, self.won,
                      self.scalars, self.dealer, out)

    def advance(self, actions: np.ndarray) -> int:
        """:meth:`step` without its Python checks and log, for callers that checked the actions already.

        Args:
            actions: C-contiguous int64[N, 4].

        Returns:
            How many tables the C step refused (an action outside its legal mask): those did not move.
        """
        return _step.step(self._params, actions, *self._arrays(), self.scalars)
