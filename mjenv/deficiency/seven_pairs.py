"""Seven-pairs deficiency of many hands and of their one-tile variants, in closed form (numpy).

Not from the papers. Where a rule set lets seven pairs win (``Rules.seven_pairs``), a seat with no
declared meld may complete either m melds + a pair or seven pairs, so every deficiency feature of the
observation is the minimum of the two (:mod:`mjenv.deficiency.seat_features`). The seven-pairs half is
the definition of ``docs/DESIGN.md`` with W[t] in {0, 2} (``"distinct"``: basic's seven pairs,
:func:`mjenv.game.is_winning`) or {0, 2, 4} (``"fours"``: Sichuan, where a four of a kind counts as
two pairs, 龙七对), ``sum W = 14`` and ``W <= H + KB``::

    dfncy_7(H, KB) = min over such W of sum_t max(0, W[t] - H[t])

Closed form. Take W one pair at a time: tile t offers a first pair when ``a = H[t] + KB[t] >= 2``, at
cost ``max(0, 2 - H[t])``, and (``"fours"``) a second one when ``a == 4``, at the extra cost
``max(0, 4 - H[t]) - max(0, 2 - H[t])``. Each cost is 0, 1 or 2, and a tile's second pair never
costs less than its first, so the seven cheapest offers always form a valid W (a tile's second pair
is taken only with its first) and are optimal. The deficiency is therefore a function of the counts
(n0, n1, n2) of offers of each cost (:func:`from_counts`), and a draw or a discard changes the offers
of one tile only: the variants the features need (each draw, each discard, each discard then draw)
are a few additions. ``tests/test_seven_pairs_features.py`` checks every value against the
enumerating reference (:func:`mjenv.deficiency.reference.reference_seven_pairs`).

The missing suit (Sichuan) needs nothing here: the features' inputs have its counts set to 0 in hand
and KB (``mjenv.deficiency.sichuan``), so its tiles offer no pair.
"""

from __future__ import annotations

import numpy as np

#: The seven-pairs forms a rule set may allow: none, distinct pairs, or four of a kind as two pairs.
SEVEN_PAIRS = (None, "distinct", "fours")
#: Returned when no seven pairs fit (same value as the public constant).
INCOMPLETABLE = 99


def check_seven_pairs(seven_pairs) -> int:
    """The form's index in :data:`SEVEN_PAIRS` (0 none, 1 distinct, 2 fours; the kernel's code).

    Raises:
        ValueError: anything else.
    """
    for i, name in enumerate(SEVEN_PAIRS):
        if seven_pairs is name or (isinstance(seven_pairs, str) and seven_pairs == name):
            return i
    raise ValueError(f"seven_pairs must be one of {SEVEN_PAIRS}, got {seven_pairs!r}")


def form_rows(forms) -> list[tuple[int, np.ndarray]]:
    """The rows of each seven-pairs form: ``[(form, rows), ...]`` for the forms 1 and 2 present.

    The one loop over the forms of a batch whose rows may each allow a different seven pairs (the
    greedy agent's and flat MC's afterstates, the features' discard rows).

    Args:
        forms: None, or int[B] per row its form (:func:`check_seven_pairs`: 0 none, 1 distinct, 2 fours).

    Returns:
        (form, int64[k] row indices) for each form with at least one row, form 1 first; [] for None.
    """
    if forms is None:
        return []
    forms = np.asarray(forms)
    out = []
    for form in (1, 2):
        rows = np.flatnonzero(forms == form)
        if len(rows):
            out.append((form, rows))
    return out


def _offers(form: int) -> np.ndarray:
    """int64[5, 5, 3]: ``[h, a]`` counts the pair offers of cost 0, 1, 2 of a tile held h times with a
    available (h + KB; entries with a < h are never read)."""
    out = np.zeros((5, 5, 3), dtype=np.int64)
    for h in range(5):
        for a in range(h, 5):
            if a >= 2:
                out[h, a, max(0, 2 - h)] += 1  # the first pair
            if form == 2 and a >= 4:
                out[h, a, max(0, 4 - h) - max(0, 2 - h)] += 1  # the second pair of a four
    return out


_OFFERS = {form: _offers(form) for form in (1, 2)}


def from_counts(n: np.ndarray) -> np.ndarray:
    """Deficiency from offer counts: the sum of the seven cheapest offers.

    Args:
        n: int[..., 3] counts of offers of cost 0, 1 and 2.

    Returns:
        int32[...]; ``INCOMPLETABLE`` where fewer than seven pairs fit.
    """
    n0, n1, n2 = n[..., 0], n[..., 1], n[..., 2]
    need = np.maximum(7 - n0, 0)
    ones = np.minimum(n1, need)
    out = ones + 2 * (need - ones)
    return np.where(n0 + n1 + n2 < 7, INCOMPLETABLE, out).astype(np.int32)


def seven_pairs_deficiency(hands, kbs, seven_pairs: str = "fours") -> np.ndarray:
    """Seven-pairs deficiency of validated rows.

    Args:
        hands: int[B, T] counts (any size: the formula does not use it).
        kbs: int[B, T] knowledge bases, ``hands + kbs <= 4``.
        seven_pairs: ``"distinct"`` or ``"fours"`` (:data:`SEVEN_PAIRS`).

    Returns:
        int32[B]; ``INCOMPLETABLE`` (99) where no seven pairs fit.

    Raises:
        ValueError: ``seven_pairs`` not a form.
    """
    form = check_seven_pairs(seven_pairs)
    if form == 0:
        raise ValueError("seven_pairs_deficiency needs a form, 'distinct' or 'fours', not None")
    h = np.asarray(hands, dtype=np.int64)
    offers = _OFFERS[form][h, h + np.asarray(kbs, dtype=np.int64)]
    return from_counts(offers.sum(axis=-2))


def variants(hands: np.ndarray, kbs: np.ndarray, form: int, discard_draw: bool) -> dict[str, np.ndarray]:
    """Seven-pairs deficiency of the rows and of their one-tile variants (the features' rows).

    Args:
        hands: int[S, T] counts; kbs: int[S, T] knowledge bases.
        form: 1 (distinct) or 2 (fours), :func:`check_seven_pairs`.
        discard_draw: also the rows after each discard then each draw.

    Returns:
        ``now`` int32[S] (H, KB); ``draw`` int32[S, T] (H + u, KB - u; meaningful where KB[u] > 0);
        ``discard`` int32[S, T] (H - t, KB: the discarded copy does not return to the KB; meaningful
        where H[t] > 0); with ``discard_draw``, ``discard_draw`` int32[S, T, T] (``[s, t, u]``:
        H - t + u, KB - u; meaningful where H[t] > 0 and KB[u] > 0).
    """
    table = _OFFERS[form]
    h = np.asarray(hands, dtype=np.int64)
    a = h + np.asarray(kbs, dtype=np.int64)
    hd, ad = np.maximum(h - 1, 0), np.maximum(a - 1, 0)  # clipped where the variant does not apply
    own = table[h, a]  # (S, T, 3)
    total = own.sum(axis=1)  # (S, 3)
    d_draw = table[np.minimum(h + 1, 4), a] - own  # the change of tile u's offers when u is drawn
    after = total[:, None] + table[hd, ad] - own  # (S, T, 3): t discarded, one fewer held and available
    out = {"now": from_counts(total), "draw": from_counts(total[:, None] + d_draw), "discard": from_counts(after)}
    if discard_draw:
        both = after[:, :, None] + d_draw[:, None, :]  # u != t: the two tiles change independently
        diag = np.arange(h.shape[1])
        both[:, diag, diag] = after + table[h, ad] - table[hd, ad]  # u == t: back to h held, a - 1 available
        out["discard_draw"] = from_counts(both)
    return out
