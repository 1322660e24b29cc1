"""The compiled feature kernel (``_kernel.c``): every deficiency feature of a batch of seats in one call,
and the C executor of the observation writer's plan.

Not from the papers: a C port of the ``dp`` one-tile-variant feature path (see ``_kernel.c``), built
at install time as an optional extension. Where it could not be built (no C compiler), mjenv uses
the numpy path of :class:`mjenv.deficiency.seat_features.DeficiencyFeatures` and the numpy executor
of the same plan (:class:`mjenv.observation.ObservationSpec`), which give the same values; the tests
compare the two exactly. The kernel knows no observation view by name: the spec passes where each
input lies in its state record and where each output goes (see ``observe``).

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

__all__ = ["available", "bound_observe", "compiled_unseen", "features", "memo_stats", "new_memo", "observe"]

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


@functools.cache
def _table_buffers(num_tile_types: int) -> tuple:
    left, right = _tables.half_tables()
    if num_tile_types == 34:
        h4, h3 = _tables.honour_tables()
    else:
        h4 = h3 = np.zeros(0, dtype=np.uint8)
    return left, right, h4, h3


def new_memo() -> np.ndarray:
    """A fresh seat memo (uint8[memo_bytes]): one per table, owned (copied, pickled) with it.

    It also holds the table's part cache (each part's vectors, kept across steps). Every
    entry is keyed on the whole input of what it holds, so a copy, or a memo used on other states,
    never serves a stale value.
    """
    return np.zeros(_require().memo_bytes(), dtype=np.uint8)


def memo_stats(memo: np.ndarray) -> dict[str, int]:
    """``{"hits", "misses", "after_discard_hits", "prior_hits", "part_hits", "part_misses"}`` of a memo
    from :func:`new_memo`: whole seats served from it or not (of those, ``after_discard_hits`` were
    served from the last discard turn's rows: the discarder's next state; ``prior_hits`` were computed
    with only the draws effective in the seat's last state evaluated, or taken whole from that state when none of
    the KB copies the seat lost since was effective), and parts (a suit or the
    honours) found in its part cache or computed."""
    return _require().memo_stats(memo)


_NO_MEMO = np.zeros(0, dtype=np.uint8)


def compiled_unseen():
    """The kernel's knowledge-base subtraction, or None without the kernel (or with ``MJENV_NO_KERNEL``).

    ``f(copies, hands, public_counts, seats, num_tile_types, out)`` writes ``out[..., s, t] = copies -
    hands[..., s, t] - public_counts[..., t]`` (int8, C-contiguous; hands and out [..., seats, T],
    public_counts [..., T]) in one pass, for :mod:`mjenv.knowledge`, which holds the formula and
    falls back to numpy (whose broadcasting costs a few microseconds on arrays this small).
    """
    return None if _ext is None or disabled() else _ext.unseen


def features(hands, kbs, melds_needed, discard_turn, claim_tile, chow_ok, memo=None, seven_pairs: int = 0,
             melds: int = 4) -> dict[str, np.ndarray]:
    """Deficiency features of S seats (the contract of ``DeficiencyFeatures.compute``).

    Args:
        hands: int[S, T] concealed counts (T = 27 or 34).
        kbs: int[S, T] knowledge bases, ``0 <= hands``, ``0 <= kbs``, ``hands + kbs <= 4``.
        melds_needed: int[S] melds still needed, 0..5.
        discard_turn: bool[S] whether the seat discards now.
        claim_tile: int[S] the discard this seat could claim, -1 for none.
        chow_ok: bool[S] whether this seat may chow it.
        memo: a seat memo from :func:`new_memo`, or None (none).
        seven_pairs: 0, or the seven-pairs form that also completes a seat with melds needed = ``melds``
            (1 distinct pairs, 2 a four of a kind as two pairs; ``mjenv.deficiency.seven_pairs``).
        melds: melds in a complete hand (seven pairs needs none declared).

    Returns:
        dict of fresh arrays: ``deficiency`` int32[S], ``deficiency_after_discard`` int32[S, T] (-1
        where not applicable), ``effective_tiles`` bool[S, T], ``effective_count`` int64[S],
        ``deficiency_after_claim`` int32[S, 5] (-1 where not applicable),
        ``effective_count_after_discard`` and ``deficiency_after_kong`` int32[S, T] (-1 where t is
        not held or it is not the seat's discard turn).

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
        "effective_count_after_discard": np.empty((s_n, t), dtype=np.int32),
        "deficiency_after_kong": np.empty((s_n, t), dtype=np.int32),
    }
    ext.features(
        *_table_buffers(t), hands, kbs,
        np.ascontiguousarray(melds_needed, dtype=np.int64).reshape(s_n),
        np.ascontiguousarray(discard_turn, dtype=np.uint8).reshape(s_n),
        np.ascontiguousarray(claim_tile, dtype=np.int64).reshape(s_n),
        np.ascontiguousarray(chow_ok, dtype=np.uint8).reshape(s_n),
        out["deficiency"], out["deficiency_after_discard"], out["effective_tiles"].view(np.uint8),
        out["effective_count"], out["deficiency_after_claim"], out["effective_count_after_discard"],
        out["deficiency_after_kong"], _NO_MEMO if memo is None else memo, int(seven_pairs), int(melds),
    )  # fmt: skip
    return out


def observe(plan, states: list, memos, out: np.ndarray, deficiency: np.ndarray) -> None:
    """Execute an observation writer's plan for N states, into ``out`` (one C call).

    Args:
        plan: the spec's ``WriterPlan`` (``fields``, ``scalar_start``, ``state_size``, ``copies``,
            ``onehots``, ``feature_inputs``, ``feature_outputs``, ``num_tile_types``; see ``_kernel.c``).
        states: N sequences of sources (``ObservationSpec.sources``): int8/int16 arrays, then ints; or,
            for a plan whose one source is the whole state record (``fields`` ``[[0, state_size, 0]]``,
            ``scalar_start == state_size``), the records themselves as one C-contiguous
            int16[N, state_size] array.
        memos: None, or N seat memos (:func:`new_memo`) or None each.
        out: float32[N, 4, size] C-contiguous, overwritten.
        deficiency: int32[N, 4], receives each seat's deficiency.

    Raises:
        ValueError: a plan that does not fit, or a state out of range.
    """
    bound_observe(plan)(states, memos, out, deficiency)


def bind_plan(plan):
    """The plan checked once and bound with the lookup tables in the kernel: a capsule for :func:`bound_observe`'s
    calls and for other compiled modules (``mjenv.game._step`` writes observations of its state records through
    the kernel's C entry points, ``_kernel_api.h``).

    Raises:
        ValueError: a plan that does not fit (its state record, its observation or the kernel's limits).
    """
    t = plan.num_tile_types
    return _require().bind(*_table_buffers(t), plan.copies, plan.onehots, plan.feature_inputs, plan.feature_outputs,
                           plan.fields, plan.scalar_start, plan.state_size, t, plan.gather.shape[1],
                           plan.seven_pairs, plan.melds, plan.excluded_suit)  # fmt: skip


def bound_observe(plan):
    """:func:`observe` with the plan checked once and bound with the lookup tables in the kernel
    (:func:`bind_plan`): ``f(states, memos, out, deficiency)``.

    Raises:
        ValueError: a plan that does not fit (its state record, its observation or the kernel's limits).
    """
    return functools.partial(_ext.observe, bind_plan(plan))
