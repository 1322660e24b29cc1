"""How dangerous each discard is: a small network that reads, from the seat's own observation, how
likely each opponent is to win on each tile.

Under the ``basic`` rules most hands end on a discard, and ``research/headroom.py`` measured what
never dealing in would be worth: about +11 pp of win rate for the BC policy as a team against
``flatmc``. The observation holds everything public that bears on it (each seat's ordered discards,
its declared melds, the knowledge base, the wall count), but as raw arrays; the policy network's trunk
reads the discards as tile ids. This module turns them into features per (opponent, tile):

* how often the opponent discarded the tile and each neighbour within two ranks (same suit), and
  whether it is among the opponent's last three discards;
* how many discards and declared melds the opponent has, and the share of its discards and meld
  tiles in the tile's suit;
* the seat's unseen copies of the tile and of its neighbours (the knowledge base), the wall count,
  and the tile's rank.

:class:`DangerNet` maps them to the logit that the opponent's concealed hand wins on the tile. It is
trained by supervised learning on played hands whose labels come from the hidden hands
(:func:`collect`, :func:`fit`); at play time it reads only the observation. ``danger`` combines the
three opponents into the probability that a discard of the tile completes someone's hand.

The features are computed in torch from the observation views, so the same code serves batches in
training and one observation at a time in an agent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import torch
from mjenv.baselines.policy import load_pretrained, view_offsets
from torch import nn

#: neighbour offsets whose discard counts are features (the tile itself is offset 0)
_NEIGHBOURS = (-2, -1, 0, 1, 2)
#: features per (opponent, tile)
NUM_FEATURES = 2 * len(_NEIGHBOURS) + 1 + 2 + 5 + 2 + 1 + 1 + 9


class DangerFeatures(nn.Module):
    """The per-(opponent, tile) features of a batch of observations: float32[B, 3, T, NUM_FEATURES].

    Opponents are in seat-relative order (right, across, left), as the observation's relative views.
    """

    def __init__(self, views: Mapping[str, Sequence[int]], num_tile_types: int = 27):
        super().__init__()
        if num_tile_types != 27:
            raise ValueError(f"danger features are built for the 27 suited tiles of 'basic', got {num_tile_types}")
        need = ("melds", "num_melds", "discards", "knowledge_base", "wall_count")
        missing = [v for v in need if v not in views]
        if missing:
            raise ValueError(f"danger features need the observation views {missing}")
        self.t = num_tile_types
        self.off = view_offsets(views)
        self.max_discards = int(views["discards"][1])
        t = self.t
        # neighbour[k, i] = index of tile i's neighbour at offset _NEIGHBOURS[k] in its suit, or t (a zero pad)
        nb = torch.full((len(_NEIGHBOURS), t), t, dtype=torch.long)
        for k, d in enumerate(_NEIGHBOURS):
            for i in range(t):
                j = i + d
                if 0 <= j < t and j // 9 == i // 9:
                    nb[k, i] = j
        self.register_buffer("neighbour", nb, persistent=False)
        suit = torch.zeros(t, 3)
        suit[torch.arange(t), torch.arange(t) // 9] = 1.0
        self.register_buffer("suit", suit, persistent=False)
        rank = torch.zeros(t, 9)
        rank[torch.arange(t), torch.arange(t) % 9] = 1.0
        self.register_buffer("rank", rank, persistent=False)

    def _view(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        a, b = self.off[name]
        return obs[:, a:b]

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        b, t = obs.shape[0], self.t
        disc = self._view(obs, "discards").reshape(b, 4, self.max_discards)[:, 1:].round().long()  # tile + 1
        present = disc > 0
        counts = torch.zeros(b, 3, t + 1, device=obs.device)
        counts.scatter_add_(2, (disc - 1).clamp(min=0).where(present, torch.full_like(disc, t)),
                            present.float())
        counts = counts[:, :, :t]
        n_disc = present.sum(-1).float()  # [B, 3]
        # the last three discards of each opponent
        idx = torch.arange(self.max_discards, device=obs.device)
        recent = present & (idx >= (n_disc.unsqueeze(-1) - 3))
        recent_counts = torch.zeros(b, 3, t + 1, device=obs.device)
        recent_counts.scatter_add_(2, (disc - 1).clamp(min=0).where(recent, torch.full_like(disc, t)),
                                   recent.float())
        recent_any = (recent_counts[:, :, :t] > 0).float()
        pad = torch.zeros(b, 3, 1, device=obs.device)
        counts_p = torch.cat([counts, pad], -1)
        nb_disc = counts_p[:, :, self.neighbour].permute(0, 1, 3, 2)  # [B, 3, T, 5]
        kb = self._view(obs, "knowledge_base")
        kb_p = torch.cat([kb, torch.zeros(b, 1, device=obs.device)], -1)
        nb_kb = kb_p[:, self.neighbour].permute(0, 2, 1)  # [B, T, 5]
        melds = self._view(obs, "melds").reshape(b, 4, t)[:, 1:]
        num_melds = self._view(obs, "num_melds").reshape(b, 4)[:, 1:].round().long().clamp(0, 4)
        meld_onehot = torch.nn.functional.one_hot(num_melds, 5).float()  # [B, 3, 5]
        disc_suit = counts @ self.suit / n_disc.clamp(min=1).unsqueeze(-1)  # [B, 3, 3]
        meld_suit = melds @ self.suit / melds.sum(-1, keepdim=True).clamp(min=1)
        disc_share = disc_suit @ self.suit.T  # [B, 3, T]: share of the opponent's discards in t's suit
        meld_share = meld_suit @ self.suit.T
        wall = self._view(obs, "wall_count").reshape(b, 1, 1, 1) / 100.0
        feats = [
            nb_disc / 2.0,  # 5
            nb_kb.unsqueeze(1).expand(b, 3, t, len(_NEIGHBOURS)) / 4.0,  # 5
            recent_any.unsqueeze(-1),  # 1
            (n_disc / 20.0).reshape(b, 3, 1, 1).expand(b, 3, t, 1),
            (melds.sum(-1) / 12.0).reshape(b, 3, 1, 1).expand(b, 3, t, 1),  # 2
            meld_onehot.unsqueeze(2).expand(b, 3, t, 5),  # 5
            disc_share.unsqueeze(-1), meld_share.unsqueeze(-1),  # 2
            (melds / 4.0).unsqueeze(-1),  # 1: the tile's copies in the opponent's melds
            wall.expand(b, 3, t, 1),  # 1
            self.rank.reshape(1, 1, t, 9).expand(b, 3, t, 9),  # 9
        ]
        return torch.cat(feats, -1)


class DangerNet(nn.Module):
    """Logit, per (opponent, tile), that the opponent's concealed hand wins on a discard of the tile.

    Args:
        views: the observation layout (``ObservationSpec(rules).views``).
        num_tile_types: 27 (the ``basic`` rules).
        hidden: width of the two hidden layers.
    """

    def __init__(self, views: Mapping[str, Sequence[int]], num_tile_types: int = 27, hidden: int = 64):
        super().__init__()
        self.views = {str(k): tuple(int(s) for s in v) for k, v in views.items()}
        self.num_tile_types = int(num_tile_types)
        self.hidden = int(hidden)
        self.features = DangerFeatures(self.views, self.num_tile_types)
        self.mlp = nn.Sequential(nn.Linear(NUM_FEATURES, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """float32[B, 3, T] logits."""
        return self.mlp(self.features(obs)).squeeze(-1)

    def danger(self, obs: torch.Tensor) -> torch.Tensor:
        """float32[B, T]: the probability that a discard of each tile completes some opponent's hand
        (the three opponents taken as independent)."""
        return 1.0 - torch.prod(1.0 - torch.sigmoid(self(obs)), dim=1)

    def config(self) -> dict:
        return {"views": {k: list(v) for k, v in self.views.items()}, "num_tile_types": self.num_tile_types,
                "hidden": self.hidden}

    @classmethod
    def from_config(cls, config: Mapping) -> DangerNet:
        return cls(config["views"], config["num_tile_types"], config["hidden"])


def wait_labels(game, seat: int) -> np.ndarray:
    """float32[3, T]: 1 where the opponent (seat-relative: right, across, left) still in the hand wins
    on the tile with its concealed tiles. Hidden information: labels for training only."""
    from mjenv.game._win import is_winning_with
    from mjenv.observation import relative_order

    t = game.num_tile_types
    out = np.zeros((3, t), dtype=np.float32)
    for k, q in enumerate(relative_order(seat)[1:]):
        if game.won[q]:
            continue
        hand = game.hands[q]
        for tile in range(t):
            if is_winning_with(hand, tile):
                out[k, tile] = 1.0
    return out


def collect(lineup: Sequence[str], hands: int, seed: int, rules: str = "basic",
            progress: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations and wait labels of every discard decision in ``hands`` hands.

    Args:
        lineup: four agent specs (``mjenv eval``'s, e.g. ``["policy:bc"] * 4``); rotated by one seat each
            hand, so every agent sits in every seat.
        hands: how many hands.
        seed: wall seeds are ``seed + i``; agent seeds follow from them.

    Returns:
        (float32[N, obs_size] observations, float32[N, 3, T] labels of :func:`wait_labels`, int64[N]
        the hand (0..hands-1) of each decision).
    """
    from mjenv.baselines.registry import make_agent

    from mjenv.game import Game
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    if len(lineup) != 4:
        raise ValueError(f"lineup must name four agents, got {len(lineup)}")
    rules = get_rules(rules)
    spec = ObservationSpec(rules=rules)
    t = rules.num_tile_types
    from tqdm.auto import tqdm

    obs_rows, labels, hand_of = [], [], []
    for i in tqdm(range(hands), unit="hand", desc="danger data", dynamic_ncols=True, disable=not progress):
        agents = [make_agent(lineup[(s + i) % 4], seed=(seed + i) * 4 + s, rules=rules) for s in range(4)]
        g = Game(rules=rules, seed=seed + i)
        while not g.is_over:
            actions = {}
            for s in g.acting_seats():
                mask = g.legal_action_mask(s)
                obs = spec.encode(g, s)
                if mask[:t].any():
                    obs_rows.append(obs)
                    labels.append(wait_labels(g, s))
                    hand_of.append(i)
                actions[s] = int(agents[s].act({"observation": obs, "action_mask": mask}))
            g.step(actions)
    n = len(obs_rows)
    return (np.asarray(obs_rows, dtype=np.float32).reshape(n, spec.size),
            np.asarray(labels, dtype=np.float32).reshape(n, 3, t), np.asarray(hand_of, dtype=np.int64))


def fit(net: DangerNet, obs: np.ndarray, labels: np.ndarray, epochs: int = 4, batch: int = 512,
        lr: float = 1e-3, seed: int = 0) -> list[float]:
    """Trains ``net`` by binary cross-entropy on (observation, labels); returns the loss per epoch."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.as_tensor(obs)
    y = torch.as_tensor(labels)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        perm = torch.randperm(len(x), generator=gen)
        total, n = 0.0, 0
        for i in range(0, len(x), batch):
            j = perm[i : i + batch]
            loss = nn.functional.binary_cross_entropy_with_logits(net(x[j]), y[j])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(j)
            n += len(j)
        losses.append(total / max(n, 1))
    return losses


DANGER_FORMAT = "mjenv-danger-v1"


def save_danger(net: DangerNet, path) -> None:
    """Writes a checkpoint ``{"format", "config", "state_dict"}`` (``torch.load(weights_only=True)`` reads it)."""
    torch.save({"format": DANGER_FORMAT, "config": net.config(), "state_dict": net.state_dict()}, path)


def load_danger(path) -> DangerNet:
    """A :class:`DangerNet` saved by :func:`save_danger`, in eval mode."""
    ck = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(ck, dict) or ck.get("format") != DANGER_FORMAT:
        raise ValueError(f"{path} is not a danger network checkpoint (format {DANGER_FORMAT!r})")
    net = DangerNet.from_config(ck["config"])
    net.load_state_dict(ck["state_dict"])
    return net.eval()


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Area under the ROC curve: the probability that a random positive scores above a random negative
    (ties count half)."""
    y = np.asarray(labels, dtype=bool).ravel()
    s = np.asarray(scores, dtype=np.float64).ravel()
    pos, neg = int(y.sum()), int((~y).sum())
    if pos == 0 or neg == 0:
        raise ValueError("roc_auc needs both positive and negative labels")
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s))
    sorted_s = s[order]
    # average ranks over ties
    starts = np.flatnonzero(np.r_[True, sorted_s[1:] != sorted_s[:-1]])
    ends = np.r_[starts[1:], len(s)]
    for a, b in zip(starts, ends):
        ranks[order[a:b]] = (a + b + 1) / 2.0
    return float((ranks[y].sum() - pos * (pos + 1) / 2.0) / (pos * neg))


#: the data a default run collects: (line-up, share of the hands); every agent sits in every seat
LINEUPS = (
    (("policy:bc",) * 4, 0.6),
    (("policy:bc", "greedy", "policy:bc", "greedy"), 0.25),
    (("policy:bc", "flatmc", "policy:bc", "flatmc"), 0.15),
)


def report(net: DangerNet, obs: np.ndarray, labels: np.ndarray, policy: str = "bc") -> str:
    """How well ``net`` reads the waits on (obs, labels): AUC, calibration, and how it scores the discard
    the shipped ``policy`` would choose (argmax over the tiles in the hand) at each decision."""
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    spec = ObservationSpec(rules=get_rules("basic"))
    t = net.num_tile_types
    x = torch.as_tensor(obs)
    with torch.no_grad():
        p = torch.sigmoid(net(x)).numpy()
        d = net.danger(x).numpy()
        mask = torch.zeros(len(obs), 2 * t + 7, dtype=torch.bool)
        mask[:, :t] = x[:, spec.slices["hand"]] > 0
        logits, _ = load_pretrained(policy).net(x, mask)
    y_any = 1.0 - np.prod(1.0 - labels, axis=1)
    lines = [
        f"AUC per (opponent, tile): {roc_auc(labels, p):.3f} (an opponent wins on {100 * labels.mean():.2f}%)",
        f"AUC of danger (any opponent): {roc_auc(y_any, d):.3f} (a tile deals in {100 * y_any.mean():.2f}%)",
        "",
        "| predicted danger | share of (decision, tile) | deals in |",
        "|---|---|---|",
    ]
    for lo, hi in ((0.0, 0.01), (0.01, 0.03), (0.03, 0.1), (0.1, 0.3), (0.3, 1.01)):
        m = (d >= lo) & (d < hi)
        rate = f"{100 * y_any[m].mean():.1f}%" if m.any() else "-"
        lines.append(f"| {lo:.2f}-{min(hi, 1.0):.2f} | {100 * m.mean():.1f}% | {rate} |")
    rows = np.arange(len(obs))
    choice = logits[:, :t].argmax(1).numpy()
    deal = y_any[rows, choice]
    dc = d[rows, choice]
    auc = f"{roc_auc(deal, dc):.3f}" if 0 < deal.sum() < len(deal) else "n/a"
    lines += [
        "",
        f"policy:{policy}'s choice deals in at {100 * deal.mean():.1f}% of {len(obs)} decisions; AUC of its danger "
        f"for that: {auc}",
        "",
        "| flag the choice when danger > | decisions flagged | deal-ins caught | flagged choices that deal in |",
        "|---|---|---|---|",
    ]
    for thr in (0.05, 0.1, 0.2, 0.3):
        flag = dc > thr
        caught = flag[deal == 1].mean() if deal.any() else float("nan")
        prec = f"{100 * deal[flag].mean():.1f}%" if flag.any() else "-"
        lines.append(f"| {thr:.2f} | {100 * flag.mean():.1f}% | {100 * caught:.1f}% | {prec} |")
    return "\n".join(lines)


def _collect_lineups(hands: int, seed: int, progress: bool):
    xs, ys, hs = [], [], []
    start = seed
    for lineup, share in LINEUPS:
        n = max(5, int(round(hands * share)))
        x, y, h = collect(lineup, n, start, progress=progress)
        xs.append(x)
        ys.append(y)
        hs.append(h)
        start += n
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(hs)


def main(argv: Sequence[str] | None = None) -> DangerNet:
    """Collects hands, fits a :class:`DangerNet`, prints how it reads held-out hands, saves it; or with
    ``--evaluate PATH``, reports a saved one on fresh hands."""
    import argparse
    import os

    ap = argparse.ArgumentParser(prog="python -m research.training.danger", description=main.__doc__,
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--hands", type=int, default=3000, help="hands in all, split over the line-ups of LINEUPS")
    ap.add_argument("--seed", type=int, default=5_000_000, help="wall seed of the first hand")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--out", default="runs/danger.pt")
    ap.add_argument("--evaluate", default=None, metavar="PATH", help="report this saved network on fresh hands")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.hands < 20:
        ap.error(f"--hands must be at least 20, got {args.hands}")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    x, y, hand = _collect_lineups(args.hands, args.seed, not args.no_progress)
    if args.evaluate is not None:
        net = load_danger(args.evaluate)
        print(f"{args.evaluate} on {len(x)} discard decisions of fresh hands (seed {args.seed})")
        print(report(net, x, y))
        return net
    test = hand % 5 == 0  # held out: every fifth hand of each line-up, whole hands
    net = DangerNet(ObservationSpec(rules=get_rules("basic")).views)
    losses = fit(net, x[~test], y[~test], epochs=args.epochs)
    print(f"{len(x)} discard decisions ({int(test.sum())} held out); training loss per epoch "
          + ", ".join(f"{v:.4f}" for v in losses))
    print("held out:")
    print(report(net, x[test], y[test]))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    save_danger(net, args.out)
    print(f"saved {args.out}")
    return net


if __name__ == "__main__":
    main()
