"""The compiled Riichi engine (``_engine.c``) behind the Riichi env: N tables as arrays, one C call per step.

:class:`Tables` holds N tables (their states as uint8 rows, the observation kernel's memos, and each table's
generators: the env's, which seeds each game, and the game's, which draws its walls exactly as
:class:`~mjenv.rulesets.riichi.game.RiichiGame` does: ``Wall.shuffled``, one ``permutation(136)`` per hand) and
steps, starts and observes any subset of them in one C call (``num_threads`` threads, the GIL released). Every
array it returns equals the Python engine's (``tests/test_riichi_compiled.py``).

:class:`CompiledRiichiTable` is the env's table on it (the same class interface as
:class:`~mjenv.rulesets.riichi.env.RiichiTable`; ``game`` is rebuilt on demand by replaying the record through the
Python engine, for rendering and logs; in ``mjenv.rulesets.riichi.env``). The vector env steps :class:`VectorCore`.
"""

from __future__ import annotations

import copy
import functools

import numpy as np

from mjenv import AGENTS
from mjenv.contract import table_rewards, vector_final_infos, vector_infos
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.game import PHASES
from mjenv.rulesets.riichi.observation import spec as _obs_spec
from mjenv.vector_batch import _Spares, mask_misses, outside

try:  # built by setup.py (optional extensions)
    from mjenv.game._step import shuffled_walls as _shuffled_walls
    from mjenv.rulesets.riichi import _engine as _ext
except ImportError:  # pragma: no cover - depends on the install
    _ext = None
#: the 136 tile ids a wall permutes (``default_rng(seed).permutation(136)`` permutes ``arange(136)``)
_TILES136 = np.arange(136, dtype=np.uint8)

__all__ = ["RESULTS", "VIEWS", "Tables", "VectorCore", "available", "replay"]

#: the views the engine writes, in its order (every view of the spec but the deficiency features)
VIEWS = ("hand", "hand_red", "drawn", "drawn_red", "meld_counts", "meld_kind", "meld_tile", "meld_called", "meld_from",
         "meld_red", "discards", "discard_red", "discard_tsumogiri", "discard_riichi", "discard_called",
         "discard_order", "last_discard", "last_discard_red", "last_discarder", "dora_indicators",
         "dora_indicator_red", "dora", "scores", "dealer", "seat_wind", "round_wind", "round", "honba",
         "riichi_sticks", "riichi", "double_riichi", "ippatsu", "furiten", "wall_count", "phase", "knowledge_base",
         "tenpai_after_discard", "yaku_after_discard")  # fmt: skip
#: the kernel's feature outputs, in its order, as the spec names them
FEATURES = ("deficiency", "deficiency_after_discard", "effective_tiles", "effective_count", "deficiency_after_claim",
            "effective_count_after_discard", "deficiency_after_kan")  # fmt: skip
#: result codes of the engine's hand results
RESULTS = ("agari", "exhaustive", "nm", "yao9", "kaze4", "reach4", "kan4", "ron3")
_LENGTH = {"hanchan": 0, "east": 1, "hand": 2}
_INT32 = np.dtype(np.int32)  # the engine's action dtype (numpy's native dtypes are singletons)
_C_ACTIONS = (_INT32, np.dtype(np.int64))  # the action dtypes the engine's legal() reads
# a step's result per table (_engine.h, RE_I_*)
I_ACTING, I_PHASE, I_HAND_ENDED, I_RESULT, I_DELTAS = 0, 1, 2, 3, 4
I_NWIN, I_WINNERS, I_ROUND, I_HONBA, I_GAME_OVER, I_SCORES, I_FINAL, I_POINTS, I_ERROR, I_TURN, I_CLAIM_FROM = (
    8, 9, 12, 13, 14, 15, 19, 23, 27, 28, 29)
_CLAIM_PHASES = (PHASES.index("claim"), PHASES.index("chankan"))
#: What :meth:`Tables.step_observe` takes for a seat without an action (it takes PASS unless the seat must act).
OMITTED = object()
_ONE_TABLE = np.ones(1, dtype=bool)


def available() -> bool:
    """Whether the compiled engine and the observation kernel it writes through are installed."""
    from mjenv.deficiency import kernel

    return _ext is not None and kernel.available()


@functools.cache
def _configured(raw: bool = False):
    """Bind the kernel's plan for the Riichi spec once (features at the spec's offsets; ``raw``: the spec without the
    derived views, no features) and hand it to the engine as its observation layout 0 (1 for ``raw``)."""
    from mjenv.deficiency import kernel

    sp = _obs_spec(raw)
    missing = set(sp.slices) - set(VIEWS) - set(FEATURES)
    if missing:
        raise RuntimeError(f"the compiled Riichi engine does not write the views {sorted(missing)}")
    lay = _ext.layout()
    rec = lay["record_length"]
    t = 34
    fin = np.array([0, 4 * t, 8 * t, 8 * t + 4, 8 * t + 8, 8 * t + 12], dtype=np.int32)
    fout = np.array([sp.slices[f].start if f in sp.slices else -1 for f in FEATURES], dtype=np.int32)
    none = np.zeros(0, dtype=np.int32)
    plan = kernel._require().bind(*kernel._table_buffers(t), none, none, fin, fout,
                                  np.array([0, rec, 0], dtype=np.int32), rec, rec, t, sp.size, 3, 4, -1)  # fmt: skip
    offsets = np.array([sp.slices[v].start if v in sp.slices else -1 for v in VIEWS], dtype=np.int32)
    _ext.configure(plan, offsets, sp.size, int(raw))
    return plan, lay, kernel.new_memo().size


def _flags(episode: str, kokushi_robs_ankan: bool, wins: bool = True, claim_window: str = "always",
           observers: str = "all") -> int:
    when_possible, acting = claim_window == "when_possible", observers == "acting"
    return (_LENGTH[episode] | int(kokushi_robs_ankan) << 2 | int(not wins) << 3 | int(when_possible) << 4
            | int(acting) << 5)


class Tables:
    """N compiled Riichi tables and the arrays of their last step.

    Args:
        n: tables.
        episode: ``"hanchan"``, ``"east"`` or ``"hand"``.
        kokushi_robs_ankan: thirteen orphans may rob a closed kan.
        num_threads: threads that step and observe the tables (the same outputs for every number).
        wins: False plays with no win legal (every hand ends in a draw; for tests of the rest of the rules).
        claim_window: ``"always"`` (a window after every discard and kan is a step) or ``"when_possible"`` (a window
            nobody can use is resolved inside the step that opened it), as ``RiichiGame``'s.
        observers: ``"all"`` (every seat observed every step) or ``"acting"`` (the acting seats only, every seat after
            a deal and at an end; another seat's row is zeros, its ``defs`` entry the one last observed), as the env's.
        raw: observe the spec without its derived views (``observation="raw"``; ``spec(raw=True)``).

    Attributes (row i = table i, written by each call for the tables it touched):
        obs float32[N, 4, S], masks int8[N, 4, 85], defs int32[N, 4], info int32[N, 32] (``I_*`` entries).
    """

    def __init__(self, n: int, episode: str = "hanchan", kokushi_robs_ankan: bool = True, num_threads: int = 1,
                 wins: bool = True, claim_window: str = "always", observers: str = "all", raw: bool = False):
        _, lay, memo_bytes = _configured(raw)
        self.raw = raw
        self.n, self.episode, self.num_threads = n, episode, int(num_threads)
        self.flags = _flags(episode, kokushi_robs_ankan, wins, claim_window, observers)
        self.states = np.zeros((n, _ext.table_bytes()), dtype=np.uint8)
        self.memos = np.zeros((n, memo_bytes), dtype=np.uint8)
        size = _obs_spec(raw).size
        self.obs = np.zeros((n, 4, size), dtype=np.float32)
        self.masks = np.zeros((n, 4, A.N_ACTIONS), dtype=np.int8)
        self.defs = np.zeros((n, 4), dtype=np.int32)
        self.info = np.zeros((n, lay["info"]), dtype=np.int32)
        self._params = np.zeros((n, 8), dtype=np.int32)
        self._ops = np.zeros(n, dtype=np.uint8)
        self._no_actions = np.zeros((n, 4), dtype=np.int32)  # a start's (the engine reads no action)
        self._ops_all = False  # whether every entry of _ops is 1 (a step of all tables)
        self.hand_ended = False  # whether a hand ended on a table of the last run
        self._pool = None  # the engine's kept threads (made on the first run with num_threads > 1)
        self._wall_at = lay["next_wall"]
        self._need_at = lay["need_wall"]
        self.rngs = [np.random.default_rng() for _ in range(n)]  # each table's env generator
        self.game_rngs: list[np.random.Generator | None] = [None] * n
        self.walls: list[list[int] | None] = [None] * n  # the wall of each table's hand in play
        self.next_walls: list[list[int] | None] = [None] * n
        #: per table, None (walls from its game generator) or an iterator of the walls of its next hands
        self.wall_queues: list = [None] * n
        self._bind()

    def _bind(self) -> None:
        """Hand the engine the arrays that stay (``states``, ``_ops``, ``_params``, ``defs``, ``info``, ``memos``): it
        holds their buffers from then on, so each is changed in place only, and replacing one means calling this
        again (:meth:`copy` and unpickling do)."""
        self._bound = _ext.bind(self.states, self._ops, self._params, self.defs, self.info, self.memos)
        self._observer = None  # step_observe's, made on its first call (on these arrays)

    def _put_wall(self, i: int, wall) -> None:
        self.states[i, self._wall_at:self._wall_at + 136] = wall
        self.next_walls[i] = np.asarray(wall).tolist()

    def start(self, rows, seeds=None, starts=None) -> None:
        """Start a game on each table of ``rows`` (seeded as ``RiichiTable.reset``) and observe it.

        Args:
            rows: table indices.
            seeds: None or one seed (None or int) per row.
            starts: None or one dict per row of ``env._start_options``'s keys (``scores``, ``round_index``,
                ``honba``, ``sticks``, ``wall``: a Wall).
        """
        ops = self._ops
        ops[:] = 0
        self._ops_all = False
        one_hand = self.episode == "hand"
        seeded: list[tuple[int, int]] = []  # (row, game seed) of the one-hand games whose wall is drawn below
        for k, i in enumerate(rows):
            seed = None if seeds is None else seeds[k]
            if seed is not None:
                self.rngs[i] = np.random.default_rng(int(seed))
            st = {} if starts is None or starts[k] is None else starts[k]
            game_seed = int(self.rngs[i].integers(2**63))
            wall = st.get("wall")
            if wall is None and self.wall_queues[i] is not None:
                wall = next(self.wall_queues[i])
            if one_hand:  # the wall is the game generator's only draw: no generator is kept
                self.game_rngs[i] = None
                if wall is None:
                    seeded.append((i, game_seed))
                else:
                    self._put_wall(i, wall.tiles)
            else:
                grng = self.game_rngs[i] = np.random.default_rng(game_seed)
                self._put_wall(i, wall.tiles if wall is not None else grng.permutation(136))
            p = self._params[i]
            p[:4] = st.get("scores", (25000,) * 4)
            p[4], p[5], p[6], p[7] = st.get("round_index", 0), st.get("honba", 0), st.get("sticks", 0), self.flags
            ops[i] = 2
        if seeded:  # default_rng(seed).permutation(136) of each, bit for bit, in one C call
            walls = np.empty((len(seeded), 136), dtype=np.uint8)
            _shuffled_walls(_TILES136, np.array([sd for _, sd in seeded], dtype=np.uint64), walls)
            for (i, _), wall in zip(seeded, walls):
                self._put_wall(i, wall)
        self._run()

    def step(self, actions: np.ndarray, rows=None) -> None:
        """Apply ``actions`` (int32[N, 4]; the acting seats' entries are read) on ``rows`` (all when None)."""
        if rows is None:
            if not self._ops_all:
                self._ops[:] = 1
                self._ops_all = True
        else:
            self._ops_all = False
            self._ops[:] = 0
            self._ops[rows] = 1
        self._run(actions)

    def _run(self, actions=None) -> None:
        if actions is None:
            acts = self._no_actions
        elif actions.dtype is _INT32 and actions.flags.c_contiguous:
            acts = actions
        else:
            acts = np.ascontiguousarray(actions, np.int32)
        if self._pool is None and self.num_threads > 1:
            self._pool = _ext.pool(self.num_threads)
        flags = _ext.run(self._bound, acts, self.obs, self.masks, self._pool, int(self.raw))
        self._after_run(flags)

    def step_observe(self, chosen: list) -> tuple | None:
        """The single table's common step in one engine call (``_engine.step_observe``; ``n`` is 1).

        Args:
            chosen: the four seats' actions (ints, numpy integers), :data:`OMITTED` for a seat without one.

        Returns:
            None, with nothing changed, when the actions need the checks (one not an int in the action space or
            not legal, an acting seat omitted, the hand over); else ``(flags, acting bits, phase, hand_ended,
            deficiencies: 4 ints, obs float32[4, S], masks int8[4, 85], obs_rows, mask_rows, pairs)``: the arrays
            new to the caller (this object's ``obs`` and ``masks`` are not written), their rows as tuples of views,
            pairs the acting seats' ``[seat, action]`` lists; ``defs`` and ``info`` row 0 are written as by
            :meth:`step`.
        """
        if self._observer is None:
            self._observer = _ext.bind_observer(self._bound, int(self.raw), np.empty, np.integer, OMITTED)
        out = _ext.step_observe(self._observer, *chosen)
        if out is not None:
            if out[0]:
                self._after_run(out[0], _ONE_TABLE)
            else:  # nothing to look at (the common case)
                self.hand_ended = False
        return out

    def _after_run(self, flags: int, ran=None) -> None:
        """What a run's ``flags`` ask (``ran``: bool[N], the tables it ran; None: those of ``_ops``): a table's error
        raised, the next walls of the hands just dealt drawn."""
        self.hand_ended = bool(flags & 4)
        if flags & 1:
            bad = int(np.flatnonzero((self.info[:, I_ERROR] != 0) & (self._ops != 0 if ran is None else ran))[0])
            raise ValueError(f"table {bad}: an action outside its mask reached the compiled engine")
        if not flags & 2:
            return
        need = self.states[:, self._need_at]
        dealt = ((0,) if need[0] else ()) if self.n == 1 else np.flatnonzero(need).tolist()
        for i in dealt:  # the hand just dealt took the next wall: draw the one after it
            self.walls[i] = self.next_walls[i]
            self.states[i, self._need_at] = 0
            if self.wall_queues[i] is not None:
                nxt = next(self.wall_queues[i], None)
                if nxt is not None:
                    self._put_wall(i, nxt.tiles)
            elif self.episode != "hand":
                self._put_wall(i, self.game_rngs[i].permutation(136))

    def copy(self) -> Tables:
        """An independent copy: the same tables and the same future walls (the kernel's memos start empty: they
        are caches, keyed on their whole input)."""
        t = copy.copy(self)
        t.states, t.memos = self.states.copy(), np.zeros_like(self.memos)
        t.obs, t.masks, t.defs, t.info = self.obs.copy(), self.masks.copy(), self.defs.copy(), self.info.copy()
        t._params, t._ops = self._params.copy(), self._ops.copy()
        t.rngs, t.game_rngs = copy.deepcopy(self.rngs), copy.deepcopy(self.game_rngs)
        t.walls, t.next_walls, t.wall_queues = list(self.walls), list(self.next_walls), list(self.wall_queues)
        t._pool = None  # threads of its own
        t._bind()
        return t

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_pool"] = None  # threads are not copied: a copy starts its own on its first run
        del state["_bound"]  # the engine's hold on this object's arrays: the new object binds its own
        del state["_observer"]  # (bound to them too; made again on first use)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind()


def hand_result(info) -> dict | None:
    """The hand that ended with the step (``result``, ``deltas`` in points, ``winners``, ``round``, ``honba`` at
    its start), from a table's info row; None when no hand ended."""
    if not info[I_HAND_ENDED]:
        return None
    return {"result": RESULTS[int(info[I_RESULT])], "deltas": info[I_DELTAS:I_DELTAS + 4].tolist(),
            "winners": info[I_WINNERS:I_WINNERS + int(info[I_NWIN])].tolist(), "round": int(info[I_ROUND]),
            "honba": int(info[I_HONBA])}


def game_result(info) -> tuple[list[int] | None, list[float] | None, list[int] | None]:
    """(final scores, final points, the scores before the leftover sticks) of a game that ended with the step; Nones
    otherwise."""
    if not info[I_GAME_OVER]:
        return None, None, None
    return (info[I_FINAL:I_FINAL + 4].tolist(), [float(x) for x in info[I_POINTS:I_POINTS + 4]],
            info[I_SCORES:I_SCORES + 4].tolist())


class VectorCore:
    """The vector env's N tables on one :class:`Tables`: the env's rules of ``RiichiTable.step`` (illegal actions,
    rewards, shaping, autoreset) on arrays, with the same values as N Python tables.

    Args:
        n: tables; episode, reward, shaping, gamma, illegal_action, kokushi_robs_ankan, claim_window, observers:
        the env's arguments (checked by the env); num_threads: threads of the engine's calls; raw: the observation
        without the derived views (``observation="raw"``).
    """

    def __init__(self, n: int, episode: str, reward: str, shaping: str | None, gamma: float, illegal_action: str,
                 kokushi_robs_ankan: bool, num_threads: int = 1, claim_window: str = "always", observers: str = "all",
                 raw: bool = False):
        self.episode, self.reward, self.shaping, self.gamma, self.illegal_action = (
            episode, reward, shaping, gamma, illegal_action)
        self.n = n
        self.core = Tables(n, self.episode, kokushi_robs_ankan, num_threads=num_threads, claim_window=claim_window,
                           observers=observers, raw=raw)
        self.size = _obs_spec(raw).size
        shape = (n, 4, self.size)
        # the arrays a step hands out, written again once the caller has dropped them (mjenv.vector_batch)
        self._spare_obs, self._spare_final = _Spares(shape, np.float32, None), _Spares(shape, np.float32, 0)
        self._spare_final_masks = _Spares((n, 4, A.N_ACTIONS), np.int8, 0)
        self._mask_offsets = np.arange(4 * n, dtype=np.int64) * A.N_ACTIONS  # each seat's row in the flat masks
        self._no_pay = np.zeros((n, 4), dtype=np.float64)  # a step's payments when no hand ended (read only)
        self._no_pay.flags.writeable = False

    def _gather(self):
        c = self.core
        return {"observation": c.obs, "action_mask": c.masks.copy()}, vector_infos(c.info[:, I_ACTING], c.defs)

    def reset(self, seeds, starts):
        self.core.obs = self._spare_obs.take()[0]  # every row is written
        self.core.start(range(self.n), seeds, starts)
        return self._gather()

    def _raise_illegal(self, acts: np.ndarray, bad: np.ndarray) -> None:
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        s = int(np.flatnonzero(bad[i])[0])
        a = int(acts[i, s])
        legal = [f"{x} ({A.describe(x)})" for x in np.flatnonzero(self.core.masks[i, s])]
        phase = PHASES[int(self.core.info[i, I_PHASE])]
        raise ValueError(f"table {i}: {AGENTS[s]}: action {a} ({A.describe(a)}) is illegal in phase {phase!r}; "
                         f"legal: {legal}")

    def _check(self, acts: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(the actions as int32[N, 4], bool[N, 4] of the seats whose action is not in its mask or None when every
        action is legal); raises on an action outside the action space, and on an illegal one with
        ``illegal_action="raise"``."""
        c = self.core
        if acts.dtype in _C_ACTIONS and acts.flags.c_contiguous and _ext.legal(c.masks, acts):
            return (acts if acts.dtype == np.int32 else acts.astype(np.int32)), None  # in range, so cast exactly
        a64 = acts.astype(np.int64)
        out = outside(a64, A.N_ACTIONS)
        if out is not None:
            i, s = (int(x[0]) for x in np.nonzero(out))
            raise ValueError(f"table {i}: {AGENTS[s]}: action {int(acts[i, s])} is outside the action space "
                             f"0..{A.N_ACTIONS - 1}")
        a32 = a64.astype(np.int32)
        bad = mask_misses(c.masks, a64, self._mask_offsets)
        if not bad.any():  # every action legal (given in a dtype or layout the C pass does not read)
            return a32, None
        if self.illegal_action == "raise":
            self._raise_illegal(a32, bad)
        return a32, bad

    def step(self, acts: np.ndarray):
        c, n = self.core, self.n
        a32, bad = self._check(acts)  # bad: None when every action is legal
        bad_table = bad.any(axis=1) if bad is not None else None
        before = c.defs.copy() if self.shaping is not None else None
        obs, _ = self._spare_obs.take()  # the engine writes this step's observations into it
        if obs is not c.obs:
            if bad is not None:
                obs[bad_table] = c.obs[bad_table]
            c.obs = obs
        c.step(a32, rows=~bad_table if bad is not None else None)
        info = c.info
        if c.hand_ended or bad is not None:
            good = ~bad_table if bad is not None else True
            paid = np.zeros((n, 4), dtype=np.float64)  # what the hands and games that ended pay (0 on illegal tables)
            ended = (info[:, I_HAND_ENDED] != 0) & good
            over = (info[:, I_GAME_OVER] != 0) & good
            if not ended.any():
                pass  # nothing paid (a game ends with a hand)
            elif self.reward == "points":
                paid[ended] = info[ended, I_DELTAS:I_DELTAS + 4] / 1000
                paid[over] += (info[over, I_FINAL:I_FINAL + 4] - info[over, I_SCORES:I_SCORES + 4]) / 1000
            else:
                paid[over] = info[over, I_POINTS:I_POINTS + 4]
            done = over | bad_table if bad is not None else over
        else:  # no hand ended and no action was illegal: nothing paid, no episode over
            paid, over, done = self._no_pay, None, np.zeros(n, dtype=bool)
        rewards = table_rewards(paid, bad, before, c.defs, done, self.gamma)
        (final_obs, kf), (final_masks, km) = self._spare_final.take(), self._spare_final_masks.take()
        rows = np.flatnonzero(done).tolist() if over is not None else []
        self._spare_final.wrote(kf, rows)
        self._spare_final_masks.wrote(km, rows)
        final = {"final_scores": np.zeros((n, 4), np.int64), "final_points": np.zeros((n, 4), np.float64)}
        scores, winners = np.zeros((n, 4), np.int64), np.zeros((n, 4), bool)
        if rows:
            final_obs[done], final_masks[done] = c.obs[done], c.masks[done]
            final["final_scores"][over] = info[over, I_FINAL:I_FINAL + 4]
            final["final_points"][over] = info[over, I_POINTS:I_POINTS + 4]
            for i in np.flatnonzero(over).tolist():  # the last hand's result
                res = hand_result(info[i])
                scores[i], winners[i, res["winners"]] = res["deltas"], True
            c.start(np.flatnonzero(done))
        obs, infos = self._gather()
        illegal = bad & bad_table[:, None] if bad is not None else np.zeros((n, 4), bool)
        vector_final_infos(infos, done, final_obs, final_masks, scores, winners, illegal, final)
        return obs, rewards, done, np.zeros(n, dtype=bool), infos


_WINDOW_ACTIONS = frozenset(range(A.RON, A.N_ACTIONS)) - {A.KYUUSHU}


def replay(steps, walls, length: str = "hanchan", kokushi_robs_ankan: bool = True) -> dict:
    """Play a game's recorded actions on the compiled engine (one table): each hand's result and the game's end.

    Args:
        steps: the ``RiichiGame.step`` calls of the game in order, each a dict seat -> action id; taken with
            either claim window (a window nobody could use, which ``claim_window="when_possible"`` skips, is
            passed here).
        walls: each hand's :class:`~mjenv.rulesets.riichi.wall.Wall`, in order.
        length: ``"hanchan"``, ``"east"`` or ``"hand"``.

    Returns:
        ``{"hands": [{"result", "deltas", "winners"}, ...], "final_scores", "final_points"}`` (None before the end).

    Raises:
        ValueError: an action the engine finds illegal (naming the step).
    """
    core = Tables(1, length, kokushi_robs_ankan)
    core.wall_queues[0] = iter(walls)
    core.start([0])
    hands: list[dict] = []
    acts = np.full((1, 4), A.PASS, dtype=np.int32)

    def advance() -> None:
        core.step(acts)
        res = hand_result(core.info[0])
        if res is not None:
            hands.append(res)

    def in_window() -> bool:
        return PHASES[int(core.info[0, I_PHASE])] in ("claim", "chankan")

    for k, step in enumerate(steps):
        acts[:] = A.PASS
        if in_window() and not _WINDOW_ACTIONS & set(step.values()):
            advance()  # the window nobody could use
        for s, a in step.items():
            if not core.masks[0, s, a]:
                raise ValueError(f"step {k + 1}: seat {s}'s action {a} ({A.describe(a)}) is not legal on the compiled "
                                 f"engine (phase {PHASES[int(core.info[0, I_PHASE])]})")
            acts[0, s] = a
        advance()
    acts[:] = A.PASS
    if in_window():
        advance()
    final, points, _ = game_result(core.info[0])
    return {"hands": hands, "final_scores": final, "final_points": points}
