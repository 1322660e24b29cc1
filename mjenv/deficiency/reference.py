"""Slow, obviously-correct reference: enumerate the complete patterns W of the definition.

DESIGN.md defines, for a hand H, knowledge base KB and m melds still needed::

    dfncy(H, KB) = min over complete patterns W (m melds + 1 pair, W[t] <= H[t] + KB[t])
                   of sum_t max(0, W[t] - H[t])

This module enumerates W literally: one pair, then m melds (pongs of any tile, chows of three
consecutive ranks of one suit) in non-decreasing meld order, so every multiset of melds is visited
once. Two prunings keep it usable and are both obviously sound: a partial W that already exceeds
H + KB can only grow, so it is dropped; and its cost can only grow as melds are added, so a partial W
whose cost reaches the best complete one is dropped.

The closed-hand forms are enumerated as literally: every seven pairs (:func:`reference_seven_pairs`)
and every thirteen orphans W (:func:`reference_thirteen_orphans`), for a hand with no exposed meld
(:func:`reference_deficiency` with a ``rules`` of :data:`mjenv.deficiency.forms.RULES` that adds one).

It is the ground truth of the test suite and of ``research/paper_tables.py``. Do not optimise it
beyond what keeps it obviously correct.
"""

from __future__ import annotations

import functools

import numpy as np

from mjenv.deficiency._validate import normalize
from mjenv.deficiency.forms import check_rules

#: Returned when no complete pattern fits the knowledge base (same value as the public constant).
INCOMPLETABLE = 99


def _melds(num_tile_types: int) -> list[tuple[int, ...]]:
    pongs = [(t, t, t) for t in range(num_tile_types)]
    chows = [(9 * s + r, 9 * s + r + 1, 9 * s + r + 2) for s in range(3) for r in range(7)]
    return pongs + chows


def reference_one(hand: np.ndarray, kb: np.ndarray, melds_needed: int, exclude_suit: int | None = None) -> int:
    """Deficiency of one hand by enumerating complete patterns W.

    Args:
        hand: int[T] tile counts, T in {27, 34}.
        kb: int[T] knowledge base, hand + kb <= 4.
        melds_needed: m, the melds a complete hand still needs.
        exclude_suit: a suit (0..2) no tile of W may come from (a declared suit), or None.

    Returns:
        The minimum of sum(max(0, W - H)) over complete W <= H + KB, or INCOMPLETABLE.
    """
    h = [int(v) for v in hand]
    avail = [int(a) + int(b) for a, b in zip(hand, kb)]
    n = len(h)
    if exclude_suit is not None:
        for t in range(9 * exclude_suit, 9 * exclude_suit + 9):
            avail[t] = 0  # W may not hold the missing suit
    melds = _melds(n)
    w = [0] * n
    best = [INCOMPLETABLE]

    def add(tile: int) -> int:
        # extra cost of putting one more `tile` into W
        w[tile] += 1
        return 1 if w[tile] > h[tile] else 0

    def remove(tile: int) -> None:
        w[tile] -= 1

    def search(start: int, remaining: int, cost: int) -> None:
        if cost >= best[0]:
            return
        if remaining == 0:
            best[0] = cost
            return
        for i in range(start, len(melds)):
            meld = melds[i]
            if any(w[t] + meld.count(t) > avail[t] for t in set(meld)):
                continue
            extra = sum(add(t) for t in meld)
            search(i, remaining - 1, cost + extra)
            for t in meld:
                remove(t)

    # Pairs the hand already holds first, so a good bound is found early.
    pair_order = sorted(range(n), key=lambda t: -min(h[t], 2))
    for p in pair_order:
        if avail[p] < 2:
            continue
        extra = add(p) + add(p)
        search(0, melds_needed, extra)
        remove(p)
        remove(p)
    return best[0]


def reference_seven_pairs(
    hand: np.ndarray, kb: np.ndarray, exclude_suit: int | None = None, fours: bool = True
) -> int:
    """Seven pairs by enumeration: every W with W[t] in {0, 2, 4} (``fours``: a four of a kind is two
    pairs, a four of a kind as two pairs) or {0, 2} (distinct pairs, basic's), sum 14, W <= H + KB, no
    tile of ``exclude_suit``. Tile by tile, each choice of pairs from tile t is tried; the least cost
    of completing from tile t with ``pairs`` placed does not depend on the earlier choices, so it is
    remembered (the enumeration visits the same W, only once per (t, pairs))."""
    h = [int(v) for v in hand]
    avail = [int(a) + int(b) for a, b in zip(hand, kb)]
    if exclude_suit is not None:
        for t in range(9 * exclude_suit, 9 * exclude_suit + 9):
            avail[t] = 0
    most = 2 if fours else 1

    @functools.cache
    def rest(t: int, pairs: int) -> int:
        """Least cost of pairs 'pairs + 1 .. 7' from tiles t.. (INCOMPLETABLE: none fit)."""
        if pairs == 7:
            return 0
        if t == len(h):
            return INCOMPLETABLE
        best = INCOMPLETABLE
        for k in range(most + 1):
            if pairs + k <= 7 and 2 * k <= avail[t]:
                best = min(best, max(0, 2 * k - h[t]) + rest(t + 1, pairs + k))
        return best

    return min(rest(0, 0), INCOMPLETABLE)


#: Terminals and honours: thirteen orphans holds each once and one of them twice.
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)


def reference_thirteen_orphans(hand: np.ndarray, kb: np.ndarray) -> int:
    """Thirteen orphans by enumeration: the 13 patterns W (each orphan once, orphan d twice), those with
    W <= H + KB, the least sum(max(0, W - H)); INCOMPLETABLE for none (always for 27 tile types)."""
    if len(hand) < 34:
        return INCOMPLETABLE
    h = [int(v) for v in hand]
    avail = [int(a) + int(b) for a, b in zip(hand, kb)]
    best = INCOMPLETABLE
    for d in ORPHANS:
        w = [0] * len(h)
        for t in ORPHANS:
            w[t] = 2 if t == d else 1
        if all(w[t] <= avail[t] for t in range(len(h))):
            best = min(best, sum(max(0, w[t] - h[t]) for t in range(len(h))))
    return best


def reference_without_suit(hand, kb=None, *, exclude_suit: int, exposed_melds=0) -> int:
    """Reference for one hand without a suit: min of the melds-and-pair W and (no exposed meld) seven
    pairs with a four of a kind as two pairs, neither holding a tile of ``exclude_suit``."""
    batch = normalize(hand, kb, exposed_melds, 4)
    h, k, m = batch.hands[0], batch.kbs[0], int(batch.melds_needed[0])
    out = reference_one(h, k, m, exclude_suit)
    if m == 4:
        out = min(out, reference_seven_pairs(h, k, exclude_suit))
    return out


def reference_orphans_one(hand: np.ndarray, kb: np.ndarray, melds_needed: int) -> int:
    """The deficiency of one hand under form 3: the least of m melds + a pair and, with no exposed meld,
    seven distinct pairs and thirteen orphans, each by enumeration."""
    out = reference_one(hand, kb, melds_needed)
    if melds_needed == 4:
        out = min(out, reference_seven_pairs(hand, kb, fours=False), reference_thirteen_orphans(hand, kb))
    return out


def reference_deficiency(hand, kb=None, *, exposed_melds=0, melds: int = 4, rules: str = "basic"):
    """Reference deficiency with the same arguments and return convention as ``deficiency``
    (``rules``: a name of :data:`mjenv.deficiency.forms.RULES`; melds and a pair only, or with form 3,
    :func:`reference_orphans_one`)."""
    if check_rules(rules, melds) not in (0, 3):
        raise ValueError(f"the reference enumerates the forms 0 and 3, not rules={rules!r}")
    batch = normalize(hand, kb, exposed_melds, melds)
    one = reference_orphans_one if check_rules(rules, melds) == 3 else reference_one
    out = np.array(
        [one(h, k, int(m)) for h, k, m in zip(batch.hands, batch.kbs, batch.melds_needed)],
        dtype=np.int32,
    )
    return int(out[0]) if batch.single else out
