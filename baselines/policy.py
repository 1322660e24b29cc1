"""A learned policy as an agent: a small torch MLP with masked logits, save/load, and the shipped policy.

``PolicyAgent.act(observation_dict) -> int`` works wherever a baseline agent does (the evaluation
harness, ``mjenv eval policy:PATH``, the single-agent wrapper's opponents). The network
(:class:`PolicyNet`) reads the flat observation of :mod:`mjenv.observation` and returns one logit per
action id (``ActionLayout``, ``2T + 7``) and a state value. Illegal actions get ``-inf`` logits, so
they have probability exactly 0; an all-zero mask is a ``ValueError`` (the environment never produces
one: a seat with nothing to decide has only PASS legal).

The network has two parts whose logits add up:

* a trunk MLP over the normalised observation (every view scaled to about [-1, 1]) that gives a
  context-dependent logit per action id and the value;
* an *action-feature head*: a tiny MLP shared by all actions that maps what the deficiency core says
  about each action (the change of the knowledge-aware deficiency after a discard or a claim, read
  from the ``deficiency``, ``deficiency_after_discard`` and ``deficiency_after_claim`` views) and the
  action's kind to a logit. The deficiency-greedy strategy of the BDA/HBBA papers is a simple
  function of exactly these features, so behaviour cloning from it needs little data.

With ``discard_effective=True`` (what :func:`build_net` makes) the head also sees, per discard, the
effective-tile count left after it (the greedy agent's tie-break between discards of equal
deficiency) and, per kong, the deficiency after it: the observation's per-action views
``effective_count_after_discard`` and ``deficiency_after_kong``, read as they are. Only for an
observation layout without them (older ones) are they recomputed from the ``hand`` and
``knowledge_base`` views with the exact deficiency core (numpy; :meth:`PolicyNet.aux`). Checkpoints
without the flag (older ones) load as before.

A network reads observations of its own layout (``views``, what its trunk was built on), or of a
larger one holding those views (:meth:`PolicyNet.bind_observation`): a checkpoint made before the
per-action views were added reads the current observation, its trunk fed the same entries as before
(:func:`load_net` binds it to the current layout of its rule set).

Checkpoints are ``torch.save`` dicts ``{"format", "config", "state_dict"}`` holding only tensors and
plain Python values, so ``torch.load(weights_only=True)`` reads them.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from mjenv.planes import RECENT as RECENT_DISCARDS

# A process forked after torch ran a parallel op (e.g. the evaluation harness's worker processes,
# forked after it loaded a policy to check its spec) deadlocks in its first parallel op: the OpenMP
# pool does not survive fork. One intra-op thread in forked children avoids the pool altogether,
# and per-decision inference of this small network gains nothing from threads anyway.
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=lambda: torch.set_num_threads(1))

CHECKPOINT_FORMAT = "mjenv-policy-v1"
#: File name of the shipped policy under ``mjenv/baselines/data/``.
PRETRAINED_FILE = "pretrained_policy.pt"

# Bins of the per-action deficiency change: <= -1, 0, +1, >= +2, not applicable.
_DELTA_BINS = 5
# Action kinds: discard, kong, chow low/mid/high, pong, exposed kong, win, pass.
_NUM_KINDS = 9
# Deficiencies above this are all "far" (INCOMPLETABLE is 99): clip before scaling.
_DEFICIENCY_CLIP = 8.0
# Extra per-action features with discard_effective: effective count after the discard (scaled), its
# gap below the best count among discards of the same deficiency (scaled), and "is that best".
_EFFECTIVE_FEATURES = 3

# (low, high, scale) per view: x -> clip(x, low, high) / scale. Views not listed get the default.
_VIEW_NORMALISATION: dict[str, tuple[float, float, float]] = {
    "hand": (0.0, 4.0, 4.0),
    "melds": (0.0, 4.0, 4.0),
    "num_melds": (0.0, 5.0, 4.0),
    "last_discard": (0.0, 1.0, 1.0),
    "last_discarder": (0.0, 1.0, 1.0),
    "knowledge_base": (0.0, 4.0, 4.0),
    "wall_count": (0.0, 200.0, 100.0),
    "dealer": (0.0, 1.0, 1.0),
    "phase": (0.0, 1.0, 1.0),
    "deficiency": (0.0, _DEFICIENCY_CLIP, _DEFICIENCY_CLIP),
    "deficiency_after_discard": (-1.0, _DEFICIENCY_CLIP, _DEFICIENCY_CLIP),
    "effective_tiles": (0.0, 1.0, 1.0),
    "effective_count": (0.0, 80.0, 40.0),
    "deficiency_after_claim": (-1.0, _DEFICIENCY_CLIP, _DEFICIENCY_CLIP),
    "effective_count_after_discard": (-1.0, 40.0, 20.0),
    "deficiency_after_kong": (-1.0, _DEFICIENCY_CLIP, _DEFICIENCY_CLIP),
    "oracle_hands": (0.0, 4.0, 4.0),
}
_DEFAULT_NORMALISATION = (-200.0, 200.0, 50.0)
#: The trunks of :class:`PolicyNet`: an MLP over the flat observation, or a CNN over its tile planes.
TRUNKS = ("mlp", "cnn")
#: Channels of each convolution of the ``"cnn"`` trunk.
CNN_CHANNELS = 64


def view_offsets(views: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, int]]:
    """Start and stop of each named view in the flat observation (the spec's order)."""
    out, pos = {}, 0
    for name, shape in views.items():
        size = int(math.prod(shape))
        out[name] = (pos, pos + size)
        pos += size
    return out


def delta_onehot(after: torch.Tensor, now: torch.Tensor) -> torch.Tensor:
    """float[B, A, 5]: the one-hot bin of each action's deficiency change (<= -1, 0, +1, >= +2, not applicable)
    from the deficiency after it (``after`` float[B, A], -1 where none applies) and the deficiency now (``now``
    float[B], already clipped; its dtype is the result's)."""
    applicable = after >= 0
    delta = (after.clamp(0.0, _DEFICIENCY_CLIP) - now[:, None]).round().clamp(-1.0, 2.0) + 1.0
    bins = torch.where(applicable, delta, torch.full_like(delta, _DELTA_BINS - 1)).long()
    return torch.nn.functional.one_hot(bins, _DELTA_BINS).to(now.dtype)


def discard_effective_features(eff: torch.Tensor, dad: torch.Tensor) -> torch.Tensor:
    """float[B, T, 3] of each discard of tile t (``eff`` float[B, T]: the effective count after it, -1 where t is
    not held; ``dad`` float[B, T]: the deficiency after it): the count / 20 and its gap below the best count among
    the discards of equal deficiency / 4 (both clipped to [0, 2]), and 1 where it is that best; 0 where not held."""
    held = eff >= 0
    same = (dad[:, :, None] == dad[:, None, :]) & held[:, None, :]
    best = torch.where(same, eff[:, None, :], torch.full_like(same, -1.0, dtype=eff.dtype)).amax(dim=2)
    return torch.stack([torch.where(held, eff.clamp(0.0, 40.0) / 20.0, 0.0),
                        torch.where(held, (best - eff).clamp(0.0, 8.0) / 4.0, 0.0),
                        (held & (eff == best)).to(eff.dtype)], dim=-1)


def _layer(layer: nn.Linear, std: float = math.sqrt(2.0), bias: float = 0.0) -> nn.Linear:
    # Orthogonal init with small actor gain, as in CleanRL's ppo.py: the initial policy is near uniform.
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


def normalise_observation(obs: torch.Tensor, select: torch.Tensor | None, low: torch.Tensor, high: torch.Tensor,
                          scale: torch.Tensor) -> torch.Tensor:
    """A network's input from raw observations: the entries ``select`` (all when None), clipped to
    [low, high] and divided by ``scale`` (the buffers of :class:`PolicyNet`)."""
    trunk_in = obs if select is None else obs.index_select(1, select)
    return torch.clamp(trunk_in, low, high) / scale


class PolicyNet(nn.Module):
    """Masked actor-critic MLP over the flat observation.

    Args:
        views: ordered view name -> shape, exactly ``ObservationSpec(rules).views``.
        num_tile_types: T (27 or 34); the action space has ``2T + 7`` ids.
        hidden: widths of the trunk's hidden layers.
        discard_effective: give the action-feature head the effective-tile count after each discard
            and the deficiency after each kong (see the module docstring).
        trunk: ``"mlp"`` (the default: an MLP over the normalised flat observation) or ``"cnn"``: a
            small 1-D convolutional trunk over the tile planes of :mod:`mjenv.planes` (built inside
            the network from the flat observation it is given, so it trains wherever the MLP does;
            each plane clipped and scaled as its view), two convolutions of :data:`CNN_CHANNELS`
            channels along the tile axis, then the ``hidden`` MLP.

    Attributes:
        views: the layout the trunk was built on (stored in checkpoints).
        observation_views: the layout of the observations :meth:`forward` takes (``views`` unless
            :meth:`bind_observation` bound a larger one).
        obs_size: the length of those observations.
    """

    #: the view of the deficiency after each kong (a room's own network may name its own)
    kong_view = "deficiency_after_kong"

    def __init__(
        self,
        views: Mapping[str, Sequence[int]],
        num_tile_types: int,
        hidden: Sequence[int] = (256, 256),
        discard_effective: bool = False,
        trunk: str = "mlp",
    ):
        super().__init__()
        if trunk not in TRUNKS:
            raise ValueError(f"trunk must be one of {TRUNKS}, got {trunk!r}")
        if num_tile_types not in (27, 34):
            raise ValueError(f"num_tile_types must be 27 or 34, got {num_tile_types}")
        if not hidden or any(int(h) <= 0 for h in hidden):
            raise ValueError(f"hidden must be a non-empty list of positive widths, got {list(hidden)}")
        self.views = {str(k): tuple(int(s) for s in v) for k, v in views.items()}
        self.num_tile_types = int(num_tile_types)
        self.num_actions = self._action_count()
        self.hidden = tuple(int(h) for h in hidden)
        self.discard_effective = bool(discard_effective)
        self.trunk_kind = trunk
        offsets = view_offsets(self.views)
        trunk_size = max(stop for _, stop in offsets.values()) if offsets else 0
        self.register_buffer("_select", None, persistent=False)
        self.bind_observation(self.views)

        low = torch.empty(trunk_size)
        high = torch.empty(trunk_size)
        scale = torch.empty(trunk_size)
        for name, (a, b) in offsets.items():
            low[a:b], high[a:b], scale[a:b] = self._normalisation(name)
        self.register_buffer("obs_low", low)
        self.register_buffer("obs_high", high)
        self.register_buffer("obs_scale", scale)

        kinds = self._action_kinds()
        self.register_buffer("action_kinds", kinds)

        layers: list[nn.Module] = []
        width = trunk_size
        if trunk == "cnn":
            layers, width = self._cnn_layers(low, high, scale)
        for h in self.hidden:
            layers += [_layer(nn.Linear(width, h)), nn.Tanh()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.actor = _layer(nn.Linear(width, self.num_actions), std=0.01)
        self.critic = _layer(nn.Linear(width, 1), std=1.0)
        head_in = _DELTA_BINS + kinds.shape[1] + (_EFFECTIVE_FEATURES if self.discard_effective else 0)
        self.action_head = nn.Sequential(
            _layer(nn.Linear(head_in, 32)), nn.Tanh(), _layer(nn.Linear(32, 1), std=0.01)
        )

    # ---- what a rule set's action space and views make of the network (a room's own network overrides them) ----
    def _action_count(self) -> int:
        """Action ids: the shared rule sets' ``2T + 7`` (discards, kongs, the five claims, win, pass)."""
        return 2 * self.num_tile_types + 7

    def _action_kinds(self) -> torch.Tensor:
        """float32[A, kinds]: the one-hot kind of each action id (discard, kong, chow low / mid / high, pong,
        exposed kong, win, pass)."""
        t = self.num_tile_types
        kinds = torch.zeros(self.num_actions, _NUM_KINDS)
        kinds[:t, 0] = 1.0
        kinds[t : 2 * t, 1] = 1.0
        for j in range(7):
            kinds[2 * t + j, 2 + j] = 1.0
        return kinds

    def _normalisation(self, name: str) -> tuple[float, float, float]:
        """(low, high, scale) of a view's entries: the trunk reads ``clip(x, low, high) / scale``."""
        if name == "discards":  # tile id + 1, 0 = none
            return 0.0, float(self.num_tile_types + 1), float(self.num_tile_types + 1)
        return _VIEW_NORMALISATION.get(name, _DEFAULT_NORMALISATION)

    def _cnn_layers(self, low: torch.Tensor, high: torch.Tensor, scale: torch.Tensor) -> tuple[list[nn.Module], int]:
        """The convolutional part of ``trunk="cnn"`` (and the planes' clip and scale buffers); its output width."""
        self.planes = self._plane_spec()
        plane_low, plane_high, plane_scale = self._plane_normalisation(low, high, scale)
        self.register_buffer("plane_low", plane_low[:, None])
        self.register_buffer("plane_high", plane_high[:, None])
        self.register_buffer("plane_scale", plane_scale[:, None])
        c = self.planes.channels
        layers: list[nn.Module] = [
            nn.Conv1d(c, CNN_CHANNELS, 3, padding=1), nn.ReLU(),
            nn.Conv1d(CNN_CHANNELS, CNN_CHANNELS, 3, padding=1), nn.ReLU(), nn.Flatten(),
        ]
        return layers, CNN_CHANNELS * self.num_tile_types

    def _plane_spec(self):
        """The tile planes the ``"cnn"`` trunk reads (:class:`mjenv.planes.PlaneSpec` of :attr:`views`)."""
        from mjenv.planes import PlaneSpec

        return PlaneSpec(self.views, self.num_tile_types)

    def _plane_normalisation(self, low: torch.Tensor, high: torch.Tensor,
                             scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """float32[C] (low, high, scale) of each plane of :attr:`planes`, given the flat entries' (``low``, ``high``,
        ``scale``): each plane clipped and scaled as the flat entries it shows (the first of them: a plane is one
        view), the discard planes as counts (0..4) and one-hots."""
        # the flat entry of each plane's first tile
        first = self.planes.planes(np.arange(self.planes.size, dtype=np.float32))[:, 0]
        src = torch.as_tensor(first, dtype=torch.long)
        c0, _ = self.planes.layout["discard_counts"]
        seats = self.planes.layout["discard_counts"][1][0]
        plane_low, plane_high, plane_scale = low[src].clone(), high[src].clone(), scale[src].clone()
        plane_low[c0:c0 + seats], plane_high[c0:c0 + seats], plane_scale[c0:c0 + seats] = 0.0, 4.0, 4.0
        recent = slice(c0 + seats, c0 + seats * (1 + RECENT_DISCARDS))
        plane_low[recent], plane_high[recent], plane_scale[recent] = 0.0, 1.0, 1.0
        return plane_low, plane_high, plane_scale

    def bind_observation(self, views: Mapping[str, Sequence[int]]) -> None:
        """Read observations of the layout ``views`` from now on (``obs_size`` becomes its length).

        The layout must hold every view of :attr:`views` with the same shape; the trunk is fed exactly
        those entries, so a network keeps its function on a layout that gained views. The action
        head reads the per-action views ``effective_count_after_discard`` and
        ``deficiency_after_kong`` when the layout has them.

        Args:
            views: ordered view name -> shape, e.g. ``ObservationSpec(rules).views``.

        Raises:
            ValueError: a view of the network is missing from ``views`` or has another shape, or the
                deficiency views (and with ``discard_effective`` the hand and KB) are missing.
        """
        views = {str(k): tuple(int(s) for s in v) for k, v in views.items()}
        offsets = view_offsets(views)
        bad = [k for k, v in self.views.items() if views.get(k) != v]
        if bad:
            raise ValueError(f"the observation layout lacks the network's views {bad} (or has other shapes)")
        missing = [v for v in ("deficiency", "deficiency_after_discard", "deficiency_after_claim") if v not in offsets]
        if missing:
            raise ValueError(f"the observation must contain the deficiency views; missing {missing}")
        if self.discard_effective:
            need = [v for v in ("hand", "knowledge_base") if v not in offsets]
            if need:
                raise ValueError(f"discard_effective needs the views {need}")
        self.obs_size = max(stop for _, stop in offsets.values()) if offsets else 0
        self._def = offsets["deficiency"][0]
        self._dad = offsets["deficiency_after_discard"]
        self._dac = offsets["deficiency_after_claim"]
        self._hand = offsets.get("hand")
        self._kb = offsets.get("knowledge_base")
        # the per-action views, when the layout has them: read, not recomputed
        self._count_after = offsets.get("effective_count_after_discard")
        self._kong = offsets.get(self.kong_view)
        self._reads_views = self._count_after is not None and self._kong is not None
        if views == self.views:
            self._select = None
        else:  # the trunk's entries, in its own order
            idx = np.concatenate([np.arange(*offsets[k]) for k in self.views])
            device = self.obs_low.device if hasattr(self, "obs_low") else None
            self._select = torch.as_tensor(idx, dtype=torch.long, device=device)
        self.observation_views = views

    def config(self) -> dict[str, Any]:
        """Everything needed to rebuild this network (stored in checkpoints)."""
        return {
            "views": {k: list(v) for k, v in self.views.items()},
            "num_tile_types": self.num_tile_types,
            "hidden": list(self.hidden),
            "discard_effective": self.discard_effective,
            "trunk": self.trunk_kind,
        }

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> PolicyNet:
        """A fresh network from :meth:`config` (older configs without ``discard_effective`` too),
        bound to the current observation layout of its rule set (:func:`current_layout`). A config naming its
        ``"rules"`` is a network of a room's own (``RuleSet.own_policy``): that room's class rebuilds it."""
        if config.get("rules") is not None:
            return _own_policy(config["rules"]).POLICY_NET.from_config(config)
        net = cls(config["views"], config["num_tile_types"], config["hidden"],
                  bool(config.get("discard_effective", False)), config.get("trunk", "mlp"))
        layout = current_layout(net.views)
        if layout is not None:
            net.bind_observation(layout)
        return net

    def aux(self, obs: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Per-tile deficiency facts the head reads with ``discard_effective``.

        Read from the observation's per-action views when its layout has them; else recomputed from
        the ``hand`` and ``knowledge_base`` views with the exact deficiency core (numpy).

        Args:
            obs: float32[B, obs_size] raw observations.

        Returns:
            int16[B, 2T]: columns 0..T-1 the effective-tile count after discarding t, T..2T-1 the
            deficiency after a kong of t (concealed: H - 4t with one meld less to build; added: H - t);
            -1 where t is not held or it is not the seat's discard turn.
        """
        if self._reads_views:
            x = torch.as_tensor(obs)
            return self._aux_views(x).round().to(torch.int16)
        return self._aux_from_core(obs)

    def _aux_views(self, obs: torch.Tensor) -> torch.Tensor:
        """The per-action views (float[B, 2T]): what :meth:`aux` computes, as the observation has it."""
        return torch.cat([obs[:, self._count_after[0] : self._count_after[1]], obs[:, self._kong[0] : self._kong[1]]],
                         dim=1)

    def _aux_from_core(self, obs: np.ndarray | torch.Tensor) -> torch.Tensor:
        """:meth:`aux` recomputed with the deficiency core (layouts without the per-action views)."""
        from mjenv.deficiency import dp
        from mjenv.deficiency.features import effective_count_after_discard_rows

        x = obs.detach().cpu().numpy() if isinstance(obs, torch.Tensor) else np.asarray(obs)
        t = self.num_tile_types
        out = np.full((len(x), 2 * t), -1, dtype=np.int16)
        dad = x[:, self._dad[0] : self._dad[1]]
        rows = np.flatnonzero((dad >= 0).any(axis=1))
        if len(rows) == 0:
            return torch.from_numpy(out)
        hands = np.rint(x[rows, self._hand[0] : self._hand[1]]).astype(np.int8)
        kbs = np.rint(x[rows, self._kb[0] : self._kb[1]]).astype(np.int8)
        needed = (hands.sum(axis=1).astype(np.int64) - 2) // 3  # the hand holds 3m+2 tiles
        out[rows, :t] = effective_count_after_discard_rows(hands, kbs, needed)
        kong = np.where(hands > 0, dad[rows], -1).astype(np.int16)  # added kong: the hand left is H - t
        r4, t4 = np.nonzero((hands >= 4) & (needed[:, None] >= 1))
        if len(r4):
            left = hands[r4].copy()
            left[np.arange(len(r4)), t4] -= 4
            kong[r4, t4] = np.minimum(dp.deficiency_batch(left, kbs[r4], needed[r4] - 1), 99)
        out[rows, t:] = kong
        return torch.from_numpy(out)

    def action_features(self, obs: torch.Tensor, aux: torch.Tensor | None = None) -> torch.Tensor:
        """Per-action deficiency-change bins and kinds (and effective counts with ``discard_effective``).

        Args:
            obs: float32[B, obs_size] raw observations.
            aux: :meth:`aux` of ``obs`` (computed here when None; unused without ``discard_effective``).

        Returns:
            float32[B, A, 14] (17 with ``discard_effective``): one-hot of the deficiency change (<= -1,
            0, +1, >= +2, n/a), one-hot of the action kind, then for discards the effective count
            after it / 20, its gap below the best count among discards of equal deficiency / 4 (both
            clipped to [0, 2]) and 1 where it is that best.

        On the CPU, with the per-action views in the observation, the same values come from numpy
        (:meth:`_action_features_numpy`; a test checks every byte): a rollout step's few rows cost
        about half as much there as in torch's small operations.
        """
        if (obs.device.type == "cpu" and not obs.requires_grad
                and (not self.discard_effective or (aux is None and self._reads_views))):
            return torch.from_numpy(self._action_features_numpy(obs.numpy()))
        n_b, t = obs.shape[0], self.num_tile_types
        now = obs[:, self._def].clamp(0.0, _DEFICIENCY_CLIP)
        after = torch.full((n_b, self.num_actions), -1.0, device=obs.device)
        after[:, :t] = obs[:, self._dad[0] : self._dad[1]]
        after[:, 2 * t : 2 * t + 5] = obs[:, self._dac[0] : self._dac[1]]
        if self.discard_effective:
            if aux is None:
                aux = self._aux_views(obs) if self._reads_views else self.aux(obs)
            aux = aux.to(device=obs.device, dtype=obs.dtype)
            after[:, t : 2 * t] = aux[:, t:]
        onehot = delta_onehot(after, now)
        kinds = self.action_kinds.expand(n_b, -1, -1)
        if not self.discard_effective:
            return torch.cat([onehot, kinds], dim=-1)
        extra = torch.zeros(n_b, self.num_actions, _EFFECTIVE_FEATURES, dtype=obs.dtype, device=obs.device)
        extra[:, :t] = discard_effective_features(aux[:, :t], after[:, :t])
        return torch.cat([onehot, kinds, extra], dim=-1)

    def _action_features_numpy(self, x: np.ndarray) -> np.ndarray:
        """:meth:`action_features` of float32[B, obs_size] observations in numpy, the same operations in
        the same float32 arithmetic (effective counts and kong deficiencies read from the views; a clip is
        a maximum then a minimum, as torch's clamp)."""
        n_b, t = x.shape[0], self.num_tile_types
        kinds = self.action_kinds.numpy()
        now = np.minimum(np.maximum(x[:, self._def], np.float32(0.0)), np.float32(_DEFICIENCY_CLIP))
        after = np.full((n_b, self.num_actions), -1.0, dtype=np.float32)
        after[:, :t] = x[:, self._dad[0] : self._dad[1]]
        after[:, 2 * t : 2 * t + 5] = x[:, self._dac[0] : self._dac[1]]
        if self.discard_effective:
            after[:, t : 2 * t] = x[:, self._kong[0] : self._kong[1]]
        delta = np.minimum(np.maximum(after, np.float32(0.0)), np.float32(_DEFICIENCY_CLIP))
        delta -= now[:, None]
        np.round(delta, out=delta)
        np.minimum(np.maximum(delta, np.float32(-1.0), out=delta), np.float32(2.0), out=delta)
        bins = np.where(after >= 0, delta + np.float32(1.0), np.float32(_DELTA_BINS - 1)).astype(np.int64)
        width = _DELTA_BINS + kinds.shape[-1] + (_EFFECTIVE_FEATURES if self.discard_effective else 0)
        out = np.zeros((n_b, self.num_actions, width), dtype=np.float32)
        out.reshape(-1)[np.arange(bins.size) * width + bins.reshape(-1)] = 1.0  # the one-hot of the bin
        out[..., _DELTA_BINS : _DELTA_BINS + kinds.shape[-1]] = kinds
        if self.discard_effective:
            extra = out[:, :t, _DELTA_BINS + kinds.shape[-1] :]
            eff = x[:, self._count_after[0] : self._count_after[1]]
            held = eff >= 0
            dad = after[:, :t]
            same = (dad[:, :, None] == dad[:, None, :]) & held[:, None, :]
            best = np.where(same, eff[:, None, :], np.float32(-1.0)).max(axis=2)
            extra[..., 0] = np.where(held, np.minimum(np.maximum(eff, np.float32(0.0)), np.float32(40.0)) / 20.0, 0.0)
            extra[..., 1] = np.where(held, np.minimum(np.maximum(best - eff, np.float32(0.0)), np.float32(8.0)) / 4.0,
                                     0.0)
            extra[..., 2] = held & (eff == best)
        return out

    def normalise(self, obs: torch.Tensor) -> torch.Tensor:
        """The trunk's input: the network's entries of raw observations float32[B, obs_size], clipped and
        scaled; with ``trunk="cnn"`` their tile planes float32[B, C, T], each clipped and scaled."""
        if self.trunk_kind == "cnn":
            flat = obs if self._select is None else obs.index_select(1, self._select)
            return torch.clamp(self.planes.planes(flat), self.plane_low, self.plane_high) / self.plane_scale
        return normalise_observation(obs, self._select, self.obs_low, self.obs_high, self.obs_scale)

    @staticmethod
    def head_mask(mask: torch.Tensor) -> torch.Tensor:
        """Where the action-feature head runs: the legal actions of the rows with more than one.

        A row with a single legal action gives it probability 1 whatever its logit, and no gradient
        reaches that logit through the log-probabilities or the entropy, so :meth:`forward` leaves the
        head out there (its logit is the trunk's alone) and at every illegal action (``-inf``).

        Args:
            mask: int8/bool[B, A] legal actions.

        Returns:
            bool[B, A].
        """
        legal = mask.bool()
        return legal & (legal.sum(dim=1) > 1)[:, None]

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, aux: torch.Tensor | None = None,
        features: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values.

        The logits of a row with several legal actions are the actor's plus the action-feature head's; a
        row with one legal action gets the actor's alone (see :meth:`head_mask`: its distribution, a
        certainty, is the same either way).

        Args:
            obs: float32[B, obs_size] raw observations.
            mask: int8/bool[B, A] legal actions (1 = legal); every row needs at least one.
            aux: :meth:`aux` of ``obs`` when precomputed (only read with ``discard_effective``).
            features: :meth:`action_features` of ``obs`` when precomputed (they hold no parameter, so
                a trainer may compute them once for the epochs over one batch): float32[B, A, F], or
                only its entries where the head runs, float32[L, F] (``features[head_mask(mask)]``: row
                by row, actions in id order); ``aux`` is then unused.

        Returns:
            (logits float32[B, A] with ``-inf`` at illegal actions, values float32[B]).
        """
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise ValueError(f"obs must have shape (B, {self.obs_size}), got {tuple(obs.shape)}")
        if mask.shape != (obs.shape[0], self.num_actions):
            raise ValueError(f"mask must have shape ({obs.shape[0]}, {self.num_actions}), got {tuple(mask.shape)}")
        legal = mask.bool()
        count = legal.sum(dim=1)
        if not (count > 0).all():
            row = int(torch.nonzero(count == 0)[0, 0])
            raise ValueError(f"action mask row {row} is all zero; every observation needs a legal action (PASS)")
        h = self.trunk(self.normalise(obs))
        # the head runs where it can change a probability only (about 1 action in 60): the legal actions of
        # rows with a choice
        head_at = legal & (count > 1)[:, None]
        if features is None:
            rows = torch.nonzero(count > 1).squeeze(1)
            features = self.action_features(obs.index_select(0, rows), None if aux is None else aux[rows])
            features = features[head_at.index_select(0, rows)]
        elif features.ndim == 3:
            features = features[head_at]
        elif features.ndim != 2 or features.shape[0] != int(head_at.sum()):
            raise ValueError(f"features must have shape (B, A, F) or (entries of head_mask(mask), F), got "
                             f"{tuple(features.shape)} for {int(head_at.sum())} such entries")
        head = self.action_head(features).squeeze(-1)
        logits = self.actor(h) + torch.zeros_like(head_at, dtype=head.dtype).masked_scatter(head_at, head)
        logits = logits.masked_fill(~legal, -math.inf)
        return logits, self.critic(h).squeeze(-1)


def current_layout(views: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, ...]] | None:
    """The current observation layout (``ObservationSpec(rules, oracle).views`` of a preset) that holds
    ``views`` in the same order and shapes, for a network built on an older layout; None when
    ``views`` already is a current layout or no preset's layout holds it (custom rules)."""
    from mjenv.observation import ObservationSpec
    from mjenv.rulesets import shared_names

    views = {str(k): tuple(int(s) for s in v) for k, v in views.items()}
    for name in shared_names():
        for oracle in (False, True):
            layout = ObservationSpec(name, oracle=oracle).views
            if layout == views:
                return None
            if [k for k in layout if k in views] == list(views) and all(layout[k] == v for k, v in views.items()):
                return dict(layout)
    return None


def _own_policy(rules: Any) -> Any:
    """The module of the room's own network for ``rules`` (``rulesets.own_policy``).

    Raises:
        ValueError: no room has a network of its own for ``rules``.
    """
    from mjenv import rulesets

    own = rulesets.own_policy(rules)
    if own is None:
        raise ValueError(f"the checkpoint's network is for rules {rules!r}, which have no network of their own")
    return own


def build_net(rules: Any = "basic", hidden: Sequence[int] = (256, 256), discard_effective: bool = True,
              trunk: str = "mlp") -> PolicyNet:
    """A fresh :class:`PolicyNet` for the default observation of a rule set (``trunk``: ``"mlp"`` or ``"cnn"``);
    for a rule set whose room has a network of its own (``RuleSet.own_policy``), that network."""
    from mjenv import rulesets
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    own = rulesets.own_policy(rules)
    if own is not None:
        return own.POLICY_NET(hidden=hidden, discard_effective=discard_effective, trunk=trunk)

    return PolicyNet(ObservationSpec(rules=rules).views, get_rules(rules).num_tile_types, hidden, discard_effective,
                     trunk)


class PolicyAgent:
    """An agent that acts with a :class:`PolicyNet` from its own observation only.

    Args:
        net: the network; None builds a fresh (untrained) one for ``rules``.
        rules: rule set name or ``Rules`` (used only when ``net`` is None).
        seed: seeds the sampling generator (``np.random.Generator``).
        greedy: True picks the most likely legal action; False samples from the masked softmax.
        device: torch device for inference.
        threads: torch's intra-op threads while this agent decides (set for each decision and put
            back after it, so the agent neither inherits nor leaves another setting); 1 by default:
            one decision of this small network gains nothing from threads, and parallel evaluation
            workers each running torch's default (all cores) contend and inflate ``ms/decision``.
            None leaves torch's setting alone.
    """

    def __init__(
        self,
        net: PolicyNet | None = None,
        *,
        rules: Any = "basic",
        seed: int | None = 0,
        greedy: bool = True,
        device: str = "cpu",
        threads: int | None = 1,
    ):
        if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or threads < 1):
            raise ValueError(f"threads must be a positive int or None, got {threads!r}")
        self.threads = threads
        self.net = (net if net is not None else build_net(rules)).to(device)
        self.net.eval()
        self.device = torch.device(device)
        self.greedy = bool(greedy)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.name = "policy"

    def reset(self, seed: int | None = None) -> None:
        """Reseed the sampling generator (None keeps the constructor's seed)."""
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    @torch.no_grad()
    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of observations.

        Args:
            observations: float32[B, obs_size].
            masks: int8[B, A] legal-action masks.

        Returns:
            int64[B] action ids, each legal under its mask.
        """
        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32), device=self.device)
        mask = torch.as_tensor(np.asarray(masks), device=self.device)
        if obs.ndim == 1:
            obs, mask = obs[None], mask[None]
        before = torch.get_num_threads()
        if self.threads is not None and before != self.threads:
            torch.set_num_threads(self.threads)
        try:
            logits, _ = self.net(obs, mask)
        finally:
            if torch.get_num_threads() != before:
                torch.set_num_threads(before)
        if self.greedy:
            return logits.argmax(dim=1).cpu().numpy().astype(np.int64)
        probs = torch.softmax(logits, dim=1).double().cpu().numpy()
        # inverse-CDF sampling with our own generator keeps results reproducible under a seed
        u = self.rng.random(len(probs))
        cdf = np.cumsum(probs, axis=1)
        cdf[:, -1] = 1.0 + 1e-12
        idx = (cdf < u[:, None]).sum(axis=1)
        legal = np.asarray(masks).reshape(len(probs), -1) > 0
        # a zero-probability pick can only come from float round-off at a boundary: step to a legal id
        for i in np.flatnonzero(~legal[np.arange(len(idx)), idx]):
            idx[i] = int(np.flatnonzero(legal[i])[np.argmax(probs[i][legal[i]])])
        return idx.astype(np.int64)

    def act(self, observation: Mapping[str, np.ndarray]) -> int:
        """One action from an observation dict ``{"observation", "action_mask"}``."""
        if not isinstance(observation, Mapping) or "observation" not in observation or "action_mask" not in observation:
            raise ValueError("act() takes the observation dict {'observation': array, 'action_mask': array}")
        return int(self.act_batch(observation["observation"][None], observation["action_mask"][None])[0])

    def __call__(self, observation: Mapping[str, np.ndarray]) -> int:
        return self.act(observation)

    def save(self, path: str | Path, **extra: Any) -> Path:
        """Write the network (config + weights) to ``path``; ``extra`` plain values are stored too."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        save_policy(self.net, path, **extra)
        return path

    @classmethod
    def load(cls, path: str | Path, *, seed: int | None = 0, greedy: bool = True, device: str = "cpu",
             threads: int | None = 1) -> PolicyAgent:
        """An agent from a checkpoint written by :meth:`save` or by the training scripts."""
        return cls(load_net(path, device=device), seed=seed, greedy=greedy, device=device, threads=threads)


def save_policy(net: PolicyNet, path: str | Path, **extra: Any) -> None:
    """Save a network as a policy checkpoint (float32 weights, config, extra plain values)."""
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    torch.save({"format": CHECKPOINT_FORMAT, "config": net.config(), "state_dict": state, "extra": extra}, path)


def load_net(path: str | Path, device: str = "cpu") -> PolicyNet:
    """Rebuild a :class:`PolicyNet` from a checkpoint file (policy or training checkpoint)."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"no policy checkpoint at {str(path)!r}")
    ckpt = torch.load(path, map_location=device, weights_only=True)
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{str(path)!r} is not an mjenv policy checkpoint (expected format {CHECKPOINT_FORMAT!r})")
    net = PolicyNet.from_config(ckpt["config"])
    net.load_state_dict(ckpt["state_dict"])
    return net.to(device)


#: shipped policies by name (package data of ``mjenv.baselines``): ``bc`` is the behaviour-cloned policy
#: (``examples/train_pretrained.sh``), ``rl`` the one fine-tuned from it by PPO
#: (``research/training/train_rl_policy.sh``)
PRETRAINED_FILES = {"bc": PRETRAINED_FILE, "rl": "rl_policy.pt"}
#: the policy ``load_pretrained()`` returns when no name is given
DEFAULT_PRETRAINED = "bc"


def pretrained_path(name: str = DEFAULT_PRETRAINED) -> Path:
    """Path of a shipped policy file.

    Args:
        name: one of ``PRETRAINED_FILES`` (``"bc"``, ``"rl"``).

    Raises:
        ValueError: for an unknown name, or a known one whose file is not in this installation.
    """
    if name not in PRETRAINED_FILES:
        raise ValueError(f"unknown shipped policy {name!r}; choose from {sorted(PRETRAINED_FILES)}")
    path = Path(str(resources.files("mjenv.baselines") / "data" / PRETRAINED_FILES[name]))
    if not path.is_file():
        raise ValueError(f"shipped policy {name!r} is not in this installation (no file {str(path)!r})")
    return path


def load_pretrained(name: str = DEFAULT_PRETRAINED, *, seed: int | None = 0, greedy: bool = True,
                    device: str = "cpu", threads: int | None = 1) -> PolicyAgent:
    """A small policy shipped with mjenv (``basic`` rules; see ``docs/TRAINING.md`` for how each was trained).

    Args:
        name: ``"bc"`` (behaviour cloning, the default) or ``"rl"`` (PPO fine-tuned from ``bc``).
    """
    return PolicyAgent.load(pretrained_path(name), seed=seed, greedy=greedy, device=device, threads=threads)
