"""Lookup tables of the ``dp`` backend: per-suit min costs for every suit configuration.

Not from the papers: our own exact method. A complete pattern W splits into one part per suit (and
one for the honours); chows never cross a suit, so the deficiency is a min-plus combination over
(melds k, pair p) of per-suit minimum costs. These tables give, for every configuration of a suit
(or of part of one), the minimum of ``sum max(0, W - H)`` over suit patterns W with ``W <= A``
(A = H + KB), for every k in 0..5 and p in 0..1.

All tables come from one builder, :func:`prefix_table`: a forward DP over the positions of a suit
that runs on every configuration at once (the configurations of a prefix of r positions are the rows;
moving to r + 1 multiplies the rows by the number of per-position options). Its state is

    (x, y, k, p) = (#chows started two positions back, #chows started one back, melds, pair used)

with x, y in 0..2: three equal chows use the same tiles as three pongs (123 123 123 = 111 222 333),
so some optimal W never starts more than two equal chows, which keeps the state small. One step
is split in three so that nothing is enumerated twice: start c0 chows, add a pong or a pair of this
position, then (per option) add the position's cost, which depends only on the tiles used here.

Tables (values uint8, ``INF`` where no pattern fits):

- ``full_suit_table()``: 5**9 rows (h per rank, A = 4 everywhere) x (k, p). KB = 4 - H fast path.
- ``full_honour_table()``: 5**7 rows x (k, p), honours with A = 4.
- ``half_tables()``: any KB. Option per rank ``(h, a)`` with 0 <= h <= a <= 4 (15 options). A suit is
  split between ranks 5 and 6 (1-based) into a left part (ranks 1-5, 15**5 rows) and a right part
  (ranks 6-9, 15**4 rows); chows starting at ranks 4 and 5 cross the cut, so both parts are indexed
  by that boundary (c4, c5) in 0..2 x 0..2. The left part counts the crossing chows as its melds.
- ``honour_tables()``: any KB, honours 1-4 (15**4 rows) and 5-7 (15**3 rows).

Tables are made on first use and kept in memory. They are a pure function of this module, so they
are also kept on disk, once per install, by :mod:`mjenv.deficiency._table_cache` (keyed by a hash of
this file's source): a fresh process maps them in a few milliseconds instead of building them for
about a CPU-second. ``MJENV_CACHE_DIR`` relocates that cache, ``MJENV_CACHE_DIR=0`` turns it off.

Shared with the torch path (``_dp_torch``) as well: the min-plus pair indices (:func:`combos`,
:func:`padded_combos`) and the table-row weights (:func:`digit_weights`), so that neither ``dp`` nor
``_dp_torch`` imports the other.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from mjenv.deficiency import _table_cache

#: Cost of an impossible pattern. uint8; two INF add to 200 < 256, callers clamp after each addition.
INF = 100
#: Deficiency of a hand that cannot be completed under its knowledge base.
INCOMPLETABLE = 99
#: Most melds a suit part can hold in the tables (5 for 16-tile rule sets).
KMAX = 5
#: Most equal chows started at one position (see module docstring).
_CMAX = 2


def option_pairs(full: bool) -> list[tuple[int, int]]:
    """Per-position options (h, a): h tiles in hand, a = h + KB copies available.

    Args:
        full: True for KB = 4 - H (a = 4 always, 5 options); False for any KB (15 options).

    Returns:
        Options in code order: option ``a * (a + 1) // 2 + h`` for any KB, ``h`` for full.
    """
    if full:
        return [(h, 4) for h in range(5)]
    return [(h, a) for a in range(5) for h in range(a + 1)]


def prefix_table(
    options: list[tuple[int, int]], n: int, chow_positions: tuple[int, ...], closed: bool = False
) -> np.ndarray:
    """Forward DP over ``n`` positions for every configuration of options at once.

    Args:
        options: the (h, a) option of a position, indexed by its option code.
        n: number of positions.
        chow_positions: positions where a chow may start (its later tiles may lie past ``n``).
        closed: keep only x = y = 0 after the last position (saves memory for whole suits).

    Returns:
        uint8[O**n, 3, 3, KMAX + 1, 2]: for the configuration with codes (o_0 .. o_{n-1}) at row
        ``sum o_j * O**(n-1-j)``, the min cost of each state (x, y, k, p) after the n positions
        (x, y: chows started at positions n-2, n-1; k counts them). With ``closed`` the x and y axes
        have length 1.
    """
    n_opt = len(options)
    value = np.full((1, 3, 3, KMAX + 1, 2), INF, dtype=np.uint8)
    value[0, 0, 0, 0, 0] = 0
    # cost[o, y, u]: y chows started one back plus u other tiles (x + c0 + 3g + 2q) used here
    tot = np.arange(3)[:, None] + np.arange(5)[None, :]
    costs = np.stack([np.where(tot <= a, np.maximum(tot - h, 0), INF) for h, a in options]).astype(np.uint8)
    for pos in range(n):
        cmax = _CMAX if pos in chow_positions else 0
        rows = value.shape[0]
        # stage 1: start c0 chows; u = x + c0 tiles of this position besides the y open chows
        staged = np.full((5, rows, 3, cmax + 1, KMAX + 1, 2), INF, dtype=np.uint8)
        for c0 in range(cmax + 1):
            for x in range(3):
                np.minimum(
                    staged[x + c0, :, :, c0, c0:],
                    value[:, x, :, : KMAX + 1 - c0],
                    out=staged[x + c0, :, :, c0, c0:],
                )
        # stage 2: a pong (3 tiles, one meld) or the pair (2 tiles); both at once would need 5
        for u in range(4, 1, -1):
            if u >= 3:
                np.minimum(staged[u, :, :, :, 1:], staged[u - 3, :, :, :, :-1], out=staged[u, :, :, :, 1:])
            np.minimum(staged[u, ..., 1], staged[u - 2, ..., 0], out=staged[u, ..., 1])
        # stage 3: per option, add the position's cost and forget u; state (x, y) <- (y, c0)
        ny = 1 if closed and pos == n - 1 else 3
        if ny == 1:
            staged = staged[:, :, :1, :1]
        new = np.full((rows, n_opt, ny, ny, KMAX + 1, 2), INF, dtype=np.uint8)
        for o in range(n_opt):
            acc = new[:, o, :, : staged.shape[3]]
            for u in range(5):
                # staged, cost <= INF, so the uint8 sum <= 200 does not wrap; acc stays <= INF
                c = costs[o, :ny, u][None, :, None, None, None]
                np.minimum(acc, staged[u] + c, out=acc)
        value = new.reshape(rows * n_opt, ny, ny, KMAX + 1, 2)
    return value


def _build_full_suit_table() -> np.ndarray:
    """uint8[5**9, KMAX + 1, 2]: one suit with A = 4, row ``sum h_r * 5**(8-r)``."""
    t = prefix_table(option_pairs(True), 9, tuple(range(7)), closed=True)
    return np.ascontiguousarray(t[:, 0, 0])


def _build_full_honour_table() -> np.ndarray:
    """uint8[5**7, KMAX + 1, 2]: the seven honours with A = 4, row ``sum h_j * 5**(6-j)``."""
    t = prefix_table(option_pairs(True), 7, (), closed=True)
    return np.ascontiguousarray(t[:, 0, 0])


def _build_half_tables() -> tuple[np.ndarray, np.ndarray]:
    """Left and right parts of a suit for any KB.

    Returns:
        (left, right): uint8[15**5, KMAX + 1, 2, 9] and uint8[15**4, KMAX + 1, 2, 9], last axis the
        boundary ``3 * c4 + c5`` (chows starting at ranks 4 and 5, 1-based). Left rows are
        ``sum o_r * 15**(4-r)`` over ranks 1-5; right rows ``sum o_r * 15**(3-j)`` over ranks 9, 8,
        7, 6 (j = 0..3, the right part is walked backwards). Left counts the crossing chows in k.
    """
    opts = option_pairs(False)
    left = prefix_table(opts, 5, tuple(range(5)))  # x = c4, y = c5 (1-based ranks)
    left = np.ascontiguousarray(left.reshape(len(left), 9, KMAX + 1, 2).transpose(0, 2, 3, 1))
    # Walking ranks 9..6 backwards, a chow over ranks r..r+2 "starts" at its highest rank; the
    # crossing ones are c5 (ranks 5-7, starts at backward position 2) and c4 (at position 3).
    raw = prefix_table(opts, 4, tuple(range(4)))
    right = np.full((len(raw), KMAX + 1, 2, 3, 3), INF, dtype=np.uint8)
    for c4 in range(3):
        for c5 in range(3):
            # the right part's walk counted the crossing chows as melds; the left part owns them
            right[:, : KMAX + 1 - c4 - c5, :, c4, c5] = raw[:, c5, c4, c4 + c5 :]
    return left, np.ascontiguousarray(right.reshape(len(raw), KMAX + 1, 2, 9))


def _build_honour_tables() -> tuple[np.ndarray, np.ndarray]:
    """uint8[15**4, KMAX + 1, 2] (honours 1-4) and uint8[15**3, KMAX + 1, 2] (5-7) for any KB."""
    opts = option_pairs(False)
    return (
        np.ascontiguousarray(prefix_table(opts, 4, (), closed=True)[:, 0, 0]),
        np.ascontiguousarray(prefix_table(opts, 3, (), closed=True)[:, 0, 0]),
    )


#: Rows x (k, p)[x boundary] of each table, for checking the cached files without building anything.
_SHAPES = {
    "suit": (5**9, KMAX + 1, 2),
    "honour": (5**7, KMAX + 1, 2),
    "left": (15**5, KMAX + 1, 2, 9),
    "right": (15**4, KMAX + 1, 2, 9),
    "h4": (15**4, KMAX + 1, 2),
    "h3": (15**3, KMAX + 1, 2),
}


@cache
def cache_key() -> str | None:
    """Version of the tables: a hash of this module's source (the code that generates them); None
    when the source cannot be read (then nothing is cached)."""
    import hashlib

    try:
        return hashlib.blake2b(Path(__file__).read_bytes(), digest_size=8).hexdigest()
    except OSError:  # pragma: no cover - an install without its sources
        return None


def _cached(names: tuple[str, ...], build) -> tuple[np.ndarray, ...]:
    """The tables ``names`` from the on-disk cache, or from ``build()`` (a tuple in that order) and
    stored; read-only either way."""
    key = cache_key()
    if key is None:  # pragma: no cover - see cache_key
        got = dict(zip(names, build()))
    else:
        got = _table_cache.cached_arrays("dp_tables", key, {n: _SHAPES[n] for n in names},
                                         lambda: dict(zip(names, build())))
    for t in got.values():
        t.flags.writeable = False
    return tuple(got[n] for n in names)


@cache
def full_suit_table() -> np.ndarray:
    """uint8[5**9, KMAX + 1, 2]: one suit with A = 4, row ``sum h_r * 5**(8-r)`` (read-only when cached)."""
    return _cached(("suit",), lambda: (_build_full_suit_table(),))[0]


@cache
def full_honour_table() -> np.ndarray:
    """uint8[5**7, KMAX + 1, 2]: the seven honours with A = 4, row ``sum h_j * 5**(6-j)`` (read-only when cached)."""
    return _cached(("honour",), lambda: (_build_full_honour_table(),))[0]


@cache
def half_tables() -> tuple[np.ndarray, np.ndarray]:
    """Left and right parts of a suit for any KB (see :func:`_build_half_tables`; read-only when cached)."""
    return _cached(("left", "right"), _build_half_tables)


@cache
def honour_tables() -> tuple[np.ndarray, np.ndarray]:
    """uint8[15**4, KMAX + 1, 2] (honours 1-4) and uint8[15**3, KMAX + 1, 2] (5-7) for any KB (read-only)."""
    return _cached(("h4", "h3"), _build_honour_tables)


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
def padded_combos(kmax: int, final: bool) -> tuple[np.ndarray, np.ndarray]:
    """:func:`combos` as int64[targets, longest group]; short groups repeat their first pair (same min)."""
    left, right, bounds = combos(kmax, final)
    width = int(np.diff(bounds).max())
    col = np.arange(width)
    pick = np.where(col < np.diff(bounds)[:, None], bounds[:-1, None] + col, bounds[:-1, None])
    return left[pick], right[pick]


@cache
def digit_weights(num_tile_types: int, full: bool) -> np.ndarray:
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
