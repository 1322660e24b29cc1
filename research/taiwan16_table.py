"""The SIMCAT Sec. 5 table under taiwan16 (research/notes/bench/taiwan16.md) from the merged `mjenv eval` results.

Reads ``research/notes/bench/taiwan16/<name>.json`` (written by ``mjenv eval --merge``) for each experiment and
prints one markdown row each, next to the paper's number (SIMCAT paper, Tables 3, 4, 5, 6 and 8). The
per-hand win rates, the paired difference and its 95% CI are the harness's (t-interval over duplicate
deals); "deals won" counts, like the paper's matches, the duplicate deals in which one team won more
hands than the other (a deal is two hands here; a paper match is 384 games).

Usage: python -m research.taiwan16_table
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "docs" / "bench" / "taiwan16"

#: (name, what it tests, the paper's result for the first team)
EXPERIMENTS = [
    ("fp_vs_sp", "FP vs SP", "Table 3: FP wins 62.1% ± 0.67 of decided matches (374 of 602; 781 played; 10,000 sims)"),
    ("pruning", "pruning vs none", "Table 4: PP wins 50.3% ± 1.70 of 2339 matches (10,000 sims)"),
    ("sims", "20,000 vs 10,000 sims", "Table 5: 20,000 sims win 51.5% ± 0.89 of 8558 matches against 10,000"),
    ("sims40k", "40,000 vs 10,000 sims", "Table 5: 40,000 sims win 52.3% ± 1.67 of 2435 matches against 10,000"),
    ("sims80k", "80,000 vs 10,000 sims", "Table 5: 80,000 sims win 52.9% ± 2.05 of 1604 matches against 10,000"),
    ("h1", "H1 vs original", "Table 6a: H1 wins 46.2% ± 4.91 of 279 matches (200,000 sims)"),
    ("h2h1", "H2+H1 vs original", "Table 6b: H2+H1 wins 59.5% ± 4.46 of 328 matches (200,000 sims)"),
    ("final_vs_sp", "final vs SP baseline", "Table 8: final wins 66.2% ± 3.10 of 633 matches (200,000 sims)"),
    ("flatmc_vs_greedy", "final vs greedy (not in the paper)", "-"),
]


def deal_wins(report: dict, a: str) -> tuple[int, int]:
    """(deals where team ``a`` won more hands, deals where the other team did)."""
    per_deal: dict[tuple, int] = {}
    for h in report["hands"]:
        key = (h["seed"], h["deal"])
        for w in h["winners"]:
            per_deal[key] = per_deal.get(key, 0) + (1 if h["seats"][w] == a else -1)
        per_deal.setdefault(key, 0)
    return sum(v > 0 for v in per_deal.values()), sum(v < 0 for v in per_deal.values())


def deal_diffs(report: dict, a: str) -> list[float]:
    """Per duplicate deal: team ``a``'s win rate minus the other team's (each team: 2 seats x 2 hands)."""
    per_deal: dict[tuple, float] = {}
    for h in report["hands"]:
        key = (h["seed"], h["deal"])
        per_deal.setdefault(key, 0.0)
        for w in h["winners"]:
            per_deal[key] += (1 if h["seats"][w] == a else -1) / 4
    return list(per_deal.values())


def row(name: str, what: str, paper: str) -> str | None:
    path = OUT / f"{name}.json"
    if not path.exists():
        return None
    rep = json.loads(path.read_text())
    pw = rep["pairwise"][0]
    a, b = pw["a"], pw["b"]
    st = rep["stats"]
    n = rep["config"]["num_deals"]
    hands = len(rep["hands"])
    wa, wb = deal_wins(rep, a)
    ms = f"{st[a]['ms_per_decision'][0]:.0f} / {st[b]['ms_per_decision'][0]:.0f}"
    sig = "**yes**" if pw["significant"] else "no"
    return (
        f"| {what} | `{a}` | `{b}` | {n} ({hands}) | {100 * st[a]['win_rate'][0]:.1f}% / "
        f"{100 * st[b]['win_rate'][0]:.1f}% | {100 * pw['diff']:+.1f} ± {100 * pw['ci']:.1f} pp | {sig} | "
        f"{wa} / {wb} | {ms} | {paper} |"
    )


def main() -> None:
    print(
        "| experiment | A | B | deals (hands) | win rate A / B | A − B (95% CI) | significant | deals won A / B "
        "| ms/decision A / B | paper (match win rate of A) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    diffs: list[float] = []
    for name, what, paper in EXPERIMENTS:
        r = row(name, what, paper)
        if r is not None:
            print(r)
            rep = json.loads((OUT / f"{name}.json").read_text())
            diffs += deal_diffs(rep, rep["pairwise"][0]["a"])
    if len(diffs) > 1:
        sd = float(np.std(diffs, ddof=1))
        need = (1.96 * sd / 0.01) ** 2
        print(
            f"\nSD of the per-deal win-rate difference, all rows pooled ({len(diffs)} deals): {100 * sd:.1f} pp; "
            f"a 95% half-width of 1 pp needs about {need:,.0f} duplicate deals per row."
        )


if __name__ == "__main__":
    main()
