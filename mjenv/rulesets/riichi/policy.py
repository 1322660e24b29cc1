"""The policy network on Riichi observations (the room's ``own_policy``: what ``mjenv train ppo|bc --rules riichi``
trains): :class:`~mjenv.baselines.policy.PolicyNet`'s trunk, value and action-feature head over the Riichi
observation and its 85 actions.

What differs from the shared rule sets' network is what the two parts read:

* the trunk reads every view of the Riichi observation (:mod:`mjenv.rulesets.riichi.observation`), each clipped and
  scaled to about [-1, 1]: by the range the spec gives it, the deficiency views as the shared network's, the scores
  (thousands of points) over 50, the honba and riichi-stick counters over 5;
* the action-feature head maps each action id to what the deficiency core says of it, read from the observation's
  per-action views: a discard of t (its red five too) the ``deficiency_after_discard`` of t and, with
  ``discard_effective``, its ``effective_count_after_discard``; a closed or added kan of t its
  ``deficiency_after_kan``; chi low / mid / high (with or without the red five), pon and open kan the
  ``deficiency_after_claim`` entries; riichi, tsumo, ron, kyuushu and pass none. The kinds are Riichi's 13:
  discard, red-five discard, kan, riichi, tsumo, ron, chi, chi with the red five, pon, pon with the red five, open
  kan, kyuushu, pass.

The trunk is an MLP over those scaled views (``trunk="mlp"``), or (``trunk="cnn"``) the shared network's two
convolutions along the tile axis over the Riichi tile planes (``observation="planes"``'s 164 x 34, built inside the
network from the flat observation), each plane clipped and scaled as the view it shows: a plane that holds a view's
entries as its (``tiles``, ``scalar``, ``per_discard``) as that view, a plane of counts (``tile_ids``,
``slot_sums``, the discard counts) over 4, the recent-discard one-hots as they are.

Checkpoints carry ``"rules": "riichi"`` in their config, so :func:`~mjenv.baselines.policy.load_net`,
``PolicyAgent.load`` and ``policy:PATH`` rebuild this class (through the registry: ``rulesets.own_policy``).

The room's training parts (``RuleSet.own_policy``): :data:`POLICY_NET`, :data:`TRUNKS`, :data:`TRAIN_EPISODES`,
:func:`episode_wins`, and :func:`log_decisions` (behaviour cloning's ``--logs``: real Tenhou games).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

from mjenv.baselines.policy import (
    _DEFICIENCY_CLIP,
    _EFFECTIVE_FEATURES,
    _VIEW_NORMALISATION,
    PolicyNet,
    delta_onehot,
    discard_effective_features,
    view_offsets,
)
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.observation import spec as riichi_spec

__all__ = ["ACTION_KINDS", "POLICY_NET", "TRAIN_EPISODES", "TRUNKS", "RiichiPolicyNet", "action_sources",
           "episode_wins", "log_decisions"]

T = 34
#: the trunks a Riichi network builds
TRUNKS = ("mlp", "cnn")
#: the vector env's ``episode=`` values ``mjenv train ppo|bc --rules riichi`` train on
TRAIN_EPISODES = ("hand", "east", "hanchan")
#: the action kinds of the head, in its one-hot order
ACTION_KINDS = ("discard", "discard_red", "kan", "riichi", "tsumo", "ron", "chi", "chi_red", "pon", "pon_red",
                "minkan", "kyuushu", "pass")
#: the tile of each red-five discard (bamboo, characters, dots 5: mjenv tile ids 4, 13, 22)
RED_FIVE_TILES = (4, 13, 22)
#: the deficiency views the network needs in its observation
_NEEDED = ("deficiency", "deficiency_after_discard", "deficiency_after_claim", "deficiency_after_kan",
           "effective_count_after_discard")
# Riichi's views whose spec range is not the scale to read them by
_RIICHI_NORMALISATION: dict[str, tuple[float, float, float]] = {
    "scores": (-100.0, 200.0, 50.0),
    "honba": (0.0, 10.0, 5.0),
    "riichi_sticks": (0.0, 10.0, 5.0),
    "deficiency_after_kan": _VIEW_NORMALISATION["deficiency_after_kong"],
}
_SHARED_NAMES = ("deficiency", "deficiency_after_discard", "deficiency_after_claim", "effective_tiles",
                 "effective_count", "effective_count_after_discard")


def action_sources() -> list[tuple[str, str | None, int]]:
    """Per action id ``(kind, view, index)``: its kind (:data:`ACTION_KINDS`) and the entry of the view that holds
    its deficiency after it (``view`` None: none applies).

    Returns:
        85 triples, in action-id order.
    """
    out: list[tuple[str, str | None, int]] = []
    for a in range(A.N_ACTIONS):
        if a < A.DISCARD_RED:
            out.append(("discard", "deficiency_after_discard", a - A.DISCARD))
        elif a < A.KAN:
            out.append(("discard_red", "deficiency_after_discard", RED_FIVE_TILES[a - A.DISCARD_RED]))
        elif a < A.RIICHI:
            out.append(("kan", "deficiency_after_kan", a - A.KAN))
        elif a in (A.RIICHI, A.TSUMO, A.RON, A.KYUUSHU, A.PASS):
            out.append(({A.RIICHI: "riichi", A.TSUMO: "tsumo", A.RON: "ron", A.KYUUSHU: "kyuushu",
                         A.PASS: "pass"}[a], None, 0))
        elif A.CHI <= a < A.CHI_RED:
            out.append(("chi", "deficiency_after_claim", a - A.CHI))
        elif A.CHI_RED <= a < A.PON:
            out.append(("chi_red", "deficiency_after_claim", a - A.CHI_RED))
        elif a in (A.PON, A.PON_RED):
            out.append(("pon" if a == A.PON else "pon_red", "deficiency_after_claim", 3))
        else:  # A.MINKAN
            out.append(("minkan", "deficiency_after_claim", 4))
    return out


class RiichiPolicyNet(PolicyNet):
    """Masked actor-critic over the Riichi observation (see the module docstring).

    Args:
        views: ordered view name -> shape: the Riichi spec's (``mjenv.rulesets.riichi.observation.spec().views``,
            the default); its deficiency views are needed (``observation="raw"`` lacks them).
        hidden: widths of the trunk's hidden layers.
        discard_effective: give the head each discard's effective count after it (as the shared network's).
        trunk: ``"mlp"`` or ``"cnn"`` (the module docstring).

    Raises:
        ValueError: another trunk, or a layout without the deficiency views.
    """

    kong_view = "deficiency_after_kan"

    def __init__(self, views: Mapping[str, Sequence[int]] | None = None, hidden: Sequence[int] = (256, 256),
                 discard_effective: bool = True, trunk: str = "mlp"):
        if trunk not in TRUNKS:
            raise ValueError(f"a Riichi network's trunk is one of {TRUNKS}, got trunk={trunk!r}")
        self._spec = riichi_spec()
        super().__init__(self._spec.views if views is None else views, T, hidden, discard_effective, trunk)

    def _action_count(self) -> int:
        return A.N_ACTIONS

    def _action_kinds(self) -> torch.Tensor:
        kinds = torch.zeros(A.N_ACTIONS, len(ACTION_KINDS))
        for a, (kind, _, _) in enumerate(action_sources()):
            kinds[a, ACTION_KINDS.index(kind)] = 1.0
        return kinds

    def _normalisation(self, name: str) -> tuple[float, float, float]:
        if name in _RIICHI_NORMALISATION:
            return _RIICHI_NORMALISATION[name]
        if name in _SHARED_NAMES:
            return _VIEW_NORMALISATION[name]
        view = self._spec.view(name)  # a Riichi view: its own range
        lo, hi = float(view.low), float(view.high)
        return lo, hi, max(abs(lo), abs(hi), 1.0)

    def _plane_spec(self):
        from mjenv.planes import PlaneSpec

        kinds = {k: v for k, v in self._spec.plane_kinds.items() if k in self.views}
        return PlaneSpec(self.views, T, kinds=kinds)

    def _plane_normalisation(self, low: torch.Tensor, high: torch.Tensor,
                             scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Per plane group (:attr:`PlaneSpec.layout`): a view's own entries (kinds ``tiles``, ``scalar``,
        ``per_discard``) as the view; counts (``tile_ids``, ``slot_sums``, ``discard_counts``) over 4; the
        recent-discard one-hots as they are."""
        layout = sorted(self.planes.layout.items(), key=lambda kv: kv[1][0])
        c = self.planes.channels
        out = torch.empty(3, c)
        for k, (name, (first, _)) in enumerate(layout):
            stop = layout[k + 1][1][0] if k + 1 < len(layout) else c
            kind = self.planes.kinds.get(name)
            if kind in ("tiles", "scalar", "per_discard"):
                bounds = self._normalisation(name)
            elif name == "recent_discards":
                bounds = (0.0, 1.0, 1.0)
            else:  # tile_ids, slot_sums, discard_counts: copies of a tile, or slots, 0..4
                bounds = (0.0, 4.0, 4.0)
            out[:, first:stop] = torch.tensor(bounds)[:, None]
        return out[0], out[1], out[2]

    def bind_observation(self, views: Mapping[str, Sequence[int]]) -> None:
        """Read observations of the layout ``views`` (:meth:`PolicyNet.bind_observation`: every view of
        :attr:`views` with the same shape), which must hold the deficiency views; the action head's sources are that
        layout's entries.

        Raises:
            ValueError: a deficiency view is missing (``observation="raw"``), or a view of the network is, or has
                another shape.
        """
        missing = [v for v in _NEEDED if v not in views]
        if missing:
            raise ValueError(f"a Riichi network needs the deficiency views (not observation='raw'); missing {missing}")
        super().bind_observation(views)
        offsets = view_offsets(self.observation_views)
        # each action's source column; obs_size (a column of -1 appended) where none applies
        src = [self.obs_size if view is None else offsets[view][0] + i for _, view, i in action_sources()]
        device = self.obs_low.device if hasattr(self, "obs_low") else None
        self.register_buffer("_after_source", torch.as_tensor(src, dtype=torch.long, device=device),
                             persistent=False)
        tiles = list(range(T)) + list(RED_FIVE_TILES)  # the tile of each discard action 0..36
        self.register_buffer("_discard_tile", torch.as_tensor(tiles, dtype=torch.long, device=device),
                             persistent=False)

    def config(self) -> dict[str, Any]:
        return {**super().config(), "rules": "riichi"}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> RiichiPolicyNet:
        """A fresh network from :meth:`config` (``"rules": "riichi"``), bound to the current Riichi observation.

        Raises:
            ValueError: the config is not a Riichi network's, or its views are not in today's Riichi observation.
        """
        if config.get("rules") != "riichi":
            raise ValueError(f"not a Riichi network's config (rules {config.get('rules')!r})")
        net = cls(config["views"], config["hidden"], bool(config.get("discard_effective", True)),
                  config.get("trunk", "mlp"))
        if net.observation_views != riichi_spec().views:
            net.bind_observation(riichi_spec().views)
        return net

    def action_features(self, obs: torch.Tensor, aux: torch.Tensor | None = None) -> torch.Tensor:
        """Per action: the one-hot of its deficiency change (<= -1, 0, +1, >= +2, n/a), the one-hot of its kind
        (:data:`ACTION_KINDS`), and with ``discard_effective`` for discards the effective count after it / 20, its
        gap below the best count among discards of equal deficiency / 4 (both clipped to [0, 2]) and 1 where it is
        that best (as the shared network's). ``aux`` is not read (the observation holds every source).

        Args:
            obs: float32[B, obs_size] raw observations.

        Returns:
            float32[B, 85, 18] (21 with ``discard_effective``).
        """
        n_b = obs.shape[0]
        now = obs[:, self._def].clamp(0.0, _DEFICIENCY_CLIP)
        padded = torch.cat([obs, obs.new_full((n_b, 1), -1.0)], dim=1)
        onehot = delta_onehot(padded.index_select(1, self._after_source), now)
        kinds = self.action_kinds.to(obs.dtype).expand(n_b, -1, -1)
        if not self.discard_effective:
            return torch.cat([onehot, kinds], dim=-1)
        per_tile = discard_effective_features(obs[:, self._count_after[0] : self._count_after[1]],
                                              obs[:, self._dad[0] : self._dad[1]])
        extra = obs.new_zeros((n_b, self.num_actions, _EFFECTIVE_FEATURES))
        extra[:, : len(self._discard_tile)] = per_tile.index_select(1, self._discard_tile)
        return torch.cat([onehot, kinds, extra], dim=-1)


#: the room's network class (``RuleSet.own_policy``)
POLICY_NET = RiichiPolicyNet


def episode_wins(final: Mapping[str, Any], game: bool) -> np.ndarray:
    """bool[N, 4]: which seats won the episodes that just ended (read where one did), from the vector env's
    ``infos["final_info"]``: a seat among the hand's winners, or with ``game`` (east or hanchan episodes) the seat
    with the most final points (ties: each of them)."""
    if game:
        points = np.asarray(final["final_points"])
        return points == points.max(axis=1, keepdims=True)
    return np.asarray(final["winners"], dtype=bool)


#: the names of the Tenhou log files :func:`log_decisions` reads in a folder
LOG_SUFFIXES = (".mjlog", ".xml", ".mjlog.gz", ".xml.gz")


def _game_decisions(f) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~mjenv.rulesets.riichi.mjlog.decisions` of the log file ``f`` (a Path; gzip read no further than a log
    may be long); ValueError naming the file."""
    import gzip
    import io

    from mjenv.rulesets.riichi.mjlog import MAX_LOG_CHARS, decisions

    raw = f.read_bytes()
    try:
        if raw[:2] == b"\x1f\x8b":  # gzip: read no further than a log may be long (mjlog.parse refuses more)
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = z.read(4 * MAX_LOG_CHARS + 1)
        return decisions(raw.decode("utf-8"))
    except (ValueError, OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{f}: {e}") from None


def log_decisions(path: str, progress: bool = True,
                  workers: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The players' decisions in Tenhou logs (``mjenv train bc --rules riichi --logs PATH``), as
    :func:`mjenv.rulesets.riichi.mjlog.decisions` gives them, game after game.

    Args:
        path: an mjlog file (Tenhou's XML, plain or gzip-compressed), or a folder whose ``*.mjlog`` and ``*.xml``
            files (and their ``.gz``) are read in name order.
        progress: a progress bar over the files.
        workers: processes that replay the files (1: this one); the result is the same for any number.

    Returns:
        ``(obs float32[M, 1535], masks int8[M, 85], actions int64[M], hand_ids int64[M])``: ``hand_ids`` number the
        hands of all the games in order (a split by them keeps each hand whole).

    Raises:
        ValueError: no such file or folder, a folder without logs, or a log that does not replay (naming the file).
    """
    from pathlib import Path

    from tqdm.auto import tqdm

    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    p = Path(path)
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.is_file() and f.name.endswith(LOG_SUFFIXES))
        if not files:
            raise ValueError(f"no Tenhou logs (*.mjlog, *.xml, or .gz of them) in the folder {str(path)!r}")
    elif p.is_file():
        files = [p]
    else:
        raise ValueError(f"no Tenhou log file or folder at {str(path)!r}")
    bar = tqdm(total=len(files), desc="BC data (Tenhou logs)", unit="game", disable=not progress)
    if workers == 1 or len(files) == 1:
        games = (_game_decisions(f) for f in files)
        pool = None
    else:  # in file order, whichever process finishes first
        import multiprocessing as mp
        import os
        from concurrent.futures import ProcessPoolExecutor

        ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()  # as the evaluation harness
        pool = ProcessPoolExecutor(min(int(workers), len(files)), mp_context=ctx)
        games = pool.map(_game_decisions, files, chunksize=4)
    parts, offset = [], 0
    try:
        for obs, masks, actions, hands in games:
            parts.append((obs, masks, actions, hands + offset))
            offset += int(hands.max()) + 1 if len(hands) else 0
            bar.update(1)
    finally:
        bar.close()
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return tuple(np.concatenate([part[i] for part in parts]) for i in range(4))
