"""``method="bda"``: the block deficiency algorithm (BDA paper, Yan, Li & Li).

Paper: the BDA paper (``docs/DESIGN.md``, Sources). Pipeline (Sec. 5, Fig. 3):

1. Split the hand into KB-blocks (Definition 14; :mod:`mjenv.deficiency.blocks`).
2. For each block, enumerate all its local quasi-decompositions (qDCMPs, Definition 11) with the
   6-ary local search of Sec. 4.1 / Sec. 6 (the quadtree's pass / chow / pong / pair actions plus the
   two pchows (t t+1) and (t t+2)) and map each to its 7-attribute type (m, n, p, e, re, rm, em)
   (Definition 12): :func:`local_types`. The type sets are memoised (bounded LRU) on the block's
   zero-padded window of ranks lo-2..hi+2 (hand counts and KB), the only ranks a block's types can
   see, so equal patterns share entries across suits and positions.
3. Join the block type sets one by one (Alg. 3, Eqs. 5-6), dropping types no legal qDCMP has
   (Lemma 1): :func:`join`. The hot path stores a type set as 8 bitsets (one per (re, rm, em)) over
   the code of (m, n, p, e), so a join is a few shifted ORs.
4. Price every global type with Alg. 1 (Decide; Lemmas 2-6) using the KB attributes ke, km and take
   the minimum (Alg. 2): :func:`decide`, :func:`kb_attributes`.

Generalisations, following the paper's Remark at the end of Sec. 5.2 (exposed melds raise m): the
constants 4 / 3 / 5 of Alg. 1 and Alg. 3 are ``M`` / ``M - 1`` / ``M + 1`` for ``M = melds_needed``
(0..5; 16-tile rule sets use 5 melds) and a qDCMP holds at most ``M + 1`` melds and pmelds. Honours
(ids 27-33) are each their own block and form pongs and pairs only (``rm``: two more copies in the
KB). ``ke`` / ``km`` look at the whole KB (honour pongs included, chows only in the suits).

Hands of 3M+1 tiles (13 tiles). Definition 9 defines their deficiency as
``min over t with KB(t) > 0 of dfncy(H + t, KB - t) + 1``. Theorem 2 and Alg. 1 are stated for "a
hand" (13 or 14 tiles) and count the tiles a completion borrows from the KB, which for a 3M+1 hand is
that same number, so by default (``thirteen="direct"``) Alg. 2 runs on the 3M+1 hand itself.
``thirteen="draw"`` runs Definition 9's recursion literally (Alg. 2 on every H + t). On 2,500 random
3M+1 hands both were exact whenever the true deficiency was <= 4 and erred on about the same hands
(196 vs 207 under-estimates, all above 4), and ``direct`` is about 17x faster.

Corrections (``variant="corrected"``, the default) of three places where the text, taken literally,
breaks its own Theorem 3 (``variant="paper"`` keeps the text as written):

* Definition 11 (3), "all pmelds are completable under KB", is checked for the pmelds *together*:
  each gets its own KB copy. Taken one by one, (B1B3) and (B3B4) with a single B2 in the KB both
  count as completable and a hand the KB cannot complete gets deficiency 2
  (``tests/test_bda.py::test_pchows_sharing_the_last_kb_copy``). Two pmelds that need the same KB
  tile always lie in one KB-block (their tiles are within two ranks of that tile, which is in KB),
  so this is a check inside the local search.
* re, rm, em of a block (Sec. 4.3) are judged on the KB left after completing the block's pmelds
  (one type per way of completing them).
* ke, km (Sec. 4.3) no longer count a KB pair or meld that the pmeld completions use up
  (``test_kb_pair_used_by_a_completion``: the only KB pair, B2B2, also completes (B1B3); the text
  gives 3, the truth is 4). Each type carries bit masks of the KB pairs / melds its completions
  use up; they are only carried when setting ke or km to 0 would change the answer (Decide never
  costs less with ke or km lower), which is rare.

Where BDA still differs from the exact definition (``docs/DESIGN.md``): Decide prices a qDCMP
from its type alone. It does not count KB copies across *different* needs: a remainder tile's meld
from scratch (rm) may need the KB tile that a pmeld in another block uses
(``test_known_limitation_cross_block_kb_contention``: true 4, BDA 3); several melds or the eye
from scratch may all count on the same KB tiles (``mcost * (M - m - n)`` and ke/km in Lemmas 4-6);
and Lemmas 5-6 are lower bounds. All of these make BDA *lower* than the truth.

Measured (``benchmarks/bda_speed.py``, ``research/notes/bench/bda.md``; ``dp`` as the exact reference):
BDA was never above the true value (Theorem 3's first half holds in every run), so every error is
an under-estimate, most of them on hands the KB cannot complete at all (BDA gives a finite number)
and on small KBs (under 10-20 tiles), as Sec. 6.4 reports; Sec. 6.4's wording that errors are
"greater than the real deficiency" contradicts Theorem 3 and what we see. Equality when the true
deficiency is <= 4 (Theorem 3's second half) fails for the text as written (``variant="paper"``:
2 of 600, 49 of 6,000 and 14 of 6,000 random pairs of 1, 2 and 3 colours with small KBs); with the
corrections we saw no such error in those 12,600 pairs nor in the test samples, but the cross-block
case above shows it is not guaranteed.

How the type sets are computed (none of this changes a type set once pruned; tests and
``benchmarks/bda_speed.py`` compare with the plain search of :func:`_local_search`):

* The hot path (:func:`_alg2_lists`) works on lists of Python ints, scans the KB-blocks inline and
  keeps each block's pruned types as 8 bitsets in a memo keyed on its raw window
  (:func:`_window_bits`), over the memo keyed on the clamped window (:func:`_window_types`).
* Blocks of fewer than ``_CUT_FROM`` tiles: the qDCMP *structures* (m, n, p, e, remainder, the KB
  ranks each pmeld can be completed from) depend on the KB only through which ranks hold a copy, so
  they are memoised on (counts, KB presence) (:func:`_structures`) and priced per KB
  (:func:`_eval_structures`: joint completions, remainder attributes).
* Larger blocks (one-suit hands): the search assigns each pmeld's completing copy as it goes and
  cuts a subtree once every (m, n, p, e) it can still reach (a memoised key-only walk says which)
  already holds the best attributes any leaf could add (:func:`_search_types`).
* Compiled (``_bda.c``, an optional extension built by ``setup.py``): on a miss of the raw-window
  memo, the corrected variant's local search runs in C (a port of :func:`_local_search` with
  :func:`_prune`, returning the bitsets); the join, Decide and the rare kill-mask path stay here.
  It gives the same type sets (tests compare it with the Python search on random block windows and
  whole batches); without a C compiler, or with ``MJENV_NO_KERNEL=1``, the Python search runs.

Speed (same benchmark, 2-core shared machine; ``research/notes/bench/bda.md``), fresh hand/KB pairs, with the
compiled search: about 0.05 ms per random three-suit hand with a random KB, 0.42-0.52x the time of
our ``hbba`` (2-2.4x faster; batches 0.44x); one-suit hands about 0.1 ms, 0.15-0.17x ``hbba`` (the
paper's Table 1: 33.7 ms). The Python search alone: about 0.2 ms three-suit (1.6-1.9x ``hbba``)
and 2.5 ms one-suit (3.3-3.9x): a one-suit block of 14 tiles has thousands of local qDCMPs, and
BDA, unlike HBBA's layered search, needs the types of all of them.

Paper errata met on the way: the type of pi5 in Sec. 5 is printed once as (2,0,0,0,1,1,1) and once
as (1,0,0,0,1,1,1) (the latter is right: one meld); Example 3's KB lists two B8 next to the hand's
three, which no compatible KB can.
"""

from __future__ import annotations

from functools import cache, lru_cache

import numpy as np

from mjenv.deficiency.blocks import HONOURS, KBBlock, kb_blocks
from mjenv.deficiency.dp import INCOMPLETABLE
from mjenv.deficiency.kernel import disabled as kernel_disabled

try:  # built by setup.py (optional extension): the local type search of the corrected variant in C
    from mjenv.deficiency import _bda as _bda_ext
except ImportError:  # pragma: no cover - depends on the install
    _bda_ext = None

#: Alg. 1 and Alg. 2 return this "large upper bound" for an incompletable qDCMP / hand.
BIG = 100

#: A qDCMP type (Definition 12): (m, n, p, e, re, rm, em).
Type = tuple[int, int, int, int, int, int, int]

__all__ = ["BIG", "decide", "deficiency_batch", "deficiency_one", "join", "kb_attributes", "local_types"]


# --------------------------------------------------------------------------------------------------
# Alg. 1 (Decide): the cost of a qDCMP from its type (Lemmas 2-6)
# --------------------------------------------------------------------------------------------------
def decide(x: Type, ke: int, km: int, melds: int = 4) -> int:
    """Alg. 1 (Decide): cost of a qDCMP of type ``x`` under a KB with attributes ``ke``, ``km``.

    Args:
        x: the type (m, n, p, e, re, rm, em) of Definition 12.
        ke: 1 if the KB holds a pair, else 0.
        km: 1 if the KB holds a meld, else 0.
        melds: melds a complete hand still needs (the paper's 4; see the module docstring).

    Returns:
        The number of tiles to borrow from the KB, or ``BIG`` (100) when the type is incompletable
        (Lemma 2).
    """
    m, n, p, e, re, rm, em = x
    big_m = melds
    # Lemma 2 (a)-(d): incompletable
    if p == 0 and re == 0 and ke == 0:
        return BIG
    if m + n <= big_m and re == 0 and ke == 0 and rm == 0 and km == 0:
        return BIG
    if m + n - e <= big_m - 1 and rm == 0 and km == 0:
        return BIG
    if m + n <= big_m - 1 and p == 0 and ke == 0 and km == 0 and em == 1:
        return BIG
    # Lemma 3: m + n >= M
    if m + n >= big_m:
        if m + n > big_m:
            return big_m - m
        if (e == 0 and re == 1) or (p > 0 and rm == 1):
            return big_m - m + 1
        return big_m - m + 2
    # Lemmas 4 and 6: m + n - e <= M - 1 (always true here, as m + n <= M - 1)
    mcost = 2 * rm + 3 * (1 - rm)
    ecost = re + 2 * (1 - re)
    if e == 1:
        return (n - 1) + mcost * (big_m - m - n + 1)
    if p == 0:
        return n + mcost * (big_m - m - n) + ecost + em
    f1 = n + mcost * (big_m - m - n) + ecost
    f2 = n - 1 + mcost * (big_m - m - n + 1)
    return min(f1, f2)


def kb_attributes(kb: np.ndarray | list[int]) -> tuple[int, int]:
    """The KB attributes (ke, km) of Sec. 4.3: does the KB hold a pair, a meld.

    Args:
        kb: int[T] knowledge base, T in {27, 34}.
    """
    k = [int(v) for v in kb]
    ke = int(any(v >= 2 for v in k))
    km = int(any(v >= 3 for v in k))
    if not km:
        for s in range(3):
            b = 9 * s
            if any(k[b + r] and k[b + r + 1] and k[b + r + 2] for r in range(7)):
                km = 1
                break
    return ke, km


# --------------------------------------------------------------------------------------------------
# Alg. 3 (join) and Eqs. 5-6
# --------------------------------------------------------------------------------------------------
def join(xs, ys, melds: int = 4) -> set[tuple]:
    """Alg. 3: combine two type sets, dropping types no legal qDCMP has (Lemma 1).

    Args:
        xs, ys: type sets of two disjoint groups of KB-blocks: 7-tuples (m, n, p, e, re, rm, em),
            optionally followed by bit masks (which are OR-ed).
        melds: melds still needed (the paper's 4; 5 in Alg. 3 is ``melds + 1``).

    Returns:
        The joined type set: m, n, p, e add up; re, rm take the max; em is 1 iff one side has an
        eye-meld conflict and the other side has re = rm = 0 (Eq. 5).
    """
    out: set[tuple] = set()
    cap = melds + 1
    masked = any(len(x) > 7 for x in xs)
    for x in xs:
        m, n, p, e, re, rm, em = x[:7]
        for y in ys:
            m2, n2, p2, e2, re2, rm2, em2 = y[:7]
            mm, nn, pp, ee = m + m2, n + n2, p + p2, e + e2
            if ee > 1 or mm + nn > cap or (mm + nn == cap and pp == 0):
                continue
            emx = 1 if (em == 1 and re2 == 0 and rm2 == 0) or (em2 == 1 and re == 0 and rm == 0) else 0
            if masked:
                out.add((mm, nn, pp, ee, re | re2, rm | rm2, emx, x[7] | y[7], x[8] | y[8]))
            else:
                out.add((mm, nn, pp, ee, re | re2, rm | rm2, emx))
    return out


def _prune(types: set[tuple]) -> set[tuple]:
    """Drop dominated types: same (m, n, p, e) and masks, but re, rm no larger and em no smaller.

    Decide (Alg. 1) never costs more when re or rm grows or em drops, and in Alg. 3 a larger re / rm
    only clears the other side's eye-meld conflict, so a dominated type can never give the minimum.
    """
    groups: dict[tuple, list[tuple[int, int, int]]] = {}
    for x in types:
        groups.setdefault(x[:4] + x[7:], []).append(x[4:7])
    if len(groups) == len(types):
        return types
    out: set[tuple] = set()
    for key, attrs in groups.items():
        for a in attrs:
            if not any(b != a and b[0] >= a[0] and b[1] >= a[1] and b[2] <= a[2] for b in attrs):
                out.add(key[:4] + a + key[4:])
    return out


# --------------------------------------------------------------------------------------------------
# Local qDCMPs of one KB-block and their types (Definition 11, Definition 12, 6-ary search)
# --------------------------------------------------------------------------------------------------
def _meldable(y: int, k: tuple[int, ...], x: int, honour: bool) -> bool:
    """Can a meld be made from rank ``y`` and two KB tiles, after one copy of ``x`` left the KB?

    ``x = -1`` means nothing left the KB. Ranks are 0-based within the suit (or window).
    """
    if k[y] - (x == y) >= 2:  # pong (y y y)
        return True
    if honour:
        return False
    n = len(k)
    # KB copies of the four neighbours (0 outside the window), less the one taken by x
    m2 = k[y - 2] - (x == y - 2) if y >= 2 else 0
    m1 = k[y - 1] - (x == y - 1) if y >= 1 else 0
    p1 = k[y + 1] - (x == y + 1) if y + 1 < n else 0
    p2 = k[y + 2] - (x == y + 2) if y + 2 < n else 0
    return (m2 > 0 and m1 > 0) or (m1 > 0 and p1 > 0) or (p1 > 0 and p2 > 0)


@lru_cache(maxsize=1 << 16)
def _remainder_attrs(rem: tuple[int, ...], k: tuple[int, ...], honour: bool) -> tuple[int, int, int]:
    """(re, rm, em) of a remainder (Sec. 4.3), given as counts by rank, under the local KB ``k``."""
    eyes = []
    melds = []
    for y in range(len(rem)):
        if rem[y]:
            if k[y]:
                eyes.append(y)
            if _meldable(y, k, -1, honour):
                melds.append(y)
    if not (eyes and melds):
        return (1 if eyes else 0), (1 if melds else 0), 0
    # eye-meld conflict: no eye from one remainder tile and meld from another (distinct) one that
    # fit in the KB together (either order needs the same KB tiles). Only tiles that make a meld on
    # the whole KB can make one after an eye took a copy; an eye three or more ranks away takes
    # nothing the meld needs.
    for x in eyes:
        for y in melds:
            if y == x:
                if rem[x] >= 2 and _meldable(y, k, x, honour):
                    return 1, 1, 0
            elif y - x > 2 or x - y > 2 or _meldable(y, k, x, honour):
                return 1, 1, 0
    return 1, 1, 1


@lru_cache(maxsize=1 << 16)
def _leftover_kbs(needs: tuple[tuple[int, ...], ...], k: tuple[int, ...]) -> frozenset[tuple[int, ...]]:
    """Every local KB left after giving each pmeld its own completing KB tile (empty: impossible).

    ``needs[i]`` lists the KB ranks that complete pmeld i (one rank for a pair or a (t t+2) pchow,
    up to two for a (t t+1) pchow). KB multiplicities are respected.
    """
    out: set[tuple[int, ...]] = set()
    left = list(k)

    def assign(j: int) -> None:
        if j == len(needs):
            out.add(tuple(left))
            return
        for z in needs[j]:
            if left[z] > 0:
                left[z] -= 1
                assign(j + 1)
                left[z] += 1

    assign(0)
    assign = None  # break the recursive closures' self-references (freed now, not by the gc)
    return frozenset(out)


#: An internal local type: the paper's 7 attributes plus the KB ranks the block's pmeld
#: completions use (empty when not tracked).
_LocalType = tuple[int, int, int, int, int, int, int, tuple[int, ...]]


def _local_search(
    counts: tuple[int, ...], k: tuple[int, ...], honour: bool, max_elements: int, paper: bool, track: bool
) -> frozenset[_LocalType]:
    """All qDCMPs of one KB-block by the 6-ary local search, mapped to types (see :func:`local_types`).

    With ``track`` every type is kept together with the KB copies its pmeld completions use (by
    rank); without, types whose (re, rm, em) is dominated by (1, 1, 0) for the same (m, n, p, e) may
    be skipped (see :func:`_prune`).
    """
    size = len(counts)
    if sum(counts) == 1:
        # a lone tile: only the empty qDCMP; a single remainder tile cannot give both eye and meld
        re, rm, em = _remainder_attrs(counts, k, honour)
        return frozenset({(0, 0, 0, 0, re, rm, em, (0,) * size if track else ())})
    c = list(counts)
    rem = [0] * size
    needs: list[tuple[int, ...]] = []  # KB ranks that complete each completable pmeld
    found: set[tuple[int, int, int, int, tuple[int, ...], tuple[int, ...]]] = set()

    def walk(t: int, m: int, n: int, p: int, e: int) -> None:
        while t < size and c[t] == 0:
            t += 1
        if t == size:
            if paper or not needs:
                found.add((m, n, p, e, tuple(rem), k))
            elif len(needs) == 1:
                for z in needs[0]:
                    left = list(k)
                    left[z] -= 1
                    found.add((m, n, p, e, tuple(rem), tuple(left)))
            else:
                for left in _leftover_kbs(tuple(sorted(needs)), k):
                    found.add((m, n, p, e, tuple(rem), left))
            return
        avail = c[t]
        chow_ok = not honour and t + 2 < size
        max_chow = min(avail, c[t + 1], c[t + 2]) if chow_ok else 0
        adj_needs = () if honour else tuple(z for z in (t - 1, t + 2) if 0 <= z < size and k[z] > 0)
        # Definition 11 (3): pchows must be completable; pairs may be incompletable (at most one)
        adj_ok = t + 1 < size and c[t + 1] > 0 and bool(adj_needs)
        gap_ok = not honour and t + 2 < size and c[t + 2] > 0 and k[t + 1] > 0
        pair_ok = k[t] > 0
        for ch in range(max_chow + 1):
            for pong in range(2 if avail - ch >= 3 else 1):
                for pairs in range((avail - ch - 3 * pong) // 2 + 1):
                    e2 = e + (0 if pair_ok else pairs)
                    if e2 > 1:
                        break
                    used = ch + 3 * pong + 2 * pairs
                    for adj in range(min(avail - used, c[t + 1] - ch) + 1 if adj_ok else 1):
                        for gap in range(min(avail - used - adj, c[t + 2] - ch) + 1 if gap_ok else 1):
                            if m + n + ch + pong + pairs + adj + gap > max_elements:
                                break
                            c[t] = 0
                            rem[t] = avail - used - adj - gap  # the "pass" action, for the rest
                            if ch:
                                c[t + 1] -= ch
                                c[t + 2] -= ch
                            if adj:
                                c[t + 1] -= adj
                            if gap:
                                c[t + 2] -= gap
                            mark = len(needs)
                            if pair_ok:
                                needs.extend([(t,)] * pairs)
                            needs.extend([adj_needs] * adj)
                            needs.extend([(t + 1,)] * gap)
                            walk(t + 1, m + ch + pong, n + pairs + adj + gap, p + pairs, e2)
                            del needs[mark:]
                            if gap:
                                c[t + 2] += gap
                            if adj:
                                c[t + 1] += adj
                            if ch:
                                c[t + 1] += ch
                                c[t + 2] += ch
                            rem[t] = 0
                            c[t] = avail

    walk(0, 0, 0, 0, 0)
    walk = None  # break the recursive closure's self-reference (freed now, not by the gc)
    types: set[_LocalType] = set()
    if track:
        for m, n, p, e, r, left in found:
            used = tuple(a - b for a, b in zip(k, left))
            types.add((m, n, p, e, *_remainder_attrs(r, left, honour), used))
        return frozenset(types)
    best: set[tuple[int, int, int, int]] = set()  # (m, n, p, e) already seen with (1, 1, 0)
    for m, n, p, e, r, left in found:
        key = (m, n, p, e)
        if key in best:
            continue  # (re, rm, em) = (1, 1, 0) dominates every other attribute triple
        attrs = _remainder_attrs(r, left, honour)
        if attrs == (1, 1, 0):
            best.add(key)
        types.add((m, n, p, e, *attrs, ()))
    return frozenset(types)


def local_types(
    counts: tuple[int, ...],
    k: tuple[int, ...],
    honour: bool = False,
    max_elements: int = 5,
    *,
    variant: str = "corrected",
) -> frozenset[Type]:
    """Types of all qDCMPs of one KB-block (Alg. 2 lines 4-9), by the 6-ary local search.

    The search walks the block's ranks in order and, at each rank t, decides how many of each
    group start there: chows (t t+1 t+2), pongs (t t t), pairs (t t), pchows (t t+1), pchows (t t+2),
    and how many copies go to the remainder (the "pass" action). Deciding the multiplicities at once
    visits every qDCMP (a multiset of groups plus its remainder) exactly once, which is what the
    quadtree's ordered actions reach with repetitions. Definition 11 is enforced: pchows must be
    completable under the KB, at most one pair is incompletable (e <= 1), and there are at most
    ``max_elements`` (= M + 1) melds and pmelds. With ``variant="corrected"`` the pmelds must be
    completable *together* (each gets its own KB copy) and re, rm, em are judged on the KB left after
    those completions (see the module docstring); ``variant="paper"`` judges each pmeld and the
    remainder on the full KB, as the paper's text does.

    Args:
        counts: block tile counts by rank within the suit (9 entries; 7 for honours).
        k: the local KB of the suit by rank (only ranks near the block matter).
        honour: True for an honour block (pongs and pairs only).
        max_elements: M + 1.
        variant: ``"corrected"`` (default) or ``"paper"``.

    Returns:
        The set of types (m, n, p, e, re, rm, em) of the block's qDCMPs (Definition 12).
    """
    paper = _check_variant(variant)
    # track=True visits every qDCMP (the fast path skips dominated attribute triples)
    return frozenset(x[:7] for x in _local_search(tuple(counts), tuple(k), honour, max_elements, paper, True))


def _check_variant(variant: str) -> bool:
    if variant not in ("corrected", "paper"):
        raise ValueError(f"variant must be 'corrected' or 'paper', got {variant!r}")
    return variant == "paper"


def _block_types(block: KBBlock, kb: np.ndarray, max_elements: int, paper: bool, track: bool) -> frozenset[tuple]:
    """Local type set of one KB-block (7-tuples; 9-tuples with the kill masks when ``track``).

    The local search only sees the ranks lo-2..hi+2 around the block (lo, hi: its lowest and highest
    rank): a pchow is completed by a rank at most one step outside it and a remainder tile makes a
    meld with ranks at most two steps away. Ranks past the end of the suit behave exactly like ranks
    with no hand tile and no KB copy, so that window, zero-padded, is the memo key: blocks with the
    same pattern share it across suits and positions.

    The masks say which of the KB's pairs (bit = tile id) and melds (bit = tile id for a pong,
    34 + start tile id for a chow) the block's pmeld completions use up.
    """
    if block.suit == HONOURS:
        tile = block.tiles[0]
        raw = _window_types((len(block.tiles),), (int(kb[tile]),), True, max_elements, paper, track)
        start = tile
    else:
        base = block.offset
        start = block.tiles[0] - 2
        stop = block.tiles[-1] + 3
        counts = [0] * (stop - start)
        for t in block.tiles:
            counts[t - start] += 1
        k = tuple(int(kb[t]) if base <= t < base + 9 else 0 for t in range(start, stop))
        raw = _window_types(tuple(counts), _canonical_kb(counts, k), False, max_elements, paper, track)
    if not track:
        return raw
    out: set[tuple] = set()
    for x in raw:
        kill_e = kill_m = 0
        for i, u in enumerate(x[7]):
            if not u:
                continue
            t = start + i  # used KB tiles lie inside the suit (the padding has no KB copies)
            have = int(kb[t])
            if have >= 2 and have - u < 2:
                kill_e |= 1 << t
            if have >= 3 and have - u < 3:
                kill_m |= 1 << t
            if have - u < 1 and t < 27:
                r = t % 9
                for c in range(max(0, r - 2), min(6, r) + 1):
                    first = t - r + c
                    if kb[first] and kb[first + 1] and kb[first + 2]:
                        kill_m |= 1 << (34 + first)
        out.add((*x[:7], kill_e, kill_m))
    return frozenset(_prune(out))


def _canonical_kb(counts: list[int], k: tuple[int, ...]) -> tuple[int, ...]:
    """Clamp KB counts of a window to what the local search can tell apart (more memo hits).

    A rank with no hand tile is never an eye or a pong of the remainder: its KB copies only
    complete pmelds (at most one per two hand tiles within two ranks) and serve as one chow tile, so
    ``usage + 1`` copies behave like more. The outermost ranks lo-2 and hi+2 are never used by a
    completion and only matter next to a KB copy at lo-1 (hi+1).
    """
    size = len(k)
    out = list(k)
    for z in range(size):
        if counts[z] == 0 and out[z] > 1:
            near = sum(counts[max(0, z - 2) : z + 3])
            out[z] = min(out[z], near // 2 + 1)
    if out[1] == 0:
        out[0] = 0
    if out[size - 2] == 0:
        out[size - 1] = 0
    out[0] = min(out[0], 1)
    out[size - 1] = min(out[size - 1], 1)
    return tuple(out)


def _search_types(
    counts: tuple[int, ...], k: tuple[int, ...], honour: bool, max_elements: int, paper: bool
) -> set[tuple]:
    """The 6-ary local search of :func:`_local_search` without kill masks, lean form.

    Same qDCMPs, visited in the same way, with two changes that leave the pruned type set as it is:
    each pmeld's completing KB copy is taken out of the local KB when the pmeld is chosen (a
    (t t+1) pchow branches on which side completes it), so the leftover KBs of
    :func:`_leftover_kbs` come out of the walk itself and branches no joint completion fits are cut
    early; and a leaf's remainder attributes are looked up only while its (m, n, p, e) has not yet
    reached (1, 1, 0), which dominates every other triple (see :func:`_prune`).

    Returns:
        A set of 7-tuples (m, n, p, e, re, rm, em) whose :func:`_prune` equals that of
        ``{x[:7] for x in _local_search(counts, k, honour, max_elements, paper, False)}``.
    """
    size = len(counts)
    if sum(counts) == 1:
        return {(0, 0, 0, 0, *_remainder_attrs(counts, k, honour))}
    c = [*counts, 0, 0]  # padded: c[t + 1], c[t + 2] need no bounds checks
    rem = [0] * size
    left = list(k)
    types: set[tuple] = set()
    # (m, n, p, e) whose attributes can no longer improve (seen with (top_re, top_rm, 0), which
    # dominates every leaf's, or with no remainder at all), as bits of the compact code of _reach_mask
    done = 0
    attrs_of = _remainder_attrs
    total = sum(counts)
    # small blocks have few leaves: the cuts would cost more than they save
    cut = total >= _CUT_FROM
    # per rank, what the original KB allows (Definition 11 (3)): pairs completable; a (t t+1)
    # pchow completed at t-1 / at t+2; a (t t+2) pchow; chows
    pair_ok = [v > 0 for v in k]
    lo_ok = [not honour and t >= 1 and k[t - 1] > 0 for t in range(size)]
    hi_ok = [not honour and t + 2 < size and k[t + 2] > 0 for t in range(size)]
    gap_k = [not honour and t + 2 < size and k[t + 1] > 0 for t in range(size)]
    chow_ok = [not honour and t + 2 < size for t in range(size)]
    assign = not paper

    def walk(t: int, m: int, n: int, p: int, e: int, tiles: int) -> None:
        # tiles: hand tiles of the block not yet placed (the counts left in c)
        nonlocal done
        while t < size and c[t] == 0:
            t += 1
        if t == size:
            code = (((m << 4) | n) << 4 | p) << 1 | e
            if not done >> code & 1:
                attrs = attrs_of(tuple(rem), tuple(left) if assign else k, honour)
                if (attrs[0] >= top_re and attrs[1] >= top_rm and not attrs[2]) or 3 * m + 2 * n == total:
                    done |= 1 << code  # nothing here beats it; an empty remainder has (0, 0, 0) only
                types.add((m, n, p, e, *attrs))
            return
        if cut and done:
            # every leaf below has an (m, n, p, e) whose attributes cannot improve: first the cheap
            # bound on the tile count, then the (m, n, p, e) the subtree really reaches
            code = (((m << 4) | n) << 4 | p) << 1 | e
            if not (_reach_mask(tiles, max_elements - m - n, e) << code) & ~done:
                return
            below = keys(
                t, c[t], c[t + 1], left[t - 1] if t else 0, left[t], left[t + 1] if t + 1 < size else 0,
            )
            if not ((below & _room_mask(max_elements - m - n, e)) << code) & ~done:
                return
        avail = c[t]
        c1 = c[t + 1]
        c2 = c[t + 2]
        max_chow = min(avail, c1, c2) if chow_ok[t] else 0
        lo = lo_ok[t]
        hi = hi_ok[t]
        adj_ok = c1 > 0 and (lo or hi)
        gap_ok = c2 > 0 and gap_k[t]
        pok = pair_ok[t]
        c[t] = 0
        for ch in range(max_chow + 1):
            if ch:
                c[t + 1] -= 1
                c[t + 2] -= 1
            for pong in range(2 if avail - ch >= 3 else 1):
                for pairs in range((avail - ch - 3 * pong) // 2 + 1):
                    e2 = e if pok else e + pairs
                    if e2 > 1:
                        break
                    if pairs and pok and assign:
                        if left[t] < pairs:
                            break
                        left[t] -= pairs
                    used = ch + 3 * pong + 2 * pairs
                    base = m + n + ch + pong + pairs
                    m2 = m + ch + pong
                    p2 = p + pairs
                    for adj in range(min(avail - used, c1 - ch) + 1 if adj_ok else 1):
                        if base + adj > max_elements:
                            break
                        if adj:
                            c[t + 1] -= adj
                            if not assign:
                                splits = (0,)
                            elif lo and hi:
                                splits = range(adj + 1)  # a completing copies at t-1, adj - a at t+2
                            elif lo:
                                splits = (adj,)
                            else:
                                splits = (0,)
                        else:
                            splits = (0,)
                        for a in splits:
                            b = adj - a
                            if adj and assign:
                                if a and a > left[t - 1]:
                                    continue
                                if b and b > left[t + 2]:
                                    continue
                                if a:
                                    left[t - 1] -= a
                                if b:
                                    left[t + 2] -= b
                            for gap in range(min(avail - used - adj, c2 - ch) + 1 if gap_ok else 1):
                                if base + adj + gap > max_elements:
                                    break
                                rem[t] = avail - used - adj - gap  # the "pass" action, for the rest
                                if gap:
                                    if assign:
                                        if left[t + 1] < gap:
                                            break
                                        left[t + 1] -= gap
                                    c[t + 2] -= gap
                                    walk(t + 1, m2, n + pairs + adj + gap, p2, e2, tiles - avail - 2 * ch - adj - gap)
                                    c[t + 2] += gap
                                    if assign:
                                        left[t + 1] += gap
                                else:
                                    walk(t + 1, m2, n + pairs + adj, p2, e2, tiles - avail - 2 * ch - adj)
                            if adj and assign:
                                if a:
                                    left[t - 1] += a
                                if b:
                                    left[t + 2] += b
                        if adj:
                            c[t + 1] += adj
                    if pairs and pok and assign:
                        left[t] += pairs
        if max_chow:
            c[t + 1] += max_chow
            c[t + 2] += max_chow
        rem[t] = 0
        c[t] = avail

    memo: dict[tuple, int] = {}

    def keys(t: int, c0: int, c1: int, lm: int, l0: int, l1: int) -> int:
        """The (dm, dn, dp, de) the leaves below a node reach (no cap on parts; de <= 1), as bits of
        compact codes: the walk's choices without remainders, memoized on what they depend on
        (t, counts at t and t+1, KB left at t-1..t+1; later ranks are untouched)."""
        while t < size and c0 == 0:
            c0, c1 = c1, counts[t + 2] if t + 2 < size else 0
            lm, l0, l1 = l0, l1, k[t + 2] if t + 2 < size else 0
            t += 1
        if t == size:
            return 1
        key = (t, c0, c1, lm, l0, l1)
        got = memo.get(key)
        if got is not None:
            return got
        c2 = counts[t + 2] if t + 2 < size else 0
        k2 = k[t + 2] if t + 2 < size else 0
        max_chow = min(c0, c1, c2) if not honour and t + 2 < size else 0
        lo_ok = not honour and t >= 1 and k[t - 1] > 0
        hi_ok = not honour and t + 2 < size and k2 > 0
        adj_ok = c1 > 0 and (lo_ok or hi_ok)
        gap_ok = not honour and c2 > 0 and k[t + 1] > 0
        pair_ok = k[t] > 0
        mask = 0
        for ch in range(max_chow + 1):
            for pong in range(2 if c0 - ch >= 3 else 1):
                for pairs in range((c0 - ch - 3 * pong) // 2 + 1):
                    e2 = 0 if pair_ok else pairs
                    if e2 > 1:
                        break
                    l0p = l0
                    if pairs and pair_ok and not paper:
                        if l0 < pairs:
                            break
                        l0p = l0 - pairs
                    used = ch + 3 * pong + 2 * pairs
                    for adj in range(min(c0 - used, c1 - ch) + 1 if adj_ok else 1):
                        if paper or not adj:
                            splits = (0,)
                        elif lo_ok and hi_ok:
                            splits = range(adj + 1)
                        elif lo_ok:
                            splits = (adj,)
                        else:
                            splits = (0,)
                        for a in splits:
                            if adj and not paper and (a > lm or adj - a > k2):
                                continue
                            l2 = k2 if paper else k2 - (adj - a)
                            for gap in range(min(c0 - used - adj, c2 - ch) + 1 if gap_ok else 1):
                                if gap and not paper and l1 < gap:
                                    break
                                child = keys(
                                    t + 1, c1 - ch - adj, c2 - ch - gap, l0p, l1 if paper else l1 - gap, l2
                                )
                                if e2:
                                    child &= _NO_EYE_CODES  # one incompletable pair at most
                                dn = pairs + adj + gap
                                mask |= child << (((((ch + pong) << 4) | dn) << 4 | pairs) << 1 | e2)
        memo[key] = mask
        return mask

    if cut:
        # the best attributes any leaf can have: remainders are block tiles and KBs only shrink
        top_re = int(any(counts[x] and k[x] for x in range(size)))
        top_rm = int(any(counts[y] and _meldable(y, k, -1, honour) for y in range(size)))
    else:
        top_re = top_rm = 1  # (1, 1, 0) dominates every triple
    walk(0, 0, 0, 0, 0, total)
    walk = keys = None  # noqa: F811  (break the recursive closures' self-references: freed now, not by the gc)
    return types


#: Compact codes (see :func:`_reach_mask`) with e = 0.
_NO_EYE_CODES = sum(1 << c for c in range(0, 1 << 13, 2))

#: Blocks of fewer tiles are searched without the cuts of :func:`_search_types`.
_CUT_FROM = 9


@cache
def _reach_mask(tiles: int, room: int, e: int) -> int:
    """Every (dm, dn, dp, de) a local search can still add with ``tiles`` hand tiles left, at most
    ``room`` more melds and pmelds and ``e`` incompletable pairs so far, as bits of the compact code
    ``((m * 16 + n) * 16 + p) * 2 + e`` (additive: no field reaches 16, and e <= 1)."""
    mask = 0
    for a in range(min(room, tiles // 3) + 1):
        for b in range(min(room - a, (tiles - 3 * a) // 2) + 1):
            for pairs in range(b + 1):
                for de in range(min(pairs, 1 - e) + 1):
                    mask |= 1 << ((((a << 4) | b) << 4 | pairs) << 1 | de)
    return mask


@cache
def _room_mask(room: int, e: int) -> int:
    """Compact codes (see :func:`_reach_mask`) with dm + dn <= ``room`` and de <= 1 - ``e``."""
    mask = 0
    for a in range(room + 1):
        for b in range(room - a + 1):
            for pairs in range(16):
                for de in range(2 - e):
                    mask |= 1 << ((((a << 4) | b) << 4 | pairs) << 1 | de)
    return mask


@lru_cache(maxsize=1 << 16)
def _window_types(
    counts: tuple[int, ...], k: tuple[int, ...], honour: bool, max_elements: int, paper: bool, track: bool
) -> frozenset[tuple]:
    """Pruned local types of a block given as its zero-padded window (the memo behind _block_types)."""
    if track:
        return _local_search(counts, k, honour, max_elements, paper, track)
    if sum(counts) < _CUT_FROM:
        types = _eval_structures(_structures(counts, _kb_presence(counts, k), honour, max_elements), k, honour, paper)
    else:
        types = _search_types(counts, k, honour, max_elements, paper)
    return frozenset(_prune(types))


@lru_cache(maxsize=1 << 16)
def _structures(
    counts: tuple[int, ...], kpos: tuple[int, ...], honour: bool, max_elements: int
) -> tuple[tuple[int, int, int, int, tuple[int, ...], tuple[tuple[int, ...], ...], int], ...]:
    """The qDCMPs of a small block as (m, n, p, e, remainder, pmeld needs, single), KB copies
    unassigned (single: -1 for an empty remainder, the rank of a one-tile remainder, else the
    window size).

    The walk of :func:`_local_search` looks at the KB only through which ranks hold a copy
    (``kpos``: Definition 11 (3) taken pmeld by pmeld); how many copies there are only matters to
    the joint completion and the remainder attributes, which :func:`_eval_structures` works out per
    KB. So blocks that differ only in KB multiplicities share this memo (most misses of the type
    memo in mixed hands are such blocks).
    """
    size = len(counts)
    c = [*counts, 0, 0]  # padded: c[t + 1], c[t + 2] need no bounds checks
    rem = [0] * size
    needs: list[tuple[int, ...]] = []
    found: set[tuple] = set()
    # per rank, what the KB allows (Definition 11 (3)): pairs completable; the ranks completing a
    # (t t+1) pchow; a (t t+2) pchow; chows
    pair_ok = [bool(v) for v in kpos]
    adj_needs = [
        () if honour else tuple(z for z in (t - 1, t + 2) if 0 <= z < size and kpos[z]) for t in range(size)
    ]
    gap_k = [not honour and t + 2 < size and bool(kpos[t + 1]) for t in range(size)]
    chow_ok = [not honour and t + 2 < size for t in range(size)]
    tiles = sum(counts)

    def walk(t: int, m: int, n: int, p: int, e: int) -> None:
        while t < size and c[t] == 0:
            t += 1
        if t == size:
            # single: -1 for an empty remainder, the rank of a one-tile remainder, else the size
            left = tiles - 3 * m - 2 * n
            single = -1 if not left else size if left > 1 else rem.index(1)
            found.add((m, n, p, e, tuple(rem), tuple(sorted(needs)) if len(needs) > 1 else tuple(needs), single))
            return
        avail = c[t]
        c1 = c[t + 1]
        c2 = c[t + 2]
        max_chow = min(avail, c1, c2) if chow_ok[t] else 0
        adj_need = adj_needs[t]
        adj_ok = c1 > 0 and bool(adj_need)
        gap_ok = c2 > 0 and gap_k[t]
        pok = pair_ok[t]
        gap_need = (t + 1,)
        pair_need = (t,)
        c[t] = 0
        for ch in range(max_chow + 1):
            if ch:
                c[t + 1] -= 1
                c[t + 2] -= 1
            for pong in range(2 if avail - ch >= 3 else 1):
                for pairs in range((avail - ch - 3 * pong) // 2 + 1):
                    e2 = e if pok else e + pairs
                    if e2 > 1:
                        break
                    used = ch + 3 * pong + 2 * pairs
                    base = m + n + ch + pong + pairs
                    if base > max_elements:
                        break
                    mark = len(needs)
                    if pok and pairs:
                        needs.extend([pair_need] * pairs)
                    m2 = m + ch + pong
                    p2 = p + pairs
                    for adj in range(min(avail - used, c1 - ch) + 1 if adj_ok else 1):
                        if base + adj > max_elements:
                            break
                        if adj:
                            c[t + 1] -= adj
                            needs.extend([adj_need] * adj)
                        for gap in range(min(avail - used - adj, c2 - ch) + 1 if gap_ok else 1):
                            if base + adj + gap > max_elements:
                                break
                            rem[t] = avail - used - adj - gap  # the "pass" action, for the rest
                            if gap:
                                c[t + 2] -= gap
                                needs.extend([gap_need] * gap)
                                walk(t + 1, m2, n + pairs + adj + gap, p2, e2)
                                del needs[-gap:]
                                c[t + 2] += gap
                            else:
                                walk(t + 1, m2, n + pairs + adj, p2, e2)
                        if adj:
                            c[t + 1] += adj
                            del needs[-adj:]
                    del needs[mark:]
        if max_chow:
            c[t + 1] += max_chow
            c[t + 2] += max_chow
        rem[t] = 0
        c[t] = avail

    walk(0, 0, 0, 0, 0)
    walk = None  # break the recursive closure's self-reference (freed now, not by the gc)
    # per (m, n, p, e), fewest pmeld completions first: they leave the most KB to the remainder,
    # so the (1, 1, 0) that ends a key's evaluation tends to come first
    return tuple(sorted(found, key=_structure_order))


def _structure_order(x: tuple) -> tuple:
    return x[0], x[1], x[2], x[3], len(x[5])


def _kb_presence(counts: tuple[int, ...], k: tuple[int, ...]) -> tuple[int, ...]:
    """Which ranks hold a KB copy, kept only where the walk of :func:`_structures` asks: a pair's
    rank (two or more tiles there), the ends of a (z+1 z+2) or (z-2 z-1) pchow, the middle of a
    (z-1 z+1) pchow."""
    size = len(counts)
    out = [0] * size
    for z in range(size):
        if not k[z]:
            continue
        if (
            counts[z] >= 2
            or (z + 2 < size and counts[z + 1] and counts[z + 2])
            or (z >= 2 and counts[z - 2] and counts[z - 1])
            or (1 <= z < size - 1 and counts[z - 1] and counts[z + 1])
        ):
            out[z] = 1
    return tuple(out)


def _eval_structures(structs, k: tuple[int, ...], honour: bool, paper: bool) -> set[tuple]:
    """Types of the qDCMPs :func:`_structures` lists, under the local KB ``k`` (see
    :func:`_search_types` for what is returned: the same set once pruned)."""
    types: set[tuple] = set()
    done: set[tuple] = set()  # (m, n, p, e) already seen with (1, 1, 0)
    size = len(k)
    for m, n, p, e, rem, needs, single in structs:
        key = (m, n, p, e)
        if key in done:
            continue
        if single < 0:  # empty remainder: (0, 0, 0) whatever the KB, if the pmelds can be completed
            if paper or len(needs) < 2 or _leftover_kbs(needs, k):
                types.add((m, n, p, e, 0, 0, 0))
                done.add(key)
            continue
        if single < size and (paper or len(needs) < 2):
            # one remainder tile y and at most one pmeld completion, taking one copy of z from the
            # KB: re = a copy of y left, rm = a meld of y and two KB tiles, and the eye-meld
            # conflict whenever both hold (the eye and the meld would need y twice)
            for z in (-1,) if paper or not needs else needs[0]:
                re = 1 if k[single] - (z == single) > 0 else 0
                rm = 1 if _meldable(single, k, z, honour) else 0
                types.add((m, n, p, e, re, rm, re & rm))
            continue
        if paper or not needs:
            lefts = (k,)
        elif len(needs) == 1:
            lefts = []
            for z in needs[0]:
                left = list(k)
                left[z] -= 1
                lefts.append(tuple(left))
        else:
            lefts = _leftover_kbs(needs, k)
        if single < size:
            # one remainder tile y: re = a KB copy of y, rm = a meld of y and two KB tiles, and the
            # eye-meld conflict whenever both hold (the eye and the meld would need y twice)
            for left in lefts:
                re = 1 if left[single] else 0
                rm = 1 if _meldable(single, left, -1, honour) else 0
                types.add((m, n, p, e, re, rm, re & rm))
            continue
        for left in lefts:
            attrs = _remainder_attrs(rem, left, honour)
            types.add((m, n, p, e, *attrs))
            if attrs == (1, 1, 0):
                done.add(key)
                break
    return types


# --------------------------------------------------------------------------------------------------
# Fast path of Alg. 2/3 when no kill masks are tracked: type sets as bitsets
# --------------------------------------------------------------------------------------------------
# A type (m, n, p, e, re, rm, em) is stored as bit ``(m << 12) | (n << 8) | (p << 4) | e`` of the
# bitset of its flag class ``re * 4 + rm * 2 + em``. Four bits per field hold the sum of two legal
# values, so the m, n, p, e sums of Alg. 3 are additions of codes: joining two classes is a sumset
# (OR of shifts), and the Lemma 1 filter is an AND with a mask of legal codes.


def _code(m: int, n: int, p: int, e: int) -> int:
    return (m << 12) | (n << 8) | (p << 4) | e


@cache
def _legal_mask(cap: int) -> int:
    """Codes of types a qDCMP can have (Lemma 1 / Alg. 3 line 7) with at most ``cap`` elements."""
    mask = 0
    for m in range(cap + 1):
        for n in range(cap + 1 - m):
            for p in range(n + 1):
                for e in range(min(p, 1) + 1):
                    if m + n == cap and p == 0:
                        continue
                    mask |= 1 << _code(m, n, p, e)
    return mask


@cache
def _class_of_join(c1: int, c2: int) -> int:
    re1, rm1, em1 = c1 >> 2, (c1 >> 1) & 1, c1 & 1
    re2, rm2, em2 = c2 >> 2, (c2 >> 1) & 1, c2 & 1
    em = 1 if (em1 and not re2 and not rm2) or (em2 and not re1 and not rm1) else 0
    return ((re1 | re2) << 2) | ((rm1 | rm2) << 1) | em


@lru_cache(maxsize=1 << 16)
def _as_bitsets(types: frozenset[tuple]) -> tuple[int, ...]:
    out = [0] * 8
    for m, n, p, e, re, rm, em in types:
        out[(re << 2) | (rm << 1) | em] |= 1 << _code(m, n, p, e)
    return tuple(out)


def _sumset(a: int, b: int) -> int:
    """{x + y : x in a, y in b} for bitsets a, b (loops over the set bits of b)."""
    acc = 0
    while b:
        low = b & -b
        acc |= a << (low.bit_length() - 1)
        b ^= low
    return acc


def _join_bits(xs: tuple[int, ...], ys: tuple[int, ...], legal: int) -> list[int]:
    out = [0] * 8
    for c1 in range(8):
        a = xs[c1]
        if not a:
            continue
        for c2 in range(8):
            b = ys[c2]
            if b:
                if a.bit_count() < b.bit_count():
                    s = _sumset(b, a)
                else:
                    s = _sumset(a, b)
                out[_class_of_join(c1, c2)] |= s & legal
    return out


@cache
def _cost_masks(cls: int, ke: int, km: int, melds: int) -> tuple[tuple[int, int], ...]:
    """(cost, bitset of legal codes with that Decide cost) for one flag class, cheapest first."""
    re, rm, em = cls >> 2, (cls >> 1) & 1, cls & 1
    by_cost: dict[int, int] = {}
    legal = _legal_mask(melds + 1)
    for code in range(legal.bit_length()):
        if legal >> code & 1:
            m, n, p, e = code >> 12, (code >> 8) & 15, (code >> 4) & 15, code & 15
            d = decide((m, n, p, e, re, rm, em), ke, km, melds)
            if d < BIG:
                by_cost[d] = by_cost.get(d, 0) | (1 << code)
    return tuple(sorted(by_cost.items()))


def _min_cost_bits(total: list[int] | tuple[int, ...], ke: int, km: int, melds: int) -> int:
    best = BIG
    for cls in range(8):
        bits = total[cls]
        if not bits:
            continue
        for cost, mask in _cost_masks(cls, ke, km, melds):
            if cost >= best:
                break
            if bits & mask:
                best = cost
                break
    return best


def _kb_masks(kb: np.ndarray) -> tuple[int, int, int, int]:
    """Bit masks of the KB's pairs and melds (same bits as :func:`_block_types`) and their counts."""
    pairs = melds = 0
    n_pairs = n_melds = 0
    k = kb.tolist() if isinstance(kb, np.ndarray) else [int(v) for v in kb]
    for t, v in enumerate(k):
        if v >= 2:
            pairs |= 1 << t
            n_pairs += 1
        if v >= 3:
            melds |= 1 << t
            n_melds += 1
    for s in range(3):
        for r in range(7):
            b = 9 * s + r
            if k[b] and k[b + 1] and k[b + 2]:
                melds |= 1 << (34 + b)
                n_melds += 1
    return pairs, melds, n_pairs, n_melds


# --------------------------------------------------------------------------------------------------
# Alg. 2
# --------------------------------------------------------------------------------------------------
def _alg2(hand: np.ndarray, kb: np.ndarray, melds: int, paper: bool) -> int:
    """Alg. 2 on one hand: KB-blocks, local type sets, join (Alg. 3), Decide (Alg. 1)."""
    cap = melds + 1
    pair_bits, meld_bits, n_pairs, n_melds = _kb_masks(kb)
    ke, km = int(n_pairs > 0), int(n_melds > 0)  # the KB attributes of Sec. 4.3 (kb_attributes)
    # Completions use at most `cap` KB tiles; each can use up one KB pair and at most four KB melds
    # (a pong and three chows), so only a KB with few pairs / melds can lose all of them.
    track_e = not paper and 0 < n_pairs <= cap
    track_m = not paper and 0 < n_melds <= 4 * cap
    blocks = kb_blocks(hand, kb)
    legal = _legal_mask(cap)
    bits: tuple[int, ...] | list[int] = (1,) + (0,) * 7  # the empty type (0,...,0)
    for i, block in enumerate(blocks):
        ys = _as_bitsets(_block_types(block, kb, cap, paper, False))
        bits = tuple(y & legal for y in ys) if i == 0 else _join_bits(bits, ys, legal)
    best = _min_cost_bits(bits, ke, km, melds)
    if not (track_e or track_m):
        return best
    # Decide never costs less with ke or km lowered to 0, so the kill masks can only matter when
    # lowering them changes the answer; otherwise the masks need not be carried (the common case).
    if _min_cost_bits(bits, ke if not track_e else 0, km if not track_m else 0, melds) == best:
        return best
    track = True
    total = None
    for block in blocks:
        ts = _block_types(block, kb, cap, paper, track)
        total = ts if total is None else _prune(join(total, ts, melds))
    if total is None:  # no tiles: validation never lets this through
        total = {(0, 0, 0, 0, 0, 0, 0, 0, 0)}
    best = BIG
    for x in total:
        m, n, p = x[0], x[1], x[2]
        if m + n > cap or (m + n == cap and p == 0):
            continue  # Lemma 1 (a single block's set is not filtered by Alg. 3)
        ke_x = int(bool(pair_bits & ~x[7])) if track_e else ke
        km_x = int(bool(meld_bits & ~x[8])) if track_m else km
        d = decide(x[:7], ke_x, km_x, melds)
        if d == 0:
            return 0
        best = min(best, d)
    return best


@lru_cache(maxsize=1 << 16)
def _window_bits(
    counts: tuple[int, ...], k: tuple[int, ...], honour: bool, max_elements: int, paper: bool
) -> tuple[int, ...]:
    """Bitsets of the pruned local types of a block window keyed on its *raw* KB (no clamping).

    The first memo level of the lean Alg. 2 (:func:`_alg2_lists`): a hit skips
    :func:`_canonical_kb` and the type-set lookup; a miss goes through :func:`_window_types`
    (memoized on the clamped KB, so patterns the clamping merges still share one search).
    """
    if _compiled_search() and not paper:
        # the same pruned types from the compiled search (_bda.c), about 25x faster on a miss
        return tuple(int.from_bytes(b, "little") for b in _bda_ext.window_types(counts, k, honour, max_elements))
    if honour:
        return _as_bitsets(_window_types(counts, k, True, max_elements, paper, False))
    return _as_bitsets(_window_types(counts, _canonical_kb(list(counts), k), False, max_elements, paper, False))


def _compiled_search() -> bool:
    """Whether the compiled local search ``_bda`` is installed and not turned off by ``MJENV_NO_KERNEL``."""
    return _bda_ext is not None and not kernel_disabled()


def _alg2_lists(h: list[int], k: list[int], melds: int, paper: bool) -> int:
    """Alg. 2 on one hand given as lists of Python ints: the lean form of :func:`_alg2`.

    The same steps and results: KB-blocks (Definition 14, the scan of :func:`kb_blocks` inlined),
    each block's type set as bitsets from its zero-padded window (:func:`_window_bits`), the bitset
    join of Alg. 3 and Decide's minimum. When the kill masks of the corrected variant could change
    the answer (rare: few KB pairs or melds), it hands over to :func:`_alg2`, which carries them.
    """
    cap = melds + 1
    legal = _legal_mask(cap)
    bits = None
    size = len(h)
    for base in (0, 9, 18):
        hs = h[base : base + 9]
        if not any(hs):
            continue
        ks = [0, 0, *k[base : base + 9], 0, 0]  # ranks -2..10 of the suit: window slices need no checks
        avail = [a + b > 0 for a, b in zip(hs, ks[2:11])]
        lo = -1
        last = -10
        for r in range(10):
            if r < 9 and hs[r] == 0:
                continue
            if r < 9 and lo >= 0:
                d = r - last
                if (d == 1 and ((last >= 1 and avail[last - 1]) or (r <= 7 and avail[r + 1]))) or (
                    d == 2 and avail[last + 1]
                ):
                    last = r
                    continue
            if lo >= 0:  # close the block lo..last: window ranks lo-2..last+2
                ys = _window_bits(
                    (0, 0, *hs[lo : last + 1], 0, 0), tuple(ks[lo : last + 5]), False, cap, paper
                )
                if bits is None:
                    bits = [y & legal for y in ys]
                else:
                    bits = _join_bits(bits, ys, legal)
            lo = last = r
    for t in range(27, size):
        if h[t]:
            ys = _window_bits((h[t],), (k[t],), True, cap, paper)
            bits = [y & legal for y in ys] if bits is None else _join_bits(bits, ys, legal)
    if bits is None:
        bits = [1, 0, 0, 0, 0, 0, 0, 0]
    # the KB attributes of Sec. 4.3 and how many pairs / melds the KB holds (as in _kb_masks)
    n_pongs = k.count(3) + k.count(4)
    n_pairs = n_pongs + k.count(2)
    n_melds = n_pongs
    for base in (0, 9, 18):
        for t in range(base, base + 7):
            if k[t] and k[t + 1] and k[t + 2]:
                n_melds += 1
    ke, km = int(n_pairs > 0), int(n_melds > 0)
    best = _min_cost_bits(bits, ke, km, melds)
    if paper:
        return best
    track_e = 0 < n_pairs <= cap
    track_m = 0 < n_melds <= 4 * cap
    if not (track_e or track_m):
        return best
    if _min_cost_bits(bits, ke if not track_e else 0, km if not track_m else 0, melds) == best:
        return best
    return _alg2(np.array(h), np.array(k), melds, paper)


def deficiency_one(
    hand: np.ndarray, kb: np.ndarray, melds_needed: int, *, thirteen: str = "direct", variant: str = "corrected"
) -> int:
    """BDA deficiency of one hand.

    Args:
        hand: int[T] tile counts, T in {27, 34}, 3M+1 or 3M+2 tiles.
        kb: int[T] knowledge base.
        melds_needed: M, melds still needed (0..5).
        thirteen: ``"direct"`` (Alg. 2 on the 3M+1 hand) or ``"draw"`` (Definition 9's recursion
            over the drawn tile) for 3M+1 hands; ignored for 3M+2 hands.
        variant: ``"corrected"`` (default; see the module docstring) or ``"paper"`` (the text as
            written).

    Returns:
        The deficiency, or ``INCOMPLETABLE`` when Alg. 2 finds no completable type.
    """
    paper = _check_variant(variant)
    if thirteen not in ("direct", "draw"):
        raise ValueError(f"thirteen must be 'direct' or 'draw', got {thirteen!r}")
    h = hand.tolist() if isinstance(hand, np.ndarray) else [int(v) for v in hand]
    k = kb.tolist() if isinstance(kb, np.ndarray) else [int(v) for v in kb]
    return _one_lists(h, k, int(melds_needed), thirteen == "draw", paper)


def _one_lists(h: list[int], k: list[int], melds: int, draw: bool, paper: bool) -> int:
    """:func:`deficiency_one` on validated lists of Python ints."""
    if draw and sum(h) % 3 == 1:
        best = BIG
        for t in range(len(k)):
            if k[t] > 0:
                h[t] += 1
                k[t] -= 1
                best = min(best, _alg2_lists(h, k, melds, paper) + 1)
                h[t] -= 1
                k[t] += 1
    else:
        best = _alg2_lists(h, k, melds, paper)
    return INCOMPLETABLE if best >= BIG else best


def deficiency_batch(
    hands: np.ndarray,
    kbs: np.ndarray,
    melds_needed: np.ndarray,
    *,
    thirteen: str = "direct",
    variant: str = "corrected",
) -> np.ndarray:
    """BDA deficiency of a validated batch.

    Args:
        hands: int8[B, T] tile counts (T = 27 or 34).
        kbs: int8[B, T] knowledge bases with hands + kbs <= 4.
        melds_needed: int64[B] melds still needed (M).
        thirteen: how 3M+1 hands are handled (see :func:`deficiency_one`).
        variant: ``"corrected"`` (default) or ``"paper"`` (see the module docstring).

    Returns:
        int32[B]: the BDA deficiency, ``INCOMPLETABLE`` (99) where Alg. 2 finds nothing completable.
    """
    _check_variant(variant)
    if thirteen not in ("direct", "draw"):
        raise ValueError(f"thirteen must be 'direct' or 'draw', got {thirteen!r}")
    paper = variant == "paper"
    draw = thirteen == "draw"
    h = hands.tolist()
    k = kbs.tolist()
    m = melds_needed.tolist()
    return np.array([_one_lists(h[i], k[i], int(m[i]), draw, paper) for i in range(len(h))], dtype=np.int32)
