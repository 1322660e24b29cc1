"""Oracle-guided value for PPO: a critic that also sees what the seat cannot (training only).

An asymmetric actor-critic (Pinto et al. 2018, "Asymmetric Actor Critic for Image-Based Robot
Learning"; in Mahjong, Suphx's oracle guiding, Li et al. 2020, Sec. 3.3): the actor, the
:class:`~mjenv.baselines.policy.PolicyNet` that is saved and played, reads only the seat's own
observation. The critic, used only to compute PPO's advantages, reads the observation **and**
privileged facts of the hidden state. A hand's outcome here is mostly the wall; a critic that knows
the wall can tell a decision's effect from the luck that follows it, so the advantages carry less
noise. The critic is never saved into the policy file and never acts.

Privileged features (:func:`privileged_features`), per observing seat, for each of the four seats
in seat-relative order (the observer first):

- its concealed tiles (counts / 4);
- the tiles of its next 4 and next 8 front draws from the wall, as counts, if draws went round the
  table in turn from the seat after the current player (claims and kongs change the real order, so
  this is an estimate the critic learns to weigh);
- after how many of those draws (0..8) its concealed tiles first contain the melds it still needs
  and a pair, one-hot, with a tenth column for "not within 8" (the optimistic self-draw race of
  flat MC, on the real wall);

and the undrawn wall's length / 70.

Only the compiled batch engine of the vector env (:class:`mjenv.game.batch.BatchGames`) is read. The
env's own ``observation="oracle"`` views (every hand and the wall, seat-relative) are not used: that
option runs on the Python engine only (its wall view is computed from a ``Game``), several times
slower for training, and the completion race is a derived fact that no view holds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from mjenv.baselines.policy import normalise_observation
from torch import nn

from mjenv.deficiency.contains import contains_complete
from mjenv.game.batch import SCALARS
from mjenv.observation import relative_order

#: Front draws per seat the features look ahead.
LOOKAHEAD = 8
#: Features per seat: hand, next 4 draws, next 8 draws (T each), completion one-hot (LOOKAHEAD + 2).
_COMPLETE_BINS = LOOKAHEAD + 2
_HEAD, _TAIL, _CURRENT = SCALARS.index("_head"), SCALARS.index("_tail"), SCALARS.index("current_player")
#: ``_ROTATE[s]``: the absolute seats in seat s's relative order (the observation's own definition).
_ROTATE = np.stack([relative_order(s) for s in range(4)])


def privileged_size(num_tile_types: int) -> int:
    """Length of one seat's :func:`privileged_features` row."""
    return 4 * (3 * num_tile_types + _COMPLETE_BINS) + 1


def next_draws(games) -> tuple[np.ndarray, np.ndarray]:
    """Each seat's next ``LOOKAHEAD`` front draws, if the draws went round the table in turn.

    Args:
        games: a :class:`mjenv.game.batch.BatchGames`.

    Returns:
        (tiles int64[N, 4, LOOKAHEAD], valid bool[N, 4, LOOKAHEAD]); absolute seats. The k-th tile
        from the wall's head goes to seat ``(current_player + 1 + k) % 4``; positions at or past the
        tail are not valid (tile 0 there).
    """
    head = games.scalars[:, _HEAD].astype(np.int64)
    tail = games.scalars[:, _TAIL].astype(np.int64)
    current = games.scalars[:, _CURRENT].astype(np.int64)
    first = (np.arange(4)[None, :] - current[:, None] - 1) % 4  # [N, 4]: seat a's first draw offset
    pos = head[:, None, None] + first[:, :, None] + 4 * np.arange(LOOKAHEAD)[None, None, :]
    valid = pos < tail[:, None, None]
    rows = np.arange(len(head))[:, None, None]
    tiles = np.where(valid, games.wall[rows, np.minimum(pos, games.wall.shape[1] - 1)], 0).astype(np.int64)
    return tiles, valid


def completion_index(priv: np.ndarray, num_tile_types: int) -> np.ndarray:
    """The completion race read back out of :func:`privileged_features` rows.

    Args:
        priv: float[..., privileged_size(T)].
        num_tile_types: T.

    Returns:
        int64[..., 4]: per seat in relative order, after how many of its next draws its tiles first
        complete (0..LOOKAHEAD), or LOOKAHEAD + 1 for not within them.
    """
    block = 3 * num_tile_types + _COMPLETE_BINS
    seats = np.asarray(priv)[..., : 4 * block].reshape(*np.shape(priv)[:-1], 4, block)
    return seats[..., 3 * num_tile_types :].argmax(axis=-1)


def privileged_features(games) -> np.ndarray:
    """The critic's privileged input of every seat at every table (see the module docstring).

    Args:
        games: a :class:`mjenv.game.batch.BatchGames` (the vector env's ``_batch.games``).

    Returns:
        float32[N, 4, privileged_size(T)], row [n, s] for seat s (its relative order).
    """
    t = games.rules.num_tile_types
    n = games.tiles.shape[0]
    hands = games.tiles[:, 0:4, :t].astype(np.int64)  # [N, 4, T]
    tiles, valid = next_draws(games)
    onehot = np.zeros((n, 4, LOOKAHEAD, t), dtype=np.int64)
    nn_, ss, kk = np.nonzero(valid)
    onehot[nn_, ss, kk, tiles[nn_, ss, kk]] = 1
    prefix = np.cumsum(onehot, axis=2)  # [N, 4, K, T]: the first k+1 draws
    with_draws = np.concatenate([hands[:, :, None, :], hands[:, :, None, :] + prefix], axis=2)  # [N, 4, K+1, T]
    needed = np.maximum(games.rules.melds - games.melds_declared.astype(np.int64), 0)  # [N, 4]
    flat = np.minimum(with_draws, 4).reshape(-1, t)
    complete = contains_complete(flat, np.repeat(needed.reshape(-1), LOOKAHEAD + 1)).reshape(n, 4, LOOKAHEAD + 1)
    first = np.where(complete.any(axis=2), complete.argmax(axis=2), LOOKAHEAD + 1)  # [N, 4]
    per_seat = np.concatenate(
        [
            hands / 4.0,
            prefix[:, :, 3, :],
            prefix[:, :, LOOKAHEAD - 1, :],
            np.eye(_COMPLETE_BINS)[first],
        ],
        axis=2,
    ).astype(np.float32)  # [N, 4, F_seat], absolute seats
    relative = per_seat[:, _ROTATE].reshape(n, 4, -1)  # [N, observer, 4 * F_seat]
    left = ((games.scalars[:, _TAIL] - games.scalars[:, _HEAD]) / 70.0).astype(np.float32)
    return np.concatenate([relative, np.repeat(left[:, None, None], 4, axis=1)], axis=2)


class OracleCritic(nn.Module):
    """Value MLP over the actor's normalised observation and the privileged features.

    Args:
        policy: the actor; its observation layout and normalisation are copied (not shared).
        priv_size: :func:`privileged_size`.
        hidden: widths of the hidden layers.
    """

    def __init__(self, policy: nn.Module, priv_size: int, hidden: Sequence[int] = (256, 256)):
        super().__init__()
        if not hidden or any(int(h) <= 0 for h in hidden):
            raise ValueError(f"hidden must be a non-empty list of positive widths, got {list(hidden)}")
        self.register_buffer("obs_low", policy.obs_low.detach().clone())
        self.register_buffer("obs_high", policy.obs_high.detach().clone())
        self.register_buffer("obs_scale", policy.obs_scale.detach().clone())
        select = policy._select
        self.register_buffer("_select", None if select is None else select.clone(), persistent=False)
        self.priv_size = int(priv_size)
        self.hidden = tuple(int(h) for h in hidden)
        width = int(self.obs_low.shape[0]) + self.priv_size
        layers: list[nn.Module] = []
        for h in self.hidden:
            lin = nn.Linear(width, h)
            nn.init.orthogonal_(lin.weight, np.sqrt(2))
            nn.init.zeros_(lin.bias)
            layers += [lin, nn.Tanh()]
            width = h
        out = nn.Linear(width, 1)
        nn.init.orthogonal_(out.weight, 1.0)
        nn.init.zeros_(out.bias)
        self.body = nn.Sequential(*layers, out)

    def forward(self, obs: torch.Tensor, priv: torch.Tensor) -> torch.Tensor:
        """Values float32[B] of raw observations float32[B, obs_size] and privileged rows float32[B, priv_size]."""
        if priv.ndim != 2 or priv.shape[1] != self.priv_size or priv.shape[0] != obs.shape[0]:
            raise ValueError(f"priv must have shape ({obs.shape[0]}, {self.priv_size}), got {tuple(priv.shape)}")
        x = normalise_observation(obs, self._select, self.obs_low, self.obs_high, self.obs_scale)
        return self.body(torch.cat([x, priv], dim=1)).squeeze(-1)
