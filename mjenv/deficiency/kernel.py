"""The compiled feature kernel (``_kernel.c``): every observation feature of a batch of seats in one call.

Not from the papers: a C port of the ``dp`` one-tile-variant feature path (see ``_kernel.c``), built
at install time as an optional extension. Where it could not be built (no C compiler), mjenv uses
the numpy path of :class:`mjenv.observation.DeficiencyFeatures`, which gives the same values; the
tests compare the two exactly.

Set the environment variable ``MJENV_NO_KERNEL=1`` to force the numpy path (for comparisons).
"""

from __future__ import annotations

import functools
import os
import warnings

import numpy as np

from mjenv.deficiency import _dp_tables as _tables

try:  # built by setup.py (optional extension)
    from mjenv.deficiency import _kernel as _ext
except ImportError:  # pragma: no cover - depends on the install
    _ext = None

__all__ = ["VIEW_ORDER", "available", "bound_observe", "features", "observe"]

#: Claim kinds of the ``after_claim`` columns (``mjenv.deficiency.features.CLAIM_KINDS``).
NUM_CLAIM_KINDS = 5


def available() -> bool:
    """Whether the compiled kernel is installed and not disabled by ``MJENV_NO_KERNEL``."""
    return _ext is not None and not disabled()


def disabled() -> bool:
    """Whether ``MJENV_NO_KERNEL`` asks for the numpy path."""
    return os.environ.get("MJENV_NO_KERNEL", "") not in ("", "0")


_warned = False


def warn_missing() -> None:
    """Warn once per process that the kernel is not installed (not when ``MJENV_NO_KERNEL`` chose so)."""
    global _warned
    if _ext is None and not disabled() and not _warned:
        _warned = True
        warnings.warn(
            "mjenv: the compiled kernel mjenv.deficiency._kernel is not installed (no C compiler when mjenv was "
            "installed); observations use the numpy path, identical but about 8x slower. Install a C compiler "
            "(e.g. apt install gcc python3-dev) and reinstall mjenv to build it; MJENV_NO_KERNEL=1 silences this.",
            RuntimeWarning,
            stacklevel=3,
        )


def _require():
    """The extension module; RuntimeError when it is not installed."""
    if _ext is None:
        raise RuntimeError("the compiled kernel mjenv.deficiency._kernel is not installed (no C compiler at install)")
    return _ext


def _table_buffers(num_tile_types: int) -> tuple:
    left, right = _tables.half_tables()
    if num_tile_types == 34:
        h4, h3 = _tables.honour_tables()
    else:
        h4 = h3 = np.zeros(0, dtype=np.uint8)
    return left, right, h4, h3


def features(hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok) -> dict[str, np.ndarray]:
    """Deficiency features of S seats (the contract of ``DeficiencyFeatures.compute``).

    Args:
        hands: int[S, T] concealed counts (T = 27 or 34).
        kbs: int[S, T] knowledge bases, ``0 <= hands``, ``0 <= kbs``, ``hands + kbs <= 4``.
        melds_needed: int[S] melds still needed, 0..5.
        discard_turn: bool[S] whether the seat discards now.
        claim_tile: int[S] the discard this seat could claim, -1 for none.
        chow_ok: bool[S] whether this seat may chow it.

    Returns:
        dict of fresh arrays: ``deficiency`` int32[S], ``deficiency_after_discard`` int32[S, T] (-1
        where not applicable), ``effective_tiles`` bool[S, T], ``effective_count`` int64[S],
        ``deficiency_after_claim`` int32[S, 5] (-1 where not applicable).

    Raises:
        RuntimeError: the kernel is not installed (check :func:`available` first).
        ValueError: counts, melds or claim tiles out of range.
    """
    ext = _require()
    hands = np.ascontiguousarray(hands, dtype=np.int8)
    if hands.ndim != 2 or hands.shape[1] not in (27, 34):
        raise ValueError(f"hands must have shape (S, 27) or (S, 34), got {hands.shape}")
    s_n, t = hands.shape
    kbs = np.ascontiguousarray(kbs, dtype=np.int8)
    if kbs.shape != hands.shape:
        raise ValueError(f"kbs must have the hands' shape {hands.shape}, got {kbs.shape}")
    out = {
        "deficiency": np.empty(s_n, dtype=np.int32),
        "deficiency_after_discard": np.empty((s_n, t), dtype=np.int32),
        "effective_tiles": np.empty((s_n, t), dtype=np.bool_),
        "effective_count": np.empty(s_n, dtype=np.int64),
        "deficiency_after_claim": np.empty((s_n, NUM_CLAIM_KINDS), dtype=np.int32),
    }
    ext.features(
        *_table_buffers(t), hands, kbs,
        np.ascontiguousarray(melds_needed, dtype=np.int64).reshape(s_n),
        np.ascontiguousarray(discard_turn, dtype=np.uint8).reshape(s_n),
        np.ascontiguousarray(claim_tile, dtype=np.int64).reshape(s_n),
        np.ascontiguousarray(chow_ok, dtype=np.uint8).reshape(s_n),
        out["deficiency"], out["deficiency_after_discard"], out["effective_tiles"].view(np.uint8),
        out["effective_count"], out["deficiency_after_claim"],
    )  # fmt: skip
    return out


#: The observation views ``observe`` writes, in the order of its ``offsets`` argument.
VIEW_ORDER = (
    "hand", "melds", "num_melds", "discards", "last_discard", "last_discarder", "knowledge_base", "wall_count",
    "dealer", "phase", "deficiency", "deficiency_after_discard", "effective_tiles", "effective_count",
    "deficiency_after_claim",
)  # fmt: skip


def observe(tiles, discards, offsets, num_melds, last, who, wall, dealer, phase, turn_seat, claim, chow_seat,
            melds, out: np.ndarray, deficiency: np.ndarray) -> None:  # fmt: skip
    """The four seats' observations of one game state, written into ``out`` (one C call).

    Args:
        tiles: int8[9, T]: the four concealed hands, the four seats' meld counts, the public counts.
        discards: int16[4, D] ordered discards, -1 padded.
        offsets: int64[len(VIEW_ORDER)] start of each view in the flat observation.
        num_melds: four ints, declared melds per seat.
        last, who: the discard awaiting claims and its discarder (-1 for none).
        wall, dealer, phase: tiles left, the dealer's seat, the phase index.
        turn_seat: the seat on its discard turn, -1 for none.
        claim: the tile the other seats may claim now, -1 for none.
        chow_seat: the seat that may chow it, -1 for none.
        melds: melds in a complete hand.
        out: float32[4, size] C-contiguous, overwritten (views not in VIEW_ORDER are zeroed).
        deficiency: int32[4], receives each seat's deficiency.
    """
    bound_observe(tiles.shape[1])(tiles, discards, offsets, tuple(num_melds), last, who, wall, dealer, phase,
                                  turn_seat, claim, chow_seat, melds, out, deficiency)  # fmt: skip


def bound_observe(num_tile_types: int):
    """:func:`observe` with the lookup tables bound: ``f(tiles, discards, offsets, num_melds, ...)``."""
    return functools.partial(_require().observe, *_table_buffers(num_tile_types))
