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

Values are the flat views' own (counts, -1 for "not applicable", 99 for incompletable), not scaled;
:attr:`PlaneSpec.space` gives each plane the bounds of its view. :meth:`PlaneSpec.decode` returns the
planes by name. The same map runs on numpy arrays and on torch tensors (:meth:`PlaneSpec.planes`), so a
network can read the flat observation and build the planes itself (``PolicyNet(trunk="cnn")``).

Nothing here branches on a rule set: the planes follow the views of its :class:`ObservationSpec`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import Any

import numpy as np

__all__ = ["RECENT", "PlaneSpec", "attach_planes", "plane_spec"]

#: One-hot planes per seat of its most recent discards (the last, the one before, ...).
RECENT = 4
_DISCARDS = "discards"


class PlaneSpec:
    """The plane layout of one observation layout, and the map flat -> planes.

    Args:
        views: ordered view name -> shape of the flat observation (``ObservationSpec.views``).
        num_tile_types: T.
        bounds: view name -> (low, high) of its entries (for :attr:`space`; None: no space).

    Attributes:
        channels: C, the number of planes.
        shape: ``(C, T)``.
        layout: ordered plane group name -> (first channel, shape of the group as :meth:`decode` returns it).
    """

    def __init__(self, views: Mapping[str, Sequence[int]], num_tile_types: int,
                 bounds: Mapping[str, tuple[float, float]] | None = None):
        t = int(num_tile_types)
        self.num_tile_types = t
        self.views = {str(k): tuple(int(s) for s in v) for k, v in views.items()}
        if _DISCARDS not in self.views:
            raise ValueError(f"the observation needs the view {_DISCARDS!r}; views: {', '.join(self.views)}")
        self.bounds = None if bounds is None else dict(bounds)
        self.layout: dict[str, tuple[int, tuple[int, ...]]] = {}
        # segments: ("gather", int64[c, T] flat indices) or ("discards", None), in channel order
        self._segments: list[tuple[str, np.ndarray | None]] = []
        self._plane_bounds: list[tuple[float, float]] = []
        gather: list[np.ndarray] = []
        pos = channel = 0
        for name, shape in self.views.items():
            size = int(np.prod(shape))
            if name == _DISCARDS:
                if gather:
                    self._segments.append(("gather", np.concatenate(gather)))
                    gather = []
                self._segments.append((_DISCARDS, None))
                seats, self.max_discards = shape
                self._discard_slice = slice(pos, pos + size)
                self._seats = seats
                self.layout["discard_counts"] = (channel, (seats, t))
                self.layout["recent_discards"] = (channel + seats, (seats, RECENT, t))
                channel += seats * (1 + RECENT)
                self._plane_bounds += [(0.0, 4.0)] * seats + [(0.0, 1.0)] * (seats * RECENT)
            else:
                tiled = shape[-1] == t
                rows = size // t if tiled else size
                idx = pos + np.arange(size).reshape(rows, t) if tiled else np.repeat(
                    pos + np.arange(size)[:, None], t, axis=1)
                gather.append(idx)
                self.layout[name] = (channel, shape)
                channel += rows
                lo, hi = (0.0, 0.0) if bounds is None else bounds[name]
                self._plane_bounds += [(float(lo), float(hi))] * rows
            pos += size
        if gather:
            self._segments.append(("gather", np.concatenate(gather)))
        self.size = pos
        self.channels = channel
        self.shape = (channel, t)
        self._tiles1 = np.arange(1, t + 1, dtype=np.float32)  # discards hold tile id + 1
        self._positions = np.arange(self.max_discards)
        self._torch_constants: dict[Any, tuple] = {}

    @classmethod
    def for_rules(cls, rules: Any = "basic") -> PlaneSpec:
        """The planes of a rule set's default observation (with bounds, so with a space)."""
        from mjenv.observation import ObservationSpec

        spec = ObservationSpec(rules)
        return cls(spec.views, spec.num_tile_types,
                   {name: (spec.view(name).low, spec.view(name).high) for name in spec.views})

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
            observation: float32[size] or float32[B, size], a numpy array or a torch tensor (any device);
                or the env's dict ``{"observation": ..., "action_mask": ...}``.

        Returns:
            float32[C, T] (or [B, C, T]) of the same kind (numpy or torch) as the input.

        Raises:
            ValueError: the last axis is not the flat observation's length.
        """
        if isinstance(observation, dict):
            observation = observation["observation"]
        is_numpy = isinstance(observation, np.ndarray) or not hasattr(observation, "device")
        x = np.asarray(observation, dtype=np.float32) if is_numpy else observation
        if x.ndim not in (1, 2) or x.shape[-1] != self.size:
            raise ValueError(f"observation has shape {tuple(x.shape)}; planes need ({self.size},) or (B, {self.size})")
        single = x.ndim == 1
        if single:
            x = x[None]
        if is_numpy:
            out = self._planes(x, np.stack, np.concatenate, *self._constants_numpy()).astype(np.float32)
        else:
            import torch

            out = self._planes(x, torch.stack, torch.cat, *self._constants_torch(x.device))
        return out[0] if single else out

    def _constants_numpy(self):
        return [g for kind, g in self._segments if kind == "gather"], self._tiles1, self._positions

    def _constants_torch(self, device):
        if device not in self._torch_constants:
            import torch

            gathers, tiles1, positions = self._constants_numpy()
            self._torch_constants[device] = (
                [torch.as_tensor(g, dtype=torch.long, device=device) for g in gathers],
                torch.as_tensor(tiles1, device=device), torch.as_tensor(positions, device=device))
        return self._torch_constants[device]

    def _planes(self, x, stack, cat, gathers, tiles1, positions):
        """The map on a batch float32[B, size] (numpy or torch: only operators, indexing, stack and cat)."""
        b = x.shape[0]
        parts = []
        gathered = iter(gathers)
        for kind, _ in self._segments:
            if kind == "gather":
                parts.append(x[:, next(gathered)])
                continue
            d = x[:, self._discard_slice].reshape(b, self._seats, self.max_discards)
            counts = (d[..., None] == tiles1).sum(-2) * 1.0  # [B, 4, T]: copies of t among the seat's discards
            made = (d > 0).sum(-1)  # [B, 4] discards each seat has made
            # the tile id + 1 of each seat's r-th latest discard (0: none), then its one-hot
            latest = [(d * (positions == (made - 1 - r)[..., None])).sum(-1) for r in range(RECENT)]
            recent = (stack(latest, 2)[..., None] == tiles1) * 1.0  # [B, 4, RECENT, T]
            parts += [counts, recent.reshape(b, self._seats * RECENT, self.num_tile_types)]
        return cat(parts, 1) * 1.0 if len(parts) > 1 else parts[0] * 1.0

    def decode(self, planes) -> dict[str, np.ndarray]:
        """Named groups of planes.

        Args:
            planes: float32[C, T] or [B, C, T].

        Returns:
            ``dict[name, array]``: the tile views in their own shape (``hand`` (T,), ``melds`` (4, T), ...),
            ``discard_counts`` (4, T), ``recent_discards`` (4, RECENT, T), and each scalar view in its own
            shape (``num_melds`` (4,), ``wall_count`` (1,), ...), read from its constant planes.

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
            tiled = shape[-1] == t
            rows = int(np.prod(shape)) // t if tiled else int(np.prod(shape))
            block = arr[..., c0:c0 + rows, :]
            out[name] = block.reshape(*lead, *shape) if tiled else block[..., 0].reshape(*lead, *shape)
        return out


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
