"""Knowledge-aware deficiency (shanten) of Mahjong hands, for one hand or a batch.

The definition every method agrees with (``docs/DESIGN.md``): for a hand H, a knowledge base KB
(counts the player believes still available) and m melds still needed,

    dfncy(H, KB) = min over complete patterns W (m melds + 1 pair, W <= H + KB)
                   of sum_t max(0, W[t] - H[t])

and ``INCOMPLETABLE`` when no W fits. ``rules="riichi"`` takes the least over Riichi's winning forms:
m melds + a pair and, for a hand with no exposed meld, seven distinct pairs (four copies of a tile are
not two pairs) and thirteen orphans, each with its own complete patterns W in the same formula
(``mjenv.deficiency.seven_pairs``). Methods:

=========  ===========================================================  ==================================
method     what                                                         exact
=========  ===========================================================  ==================================
``auto``   the default: the fastest exact engine installed (see below)  always
``hbba``   HBBA paper: KB-blocks, UKOS, UKE, HBB layers                 always
``bda``    BDA paper: KB-blocks, 7-attribute types, Alg. 1-3            when the true deficiency is <= 4
                                                                        (Theorem 3; a rare cross-block
                                                                        exception, see ``bda``)
``dp``     our vectorized DP over tile positions (numpy; torch device)  always
``ndde``   NDDE paper: discrete differential evolution                  no (heuristic, not KB-aware)
=========  ===========================================================  ==================================

``auto`` (the default) is no separate algorithm: it gives the exact value, the same as ``hbba`` and
``dp``, by the fastest exact engine installed. For one hand that is the compiled table method of
``_fast.c`` (the ``dp`` tables in C, validation included, a few microseconds a call); for a batch the
same in one C loop below 512 rows and the numpy ``dp`` above; without a C compiler, ``hbba`` for one
hand (with a bounded memo of recent answers) and ``dp`` for a batch. ``method="hbba"`` always runs
the HBBA paper's algorithm.

Every function takes a batch (B, 27|34) and a single hand is a batch of one. Counts are checked on
the values as given, before any cast (integers of any dtype, or floats holding whole numbers; no
booleans). An unknown option is a ``ValueError`` naming the method's options, for every method.
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import _run
from mjenv.deficiency._run import _FAST_BATCH_MAX, _backend, _fast, _fast_ready, run_batch  # noqa: F401
from mjenv.deficiency._validate import (  # noqa: F401  (Batch: importable from the package)
    METHODS,
    RULES,
    Batch,
    check_method,
    check_rules,
    fast_single,
    normalize,
)
from mjenv.deficiency.dp import INCOMPLETABLE
from mjenv.deficiency.forms import check_missing_suit, without_suit
from mjenv.deficiency.seven_pairs import seven_pairs_deficiency

__all__ = [
    "INCOMPLETABLE",
    "METHODS",
    "RULES",
    "deficiency",
    "deficiency_after_claim",
    "deficiency_after_discard",
    "effective_tiles",
    "is_complete",
]

#: Answers of recent single-hand ``hbba`` calls (see :func:`deficiency`), emptied when full.
_HAND_MEMO: dict[tuple, int] = {}
_HAND_MEMO_SIZE = 1 << 15


#: The default ``rules``: the same object, so the hot path tells it by identity (any other value, an
#: equal string included, goes through :func:`check_rules`).
_BASIC = "basic"


def deficiency(hand, kb=None, *, method: str = "auto", exposed_melds=0, melds: int = 4, missing_suit=None,
               rules: str = _BASIC, **options):
    """Knowledge-aware deficiency of one hand or a batch.

    What the default runs: ``method="auto"`` gives the exact deficiency (equal to ``hbba`` and
    ``dp`` on every input; the tests compare all three with the brute-force reference) by the
    fastest exact engine installed: the compiled ``dp`` table method (``_fast.c``) when mjenv was
    built with a C compiler (for one hand, and batches under 512 rows; larger batches run the
    numpy ``dp``), else ``hbba`` for one hand and ``dp`` for a batch. Ask for
    ``method="hbba"`` to run the HBBA paper's algorithm itself.

    Args:
        hand: mps or papers' notation, int[27|34] counts, or a batch int[B, 27|34]. Counts are
            integers (any integer dtype, or floats holding whole numbers) in 0..4.
        kb: knowledge base in the same forms; None means ``4 - hand`` (ordinary shanten + 1).
        method: ``"auto"`` (exact, default; see above), ``"hbba"`` (exact, the HBBA paper),
            ``"bda"`` (the BDA paper; exact when the true deficiency is <= 4), ``"dp"`` (exact,
            vectorized), ``"ndde"`` (heuristic).
        exposed_melds: melds already exposed (int, or int[B] for a batch).
        melds: melds in a complete hand: 4, or 5 for 16-tile rule sets.
        missing_suit: None (no constraint), or Sichuan's declared suit, 0/'s', 1/'m', 2/'p' (``tiles.suit_of``; a
            sequence of B for a batch): no tile of it in the completion, and seven pairs counts as
            complete (:func:`sichuan_deficiency`); needs ``melds=4`` and no ``options``.
        **options: backend options (``device`` for ``dp``; ``thirteen``, ``variant`` for ``bda``;
            ``seed``, ``population``, ``generations``, ``mutation_factor``, ``crossover_rate`` for
            ``ndde``; none for ``auto`` and ``hbba``).
        rules: the set of winning forms (:data:`RULES`): ``"basic"`` (the default; m melds + a pair,
            the papers' definition) or ``"riichi"``: the least of m melds + a pair (honours as pongs
            and pairs) and, for a hand with no exposed meld, seven distinct pairs (four copies of a
            tile are not two pairs) and thirteen orphans (the 13 terminals and honours once, one of
            them twice; needs 34 tile types, else only the other forms count). Needs ``melds=4`` and
            no ``missing_suit``. ``method`` computes the melds-and-pair half; the other two are exact
            closed forms (``mjenv.deficiency.seven_pairs``).

    Returns:
        int for one hand, int32[B] for a batch; ``INCOMPLETABLE`` (99) where no completion fits the KB.

    Raises:
        ValueError: bad shape, counts outside 0..4 (or not whole numbers, or booleans), a hand size
            that does not fit ``exposed_melds``, a KB incompatible with the hand, an unknown method or
            option, unparseable notation, ``rules`` not in :data:`RULES` (or ``"riichi"`` with
            ``melds`` other than 4 or with a ``missing_suit``).
    """
    form = 0 if rules is _BASIC else check_rules(rules, melds)
    if form:
        # Riichi: melds-and-pair, seven distinct pairs, thirteen orphans
        if missing_suit is not None:
            raise ValueError(f"missing_suit (Sichuan) does not combine with rules={rules!r}")
        if method == "auto" and not options and _run._fast_ready():  # the engine as _run holds it now
            got = _run._fast.one(hand, kb, exposed_melds, melds, form)
            if got is not None:
                return got
        check_method(method, options)
        batch = normalize(hand, kb, exposed_melds, melds)
        out = run_batch(batch, method, form=form, **options)
        return int(out[0]) if batch.single else out
    if missing_suit is not None:
        # Sichuan constraint (kept out of the fast path of the ordinary call)
        if melds != 4 or options:
            raise ValueError("missing_suit (Sichuan) takes melds=4 and no backend options")
        return sichuan_deficiency(hand, kb, missing_suit=missing_suit, exposed_melds=exposed_melds, method=method)
    if method == "auto" and not options and _run._fast_ready():
        # the commonest call: validated and answered in C; None means "not the plain valid call"
        got = _run._fast.one(hand, kb, exposed_melds, melds)
        if got is not None:
            return got
    elif (method == "hbba" or method == "auto") and not options:
        # one hand as a 1-D integer array, without the compiled engine: a hand seen before is
        # answered from a bounded memo keyed on the raw bytes of its arrays (with the dtype, so equal
        # bytes mean equal counts; only validated calls are stored, so invalid input still raises);
        # a new one is validated without building a batch.
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
    check_method(method, options)
    batch = normalize(hand, kb, exposed_melds, melds)
    out = run_batch(batch, method, **options)
    return int(out[0]) if batch.single else out



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


from mjenv.deficiency.features import (  # noqa: E402  (the public names above first)
    deficiency_after_claim,
    deficiency_after_discard,
    effective_tiles,
    is_complete,
)
