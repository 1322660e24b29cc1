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

INCOMPLETABLE = 99
_INF = _tables.INF
_KMAX = _tables.KMAX
#: Hands per block of the table path: keeps the gathered slabs (about 600 bytes per hand) in cache.
_BLOCK = 4096
_PLAIN_INF = 1000
_PLAIN_CHUNK = 8192


# ----------------------------------------------------------------------------- min-plus combinations
@cache
def combos(kmax: int, final: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Index pairs of the min-plus combination of two (k, p) vectors, grouped by target.

    Args:
        kmax: largest meld count needed.
        final: only the targets (k, 1) (a whole hand has exactly one pair); else (k, p) for p in 0, 1.

    Returns:
        (left, right, bounds): int64 rows ``k * 2 + p`` of each operand for every pair with
        k1 + k2 = k, p1 + p2 = p, ordered by target (targets ``k * 2 + p``, k = 0..kmax, or k with
        ``final``); ``bounds[i]:bounds[i + 1]`` are the pairs of target i.
    """
    left, right, bounds = [], [], [0]
    for k in range(kmax + 1):
        for p in (1,) if final else (0, 1):
            for k1 in range(k + 1):
                for p1 in range(p + 1):
                    left.append(2 * k1 + p1)
                    right.append(2 * (k - k1) + (p - p1))
            bounds.append(len(left))
    return np.array(left), np.array(right), np.array(bounds)


@cache
def _padded_combos(kmax: int, final: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`combos` as int64[targets, longest group]; short groups repeat their first pair (same min)."""
    left, right, bounds = combos(kmax, final)
    width = int(np.diff(bounds).max())
    col = np.arange(width)
    pick = np.where(col < np.diff(bounds)[:, None], bounds[:-1, None] + col, bounds[:-1, None])
    return left[pick], right[pick]


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
@cache
def _digit_weights(num_tile_types: int, full: bool) -> np.ndarray:
    """float64[T, parts]: weights turning per-tile option codes into table rows by one matmul.

    Columns: KB = 4 - H: each suit (5**(8-r)), then honours (5**(6-j)). Any KB: each suit's left
    part (15**(4-r), ranks 1-5) and right part (15**(3-j), ranks 9..6), then honours 1-4 and 5-7.
    Float64 sums of these integers are exact, and a BLAS matmul is much faster than numpy's integer one.
    """
    if full:
        cols = [[(9 * s + r, 5 ** (8 - r)) for r in range(9)] for s in range(3)]
        cols += [[(27 + j, 5 ** (6 - j)) for j in range(7)]] if num_tile_types == 34 else []
    else:
        cols = [[(9 * s + r, 15 ** (4 - r)) for r in range(5)] for s in range(3)]
        cols += [[(9 * s + 8 - j, 15 ** (3 - j)) for j in range(4)] for s in range(3)]
        if num_tile_types == 34:
            cols += [[(27 + j, 15 ** (3 - j)) for j in range(4)], [(31 + j, 15 ** (2 - j)) for j in range(3)]]
    w = np.zeros((num_tile_types, len(cols)), dtype=np.float64)
    for c, col in enumerate(cols):
        for t, v in col:
            w[t, c] = v
    return w


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
