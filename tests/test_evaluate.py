"""Evaluation harness: duplicate-deal rotations, paired statistics, outputs, parallel and Ray runs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from mjenv.baselines import evaluate
from mjenv.baselines.evaluate import Report, mean_ci, merge_reports, rotations, summarize
from mjenv.baselines.registry import make_agent, parse_flatmc_options


def test_rotations_of_four_agents_and_of_two_teams():
    assert rotations(["a", "b", "c", "d"]) == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]
    # a team line-up repeats itself after two rotations: each team sits at each pair of seats once
    assert rotations(["a", "b", "a", "b"]) == [(0, 1, 2, 3), (1, 2, 3, 0)]
    assert rotations(["g", "r", "r", "r"]) == [(0, 1, 2, 3), (1, 2, 3, 0), (2, 3, 0, 1), (3, 0, 1, 2)]


def test_mean_ci_is_a_t_interval():
    m, ci = mean_ci([0.0, 1.0, 0.0, 1.0])
    # sd = 0.57735, t_0.975(3) = 3.182, n = 4
    assert m == 0.5 and ci == pytest.approx(3.182 * 0.57735 / 2, rel=1e-4)
    assert math.isnan(mean_ci([1.0])[1])


def _hand(deal, rotation, seats, winners, deal_in, scores):
    return {"seed": 0, "deal": deal, "rotation": rotation, "seats": seats, "winners": winners, "deal_in": deal_in,
            "scores": scores, "draw": not winners, "decisions": [1, 1, 1, 1], "think_s": [0.001] * 4}  # fmt: skip


def test_summarize_pairs_by_deal_and_averages_over_seats():
    ab = ["A", "B", "A", "B"]
    ba = ["B", "A", "B", "A"]
    hands = [
        # deal 0: A wins once on B's discard, then nobody wins
        _hand(0, 0, ab, [0], 1, [3, -3, 0, 0]),
        _hand(0, 1, ba, [], -1, [0, 0, 0, 0]),
        # deal 1: B self-draws, then A self-draws
        _hand(1, 0, ab, [1], -1, [-1, 3, -1, -1]),
        _hand(1, 1, ba, [1], -1, [-1, 3, -1, -1]),
    ]
    stats, pairwise = summarize(hands, ab)
    # A per deal: deal 0 won 1 of its 4 seat-hands = 0.25, deal 1 won 1 of 4 = 0.25
    assert stats["A"]["win_rate"][0] == pytest.approx(0.25)
    assert stats["B"]["win_rate"][0] == pytest.approx((0.0 + 0.25) / 2)
    assert stats["B"]["deal_in_rate"][0] == pytest.approx((0.25 + 0.0) / 2)
    assert stats["A"]["draw_rate"][0] == pytest.approx((0.5 + 0.0) / 2)
    # A's scores: deal 0 (3 + 0 + 0 + 0) / 4, deal 1 (-1 - 1 + 3 - 1) / 4
    assert stats["A"]["mean_score"][0] == pytest.approx((0.75 + 0.0) / 2)
    assert pairwise[0]["a"] == "A" and pairwise[0]["diff"] == pytest.approx(0.125)
    assert not pairwise[0]["significant"]  # two deals are too few for a test
    # Report.difference reads the pair in either order, with the sign of the order asked for
    report = Report(["A", "B"], stats, pairwise, hands)
    diff, ci = report.difference("B", "A")
    assert diff == pytest.approx(-0.125) and ci == pairwise[0]["ci"]
    assert report.difference("A", "B")[0] == pytest.approx(0.125)
    with pytest.raises(ValueError, match="no paired difference"):
        report.difference("A", "C")


def test_tiny_evaluation_runs_end_to_end_and_writes_table_json_and_chart(tmp_path):
    report = evaluate(["greedy", "random"], num_deals=2, seed=3, progress=False, out_dir=tmp_path, name="t")
    assert len(report.hands) == 2 * 2  # two deals, two distinct rotations of a team line-up
    assert report.labels == ["greedy", "random"]
    md = (tmp_path / "t.md").read_text()
    assert "| greedy |" in md and "win rate" in md
    data = json.loads((tmp_path / "t.json").read_text())
    assert data["config"]["num_deals"] == 2 and len(data["hands"]) == 4
    png = (tmp_path / "t.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    # duplicate deals: both rotations of a deal share the wall, so the team that wins differs only by play
    for h in report.hands:
        assert h["seats"] in (["greedy", "random", "greedy", "random"], ["random", "greedy", "random", "greedy"])


def test_evaluation_is_reproducible_and_independent_of_the_worker_count():
    a = evaluate(["random", "greedy", "random", "random"], num_deals=2, seed=5, progress=False)
    b = evaluate(["random", "greedy", "random", "random"], num_deals=2, seed=5, progress=False, workers=2)
    strip = [{k: v for k, v in h.items() if k != "think_s"} for h in a.hands]
    assert strip == [{k: v for k, v in h.items() if k != "think_s"} for h in b.hands]
    c = evaluate(["random", "greedy", "random", "random"], num_deals=2, seed=6, progress=False)
    assert [h["scores"] for h in c.hands] != [h["scores"] for h in a.hands]


def test_merge_reports_of_two_seeds(tmp_path):
    evaluate(["greedy", "random"], 1, seed=1, progress=False, out_dir=tmp_path, name="s1")
    evaluate(["greedy", "random"], 1, seed=2, progress=False, out_dir=tmp_path, name="s2")
    merged = merge_reports([tmp_path / "s1.json", tmp_path / "s2.json"])
    assert merged.config["num_deals"] == 2 and len(merged.hands) == 4
    with pytest.raises(ValueError, match="same seed"):
        merge_reports([tmp_path / "s1.json", tmp_path / "s1.json"])
    # a merged report merges again with a third seed (its seed list is flattened), not with its own seeds
    merged.save(tmp_path, "m12")
    evaluate(["greedy", "random"], 1, seed=3, progress=False, out_dir=tmp_path, name="s3")
    again = merge_reports([tmp_path / "m12.json", tmp_path / "s3.json"])
    assert again.config["seed"] == [1, 2, 3] and again.config["num_deals"] == 3 and len(again.hands) == 6
    with pytest.raises(ValueError, match=r"same seed: \[2\]"):
        merge_reports([tmp_path / "m12.json", tmp_path / "s2.json"])


def test_ray_runs_a_small_local_evaluation():
    pytest.importorskip("ray", reason="the optional 'ray' extra is not installed: pip install -e '.[ray]' "
                                      "(CI installs it)")
    report = evaluate(["greedy", "random"], num_deals=1, seed=3, progress=False, use_ray=True, workers=1)
    local = evaluate(["greedy", "random"], num_deals=1, seed=3, progress=False)
    assert [h["scores"] for h in report.hands] == [h["scores"] for h in local.hands]
    assert report.config["ray"] is True


def test_bad_line_ups_and_specs_are_refused_clearly():
    with pytest.raises(ValueError, match="give 4 agents"):
        evaluate(["greedy", "random", "random"], 1, progress=False)
    with pytest.raises(ValueError, match="unknown agent 'bogus'.*known agents: flatmc, greedy"):
        evaluate(["bogus", "random"], 1, progress=False)
    with pytest.raises(ValueError, match="num_deals"):
        evaluate(["greedy", "random"], 0, progress=False)
    with pytest.raises(ValueError, match="bad flatmc option 'sims=x'"):
        make_agent("flatmc:sims=x")
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("greedy:3")
    with pytest.raises(ValueError, match="policy:PATH"):
        make_agent("policy")


def test_policy_spec_gives_a_clear_error_for_a_missing_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="no checkpoint file at"):
        make_agent(f"policy:{tmp_path / 'missing.pt'}")


def test_flatmc_specs_parse_into_agent_options():
    assert parse_flatmc_options("sp") == {"model": "sp"}
    opts = parse_flatmc_options("sims=300,pruning=off,twice=original,time=0.2,rounds=4")
    assert opts == {"simulations": 300, "pruning": False, "discard_twice": "original", "time_limit": 0.2,
                    "max_rounds": 4}  # fmt: skip
    agent = make_agent("flatmc:sp,sims=300", seed=2)
    assert (agent.model, agent.simulations, agent.seed) == ("sp", 300, 2)


def test_time_limit_stops_flatmc_early():
    from mjenv.baselines.flatmc import flat_monte_carlo

    hand = np.r_[[3] * 4, [1], [0] * 22].astype(np.int16)  # 111s 222s 333s 444s 5s: 13 tiles
    hands = np.stack([hand, hand])
    kb = 4 - hand
    # a deadline already passed: exactly one (first) iteration runs whatever the budget
    res = flat_monte_carlo(hands, np.array([4, 4]), np.zeros(2, np.int64), kb, 2, 10**6, np.random.default_rng(0),
                           deadline=0.0)  # fmt: skip
    assert res.iterations == 1 and res.total == 600


def test_sichuan_deal_ins_count_every_winning_discard_of_a_bloody_battle():
    """Two seats win on discards of two different seats in one hand: both discarders dealt in."""
    ab = ["A", "B", "A", "B"]
    h = _hand(0, 0, ab, [0, 2], 3, [4, -4, 4, -4])  # the last win: seat 3 dealt in
    h["deal_ins"] = [1, 3]  # the first win was on seat 1's discard
    stats, _ = summarize([h], ab)
    assert stats["B"]["deal_in_rate"][0] == pytest.approx(1.0)  # both B seats dealt in
    assert stats["A"]["deal_in_rate"][0] == pytest.approx(0.0)
    # a hand written before "deal_ins" falls back to the one winning discard
    del h["deal_ins"]
    assert summarize([h], ab)[0]["B"]["deal_in_rate"][0] == pytest.approx(0.5)


def test_played_sichuan_hands_record_each_win_s_discarder():
    from mjenv.baselines import GreedyAgent, RandomAgent
    from mjenv.baselines.evaluate import play_hand

    games: list = []
    several = 0
    for seed in range(12):
        agents = [GreedyAgent(seed=seed, rules="sichuan"), RandomAgent(seed=seed, rules="sichuan")] * 2
        h = play_hand(agents, game_seed=seed, rules="sichuan", keep_game=games)
        g = games[-1]
        assert h["deal_ins"] == sorted({w["deal_in"] for w in g.wins if w["deal_in"] >= 0})
        several += len(h["winners"]) > 1
    assert several > 0  # the bloody battle really had hands with several winners
