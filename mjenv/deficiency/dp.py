"""``method="dp"``: exact, vectorized dynamic programme over tile positions (numpy only).

Not from the papers: our own exact method, used on hot paths (observation features, flat Monte
Carlo win checks) because it costs a fixed handful of numpy operations per tile position for a whole
batch, with no Python loop per hand.

Idea. A complete pattern W is m melds plus one pair. Walk the tile ids 0..T-1 in order. At tile t,
the pattern's count W[t] is made of chows that started at t-2 and t-1 (still open), chows starting
at t, at most one pong of t and at most one pair of t. The walk's state is

    (x, y, k, p) = (#chows started at t-2, #chows started at t-1, melds so far, pair used)

and the cost of tile t is max(0, W[t] - H[t]) when W[t] <= H[t] + KB[t] (infinite otherwise). The
answer is the cost of the state (0, 0, m, 1) after the last tile. Chows start only at ranks 1..7 of
a suit, so no chow crosses a suit boundary and honours (ids 27-33) form pongs and pairs only.

All transitions (state, next state, W[t]) are precomputed once per meld count and grouped by next
state, so one position is: a gather, an add, and ``np.minimum.reduceat`` over the batch.
"""

from __future__ import annotations

from functools import cache

import numpy as np

INCOMPLETABLE = 99
_INF = 1000
_CHUNK = 8192


@cache
def _transitions(max_melds: int, chow_ok: bool):
    """States and grouped transitions of the walk for up to ``max_melds`` melds.

    Returns:
        states: list of (x, y, k, p); src, w: int arrays of transition source state and W[t]; dst_starts:
        start offsets (for reduceat) of each destination state's group; dst_ids: destination of each group.
    """
    states = [
        (x, y, k, p)
        for k in range(max_melds + 1)
        for x in range(5)
        for y in range(5)
        for p in (0, 1)
        if x + y <= k
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


def deficiency_batch(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """Exact knowledge-aware deficiency of a validated batch.

    Args:
        hands: int8[B, T] tile counts (T = 27 or 34).
        kbs: int8[B, T] knowledge bases with hands + kbs <= 4.
        melds_needed: int64[B] melds still needed (m).

    Returns:
        int32[B]: deficiency, INCOMPLETABLE where no complete pattern fits the KB.
    """
    out = np.empty(len(hands), dtype=np.int32)
    for lo in range(0, len(hands), _CHUNK):
        hi = min(lo + _CHUNK, len(hands))
        out[lo:hi] = _run(hands[lo:hi], kbs[lo:hi], melds_needed[lo:hi])
    return out


def _run(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    b, n = hands.shape
    max_melds = int(melds_needed.max()) if b else 0
    h = hands.astype(np.int16)
    avail = h + kbs.astype(np.int16)
    wv = np.arange(5, dtype=np.int16)
    # cost[b, t, w] = max(0, w - H[t]) if w <= H[t] + KB[t] else INF
    cost = np.maximum(wv[None, None, :] - h[:, :, None], 0)
    cost = np.where(wv[None, None, :] <= avail[:, :, None], cost, _INF).astype(np.int16)
    states, index, *_ = _transitions(max_melds, True)
    value = np.full((b, len(states)), _INF, dtype=np.int16)
    value[:, index[(0, 0, 0, 0)]] = 0
    for t in range(n):
        chow_ok = t < 27 and t % 9 <= 6
        _, _, src, w, starts, dst_ids = _transitions(max_melds, chow_ok)
        cand = value[:, src] + cost[:, t, w]
        new = np.full_like(value, _INF)
        new[:, dst_ids] = np.minimum(np.minimum.reduceat(cand, starts, axis=1), _INF)
        value = new
    final = np.array([index[(0, 0, int(m), 1)] for m in range(max_melds + 1)])
    res = value[np.arange(b), final[melds_needed]]
    return np.where(res >= _INF, INCOMPLETABLE, res).astype(np.int32)
