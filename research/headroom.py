"""How much defence could add to a policy: what never dealing in would be worth, and what a danger
model learned from the observation gets of it.

Under the ``basic`` rules most hands end on a discard and a seat deals in to about a fifth of them,
while the observation says nothing directly of which tiles the opponents wait on. A policy that
learned not to deal in looks like an obvious way past the BC policy and flat MC. This measures the
most that route could give, with hidden information no legal policy has, and what a learned
estimate of it gives.

For every deal (the duplicate walls of ``mjenv eval``, ``deal_seed(seed, deal)``) and every rotation,
the hand is played once per variant, on the same wall with the same opponents (same agent seeds):

* **plain**: the policy's seats play its argmax action, as ``policy:bc`` plays in ``mjenv eval``;
* **defence** (an upper bound): when the policy's chosen discard would complete the concealed hand of
  an opponent still in the hand (read from the game), and the seat's own knowledge-aware deficiency
  is at least ``--min-deficiency``, the seat discards instead the legal tile of highest policy
  probability that no opponent can win on, when there is one: a perfect reader of every wait;
* **learned** (with ``--danger PATH``): at the same decisions the seat discards the tile maximising
  ``log pi(tile) - weight * danger(tile)``, where ``danger`` is a :class:`research.training.danger.DangerNet`'s
  probability, read from the seat's own observation, that the tile completes an opponent's hand;
  one row per ``--danger-weight``;
* **public** (``--public-streak``): against the opponents whose hands have stood for at least that
  many of their own turns, the seat discards the most probable tile that each of them has shown it
  does not win on (:class:`PassedTiles`: information a real game makes public, through the tsumogiri
  flag and the order of discards, but mjenv's observation does not carry).

Against one opponent type in three seats (the default) the other three seats are the opponents; with
``--teams`` the policy holds two opposite seats and only the other two are opponents (dealing in to a
teammate is no loss to the team, as in ``mjenv eval``'s teams table). The metric is ``mjenv eval``'s:
the policy's win rate per seat minus the opponents' win rate per seat, averaged over the deal's
rotations; each variant's gain over plain is paired deal by deal.

Run: ``python -m research.headroom --opponent flatmc --teams --deals 300 --seed 780 --danger runs/danger.pt``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np
import torch


def guarded_discard(game, seat: int, probs: np.ndarray, mask: np.ndarray, opponents: Sequence[int],
                    num_tile_types: int) -> tuple[int, str]:
    """The guard's choice: ``(action, what)``, ``what`` one of ``"safe"`` (the policy's choice was
    safe), ``"switched"`` or ``"no_safe"`` (every legal discard deals in; the policy's choice kept).

    ``probs`` are the policy's probabilities (illegal actions anything); the policy's choice is their
    legal argmax, which must be a discard."""
    from mjenv.game._win import is_winning_with

    live = [q for q in opponents if not game.won[q]]
    legal = np.flatnonzero(mask)
    choice = int(legal[np.argmax(probs[legal])])
    if choice >= num_tile_types:
        raise ValueError(f"the policy's choice {choice} is not a discard (ids 0..{num_tile_types - 1})")

    def deals_in(tile: int) -> bool:
        return any(is_winning_with(game.hands[q], tile) for q in live)

    if not deals_in(choice):
        return choice, "safe"
    safe = [int(t) for t in legal if t < num_tile_types and not deals_in(int(t))]
    if not safe:
        return choice, "no_safe"
    return max(safe, key=lambda t: probs[t]), "switched"


def learned_discard(log_probs: np.ndarray, danger: np.ndarray, mask: np.ndarray, weight: float,
                    num_tile_types: int) -> int:
    """The legal discard maximising ``log_probs[t] - weight * danger[t]`` (the learned variant's choice)."""
    tiles = np.flatnonzero(mask[:num_tile_types])
    if len(tiles) == 0:
        raise ValueError("learned_discard needs a legal discard")
    score = log_probs[tiles] - weight * danger[tiles]
    return int(tiles[np.argmax(score)])


def parse_variant(variant: str) -> tuple[str, float]:
    """``(kind, value)`` of ``"plain"``, ``"defence"``, ``"learned:<weight>"`` or ``"public:<streak>"``."""
    kind, _, w = variant.partition(":")
    ok = kind in ("plain", "defence") and not w or kind in ("learned", "public") and bool(w)
    try:
        value = float(w) if w else 0.0
    except ValueError:
        ok = False
    if not ok or value < 0:
        raise ValueError(f"variant must be 'plain', 'defence', 'learned:<weight>' or 'public:<streak>' "
                         f"(a number >= 0), got {variant!r}")
    return kind, value


class PassedTiles:
    """Tiles each seat has shown it does not win on since its concealed hand last changed.

    In a real game this is public: everyone sees whether a discard is the tile just drawn (tsumogiri)
    and the order of all discards and claims. mjenv's observation does not carry either (it has each
    seat's discards, in order, but not the interleaving or the tsumogiri flag), so this tracker reads
    them off the game; it uses the hidden hands only to tell whether a seat's concealed tiles changed,
    which is exactly what the tsumogiri flag and the claims show.

    A seat's hand ``H`` (13 tiles, say) does not win on a tile ``x`` when:
    * the seat let ``x`` go by in a claim window while holding ``H`` (another seat's discard);
    * the seat drew ``x`` and discarded it (``H`` unchanged, no self-drawn win declared);
    * the seat drew a tile and discarded ``x``: ``H + x`` was its hand before the discard, no win.
    All three assume that a seat declares every win it can (every agent here does, almost always).
    ``streak[s]`` counts the seat's own turns in a row that left its hand unchanged.
    """

    def __init__(self, game):
        self.passed: list[set[int]] = [set() for _ in range(4)]
        self.hand: list[np.ndarray | None] = [game.hands[s].copy() for s in range(4)]
        self.streak = [0, 0, 0, 0]
        self._pre: tuple | None = None

    def before(self, game) -> None:
        """Call before each ``game.step``."""
        self._pre = (int(game.phase), int(game.current_player), int(game.last_discard), int(game.last_discarder),
                     game.num_discards.copy())

    def after(self, game) -> None:
        """Call after each ``game.step``."""
        from mjenv.game import Phase

        phase, current, last, discarder, nd = self._pre
        if game.is_over:
            return
        for s in range(4):
            if game.won[s]:
                continue
            h = game.hands[s]
            if int(game.phase) == Phase.DISCARD and int(game.current_player) == s:
                if game.last_drawn < 0:  # a claim: the hand changed, its new 13 are known after the discard
                    self.passed[s], self.hand[s], self.streak[s] = set(), None, 0
                    continue
                h = h.copy()
                h[game.last_drawn] -= 1  # its hand before the draw
            own = phase == Phase.DISCARD and current == s and game.num_discards[s] > nd[s]
            if self.hand[s] is None or not np.array_equal(h, self.hand[s]):
                self.passed[s], self.hand[s] = set(), h.copy()
                self.streak[s] = 0
            elif own:
                self.streak[s] += 1
            if own:
                self.passed[s].add(int(game.discards[s, game.num_discards[s] - 1]))
            elif phase == Phase.CLAIM and s != discarder and last >= 0:
                self.passed[s].add(last)


def public_discard(log_probs: np.ndarray, mask: np.ndarray, tracker: PassedTiles, opponents: Sequence[int],
                   won: np.ndarray, streak: float, num_tile_types: int) -> int | None:
    """The public guard's choice, or None to keep the policy's: against the live opponents whose
    hands have stood for at least ``streak`` own turns, the most probable legal discard that each of
    them has shown it does not win on (None when there is none, or no such opponent)."""
    threats = [q for q in opponents if not won[q] and tracker.streak[q] >= streak]
    if not threats:
        return None
    tiles = [int(t) for t in np.flatnonzero(mask[:num_tile_types]) if all(int(t) in tracker.passed[q] for q in threats)]
    if not tiles:
        return None
    return max(tiles, key=lambda t: log_probs[t])


def variant_name(kind: str, weight: float | None = None) -> str:
    """``"plain"``, ``"defence"``, ``"learned:<weight>"`` or ``"public:<streak>"``."""
    return kind if weight is None else f"{kind}:{weight:g}"


class Table:
    """Plays hands of one policy against one opponent type, in the variants of the module docstring.

    Args:
        policy: shipped policy name (``bc`` or ``rl``).
        opponent: agent spec of the opponents.
        teams: two opposite seats each.
        min_deficiency: defend only when the own deficiency is at least this (>= 1).
        danger: a :class:`~research.training.danger.DangerNet` for the learned variants, or None.

    ``learned_changes[variant]`` counts the discards a learned or public variant changed.
    """

    def __init__(self, policy: str = "bc", opponent: str = "greedy", teams: bool = False,
                 min_deficiency: int = 1, rules: str = "basic", danger=None):
        from mjenv.baselines.policy import load_pretrained

        from mjenv.observation import ObservationSpec
        from mjenv.rules import get_rules

        if min_deficiency < 1:
            raise ValueError(f"min_deficiency must be >= 1 (0 is a complete hand), got {min_deficiency}")
        self.rules = get_rules(rules)
        self.spec = ObservationSpec(rules=self.rules)
        self.net = load_pretrained(policy).net
        self.opponent = opponent
        self.teams = bool(teams)
        self.min_deficiency = int(min_deficiency)
        self.danger = danger
        self.t = self.rules.num_tile_types
        self._def = self.spec.slices["deficiency"].start
        self.counts = {"discards": 0, "would_deal_in": 0, "switched": 0, "no_safe": 0}
        self.learned_changes: dict[str, int] = {}

    def policy_seats(self, rotation: int) -> list[int]:
        """The policy's seats in a rotation: one seat (0..3), or with teams two opposite ones (0..1)."""
        return [rotation, rotation + 2] if self.teams else [rotation]

    @property
    def rotations(self) -> int:
        return 2 if self.teams else 4

    def _log_probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            logits, _ = self.net(torch.as_tensor(obs[None], dtype=torch.float32), torch.as_tensor(mask[None]))
        return torch.log_softmax(logits, -1)[0].numpy()

    def _danger(self, obs: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return self.danger.danger(torch.as_tensor(obs[None], dtype=torch.float32))[0].numpy()

    def play(self, wall_seed: int, rotation: int, variant: str = "plain", agent_seed: int = 0) -> dict:
        """One hand in one variant; returns the winners, the metric and the policy's deal-ins."""
        from mjenv.baselines.registry import make_agent

        from mjenv.game import Game

        kind, value = parse_variant(variant)
        if kind == "learned" and self.danger is None:
            raise ValueError("the learned variant needs a danger network (Table(danger=...), --danger PATH)")
        mine = self.policy_seats(rotation)
        others = [s for s in range(4) if s not in mine]
        opp = {s: make_agent(self.opponent, seed=agent_seed + s, rules=self.rules) for s in others}
        g = Game(rules=self.rules, seed=wall_seed)
        tracker = PassedTiles(g) if kind == "public" else None
        while not g.is_over:
            actions = {}
            for s in g.acting_seats():
                mask = g.legal_action_mask(s)
                obs = self.spec.encode(g, s)
                if s in opp:
                    actions[s] = int(opp[s].act({"observation": obs, "action_mask": mask}))
                    continue
                logp = self._log_probs(obs, mask)
                legal = np.flatnonzero(mask)
                a = int(legal[np.argmax(logp[legal])])
                if kind != "plain" and a < self.t and obs[self._def] >= self.min_deficiency:
                    if kind == "defence":
                        self.counts["discards"] += 1
                        a, what = guarded_discard(g, s, np.exp(logp), mask, others, self.t)
                        if what != "safe":
                            self.counts["would_deal_in"] += 1
                            self.counts[what] += 1
                    else:
                        b = (learned_discard(logp, self._danger(obs), mask, value, self.t) if kind == "learned"
                             else public_discard(logp, mask, tracker, others, g.won, value, self.t))
                        b = a if b is None else b
                        self.learned_changes[variant] = self.learned_changes.get(variant, 0) + (b != a)
                        a = b
                actions[s] = a
            if tracker is not None:
                tracker.before(g)
            g.step(actions)
            if tracker is not None:
                tracker.after(g)
        won = [float(s in g.winners) for s in range(4)]
        diff = np.mean([won[s] for s in mine]) - np.mean([won[s] for s in others])
        # a deal-in to an opponent (in teams, a teammate's win on the discard is no loss)
        deal_in = int(g.deal_in) if any(w in others for w in g.winners) else -1
        return {"winners": list(map(int, g.winners)), "diff": float(diff),
                "dealt_in": float(deal_in in mine) / len(mine)}


def run(table: Table, deals: int, seed: int, variants: Sequence[str] = ("plain", "defence"),
        progress: bool = True) -> dict:
    """Plays every deal's rotations in each variant; per-deal averages of the metric and the deal-ins,
    and each variant's paired gain over ``plain`` (which is always played)."""
    from mjenv.baselines.evaluate import agent_seed, deal_seed, mean_ci

    variants = ["plain"] + [v for v in dict.fromkeys(variants) if v != "plain"]
    for v in variants:  # refuse a bad variant before playing anything
        parse_variant(v)
    from tqdm.auto import tqdm

    diff = {v: [] for v in variants}
    dealt = {v: [] for v in variants}
    for deal in tqdm(range(deals), unit="deal", desc="headroom", dynamic_ncols=True, disable=not progress):
        wall = deal_seed(seed, deal)
        for v in variants:
            hands = [table.play(wall, r, v, agent_seed(seed, deal, r, 0)) for r in range(table.rotations)]
            diff[v].append(np.mean([h["diff"] for h in hands]))
            dealt[v].append(np.mean([h["dealt_in"] for h in hands]))
    base = np.asarray(diff["plain"])
    return {
        "variants": variants,
        "diff": {v: mean_ci(diff[v]) for v in variants},
        "gain": {v: mean_ci(np.asarray(diff[v]) - base) for v in variants if v != "plain"},
        "dealt_in": {v: mean_ci(dealt[v]) for v in variants},
        "counts": dict(table.counts), "learned_changes": dict(table.learned_changes),
        "deals": deals, "hands": len(variants) * deals * table.rotations,
    }


def describe(variant: str, short: bool = False) -> str:
    """What a variant is, for a table row (or, ``short``, a plot legend)."""
    kind, _, w = variant.partition(":")
    if kind == "plain":
        return "plain policy"
    if kind == "defence":
        return "perfect defence (hidden hands" + (")" if short else ": no deal-in while a safe tile exists)")
    if kind == "public":
        if short:
            return f"passed tiles, streak >= {w}"
        return f"passed tiles against hands standing >= {w} turns (public in real play, not in the observation)"
    return f"learned danger, weight {w}" + ("" if short else " (own observation)")


def format_result(res: dict, args: argparse.Namespace) -> str:
    """The result as a markdown table, with the run's settings on the first line."""
    def pp(mc: tuple[float, float]) -> str:
        return f"{100 * mc[0]:+.1f} ± {100 * mc[1]:.1f} pp"

    c = res["counts"]
    side = "teams (two opposite seats each)" if args.teams else "one seat against three"
    lines = [
        f"policy:{args.policy} against {args.opponent}, {side}; {res['deals']} deals, seed {args.seed}, "
        f"{res['hands']} hands in all variants; defend when own deficiency >= {args.min_deficiency}",
        "",
        "| variant | win rate − opponents', per seat | gain over plain (paired) "
        "| deal-ins to opponents, per policy seat |",
        "|---|---|---|---|",
    ]
    for v in res["variants"]:
        gain = pp(res["gain"][v]) if v in res["gain"] else ""
        m, ci = res["dealt_in"][v]
        lines.append(f"| {describe(v)} | {pp(res['diff'][v])} | {gain} | {100 * m:.1f}% ± {100 * ci:.1f} |")
    notes = []
    if c["discards"]:
        notes.append(f"Perfect defence: {c['discards']} discards checked; {c['would_deal_in']} would have dealt in, "
                     f"{c['switched']} switched to a safe tile, {c['no_safe']} had no safe tile.")
    for v, n in res.get("learned_changes", {}).items():
        notes.append(f"{describe(v)}: {n} discards changed.")
    return "\n".join(lines + ([""] + notes if notes else []))


def plot_results(paths: Sequence[str], out: str) -> None:
    """A bar chart of each variant's gain over plain (95% CI), one group per result file (``--json``)."""
    import json

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results = [json.loads(open(p).read()) for p in paths]
    variants = [v for v in results[0]["result"]["variants"] if v != "plain"]
    fig, ax = plt.subplots(figsize=(1.6 + 1.9 * len(results), 3.6))
    width = 0.8 / max(len(variants), 1)
    for k, v in enumerate(variants):
        xs, ms, cis = [], [], []
        for i, r in enumerate(results):
            if v in r["result"]["gain"]:
                m, ci = r["result"]["gain"][v]
                xs.append(i - 0.4 + width * (k + 0.5))
                ms.append(100 * m)
                cis.append(100 * ci)
        ax.bar(xs, ms, width, yerr=cis, capsize=3, label=describe(v, short=True))
    ax.axhline(0, color="black", lw=0.8)
    names = []
    for r in results:
        a = r["args"]
        names.append(f"vs {a['opponent']}\n{'teams' if a['teams'] else '1 vs 3'}, {r['result']['deals']} deals")
    ax.set_xticks(range(len(results)), names, fontsize=8)
    ax.set_ylabel("gain in win rate − opponents', pp")
    ax.set_title(f"policy:{results[0]['args']['policy']}: what defence could add (95% CI)", fontsize=10)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--policy", default="bc", help="shipped policy name (bc or rl)")
    ap.add_argument("--opponent", default="greedy", help="agent spec of the opponents (greedy, flatmc, policy:bc, ...)")
    ap.add_argument("--teams", action="store_true", help="two opposite seats each, as mjenv eval's teams")
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--seed", type=int, default=778)
    ap.add_argument("--min-deficiency", type=int, default=1,
                    help="defend only when the own deficiency is at least this")
    ap.add_argument("--danger", default=None,
                    help="a DangerNet file (python -m research.training.danger) for the learned rows")
    ap.add_argument("--danger-weight", type=float, nargs="+", default=[3.0, 10.0, 30.0],
                    help="one learned row per weight (with --danger)")
    ap.add_argument("--public-streak", type=float, nargs="*", default=[],
                    help="one row per streak: the passed-tiles guard against hands standing that many turns")
    ap.add_argument("--json", default=None, help="also write the settings and the result to this file")
    ap.add_argument("--plot", default=None, metavar="PNG",
                    help="draw the gains of the --plot-from files (written with --json) instead of playing")
    ap.add_argument("--plot-from", nargs="+", default=None, metavar="JSON")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if (args.plot is None) != (args.plot_from is None):
        ap.error("--plot and --plot-from go together")
    if args.plot is not None:
        plot_results(args.plot_from, args.plot)
        print(f"wrote {args.plot}")
        return {}
    if args.deals < 2:
        ap.error(f"--deals must be at least 2 (a CI needs two deals), got {args.deals}")
    if args.danger is not None and any(w < 0 for w in args.danger_weight):
        ap.error(f"--danger-weight must be >= 0, got {args.danger_weight}")
    torch.set_num_threads(1)
    danger = None
    variants = ["plain", "defence"]
    if args.danger is not None:
        from research.training.danger import load_danger

        danger = load_danger(args.danger)
        variants += [variant_name("learned", w) for w in args.danger_weight]
    variants += [variant_name("public", k) for k in args.public_streak]
    t0 = time.perf_counter()
    table = Table(args.policy, args.opponent, args.teams, args.min_deficiency, danger=danger)
    res = run(table, args.deals, args.seed, variants, progress=not args.no_progress)
    print(format_result(res, args))
    print(f"\n{time.perf_counter() - t0:.0f} s")
    if args.json is not None:
        import json

        settings = {k: getattr(args, k) for k in ("policy", "opponent", "teams", "deals", "seed", "min_deficiency",
                                                   "danger", "danger_weight", "public_streak")}
        with open(args.json, "w") as f:
            json.dump({"args": settings, "result": res}, f, indent=1)
    return res


if __name__ == "__main__":
    main()
