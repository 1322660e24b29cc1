"""Evaluation harness: duplicate deals, per-agent rates with 95% confidence intervals, tables and a chart.

Duplicate deals. Deal i fixes a wall (``Game(seed=deal_seed(seed, i))``); the wall is played once
for every distinct seat rotation of the agents (``[A, B, C, D]`` is also played as ``[B, C, D, A]``,
...; a team line-up ``[A, B, A, B]`` has two distinct rotations). Luck of the wall is thus shared by
every agent, and the statistics pair by deal: for each deal and agent we average its results over
the seats it played in that deal, and the confidence intervals are over those per-deal averages
(t-interval, 95%). Pairwise differences between agents use the same per-deal pairing.

Each agent sees only its own observation ``{"observation", "action_mask"}`` (encoded by
``mjenv.observation``); the harness owns the ``Game`` and never hands it to an agent.

Metrics per agent: win rate (hands it won), deal-in rate (hands where its discard or robbed kong gave
the win), mean score (zero-sum points of the hand), draws (hands nobody won), and the mean time of
its decisions (calls with more than one legal action).

Rule sets whose room brings its own games (``RuleSet.own_agents`` with a ``play_deal``) play whole
episodes instead (``episode=``, one of the room's ``EPISODES``): each deal is one seed of the game's
walls played in every seat rotation, and each record holds the room's per-seat metrics (e.g. average
rank and placement points per game), with the same pairing by deal, 95% CIs and paired differences of
the room's chosen metrics (``PAIRED``).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mjenv.rules import Rules, get_rules

#: two-sided 95% t quantiles for df = 1..30 (beyond, the normal 1.96 is within 2%)
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip

#: fewest deals for which a paired difference is called significant
MIN_DEALS_FOR_TEST = 5

METRICS = ("win_rate", "deal_in_rate", "mean_score", "draw_rate")
METRIC_TITLES = {
    "win_rate": "win rate",
    "deal_in_rate": "deal-in rate",
    "mean_score": "mean score",
    "draw_rate": "draws",
}


def t975(df: int) -> float:
    """Two-sided 95% quantile of Student's t with ``df`` degrees of freedom (1.96 beyond 30)."""
    if df < 1:
        return float("nan")
    return _T975[df - 1] if df <= len(_T975) else 1.96


def mean_ci(values: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean and half-width of its 95% t-interval (nan half-width for fewer than two values)."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) == 0:
        return float("nan"), float("nan")
    if len(x) == 1:
        return float(x[0]), float("nan")
    return float(x.mean()), float(t975(len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))


def deal_seed(seed: int, deal: int) -> int:
    """Wall seed of deal ``deal`` of an evaluation seeded with ``seed`` (independent streams)."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1, dtype=np.uint64)[0] >> 1)


def agent_seed(seed: int, deal: int, rotation: int, seat: int) -> int:
    """Seed an agent gets for one hand, so every hand replays exactly whatever the worker layout."""
    return int(np.random.SeedSequence([seed, deal, rotation, seat, 1]).generate_state(1, dtype=np.uint32)[0])


def rotations(labels: Sequence[str]) -> list[tuple[int, ...]]:
    """Distinct seat rotations of a line-up: each is the agent index per seat.

    ``["a", "b", "c", "d"]`` gives four; ``["a", "b", "a", "b"]`` gives two (the other two repeat them).
    """
    out, seen = [], set()
    for k in range(4):
        idx = tuple((s + k) % 4 for s in range(4))
        key = tuple(labels[i] for i in idx)
        if key not in seen:
            seen.add(key)
            out.append(idx)
    return out


def play_hand(
    agents: Sequence[Any], game_seed: int, rules: str | Rules = "basic", spec=None, keep_game: list | None = None
) -> dict[str, Any]:
    """Play one hand; ``agents[s]`` plays seat s from its own observations.

    Args:
        agents: four agents with ``act(observation_dict) -> int``.
        game_seed: seed of the wall.
        rules: the rules.
        spec: an ``ObservationSpec`` to reuse (built when None).
        keep_game: when a list, the finished ``Game`` is appended to it (for the caller's own display).

    Returns:
        dict with ``winners``, ``deal_in`` (the last win's), ``deal_ins`` (every seat whose discard gave a
        win), ``scores`` (list of 4), ``draw``, ``steps``,
        ``decisions`` (per seat: calls with more than one legal action) and ``think_s`` (their seconds).

    Raises:
        ValueError: an agent returned an illegal action (the game names it and the legal ones).
    """
    from mjenv.game import Game
    from mjenv.observation import ObservationSpec

    rules = get_rules(rules)
    spec = spec or ObservationSpec(rules=rules)
    g = Game(rules=rules, seed=game_seed)
    decisions = [0] * 4
    think = [0.0] * 4
    steps = 0
    while not g.is_over:
        actions = {}
        for seat in g.acting_seats():
            mask = g.legal_action_mask(seat)
            obs = {"observation": spec.encode(g, seat), "action_mask": mask}
            t0 = time.perf_counter()
            a = agents[seat].act(obs)
            dt = time.perf_counter() - t0
            if int(mask.sum()) > 1:
                decisions[seat] += 1
                think[seat] += dt
            actions[seat] = int(a)
        g.step(actions)
        steps += 1
    if keep_game is not None:
        keep_game.append(g)
    return {
        "winners": [int(w) for w in g.winners],
        "deal_in": int(g.deal_in),
        # every seat whose discard (or robbed kong) gave a win: several where the hand plays on after a win
        "deal_ins": sorted({int(w["deal_in"]) for w in g.wins if w["deal_in"] >= 0} if g.wins
                           else ({int(g.deal_in)} if g.winners and g.deal_in >= 0 else set())),
        "scores": [int(x) for x in g.scores],
        "draw": not g.winners,
        "steps": steps,
        "decisions": decisions,
        "think_s": think,
    }


def _build(spec_or_agent, seed: int, rules: Rules):
    if isinstance(spec_or_agent, str):
        from mjenv.baselines.registry import make_agent

        return make_agent(spec_or_agent, seed=seed, rules=rules)
    spec_or_agent.reset(seed)
    return spec_or_agent


def room_games(rules: str | Rules):
    """The module of the room that plays the evaluation's games of ``rules`` itself (its ``play_deal``,
    ``EPISODES``, ``METRICS``, ``METRIC_TITLES``, ``PAIRED``), or None where the shared engine plays hands."""
    import importlib

    from mjenv.rulesets import ROOMS, room

    name = get_rules(rules).name
    if name not in ROOMS or room(name).own_agents is None:
        return None
    module = importlib.import_module(room(name).own_agents)
    return module if hasattr(module, "play_deal") else None


def play_deal(agents: Sequence[Any], labels: Sequence[str], deal: int, seed: int, rules: str | Rules,
              episode: str | None = None) -> list[dict]:
    """Play deal ``deal`` with every distinct rotation; one record per hand (labels per seat added), or per
    game (``episode``) where the rules' room plays its own games (:func:`room_games`)."""
    rules = get_rules(rules)
    games = room_games(rules)
    if games is not None:
        return games.play_deal(agents, labels, deal, seed, episode, lambda a, s: _build(a, s, rules))
    from mjenv.observation import ObservationSpec

    spec = ObservationSpec(rules=rules)
    out = []
    for r, idx in enumerate(rotations(labels)):
        seated = [_build(agents[i], agent_seed(seed, deal, r, s), rules) for s, i in enumerate(idx)]
        rec = play_hand(seated, deal_seed(seed, deal), rules, spec)
        rec.update(seed=int(seed), deal=deal, rotation=r, seats=[labels[i] for i in idx])
        out.append(rec)
    return out


_WORKER_STATE: dict[str, Any] = {}


def _worker_init(agents, labels, seed, rules, threads=1, episode=None) -> None:
    # keep one set of agents per worker process: flat MC and policies are costly to build
    _WORKER_STATE.update(agents=agents, labels=labels, seed=seed, rules=rules, episode=episode)
    set_threads(threads)


def set_threads(threads: int | None) -> None:
    """One evaluation process's torch threads: the agents built from specs get ``threads``
    (:func:`mjenv.baselines.registry.set_agent_threads`), and so does torch itself when it is loaded
    (never imported here for agents that do not need it). Workers each running torch's default
    (every core) contend with each other and inflate ``ms/decision``."""
    import sys

    from mjenv.baselines.registry import set_agent_threads

    set_agent_threads(threads)
    if threads is not None and "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(threads)


def _worker_deal(deal: int) -> list[dict]:
    s = _WORKER_STATE
    return play_deal(s["agents"], s["labels"], deal, s["seed"], s["rules"], s.get("episode"))


@dataclass
class Report:
    """Result of :func:`evaluate`.

    Attributes:
        labels: agent labels in line-up order (duplicates merged).
        stats: label -> metric -> (mean, 95% CI half-width); plus ``ms_per_decision``.
        pairwise: list of dicts (a, b, metric, diff, ci, significant) for win rate, a minus b.
        hands: every hand record.
        config: how it was run.
    """

    labels: list[str]
    stats: dict[str, dict[str, tuple[float, float]]]
    pairwise: list[dict[str, Any]]
    hands: list[dict[str, Any]] = field(repr=False)
    config: dict[str, Any] = field(default_factory=dict)

    def table(self) -> str:
        """Markdown table of the per-agent statistics and the paired differences."""
        if self.config.get("metric_titles"):
            return self._games_table()
        lines = [
            f"{self.config.get('num_deals')} duplicate deals x {self.config.get('rotations')} rotations = "
            f"{len(self.hands)} hands (rules {self.config.get('rules')!r}, seed {self.config.get('seed')}); "
            "mean ± 95% CI over per-deal averages",
            "",
            "| agent | seats/hand | win rate | deal-in rate | mean score | draws | ms/decision |",
            "|---|---|---|---|---|---|---|",
        ]
        for lab in self.labels:
            st = self.stats[lab]
            cells = [_fmt_pct(*st[m]) if m != "mean_score" else _fmt_num(*st[m]) for m in METRICS]
            lines.append(
                f"| {lab} | {st['seats_per_hand'][0]:g} | " + " | ".join(cells) + f" | {st['ms_per_decision'][0]:.1f} |"
            )
        seats = [self.stats[lab]["seats_per_hand"][0] for lab in self.labels]
        if any(n > 1 for n in seats):
            lines += [
                "",
                "Rates are per seat: an agent on k seats of a hand (seats/hand > 1, e.g. a team of 2) is "
                "averaged over them. A hand has one winner (two only on a shared discard; up to three where the "
                "hand plays on after a win), so otherwise its win rate is at most about 1/k (50% for a team of 2), "
                "and it wins a hand at about k times that rate.",
            ]
        deals = len({(h.get("seed", 0), h["deal"]) for h in self.hands})
        if self.pairwise:
            lines += ["", "| win rate difference | mean ± 95% CI | significant at 95% |", "|---|---|---|"]
            few = deals < MIN_DEALS_FOR_TEST
            for p in self.pairwise:
                verdict = f"not tested ({deals} < {MIN_DEALS_FOR_TEST} deals)" if few else (
                    "yes" if p["significant"] else "no")
                lines.append(
                    f"| {p['a']} − {p['b']} | {100 * p['diff']:+.1f} ± {_fmt_ci(100 * p['ci'], 1)} pp | {verdict} |"
                )
            if few and deals > 1:
                lines += ["", f"Not tested: a t-interval over fewer than {MIN_DEALS_FOR_TEST} deals is no evidence "
                          f"(a zero spread over 2 deals would look significant); play at least {MIN_DEALS_FOR_TEST}."]
        if deals == 1:
            lines += ["", "n/a: one deal gives no confidence interval; play at least 2 deals (5 to test a difference)."]
        return "\n".join(lines)

    def _games_table(self) -> str:
        """The table of a room's own games (``metric_titles`` in the config: title and ``pct``/``num``)."""
        cfg = self.config
        titles = cfg["metric_titles"]
        metrics = list(titles)
        deals = len({(h.get("seed", 0), h["deal"]) for h in self.hands})
        hands = sum(h.get("hands_played", 1) for h in self.hands)
        lines = [
            f"{cfg.get('num_deals')} duplicate deals x {cfg.get('rotations')} rotations = {len(self.hands)} games "
            f"of {cfg.get('episode')!r} ({hands} hands; rules {cfg.get('rules')!r}, seed {cfg.get('seed')}); "
            "mean ± 95% CI over per-deal averages",
            "",
            "| agent | seats/game | " + " | ".join(titles[m][0] for m in metrics) + " | ms/decision |",
            "|---|---|" + "---|" * len(metrics) + "---|",
        ]
        for lab in self.labels:
            st = self.stats[lab]
            fmt = {"pct": _fmt_pct, "num": _fmt_num, "mean": _fmt_mean}
            cells = [fmt[titles[m][1]](*st[m]) for m in metrics]
            lines.append(f"| {lab} | {st['seats_per_hand'][0]:g} | " + " | ".join(cells)
                         + f" | {st['ms_per_decision'][0]:.1f} |")
        if self.pairwise:
            few = deals < MIN_DEALS_FOR_TEST
            lines += ["", "| paired difference | mean ± 95% CI | significant at 95% |", "|---|---|---|"]
            for p in self.pairwise:
                verdict = f"not tested ({deals} < {MIN_DEALS_FOR_TEST} deals)" if few else (
                    "yes" if p["significant"] else "no (the CI includes 0)")
                title, kind = titles[p["metric"]]
                value = (f"{100 * p['diff']:+.1f} ± {_fmt_ci(100 * p['ci'], 1)} pp" if kind == "pct"
                         else f"{p['diff']:+.2f} ± {_fmt_ci(p['ci'], 2)}")
                lines.append(f"| {title}: {p['a']} − {p['b']} | {value} | {verdict} |")
        if deals == 1:
            lines += ["", "n/a: one deal gives no confidence interval; play at least 2 deals (5 to test a difference)."]
        return "\n".join(lines)

    def difference(self, a: str, b: str, metric: str = "win_rate") -> tuple[float, float]:
        """(mean, 95% CI half-width) of the paired difference of ``metric`` (win rate by default), ``a``
        minus ``b`` (two labels).

        Raises:
            ValueError: no paired difference between the two labels in this report.
        """
        for p in self.pairwise:
            if p["metric"] == metric and (p["a"], p["b"]) in ((a, b), (b, a)):
                return (p["diff"] if p["a"] == a else -p["diff"]), p["ci"]
        raise ValueError(f"no paired difference between {a!r} and {b!r}; labels: {self.labels}")

    def to_json(self) -> dict[str, Any]:
        return {
            "config": self.config,
            "labels": self.labels,
            "stats": {k: {m: list(v) for m, v in d.items()} for k, d in self.stats.items()},
            "pairwise": self.pairwise,
            "hands": self.hands,
        }

    def save(self, out_dir: str | os.PathLike, name: str = "results") -> dict[str, Path]:
        """Write ``name.md``, ``name.json`` and ``name.png`` into ``out_dir``; returns their paths."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        paths = {"md": out / f"{name}.md", "json": out / f"{name}.json", "png": out / f"{name}.png"}
        paths["md"].write_text(self.table() + "\n")
        paths["json"].write_text(json.dumps(self.to_json(), indent=1) + "\n")
        plot_report(self, paths["png"])
        return paths


def _fmt_ci(ci: float, digits: int) -> str:
    """A CI half-width, or ``n/a`` where there is none (one deal): never ``nan``."""
    return "n/a" if math.isnan(ci) else f"{ci:.{digits}f}"


def _fmt_pct(m: float, ci: float) -> str:
    return f"{100 * m:.1f}% ± {_fmt_ci(100 * ci, 1)}"


def _fmt_mean(m: float, ci: float) -> str:
    return f"{m:.2f} ± {_fmt_ci(ci, 2)}"


def _fmt_num(m: float, ci: float) -> str:
    return f"{round(m, 2) + 0.0:+.2f} ± {_fmt_ci(ci, 2)}"  # + 0.0: never "-0.00"


def summarize(hands: list[dict[str, Any]], labels: Sequence[str], metrics: Sequence[str] = METRICS,
              paired: Sequence[str] = ("win_rate",)) -> tuple[dict, list]:
    """Per-agent statistics paired by deal (see the module docstring) and paired differences.

    Args:
        hands: the records; a record with ``"metrics"`` (metric -> 4 per-seat values, a room's game)
            gives its values as they are, the others are hands of the shared engine.
        labels: the line-up's labels.
        metrics: the metrics to summarise (a room's ``METRICS`` for its games).
        paired: the metrics whose differences between each pair of agents are given.
    """
    METRICS = tuple(metrics)  # noqa: N806  (the shared hands' metrics by default)
    uniq = list(dict.fromkeys(labels))
    # a deal is (evaluation seed, deal index): reports of several seeds merge without clashes
    deals = sorted({(h.get("seed", 0), h["deal"]) for h in hands})
    per_deal = {lab: {m: [] for m in METRICS} for lab in uniq}
    decisions = dict.fromkeys(uniq, 0)
    think = dict.fromkeys(uniq, 0.0)
    seats = dict.fromkeys(uniq, 0)
    by_deal: dict[tuple[int, int], list[dict]] = {d: [] for d in deals}
    for h in hands:
        by_deal[(h.get("seed", 0), h["deal"])].append(h)
    for d in deals:
        acc = {lab: {m: [] for m in METRICS} for lab in uniq}
        for h in by_deal[d]:
            for seat, lab in enumerate(h["seats"]):
                decisions[lab] += h["decisions"][seat]
                think[lab] += h["think_s"][seat]
                seats[lab] += 1
                if "metrics" in h:  # a room's game: its per-seat values
                    for m in METRICS:
                        acc[lab][m].append(float(h["metrics"][m][seat]))
                    continue
                acc[lab]["win_rate"].append(float(seat in h["winners"]))
                if "deal_ins" in h:
                    acc[lab]["deal_in_rate"].append(float(seat in h["deal_ins"]))
                else:  # results written before "deal_ins" (one winning discard per hand)
                    acc[lab]["deal_in_rate"].append(float(h["deal_in"] == seat and bool(h["winners"])))
                acc[lab]["mean_score"].append(float(h["scores"][seat]))
                acc[lab]["draw_rate"].append(float(h["draw"]))
        for lab in uniq:
            for m in METRICS:
                per_deal[lab][m].append(float(np.mean(acc[lab][m])))
    stats = {}
    for lab in uniq:
        st = {m: mean_ci(per_deal[lab][m]) for m in METRICS}
        st["ms_per_decision"] = (1000 * think[lab] / max(decisions[lab], 1), float("nan"))
        st["seats_per_hand"] = (seats[lab] / max(len(hands), 1), float("nan"))
        stats[lab] = st
    pairwise = []
    for metric in paired:
        for i, a in enumerate(uniq):
            for b in uniq[i + 1 :]:
                diff = np.array(per_deal[a][metric]) - np.array(per_deal[b][metric])
                m, ci = mean_ci(diff)
                # too few deals make a t-interval meaningless (a zero spread over 2 deals is not evidence)
                significant = len(diff) >= MIN_DEALS_FOR_TEST and bool(abs(m) > ci)
                pairwise.append({"a": a, "b": b, "metric": metric, "diff": m, "ci": ci, "significant": significant})
    return stats, pairwise


def evaluate(
    agents: Sequence[Any],
    num_deals: int,
    seed: int = 0,
    *,
    rules: str | Rules = "basic",
    labels: Sequence[str] | None = None,
    workers: int = 1,
    threads: int | None = 1,
    use_ray: bool = False,
    ray_address: str | None = None,
    progress: bool = True,
    out_dir: str | os.PathLike | None = None,
    name: str = "results",
    episode: str | None = None,
) -> Report:
    """Evaluate agents on duplicate deals.

    Args:
        agents: four agents (or specs like ``"greedy"``, ``"flatmc:sp"``, ``"policy:PATH"``), one per
            seat of the base line-up; two means teams on opposite seats (``[a, b, a, b]``).
        num_deals: walls to play; each is played with every distinct rotation of the line-up.
        seed: seeds the walls and the agents (the same seed replays the same evaluation exactly).
        rules: rules preset or :class:`~mjenv.rules.Rules`.
        labels: names in the table (default: the specs, or the agents' ``name``; equal labels are one
            agent, e.g. a team).
        workers: processes (1 = in this process).
        threads: torch threads per worker for the agents built from specs (``policy:PATH``), and
            for torch itself in worker processes; None leaves torch's default. Agent objects keep
            their own setting (``PolicyAgent(threads=1)`` by default).
        use_ray: run the deals as Ray tasks (``ray_address`` or a local Ray started here).
        ray_address: address of a running Ray cluster (e.g. ``"auto"``); None starts a local one.
        progress: show a tqdm progress bar.
        out_dir: when given, write ``name.md``, ``name.json`` and ``name.png`` there.
        name: base name of the written files.
        episode: for rules whose room plays its own games (:func:`room_games`): the episode
            of each game (one of the room's ``EPISODES``; None: the first of them); None for the other
            rules.

    Returns:
        :class:`Report`.

    Raises:
        ValueError: a line-up that is not 2 or 4 agents, num_deals < 1, workers < 1, an unknown spec, an
            episode the rules do not have.
    """
    agents = list(agents)
    if len(agents) == 2:
        agents = [agents[0], agents[1], agents[0], agents[1]]
        if labels is not None and len(labels) == 2:
            labels = [labels[0], labels[1], labels[0], labels[1]]
    if len(agents) != 4:
        raise ValueError(f"give 4 agents (one per seat) or 2 (teams on opposite seats), got {len(agents)}")
    if not isinstance(num_deals, (int, np.integer)) or num_deals < 1:
        raise ValueError(f"num_deals must be a positive int, got {num_deals!r}")
    if not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive int, got {workers!r}")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    rules = get_rules(rules)
    games = room_games(rules)
    if games is None and episode is not None:
        raise ValueError(f"episode={episode!r}: rules {rules.name!r} are evaluated hand by hand (episodes are for "
                         "rule sets whose room plays whole games); leave it out")
    if games is not None:
        episode = games.EPISODES[0] if episode is None else episode
        if episode not in games.EPISODES:
            raise ValueError(f"episode must be one of {games.EPISODES} for rules {rules.name!r}, got {episode!r}")
    if labels is None:
        labels = [a if isinstance(a, str) else getattr(a, "name", type(a).__name__) for a in agents]
    labels = list(labels)
    if len(labels) != 4:
        raise ValueError(f"labels must name the 4 seats (or the 2 teams), got {labels!r}")
    # check every spec before any process starts, so a typo fails at once with the list of names
    for a in agents:
        if isinstance(a, str):
            from mjenv.baselines.registry import make_agent

            make_agent(a, seed=0, rules=rules)
    n_rot = len(rotations(labels))
    t0 = time.perf_counter()
    hands: list[dict] = []
    bar = _progress(num_deals * n_rot, progress, "hand" if games is None else "game")
    if use_ray:
        hands = _run_ray(agents, labels, num_deals, seed, rules, workers, ray_address, bar, threads, episode)
    elif workers == 1:
        from mjenv.baselines.registry import agent_threads, set_agent_threads

        previous = agent_threads()
        set_agent_threads(threads)  # for the agents built from specs here; torch's own setting stays
        try:
            for d in range(num_deals):
                recs = play_deal(agents, labels, d, seed, rules, episode)
                hands.extend(recs)
                bar.update(len(recs))
        finally:
            set_agent_threads(previous)
    else:
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor, as_completed

        ctx = mp.get_context("fork") if hasattr(os, "fork") else mp.get_context()
        with ProcessPoolExecutor(workers, mp_context=ctx, initializer=_worker_init,
                                 initargs=(agents, labels, seed, rules, threads, episode)) as pool:  # fmt: skip
            futures = [pool.submit(_worker_deal, d) for d in range(num_deals)]
            for f in as_completed(futures):
                recs = f.result()
                hands.extend(recs)
                bar.update(len(recs))
    bar.close()
    hands.sort(key=lambda h: (h["deal"], h["rotation"]))
    config = {
        "agents": [a if isinstance(a, str) else repr(a) for a in agents],
        "labels": labels,
        "num_deals": int(num_deals),
        "rotations": n_rot,
        "seed": int(seed),
        "rules": rules.name,
        "workers": int(workers),
        "threads": threads,
        "ray": bool(use_ray),
        "wall_s": round(time.perf_counter() - t0, 2),
    }
    if games is not None:
        config.update(episode=episode, metric_titles=dict(games.METRIC_TITLES), paired=list(games.PAIRED))
    stats, pairwise = summarize(hands, labels, **_summary_args(config))
    report = Report(list(dict.fromkeys(labels)), stats, pairwise, hands, config)
    if out_dir is not None:
        report.save(out_dir, name)
    return report


def merge_reports(paths: Sequence[str | os.PathLike]) -> Report:
    """One report from the JSON files of several evaluations of the same line-up (different seeds).

    Raises:
        ValueError: the files disagree on the labels or rules, or two files hold the same seed.
    """
    hands: list[dict] = []
    configs = []
    for p in paths:
        data = json.loads(Path(p).read_text())
        configs.append(data["config"])
        hands.extend(data["hands"])
    labels = configs[0]["labels"]
    for c in configs[1:]:
        if c["labels"] != labels or c["rules"] != configs[0]["rules"]:
            raise ValueError(f"cannot merge: line-ups {labels} / {c['labels']} or rules differ")
    # a merged report lists its seeds: merging it again flattens them
    seeds = [s for c in configs for s in (c["seed"] if isinstance(c["seed"], list) else [c["seed"]])]
    if len(set(seeds)) != len(seeds):
        dup = sorted({s for s in seeds if seeds.count(s) > 1})
        raise ValueError(f"cannot merge two evaluations with the same seed: {dup}")
    for c in configs[1:]:
        if c.get("episode") != configs[0].get("episode"):
            raise ValueError(f"cannot merge: episodes {configs[0].get('episode')!r} / {c.get('episode')!r} differ")
    hands.sort(key=lambda h: (h.get("seed", 0), h["deal"], h["rotation"]))
    stats, pairwise = summarize(hands, labels, **_summary_args(configs[0]))
    config = dict(configs[0])
    config.update(
        num_deals=sum(c["num_deals"] for c in configs),
        seed=seeds if len(seeds) > 1 else seeds[0],
        wall_s=round(sum(c["wall_s"] for c in configs), 2),
        merged=[str(p) for p in paths],
    )
    return Report(list(dict.fromkeys(labels)), stats, pairwise, hands, config)


def _summary_args(config: dict[str, Any]) -> dict[str, Any]:
    """:func:`summarize`'s metrics of a report's config: a room's (``metric_titles``, ``paired``) or the shared."""
    if config.get("metric_titles"):
        return {"metrics": tuple(config["metric_titles"]), "paired": tuple(config.get("paired", ()))}
    return {}


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool, unit: str = "hand"):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, unit=unit, desc="evaluate", dynamic_ncols=True)


def _threaded_deal(agents, labels, deal, seed, rules, threads, episode=None) -> list[dict]:
    set_threads(threads)  # a Ray worker process, like a pool worker
    return play_deal(agents, labels, deal, seed, rules, episode)


def _run_ray(agents, labels, num_deals, seed, rules, workers, address, bar, threads=1, episode=None) -> list[dict]:
    try:
        import ray
    except ImportError as exc:
        raise ValueError("--ray needs Ray: pip install 'mjenv[ray]'") from exc
    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(num_cpus=1)(_threaded_deal)
        pending = [remote.remote(agents, labels, d, seed, rules, threads, episode) for d in range(num_deals)]
        hands = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            recs = ray.get(done[0])
            hands.extend(recs)
            bar.update(len(recs))
        return hands
    finally:
        if started:
            ray.shutdown()


def plot_report(report: Report, path: str | os.PathLike) -> Path:
    """Bar chart of win rate, deal-in rate, draws (percent) and mean score per agent with 95% CIs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = report.labels
    n = len(labels)
    colors = plt.get_cmap("tab10")(np.arange(n) % 10)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), gridspec_kw={"width_ratios": [3, 1.3]})
    ax = axes[0]
    metrics = ("win_rate", "deal_in_rate", "draw_rate")
    width = 0.8 / n
    x = np.arange(len(metrics))
    for i, lab in enumerate(labels):
        means = [100 * report.stats[lab][m][0] for m in metrics]
        cis = [100 * np.nan_to_num(report.stats[lab][m][1]) for m in metrics]
        pos = x - 0.4 + width * (i + 0.5)
        bars = ax.bar(pos, means, width, yerr=cis, capsize=3, color=colors[i], label=lab, edgecolor="black", lw=0.5)
        for b, v, c in zip(bars, means, cis):
            # the value just above the error bar, so it never sits on the bar's own colour
            ax.annotate(f"{v:.1f}", (b.get_x() + b.get_width() / 2, v + c), xytext=(0, 2), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7)  # fmt: skip
    ax.set_xticks(x, [METRIC_TITLES[m] for m in metrics])
    ax.set_ylabel("% of hands played")
    ax.set_ylim(0, max(5.0, ax.get_ylim()[1] * 1.25))
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    # the legend goes under the axes: long specs (flatmc:sp,pruning=off,...) never cover a bar
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=min(n, 2), frameon=False)
    win_pairs = [p for p in report.pairwise if p["metric"] == "win_rate"]
    if win_pairs and len(win_pairs) <= 3:
        lines = [
            f"{_short(p['a'], 22)} − {_short(p['b'], 22)}: {100 * p['diff']:+.1f} ± {_fmt_ci(100 * p['ci'], 1)} pp"
            + (" *" if p["significant"] else "")
            for p in win_pairs
        ]
        ax.text(0.99, 0.97, "win-rate difference (95% CI, * significant)\n" + "\n".join(lines),
                transform=ax.transAxes, ha="right", va="top", fontsize=7.5,
                bbox={"boxstyle": "round", "fc": "white", "ec": "0.7"})  # fmt: skip
    ax2 = axes[1]
    means = [report.stats[lab]["mean_score"][0] for lab in labels]
    cis = [np.nan_to_num(report.stats[lab]["mean_score"][1]) for lab in labels]
    ax2.bar(np.arange(n), means, yerr=cis, capsize=3, color=colors, edgecolor="black", lw=0.5)
    ax2.axhline(0, color="black", lw=0.8)
    ax2.set_xticks(np.arange(n), [_short(lab) for lab in labels], rotation=30, ha="right", fontsize=8)
    ax2.set_title("mean score per hand" + (" (thousands)" if report.config.get("episode") else ""), fontsize=10)
    ax2.grid(axis="y", alpha=0.3)
    ax2.set_axisbelow(True)
    cfg = report.config
    played = (f"{len(report.hands)} games of {cfg['episode']!r}" if cfg.get("episode")
              else f"{len(report.hands)} hands")
    fig.suptitle(
        f"{cfg.get('num_deals')} duplicate deals × {cfg.get('rotations')} rotations = {played} "
        f"(rules {cfg.get('rules')}); error bars: 95% CI over deals",
        fontsize=10,
    )
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _short(label: str, width: int = 18) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def evaluate_vs_greedy(policy_path: str, *, hands: int, seed: int, rules: str = "basic",
                       out_dir: str | Path | None = None, workers: int = 1, episode: str | None = None) -> dict:
    """The policy seated with three GreedyAgents on duplicate deals, through the evaluation harness.

    Args:
        policy_path: a policy checkpoint (``policy:PATH`` for the harness).
        hands: duplicate deals; each is played in the four seat rotations (4 * hands hands).
        seed: the harness's seed (walls and agents).
        out_dir: when given, the harness writes its markdown, JSON and PNG there.
        episode: under rules whose room plays whole games, the games' length (:func:`evaluate`'s; None: the
            room's first).

    Returns:
        ``{"deals", "hands", "policy_win_rate", "policy_win_rate_ci", "greedy_win_rate" (mean greedy
        seat), "greedy_win_rate_ci", "policy_mean_score", "greedy_mean_score", "win_rate_diff",
        "win_rate_diff_ci", "table"}``.
    """
    report = evaluate(
        [f"policy:{policy_path}", "greedy", "greedy", "greedy"], hands, seed, rules=rules,
        labels=["policy", "greedy", "greedy", "greedy"], workers=workers, progress=False,
        out_dir=None if out_dir is None else str(out_dir), name="policy_vs_greedy", episode=episode,
    )
    pol, gre = report.stats["policy"], report.stats["greedy"]
    diff, ci = report.difference("policy", "greedy")
    return {
        "deals": hands,
        "hands": len(report.hands),
        "policy_win_rate": pol["win_rate"][0],
        "policy_win_rate_ci": pol["win_rate"][1],
        "greedy_win_rate": gre["win_rate"][0],
        "greedy_win_rate_ci": gre["win_rate"][1],
        "policy_mean_score": pol["mean_score"][0],
        "greedy_mean_score": gre["mean_score"][0],
        "win_rate_diff": diff,
        "win_rate_diff_ci": ci,
        "table": report.table(),
    }
