"""The observation of one seat: one spec of named views -> one flat float32 array.

Everything about the observation is derived from :meth:`ObservationSpec.views` (one place per fact):
the offsets of each view in the flat array, the gymnasium ``Box`` space with per-entry bounds, the
markdown table in the env's documentation (:meth:`ObservationSpec.markdown_table`) and
:meth:`ObservationSpec.decode`, which returns named, shaped views into the array (OpenSpiel style).

Seat-relative order everywhere: index 0 = the observing seat (self), 1 = right (the next seat to act
after it), 2 = across, 3 = left.

The env asks :meth:`ObservationSpec.observe` for all four seats' observations once per step. With the
compiled kernel (:mod:`mjenv.deficiency.kernel`, built at install when a C compiler is there) that is
one C call, features included; otherwise the numpy path below builds them, with identical results.

Deficiency features (knowledge-aware, under the seat's own knowledge base, ``../shared/DESIGN.md``)
are computed on the numpy path for all seats together by :class:`DeficiencyFeatures`: every row the features need
(after each possible draw, discard and claim) differs from the seat's hand in one suit, so the
engine caches per suit configuration the exact ``dp`` cost vectors of that suit and of its one-tile
variants, evaluates the new configurations of a step in one table pass and combines all seats'
rows in one vectorized pass (the vector env sends all its tables' seats through the same pass). The
results equal ``mjenv.deficiency``'s feature functions (a test compares them).

INCOMPLETABLE (``mjenv.deficiency.INCOMPLETABLE`` = 99) appears as is in the deficiency views.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mjenv.deficiency import INCOMPLETABLE
from mjenv.deficiency import dp as _dp
from mjenv.deficiency import kernel as _kernel
from mjenv.deficiency.features import CLAIM_KINDS, NOT_APPLICABLE
from mjenv.rules import Rules, get_rules

__all__ = [
    "DeficiencyFeatures",
    "ObservationSpec",
    "View",
    "decode",
    "relative_order",
]

#: Phases of the game (``mjenv.game.Phase``): DISCARD, CLAIM, ROB_KONG, END.
NUM_PHASES = 4
_PHASE_DISCARD, _PHASE_CLAIM = 0, 1


def relative_order(seat: int) -> np.ndarray:
    """Absolute seats in the seat-relative order of ``seat``: (self, right, across, left).

    Returns:
        int64[4] with ``order[i] = (seat + i) % 4``.
    """
    return (seat + np.arange(4)) % 4


# ----------------------------------------------------------------------------------------------
# The spec
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """One named view of the observation.

    Attributes:
        name: the key :meth:`ObservationSpec.decode` returns it under.
        shape: its shape inside the flat array (row-major).
        low, high: bounds of every entry (the ``Box`` space's).
        description: one line for the documentation table.
    """

    name: str
    shape: tuple[int, ...]
    low: float
    high: float
    description: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


class ObservationSpec:
    """The ordered named views of a seat's observation for one rule set.

    Args:
        rules: a preset name, a :class:`mjenv.rules.Rules` or a dict (see ``get_rules``).
        oracle: append the hidden views ``oracle_hands`` and ``oracle_wall`` (for oracle-guided
            training; never use them as a playing agent's input).

    Attributes:
        views: ``dict[str, tuple[int, ...]]`` ordered name -> shape.
        size: length of the flat array.
        space: ``gymnasium.spaces.Box`` of float32[size] with each view's bounds.
    """

    def __init__(self, rules: str | Rules | dict | None = "basic", oracle: bool = False):
        if not isinstance(oracle, bool):
            raise ValueError(f"oracle must be True or False, got {oracle!r}")
        self.rules = get_rules(rules)
        self.oracle = oracle
        t = self.rules.num_tile_types
        r = self.rules
        self.num_tile_types = t
        self.max_discards = r.max_discards
        defi = float(INCOMPLETABLE)
        v = [
            View("hand", (t,), 0, 4, "own concealed tile counts (the drawn tile included)"),
            View("melds", (4, t), 0, 4, "tiles in each seat's declared melds"),
            View("num_melds", (4,), 0, r.melds, "declared melds per seat (concealed kongs included)"),
            View("discards", (4, r.max_discards), 0, t, "ordered discards per seat, tile id + 1 (0 = none)"),
            View("last_discard", (t,), 0, 1, "one-hot of the discard awaiting claims (all 0 when none)"),
            View("last_discarder", (4,), 0, 1, "one-hot seat of that discard"),
            View("knowledge_base", (t,), 0, 4, "copies of each tile the seat has not seen"),
            View("wall_count", (1,), 0, r.num_tiles, "tiles left in the wall"),
            View("dealer", (4,), 0, 1, "one-hot seat of the dealer"),
            View("phase", (NUM_PHASES,), 0, 1, "one-hot of the game phase: discard, claim, rob kong, end"),
            View("deficiency", (1,), 0, defi, f"knowledge-aware deficiency of the own hand ({INCOMPLETABLE} = "
                 "incompletable)"),
            View("deficiency_after_discard", (t,), NOT_APPLICABLE, defi,
                 "deficiency after discarding t; -1 where t is not held or it is not the seat's discard turn"),
            View("effective_tiles", (t,), 0, 1, "1 where drawing t (KB > 0) lowers the deficiency"),
            View("effective_count", (1,), 0, 4 * t, "KB copies of the effective tiles"),
            View("deficiency_after_claim", (len(CLAIM_KINDS),), NOT_APPLICABLE, defi,
                 "after chow low/mid/high, pong, kong of last_discard by this seat; -1 without the tiles, "
                 "outside a claim window, or a chow not from the left seat"),
        ]
        if oracle:
            v += [
                View("oracle_hands", (4, t), 0, 4, "HIDDEN: every seat's concealed tiles (seat-relative)"),
                View("oracle_wall", (r.dead_wall_start,), 0, t,
                     "HIDDEN: the undrawn wall, tile id + 1, zero padded; front draws come from its start, "
                     "kong replacement draws from its last entry backwards"),
            ]
        self._views = v
        self.views: dict[str, tuple[int, ...]] = {x.name: x.shape for x in v}
        self.slices: dict[str, slice] = {}
        pos = 0
        for x in v:
            self.slices[x.name] = slice(pos, pos + x.size)
            pos += x.size
        self.size = pos

    def view(self, name: str) -> View:
        """The :class:`View` called ``name``."""
        for x in self._views:
            if x.name == name:
                return x
        raise ValueError(f"no view {name!r}; views: {', '.join(self.views)}")

    @cached_property
    def low(self) -> np.ndarray:
        """float32[size] lower bound of each entry."""
        return np.concatenate([np.full(x.size, x.low, np.float32) for x in self._views])

    @cached_property
    def high(self) -> np.ndarray:
        """float32[size] upper bound of each entry."""
        return np.concatenate([np.full(x.size, x.high, np.float32) for x in self._views])

    @cached_property
    def space(self):
        """``gymnasium.spaces.Box(low, high, (size,), float32)``; gymnasium is imported lazily."""
        from gymnasium import spaces

        return spaces.Box(self.low, self.high, (self.size,), np.float32)

    def markdown_table(self) -> str:
        """The documentation table of the views (name, shape, offset, range, content)."""
        rows = ["| view | shape | offset | range | content |", "|---|---|---|---|---|"]
        for x in self._views:
            sl = self.slices[x.name]
            rows.append(
                f"| `{x.name}` | {x.shape} | {sl.start} | {x.low:g}..{x.high:g} | {x.description} |"
            )
        rows.append(f"| total | ({self.size},) | | | float32 |")
        return "\n".join(rows)

    def decode(self, observation) -> dict[str, np.ndarray]:
        """Named views of an observation.

        Args:
            observation: float32[size], or the env's dict ``{"observation": ..., "action_mask": ...}``,
                or a batch float32[B, size].

        Returns:
            ``dict[name, np.ndarray]``: views (no copy) of shape ``views[name]`` (or ``(B, *shape)``).

        Raises:
            ValueError: the array's last dimension is not ``size`` (another rule set or oracle flag).
        """
        if isinstance(observation, dict):
            if "observation" not in observation:
                raise ValueError("a dict observation must have the key 'observation'")
            observation = observation["observation"]
        arr = np.asarray(observation)
        if arr.ndim not in (1, 2) or arr.shape[-1] != self.size:
            raise ValueError(
                f"observation has shape {arr.shape}; this spec (rules={self.rules.name!r}, oracle={self.oracle}) "
                f"needs ({self.size},) or (B, {self.size}); decode with the rules and oracle flag it was made with"
            )
        lead = arr.shape[:-1]
        return {x.name: arr[..., self.slices[x.name]].reshape(*lead, *x.shape) for x in self._views}

    # ------------------------------------------------------------------------------------------
    # Encoding
    # ------------------------------------------------------------------------------------------

    @cached_property
    def features(self) -> DeficiencyFeatures:
        """The feature engine (with its caches) this spec encodes with."""
        return DeficiencyFeatures(self.num_tile_types, self.rules.melds)

    def encode(self, game, seat: int) -> np.ndarray:
        """The observation of one seat. Shape float32[size]."""
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        return self.observe(game)[0][seat]

    def encode_all(self, game, knowledge_bases: np.ndarray | None = None, features: dict | None = None) -> np.ndarray:
        """The observations of all four seats, with their deficiency features in one batched call.

        Args:
            game: a ``mjenv.game.Game``.
            knowledge_bases: int8[4, T] each seat's KB, when the caller has them already.
            features: the result of :meth:`seat_features` for this state, when already computed.

        Returns:
            float32[4, size]; row s is seat s's observation.
        """
        from mjenv.knowledge import knowledge_bases as _knowledge_bases

        t = self.num_tile_types
        if knowledge_bases is None:
            knowledge_bases = np.asarray(_knowledge_bases(game), dtype=np.int8)
        if features is None:
            features = self.seat_features(game, knowledge_bases)
        order = (np.arange(4)[:, None] + np.arange(4)[None, :]) % 4  # order[s, i] = seat at position i
        out = np.zeros((4, self.size), dtype=np.float32)
        sl = self.slices
        hands = np.asarray(game.hands)
        meld_counts = np.asarray(game.meld_counts)
        num_melds = np.array([game.num_melds(s) for s in range(4)], dtype=np.float32)
        discards = np.asarray(game.discards)[:, : self.max_discards].astype(np.float32) + 1.0
        out[:, sl["hand"]] = hands
        out[:, sl["melds"]] = meld_counts[order].reshape(4, 4 * t)
        out[:, sl["num_melds"]] = num_melds[order]
        dsl = sl["discards"]
        out[:, dsl.start : dsl.start + 4 * discards.shape[1]] = discards[order].reshape(4, -1)
        last, who = int(game.last_discard), int(game.last_discarder)
        if last >= 0:
            out[:, sl["last_discard"].start + last] = 1.0
            out[np.arange(4), sl["last_discarder"].start + (who - np.arange(4)) % 4] = 1.0
        out[:, sl["knowledge_base"]] = knowledge_bases
        out[:, sl["wall_count"]] = float(game.wall_remaining)
        out[np.arange(4), sl["dealer"].start + (int(game.dealer) - np.arange(4)) % 4] = 1.0
        out[:, sl["phase"].start + int(game.phase)] = 1.0
        out[:, sl["deficiency"]] = features["deficiency"][:, None]
        out[:, sl["deficiency_after_discard"]] = features["deficiency_after_discard"]
        out[:, sl["effective_tiles"]] = features["effective_tiles"]
        out[:, sl["effective_count"]] = features["effective_count"][:, None]
        out[:, sl["deficiency_after_claim"]] = features["deficiency_after_claim"]
        if self.oracle:
            out[:, sl["oracle_hands"]] = hands[order].reshape(4, 4 * t)
            wall = oracle_wall(game, self.rules.dead_wall_start)
            out[:, sl["oracle_wall"]] = wall[None, :]
        return out

    def encode_batch(self, games: list, knowledge_bases: np.ndarray, features: dict) -> np.ndarray:
        """The observations of all four seats of N games, vectorized over the games.

        Args:
            games: N ``mjenv.game.Game`` objects.
            knowledge_bases: int8[N, 4, T] each game's seats' KBs.
            features: :meth:`DeficiencyFeatures.compute` of the 4N seats, game-major (rows 4i..4i+3 are
                game i's seats 0..3).

        Returns:
            float32[N, 4, size]; ``[i, s]`` is seat s's observation of game i (what :meth:`encode_all`
            gives for each game alone).
        """
        n, t = len(games), self.num_tile_types
        seats = np.arange(4)
        order = (seats[:, None] + seats[None, :]) % 4  # order[s, i] = seat at position i
        out = np.zeros((n, 4, self.size), dtype=np.float32)
        sl = self.slices
        hands = np.stack([g.hands for g in games])  # (N, 4, T)
        meld_counts = np.stack([g.meld_counts for g in games])
        num_melds = np.array([[len(m) for m in g.melds] for g in games], dtype=np.float32)
        discards = np.stack([g.discards for g in games])[:, :, : self.max_discards].astype(np.float32) + 1.0
        scalars = np.array(
            [(g.last_discard, g.last_discarder, g.wall_remaining, g.dealer, g.phase) for g in games], dtype=np.int64
        )
        last, who, wall, dealer, phase = scalars.T
        out[:, :, sl["hand"]] = hands
        out[:, :, sl["melds"]] = meld_counts[:, order].reshape(n, 4, 4 * t)
        out[:, :, sl["num_melds"]] = num_melds[:, order]
        dsl = sl["discards"]
        out[:, :, dsl.start : dsl.start + 4 * discards.shape[2]] = discards[:, order].reshape(n, 4, -1)
        g_idx = np.flatnonzero(last >= 0)
        if len(g_idx):
            out[g_idx, :, sl["last_discard"].start + last[g_idx]] = 1.0
            pos = (who[g_idx, None] - seats[None, :]) % 4  # the discarder relative to each seat
            out[g_idx[:, None], seats[None, :], sl["last_discarder"].start + pos] = 1.0
        out[:, :, sl["knowledge_base"]] = knowledge_bases
        out[:, :, sl["wall_count"]] = wall[:, None, None]
        rows, cols = np.arange(n)[:, None], seats[None, :]
        out[rows, cols, sl["dealer"].start + (dealer[:, None] - seats[None, :]) % 4] = 1.0
        out[np.arange(n), :, sl["phase"].start + phase] = 1.0
        f = {k: np.asarray(v).reshape(n, 4, -1) for k, v in features.items()}
        out[:, :, sl["deficiency"]] = f["deficiency"]
        out[:, :, sl["deficiency_after_discard"]] = f["deficiency_after_discard"]
        out[:, :, sl["effective_tiles"]] = f["effective_tiles"]
        out[:, :, sl["effective_count"]] = f["effective_count"]
        out[:, :, sl["deficiency_after_claim"]] = f["deficiency_after_claim"]
        if self.oracle:
            out[:, :, sl["oracle_hands"]] = hands[:, order].reshape(n, 4, 4 * t)
            for i, g in enumerate(games):
                out[i, :, sl["oracle_wall"]] = oracle_wall(g, self.rules.dead_wall_start)[None, :]
        return out

    @cached_property
    def _kernel_offsets(self) -> np.ndarray:
        return np.array([self.slices[name].start for name in _kernel.VIEW_ORDER], dtype=np.int64)

    @cached_property
    def _observe_kernel(self):
        """The C ``observe`` with this rule set's tables bound (one call per env step)."""
        return _kernel.bound_observe(self.num_tile_types)

    def new_memo(self):
        """A fresh per-table scratch for :meth:`observe` (the compiled kernel's seat memo), or None."""
        return None

    def observe_many(self, games: list, memos: list) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`observe` of N states: float32[N, 4, size] and int32[N, 4]."""
        n = len(games)
        obs = np.empty((n, 4, self.size), dtype=np.float32)
        deficiency = np.empty((n, 4), dtype=np.int32)
        for i, g in enumerate(games):
            obs[i], deficiency[i] = self.observe(g)
        return obs, deficiency

    def observe(self, game, memo=None) -> tuple[np.ndarray, np.ndarray]:
        """The four seats' observations and deficiencies of a state: what the env needs each step.

        With the compiled kernel (``features.backend == "c"``) the whole observation, deficiency
        features included, is written by one C call; otherwise :meth:`seat_features` and
        :meth:`encode_all` build it with numpy. Both give the same arrays (tests compare them).

        Returns:
            (float32[4, size] observations, row s seat s's; int32[4] each seat's deficiency).
        """
        if self.features.backend != "c":
            from mjenv.knowledge import knowledge_bases

            kbs = np.asarray(knowledge_bases(game), dtype=np.int8)
            feats = self.seat_features(game, kbs)
            return self.encode_all(game, kbs, feats), feats["deficiency"]
        phase = int(game.phase)
        last, who = int(game.last_discard), int(game.last_discarder)
        claim = last if phase == _PHASE_CLAIM and last >= 0 else -1
        out = np.empty((4, self.size), dtype=np.float32)
        deficiency = np.empty(4, dtype=np.int32)
        self._observe_kernel(
            game.tile_table, game.discards, self._kernel_offsets, game.melds_declared.tolist(), last, who,
            int(game.wall_remaining), int(game.dealer), phase,
            int(game.current_player) if phase == _PHASE_DISCARD else -1, claim,
            (who + 1) % 4 if claim >= 0 and self.rules.allow_chow else -1, self.rules.melds, out, deficiency,
        )  # fmt: skip
        if self.oracle:
            order = (np.arange(4)[:, None] + np.arange(4)[None, :]) % 4
            out[:, self.slices["oracle_hands"]] = np.asarray(game.hands)[order].reshape(4, -1)
            out[:, self.slices["oracle_wall"]] = oracle_wall(game, self.rules.dead_wall_start)[None, :]
        return out, deficiency

    def seat_features(self, game, knowledge_bases: np.ndarray) -> dict[str, np.ndarray]:
        """Deficiency features of all four seats (one batched engine call).

        Returns:
            dict with ``deficiency`` int32[4], ``deficiency_after_discard`` int32[4, T],
            ``effective_tiles`` bool[4, T], ``effective_count`` int64[4], ``deficiency_after_claim``
            int32[4, 5].
        """
        from mjenv.game import Phase

        r = self.rules
        phase = int(game.phase)
        hands = np.asarray(game.hands)
        needed = np.array([r.melds - game.num_melds(s) for s in range(4)], dtype=np.int64)
        discard_turn = np.zeros(4, dtype=bool)
        if phase == Phase.DISCARD:
            discard_turn[int(game.current_player)] = True
        claim_tile = np.full(4, -1, dtype=np.int64)
        chow_ok = np.zeros(4, dtype=bool)
        last, who = int(game.last_discard), int(game.last_discarder)
        if phase == Phase.CLAIM and last >= 0:
            claim_tile[:] = last
            claim_tile[who] = -1
            chow_ok[(who + 1) % 4] = r.allow_chow
        return self.features.compute(hands, knowledge_bases, needed, discard_turn, claim_tile, chow_ok)


def oracle_wall(game, length: int) -> np.ndarray:
    """The tiles left in the wall in drawing order as tile id + 1, zero padded (float32[length]).

    Front draws take ``game.wall`` from ``game.wall_head``, replacement draws (after kongs) from the
    tail, so ``game.wall[wall_head:wall_tail]`` is the undrawn rest (``wall_remaining`` tiles).
    """
    out = np.zeros(length, dtype=np.float32)
    rest = np.asarray(game.wall)[int(game.wall_head) : int(game.wall_tail)][:length]
    out[: len(rest)] = rest.astype(np.float32) + 1.0
    return out


def decode(observation, rules: str | Rules | dict | None = "basic", oracle: bool = False) -> dict[str, np.ndarray]:
    """Named views of an observation made under ``rules`` (see :meth:`ObservationSpec.decode`)."""
    return _spec(get_rules(rules), oracle).decode(observation)


_SPECS: dict[tuple, ObservationSpec] = {}


def _spec(rules: Rules, oracle: bool) -> ObservationSpec:
    key = (rules, oracle)
    if key not in _SPECS:
        _SPECS[key] = ObservationSpec(rules, oracle)
    return _SPECS[key]


# ----------------------------------------------------------------------------------------------
# Deficiency features: every seat's rows from cached per-suit variant vectors, one pass per step
# ----------------------------------------------------------------------------------------------


def _remove_codes() -> list[list[int]]:
    """``_REMOVE[u][code]``: the option code of (h - u, a - u) for the code of (h, a); -1 if h < u."""
    from mjenv.deficiency._dp_tables import option_pairs

    opts = option_pairs(False)
    index = {o: i for i, o in enumerate(opts)}
    return [[index[(h - u, a - u)] if h >= u else -1 for h, a in opts] for u in range(4)]


_REMOVE = _remove_codes()
#: ``_CODES[h, kb]``: the option code ``a * (a + 1) // 2 + h`` of h in hand and kb in the KB (a = h + kb).
_CODES = np.array([[(h + k) * (h + k + 1) // 2 + h if h + k <= 4 else 0 for k in range(5)] for h in range(5)],
                  dtype=np.uint8)


class DeficiencyFeatures:
    """Exact knowledge-aware deficiency features of many seats, batched, with two caches.

    The deficiency core splits a hand into parts (three suits and the honours) and combines their
    (melds, pair) cost vectors by min-plus (``mjenv.deficiency.dp``). Every row a feature needs (the
    hand after each draw, each discard, each claim) differs from the seat's hand in ONE part, so the
    engine keeps, per part configuration (its tiles in hand and in the KB), the cost vectors of that
    part as it is and after each one-tile draw or discard (``dp.suit_variant_vectors``). A step
    changes about one part per seat (the discarded or drawn tile's suit), so nearly every part is a
    dictionary lookup; the configurations that are new are evaluated in one batched table pass, and
    all seats' rows are then combined in one vectorized pass (``dp.variant_rows``). A seat whose
    (hand, KB, melds) repeats is served whole from a second cache. The results equal the feature
    functions of ``mjenv.deficiency`` exactly (tests compare them).

    Args:
        num_tile_types: 27 or 34.
        melds: melds in a complete hand (4 or 5).
        max_cache: entries kept in each cache before it is cleared (bounded memory in long runs).
        backend: ``"auto"`` (the compiled kernel of :mod:`mjenv.deficiency.kernel` when it is
            installed, else numpy), ``"c"`` or ``"numpy"``. The kernel evaluates every seat from the
            tables in C and needs no caches; both give the same values (tests compare them).

    Attributes:
        backend: the one in use, ``"c"`` or ``"numpy"``.
        stats: ``seat_hits`` / ``seat_misses`` (seat cache), ``part_hits`` / ``part_misses`` (part
            cache), ``rows`` (part configurations evaluated in the tables), ``calls`` (passes that
            evaluated anything).
    """

    def __init__(self, num_tile_types: int, melds: int = 4, max_cache: int = 100_000, backend: str = "auto"):
        if num_tile_types not in (27, 34):
            raise ValueError(f"num_tile_types must be 27 or 34, got {num_tile_types}")
        if backend not in ("auto", "c", "numpy"):
            raise ValueError(f"backend must be 'auto', 'c' or 'numpy', got {backend!r}")
        if backend == "c" and not _kernel.available():
            raise ValueError("backend='c' needs the compiled kernel mjenv.deficiency._kernel, which is not installed "
                             "(or MJENV_NO_KERNEL is set); use backend='auto' or 'numpy'")
        #: "c" (the compiled kernel, no caches needed) or "numpy" (cached part vectors)
        self.backend = "c" if backend == "c" or (backend == "auto" and _kernel.available()) else "numpy"
        if backend == "auto":
            _kernel.warn_missing()
        self.num_tile_types = num_tile_types
        self.melds = melds
        self.max_cache = max_cache
        self._step_cache: dict = {}
        self._part_index: dict[bytes, int] = {}  # part key -> row of self._pool
        self.stats = {"seat_hits": 0, "seat_misses": 0, "part_hits": 0, "part_misses": 0, "rows": 0, "calls": 0}
        # T = 27 has no honours: its fourth part is empty (cost 0 for no meld and no pair)
        self._pool = np.empty((1024, _dp.NUM_VARIANTS, _dp.VEC), dtype=np.uint8)
        self._pool[0] = _dp.EMPTY_VARIANTS

    def deficiency(self, hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
        """Deficiency of each row in one backend call.

        Args:
            hands: int[R, T] tile counts (any size: features pass 3m+3-tile hands too).
            kbs: int[R, T] knowledge bases (hands + kbs <= 4).
            melds_needed: int[R] melds still needed.

        Returns:
            int32[R]: the deficiency, ``INCOMPLETABLE`` where no pattern fits.
        """
        if len(hands) == 0:
            return np.zeros(0, dtype=np.int32)
        return np.asarray(
            _dp.deficiency_batch(
                np.ascontiguousarray(hands, dtype=np.int8),
                np.ascontiguousarray(kbs, dtype=np.int8),
                np.ascontiguousarray(melds_needed, dtype=np.int64),
            ),
            dtype=np.int32,
        )

    def _parts(self, keys: list[bytes]) -> np.ndarray:
        """Pool rows holding the variant vectors of each part key (suit: 9 code bytes, honours: 7).

        The vectors live in one array ``self._pool`` (uint8[rows, NUM_VARIANTS, VEC]; row 0 is the
        empty part), so a step gathers all of them with one fancy index; the missing ones are
        evaluated in one batched pass per kind.

        Returns:
            int64[len(keys)] rows of ``self._pool``.
        """
        index = self._part_index
        miss = list({k: None for k in keys if k not in index})
        if miss and len(index) + len(miss) >= self.max_cache:  # bounded memory: start over
            index.clear()
            miss = list(dict.fromkeys(keys))
        self.stats["part_misses"] += len(miss)
        self.stats["part_hits"] += len(keys) - len(miss)
        if miss:
            self.stats["rows"] += len(miss)
            self.stats["calls"] += 1
            need = len(index) + 1 + len(miss)
            if need > len(self._pool):
                grown = np.empty((min(max(need, 2 * len(self._pool)), self.max_cache + 1), *self._pool.shape[1:]),
                                 dtype=np.uint8)
                grown[: len(self._pool)] = self._pool
                self._pool = grown
            for n_ranks, fn in ((9, _dp.suit_variant_vectors), (7, _dp.honour_variant_vectors)):
                ks = [k for k in miss if len(k) == n_ranks]
                if ks:
                    codes = np.frombuffer(b"".join(ks), dtype=np.uint8).reshape(len(ks), n_ranks)
                    lo = len(index) + 1
                    self._pool[lo : lo + len(ks)] = fn(codes)
                    index.update(zip(ks, range(lo, lo + len(ks))))
        return np.array([index[k] for k in keys], dtype=np.int64)

    def _part_keys(self, codes_row: bytes) -> list[bytes]:
        keys = [codes_row[0:9], codes_row[9:18], codes_row[18:27]]
        if self.num_tile_types == 34:
            keys.append(codes_row[27:34])
        return keys

    def compute(self, hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok) -> dict[str, np.ndarray]:
        """Features of S seats at once.

        Args:
            hands: int[S, T] concealed counts.
            kbs: int[S, T] each seat's knowledge base.
            melds_needed: int[S] melds still needed.
            discard_turn: bool[S] whether the seat must discard now (``deficiency_after_discard``).
            claim_tile: int[S] the discard this seat could claim, -1 for none.
            chow_ok: bool[S] whether this seat may chow it.

        Returns:
            dict with ``deficiency`` int32[S], ``deficiency_after_discard`` int32[S, T],
            ``effective_tiles`` bool[S, T], ``effective_count`` int64[S], ``deficiency_after_claim``
            int32[S, 5] (fresh arrays the caller may modify).
        """
        if self.backend == "c":
            self.stats["calls"] += 1
            return _kernel.features(hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok)
        hands = np.asarray(hands, dtype=np.int8)
        kbs = np.asarray(kbs, dtype=np.int8)
        needed = np.asarray(melds_needed, dtype=np.int64)
        discard_turn = np.asarray(discard_turn, dtype=bool)
        claim_tile = np.asarray(claim_tile, dtype=np.int64)
        chow_ok = np.asarray(chow_ok, dtype=bool)
        s_n, t = hands.shape
        # per-tile option code of (h, a = h + KB), 0..14: the part tables' digits and the cache keys
        codes = _CODES[hands, kbs]  # one lookup instead of five arithmetic passes
        flat = codes.tobytes()
        step_key = (flat, needed.tobytes(), discard_turn.tobytes(), claim_tile.tobytes(), chow_ok.tobytes())
        got = self._step_cache.get(step_key)
        if got is not None:  # the same position again (e.g. encode after step): nothing to evaluate
            self.stats["seat_hits"] += s_n
            return {k: v.copy() for k, v in got.items()}
        self.stats["seat_misses"] += s_n
        if len(self._step_cache) >= self.max_cache:
            self._step_cache.clear()
        # every part of every seat, then the claim rows' modified parts
        empty = self.num_tile_types == 27
        # one bytes key per part: whole 9-byte (7-byte) records, seat-major, suits then honours
        keys = np.ascontiguousarray(codes[:, :27]).view("V9").ravel().tolist()
        if not empty:
            keys += np.ascontiguousarray(codes[:, 27:]).view("V7").ravel().tolist()
        claim_rows = []  # (seat, column, part index)
        for s in np.flatnonzero((claim_tile >= 0) & (needed >= 1)).tolist():
            d = int(claim_tile[s])
            p = min(d // 9, 3)
            lo = s * t + 9 * p
            part = flat[lo : lo + (9 if p < 3 else 7)]
            base = d - 9 * p
            for col, offsets in enumerate(self._claim_offsets(d, bool(chow_ok[s]))):
                if offsets is None:
                    continue
                # the meld's own tiles leave the hand, the KB stays (the discard is already seen):
                # (h, a) -> (h - u, a - u) for the u copies each tile gives to the meld
                new = bytearray(part)
                ok = True
                for off in set(offsets):
                    c = _REMOVE[offsets.count(off)][new[base + off]]
                    ok &= c >= 0
                    new[base + off] = max(c, 0)
                if ok:
                    keys.append(bytes(new))
                    claim_rows.append((s, col, p))
        rows = self._parts(keys)
        n_seat = len(keys) - len(claim_rows)
        seat_rows = np.zeros((s_n, 4), dtype=np.int64)  # T = 27: the honours part is pool row 0 (empty)
        seat_rows[:, :3] = rows[: 3 * s_n].reshape(s_n, 3)
        if not empty:
            seat_rows[:, 3] = rows[3 * s_n : n_seat]
        vecs = self._pool[seat_rows]  # (S, 4, NUM_VARIANTS, VEC)
        now, draw, disc, others = _dp.variant_rows(vecs, needed, t)
        eff = (kbs > 0) & (draw < now[:, None])
        out = {
            "deficiency": now,
            "deficiency_after_discard": np.where(discard_turn[:, None] & (hands > 0), disc, NOT_APPLICABLE),
            "effective_tiles": eff,
            "effective_count": (eff * kbs).sum(axis=1, dtype=np.int64),
            "deficiency_after_claim": np.full((s_n, len(CLAIM_KINDS)), NOT_APPLICABLE, dtype=np.int32),
        }
        if claim_rows:
            seat, col, part = (np.array(x, dtype=np.int64) for x in zip(*claim_rows))
            res = _dp.combine_with_others(
                self._pool[rows[n_seat:], 0][:, None, None], others[seat, part][:, None], needed[seat] - 1
            )
            out["deficiency_after_claim"][seat, col] = res[:, 0, 0]
        self._step_cache[step_key] = out
        return {k: v.copy() for k, v in out.items()}

    def _claim_offsets(self, d: int, chow_ok: bool) -> list[tuple[int, ...] | None]:
        """Hand tiles each claim kind uses, as offsets from the discard (None: impossible)."""
        suited = d < 27
        rank = d % 9
        return [
            (1, 2) if chow_ok and suited and rank <= 6 else None,
            (-1, 1) if chow_ok and suited and 1 <= rank <= 7 else None,
            (-2, -1) if chow_ok and suited and rank >= 2 else None,
            (0, 0),
            (0, 0, 0),
        ]
