"""Whether hands of any size contain m melds and a pair: deficiency 0 with an empty knowledge base.

Not from the papers. Flat Monte Carlo (SIMCAT, ``mjenv.baselines.flatmc``) keeps every tile a
simulated hand picks and asks, for tens of thousands of reachable hands per decision, whether some of
their tiles form the m melds and the pair still needed. That is the deficiency with an empty KB being
0 (the definition in ``docs/DESIGN.md``: with KB = 0 a pattern W fits only inside H, at cost 0), which
the batched ``dp`` core answers exactly. ``_fast.c``'s ``contains`` answers the same question from a
per-suit table (the most melds of a suit with and without a pair; see that file), a few tens of
nanoseconds a hand instead of about a microsecond; ``tests/test_contains.py`` checks both against
each other and an enumerating reference. ``engine="numpy"`` (or ``MJENV_NO_KERNEL=1``, or no C
compiler at install) runs the ``dp`` core: same answers.
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import dp
from mjenv.deficiency.kernel import disabled as kernel_disabled

try:  # built by setup.py (optional extension)
    from mjenv.deficiency import _fast
except ImportError:  # pragma: no cover - depends on the install
    _fast = None

#: Engines of :func:`contains_complete`.
ENGINES = ("auto", "numpy")


def compiled() -> bool:
    """Whether :func:`contains_complete` runs the compiled check (``engine="auto"``)."""
    return _fast is not None and hasattr(_fast, "contains") and not kernel_disabled()


def contains_complete(hands: np.ndarray, melds_needed: np.ndarray, engine: str = "auto") -> np.ndarray:
    """Which hands contain ``melds_needed`` melds and a pair among their tiles.

    Args:
        hands: int[B, T] tile counts, T = 27 or 34, each 0..4, any hand size.
        melds_needed: int[B] melds m (0..5 for the ``dp`` core; any m >= 0 for the compiled check).
        engine: ``"auto"`` (the compiled check when installed) or ``"numpy"`` (the ``dp`` core).

    Returns:
        bool[B].

    Raises:
        ValueError: an unknown engine, a shape other than (B, 27|34) with B melds, a count outside 0..4.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    needed = np.ascontiguousarray(melds_needed, dtype=np.int64).reshape(-1)
    if hands.ndim != 2 or hands.shape[1] not in (27, 34) or len(needed) != len(hands):
        raise ValueError(
            f"hands must be int[B, 27|34] with one melds_needed per row, got shape {hands.shape} "
            f"and {len(needed)} melds_needed"
        )
    if len(hands) == 0:
        return np.zeros(0, dtype=bool)
    if engine == "auto" and compiled():
        out = np.empty(len(hands), dtype=np.uint8)
        _fast.contains(hands, needed, out)
        return out.view(bool)
    if hands.min() < 0 or hands.max() > 4:
        raise ValueError("contains(): a tile count outside 0..4")
    return dp.deficiency_batch(hands, np.zeros_like(hands), needed) == 0
