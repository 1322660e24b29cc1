"""The ``dp`` backend in torch: the same tables and min-plus combinations on a CPU or CUDA device.

Used through ``deficiency(..., method="dp", device="cuda")`` (or ``"cpu"``). Torch is imported only
here, and this module is imported only when a device is asked for. The tables are built by numpy
(:mod:`mjenv.deficiency._dp_tables`) and copied once to each device.

Layout as in the numpy path, (k * 2 + p, hand[, boundary]). On CUDA every (k1, p1) x (k2, p2) pair
of a min-plus combination is gathered at once (short groups repeat a pair), so one combination is a
handful of kernels whatever the batch size; on CPU the pairs go one by one, in place, as in numpy.
Large batches run in chunks to bound memory.

Also :func:`deficiency_tensor` for batches that already live on the device (results stay there).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from mjenv.deficiency import _dp_tables as _tables

_INF = _tables.INF
_ALLOWED = "'cpu', 'cuda' or 'cuda:N'"
#: Hands per chunk. On CUDA the padded combination holds about 8 KB per hand at once (2 GB per chunk).
_CHUNK = {"cpu": 1 << 12, "cuda": 1 << 18}
#: Whether a device runs the padded one-gather combination (few kernels: GPUs) or the pair-by-pair
#: loop (fewer bytes: CPUs). Both are exact; tests run both on CPU.
_PADDED = {"cpu": False, "cuda": True}


def _import_torch():
    try:
        import torch
    except ImportError as err:  # torch is optional: only the device path needs it
        raise ValueError("device=... needs torch (pip install torch); leave device=None for the numpy backend") from err
    return torch


def resolve_device(device):
    """Turn a device argument into a ``torch.device``.

    Args:
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a ``torch.device``.

    Returns:
        torch.device.

    Raises:
        ValueError: torch missing, an unknown device, or CUDA asked for but not available.
    """
    torch = _import_torch()
    if not isinstance(device, (str, torch.device)):
        raise ValueError(f"device must be a string ({_ALLOWED}) or a torch.device, got {device!r}")
    try:
        dev = torch.device(device)
    except (RuntimeError, ValueError) as err:
        raise ValueError(f"unknown device {device!r}; allowed {_ALLOWED}") from err
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"unknown device {device!r}; allowed {_ALLOWED}")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device {device!r} asked for but CUDA is not available here; use 'cpu' or device=None")
    return dev


@cache
def _device_tables(dev_str: str) -> dict:
    """The tables as torch uint8 tensors on one device, flattened to [rows, record]."""
    torch = _import_torch()
    dev = torch.device(dev_str)
    left, right = _tables.half_tables()
    h4, h3 = _tables.honour_tables()
    host = {
        "suit": _tables.full_suit_table().reshape(-1, 12),
        "honour": _tables.full_honour_table().reshape(-1, 12),
        "left": left.reshape(len(left), 12, 9),
        "right": right.reshape(len(right), 12, 9),
        "h4": h4.reshape(-1, 12),
        "h3": h3.reshape(-1, 12),
    }
    return {k: torch.from_numpy(np.array(v)).to(dev) for k, v in host.items()}  # a writable copy for torch


@cache
def _device_combos(dev_str: str, kmax: int, final: bool):
    """The padded pair indices of :func:`mjenv.deficiency._dp_tables.padded_combos` on one device."""
    torch = _import_torch()
    return tuple(torch.from_numpy(x).to(torch.device(dev_str)) for x in _tables.padded_combos(kmax, final))


@cache
def _device_weights(dev_str: str, num_t: int, full: bool):
    """The table-row weights of :func:`mjenv.deficiency._dp_tables.digit_weights` on one device."""
    torch = _import_torch()
    return torch.from_numpy(_tables.digit_weights(num_t, full)).to(torch.device(dev_str))


def _minplus(a, b, kmax: int, final: bool = False):
    """Min-plus of (k, p) vectors uint8[rows, n(, 9)]; a trailing boundary axis is minimised too.

    Returns:
        uint8[targets, n], clamped at INF.
    """
    if not _PADDED.get(a.device.type, True):
        return _minplus_loop(a, b, kmax, final)
    pl, pr = _device_combos(str(a.device), kmax, final)
    nt, width = pl.shape
    # whole-slab gathers along the leading axis (fast on CPU too); both <= INF: the uint8 sum does not wrap
    cand = a.index_select(0, pl.view(-1)) + b.index_select(0, pr.view(-1))
    out = cand.view(nt, width, *a.shape[1:]).amin(dim=1)
    if out.dim() == 3:
        out = out.amin(dim=2)
    return out.clamp_(max=_INF)


def _minplus_loop(a, b, kmax: int, final: bool):
    """:func:`_minplus` pair by pair, in place (as the numpy path): fewer bytes moved, more kernels."""
    torch = _import_torch()
    left, right, bounds = _tables.combos(kmax, final)
    out = a.new_empty((len(bounds) - 1, *a.shape[1:]))
    tmp = a.new_empty(a.shape[1:])
    for t in range(len(bounds) - 1):
        acc = out[t]
        torch.add(a[int(left[bounds[t]])], b[int(right[bounds[t]])], out=acc)
        for i in range(bounds[t] + 1, bounds[t + 1]):
            torch.add(a[int(left[i])], b[int(right[i])], out=tmp)
            torch.minimum(acc, tmp, out=acc)
    if out.dim() == 3:
        out = out.amin(dim=2)
    return out.clamp_(max=_INF)


def _finish(parts, melds_needed, kmax: int):
    torch = _import_torch()
    acc = parts[0]
    for part in parts[1:-1]:
        acc = _minplus(acc, part, kmax)
    last = _minplus(acc, parts[-1], kmax, final=True)  # (k, hand)
    res = last.gather(0, melds_needed.view(1, -1)).view(-1).to(torch.int32)
    return torch.where(res >= _INF, torch.full_like(res, _tables.INCOMPLETABLE), res)


def _rows(x, full: bool):
    torch = _import_torch()
    w = _device_weights(str(x.device), x.shape[1], full)
    # float64 sums of these integers (< 2**24) are exact; integer matmul is unsupported on CUDA
    return (x.to(torch.float64) @ w).to(torch.int64)


def _gather(table, rows):
    """uint8[record..., n]-first layout: table rows ``rows`` moved to (k * 2 + p, hand[, boundary])."""
    g = table.index_select(0, rows)
    return g.movedim(0, 1).contiguous()


def _full_kb(hands, melds_needed, kmax: int, tabs):
    n, num_t = hands.shape
    rows = _rows(hands, True)
    parts = [_gather(tabs["suit"], rows[:, s]) for s in range(3)]
    if num_t == 34:
        parts.append(_gather(tabs["honour"], rows[:, 3]))
    return _finish(parts, melds_needed, kmax)


def _any_kb(hands, kbs, melds_needed, kmax: int, tabs):
    torch = _import_torch()
    n, num_t = hands.shape
    h = hands.to(torch.int16)
    a = h + kbs.to(torch.int16)
    rows = _rows(torch.div(a * (a + 1), 2, rounding_mode="floor") + h, False)
    left = _gather(tabs["left"], rows[:, :3].T.reshape(-1))  # (k * 2 + p, suit-major hand, boundary)
    right = _gather(tabs["right"], rows[:, 3:6].T.reshape(-1))
    suits = _minplus(left, right, kmax).view(-1, 3, n)
    parts = [suits[:, 0], suits[:, 1], suits[:, 2]]
    if num_t == 34:
        parts.append(_minplus(_gather(tabs["h4"], rows[:, 6]), _gather(tabs["h3"], rows[:, 7]), kmax))
    return _finish(parts, melds_needed, kmax)


def deficiency_tensor(hands, kbs, melds_needed):
    """Deficiency of a batch already on a torch device (results stay there).

    Args:
        hands: int8/int16/int32/int64 tensor [B, T] (T = 27 or 34) of tile counts.
        kbs: tensor [B, T], hands + kbs <= 4 (not checked here; validate with ``normalize`` first).
        melds_needed: int64 tensor [B], 0..5.

    Returns:
        int32 tensor [B] on the same device; INCOMPLETABLE where no pattern fits.
    """
    torch = _import_torch()
    dev = hands.device
    tabs = _device_tables(str(dev))
    out = torch.empty(len(hands), dtype=torch.int32, device=dev)
    chunk = _CHUNK.get(dev.type, 1 << 15)
    for lo in range(0, len(hands), chunk):
        h = hands[lo : lo + chunk]
        k = kbs[lo : lo + chunk]
        m = melds_needed[lo : lo + chunk].to(torch.int64)
        kmax = int(m.max())
        full = (h.to(torch.int16) + k.to(torch.int16) == 4).all(dim=1)
        idx = torch.nonzero(full).view(-1)
        rest = torch.nonzero(~full).view(-1)
        part = out[lo : lo + chunk]
        if len(idx):
            part[idx] = _full_kb(h[idx], m[idx], kmax, tabs)
        if len(rest):
            part[rest] = _any_kb(h[rest], k[rest], m[rest], kmax, tabs)
    return out


def deficiency_batch(hands: np.ndarray, kbs: np.ndarray, melds_needed: np.ndarray, device) -> np.ndarray:
    """numpy in, numpy out: copy the batch to ``device``, run :func:`deficiency_tensor`, copy back.

    Args:
        hands: int8[B, T]; kbs: int8[B, T]; melds_needed: int64[B] (validated).
        device: ``"cpu"``, ``"cuda"``, ``"cuda:N"`` or a ``torch.device``.

    Returns:
        int32[B].
    """
    torch = _import_torch()
    dev = resolve_device(device)
    if len(hands) == 0:
        return np.zeros(0, dtype=np.int32)
    h = torch.from_numpy(np.ascontiguousarray(hands, dtype=np.int8)).to(dev)
    k = torch.from_numpy(np.ascontiguousarray(kbs, dtype=np.int8)).to(dev)
    m = torch.from_numpy(np.ascontiguousarray(melds_needed, dtype=np.int64)).to(dev)
    return deficiency_tensor(h, k, m).cpu().numpy()
