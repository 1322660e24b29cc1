"""``mjenv eval --league``: every pair on the same deals, openskill ratings with CIs, table and PNG."""

from __future__ import annotations

import json

import pytest
from mjenv.baselines.evaluate import Report
from mjenv.baselines.league import LeagueReport, deal_games, league, rate_games

from mjenv import cli


def _hand(deal: int, seats: list[str], scores: list[int], winners: list[int]) -> dict:
    return {"deal": deal, "seats": seats, "scores": scores, "winners": winners}


def test_deal_games_rank_the_teams_by_their_points_over_the_deal():
    ab, ba = ["a", "b", "a", "b"], ["b", "a", "b", "a"]
    hands = [
        _hand(0, ab, [3, -3, 0, 0], [0]), _hand(0, ba, [0, 0, -1, 1], [3]),  # a: 3 + 1, b: -3 - 1
        _hand(1, ab, [0, 0, 0, 0], []), _hand(1, ba, [0, 0, 0, 0], []),  # a tie
        _hand(2, ab, [-1, 3, -1, -1], [1]), _hand(2, ba, [0, 0, 0, 0], []),  # b ahead
    ]
    report = Report(["a", "b"], {}, [], hands)
    assert deal_games(report, "a", "b") == [(0, [1, 2]), (1, [1, 1]), (2, [2, 1])]
    assert deal_games(report, "b", "a") == [(0, [2, 1]), (1, [1, 1]), (2, [1, 2])]


def test_ratings_follow_the_games():
    agents = ["strong", "middle", "weak"]
    games = [("strong", "middle", [1, 2]), ("middle", "weak", [1, 2]), ("strong", "weak", [1, 2])] * 10
    r = rate_games(agents, games)
    assert r["strong"]["mu"] > r["middle"]["mu"] > r["weak"]["mu"]
    for a in agents:
        assert r[a]["games"] == 20
        assert r[a]["low"] == pytest.approx(r[a]["mu"] - 1.96 * r[a]["sigma"])
        assert r[a]["high"] == pytest.approx(r[a]["mu"] + 1.96 * r[a]["sigma"])
        assert r[a]["sigma"] < 25 / 3  # more games, less uncertainty
    tied = rate_games(["x", "y", "z"], [("x", "y", [1, 1])] * 5)
    assert tied["x"]["mu"] == pytest.approx(tied["y"]["mu"]) and tied["z"]["games"] == 0


@pytest.mark.smoke
def test_league_of_three_writes_table_json_and_png(tmp_path):
    report = league(["random", "greedy", "flatmc:sims=50"], 2, seed=4, progress=False, out_dir=tmp_path)
    assert set(report.pairs) == {("random", "greedy"), ("random", "flatmc:sims=50"), ("greedy", "flatmc:sims=50")}
    # every pair played the same walls
    walls = {pair: sorted({(h["seed"], h["deal"]) for h in r.hands}) for pair, r in report.pairs.items()}
    assert len({tuple(w) for w in walls.values()}) == 1
    for a in report.agents:
        assert report.ratings[a]["games"] == 2 * 2  # two opponents, two deals each
    assert report.ranking()[-1] == "random"  # random never wins a deal against greedy or flat MC here
    table = (tmp_path / "league.md").read_text()
    assert "| rank | agent | rating (95% CI)" in table and "No difference is tested" in table
    saved = json.loads((tmp_path / "league.json").read_text())
    assert saved["config"] == {"deals": 2, "seed": 4, "rules": "basic"}
    assert (tmp_path / "league.png").stat().st_size > 5000
    m, ci = report.difference("greedy", "random")
    assert report.difference("random", "greedy") == (-m, ci)
    # read back from its JSON: the same table (what docs/LEAGUE.md's figure is redrawn from)
    again = LeagueReport.from_json(json.loads(json.dumps(report.to_json())))
    assert again.table() == report.table()
    assert again.difference("random", "greedy") == (-m, ci)


def test_league_refuses_bad_line_ups():
    with pytest.raises(ValueError, match="at least 3 agents"):
        league(["random", "greedy"], 2, progress=False)
    with pytest.raises(ValueError, match="once"):
        league(["random", "greedy", "random"], 2, progress=False)
    with pytest.raises(ValueError, match="deals must be an int >= 1"):
        league(["random", "greedy", "flatmc"], 0, progress=False)
    with pytest.raises(ValueError):
        league(["random", "greedy", "nonsense"], 1, progress=False)


def test_eval_league_command(tmp_path, capsys):
    assert cli.main(["eval", "--league", "random", "greedy", "flatmc:sims=50", "--deals", "1", "--no-progress",
                     "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "League of 3 agents" in out and f"written: {tmp_path}/league.md" in out
    assert cli.main(["eval", "greedy", "--league", "random", "greedy", "flatmc"]) == 2
    assert "after --league only" in capsys.readouterr().err


def test_a_league_of_riichi_games_plays_the_episode_asked_and_counts_their_hands(tmp_path, capsys):
    """Under rules whose room plays whole games, ``--episode`` reaches every pair's match (the table and JSON say
    it), and the table's win rate is the agent's wins over the hands of its games (a game's record holds many
    hands and its per-hand win rate, no per-hand winners)."""
    assert cli.main(["eval", "--league", "greedy", "random", "flatmc:sims=20", "--rules", "riichi", "--episode",
                     "east", "--deals", "2", "--no-progress", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "one 'east' game per seating" in out and "| rank | agent |" in out
    saved = json.loads((tmp_path / "league.json").read_text())
    assert saved["config"]["episode"] == "east"
    report = league(["greedy", "random", "flatmc:sims=20"], 2, rules="riichi", episode="east", progress=False)
    for pair in report.pairs.values():
        assert pair.config["episode"] == "east" and all(h["hands_played"] >= 4 for h in pair.hands)
    for agent in report.agents:
        wins = hands = 0
        for pair in report.pairs.values():
            for h in pair.hands:
                for s, lab in enumerate(h["seats"]):
                    if lab == agent:
                        wins += h["metrics"]["win_rate"][s] * h["hands_played"]
                        hands += h["hands_played"]
        assert report._overall(agent)[0] == pytest.approx(wins / hands)
    assert report._overall("random")[0] == 0.0 < report._overall("greedy")[0]
    assert LeagueReport.from_json(json.loads(json.dumps(report.to_json()))).table() == report.table()
