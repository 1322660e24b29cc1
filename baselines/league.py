"""A league: every agent plays every other on the same duplicate deals, and each gets a rating with a CI.

``mjenv eval --league AGENT AGENT AGENT ...`` (or :func:`league`). Each pair of agents plays
:func:`~mjenv.baselines.evaluate.evaluate`'s two-agent match (teams on opposite seats, every deal in both
seatings) on the same walls: every pair meets the same deals. One deal of one pair is one rated game
between two teams, ranked by the points each agent's two seats took over the deal's hands (a tie when
equal), so the luck of the tiles cancels within a deal.

Ratings are openskill's Plackett-Luce model (Weng and Lin's Bayesian approximation). openskill rather
than trueskill: it is maintained, has no dependency, rates team games with ties directly, and its
rating is the same (mu, sigma) pair; trueskill's package has had no release since 2019. A rating's 95%
interval is ``mu ± 1.96 sigma``; agents are ranked by the conservative ``mu - 3 sigma`` (openskill's
ordinal). The games are rated deal by deal, every pair's game of a deal before the next deal, so no
pair's games all come first; the ratings depend a little on that order (an online update), the paired
win-rate differences beside them do not.

The report writes a markdown table (ratings, then each pair's win-rate difference with its 95% CI) and a
PNG (the ratings with their intervals, and the matrix of differences).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from mjenv.baselines.evaluate import MIN_DEALS_FOR_TEST, Report, evaluate

__all__ = ["LeagueReport", "difference_heatmap", "league", "rate_games"]

#: z of a two-sided 95% interval of a normal rating
Z95 = 1.96


@dataclass
class LeagueReport:
    """The result of :func:`league`.

    Attributes:
        agents: the agent specs, in the order given.
        ratings: spec -> {"mu", "sigma", "low", "high", "ordinal", "games"} (low/high: mu ∓ 1.96 sigma).
        pairs: the two-agent :class:`~mjenv.baselines.evaluate.Report` of each pair (a, b), a before b.
        config: how it was run (deals, seed, rules, the command's settings).
    """

    agents: list[str]
    ratings: dict[str, dict[str, float]]
    pairs: dict[tuple[str, str], Report] = field(repr=False)
    config: dict[str, Any] = field(default_factory=dict)
    stored: dict[str, tuple[float, float]] = field(default_factory=dict, repr=False)
    stored_overall: dict[str, tuple[float, float]] = field(default_factory=dict, repr=False)

    def ranking(self) -> list[str]:
        """The agents by conservative rating (``mu - 3 sigma``), best first."""
        return sorted(self.agents, key=lambda a: -self.ratings[a]["ordinal"])

    def difference(self, a: str, b: str) -> tuple[float, float]:
        """Paired win-rate difference a minus b over their deals (mean, 95% CI half-width)."""
        if not self.pairs:  # read back from JSON: the differences it stored
            if f"{a} - {b}" in self.stored:
                return tuple(self.stored[f"{a} - {b}"])
            m, ci = self.stored[f"{b} - {a}"]
            return -m, ci
        if (a, b) in self.pairs:
            return self.pairs[(a, b)].difference(a, b)
        m, ci = self.pairs[(b, a)].difference(b, a)
        return -m, ci

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LeagueReport:
        """A report read back from :meth:`to_json` (ratings and differences; no hands: ``win rate`` and
        ``mean score`` come from the stored ``overall``)."""
        report = cls(list(data["agents"]), data["ratings"], {}, data["config"])
        report.stored = {k: tuple(v) for k, v in data["differences"].items()}
        report.stored_overall = {k: tuple(v) for k, v in data.get("overall", {}).items()}
        return report

    def table(self) -> str:
        """Markdown: the rating table, then the win-rate differences of every pair."""
        c = self.config
        lines = [
            f"League of {len(self.agents)} agents: every pair on the same {c['deals']} duplicate deals (teams on "
            f"opposite seats, both seatings; rules {c['rules']!r}"
            f"{'' if c.get('episode') is None else ', one ' + repr(c['episode']) + ' game per seating'}, seed "
            f"{c['seed']}). Rating: openskill "
            "Plackett-Luce over the deals, mu with its 95% interval (mu ± 1.96 sigma); ranked by mu - 3 sigma.",
            "",
            "| rank | agent | rating (95% CI) | mu - 3 sigma | rated games | win rate | mean score |",
            "|---|---|---|---|---|---|---|",
        ]
        for i, a in enumerate(self.ranking(), 1):
            r = self.ratings[a]
            win, score = self._overall(a)
            lines.append(f"| {i} | {a} | {r['mu']:.1f} ({r['low']:.1f} .. {r['high']:.1f}) | {r['ordinal']:.1f} | "
                         f"{int(r['games'])} | {100 * win:.1f}% | {score:+.2f} |")
        lines += ["", "Paired win-rate difference, row minus column (pp, 95% CI over deals; * significant):", ""]
        order = self.ranking()
        lines += ["| | " + " | ".join(order) + " |", "|---|" + "---|" * len(order)]
        few = c["deals"] < MIN_DEALS_FOR_TEST
        for a in order:
            cells = []
            for b in order:
                if a == b:
                    cells.append("")
                    continue
                m, ci = self.difference(a, b)
                star = "" if few or not abs(m) > ci else " *"
                cells.append(f"{100 * m:+.1f} ± {100 * ci:.1f}{star}")
            lines.append(f"| {a} | " + " | ".join(cells) + " |")
        if few:
            lines += ["", f"No difference is tested: fewer than {MIN_DEALS_FOR_TEST} deals give no usable interval."]
        return "\n".join(lines)

    def _overall(self, agent: str) -> tuple[float, float]:
        """(win rate, mean score) of the agent's seats over all its hands (a record of a whole game, under rules
        whose room plays games, counts its ``hands_played`` hands, its wins from its ``win_rate``)."""
        if not self.pairs:
            return self.stored_overall.get(agent, (float("nan"), float("nan")))
        wins = seats = score = 0.0
        for report in self.pairs.values():
            for h in report.hands:
                game = "winners" not in h  # a whole game's record
                hands = h["hands_played"] if game else 1
                for s, lab in enumerate(h["seats"]):
                    if lab == agent:
                        seats += hands
                        wins += round(h["metrics"]["win_rate"][s] * hands) if game else s in h["winners"]
                        score += h["scores"][s]
        return wins / max(seats, 1), score / max(seats, 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "agents": self.agents,
            "ratings": self.ratings,
            "differences": {f"{a} - {b}": self.difference(a, b) for a, b in itertools.combinations(self.agents, 2)},
            "overall": {a: self._overall(a) for a in self.agents},
            "config": self.config,
        }

    def save(self, out_dir: str | os.PathLike, name: str = "league") -> dict[str, Path]:
        """Write ``name.md``, ``name.json`` and ``name.png`` under ``out_dir``; returns their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {"md": out / f"{name}.md", "json": out / f"{name}.json", "png": out / f"{name}.png"}
        paths["md"].write_text(self.table() + "\n", encoding="utf-8")
        paths["json"].write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        plot_league(self, paths["png"])
        return paths


def deal_games(report: Report, a: str, b: str) -> list[tuple[int, list[int]]]:
    """One game per deal of a two-agent report: (deal, ranks of [a, b]), 1 = better, equal points tie.

    Returns:
        ``[(deal, [rank_a, rank_b]), ...]`` in deal order; a team's points are the sum of its seats'
        scores over the deal's hands.
    """
    points: dict[int, list[float]] = {}
    for h in report.hands:
        p = points.setdefault(int(h["deal"]), [0.0, 0.0])
        for s, lab in enumerate(h["seats"]):
            p[0 if lab == a else 1] += h["scores"][s]
    return [(d, [1, 1] if pa == pb else ([1, 2] if pa > pb else [2, 1])) for d, (pa, pb) in sorted(points.items())]


def rate_games(agents: Sequence[str], games: Sequence[tuple[str, str, list[int]]]) -> dict[str, dict[str, float]]:
    """openskill Plackett-Luce ratings of two-team games played in the order given.

    Args:
        agents: every agent (each starts at openskill's prior, mu 25, sigma 25/3).
        games: ``(a, b, [rank_a, rank_b])``, 1 = better, equal ranks a tie.

    Returns:
        agent -> {"mu", "sigma", "low", "high", "ordinal", "games"}.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {a: model.rating(name=a) for a in agents}
    played = dict.fromkeys(agents, 0)
    for a, b, ranks in games:
        [[ra], [rb]] = model.rate([[rating[a]], [rating[b]]], ranks=list(ranks))
        rating[a], rating[b] = ra, rb
        played[a] += 1
        played[b] += 1
    return {
        a: {"mu": r.mu, "sigma": r.sigma, "low": r.mu - Z95 * r.sigma, "high": r.mu + Z95 * r.sigma,
            "ordinal": r.mu - 3 * r.sigma, "games": played[a]}
        for a, r in rating.items()
    }


def league(agents: Sequence[str], deals: int, seed: int = 0, *, rules: Any = "basic", workers: int = 1,
           threads: int | None = 1, progress: bool = True, out_dir: str | os.PathLike | None = None,
           name: str = "league", episode: str | None = None) -> LeagueReport:
    """Play every pair of ``agents`` on the same ``deals`` duplicate deals and rate them.

    Args:
        agents: at least 3 distinct agent specs (``"greedy"``, ``"flatmc:sims=1000"``, ``"policy:bc"``, ...).
        deals: duplicate deals per pair (every pair plays the same walls).
        seed: seeds the walls and the agents.
        rules, workers, threads, progress, episode: as for :func:`~mjenv.baselines.evaluate.evaluate` (``episode``:
            under rules whose room plays whole games, their length; a deal is then one game per seating).
        out_dir: when given, write ``name.md``, ``name.json`` and ``name.png`` there.
        name: base name of the written files.

    Returns:
        :class:`LeagueReport`.

    Raises:
        ValueError: fewer than 3 agents, a repeated agent, deals < 1, or an unknown spec.
    """
    agents = [str(a) for a in agents]
    if len(agents) < 3:
        raise ValueError(f"a league needs at least 3 agents (2 are a plain 'mjenv eval A B'), got {agents}")
    if len(set(agents)) != len(agents):
        raise ValueError(f"each agent may enter the league once, got {agents}")
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 1:
        raise ValueError(f"deals must be an int >= 1, got {deals!r}")
    from mjenv.baselines.registry import make_agent

    for a in agents:  # every spec checked before any game is played
        make_agent(a, seed=0, rules=rules)
    pairs: dict[tuple[str, str], Report] = {}
    for i, (a, b) in enumerate(itertools.combinations(agents, 2)):
        if progress:
            print(f"pair {i + 1}/{len(agents) * (len(agents) - 1) // 2}: {a} vs {b}", flush=True)
        pairs[(a, b)] = evaluate([a, b], deals, seed, rules=rules, workers=workers, threads=threads,
                                 progress=progress, episode=episode)
    per_pair = {pair: dict(deal_games(r, *pair)) for pair, r in pairs.items()}
    games = [(a, b, per_pair[(a, b)][d]) for d in sorted(next(iter(per_pair.values()))) for (a, b) in pairs]
    rules_name = rules if isinstance(rules, str) else getattr(rules, "name", str(rules))
    config = {"deals": int(deals), "seed": int(seed), "rules": rules_name}
    played = next(iter(pairs.values())).config.get("episode")
    if played is not None:  # whole games
        config["episode"] = played
    report = LeagueReport(agents, rate_games(agents, games), pairs, config)
    if out_dir is not None:
        report.save(out_dir, name)
    return report


def plot_league(report: LeagueReport, path: str | os.PathLike) -> Path:
    """Two panels: each agent's rating with its 95% interval, and the matrix of paired win-rate differences."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    order = report.ranking()
    n = len(order)
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 0.55 * n + 2.2), gridspec_kw={"width_ratios": [1, 1.2]})
    mu = np.array([report.ratings[a]["mu"] for a in order])
    lo = np.array([report.ratings[a]["low"] for a in order])
    hi = np.array([report.ratings[a]["high"] for a in order])
    y = np.arange(n)[::-1]
    ax.errorbar(mu, y, xerr=[mu - lo, hi - mu], fmt="o", color="#1f5fa8", ecolor="#7aa6d8", capsize=4)
    ax.set_yticks(y, order)
    ax.set_xlabel("openskill rating mu (95% interval)")
    ax.set_title("ratings")
    ax.grid(axis="x", alpha=0.3)
    diff = np.full((n, n), np.nan)
    for i, a in enumerate(order):
        for j, b in enumerate(order):
            if i != j:
                diff[i, j] = 100 * report.difference(a, b)[0]
    difference_heatmap(fig, bx, diff, order, "{:+.0f}")
    bx.set_title("win rate, row − column (pp)")
    c = report.config
    fig.suptitle(f"mjenv league: {c['deals']} duplicate deals per pair, rules {c['rules']}, seed {c['seed']}",
                 fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
    return Path(path)


def difference_heatmap(fig, ax, matrix: np.ndarray, labels: Sequence[str], fmt: str = "{:+.1f}") -> None:
    """Draw a matrix of win-rate differences (pp, row minus column; nan = not measured) on ``ax``.

    The colour scale is symmetric and never clips: linear within ±10 pp, logarithmic beyond, so that
    a +3 pp difference shows beside a +50 one. Each number is white on a dark cell and black on a light
    one. A colour bar in pp is added to ``fig``.

    Args:
        fig, ax: a matplotlib figure and one of its axes.
        matrix: float[n, n] differences in percentage points.
        labels: n names, rows and columns.
        fmt: format of the number written in each cell.
    """
    from matplotlib.colors import SymLogNorm

    finite = matrix[np.isfinite(matrix)]
    bound = max(10.0, float(np.abs(finite).max()) if finite.size else 10.0)
    norm = SymLogNorm(linthresh=10.0, linscale=1.0, vmin=-bound, vmax=bound, base=10)
    im = ax.imshow(matrix, cmap="RdBu", norm=norm)
    n = len(labels)
    for i in range(n):
        for j in range(n):
            v = matrix[i, j]
            if np.isfinite(v):
                dark = abs(float(norm(v)) - 0.5) > 0.3  # far from the white middle of RdBu
                ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=9,
                        color="white" if dark else "black")
    ax.set_xticks(range(n), labels, rotation=30, ha="right")
    ax.set_yticks(range(n), labels)
    bar = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04, label="pp")
    ticks = [t for t in (-50, -25, -10, -5, 0, 5, 10, 25, 50) if abs(t) <= bound]
    bar.set_ticks(ticks, labels=[f"{t:+d}" if t else "0" for t in ticks])
