"""Knowledge-aware deficiency (shanten) of Mahjong hands, for one hand or a batch.

The definition every method agrees with (``../shared/DESIGN.md``): for a hand H, a knowledge base KB
(counts the player believes still available) and m melds still needed,

    dfncy(H, KB) = min over complete patterns W (m melds + 1 pair, W <= H + KB)
                   of sum_t max(0, W[t] - H[t])

and ``INCOMPLETABLE`` when no W fits. Methods:

=========  ===========================================================  ==========================
method     what                                                         exact
=========  ===========================================================  ==========================
``hbba``   HBBA paper: KB-blocks, UKOS, UKE, HBB layers (default)       always
``bda``    BDA paper: KB-blocks, 7-attribute types, Alg. 1-3            when the result is <= 4
``dp``     our vectorized DP over tile positions (numpy; torch device)  always
``ndde``   NDDE paper: discrete differential evolution                  no (heuristic, not KB-aware)
=========  ===========================================================  ==========================

Every function takes a batch (B, 27|34) and a single hand is a batch of one. The commonest call,
``deficiency(hand)`` / ``deficiency(hand, kb)`` with 1-D integer arrays and the default method, skips
the batch: a lean validation, then ``hbba`` directly, and a bounded memo of recent answers keyed on
the arrays' dtype and bytes (only validated calls are stored, so bad input still raises).
"""

from __future__ import annotations

import importlib

import numpy as np

from mjenv.deficiency._validate import METHODS, Batch, check_method, fast_single, normalize
from mjenv.deficiency.dp import INCOMPLETABLE

__all__ = [
    "INCOMPLETABLE",
    "METHODS",
    "deficiency",
    "deficiency_after_claim",
    "deficiency_after_discard",
    "effective_tiles",
    "is_complete",
]

_BACKEND_MODULES = {
    "hbba": "mjenv.deficiency.hbba",
    "bda": "mjenv.deficiency.bda",
    "dp": "mjenv.deficiency.dp",
    "ndde": "mjenv.deficiency.ndde",
}


#: Answers of recent single-hand ``hbba`` calls (see :func:`deficiency`), emptied when full.
_HAND_MEMO: dict[tuple, int] = {}
_HAND_MEMO_SIZE = 1 << 15


def _backend(method: str):
    check_method(method)
    return importlib.import_module(_BACKEND_MODULES[method])


def run_batch(batch: Batch, method: str = "dp", **options) -> np.ndarray:
    """Run a backend on an already validated :class:`Batch`; returns int32[B]."""
    mod = _backend(method)
    if len(batch.hands) == 0:
        return np.zeros(0, dtype=np.int32)
    return np.asarray(mod.deficiency_batch(batch.hands, batch.kbs, batch.melds_needed, **options), dtype=np.int32)


def deficiency(hand, kb=None, *, method: str = "hbba", exposed_melds=0, melds: int = 4, **options):
    """Knowledge-aware deficiency of one hand or a batch.

    Args:
        hand: mps or papers' notation, int[27|34] counts, or a batch int[B, 27|34].
        kb: knowledge base in the same forms; None means ``4 - hand`` (ordinary shanten + 1).
        method: ``"hbba"`` (exact, default), ``"bda"`` (fast, exact when <= 4), ``"dp"`` (exact,
            vectorized), ``"ndde"`` (heuristic).
        exposed_melds: melds already exposed (int, or int[B] for a batch).
        melds: melds in a complete hand: 4, or 5 for 16-tile rule sets.
        **options: backend options (e.g. ``device="cuda"`` for ``dp``; ``seed`` for ``ndde``).

    Returns:
        int for one hand, int32[B] for a batch; ``INCOMPLETABLE`` (99) where no completion fits the KB.

    Raises:
        ValueError: bad shape, counts outside 0..4, a hand size that does not fit ``exposed_melds``,
            a KB incompatible with the hand, an unknown method, unparseable notation.
    """
    if method == "hbba" and not options:
        # the commonest call: one hand as a 1-D integer array. A hand seen before is answered from
        # a bounded memo keyed on the raw bytes of its arrays (with the dtype, so equal bytes mean
        # equal counts; only validated calls are stored, so invalid input still raises); a new one
        # is validated without building a batch.
        key = None
        if type(hand) is np.ndarray and hand.ndim == 1 and type(exposed_melds) is int and type(melds) is int:
            if kb is None:
                key = (hand.dtype.str, hand.tobytes(), exposed_melds, melds)
            elif type(kb) is np.ndarray:
                key = (hand.dtype.str, hand.tobytes(), kb.dtype.str, kb.tobytes(), exposed_melds, melds)
            if key is not None:
                got = _HAND_MEMO.get(key)
                if got is not None:
                    return got
        lean = fast_single(hand, kb, exposed_melds, melds)
        if lean is not None:
            from mjenv.deficiency.hbba import hbba_lists

            out = hbba_lists(*lean)
            if key is not None:
                if len(_HAND_MEMO) >= _HAND_MEMO_SIZE:
                    _HAND_MEMO.clear()
                _HAND_MEMO[key] = out
            return out
    check_method(method)
    batch = normalize(hand, kb, exposed_melds, melds)
    out = run_batch(batch, method, **options)
    return int(out[0]) if batch.single else out


from mjenv.deficiency.features import (  # noqa: E402  (features use run_batch defined above)
    deficiency_after_claim,
    deficiency_after_discard,
    effective_tiles,
    is_complete,
)
