"""Deficiency under Sichuan constraints: a missing suit (定缺) and seven pairs (七对).

Sichuan Mahjong (the game the BDA paper, Sec. 7, names as the one its algorithm was built for) plays
108 tiles (the three suits, no honours). Each player declares a missing suit at the start and cannot
win while holding a tile of it; seven pairs is a winning hand (a four of a kind counts as two pairs,
the "dragon seven pairs" 龙七对 of the common Sichuan fan tables). The deficiency of the definition in
``docs/DESIGN.md`` becomes

    dfncy_s(H, KB) = min over complete patterns W with W[t] = 0 for every t of the missing suit,
                     W <= H + KB, of sum_t max(0, W[t] - H[t])

where W is either m melds + 1 pair (the ordinary definition) or, with no exposed meld, seven pairs
(W[t] in {0, 2, 4}, sum 14). Tiles of the missing suit in H are never part of W, so each costs one
exchange: the definition charges them without any special case.

Why the ordinary engines answer the first half exactly: the cost sum_t max(0, W[t] - H[t]) with
W[t] = 0 on the missing suit does not depend on H there, so it equals the ordinary deficiency of H
and KB with the missing suit's counts set to 0 (the engines compute the formula over positions and
do not use the hand's size). The tests check this against the enumerating reference
(:mod:`mjenv.deficiency.reference`, ``exclude_suit`` and ``seven_pairs``).
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency._run import run_batch
from mjenv.deficiency._validate import Batch, normalize
from mjenv.deficiency.seven_pairs import seven_pairs_deficiency

#: Returned when no complete pattern fits (same value as the public constant).
INCOMPLETABLE = 99
#: Suit letters in tile-id order (``mjenv.tiles``: ids 0..8 bamboo, 9..17 characters, 18..26 dots).
SUITS = ("s", "m", "p")


def check_missing_suit(missing_suit) -> int:
    """``missing_suit`` as the suit index of ``mjenv.tiles.suit_of``: 0 ('s'), 1 ('m') or 2 ('p').

    Raises:
        ValueError: anything else (booleans included).
    """
    if isinstance(missing_suit, str) and missing_suit in SUITS:
        return SUITS.index(missing_suit)
    if isinstance(missing_suit, (int, np.integer)) and not isinstance(missing_suit, bool) and 0 <= missing_suit <= 2:
        return int(missing_suit)
    raise ValueError(
        f"missing_suit must be None, 0/'s' (bamboo), 1/'m' (characters) or 2/'p' (dots), got {missing_suit!r}"
    )


def without_suit(counts, missing) -> np.ndarray:
    """A copy of ``counts`` with the missing suit's 9 entries set to 0 (the one writer of that step:
    the features, the greedy agent and flat MC all go through it).

    Args:
        counts: int[T] counts (a hand or a KB) or a batch int[B, T]; the dtype is kept.
        missing: the suit (0..2), -1 for none; or for a batch int[B], one suit (or -1) per row.

    Returns:
        Same shape and dtype as ``counts``.
    """
    out = np.array(counts, copy=True)
    missing = np.asarray(missing)
    if missing.ndim == 0:
        if missing >= 0:
            out[..., 9 * int(missing) : 9 * int(missing) + 9] = 0
        return out
    for s in range(3):
        out[missing == s, 9 * s : 9 * s + 9] = 0
    return out


def sichuan_deficiency(hand, kb=None, *, missing_suit, exposed_melds=0, seven_pairs: bool = True, method: str = "auto"):
    """Deficiency of a Sichuan hand: no tile of ``missing_suit`` in the completion; seven pairs allowed.

    Args:
        hand: int[27|34] counts or a batch int[B, 27|34] (mps notation accepted), as ``deficiency``.
        kb: knowledge base in the same forms; None means ``4 - hand``.
        missing_suit: 0/'s', 1/'m' or 2/'p' (the suit index of ``mjenv.tiles.suit_of``), or for
            a batch a sequence of B of these.
        exposed_melds: melds already exposed (int or int[B]); seven pairs needs none.
        seven_pairs: count seven pairs as a complete pattern (Sichuan does).
        method: an exact engine of :func:`mjenv.deficiency.deficiency` for the meld half.

    Returns:
        int for one hand, int32[B] for a batch; ``INCOMPLETABLE`` (99) where nothing fits.

    Raises:
        ValueError: anything ``deficiency`` rejects, a bad ``missing_suit``, or ``method="ndde"``
            (not exact).
    """

    if method == "ndde":
        raise ValueError("sichuan_deficiency needs an exact method: auto, hbba, bda or dp (ndde is a heuristic)")
    batch = normalize(hand, kb, exposed_melds, 4)
    n = len(batch.hands)
    if isinstance(missing_suit, (list, tuple, np.ndarray)):
        if batch.single or len(missing_suit) != n:
            raise ValueError(f"missing_suit holds {len(missing_suit)} suits for a batch of {n} hands (one per row)")
        missing = np.array([check_missing_suit(s) for s in missing_suit], dtype=np.int64)
    else:
        missing = np.full(n, check_missing_suit(missing_suit), dtype=np.int64)
    kept = Batch(without_suit(batch.hands, missing), without_suit(batch.kbs, missing), batch.melds_needed, batch.single)
    out = run_batch(kept, method)
    if seven_pairs:
        # the missing suit's counts are 0 in ``kept``, so it offers no pair and costs nothing there
        closed = np.asarray(batch.melds_needed) == 4
        pairs = seven_pairs_deficiency(kept.hands, kept.kbs, "fours")
        out = np.where(closed, np.minimum(out, pairs), out).astype(np.int32)
    return int(out[0]) if batch.single else out


def best_missing_suit(hand, kb=None) -> int:
    """The suit cheapest to declare missing: least Sichuan deficiency, then fewest tiles held of it,
    then the lowest suit index (the rule the greedy agent is to use for 定缺).

    Args:
        hand: int[27|34] counts of a 13- or 14-tile hand (mps notation accepted).
        kb: knowledge base, None for ``4 - hand``.

    Returns:
        The suit index (``tiles.suit_of``): 0 bamboo, 1 characters, 2 dots.

    Raises:
        ValueError: whatever :func:`sichuan_deficiency` rejects (a batch included).
    """
    batch = normalize(hand, kb, 0, 4)
    if not batch.single:
        raise ValueError("best_missing_suit takes one hand, not a batch")
    h = batch.hands[0]
    hands = np.repeat(batch.hands, 3, axis=0)
    kbs = np.repeat(batch.kbs, 3, axis=0)
    costs = sichuan_deficiency(hands, kbs, missing_suit=[0, 1, 2])
    return min(range(3), key=lambda s: (int(costs[s]), int(h[9 * s : 9 * s + 9].sum()), s))
