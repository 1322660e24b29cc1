"""``method="dp"``: exact, vectorized deficiency from per-suit lookup tables (numpy; torch on a device).

Not from the papers: our own exact method, used on hot paths (observation features, flat Monte
Carlo win checks), with no Python loop per hand.

Idea. A complete pattern W is m melds plus one pair, and no chow crosses a suit, so W splits into
one part per suit (and the honours) and the cost ``sum max(0, W - H)`` splits with it. For each part
the tables of :mod:`mjenv.deficiency._dp_tables` give the minimum cost for every (melds k, pair p);
the deficiency is the min-plus combination of the parts' (k, p) vectors at (m, 1):

- KB = 4 - H (every tile has H + KB = 4; ordinary shanten + 1): one row of a 5**9-row table per suit
  (a 5**7-row table for the honours), three or four rows per hand.
- any KB: the 15 per-rank options (h, a = h + KB) make 15**9 suit configurations, too many for one
  table, so each suit is cut between ranks 5 and 6 into two parts (15**5 and 15**4 rows) that share
  a boundary state, the chows crossing the cut; one min-plus over (boundary, k, p) joins them.

The min-plus combinations run on uint8 arrays laid out (k * 2 + p, hand[, boundary]), so every
(k1, p1) x (k2, p2) pair is an add and a minimum of contiguous slabs covering the whole block of
hands (small batches gather all pairs at once instead, to make fewer numpy calls). The tables come
from a DP whose state allows at most two equal chows per start rank, which loses nothing: three
equal chows use the same tiles as three pongs (see :mod:`mjenv.deficiency._dp_tables`).
``plain_deficiency_batch`` is the forward DP over all tile positions that the tables replace; it is
kept as an independent check (tests compare the two on thousands of hands) and needs no tables.

The result is ``min over W of sum max(0, W - H)`` for any hand size (features pass 3m+3 tiles).
With ``device="cpu"`` or ``"cuda"`` the same tables and combinations run in torch
(:mod:`mjenv.deficiency._dp_torch`; torch is imported only then).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mjenv.deficiency import _dp_tables as _tables

INCOMPLETABLE = _tables.INCOMPLETABLE
combos = _tables.combos
_padded_combos = _tables.padded_combos
_digit_weights = _tables.digit_weights
_INF = _tables.INF
_KMAX = _tables.KMAX
#: Hands per block of the table path: keeps the gathered slabs (about 600 bytes per hand) in cache.
_BLOCK = 4096
_PLAIN_INF = 1000
_PLAIN_CHUNK = 8192


#: Up to this many (hand x boundary) columns one padded gather beats a Python loop over pairs.
_SMALL = 2048
#: Up to this many columns the shifted combination (fewer calls, bigger operands) beats pair by pair.
_MEDIUM = 40000
#: Below this many hands a batch mixing KB = 4 - H rows with others runs on the any-KB path only
#: (one pass costs less than two passes' fixed overhead).
_SPLIT_MIN = 512


def _min_boundary(x: np.ndarray) -> np.ndarray:
    """Minimum over the last (boundary) axis of uint8[t, n, 9].

    numpy reduces a short last axis one row at a time (slow); a byte transpose then a reduction over
    the leading axis is about ten times faster.
    """
    flat = np.ascontiguousarray(x.reshape(-1, x.shape[-1]).T)
    return flat.min(axis=0).reshape(x.shape[:-1])


def _minplus(a: np.ndarray, b: np.ndarray, kmax: int, final: bool = False) -> np.ndarray:
    """Min-plus combination of (k, p) vectors laid out (k * 2 + p, n[, boundary]), values uint8 <= INF.

    Args:
        a, b: uint8[rows, n] or uint8[rows, n, 9]; a shared boundary axis is minimised too.

    Returns:
        uint8[targets, n] (see :func:`combos`), clamped at INF.
    """
    if a[0].size <= _SMALL:
        # few hands: one gather of every pair, few numpy calls
        pl, pr = _padded_combos(kmax, final)
        cand = a[pl]
        cand += b[pr]  # both <= INF = 100: the uint8 sum does not wrap
        out = cand.min(axis=1)
        if out.ndim == 3:
            out = out.min(axis=2)  # few hands: the slow short-axis reduction costs little
    else:
        # more hands: contiguous slabs covering the whole block, fewest calls while they fit in cache
        combine = _minplus_shifted if a[0].size <= _MEDIUM else _minplus_pairs
        out = combine(a, b, kmax, final)
        if out.ndim == 3:
            out = _min_boundary(out)
    return np.minimum(out, _INF, out=out)


def _minplus_pairs(a: np.ndarray, b: np.ndarray, kmax: int, final: bool) -> np.ndarray:
    """The pairs of :func:`_minplus` one by one, in place: smallest working set (for large blocks).

    Returns:
        uint8[targets, ...] in :func:`combos` order, not yet clamped.
    """
    left, right, bounds = combos(kmax, final)
    out = np.empty((len(bounds) - 1, *a.shape[1:]), dtype=np.uint8)
    tmp = np.empty(a.shape[1:], dtype=np.uint8)
    for t in range(len(bounds) - 1):
        lo, hi = bounds[t], bounds[t + 1]
        acc = out[t]
        np.add(a[left[lo]], b[right[lo]], out=acc)  # both <= INF = 100: the uint8 sum does not wrap
        for i in range(lo + 1, hi):
            np.add(a[left[i]], b[right[i]], out=tmp)
            np.minimum(acc, tmp, out=acc)
    return out


def _minplus_shifted(a: np.ndarray, b: np.ndarray, kmax: int, final: bool) -> np.ndarray:
    """The pairs of :func:`_minplus` by shift: for each k1 and pair split (p1, p2), one add covers
    every target k >= k1 at once (``a[k1, p1] + b[0..kmax-k1, p2]``), so a combination is 2 to 3
    numpy calls per shift instead of 2 per pair, with no padding.

    Returns:
        uint8[targets, ...] in :func:`combos` order, not yet clamped.
    """
    n_k = kmax + 1
    a = a[: 2 * n_k].reshape(n_k, 2, *a.shape[1:])
    b = b[: 2 * n_k].reshape(n_k, 2, *b.shape[1:])
    rest = a.shape[2:]
    splits = ((0, 1), (1, 0)) if final else ((0, 0), (0, 1), (1, 0))
    out = np.empty((n_k, 1 if final else 2, *rest), dtype=np.uint8)
    tmp = np.empty((n_k, *rest), dtype=np.uint8)
    started = set()
    for k1 in range(n_k):
        width = n_k - k1
        for p1, p2 in splits:
            col = 0 if final else p1 + p2
            dst = out[k1:, col]
            if col not in started:  # the first split written to a column sets it (k1 = 0 covers every k)
                np.add(a[k1, p1], b[:width, p2], out=dst)
                started.add(col)
            else:
                np.add(a[k1, p1], b[:width, p2], out=tmp[:width])  # both <= INF: no uint8 wrap
                np.minimum(dst, tmp[:width], out=dst)
    return out.reshape(-1, *rest)


def _finish(parts: list[np.ndarray], melds_needed: np.ndarray, kmax: int) -> np.ndarray:
    """Combine per-part (k, p) vectors uint8[12, n] into the deficiency at (m, 1) of each hand."""
    acc = parts[0]
    for part in parts[1:-1]:
        acc = _minplus(acc, part, kmax)
    last = _minplus(acc, parts[-1], kmax, final=True)  # rows k = 0..kmax, pair used
    res = last[melds_needed, np.arange(last.shape[1])]
    return np.where(res >= _INF, INCOMPLETABLE, res).astype(np.int32)


# ----------------------------------------------------------------------------- table lookups
def _table_rows(x: np.ndarray, full: bool) -> np.ndarray:
    """int64[B, parts] table rows of per-tile codes x (h for KB = 4 - H, the (h, a) option otherwise)."""
    return (x.astype(np.float64) @ _digit_weights(x.shape[1], full)).astype(np.int64)


_TABLE_BUILDERS = {
    "suit": lambda: _tables.full_suit_table(),
    "honour": lambda: _tables.full_honour_table(),
    "left": lambda: _tables.half_tables()[0],
    "right": lambda: _tables.half_tables()[1],
    "h4": lambda: _tables.honour_tables()[0],
    "h3": lambda: _tables.honour_tables()[1],
}


@cache
def _record_table(name: str) -> np.ndarray:
    """One table viewed as one opaque record per row (e.g. ``V108`` for 12 x 9 bytes), built on first use.

    ``np.take`` of whole records is one copy per row, about three times faster on cold rows than
    fancy-indexing bytes or 9-byte sub-records.
    """
    t = _TABLE_BUILDERS[name]()
    return t.reshape(len(t), -1).view(f"V{t[0].size}").reshape(len(t))


def _gather(name: str, rows: np.ndarray, kmax: int) -> np.ndarray:
    """The table records of ``rows`` laid out (k * 2 + p, hand[, boundary]), k = 0..kmax only.

    Returns:
        uint8[2 * (kmax + 1), n] or uint8[2 * (kmax + 1), n, 9].

    The transpose moves 9-byte boundary records (or bytes) as units: three times faster than a
    byte-wise transpose of the (hand, k * 2 + p, boundary) block.
    """
    got = np.take(_record_table(name), rows)
    inner = got.dtype.itemsize // 12
    keep = 2 * (kmax + 1)
    if inner == 1:
        return np.ascontiguousarray(got.view(np.uint8).reshape(len(rows), 12)[:, :keep].T)
    recs = got.view(f"V{inner}").reshape(len(rows), 12)[:, :keep]
    return np.ascontiguousarray(recs.T).view(np.uint8).reshape(keep, len(rows), inner)


def _full_kb_rows(hands: np.ndarray, melds_needed: np.ndarray, kmax: int) -> np.ndarray:
    """KB = 4 - H: one table row per suit (and honours)."""
    n, num_t = hands.shape
    rows = _table_rows(hands, True)
    suits = _gather("suit", rows[:, :3].T.ravel(), kmax).reshape(-1, 3, n)  # (k * 2 + p, suit, hand)
    parts = [suits[:, 0], suits[:, 1], suits[:, 2]]
    if num_t == 34:
        parts.append(_gather("honour", rows[:, 3], kmax))
    return _finish(parts, melds_needed, kmax)


def _any_kb_rows(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray, kmax: int) -> np.ndarray:
    """Any KB: per suit, two half tables joined over the chows that cross the cut."""
    n, num_t = hands.shape
    h = hands.astype(np.int16)
    a = h + kbs
    rows = _table_rows((a * (a + 1)) // 2 + h, False)  # per-tile option code of (h, a), 0..14
    # the three suits go through one combination together (suit-major hands)
    left = _gather("left", rows[:, :3].T.ravel(), kmax)
    right = _gather("right", rows[:, 3:6].T.ravel(), kmax)
    suits = _minplus(left, right, kmax).reshape(-1, 3, n)
    parts = [suits[:, 0], suits[:, 1], suits[:, 2]]
    if num_t == 34:
        parts.append(_minplus(_gather("h4", rows[:, 6], kmax), _gather("h3", rows[:, 7], kmax), kmax))
    return _finish(parts, melds_needed, kmax)


def deficiency_batch(
    hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray, device: str | None = None
) -> np.ndarray:
    """Exact knowledge-aware deficiency of a validated batch.

    Args:
        hands: int8[B, T] tile counts (T = 27 or 34), any hand size.
        kbs: int8[B, T] knowledge bases with hands + kbs <= 4.
        melds_needed: int64[B] melds still needed (m), 0..5.
        device: None for numpy; ``"cpu"``, ``"cuda"`` or ``"cuda:N"`` to run in torch on that device.

    Returns:
        int32[B]: deficiency, INCOMPLETABLE where no complete pattern fits the KB.

    Raises:
        ValueError: an unknown device, or a device asked for without torch installed.
    """
    if device is not None:
        from mjenv.deficiency import _dp_torch

        return _dp_torch.deficiency_batch(hands, kbs, melds_needed, device)
    hands = np.asarray(hands, dtype=np.int8)
    kbs = np.asarray(kbs, dtype=np.int8)
    melds_needed = np.asarray(melds_needed, dtype=np.int64)
    out = np.empty(len(hands), dtype=np.int32)
    for lo in range(0, len(hands), _BLOCK):
        hi = min(lo + _BLOCK, len(hands))
        out[lo:hi] = _block(hands[lo:hi], kbs[lo:hi], melds_needed[lo:hi])
    return out


def _block(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    kmax = int(melds_needed.max())
    full = (hands + kbs == 4).all(axis=1)
    if full.all():
        return _full_kb_rows(hands, melds_needed, kmax)
    if not full.any() or len(hands) < _SPLIT_MIN:
        return _any_kb_rows(hands, kbs, melds_needed, kmax)
    out = np.empty(len(hands), dtype=np.int32)
    out[full] = _full_kb_rows(hands[full], melds_needed[full], kmax)
    rest = ~full
    out[rest] = _any_kb_rows(hands[rest], kbs[rest], melds_needed[rest], kmax)
    return out


# ----------------------------------------------------------------------------- plain forward DP
@cache
def _transitions(max_melds: int, chow_ok: bool):
    """States and grouped transitions of the plain walk for up to ``max_melds`` melds.

    Returns:
        states: list of (x, y, k, p); index: state -> position; src, w: int arrays of transition
        source state and W[t]; starts: start offsets (for reduceat) of each destination state's
        group; dst: destination of each group.
    """
    states = [
        (x, y, k, p) for k in range(max_melds + 1) for x in range(5) for y in range(5) for p in (0, 1) if x + y <= k
    ]
    index = {s: i for i, s in enumerate(states)}
    trans = []
    for (x, y, k, p), i in index.items():
        for c0 in range(5 if chow_ok else 1):
            for g in (0, 1):
                for q in (0, 1) if p == 0 else (0,):
                    w = x + y + c0 + 3 * g + 2 * q
                    k2 = k + c0 + g
                    if w > 4 or k2 > max_melds:
                        continue
                    trans.append((index[(y, c0, k2, p + q)], i, w))
    trans.sort()
    dst = np.array([t[0] for t in trans])
    src = np.array([t[1] for t in trans])
    w = np.array([t[2] for t in trans])
    starts = np.flatnonzero(np.r_[True, dst[1:] != dst[:-1]])
    return states, index, src, w, starts, dst[starts]


def plain_deficiency_batch(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """The forward DP over tile positions without tables (same contract as :func:`deficiency_batch`).

    State at tile t: (chows started at t-2, at t-1, melds so far, pair used), any number of equal
    chows; the cost of tile t is max(0, W[t] - H[t]) when W[t] <= H[t] + KB[t]. Slower (about 35k
    hands/s) but independent of the tables and of the two-equal-chows argument, so tests use it.
    """
    out = np.empty(len(hands), dtype=np.int32)
    for lo in range(0, len(hands), _PLAIN_CHUNK):
        hi = min(lo + _PLAIN_CHUNK, len(hands))
        out[lo:hi] = _plain_run(hands[lo:hi], kbs[lo:hi], melds_needed[lo:hi])
    return out


def _plain_run(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    b, n = hands.shape
    max_melds = int(melds_needed.max()) if b else 0
    h = hands.astype(np.int16)
    avail = h + kbs.astype(np.int16)
    wv = np.arange(5, dtype=np.int16)
    # cost[b, t, w] = max(0, w - H[t]) if w <= H[t] + KB[t] else INF
    cost = np.maximum(wv[None, None, :] - h[:, :, None], 0)
    cost = np.where(wv[None, None, :] <= avail[:, :, None], cost, _PLAIN_INF).astype(np.int16)
    states, index, *_ = _transitions(max_melds, True)
    value = np.full((b, len(states)), _PLAIN_INF, dtype=np.int16)
    value[:, index[(0, 0, 0, 0)]] = 0
    for t in range(n):
        chow_ok = t < 27 and t % 9 <= 6
        _, _, src, w, starts, dst_ids = _transitions(max_melds, chow_ok)
        cand = value[:, src] + cost[:, t, w]
        new = np.full_like(value, _PLAIN_INF)
        new[:, dst_ids] = np.minimum(np.minimum.reduceat(cand, starts, axis=1), _PLAIN_INF)
        value = new
    final = np.array([index[(0, 0, int(m), 1)] for m in range(max_melds + 1)])
    res = value[np.arange(b), final[melds_needed]]
    return np.where(res >= _PLAIN_INF, INCOMPLETABLE, res).astype(np.int32)



# ----------------------------------------------------------------------------- one-tile variants
# The feature rows "draw t" (H + t, KB - t) and "discard t" (H - t, KB unchanged) differ from the
# base hand in ONE tile, so in one part (a suit or the honours). Each part's (k, p) vector is looked
# up once for the base configuration and once per modified configuration of that part only (one
# half-suit gather each: the other half is the base's); each row then combines its modified part
# with the min-plus of the OTHER parts, which is computed once per hand. A suit's vectors depend on
# that suit alone, so a caller may cache them per suit configuration (the observation engine does).

#: Variants of one part, in this order: 0 = base, 1 + r = draw the part's r-th tile, ``DISCARD0``
#: + r = discard it (r < 9; honours use r < 7 and leave the rest INF).
NUM_VARIANTS = 19
DISCARD0 = 10
#: Parts of a hand for the variant functions: three suits, then the honours (an empty part for T = 27).
NUM_PARTS = 4
#: Entries of a (k, p) vector (k = 0..KMAX, p = 0..1), laid out ``k * 2 + p``.
VEC = 2 * (_KMAX + 1)

_OPT = np.array(_tables.option_pairs(False), dtype=np.int64)  # option code -> (h, a)


@cache
def _variant_plan(part: str) -> tuple:
    """How the NUM_VARIANTS variants of a part configuration are looked up (precomputed once).

    Args:
        part: ``"suit"`` (tables ``left`` = ranks 1-5, ``right`` = ranks 6-9, joined over the
            boundary) or ``"honour"`` (``h4`` = honours 1-4, ``h3`` = 5-7).

    Returns:
        (tables, base_w, var_w, var_rank, var_kind, delta, valid): the two table names; int64[R, 2]
        each rank's weight in the two half rows; int64[2, V] the weight of each variant's rank in each
        half row; int64[V] that rank (0 for the base and padding); int64[V] kind (0 draw, 1 discard,
        2 base, 3 padding); int64[4, 15] the row change of each kind per option code (a draw moves
        (h, a) to (h + 1, a): +1; a discard to (h - 1, a - 1): -(a + 1)); bool[4, 15] whether the
        variant exists (a draw needs KB > 0, a discard h > 0).
    """
    if part == "suit":
        tables, n_ranks, cut = ("left", "right"), 9, 5
        w = [15 ** (4 - r) for r in range(5)] + [15 ** (r - 5) for r in range(5, 9)]
    else:
        tables, n_ranks, cut = ("h4", "h3"), 7, 4
        w = [15 ** (3 - r) for r in range(4)] + [15 ** (6 - r) for r in range(4, 7)]
    base_w = np.zeros((n_ranks, 2), dtype=np.int64)
    for r in range(n_ranks):
        base_w[r, int(r >= cut)] = w[r]
    var_rank = np.zeros(NUM_VARIANTS, dtype=np.int64)
    var_kind = np.full(NUM_VARIANTS, 3, dtype=np.int64)
    var_kind[0] = 2
    for off, kind in ((1, 0), (DISCARD0, 1)):
        var_rank[off : off + n_ranks] = np.arange(n_ranks)
        var_kind[off : off + n_ranks] = kind
    var_w = base_w[var_rank].T * (var_kind < 2)
    h, a = _OPT[:, 0], _OPT[:, 1]
    zero = np.zeros(len(_OPT), dtype=np.int64)
    delta = np.stack([(a > h).astype(np.int64), np.where(h > 0, -(a + 1), 0), zero, zero])
    valid = np.stack([a > h, h > 0, np.ones(len(_OPT), bool), np.zeros(len(_OPT), bool)])
    return tables, base_w, var_w, var_rank, var_kind, delta, valid


def _variant_vectors(codes: np.ndarray, part: str) -> np.ndarray:
    """uint8[N, NUM_VARIANTS, VEC] variant vectors of N configurations of one part kind.

    Few numpy calls whatever N (the observation engine calls it with a handful of configurations per
    step): every variant's two half rows are computed at once, gathered as whole records, and joined
    by one min-plus (over the boundary too for suits).
    """
    tables, base_w, var_w, var_rank, var_kind, delta, valid = _variant_plan(part)
    n = len(codes)
    at = codes[:, var_rank]  # (N, V) code of each variant's rank
    rows = (codes @ base_w)[:, :, None] + delta[var_kind, at][:, None, :] * var_w  # (N, 2, V)
    # (k * 2 + p, configuration x variant[, boundary]): contiguous slabs for the padded min-plus
    first = _gather(tables[0], rows[:, 0].ravel(), _KMAX)
    second = _gather(tables[1], rows[:, 1].ravel(), _KMAX)
    out = np.ascontiguousarray(_minplus(first, second, _KMAX).T)  # clamped at INF
    out[~valid[var_kind, at].ravel()] = _INF
    return out.reshape(n, NUM_VARIANTS, VEC)


def suit_variant_vectors(codes: np.ndarray) -> np.ndarray:
    """(k, p) vectors of suit configurations and of each one-tile variant (any KB, k up to KMAX).

    Args:
        codes: int[N, 9] per-rank option code ``a * (a + 1) // 2 + h`` (h in hand, a = h + KB).

    Returns:
        uint8[N, NUM_VARIANTS, VEC]: the minimum cost for every (melds k, pair p) of the suit as it
        is (variant 0), after drawing rank r (1 + r) and after discarding rank r (DISCARD0 + r);
        INF (100) everywhere for a draw with KB = 0 or a discard with h = 0.
    """
    return _chunked(codes, "suit")


def honour_variant_vectors(codes: np.ndarray) -> np.ndarray:
    """:func:`suit_variant_vectors` for the seven honours (int[N, 7] codes; variants 8, 9, 17, 18 INF)."""
    return _chunked(codes, "honour")


def _chunked(codes: np.ndarray, part: str) -> np.ndarray:
    codes = np.asarray(codes, dtype=np.int64)
    out = np.empty((len(codes), NUM_VARIANTS, VEC), dtype=np.uint8)
    step = 256  # keeps the padded min-plus operand (about 12 KB per configuration) in cache
    for lo in range(0, len(codes), step):
        out[lo : lo + step] = _variant_vectors(codes[lo : lo + step], part)
    return out


#: The (k, p) vector of an empty part (no honours under T = 27): cost 0 for (0, 0), INF otherwise.
EMPTY_PART = np.full(VEC, _INF, dtype=np.uint8)
EMPTY_PART[0] = 0
#: The variant vectors of an empty part: the empty part itself, no draw or discard applies.
EMPTY_VARIANTS = np.full((NUM_VARIANTS, VEC), _INF, dtype=np.uint8)
EMPTY_VARIANTS[0] = EMPTY_PART


def _mp_last(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Min-plus over (k, p) of uint8[..., VEC] vectors (last axis), clamped at INF."""
    pl, pr = _padded_combos(_KMAX, False)
    c = x[..., pl]
    c += y[..., pr]  # both <= INF: no uint8 wrap
    out = c.min(axis=-1)
    return np.minimum(out, _INF, out=out)


def other_parts(base: np.ndarray) -> np.ndarray:
    """uint8[B, NUM_PARTS, VEC]: for each part, the min-plus of the hand's other three parts.

    Args:
        base: uint8[B, NUM_PARTS, VEC] each part's (k, p) vector as it is.
    """
    pairs = _mp_last(base[:, 0::2], base[:, 1::2])  # parts 0+1, parts 2+3 (strided views, no copies)
    swapped = base.reshape(len(base), 2, 2, VEC)[:, :, ::-1].reshape(len(base), 4, VEC)  # parts 1, 0, 3, 2
    return _mp_last(swapped, np.repeat(pairs[:, ::-1], 2, axis=1))  # with parts 2+3, 2+3, 0+1, 0+1


def combine_with_others(vecs: np.ndarray, others: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """Deficiency at (m, 1) of part vectors joined with the rest of their hands.

    Args:
        vecs: uint8[B, P, V, VEC] vectors of (modified) parts.
        others: uint8[B, P, VEC] the min-plus of every other part of the same hand.
        melds_needed: int64[B] the target m of each hand.

    Returns:
        int32[B, P, V], INCOMPLETABLE where no pattern fits.
    """
    tl, tr = _target_pairs(_KMAX)
    m = np.asarray(melds_needed, dtype=np.int64)
    if len(m) and (m == m[0]).all():  # the common case: plain indexing of the last axis
        c = vecs[..., tl[m[0]]]
        c += others[..., None, tr[m[0]]]  # both <= INF: no uint8 wrap
        res = c.min(axis=-1)
    elif len(m) <= 16:  # every target m at once, then each hand's own: fewest numpy calls
        c = vecs[..., tl]  # (B, P, V, targets, pairs)
        c += others[:, :, None, tr]
        res = c.min(axis=-1)[np.arange(len(m)), ..., m]
    else:  # many hands: one plain pass per distinct m (6 times less data than every target)
        res = np.empty(vecs.shape[:3], dtype=np.uint8)
        for mv in np.unique(m).tolist():
            idx = np.flatnonzero(m == mv)
            c = vecs[idx][..., tl[mv]]
            c += others[idx][..., None, tr[mv]]
            res[idx] = c.min(axis=-1)
    return np.where(res >= _INF, INCOMPLETABLE, res).astype(np.int32)


@cache
def _target_pairs(kmax: int) -> tuple[np.ndarray, np.ndarray]:
    """int64[kmax + 1, 2 * (kmax + 1)] rows ``k * 2 + p`` of the two operands for the target (m, 1).

    Row m lists the pairs (k1, p1) x (m - k1, 1 - p1); short rows repeat their first pair.
    """
    n = 2 * (kmax + 1)
    left = np.zeros((kmax + 1, n), dtype=np.int64)
    right = np.zeros((kmax + 1, n), dtype=np.int64)
    for m in range(kmax + 1):
        pairs = [(2 * k1 + p1, 2 * (m - k1) + 1 - p1) for k1 in range(m + 1) for p1 in (0, 1)]
        pairs += [pairs[0]] * (n - len(pairs))
        left[m], right[m] = zip(*pairs)
    return left, right


def option_codes(hands: np.ndarray, kbs: np.ndarray) -> np.ndarray:
    """int64[B, T] per-tile option code ``a * (a + 1) // 2 + h`` (a = h + KB), 0..14."""
    h = np.asarray(hands, dtype=np.int64)
    a = h + np.asarray(kbs, dtype=np.int64)
    return (a * (a + 1)) // 2 + h


def hand_variant_vectors(codes: np.ndarray) -> np.ndarray:
    """uint8[B, NUM_PARTS, NUM_VARIANTS, VEC]: every part's variant vectors (:func:`suit_variant_vectors`).

    Args:
        codes: int64[B, T] from :func:`option_codes` (T = 27 or 34).
    """
    n_b, n_t = codes.shape
    out = np.empty((n_b, NUM_PARTS, NUM_VARIANTS, VEC), dtype=np.uint8)
    out[:, :3] = suit_variant_vectors(codes[:, :27].reshape(-1, 9)).reshape(n_b, 3, NUM_VARIANTS, VEC)
    if n_t == 34:
        out[:, 3] = honour_variant_vectors(codes[:, 27:])
    else:
        out[:, 3] = EMPTY_VARIANTS
    return out


@cache
def variant_columns(num_tile_types: int) -> tuple[np.ndarray, np.ndarray]:
    """int64[T] flat index ``part * NUM_VARIANTS + variant`` of each tile's draw and discard variant."""
    t = np.arange(num_tile_types)
    flat = np.minimum(t // 9, 3) * NUM_VARIANTS + np.where(t < 27, t % 9, t - 27)
    return flat + 1, flat + DISCARD0


def variant_rows(vecs: np.ndarray, melds_needed: np.ndarray, num_tile_types: int):
    """Deficiency now, after each draw and after each discard from precomputed variant vectors.

    Args:
        vecs: uint8[B, NUM_PARTS, NUM_VARIANTS, VEC] (:func:`hand_variant_vectors`, or cached parts).
        melds_needed: int64[B].
        num_tile_types: T.

    Returns:
        (now int32[B], after_draw int32[B, T], after_discard int32[B, T], others uint8[B, 4, VEC]);
        a draw with KB = 0 or a discard with h = 0 reads INCOMPLETABLE here (callers mask them).
    """
    others = other_parts(vecs[:, :, 0])
    res = combine_with_others(vecs, others, melds_needed).reshape(len(vecs), -1)
    draw_col, disc_col = variant_columns(num_tile_types)
    return res[:, 0], res[:, draw_col], res[:, disc_col], others


def deficiency_one_tile_rows(
    hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact deficiency of each hand and of all its one-tile modifications.

    Equal row by row to :func:`deficiency_batch` of the modified hands: per hand every part is
    looked up once as it is and once per modified configuration of that part only (one half-suit
    gather each), and the other parts are combined once.

    Args:
        hands: int8[B, T] tile counts (T = 27 or 34), any hand size.
        kbs: int8[B, T] knowledge bases with hands + kbs <= 4.
        melds_needed: int64[B] melds still needed (m), 0..5; the modified hands keep m.

    Returns:
        (now int32[B], after_draw int32[B, T], after_discard int32[B, T]): after_draw[b, t] is the
        deficiency of (hand + t, KB - t) where KB[t] > 0, after_discard[b, t] that of (hand - t, KB)
        where hand[t] > 0 (the discarded copy does not return to the KB); -1 where a row does not
        apply.
    """
    hands = np.asarray(hands, dtype=np.int8)
    kbs = np.asarray(kbs, dtype=np.int8)
    needed = np.asarray(melds_needed, dtype=np.int64)
    n_b, n_t = hands.shape
    now = np.empty(n_b, dtype=np.int32)
    draw = np.empty((n_b, n_t), dtype=np.int32)
    disc = np.empty((n_b, n_t), dtype=np.int32)
    step = 512
    for lo in range(0, n_b, step):
        sl = slice(lo, min(lo + step, n_b))
        vecs = hand_variant_vectors(option_codes(hands[sl], kbs[sl]))
        now[sl], draw[sl], disc[sl], _ = variant_rows(vecs, needed[sl], n_t)
    draw[kbs <= 0] = -1
    disc[hands <= 0] = -1
    return now, draw, disc


def deficiency_after_each_draw(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """int32[B, T]: deficiency of (hand + t, KB - t) for every t with KB[t] > 0, -1 elsewhere.

    Args as :func:`deficiency_one_tile_rows`; m stays ``melds_needed`` (a 3m+1-tile hand becomes
    3m+2 tiles, a 3m+2-tile hand 3m+3 tiles: "draw t, then the best discard").
    """
    return deficiency_one_tile_rows(hands, kbs, melds_needed)[1]


def deficiency_after_each_discard(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """int32[B, T]: deficiency of (hand - t, KB) for every t with hand[t] > 0, -1 elsewhere.

    The discarded copy does not return to the KB. Args as :func:`deficiency_one_tile_rows`.
    """
    return deficiency_one_tile_rows(hands, kbs, melds_needed)[2]
