"""Rollout-based policy improvement with common random numbers, distilled into the policy network.

Approximate policy iteration in the sense of Tesauro & Galperin (1996, "On-line policy improvement
using Monte-Carlo search", NIPS 9; the paper is not in this repository's reference set, so no section is
cited): the base policy's value of each candidate action is estimated by playing the game out with the
base policy after it, and the action of the best mean outcome is the improved policy's choice. Here the
improved choices are distilled back into the network (one iteration of policy iteration; a second
iteration starts from the distilled network). Steps:

1. **Roots.** Hands are played with the current policy (argmax, the way ``policy:PATH`` plays) in all
   four seats. At a sampled own-turn or claim decision of any seat whose policy puts at least
   ``min_prob`` on two or more legal actions, the top ``top_k`` of them are the candidates.
2. **Determinizations.** The seat does not see the opponents' concealed tiles or the wall. For each
   root, ``determinizations`` worlds are drawn: the tiles the seat has not seen (the opponents'
   concealed tiles and the undrawn wall, together) are shuffled and dealt back into the same places
   (``Game.redeal_unseen``). The seat's observation is unchanged; the opponents' claim masks are
   rebuilt for their new hands. The hidden state is used only here, in training (oracle guidance):
   the trained policy acts from its own observation.
3. **Duplicate rollouts.** In each world every candidate is played, then the hand is played out with
   the current policy (argmax) in all four seats, all worlds and candidates of many roots in
   lockstep on the compiled batch step (:class:`mjenv.game.batch.BatchGames`), one torch forward per
   step. Argmax play and the shared world make the candidates' futures differ only through the
   candidate itself (common random numbers): the comparison is paired.
4. **Targets.** The return is the env's reward, the seat's end-of-hand score change. Each root is
   screened on ``determinizations`` worlds; when its best candidate beats the policy's choice by
   ``z_screen`` paired standard errors, the two are played again on ``confirm_worlds`` fresh worlds,
   and the better one becomes the target only when those fresh worlds alone show a gain of at least
   ``margin`` points and ``z`` standard errors (the screening worlds chose it, so its gain there is
   biased upwards). Otherwise the policy's choice stays the target.
5. **Distillation.** Cross-entropy to the targets on the roots' observations plus ``kl_coef`` times
   KL(pi_start || pi) on the same observations, so that decisions the rollouts did not change stay
   where they were.

Run: ``python -m research.training.train_rollout --help``; the whole recipe, with selection, is
``research/training/train_rollout_policy.sh``. Results: research/notes/TRAINING.md ("The RL policy").
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch
from mjenv.baselines._args import parse_args
from mjenv.baselines.policy import PolicyNet, load_net, save_policy

from mjenv.game.actions import Phase
from mjenv.game.batch import BatchGames, record_layout
from mjenv.game.engine import Game
from mjenv.observation import ObservationSpec

# BatchGames.scalars columns (mjenv.game.batch.SCALARS)
_PHASE, _ACTING = 0, 10
_END = int(Phase.END)
#: row b: whether each seat is in the acting-seat bit set b
_NEEDS_ACTION = (np.arange(16)[:, None] >> np.arange(4) & 1) > 0


class RolloutEngine:
    """Plays many hands out in lockstep with one policy (argmax) in all seats.

    Args:
        net: the rollout policy.
        rules: the games' rule set (one that :class:`BatchGames` supports).
    """

    def __init__(self, net: PolicyNet, rules="basic"):
        self.net = net
        self.spec = ObservationSpec(rules)
        self.rules = self.spec.rules
        self._layout = record_layout(self.spec)
        self.decisions = 0  # forwards' rows, for throughput logs

    @torch.no_grad()
    def choose(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Argmax actions and probabilities: obs float32[B, size], masks int8[B, A] -> (int64[B], float32[B, A])."""
        logits, _ = self.net(torch.from_numpy(obs), torch.from_numpy(masks))
        probs = torch.softmax(logits, dim=1)
        return logits.argmax(dim=1).numpy(), probs.numpy()

    def play_out(self, games: list[Game], first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Plays every game to its end; in the first step ``first[i, s] >= 0`` replaces seat s's choice.

        Args:
            games: N games (not over).
            first: int[N, 4] forced first-step actions (legal ones), -1 = the policy's choice.

        Returns:
            (bool[N, 4] won, int64[N, 4] end-of-hand scores).
        """
        n = len(games)
        bg = BatchGames(self.rules, n)
        for i, g in enumerate(games):
            bg.load(i, g)
        records = np.empty((n, self.spec.state_size), dtype=np.int16)
        acts = np.zeros((n, 4), dtype=np.int64)
        step = 0
        while True:
            live = np.flatnonzero(bg.scalars[:, _PHASE] != _END)
            if live.size == 0:
                break
            masks = bg.masks[live]  # [R, 4, A]
            acting = _NEEDS_ACTION[bg.scalars[live, _ACTING]]
            nlegal = masks.sum(axis=2, dtype=np.int32)
            acts[:] = 0
            only = masks.argmax(axis=2)  # the one legal action (PASS for seats not acting)
            acts[live] = only
            choose = acting & (nlegal > 1)
            if step == 0:
                forced = first[live] >= 0
                choose &= ~forced
            rows = np.flatnonzero(choose.any(axis=1))
            if rows.size:
                rec = records[: rows.size]
                bg.records(self._layout, live[rows].astype(np.int64), rec)
                obs, _ = self.spec.observe_records(rec, None)
                r, s = np.nonzero(choose[rows])
                a, _ = self.choose(obs[r, s], masks[rows[r], s])
                acts[live[rows[r]], s] = a
                self.decisions += len(r)
            if step == 0:
                acts[live] = np.where(forced, first[live], acts[live])
            if bg.advance(acts):
                raise RuntimeError("train_rollout: the batch step refused a legal action")
            step += 1
        return bg.won.copy(), bg.scores.copy()


@dataclass
class Root:
    """One decision to improve: the game before it, the seat, its candidates and the policy's choice."""

    game: Game
    seat: int
    obs: np.ndarray  # float32[size], the seat's own observation
    mask: np.ndarray  # int8[A]
    candidates: list[int]
    policy_action: int


def collect_roots(engine: RolloutEngine, seeds: list[int], rng: np.random.Generator, top_k: int, min_prob: float,
                  root_prob: float) -> list[Root]:
    """Plays one hand per seed (argmax policy, all seats, in lockstep) and samples roots from its decisions.

    A decision is a root candidate when at least two legal actions have probability >= ``min_prob``;
    each such decision becomes a root with probability ``root_prob``.
    """
    games = [Game(engine.rules, seed=int(s)) for s in seeds]
    roots: list[Root] = []
    while True:
        live = [g for g in games if not g.is_over]
        if not live:
            return roots
        obs, _ = engine.spec.observe_many(live)
        rows, seats = [], []
        for i, g in enumerate(live):
            for s in g.acting_seats():
                if g._masks[s].sum() > 1:
                    rows.append(i)
                    seats.append(s)
        chosen = {}
        if rows:
            o = obs[rows, seats]
            m = np.stack([live[i]._masks[s] for i, s in zip(rows, seats)])
            a, probs = engine.choose(o, m)
            for j, (i, s) in enumerate(zip(rows, seats)):
                chosen[i, s] = int(a[j])
                g = live[i]
                if g.phase not in (Phase.DISCARD, Phase.CLAIM):
                    continue
                cand = [int(x) for x in np.argsort(-probs[j])[:top_k] if probs[j, x] >= min_prob]
                if len(cand) >= 2 and rng.random() < root_prob:
                    roots.append(Root(g.clone(), s, o[j].copy(), m[j].copy(), cand, int(a[j])))
        for i, g in enumerate(live):
            g.step({s: chosen.get((i, s), int(np.argmax(g._masks[s]))) for s in g.acting_seats()})


def evaluate_roots(engine: RolloutEngine, roots: list[Root], determinizations: int,
                   rng: np.random.Generator) -> list[np.ndarray]:
    """Mean return of each root's candidates over ``determinizations`` shared worlds (duplicate rollouts).

    Returns:
        Per root float64[D, K]: the seat's score after candidate k in world d.
    """
    games, first, where = [], [], []
    for r, root in enumerate(roots):
        for d in range(determinizations):
            world = root.game.redeal_unseen(root.seat, rng)
            for k, a in enumerate(root.candidates):
                games.append(world.clone())
                f = np.full(4, -1, dtype=np.int64)
                f[root.seat] = a
                first.append(f)
                where.append((r, d, k))
    _, scores = engine.play_out(games, np.stack(first))
    out = [np.zeros((determinizations, len(root.candidates))) for root in roots]
    for (r, d, k), sc in zip(where, scores):
        out[r][d, k] = sc[roots[r].seat]
    return out


def improved_target(root: Root, returns: np.ndarray, margin: float, z: float) -> int:
    """The candidate of the best mean return when it beats the policy's choice by at least ``margin``
    points and by ``z`` standard errors of the paired (same-world) differences; else the policy's choice.

    Args:
        root: the decision.
        returns: float[D, K] the seat's return after candidate k in world d.
        margin: least mean gain (points).
        z: least gain in standard errors of the mean paired difference.
    """
    mean = returns.mean(axis=0)
    best = int(np.argmax(mean))
    if root.policy_action not in root.candidates:
        return root.candidates[best]
    base = root.candidates.index(root.policy_action)
    diff = returns[:, best] - returns[:, base]
    se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
    gain = diff.mean()
    return root.candidates[best] if gain >= margin and gain >= z * se and gain > 0 else root.policy_action


def distill(net: PolicyNet, anchor: PolicyNet, obs: np.ndarray, masks: np.ndarray, targets: np.ndarray,
            epochs: int, lr: float, kl_coef: float, batch_size: int, seed: int,
            changed_weight: float = 1.0) -> dict[str, float]:
    """Cross-entropy to ``targets`` plus ``kl_coef`` * KL(anchor || net), Adam, minibatches.

    ``changed_weight`` multiplies the cross-entropy of the samples whose target differs from the anchor's
    argmax (the few decisions the rollouts changed). ``agree_changed`` in the result is the share of those
    targets that the trained network's argmax plays.

    Args:
        obs: float32[N, size]; masks: int8[N, A]; targets: int64[N] legal target actions.

    Returns:
        The last epoch's mean losses and the share of targets the network's argmax plays after training.
    """
    gen = torch.Generator().manual_seed(seed)
    o, m, t = torch.from_numpy(obs), torch.from_numpy(masks), torch.from_numpy(targets)
    with torch.no_grad():
        anchor_logits = anchor(o, m)[0]
        anchor_logp = torch.log_softmax(anchor_logits, dim=1)
        weight = torch.where(anchor_logits.argmax(dim=1) != t, float(changed_weight), 1.0)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    net.train()
    stats = {}
    for _ in range(epochs):
        perm = torch.randperm(len(t), generator=gen)
        ce_sum = kl_sum = 0.0
        for b in range(0, len(t), batch_size):
            idx = perm[b : b + batch_size]
            logits = net(o[idx], m[idx])[0]
            logp = torch.log_softmax(logits, dim=1)
            ce = -(weight[idx] * logp.gather(1, t[idx, None])[:, 0]).sum() / weight[idx].sum()
            ap = anchor_logp[idx]
            legal = m[idx].bool()
            kl = torch.where(legal, ap.exp() * (ap - logp), torch.zeros_like(ap)).sum(dim=1).mean()
            loss = ce + kl_coef * kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            ce_sum += float(ce.detach()) * len(idx)
            kl_sum += float(kl.detach()) * len(idx)
        stats = {"ce": ce_sum / len(t), "kl": kl_sum / len(t)}
    net.eval()
    with torch.no_grad():
        hit = net(o, m)[0].argmax(dim=1) == t
        moved = anchor(o, m)[0].argmax(dim=1) != t  # the targets the rollouts changed
    stats["agree"] = float(hit.float().mean())
    stats["agree_changed"] = float(hit[moved].float().mean()) if moved.any() else float("nan")
    return stats


def paired_z(returns: np.ndarray, a: int, b: int) -> float:
    """Mean paired gain of column b over column a in standard errors (0 for no spread): returns float[D, K]."""
    diff = returns[:, b] - returns[:, a]
    sd = diff.std(ddof=1) if len(diff) > 1 else 0.0
    return float(diff.mean() / (sd / np.sqrt(len(diff)))) if sd > 0 else 0.0


def screen(roots: list[Root], returns: list[np.ndarray], z_screen: float) -> list[Root]:
    """The roots whose best candidate (by mean return) beats the policy's choice by ``z_screen`` paired standard
    errors, as roots of two candidates (the policy's choice, that best) for a confirmation on fresh worlds."""
    out = []
    for root, q in zip(roots, returns):
        best = int(np.argmax(q.mean(axis=0)))
        base = root.candidates.index(root.policy_action)
        if best != base and paired_z(q, base, best) >= z_screen:
            out.append(Root(root.game, root.seat, root.obs, root.mask, [root.policy_action, root.candidates[best]],
                            root.policy_action))
    return out


def chunk_targets(chunk, margin: float, z: float) -> np.ndarray:
    """The targets (:func:`improved_target`) of a saved chunk's roots: int64[N].

    With confirmation data (``confirm_returns``), only a confirmed root can change its target, and only on the
    confirmation's fresh worlds (the screening worlds chose it, so they would bias the test).
    """
    confirm = "confirm_returns" in chunk.files and chunk["confirm_returns"].shape[1] > 0
    cands = chunk["confirm_candidates"] if confirm else chunk["candidates"]
    rets = chunk["confirm_returns"] if confirm else chunk["returns"]
    out = []
    for pa, cand, ret in zip(chunk["policy_actions"], cands, rets):
        k = int((cand >= 0).sum())
        if k < 2:
            out.append(int(pa))
            continue
        root = Root(None, -1, None, None, [int(c) for c in cand[:k]], int(pa))
        out.append(improved_target(root, ret[:, :k].astype(np.float64), margin, z))
    return np.array(out, dtype=np.int64)


@dataclass
class Args:
    """Rollout-based policy improvement (duplicate rollouts over determinizations), distilled into the net."""

    init: str = "baselines/data/pretrained_policy.pt"
    """policy to improve (and the KL anchor)"""
    out_dir: str = "runs/rollout"
    """output folder: chunk_*.npz (roots and targets), iter_*.pt, log.jsonl"""
    rules: str = "basic"
    """rule set preset"""
    seed: int = 9000000
    """first hand seed; chunk c plays hands seed + c * hands_per_chunk ..."""
    chunks: int = 40
    """chunks of hands to collect before distilling (an existing chunk file is reused: resumable)"""
    hands_per_chunk: int = 8
    """hands played (in lockstep) per chunk"""
    top_k: int = 3
    """candidates per root: the policy's most probable legal actions"""
    min_prob: float = 0.03
    """a candidate needs at least this policy probability"""
    root_prob: float = 0.5
    """probability that a decision with >= 2 candidates becomes a root"""
    determinizations: int = 32
    """screening worlds per root; every candidate is played out in each"""
    z_screen: float = 1.0
    """a root whose best candidate beats the policy's choice by this many paired standard errors on the screening
    worlds goes to confirmation"""
    confirm_worlds: int = 256
    """fresh worlds of a confirmation (the policy's choice and the screened best only); 0: targets from the
    screening worlds"""
    margin: float = 0.1
    """mean-return gain (points) over the policy's choice needed to change the target"""
    z: float = 2.0
    """and that gain in standard errors of the paired (same-world) differences"""
    time_budget: float = 0.0
    """stop collecting after this many seconds (0: no limit); the chunks done so far are distilled"""
    epochs: int = 4
    """distillation epochs"""
    learning_rate: float = 1e-4
    """Adam learning rate of the distillation"""
    kl_coef: float = 1.0
    """weight of KL(pi_start || pi) in the distillation loss"""
    batch_size: int = 256
    """distillation minibatch"""
    changed_weight: float = 1.0
    """cross-entropy weight of the roots whose target the rollouts changed (1: like every other root)"""
    iteration: int = 1
    """iteration number (names iter_<n>.pt and the chunk files)"""
    collect: bool = True
    """play new chunks; --no-collect distils the chunk files already in out_dir"""
    dest: str = ""
    """where to write the distilled policy (default: out_dir/iter_<n>.pt)"""


def collect_chunk(engine: RolloutEngine, args: Args, c: int, path: Path) -> dict:
    """Chunk ``c``: its hands' roots, screened and confirmed, saved to ``path``; returns its log record."""
    t1 = time.time()
    rng = np.random.default_rng([args.seed, args.iteration, c])
    seeds = [args.seed + c * args.hands_per_chunk + h for h in range(args.hands_per_chunk)]
    roots = collect_roots(engine, seeds, rng, args.top_k, args.min_prob, args.root_prob)
    d0 = engine.decisions
    returns = evaluate_roots(engine, roots, args.determinizations, rng) if roots else []
    k, d, d2, n = args.top_k, args.determinizations, args.confirm_worlds, len(roots)
    cands = np.full((n, k), -1, dtype=np.int64)
    rets = np.full((n, d, k), np.nan, dtype=np.float32)
    for j, (r, q) in enumerate(zip(roots, returns)):
        cands[j, : len(r.candidates)] = r.candidates
        rets[j, :, : len(r.candidates)] = q
    ccands = np.full((n, 2), -1, dtype=np.int64)
    crets = np.full((n, d2, 2), np.nan, dtype=np.float32)
    picked = screen(roots, returns, args.z_screen) if d2 else []
    if picked:
        index = {id(r.game): j for j, r in enumerate(roots)}
        for r, q in zip(picked, evaluate_roots(engine, picked, d2, rng)):
            j = index[id(r.game)]
            ccands[j], crets[j] = r.candidates, q
    actions = engine.net.num_actions
    np.savez_compressed(
        path, obs=np.array([r.obs for r in roots], dtype=np.float32).reshape(n, engine.spec.size),
        masks=np.array([r.mask for r in roots], dtype=np.int8).reshape(n, actions),
        policy_actions=np.array([r.policy_action for r in roots], dtype=np.int64), candidates=cands, returns=rets,
        seats=np.array([r.seat for r in roots], dtype=np.int64), confirm_candidates=ccands, confirm_returns=crets,
    )
    changed = int((chunk_targets(np.load(path), args.margin, args.z) != [r.policy_action for r in roots]).sum())
    return {"chunk": c, "roots": n, "confirmed": len(picked), "changed": changed,
            "rollout_decisions": engine.decisions - d0, "seconds": round(time.time() - t1, 1)}


def run(args: Args) -> Path:
    """Collects (or reuses) the chunks, distills, writes ``OUT/iter_<n>.pt``; returns its path."""
    torch.set_num_threads(1)
    out = Path(args.out_dir)
    out.mkdir(parents=True, exist_ok=True)
    net = load_net(args.init)
    net.eval()
    engine = RolloutEngine(net, args.rules)
    t0 = time.time()
    log = out / "log.jsonl"
    files = []
    for c in range(args.chunks):
        path = out / f"iter{args.iteration}_chunk_{c:03d}.npz"
        if not path.is_file():
            if not args.collect or (args.time_budget and time.time() - t0 > args.time_budget):
                break
            rec = collect_chunk(engine, args, c, path)
            with log.open("a") as f:
                f.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), flush=True)
        files.append(path)
    data = [np.load(p) for p in files]
    obs = np.concatenate([d["obs"] for d in data])
    masks = np.concatenate([d["masks"] for d in data])
    targets = np.concatenate([chunk_targets(d, args.margin, args.z) for d in data])
    changed = int((targets != np.concatenate([d["policy_actions"] for d in data])).sum())
    anchor = load_net(args.init)
    anchor.eval()
    stats = distill(net, anchor, obs, masks, targets, args.epochs, args.learning_rate, args.kl_coef,
                    args.batch_size, args.seed, args.changed_weight)
    dest = Path(args.dest) if args.dest else out / f"iter_{args.iteration}.pt"
    save_policy(net, dest, recipe="rollout policy improvement", args=asdict(args))
    rec = {"iteration": args.iteration, "chunks": len(files), "roots": len(targets), "changed": changed, **stats}
    with log.open("a") as f:
        f.write(json.dumps(rec) + "\n")
    print(json.dumps(rec), flush=True)
    return dest


def main() -> None:
    run(parse_args(Args))


if __name__ == "__main__":
    main()
