"""Knowledge-aware deficiency features for one hand or a batch.

Each function evaluates all the modified hands it needs (one per discard, draw or claim) in one
vectorized pass of the exact ``dp`` backend. Draw and discard rows differ from the hand in one tile,
so they go through ``dp.deficiency_one_tile_rows`` (each part looked up once as it is and once per
modification of that part only); claim rows through ``dp.deficiency_batch``.

A useful identity: for a hand of 3m+3 tiles the definition's formula ``min_W sum max(0, W - H)``
(W of 3m+2 tiles) equals ``min_d dfncy(H - d)``: some tile of H is always outside W, and dropping
tiles never lowers the cost. So "draw t, then discard the best tile" is one evaluation of H + t.
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import dp
from mjenv.deficiency import seven_pairs as _seven_pairs
from mjenv.deficiency._validate import Batch, check_rules, normalize

#: Entry of a feature that does not apply (a discard of a tile not held, an impossible claim).
NOT_APPLICABLE = -1
#: Columns of :func:`deficiency_after_claim`, in the order of the game's claim actions.
#: The claims a seat can make on a discard, in action-id order (``mjenv.game.actions.CLAIM_NAMES`` starts
#: with these): the one name of each, the exposed kong included.
CLAIM_KINDS = ("chow_low", "chow_mid", "chow_high", "pong", "exposed_kong")


def _dp(hands: np.ndarray, kbs: np.ndarray, needed: np.ndarray) -> np.ndarray:
    if len(hands) == 0:
        return np.zeros(0, dtype=np.int32)
    return dp.deficiency_batch(hands.astype(np.int8), kbs.astype(np.int8), needed.astype(np.int64))


def _unwrap(x, single: bool):
    return x[0] if single else x


def deficiency_after_discard(hand, kb=None, *, exposed_melds=0, melds: int = 4, seven_pairs: str | None = None,
                             rules: str = "basic") -> np.ndarray:
    """Deficiency after discarding each tile type (the discarded tile does not return to the KB).

    Args:
        hand: a 3m+2-tile hand (str or int[T]) or a batch int[B, T].
        kb: knowledge base; None means 4 - hand.
        exposed_melds: int or int[B].
        melds: melds in a complete hand.
        seven_pairs: None, ``"distinct"`` or ``"fours"`` (:data:`mjenv.deficiency.seven_pairs.SEVEN_PAIRS`):
            a row with no exposed meld then takes ``min(melds-and-pair, seven pairs)``.
        rules: the set of winning forms, as :func:`mjenv.deficiency.deficiency` (a name of
            :data:`mjenv.deficiency.forms.RULES`: a row with no exposed meld also completes the closed-hand
            form it adds); not with ``seven_pairs``.

    Returns:
        int32[T] (or [B, T]): deficiency of the 3m+1-tile hand left after discarding t;
        ``NOT_APPLICABLE`` (-1) for tiles not held.
    """
    b = normalize(hand, kb, exposed_melds, melds)
    _require_sizes(b, 2, "deficiency_after_discard")
    # every row differs from the hand in one tile: one lookup per modified suit half (dp module)
    _, _, out = dp.deficiency_one_tile_rows(b.hands, b.kbs, b.melds_needed)
    closed, sp = _seven_pairs_rows(b, closed_form(seven_pairs, rules, melds), melds)
    if len(closed):
        out[closed] = np.minimum(out[closed], sp["discard"])
    out[b.hands <= 0] = NOT_APPLICABLE
    return _unwrap(out, b.single)


def effective_tiles(hand, kb=None, *, exposed_melds=0, melds: int = 4, seven_pairs: str | None = None,
                    rules: str = "basic"):
    """Tiles whose draw lowers the deficiency, and how many copies of them the KB holds.

    For a 3m+1-tile hand, t is effective when KB[t] > 0 and dfncy(H + t, KB - t) < dfncy(H, KB). For a
    3m+2-tile hand, when some discard after drawing t gives a lower deficiency than now (see the
    module docstring: one evaluation of the 3m+3-tile hand H + t). With ``seven_pairs`` or
    a ``rules`` that adds a closed-hand form (as in :func:`deficiency_after_discard`) the deficiency of a
    row with no exposed meld is the least over its winning forms, before and after the draw.

    Returns:
        (mask, count): bool[T] (or [B, T]) effective tile types and int (or int64[B]) total KB copies
        of them.
    """
    b = normalize(hand, kb, exposed_melds, melds)
    # the rows (H + t, KB - t) differ from the hand in one tile: see dp.deficiency_one_tile_rows
    now, after, _ = dp.deficiency_one_tile_rows(b.hands, b.kbs, b.melds_needed)
    closed, sp = _seven_pairs_rows(b, closed_form(seven_pairs, rules, melds), melds)
    if len(closed):
        now[closed] = np.minimum(now[closed], sp["now"])
        after[closed] = np.minimum(after[closed], sp["draw"])
    mask = (b.kbs > 0) & (after < now[:, None])
    count = (mask * b.kbs).sum(axis=1).astype(np.int64)
    if b.single:
        return mask[0], int(count[0])
    return mask, count


def closed_form(seven_pairs, rules, melds: int) -> int:
    """The closed-hand form code (``seven_pairs.SEVEN_PAIRS``) a feature call asks for: the
    ``seven_pairs`` form, or the one ``rules`` adds (``_validate.RULES``), or 0.

    Raises:
        ValueError: a form or rules name that does not exist, both given, or a form with ``melds``
            other than 4 (seven pairs and thirteen orphans are 14-tile hands).
    """
    by_rules = check_rules(rules, melds)
    form = _seven_pairs.check_seven_pairs(seven_pairs)
    if form and by_rules:
        raise ValueError(f"give seven_pairs={seven_pairs!r} or rules={rules!r}, not both")
    if form and melds != 4:
        raise ValueError(f"seven_pairs needs melds=4 (14-tile hands), got melds={melds!r}")
    return form or by_rules


def _seven_pairs_rows(b: Batch, form: int, melds: int) -> tuple[np.ndarray, dict]:
    """Rows with no exposed meld and their closed-hand form variants (:func:`seven_pairs.variants`), or
    no rows when ``form`` is 0 (:func:`closed_form`)."""
    if form == 0:
        return np.zeros(0, dtype=np.int64), {}
    closed = np.flatnonzero(b.melds_needed == melds)
    return closed, _seven_pairs.variants(b.hands[closed], b.kbs[closed], form, discard_draw=False)


def is_complete(hand, *, melds: int | None = None, rules: str = "basic") -> bool | np.ndarray:
    """Whether a hand of any size is complete: 3k+2 tiles forming k melds and one pair.

    Args:
        hand: str, int[T] or batch int[B, T]; any size (sizes not 3k+2 are never complete).
        melds: if given, additionally require k == melds (e.g. 4 for a closed 14-tile hand).
        rules: a name of :data:`mjenv.deficiency.forms.RULES`: a 14-tile hand (k = 4) of the closed-hand
            form it adds (seven distinct pairs or thirteen orphans) is complete too.

    Returns:
        bool, or bool[B] for a batch.
    """
    form = check_rules(rules, 4)
    b = normalize(hand, None, 0, 5, allow_any_size=True)
    sizes = b.hands.sum(axis=1)
    ok = sizes % 3 == 2
    if melds is not None:
        ok &= (sizes - 2) // 3 == melds
    out = np.zeros(len(sizes), dtype=bool)
    idx = np.flatnonzero(ok)
    if len(idx):
        zero_kb = np.zeros_like(b.hands[idx])
        out[idx] = _dp(b.hands[idx], zero_kb, (sizes[idx] - 2) // 3) == 0
        if form:  # the closed-hand form the rules add (14 tiles, no declared meld)
            rows = idx[sizes[idx] == 14]
            out[rows] |= _seven_pairs.seven_pairs_deficiency(b.hands[rows], np.zeros_like(b.hands[rows]), form) == 0
    return bool(out[0]) if b.single else out


def deficiency_after_claim(hand, kb=None, discard=None, *, exposed_melds=0, melds: int = 4, rules: str = "basic"
                           ) -> np.ndarray:
    """Deficiency after claiming a discarded tile by chow, pong or exposed kong.

    The claimed tile was discarded, so it is already out of the KB; the KB is unchanged. After a chow
    or pong the hand holds 3(m-1)+2 tiles and must discard; after a kong it holds 3(m-1)+1 and draws a
    replacement, so its deficiency counts that draw.

    Args:
        hand: a 3m+1-tile hand or a batch.
        kb: knowledge base; None means 4 - hand - the discard.
        discard: the discarded tile id (int, or int[B]).
        exposed_melds: int or int[B]; each claim exposes one more meld.
        rules: a name of :data:`mjenv.deficiency.forms.RULES`; checked, the same values for each:
            after a claim the hand has an exposed meld, so only m melds + a pair can complete it.

    Returns:
        int32[5] (or [B, 5]) in the order of ``CLAIM_KINDS`` (chow with the claimed tile lowest,
        middle, highest; pong; kong); ``NOT_APPLICABLE`` where the claim is impossible.
    """
    check_rules(rules, melds)
    if discard is None:
        raise ValueError("deficiency_after_claim needs discard=<tile id of the discarded tile>")
    if kb is None:
        h0 = normalize(hand, None, exposed_melds, melds)
        d0 = _discard_ids(discard, h0)
        kbs = (4 - h0.hands).astype(np.int16)
        kbs[np.arange(len(kbs)), d0] -= 1
        if (kbs < 0).any():
            raise ValueError("the hand already holds 4 copies of the discarded tile; at most 3 may be held")
        kb = kbs if not h0.single else kbs[0]
    b = normalize(hand, kb, exposed_melds, melds)
    _require_sizes(b, 1, "deficiency_after_claim")
    n_b, n_t = b.hands.shape
    d = _discard_ids(discard, b)
    suited = d < 27
    rank = d % 9
    # tiles taken from the hand for each claim kind (offsets relative to the discard)
    uses = {
        "chow_low": ((1, 2), suited & (rank <= 6)),
        "chow_mid": ((-1, 1), suited & (rank >= 1) & (rank <= 7)),
        "chow_high": ((-2, -1), suited & (rank >= 2)),
        "pong": ((0, 0), np.ones(n_b, bool)),
        "exposed_kong": ((0, 0, 0), np.ones(n_b, bool)),
    }
    out = np.full((n_b, len(CLAIM_KINDS)), NOT_APPLICABLE, dtype=np.int32)
    all_h, all_k, all_m, slots = [], [], [], []
    for col, kind in enumerate(CLAIM_KINDS):
        offsets, ok = uses[kind]
        hands = b.hands.astype(np.int16).copy()
        rows = np.arange(n_b)
        for off in offsets:
            tiles = np.clip(d + off, 0, n_t - 1)
            hands[rows, tiles] -= 1
        ok = ok & (hands >= 0).all(axis=1) & (b.melds_needed >= 1)
        idx = np.flatnonzero(ok)
        all_h.append(hands[idx])
        all_k.append(b.kbs[idx])
        all_m.append(b.melds_needed[idx] - 1)
        slots.append((idx, col))
    vals = _dp(np.concatenate(all_h), np.concatenate(all_k), np.concatenate(all_m))
    pos = 0
    for idx, col in slots:
        out[idx, col] = vals[pos : pos + len(idx)]
        pos += len(idx)
    return _unwrap(out, b.single)


def _discard_ids(discard, b: Batch) -> np.ndarray:
    """``discard`` (int or int[B]) as int64[B], checked before it indexes anything."""
    n_b, n_t = b.hands.shape
    d = np.asarray(discard)
    if d.dtype.kind not in "iu" or d.ndim > 1 or (d.ndim == 1 and len(d) != n_b):
        raise ValueError(
            f"discard must be a tile id (int) or {n_b} tile ids (int[B]) in 0..{n_t - 1}, got {discard!r}"
        )
    if (d < 0).any() or (d >= n_t).any():  # on the values as given, before the cast
        raise ValueError(f"discard must be a tile id in 0..{n_t - 1} (the hand has {n_t} tile types), got {discard!r}")
    return np.broadcast_to(d, (n_b,)).astype(np.int64)


def _require_sizes(b: Batch, remainder: int, name: str) -> None:
    sizes = b.hands.sum(axis=1).astype(np.int64)
    bad = sizes != 3 * b.melds_needed + remainder
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name} needs a hand of 3m+{remainder} tiles (m = melds - exposed_melds = "
            f"{int(b.melds_needed[i])}), got {int(sizes[i])} tiles"
        )


def effective_count_after_discard(hand, kb=None, *, exposed_melds=0, melds: int = 4, rules: str = "basic"
                                  ) -> np.ndarray:
    """KB copies of the effective tiles left after discarding each tile type.

    For a 3m+2-tile hand H and each held t: the ``effective_count`` of the 3m+1-tile hand H - t
    (copies u in the KB with dfncy(H - t + u, KB - u) < dfncy(H - t, KB); the discarded copy does not
    return to the KB). It is the greedy agent's tie-break between discards of equal deficiency.

    Args:
        hand: a 3m+2-tile hand (str or int[T]) or a batch int[B, T].
        kb: knowledge base; None means 4 - hand.
        exposed_melds: int or int[B].
        melds: melds in a complete hand.
        rules: a name of :data:`mjenv.deficiency.forms.RULES` (a row with no exposed meld also completes
            the closed-hand form it adds).

    Returns:
        int64[T] (or [B, T]); ``NOT_APPLICABLE`` (-1) for tiles not held.
    """
    form = check_rules(rules, melds)
    b = normalize(hand, kb, exposed_melds, melds)
    _require_sizes(b, 2, "effective_count_after_discard")
    if form:
        out = discard_rows(b.hands, b.kbs, b.melds_needed, np.where(b.melds_needed == melds, form, 0))[1]
        return _unwrap(out, b.single)
    out = effective_count_after_discard_rows(b.hands, b.kbs, b.melds_needed)
    return _unwrap(out, b.single)


def effective_count_after_discard_rows(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """:func:`effective_count_after_discard` of validated rows (int[B, T] hands of 3m+2 tiles, KBs, m)."""
    return discard_rows(hands, kbs, melds_needed)[1]


def discard_rows(
    hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray, seven_pairs: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Deficiency and effective-tile count after discarding each held tile, for validated rows.

    Args:
        hands: int[B, T] hands of 3m+2 tiles.
        kbs: int[B, T] knowledge bases (hands + kbs <= 4).
        melds_needed: int[B] m.
        seven_pairs: None, or int[B] per row the closed-hand form that also completes it (index in
            ``mjenv.deficiency.forms.SEVEN_PAIRS``, 0 = none, 3 = seven distinct pairs or thirteen
            orphans): that row's deficiency is then the minimum of melds-and-pair and that
            form, for H - t and for every draw after it.

    Returns:
        (dfncy int32[B, T], effective int64[B, T]): the deficiency of H - t and the KB copies of the
        tiles whose draw lowers it (the discarded copy does not return to the KB); ``NOT_APPLICABLE``
        (-1) in both where t is not held.
    """
    hands = np.asarray(hands, dtype=np.int8)
    kbs = np.asarray(kbs, dtype=np.int8)
    needed = np.asarray(melds_needed, dtype=np.int64)
    out_d = np.full(hands.shape, NOT_APPLICABLE, dtype=np.int32)
    out_e = np.full(hands.shape, NOT_APPLICABLE, dtype=np.int64)
    rows, tiles = np.nonzero(hands > 0)
    if len(rows) == 0:
        return out_d, out_e
    after = hands[rows].copy()
    after[np.arange(len(rows)), tiles] -= 1
    k = kbs[rows]
    # every draw row (H - t + u, KB - u) differs from H - t in one tile: dp.deficiency_one_tile_rows
    now, drawn, _ = dp.deficiency_one_tile_rows(after, k, needed[rows])
    # a closed-hand form (seven pairs, thirteen orphans) also completes the rows whose form allows it
    for form, sel in _seven_pairs.form_rows(None if seven_pairs is None else np.asarray(seven_pairs)[rows]):
        seats, inverse = np.unique(rows[sel], return_inverse=True)
        sp = _seven_pairs.variants(hands[seats], kbs[seats], form, discard_draw=True)
        now[sel] = np.minimum(now[sel], sp["discard"][inverse, tiles[sel]])
        drawn[sel] = np.minimum(drawn[sel], sp["discard_draw"][inverse, tiles[sel]])
    eff = (k > 0) & (drawn < now[:, None])
    out_d[rows, tiles] = now
    out_e[rows, tiles] = (eff * k).sum(axis=1, dtype=np.int64)
    return out_d, out_e
