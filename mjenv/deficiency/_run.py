"""Running a deficiency backend on a validated batch (:func:`run_batch`): shared by the public calls of
:mod:`mjenv.deficiency` and the modules it imports, so that none of them imports the package itself."""

from __future__ import annotations

import importlib

import numpy as np

from mjenv.deficiency import seven_pairs as _closed
from mjenv.deficiency._validate import Batch, check_method
from mjenv.deficiency.kernel import disabled as kernel_disabled

try:  # built by setup.py (optional extension)
    from mjenv.deficiency import _fast
except ImportError:  # pragma: no cover - depends on the install
    _fast = None

_BACKEND_MODULES = {
    "hbba": "mjenv.deficiency.hbba",
    "bda": "mjenv.deficiency.bda",
    "dp": "mjenv.deficiency.dp",
    "ndde": "mjenv.deficiency.ndde",
}



def _backend(method: str):
    return importlib.import_module(_BACKEND_MODULES[method])


def _fast_ready() -> bool:
    """Whether the compiled engine ``_fast`` is installed (its tables loaded on first use).

    ``MJENV_NO_KERNEL=1`` (see :mod:`mjenv.deficiency.kernel`) turns it off too, so that a run can be
    checked without any compiled code; it is read on each call, as the kernel does.
    """
    global _fast_tables
    if _fast is None or kernel_disabled():
        return False
    if not _fast_tables:
        from mjenv.deficiency import _dp_tables

        _fast.setup(*_dp_tables.half_tables(), np.ndarray)
        _fast_tables = True
    return True


_fast_tables = False
#: Batches of fewer rows than this go through the compiled engine under ``method="auto"``.
_FAST_BATCH_MAX = 512


def run_batch(batch: Batch, method: str = "dp", *, form: int = 0, **options) -> np.ndarray:
    """Run a backend on an already validated :class:`Batch`; returns int32[B].

    Args:
        batch: validated rows (:func:`normalize` with ``melds=4`` when ``form`` is set).
        method: one of :data:`METHODS`; it computes the m-melds-and-a-pair half.
        form: a closed-hand form's code (``forms.SEVEN_PAIRS``; :data:`mjenv.deficiency.forms.RULES` maps a rule name to
            it), 0 for none: each row with no exposed meld (melds needed 4) takes the least of the two.
        **options: the method's options.

    Raises:
        ValueError: an unknown method, or an option the method does not take.
    """
    check_method(method, options)
    if len(batch.hands) == 0:
        return np.zeros(0, dtype=np.int32)
    if method == "auto":
        # small batches: one C loop (about 0.5 us a hand); large ones: numpy dp, whose per-call
        # overhead is spread over the batch and whose KB = 4 - H tables skip the boundary join
        out = _fast_rows(batch.hands, batch.kbs, batch.melds_needed, form)
        if out is not None:
            return out
        method = "dp"
    mod = _backend(method)
    out = np.asarray(mod.deficiency_batch(batch.hands, batch.kbs, batch.melds_needed, **options), dtype=np.int32)
    if form:
        closed = np.flatnonzero(batch.melds_needed == 4)
        if len(closed):
            extra = _closed.seven_pairs_deficiency(batch.hands[closed], batch.kbs[closed], _closed.SEVEN_PAIRS[form])
            out[closed] = np.minimum(out[closed], extra)
    return out


def deficiency_rows(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray) -> np.ndarray:
    """The melds-and-pair deficiency of rows that need no validation, of any hand size (a part of a hand, such as
    its simples): the compiled ``dp`` method in one C loop where it is built (a few microseconds for a few rows),
    else :func:`mjenv.deficiency.dp.deficiency_batch` (numpy; the same values).

    Args:
        hands, kbs: int8[B, T] counts (T = 27 or 34) with hands + kbs <= 4.
        melds_needed: int[B], 0..5.

    Returns:
        int32[B]: deficiency, INCOMPLETABLE where no complete pattern fits the KB.
    """
    out = _fast_rows(hands, kbs, melds_needed)
    if out is not None:
        return out
    return np.asarray(_backend("dp").deficiency_batch(hands, kbs, melds_needed), dtype=np.int32)


def _fast_rows(hands, kbs, melds_needed, form: int = 0) -> np.ndarray | None:
    """int32[B] from the compiled ``dp`` loop (with the closed-hand form ``form``) for a small batch (1 to
    ``_FAST_BATCH_MAX - 1`` rows) where it is built; None otherwise (the caller runs numpy dp)."""
    if not 0 < len(hands) < _FAST_BATCH_MAX or not _fast_ready():
        return None
    out = np.empty(len(hands), dtype=np.int32)
    _fast.batch(np.ascontiguousarray(hands, dtype=np.int8), np.ascontiguousarray(kbs, dtype=np.int8),
                np.ascontiguousarray(melds_needed, dtype=np.int64), out, form, 4)
    return out
