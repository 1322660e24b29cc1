"""Seven pairs and thirteen orphans: the closed-hand forms' deficiency of many hands and of their
one-tile variants, in closed form (numpy).

Not from the papers. Where a rule set lets seven pairs win (``Rules.seven_pairs``), or lets seven
distinct pairs and thirteen orphans win, a seat with no declared meld may complete either m melds
+ a pair or one of these forms, so every deficiency feature of the observation is the minimum of the
forms (:mod:`mjenv.deficiency.seat_features`). Each form is the definition of ``docs/DESIGN.md`` with
its own complete patterns W (``W <= H + KB``, ``sum W = 14``)::

    dfncy_f(H, KB) = min over such W of sum_t max(0, W[t] - H[t])

The forms by code (their names: :data:`mjenv.deficiency.forms.SEVEN_PAIRS`):

- 1: seven pairs, W[t] in {0, 2} (basic's seven pairs, :func:`mjenv.game.is_winning`: four copies of a
  tile are not two pairs);
- 2: seven pairs, W[t] in {0, 2, 4} (a four of a kind counts as two pairs);
- 3: the minimum of form 1 and thirteen orphans (W holds each of the 13 terminals and honours once and
  one of them twice).

Closed form of seven pairs. Take W one pair at a time: tile t offers a first pair when
``a = H[t] + KB[t] >= 2``, at cost ``max(0, 2 - H[t])``, and (``"fours"``) a second one when ``a == 4``,
at the extra cost ``max(0, 4 - H[t]) - max(0, 2 - H[t])``. Each cost is 0, 1 or 2, and a tile's second
pair never costs less than its first, so the seven cheapest offers always form a valid W (a tile's
second pair is taken only with its first) and are optimal: a function of the counts (n0, n1, n2) of
offers of each cost.

Closed form of thirteen orphans. W needs every orphan available (``a >= 1``); it costs one per orphan
not held, plus the second copy of the doubled orphan: nothing when some orphan is held twice, one when
none is but some orphan has ``a >= 2``, impossible otherwise. A function of four counts over the
orphans: how many have ``a >= 1``, ``H = 0``, ``H >= 2``, ``a >= 2``.

So each tile contributes a vector of counts (:func:`offer_table`, ``[tile, h, a]``) and the deficiency
is a function of their sum (:func:`from_counts`): a draw or a discard changes the counts of one tile
only, and the variants the features need (each draw, each discard, each discard then draw) are a few
additions. The tests (``tests/test_seven_pairs_features.py`` and the closed forms' own) check every
value against the enumerating reference (:mod:`mjenv.deficiency.reference`).

A suit left out of the completion needs nothing here: the features' inputs have its counts set to 0 in
hand and KB (:func:`mjenv.deficiency.forms.without_suit`), so its tiles offer no pair.
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency.forms import SEVEN_PAIRS, check_seven_pairs  # noqa: F401  (importable from here too)

#: Returned when no pattern of the form fits (same value as the public constant).
INCOMPLETABLE = 99
#: The thirteen orphans' tile ids (terminals 1 and 9 of each suit, then the seven honours).
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
#: Fields of the count vector, 8 bits each in one int64 (as ``_closed.h`` packs them): the seven-pairs
#: offers of cost 0, 1, 2, then the orphans with ``a >= 1``, with ``h == 0``, with ``h >= 2`` and with
#: ``a >= 2`` (``a = h + KB``). Packed vectors add and subtract as integers: any sum of them whose fields
#: all lie in 0..255 unpacks to the sum of the vectors.
NUM_FIELDS = 7


def form_rows(forms) -> list[tuple[int, np.ndarray]]:
    """The rows of each closed-hand form: ``[(form, rows), ...]`` for the forms 1..3 present.

    The one loop over the forms of a batch whose rows may each allow a different seven pairs (the
    greedy agent's and flat MC's afterstates, the features' discard rows).

    Args:
        forms: None, or int[B] per row its form code (:func:`check_seven_pairs`; 0 none).

    Returns:
        (form, int64[k] row indices) for each form with at least one row, in code order; [] for None.
    """
    if forms is None:
        return []
    forms = np.asarray(forms)
    out = []
    for form in range(1, len(SEVEN_PAIRS)):
        rows = np.flatnonzero(forms == form)
        if len(rows):
            out.append((form, rows))
    return out


def offer_table(form: int) -> np.ndarray:
    """int64[34, 5, 5]: ``[t, h, a]`` is the packed count vector (:data:`NUM_FIELDS`) that tile t held h
    times with a available (h + KB; entries with a < h are never read) adds; :func:`from_counts`
    reads their sum."""
    fields = np.zeros((34, 5, 5, NUM_FIELDS), dtype=np.int64)
    for h in range(5):
        for a in range(h, 5):
            if a >= 2:
                fields[:, h, a, max(0, 2 - h)] += 1  # the first pair
            if form == 2 and a >= 4:
                fields[:, h, a, max(0, 4 - h) - max(0, 2 - h)] += 1  # the second pair of a four
            if form == 3:
                fields[list(ORPHANS), h, a, 3:] += (a >= 1, h == 0, h >= 2, a >= 2)
    return (fields << (8 * np.arange(NUM_FIELDS))).sum(axis=-1)


_OFFERS = {form: offer_table(form) for form in range(1, len(SEVEN_PAIRS))}


def from_counts(n: np.ndarray, form: int = 1) -> np.ndarray:
    """Deficiency from summed count vectors: the seven cheapest pair offers, and (form 3) thirteen
    orphans.

    Args:
        n: int64[...] sums of :func:`offer_table` entries (packed, 8 bits a field).
        form: the form's code (1..3).

    Returns:
        int32[...]; ``INCOMPLETABLE`` where no pattern of the form fits.
    """
    n = np.asarray(n, dtype=np.int64)
    n0, n1, n2 = n & 255, (n >> 8) & 255, (n >> 16) & 255
    need = np.maximum(7 - n0, 0)
    ones = np.minimum(n1, need)
    out = np.where(n0 + n1 + n2 < 7, INCOMPLETABLE, ones + 2 * (need - ones))
    if form == 3:
        present, missing, doubled, two = ((n >> shift) & 255 for shift in (24, 32, 40, 48))
        orphans = np.where((present < 13) | (two == 0), INCOMPLETABLE, missing + (doubled == 0))
        out = np.minimum(out, orphans)
    return out.astype(np.int32)


def _lookup(form: int, h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The packed count vectors of every tile of rows: int64[..., T] for h, a int[..., T]."""
    return _OFFERS[form][np.arange(h.shape[-1]), h, a]


def seven_pairs_deficiency(hands, kbs, seven_pairs: str | int = "fours") -> np.ndarray:
    """Closed-hand form deficiency of validated rows.

    Args:
        hands: int[B, T] counts (any size: the formula does not use it).
        kbs: int[B, T] knowledge bases, ``hands + kbs <= 4``.
        seven_pairs: a form's name (:data:`SEVEN_PAIRS`, not None) or its code.

    Returns:
        int32[B]; ``INCOMPLETABLE`` (99) where no pattern of the form fits.

    Raises:
        ValueError: ``seven_pairs`` not a form.
    """
    if isinstance(seven_pairs, (int, np.integer)) and not isinstance(seven_pairs, bool):
        form = int(seven_pairs) if 0 < seven_pairs < len(SEVEN_PAIRS) else check_seven_pairs(seven_pairs)
    else:
        form = check_seven_pairs(seven_pairs)
    if form == 0:
        raise ValueError(f"seven_pairs_deficiency needs a form, one of {SEVEN_PAIRS[1:]}, not None")
    h = np.asarray(hands, dtype=np.int64)
    return from_counts(_lookup(form, h, h + np.asarray(kbs, dtype=np.int64)).sum(axis=-1), form)


def variants(hands: np.ndarray, kbs: np.ndarray, form: int, discard_draw: bool) -> dict[str, np.ndarray]:
    """Closed-hand form deficiency of the rows and of their one-tile variants (the features' rows).

    Args:
        hands: int[S, T] counts; kbs: int[S, T] knowledge bases.
        form: a form's code, 1..3 (:func:`check_seven_pairs`).
        discard_draw: also the rows after each discard then each draw.

    Returns:
        ``now`` int32[S] (H, KB); ``draw`` int32[S, T] (H + u, KB - u; meaningful where KB[u] > 0);
        ``discard`` int32[S, T] (H - t, KB: the discarded copy does not return to the KB; meaningful
        where H[t] > 0); with ``discard_draw``, ``discard_draw`` int32[S, T, T] (``[s, t, u]``:
        H - t + u, KB - u; meaningful where H[t] > 0 and KB[u] > 0).
    """
    h = np.asarray(hands, dtype=np.int64)
    a = h + np.asarray(kbs, dtype=np.int64)
    hd, ad = np.maximum(h - 1, 0), np.maximum(a - 1, 0)  # clipped where the variant does not apply
    own = _lookup(form, h, a)  # (S, T) packed
    total = own.sum(axis=1)  # (S,)
    d_draw = _lookup(form, np.minimum(h + 1, 4), a) - own  # the change of tile u's counts when u is drawn
    after = total[:, None] + _lookup(form, hd, ad) - own  # (S, T): t discarded, one fewer held and available
    out = {
        "now": from_counts(total, form),
        "draw": from_counts(total[:, None] + d_draw, form),
        "discard": from_counts(after, form),
    }
    if discard_draw:
        both = after[:, :, None] + d_draw[:, None, :]  # u != t: the two tiles change independently
        diag = np.arange(h.shape[1])
        # u == t: back to h held, a - 1 available
        both[:, diag, diag] = after + _lookup(form, h, ad) - _lookup(form, hd, ad)
        out["discard_draw"] = from_counts(both, form)
    return out
