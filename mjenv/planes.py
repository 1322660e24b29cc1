"""Tile planes: the observation as C x T planes for convolutional networks (``observation="planes"``).

The planes are derived from the flat observation (:mod:`mjenv.observation`, the one writer) by a fixed
map, so they hold the same facts, seat-relative as the flat views (row 0 = the observing seat, then
right, across, left). Channel by channel, in the flat views' order:

* a view whose last axis is the T tile types is one plane per row: ``hand`` (1), ``melds`` (4, one
  per seat), ``last_discard`` (1), ``knowledge_base`` (1), and the per-tile deficiency features
  ``deficiency_after_discard``, ``effective_tiles``, ``effective_count_after_discard``,
  ``deficiency_after_kong`` (1 each);
* ``discards`` (each seat's ordered discards) becomes, per seat, ``discard_counts`` (copies of each
  tile discarded) and ``recent_discards``: :data:`RECENT` one-hot planes, the seat's last discard,
  the one before it, and so on (all zero where the seat has made fewer);
* every other view is a scalar per entry, each entry one constant plane (``num_melds`` 4, ``wall_count``
  1, ``dealer`` 4, ``phase``, ``deficiency``, ``effective_count``, ``deficiency_after_claim`` 5, and
  every view a rule set adds).

A spec may name other layouts for some of its views (its ``plane_kinds``, view name -> kind of
:data:`KINDS`); the defaults above are ``"tiles"``, ``"discards"`` and ``"scalar"``, and the others are:

* ``"tile_ids"``: entries that are tile id + 1 (0 = none), shape ``(..., K)``: one plane per row of
  ``K`` entries, counting each tile in the row (``(4, K)`` gives 4 planes);
* ``"per_discard"``: a fact of each discard, the shape of ``discards``: per seat one plane holding at
  tile t the largest value of the fact over the seat's discards of t (0 where it has discarded none);
* ``"slot_sums"``: slots per seat, shape ``(4, M, ...)``: the sum over the M slots, each entry of
  ``(4, ...)`` one constant plane.

Values are the flat views' own (counts, -1 for "not applicable", 99 for incompletable), not scaled;
:attr:`PlaneSpec.space` gives each plane the bounds of its view. :meth:`PlaneSpec.decode` returns the
planes by name. The same map runs on numpy arrays and on torch tensors (:meth:`PlaneSpec.planes`), so a
network can read the flat observation and build the planes itself (``PolicyNet(trunk="cnn")``).

Nothing here branches on a rule set: the planes follow the views of its :class:`ObservationSpec`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cached_property
from typing import Any, NamedTuple

import numpy as np

__all__ = ["KINDS", "RECENT", "PlaneSpec", "attach_planes", "plane_spec"]

#: One-hot planes per seat of its most recent discards (the last, the one before, ...).
RECENT = 4
_DISCARDS = "discards"
#: How a view becomes planes (see the module docstring).
KINDS = ("tiles", "scalar", "discards", "tile_ids", "per_discard", "slot_sums")


class PlaneSpec:
    """The plane layout of one observation layout, and the map flat -> planes.

    Args:
        views: ordered view name -> shape of the flat observation (``ObservationSpec.views``).
        num_tile_types: T.
        bounds: view name -> (low, high) of its entries (for :attr:`space`; None: no space).
        kinds: view name -> how it becomes planes, one of :data:`KINDS`, for the views whose layout is not the
            default one (the module docstring).

    Attributes:
        channels: C, the number of planes.
        shape: ``(C, T)``.
        layout: ordered plane group name -> (first channel, shape of the group as :meth:`decode` returns it).
        kinds: view name -> its kind (every view).

    Raises:
        ValueError: no ``discards`` view, an unknown kind, a kind naming no view, or a view whose shape does
            not fit its kind.
    """

    def __init__(self, views: Mapping[str, Sequence[int]], num_tile_types: int,
                 bounds: Mapping[str, tuple[float, float]] | None = None, kinds: Mapping[str, str] | None = None):
        t = int(num_tile_types)
        self.num_tile_types = t
        self.views = {str(k): tuple(int(s) for s in v) for k, v in views.items()}
        if _DISCARDS not in self.views:
            raise ValueError(f"the observation needs the view {_DISCARDS!r}; views: {', '.join(self.views)}")
        self.kinds = self._kinds(dict(kinds or {}))
        self.bounds = None if bounds is None else dict(bounds)
        self.layout: dict[str, tuple[int, tuple[int, ...]]] = {}
        self._constant: set[str] = set()  # groups of constant planes (decode reads one entry per plane)
        # segments in channel order: ("gather", int64[c, T] flat indices), ("discards", None),
        # ("tile_ids", (slice, rows, K)), ("per_discard", slice), ("slot_sums", (slice, seats, M))
        self._segments: list[tuple[str, Any]] = []
        self._plane_bounds: list[tuple[float, float]] = []
        gather: list[np.ndarray] = []
        offsets = np.cumsum([0] + [int(np.prod(s)) for s in self.views.values()])
        start = dict(zip(self.views, offsets[:-1].tolist()))
        self._seats, self.max_discards = self.views[_DISCARDS]
        self._discard_slice = slice(start[_DISCARDS], start[_DISCARDS] + self._seats * self.max_discards)
        channel = 0
        for name, shape in self.views.items():
            pos, size, kind = start[name], int(np.prod(shape)), self.kinds[name]
            sl = slice(pos, pos + size)
            lo, hi = (0.0, 0.0) if bounds is None else (float(bounds[name][0]), float(bounds[name][1]))
            if kind in ("tiles", "scalar"):
                tiled = kind == "tiles"
                rows = size // t if tiled else size
                gather.append(pos + np.arange(size).reshape(rows, t) if tiled else np.repeat(
                    pos + np.arange(size)[:, None], t, axis=1))
                self.layout[name] = (channel, shape)
                if not tiled:
                    self._constant.add(name)
                channel += rows
                self._plane_bounds += [(lo, hi)] * rows
                continue
            if gather:
                self._segments.append(("gather", np.concatenate(gather)))
                gather = []
            seats = shape[0]
            if kind == _DISCARDS:
                self._segments.append((_DISCARDS, None))
                self.layout["discard_counts"] = (channel, (seats, t))
                self.layout["recent_discards"] = (channel + seats, (seats, RECENT, t))
                channel += seats * (1 + RECENT)
                self._plane_bounds += [(0.0, 4.0)] * seats + [(0.0, 1.0)] * (seats * RECENT)
            elif kind == "tile_ids":
                rows = size // shape[-1]
                self._segments.append((kind, (sl, rows, shape[-1])))
                self.layout[name] = (channel, (*shape[:-1], t))
                channel += rows
                self._plane_bounds += [(0.0, float(shape[-1]))] * rows
            elif kind == "per_discard":
                self._segments.append((kind, sl))
                self.layout[name] = (channel, (seats, t))
                channel += seats
                self._plane_bounds += [(min(0.0, lo), max(0.0, hi))] * seats
            else:  # slot_sums
                slots = shape[1]
                rows = size // slots
                self._segments.append((kind, (sl, seats, slots)))
                self.layout[name] = (channel, (seats, *shape[2:]))
                self._constant.add(name)
                channel += rows
                self._plane_bounds += [(lo * slots, hi * slots)] * rows
        if gather:
            self._segments.append(("gather", np.concatenate(gather)))
        self.size = int(offsets[-1])
        self.channels = channel
        self.shape = (channel, t)
        self._tiles1 = np.arange(1, t + 1, dtype=np.float32)  # tile ids are stored + 1
        self._positions = np.arange(self.max_discards)
        self._torch_constants: dict[Any, tuple] = {}

    def _kinds(self, given: dict[str, str]) -> dict[str, str]:
        """Every view's kind: the given ones checked, the defaults for the others."""
        for name, kind in given.items():
            if kind not in KINDS:
                raise ValueError(f"plane kind {kind!r} of view {name!r} is not one of {KINDS}")
            if name not in self.views:
                raise ValueError(f"plane kinds name the view {name!r}, which the observation does not have; "
                                 f"views: {', '.join(self.views)}")
        t, out = self.num_tile_types, {}
        for name, shape in self.views.items():
            default = _DISCARDS if name == _DISCARDS else "tiles" if shape[-1] == t else "scalar"
            kind = out[name] = given.get(name, default)
            fits = {"tiles": shape[-1] == t, "scalar": True, _DISCARDS: name == _DISCARDS and len(shape) == 2,
                    "tile_ids": True, "per_discard": shape == self.views[_DISCARDS],
                    "slot_sums": len(shape) >= 2}[kind]  # fmt: skip
            if not fits or (name == _DISCARDS and kind != _DISCARDS):
                raise ValueError(f"view {name!r} of shape {shape} cannot be laid out as {kind!r} planes")
        return out

    @classmethod
    def for_layout(cls, layout: Any) -> PlaneSpec:
        """The planes of an observation spec (a :class:`~mjenv.observation.ViewLayout` with ``num_tile_types``;
        its ``plane_kinds``, when it has them, name the views laid out otherwise than by default), with bounds."""
        return cls(layout.views, layout.num_tile_types,
                   {name: (layout.view(name).low, layout.view(name).high) for name in layout.views},
                   getattr(layout, "plane_kinds", None))

    @classmethod
    def for_rules(cls, rules: Any = "basic") -> PlaneSpec:
        """The planes of a rule set's default observation (with bounds, so with a space); a room that brings
        its own engine gives its own observation spec (``observation_spec()``)."""
        from mjenv import rulesets

        own = rulesets.own_engine(rules)
        if own is not None:
            return cls.for_layout(own.observation_spec())
        from mjenv.observation import ObservationSpec

        return cls.for_layout(ObservationSpec(rules))

    @cached_property
    def low(self) -> np.ndarray:
        """float32[C, T] lower bound of each entry."""
        return np.repeat(np.array([lo for lo, _ in self._plane_bounds], np.float32)[:, None], self.num_tile_types, 1)

    @cached_property
    def high(self) -> np.ndarray:
        """float32[C, T] upper bound of each entry."""
        return np.repeat(np.array([hi for _, hi in self._plane_bounds], np.float32)[:, None], self.num_tile_types, 1)

    @cached_property
    def space(self):
        """``gymnasium.spaces.Box(low, high, (C, T), float32)`` (needs ``bounds``)."""
        if self.bounds is None:
            raise ValueError("this PlaneSpec was made without bounds; use PlaneSpec.for_rules(rules) for a space")
        from gymnasium import spaces

        return spaces.Box(self.low, self.high, self.shape, np.float32)

    def planes(self, observation):
        """Planes of flat observations.

        Args:
            observation: float32[size] or float32[..., size] (any leading axes), a numpy array or a torch
                tensor (any device); or the env's dict ``{"observation": ..., "action_mask": ...}``.

        Returns:
            float32[C, T] (or [..., C, T]) of the same kind (numpy or torch) as the input.

        Raises:
            ValueError: the last axis is not the flat observation's length.
        """
        if isinstance(observation, dict):
            observation = observation["observation"]
        is_numpy = isinstance(observation, np.ndarray) or not hasattr(observation, "device")
        x = np.asarray(observation, dtype=np.float32) if is_numpy else observation
        if x.ndim < 1 or x.shape[-1] != self.size:
            raise ValueError(f"observation has shape {tuple(x.shape)}; planes need ({self.size},) or (B, {self.size})")
        lead = tuple(x.shape[:-1])
        x = x.reshape(-1, self.size)
        if is_numpy:
            out = self._planes(x, _NUMPY_OPS, *self._constants_numpy()).astype(np.float32)
        else:
            out = self._planes(x, _torch_ops(), *self._constants_torch(x.device))
        return out.reshape(*lead, *self.shape)

    def _constants_numpy(self):
        return ([g for kind, g in self._segments if kind == "gather"], self._tiles1, self._positions,
                np.ones(self.num_tile_types, np.float32))

    def _constants_torch(self, device):
        if device not in self._torch_constants:
            import torch

            gathers, tiles1, positions, ones = self._constants_numpy()
            self._torch_constants[device] = (
                [torch.as_tensor(g, dtype=torch.long, device=device) for g in gathers],
                torch.as_tensor(tiles1, device=device), torch.as_tensor(positions, device=device),
                torch.as_tensor(ones, device=device))
        return self._torch_constants[device]

    def _planes(self, x, ops, gathers, tiles1, positions, ones):
        """The map on a batch float32[B, size] (numpy or torch: operators, indexing and ``ops``)."""
        b, t = x.shape[0], self.num_tile_types
        parts = []
        gathered = iter(gathers)
        d = x[:, self._discard_slice].reshape(b, self._seats, self.max_discards)
        which = d[..., None] == tiles1  # [B, 4, D, T]: the tile of each discard slot
        for kind, arg in self._segments:
            if kind == "gather":
                parts.append(x[:, next(gathered)])
            elif kind == _DISCARDS:
                counts = which.sum(-2) * 1.0  # [B, 4, T]: copies of t among the seat's discards
                made = (d > 0).sum(-1)  # [B, 4] discards each seat has made
                # the tile id + 1 of each seat's r-th latest discard (0: none), then its one-hot
                latest = [(d * (positions == (made - 1 - r)[..., None])).sum(-1) for r in range(RECENT)]
                recent = (ops.stack(latest, 2)[..., None] == tiles1) * 1.0  # [B, 4, RECENT, T]
                parts += [counts, recent.reshape(b, self._seats * RECENT, t)]
            elif kind == "tile_ids":
                sl, rows, k = arg
                parts.append((x[:, sl].reshape(b, rows, k)[..., None] == tiles1).sum(-2) * 1.0)
            elif kind == "per_discard":
                facts = x[:, arg].reshape(b, self._seats, self.max_discards)
                parts.append(ops.amax(facts[..., None] * which, -2))
            else:  # slot_sums
                sl, seats, slots = arg
                sums = x[:, sl].reshape(b, seats, slots, -1).sum(2).reshape(b, -1)
                parts.append(sums[..., None] * ones)
        return ops.cat(parts, 1) * 1.0 if len(parts) > 1 else parts[0] * 1.0

    def decode(self, planes) -> dict[str, np.ndarray]:
        """Named groups of planes.

        Args:
            planes: float32[C, T] or [B, C, T].

        Returns:
            ``dict[name, array]``: the tile views in their own shape (``hand`` (T,), ``melds`` (4, T), ...),
            ``discard_counts`` (4, T), ``recent_discards`` (4, RECENT, T), each scalar view in its own
            shape (``num_melds`` (4,), ``wall_count`` (1,), ...), read from its constant planes, and each view
            of another kind in the shape :attr:`layout` gives.

        Raises:
            ValueError: the planes do not have shape (C, T) or (B, C, T).
        """
        arr = np.asarray(planes)
        if arr.ndim not in (2, 3) or arr.shape[-2:] != self.shape:
            raise ValueError(f"planes have shape {arr.shape}; this spec needs {self.shape} or (B, *{self.shape})")
        lead = arr.shape[:-2]
        t = self.num_tile_types
        out = {}
        for name, (c0, shape) in self.layout.items():
            constant = name in self._constant
            rows = int(np.prod(shape)) if constant else int(np.prod(shape)) // t
            block = arr[..., c0:c0 + rows, :]
            out[name] = block[..., 0].reshape(*lead, *shape) if constant else block.reshape(*lead, *shape)
        return out


class _Ops(NamedTuple):
    """The array functions the map needs beyond operators and indexing (numpy's or torch's)."""

    stack: Callable
    cat: Callable
    amax: Callable  # amax(array, axis)


_NUMPY_OPS = _Ops(np.stack, np.concatenate, lambda a, axis: a.max(axis))


def _torch_ops() -> _Ops:
    import torch

    return _Ops(torch.stack, torch.cat, lambda a, axis: a.amax(axis))


_SPECS: dict[Any, PlaneSpec] = {}


def plane_spec(rules: Any = "basic") -> PlaneSpec:
    """The (cached) :class:`PlaneSpec` of a rule set's default observation."""
    from mjenv.rules import get_rules

    key = get_rules(rules)
    if key not in _SPECS:
        _SPECS[key] = PlaneSpec.for_rules(key)
    return _SPECS[key]


def attach_planes(env) -> None:
    """Make a PettingZoo env (parallel or AEC, of :mod:`mjenv.env`) hand planes instead of flat arrays.

    Every ``{"observation", "action_mask"}`` it returns gets ``observation`` float32[C, T] from
    :meth:`PlaneSpec.planes`, and its observation spaces say so. Used by the env constructors for
    ``observation="planes"``.
    """
    import copy

    spec = plane_spec(env.spec.rules)
    env.planes = spec
    for agent, space in env.observation_spaces.items():
        space = copy.copy(space)
        space.spaces = {**space.spaces, "observation": spec.space}
        env.observation_spaces[agent] = space

    def convert(obs: dict) -> dict:
        return {**obs, "observation": spec.planes(obs["observation"])}

    def convert_all(obs: dict) -> dict:  # every agent's in one call of the map
        if not obs:
            return obs
        planes = spec.planes(np.stack([o["observation"] for o in obs.values()]))
        return {a: {**o, "observation": p} for (a, o), p in zip(obs.items(), planes)}

    if hasattr(env, "observe"):  # AEC: last() and observe() read through observe
        observe = env.observe
        env.observe = lambda agent: None if (o := observe(agent)) is None else convert(o)
        return
    reset, step = env.reset, env.step

    def planes_reset(seed=None, options=None):
        obs, infos = reset(seed=seed, options=options)
        return convert_all(obs), infos

    def planes_step(actions):
        obs, *rest = step(actions)
        return (convert_all(obs), *rest)

    env.reset, env.step = planes_reset, planes_step
