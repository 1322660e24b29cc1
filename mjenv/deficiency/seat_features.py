"""Every deficiency feature of many seats at once: the numbers the observation shows beside the hand.

Not from the papers: a batched evaluator over :mod:`mjenv.deficiency.dp`'s one-tile variants (the
features equal :mod:`mjenv.deficiency.features`' functions exactly; tests compare them). For each
seat: its knowledge-aware deficiency, the deficiency after each discard (on its discard turn), the
effective tiles (draws that lower it) and their KB count, the deficiency after each claim of the
discard on offer (chow low / mid / high, pong, kong), and on its discard turn, per action, the
effective count after each discard and the deficiency after each kong.

Two backends give the same arrays: the compiled kernel (:mod:`mjenv.deficiency.kernel`, when it is
installed) and numpy (:class:`DeficiencyFeatures` with a bounded cache of part vectors).
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import dp as _dp
from mjenv.deficiency import kernel as _kernel
from mjenv.deficiency import seven_pairs as _seven_pairs
from mjenv.deficiency.dp import INCOMPLETABLE
from mjenv.deficiency.features import CLAIM_KINDS, NOT_APPLICABLE, closed_form, discard_rows
from mjenv.deficiency.forms import without_suit

__all__ = ["FEATURE_INPUTS", "FEATURE_NAMES", "DeficiencyFeatures", "PartCache"]

#: The inputs of :meth:`DeficiencyFeatures.compute`, per seat, in order.
FEATURE_INPUTS = ("hands", "knowledge_bases", "melds_needed", "discard_turn", "claim_tile", "chow_ok")
#: The outputs of :meth:`DeficiencyFeatures.compute` (and of the kernel), in order.
FEATURE_NAMES = (
    "deficiency", "deficiency_after_discard", "effective_tiles", "effective_count", "deficiency_after_claim",
    "effective_count_after_discard", "deficiency_after_kong",
)  # fmt: skip


def _code(h: int, a: int) -> int:
    """The option code of h copies in hand and a = h + KB available (``dp``'s part-table digit)."""
    return a * (a + 1) // 2 + h


#: ``_REMOVE[u][code]``: the code of (h - u, a - u) for the code of (h, a); -1 if h < u.
_REMOVE = [[-1] * 15 for _ in range(4)]
for _a in range(5):
    for _h in range(_a + 1):
        for _u in range(4):
            _REMOVE[_u][_code(_h, _a)] = _code(_h - _u, _a - _u) if _h >= _u else -1
#: ``_CODES[h, kb]``: the option code of h in hand and kb in the KB (0 where h + kb > 4).
_CODES = np.array([[_code(h, h + k) if h + k <= 4 else 0 for k in range(5)] for h in range(5)], dtype=np.uint8)


class PartCache:
    """Variant vectors of part configurations (``dp.suit_variant_vectors``), keyed by their codes.

    One pool array (uint8[rows, NUM_VARIANTS, VEC]; row 0 is the empty part) and a dict from a part's
    code bytes (suit: 9, honours: 7) to its row. Parts do not depend on the rule set, so one cache
    serves every table of a process (:data:`SHARED`). Bounded: when a call would hold more than
    ``max_parts`` it starts over, so it never holds more than ``max_parts`` rows (about 230 bytes each
    plus the dict entry), or the distinct parts of that one call when they are more.

    Attributes:
        stats: ``part_hits`` / ``part_misses``, ``rows`` (parts evaluated), ``calls`` (evaluating passes).
    """

    def __init__(self, max_parts: int = 50_000):
        if isinstance(max_parts, bool) or not isinstance(max_parts, int) or max_parts < 8:
            raise ValueError(f"max_parts must be an int >= 8, got {max_parts!r}")
        self.max_parts = max_parts
        self.index: dict[bytes, int] = {}
        self.pool = np.empty((1024, _dp.NUM_VARIANTS, _dp.VEC), dtype=np.uint8)
        self.pool[0] = _dp.EMPTY_VARIANTS
        self.stats = {"part_hits": 0, "part_misses": 0, "rows": 0, "calls": 0}

    def rows(self, keys: list[bytes]) -> np.ndarray:
        """Pool rows holding the variant vectors of each part key; the missing ones are evaluated in
        one batched pass per kind (suit, honours).

        Returns:
            int64[len(keys)] rows of :attr:`pool`.
        """
        index = self.index
        miss = list({k: None for k in keys if k not in index})
        if miss and len(index) + len(miss) > self.max_parts:  # bounded memory: start over
            index.clear()
            miss = list(dict.fromkeys(keys))
        self.stats["part_misses"] += len(miss)
        self.stats["part_hits"] += len(keys) - len(miss)
        if miss:
            self.stats["rows"] += len(miss)
            self.stats["calls"] += 1
            need = len(index) + 1 + len(miss)
            if need > len(self.pool):
                grown = np.empty((max(need, min(2 * len(self.pool), self.max_parts + 1)), *self.pool.shape[1:]),
                                 dtype=np.uint8)
                grown[: len(self.pool)] = self.pool
                self.pool = grown
            for n_ranks, fn in ((9, _dp.suit_variant_vectors), (7, _dp.honour_variant_vectors)):
                ks = [k for k in miss if len(k) == n_ranks]
                if ks:
                    codes = np.frombuffer(b"".join(ks), dtype=np.uint8).reshape(len(ks), n_ranks)
                    lo = len(index) + 1
                    self.pool[lo : lo + len(ks)] = fn(codes)
                    index.update(zip(ks, range(lo, lo + len(ks))))
        return np.array([index[k] for k in keys], dtype=np.int64)


#: The part cache every numpy-path evaluator shares unless given its own (bounded: at most about
#: 15 MB however many envs a process holds).
SHARED = PartCache()


class DeficiencyFeatures:
    """Exact knowledge-aware deficiency features of many seats, batched.

    The deficiency core splits a hand into parts (three suits and the honours) and combines their
    (melds, pair) cost vectors by min-plus (``mjenv.deficiency.dp``). Every row a feature needs (the
    hand after each draw, each discard, each claim) differs from the seat's hand in ONE part, so the
    numpy backend keeps, per part configuration (its tiles in hand and in the KB), the cost vectors of
    that part as it is and after each one-tile draw or discard (``dp.suit_variant_vectors``) in a
    :class:`PartCache`. A step changes about one part per seat, so nearly every part is a dictionary
    lookup; new configurations are evaluated in one batched table pass, and all seats' rows are then
    combined in one vectorized pass (``dp.variant_rows``).

    Args:
        num_tile_types: 27 or 34.
        melds: melds in a complete hand (4 or 5).
        backend: ``"auto"`` (the compiled kernel of :mod:`mjenv.deficiency.kernel` when it is
            installed, else numpy), ``"c"`` or ``"numpy"``. Both give the same values.
        cache: the numpy backend's :class:`PartCache`; None shares the process's :data:`SHARED`.
        seven_pairs: the seven-pairs form the rule set also lets win (``None``, ``"distinct"`` or
            ``"fours"``, :data:`mjenv.deficiency.seven_pairs.SEVEN_PAIRS`). With a form,
            every feature of a seat with no declared meld (melds needed = ``melds``) is the minimum of
            melds-and-pair and seven pairs, and its effective tiles are the draws that lower that
            minimum; after a claim or a concealed kong the seat has a meld, so those rows are as
            without it.

    Attributes:
        backend: the one in use, ``"c"`` or ``"numpy"``.
        cache: the part cache (numpy backend).
    """

    def __init__(self, num_tile_types: int, melds: int = 4, backend: str = "auto", cache: PartCache | None = None,
                 seven_pairs: str | None = None, rules: str = "basic"):
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
        self.cache = SHARED if cache is None else cache
        self.seven_pairs = seven_pairs
        self.rules = rules
        # the closed-hand form's code: seven pairs or thirteen orphans are 14 tiles (melds=4)
        self._form = closed_form(seven_pairs, rules, melds)

    @property
    def stats(self) -> dict[str, int]:
        """The part cache's counters (numpy backend)."""
        return self.cache.stats

    def compute(self, hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok, memo=None,
                excluded_suit=None) -> dict[str, np.ndarray]:
        """Features of S seats at once.

        Args:
            hands: int[S, T] concealed counts.
            kbs: int[S, T] each seat's knowledge base.
            melds_needed: int[S] melds still needed.
            discard_turn: bool[S] whether the seat must discard now (``deficiency_after_discard``).
            claim_tile: int[S] the discard this seat could claim, -1 for none.
            chow_ok: bool[S] whether this seat may chow it.
            memo: the kernel's seat memo (``kernel.new_memo()``) for the C backend, or None.
            excluded_suit: None, or int[S] each seat's suit out of every completion (0..2, -1 for none; a
                rule set's declared suit, :mod:`mjenv.deficiency.forms`): the features are those of the hand
                and KB without that suit (:func:`~mjenv.deficiency.forms.without_suit`), and on the discard
                turn discarding one of them leaves the deficiency and the effective count as they are.

        Returns:
            dict with ``deficiency`` int32[S], ``deficiency_after_discard`` int32[S, T],
            ``effective_tiles`` bool[S, T], ``effective_count`` int64[S], ``deficiency_after_claim``
            int32[S, 5], and for the seats on their discard turn ``effective_count_after_discard`` (the
            effective count of the hand minus t) and ``deficiency_after_kong`` (after a concealed kong
            of t when four are held, else after an added kong: the hand minus t), both int32[S, T]
            and -1 where t is not held or it is not the seat's discard turn (fresh arrays the caller
            may modify).
        """
        missing = None if excluded_suit is None else np.asarray(excluded_suit, dtype=np.int64)
        if missing is None or (missing < 0).all():
            return self._compute(hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok, memo)
        # the excluded suit out of the inputs, then its discards
        held = np.asarray(hands, dtype=np.int8)
        suit_of = np.arange(held.shape[1]) // 9  # honours give 3, 4: never a missing suit
        gone = suit_of[None, :] == missing[:, None]
        out = self._compute(without_suit(held, missing), without_suit(np.asarray(kbs, dtype=np.int8), missing),
                            melds_needed, discard_turn, claim_tile, chow_ok, memo)  # fmt: skip
        rows, tiles = np.nonzero(gone & (held > 0) & np.asarray(discard_turn, dtype=bool)[:, None])
        out["deficiency_after_discard"][rows, tiles] = out["deficiency"][rows]
        out["effective_count_after_discard"][rows, tiles] = out["effective_count"][rows]
        return out

    def _compute(self, hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok, memo) -> dict[str, np.ndarray]:
        """:meth:`compute` without a missing suit."""
        if self.backend == "c":
            return _kernel.features(hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok, memo=memo,
                                    seven_pairs=self._form, melds=self.melds)
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
        rows = self.cache.rows(keys)
        pool = self.cache.pool
        n_seat = len(keys) - len(claim_rows)
        seat_rows = np.zeros((s_n, 4), dtype=np.int64)  # T = 27: the honours part is pool row 0 (empty)
        seat_rows[:, :3] = rows[: 3 * s_n].reshape(s_n, 3)
        if not empty:
            seat_rows[:, 3] = rows[3 * s_n : n_seat]
        vecs = pool[seat_rows]  # (S, 4, NUM_VARIANTS, VEC)
        now, draw, disc, others = _dp.variant_rows(vecs, needed, t)
        closed = np.flatnonzero(needed == self.melds) if self._form else ()
        if len(closed):  # seven pairs also completes a seat with no declared meld
            sp = _seven_pairs.variants(hands[closed], kbs[closed], self._form, discard_draw=False)
            now, draw, disc = now.copy(), draw.copy(), disc.copy()
            now[closed] = np.minimum(now[closed], sp["now"])
            draw[closed] = np.minimum(draw[closed], sp["draw"])
            disc[closed] = np.minimum(disc[closed], sp["discard"])
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
                pool[rows[n_seat:], 0][:, None, None], others[seat, part][:, None], needed[seat] - 1
            )
            out["deficiency_after_claim"][seat, col] = res[:, 0, 0]
        forms = np.where(needed == self.melds, self._form, 0) if self._form else None
        out.update(self._discard_turn_rows(hands, kbs, needed, discard_turn, out["deficiency_after_discard"], forms))
        return out

    @staticmethod
    def _discard_turn_rows(hands, kbs, needed, discard_turn, after_discard, forms=None) -> dict[str, np.ndarray]:
        """``effective_count_after_discard`` and ``deficiency_after_kong`` (see :meth:`compute`)."""
        count = np.full(hands.shape, NOT_APPLICABLE, dtype=np.int32)
        kong = np.full(hands.shape, NOT_APPLICABLE, dtype=np.int32)
        turn = np.flatnonzero(discard_turn & (hands.sum(axis=1) > 0))
        if len(turn):
            h, k, m = hands[turn], kbs[turn], needed[turn]
            count[turn] = discard_rows(h, k, m, None if forms is None else forms[turn])[1]
            kong[turn] = after_discard[turn]  # an added kong leaves the hand minus t, as a discard does
            r4, t4 = np.nonzero((h >= 4) & (m[:, None] >= 1))  # a concealed kong: minus 4t, one meld less
            if len(r4):
                rest = h[r4].copy()
                rest[np.arange(len(r4)), t4] -= 4
                kong[turn[r4], t4] = np.minimum(_dp.deficiency_batch(rest, k[r4], m[r4] - 1), INCOMPLETABLE)
        return {"effective_count_after_discard": count, "deficiency_after_kong": kong}

    @staticmethod
    def _claim_offsets(d: int, chow_ok: bool) -> list[tuple[int, ...] | None]:
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
