"""Why the SIMCAT four-player model (FP) does not beat the single-player model (SP) in our game.

Two position-level analyses (cheap compared with matches; ``research/notes/bench/baselines.md`` has the results):

``estimates``: on every decision of seeded greedy self-play hands, simulate every afterstate with both
models (same budget, same sampled tiles) and report the distribution of the best estimated win rate
(saturation), the gap to the second best, how often the two models choose differently, and how often
a claim is chosen in claim decisions.

``rollouts``: play seeded greedy self-play hands; at every decision where agent A and agent B (e.g.
``flatmc`` and ``flatmc:sp``) choose differently, estimate the real win probability of both choices
with K determinized rollouts in the real game: the hidden tiles (opponents' concealed hands and the
wall) are reshuffled, the action is played, and all four seats continue greedily. Both actions share
the same reshuffles. Reports the mean gain of A's choice over B's where they differ.

    .venv/bin/python -m research.flatmc_fp_vs_sp estimates --hands 8 --seed 1000
    .venv/bin/python -m research.flatmc_fp_vs_sp rollouts --hands 12 --seed 5000 --k 150 flatmc flatmc:sp

The rollouts use the engine's internals (this is an analysis tool, not an agent).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DISCARD
from mjenv.baselines.flatmc import FlatMCAgent, flat_monte_carlo
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.registry import make_agent

from mjenv.game import Game
from mjenv.game.engine import Phase
from mjenv.observation import ObservationSpec


def _positions(hands: int, seed: int):
    """(game clone, seat, observation) of every decision with a choice and no win available."""
    spec = ObservationSpec(rules="basic")
    greedy = [GreedyAgent(seed=s) for s in range(4)]
    for h in range(hands):
        g = Game(rules="basic", seed=seed + h)
        while not g.is_over:
            acts = {}
            for s in g.acting_seats():
                o = {"observation": spec.encode(g, s), "action_mask": g.legal_action_mask(s)}
                if o["action_mask"].sum() > 1 and not o["action_mask"][g.layout.win]:
                    yield g, s, o
                acts[s] = greedy[s].act(o)
            g.step(acts)


def estimates(args: argparse.Namespace) -> None:
    agent = FlatMCAgent(seed=0, claim_turn=not args.old_claims)
    rows = []
    for _, _, obs in _positions(args.hands, args.seed):
        s = agent.situation(obs)
        if s.phase == PHASE_DISCARD and s.mask[:27].any():
            after, kind = agent._own_turn_afterstates(s), "own turn"
        elif s.phase == PHASE_CLAIM and s.last_discard >= 0:
            after, kind = agent._claim_afterstates(s), "claim"
        else:
            continue
        if len(after) < 2:
            continue
        hands = np.stack([a.hand for a in after])
        needed = np.array([a.needed for a in after])
        extra = np.array([a.extra for a in after])
        tie = agent._greedy_key(hands, needed, s.kb)
        keep = np.flatnonzero(tie // 1000 == (tie // 1000).min()) if args.prefilter else np.arange(len(after))
        if len(keep) < 2:
            continue
        rounds = min(s.wall_count // 4, args.rounds)
        rate = {}
        for model in ("fp", "sp"):
            res = flat_monte_carlo(
                hands[keep], needed[keep], extra[keep], s.kb, rounds, args.sims * len(keep),
                np.random.default_rng(1), model=model, pruning=False, ron=args.ron and model == "fp",
            )  # fmt: skip
            rate[model] = res.rate
        choice = {m: int(keep[np.lexsort((keep, tie[keep], -rate[m]))[0]]) for m in rate}
        rows.append((kind, rate, choice, [after[i].action for i in keep], after, s.layout.pass_))
    print(f"{len(rows)} decisions; {args.sims} simulations per afterstate, rounds <= {args.rounds}, "
          f"prefilter={args.prefilter}, ron={args.ron}, claim_turn={not args.old_claims}")  # fmt: skip
    for kind in ("own turn", "claim"):
        sub = [r for r in rows if r[0] == kind]
        if not sub:
            continue
        differ = sum(r[2]["fp"] != r[2]["sp"] for r in sub)
        print(f"{kind}: {len(sub)} decisions, the models choose differently in {differ} ({differ / len(sub):.0%})")
        for m in ("fp", "sp"):
            top = np.array([np.sort(r[1][m])[-1] for r in sub])
            gap = np.array([np.diff(np.sort(r[1][m])[-2:])[0] for r in sub])
            line = (
                f"  {m}: best estimate mean {top.mean():.2f}, quartiles {np.percentile(top, [25, 50, 75]).round(2)}, "
                f"> 0.9 in {(top > 0.9).mean():.0%}; gap best - second: mean {gap.mean():.3f}, "
                f"median {np.median(gap):.3f}"
            )
            if kind == "claim":
                claims = sum(r[4][r[2][m]].action != r[5] for r in sub)
                line += f"; claims in {claims}"
            print(line)


def _resample(g: Game, seat: int, rng: np.random.Generator) -> Game:
    """A copy of ``g`` with the tiles hidden from ``seat`` (opponents' hands, wall) reshuffled."""
    g2 = g.clone()
    opp = [s for s in range(4) if s != seat]
    parts = [np.repeat(np.arange(g.num_tile_types), g.hands[s].astype(np.int64)) for s in opp]
    pool = rng.permutation(np.concatenate([*parts, np.asarray(g.wall[g._head : g._tail], dtype=np.int64)]))
    k = 0
    for s, p in zip(opp, parts):
        g2._tiles[s] = np.bincount(pool[k : k + len(p)], minlength=g.num_tile_types)
        k += len(p)
    wall = np.array(g.wall, dtype=np.int8)
    wall[g._head : g._tail] = pool[k:]
    g2.wall = wall
    if g2.phase == Phase.CLAIM:  # the opponents' claim masks depend on their (new) hands
        g2._claim_masks(g2.last_discarder, g2.last_discard)
    return g2


def rollouts(args: argparse.Namespace) -> None:
    spec = ObservationSpec(rules="basic")
    greedy = [GreedyAgent(seed=s) for s in range(4)]

    def play(g: Game, seat: int, action: int) -> bool:
        first = True
        while not g.is_over:
            acts = {}
            for s in g.acting_seats():
                if first and s == seat:
                    acts[s] = action
                else:
                    acts[s] = greedy[s].act({"observation": spec.encode(g, s), "action_mask": g.legal_action_mask(s)})
            g.step(acts)
            first = False
        return seat in g.winners

    a_agent, b_agent = make_agent(args.a, seed=0), make_agent(args.b, seed=0)
    n_dec, gains, t0 = 0, {0: [], 1: []}, time.perf_counter()
    for g, s, obs in _positions(args.hands, args.seed):
        n_dec += 1
        a, b = a_agent.act(obs), b_agent.act(obs)
        if a == b:
            continue
        rng = np.random.default_rng([args.seed, n_dec])
        wins = np.zeros(2)
        for _ in range(args.k):
            world = _resample(g, s, rng)
            wins += [play(world.clone(), s, a), play(world, s, b)]
        gains[int(g.phase == Phase.CLAIM)].append((wins[0] - wins[1]) / args.k)
    n_diff = len(gains[0]) + len(gains[1])
    print(f"{args.a} vs {args.b}: {n_dec} decisions in {args.hands} greedy hands (seed {args.seed}), "
          f"choices differ in {n_diff} ({n_diff / max(n_dec, 1):.0%}); {args.k} rollouts per choice; "
          f"{time.perf_counter() - t0:.0f} s")  # fmt: skip
    for key, name in ((0, "own turn"), (1, "claim"), (None, "all")):
        x = np.array(gains[0] + gains[1] if key is None else gains[key])
        if len(x) > 1:
            hw = 1.96 * x.std(ddof=1) / np.sqrt(len(x))
            print(f"  {name}: {len(x)} differing decisions, win probability of A's choice - B's: "
                  f"{100 * x.mean():+.2f} ± {100 * hw:.2f} pp; "
                  f"A better in {(x > 0).sum()}, B in {(x < 0).sum()}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("estimates", help="FP vs SP win-rate estimates on recorded positions")
    e.add_argument("--hands", type=int, default=8)
    e.add_argument("--seed", type=int, default=1000)
    e.add_argument("--sims", type=int, default=400, help="simulations per afterstate")
    e.add_argument("--rounds", type=int, default=6, help="cap on the rounds foreseen")
    e.add_argument("--prefilter", action="store_true", help="only the least-deficiency afterstates")
    e.add_argument("--ron", action="store_true", help="FP also wins on any dummy discard")
    e.add_argument("--old-claims", action="store_true", help="claim_turn=False (claims get the pass line's picks)")
    e.set_defaults(func=estimates)
    r = sub.add_parser("rollouts", help="real-game value of A's and B's choices where they differ")
    r.add_argument("a")
    r.add_argument("b")
    r.add_argument("--hands", type=int, default=12)
    r.add_argument("--seed", type=int, default=5000)
    r.add_argument("--k", type=int, default=150, help="rollouts per choice")
    r.set_defaults(func=rollouts)
    args = p.parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
