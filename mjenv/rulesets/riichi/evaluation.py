"""Riichi games for the evaluation harness (``mjenv.baselines.evaluate`` with ``rules="riichi"``).

A deal is one seed of :class:`~mjenv.rulesets.riichi.env.RiichiTable`: the game's walls are all drawn
from it in order, whatever the players do, so every seat rotation of a deal plays the same sequence of
walls (hand k of every rotation that reaches it has the same wall). Each rotation is one whole episode
(``episode="hanchan"``, ``"east"`` or ``"hand"``), and its record gives each seat's metrics:

==============  =====================================================================================
metric          per seat, in one game
==============  =====================================================================================
rank            final placement, 1 (first) .. 4 (ties to the seat nearer the first dealer)
points          placement points: (final score - 30,000) / 1000 + uma (+20 / +10 / -10 / -20), oka
                (+20) to the first (Tenhou); they sum to zero
score           final score minus the 25,000 start, in thousands (leftover sticks to the first)
mean_score      ``score`` per hand played (thousands of points per hand)
win_rate        hands won / hands played
deal_in_rate    hands in which its discard (or robbed kan) was won on / hands played
draw_rate       hands that ended without a win / hands played
==============  =====================================================================================

The harness averages each metric per deal over the seats an agent played (duplicate deals) and gives
the 95% t-interval over deals; the paired differences between agents are those of ``rank``, ``points``
and ``win_rate``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The episodes an evaluation may play (``mjenv.parallel_env(rules="riichi", episode=...)``).
EPISODES = ("hanchan", "east", "hand")
#: Metrics of a record, in table order.
METRICS = ("rank", "points", "score", "mean_score", "win_rate", "deal_in_rate", "draw_rate")
#: Column titles and formats (``pct``: a rate shown in percent; ``num``: a signed number; ``mean``: a number).
METRIC_TITLES = {
    "rank": ("avg rank", "mean"), "points": ("points/game", "num"), "score": ("score/game (k)", "num"),
    "mean_score": ("score/hand (k)", "num"), "win_rate": ("win rate", "pct"),
    "deal_in_rate": ("deal-in rate", "pct"), "draw_rate": ("draws", "pct"),
}  # fmt: skip
#: The metrics whose paired differences between agents are reported.
PAIRED = ("rank", "points", "win_rate")
#: ``mjenv tournament --rules riichi``'s line-up and episode (the default's, unless ``--episode`` says otherwise):
#: every baseline, flat MC at two budgets (its ``flatmc:sp`` is the single-player model it always plays)
TOURNAMENT_AGENTS = ("random", "greedy", "flatmc:sims=100", "flatmc:sims=400")
TOURNAMENT_EPISODE = "east"


def play_game(agents: Sequence[Any], game_seed: int, episode: str = "hanchan", engine: str = "auto") -> dict[str, Any]:
    """One episode with ``agents[s]`` in seat s, each acting from its own observation only.

    Args:
        agents: four agents with ``act({"observation", "action_mask"}) -> int``; an agent is asked only
            when it has more than one legal action.
        game_seed: the table's seed (all the walls of the game).
        episode: ``"hanchan"``, ``"east"`` or ``"hand"``.
        engine: the table's engine (``"auto"``: the compiled one where it is built; ``"python"``; ``"compiled"``):
            the same game, observations and record on either.

    Returns:
        ``{"metrics": {metric: [4 floats]}, "hands_played", "final_scores", "scores" (final minus start,
        points), "steps", "decisions" (per
        seat: calls with a choice), "think_s" (their seconds)}``.

    Raises:
        ValueError: an unknown episode, or an agent's illegal action (naming it and the legal ones).
    """
    from mjenv.rulesets.riichi.env import new_table
    from mjenv.rulesets.riichi.settlement import START_SCORE, placement

    if episode not in EPISODES:
        raise ValueError(f"episode must be one of {EPISODES} for rules 'riichi', got {episode!r}")
    table = new_table(engine, episode=episode, illegal_action="raise")
    table.reset(seed=int(game_seed))
    decisions, think, steps = [0] * 4, [0.0] * 4, 0
    hands, wins, deal_ins, draws = 0, [0] * 4, [0] * 4, 0
    while not table.over:
        actions = {}
        for s in sorted(table.acting):
            mask = table.masks[s]
            legal = np.flatnonzero(mask)
            if len(legal) == 1:
                actions[s] = int(legal[0])
                continue
            t0 = time.perf_counter()
            actions[s] = int(agents[s].act(table.observation(s)))
            think[s] += time.perf_counter() - t0
            decisions[s] += 1
        # a win out of a window (a discard's, or a robbed kan's) is a ron on the seat before the answering ones
        window_from = (table.answering()[0] - 1) % 4 if table.phase in ("claim", "chankan") else None
        table.step(actions)
        steps += 1
        end = table.hand_end
        if end is not None:
            hands += 1
            if end["result"] != "agari":
                draws += 1
                continue
            for w in end["winners"]:
                wins[w] += 1
            if window_from is not None:
                deal_ins[window_from] += 1  # a double ron is one deal-in
    final_scores, final_points = table._final()
    order = placement(final_scores)
    score = [(x - START_SCORE) / 1000 for x in final_scores]
    metrics = {
        "rank": [float(order.index(s) + 1) for s in range(4)],
        "points": [float(p) for p in final_points],
        "score": score,
        "mean_score": [x / hands for x in score],
        "win_rate": [w / hands for w in wins],
        "deal_in_rate": [d / hands for d in deal_ins],
        "draw_rate": [draws / hands] * 4,
    }
    return {"metrics": metrics, "hands_played": hands, "final_scores": [int(x) for x in final_scores],
            "scores": [int(x) - START_SCORE for x in final_scores],  # the game's zero-sum points, as a hand's
            "steps": steps, "decisions": decisions, "think_s": think}


def play_deal(agents: Sequence[Any], labels: Sequence[str], deal: int, seed: int, episode: str | None,
              build) -> list[dict]:
    """Deal ``deal`` played in every distinct seat rotation of the line-up; one record per game.

    Args:
        agents: the line-up (agents or specs), one per seat.
        labels: their labels.
        deal: the deal's index; seed: the evaluation's seed (walls: ``deal_seed(seed, deal)``).
        episode: the episode (None: ``"hanchan"``).
        build: ``build(agent_or_spec, agent_seed)`` -> a seated agent (the harness's).

    Returns:
        records with ``seed``, ``deal``, ``rotation``, ``seats`` (labels per seat) added.
    """
    from mjenv.baselines.evaluate import agent_seed, deal_seed, rotations

    out = []
    for r, idx in enumerate(rotations(labels)):
        seated = [build(agents[i], agent_seed(seed, deal, r, s)) for s, i in enumerate(idx)]
        rec = play_game(seated, deal_seed(seed, deal), episode or "hanchan")
        rec.update(seed=int(seed), deal=deal, rotation=r, seats=[labels[i] for i in idx], episode=episode or "hanchan")
        out.append(rec)
    return out
