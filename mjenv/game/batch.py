"""Batched game checks in compiled code, with the Python engine's functions as the fallback.

The first block of the batch-first compiled step (issue 16): :func:`is_winning_batch` answers the
win check (``mjenv.game._win.is_winning_bytes``) for M hands in one C call. The batched step itself
(state arrays with a leading table dimension, masks, rewards, autoreset) is not built yet; the
game still runs on :class:`mjenv.game.engine.Game`.
"""

from __future__ import annotations

import numpy as np

from mjenv.game._win import is_winning_bytes

try:
    from mjenv.game import _step
except ImportError:  # no C compiler at install: the Python check gives the same answers
    _step = None


def available() -> bool:
    """Whether the compiled module ``mjenv.game._step`` is built."""
    return _step is not None


def is_winning_batch(hands: np.ndarray, seven_pairs: bool = False) -> np.ndarray:
    """Whether each concealed hand is complete (k melds + 1 pair, or seven pairs when allowed).

    Args:
        hands: int[M, T] tile counts, T = 27 or 34 (values 0..4).
        seven_pairs: also accept seven pairs.

    Returns:
        bool[M], equal to ``is_winning_bytes`` on each row.

    Raises:
        ValueError: when ``hands`` is not 2-D with 27 or 34 columns, or holds counts outside 0..4.
    """
    h = np.asarray(hands)
    if h.ndim != 2 or h.shape[1] not in (27, 34):
        raise ValueError(f"hands must have shape [M, 27] or [M, 34], got {h.shape}")
    if h.size and (h.min() < 0 or h.max() > 4):
        raise ValueError("hands must hold tile counts 0..4")
    h = np.ascontiguousarray(h, dtype=np.int8)
    if _step is None:
        return np.array([is_winning_bytes(row.tobytes(), seven_pairs) for row in h], dtype=bool)
    out = np.zeros(h.shape[0], dtype=np.uint8)
    _step.is_winning(h, h.shape[1], bool(seven_pairs), out)
    return out.astype(bool)
