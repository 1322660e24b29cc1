"""The benchmarks' random legal-action picker draws only legal actions, uniformly among each row's own."""

from __future__ import annotations

import re

import numpy as np
import pytest

from benchmarks._timing import uniform_legal


def test_uniform_legal_picks_only_legal_actions_of_each_row():
    rng = np.random.default_rng(0)
    masks = (rng.random((50, 4, 85)) < 0.1).astype(np.int8)
    masks[..., 84] = 1  # every row has a legal action (the last one, so the first rows' picks are not index 0)
    for _ in range(20):
        acts = uniform_legal(masks, rng)
        assert acts.shape == (50, 4)
        assert np.take_along_axis(masks, acts[..., None], axis=2).all()


def test_uniform_legal_is_uniform_among_a_rows_legal_actions():
    rng = np.random.default_rng(1)
    masks = np.zeros((2, 4, 85), dtype=np.int8)
    masks[:, :, 0] = 1
    masks[0, 1, [3, 7, 9, 60]] = 1  # row (0, 1): 5 legal actions
    counts = np.zeros(85)
    draws = 20000
    for _ in range(draws):
        counts[uniform_legal(masks, rng)[0, 1]] += 1
    assert set(np.flatnonzero(counts)) == {0, 3, 7, 9, 60}
    # each has probability 1/5: the counts are within 5 standard deviations of draws / 5
    sd = np.sqrt(draws * 0.2 * 0.8)
    assert np.abs(counts[[0, 3, 7, 9, 60]] - draws / 5).max() < 5 * sd
    assert (uniform_legal(masks, rng)[[1], :] == 0).all()  # a row with one legal action gets it


@pytest.mark.parametrize("dtype", [np.int8, bool])
def test_uniform_legal_reads_int8_and_bool_masks(dtype):
    masks = np.zeros((3, 85), dtype=dtype)
    masks[0, 5] = masks[1, 80] = masks[2, 0] = 1
    assert uniform_legal(masks, np.random.default_rng(2)).tolist() == [5, 80, 0]


@pytest.mark.parametrize("rules", ["basic", "riichi"])
def test_vector_threads_times_either_rule_set(rules):
    """The thread benchmark a many-core machine runs: rates for both engines; the critical path only where the engine
    keeps thread statistics (the shared engine's batch)."""
    from benchmarks.vector_threads import run

    r = run(4, 2, 5, 0, rules)
    assert r["wall"] > 0 and r["cpu"] > 0
    assert (r["critical"] != r["critical"]) == (rules == "riichi")  # NaN: not measured


def test_riichi_speed_ratio_ranges_and_plot(tmp_path):
    """Each configuration's ratio to RiichiEnv is taken within a pass, and its range spans the passes."""
    from benchmarks.riichi_speed import OPTIONS, TARGETS, plot, ratio_ranges

    ours, peer, _ = TARGETS[1]
    label = OPTIONS[0][0]
    passes = [{peer: (100.0, 88.0), ours: (150.0, 150.0), f"{ours} {label}": (300.0, 90.0)},
              {peer: (200.0, 88.0), ours: (260.0, 150.0), f"{ours} {label}": (300.0, 90.0)}]
    r = ratio_ranges(passes)
    assert r["defaults"][1] == (1.3, 1.5) and r[label][1] == (1.5, 3.0)
    assert r["defaults"][0] is None and r[label][2] is None  # rows not measured
    plot(passes, str(tmp_path / "r.png"))
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_riichi_speed_interleaves_each_rows_count_over_the_turns():
    """A pass times its rows in turns: each row runs its share of its count in every turn (the counts add up), and
    each row's seconds come from its own clock around its own runs."""
    from benchmarks.riichi_speed import interleave

    log = []

    class Row:
        def __init__(self, name):
            self.name = name

        def run(self, k):
            log.append((self.name, k))
            return k, 10 * k

    ticks = iter(range(1000))
    clock = lambda: next(ticks)  # noqa: E731 - one tick per reading
    out = interleave({"a": Row("a"), "b": Row("b")}, {"a": 10, "b": 3}, 4, {"a": clock, "b": clock})
    assert [n for n, _ in log] == ["a", "b", "a", "b", "a", "b", "a"]  # b's 3 over 4 turns: its last share is 0
    assert [k for n, k in log if n == "a"] == [3, 3, 2, 2]
    assert out == {"a": (10, 100, 4), "b": (3, 30, 3)}  # each timed run: 1 tick


def test_riichi_speed_runs_end_to_end(capsys):
    """The benchmark's command on tiny counts: every target's ratio printed, and the threads' row."""
    pytest.importorskip("riichienv")
    from benchmarks.riichi_speed import main

    main(["--hands", "2", "--games", "1", "--table-steps", "128", "--no-options", "--chunks", "2", "--threads", "2"])
    out = capsys.readouterr().out
    for name in ("mjenv parallel hand", "mjenv vector 64 hand", "mjenv parallel hanchan", "mjenv vector 64 hanchan"):
        assert re.search(rf"{name} +/ riichienv \w+ += \d+\.\d\d-\d+\.\d\dx", out), name
    assert "num_threads=2 / num_threads=1" in out


def test_riichi_breakdown_splits_every_step():
    """The breakdown times every step of the measured hands once: each in one state, its C call inside it; the raw
    observation's engine call is cheaper than the default's on discard turns (no per-discard features)."""
    from benchmarks.riichi_breakdown import measure, report

    runs = {mode: measure(3, 0, mode) for mode in ("default", "raw")}
    for r in runs.values():
        assert r["steps"] == sum(len(v) for v in r["by_state"].values()) == len(r["step"]) == len(r["c"]) > 100
        assert {"act", "claim"} <= set(r["by_state"])
        assert all(0 < c < s for c, s in zip(r["c"], r["step"]))
    assert runs["default"]["steps"] == runs["raw"]["steps"]  # the same hands: the observation changes no play
    assert sum(runs["raw"]["by_state"]["act"]) < sum(runs["default"]["by_state"]["act"])
    text = "\n".join(report(runs, 3))
    assert "steps per hand" in text and "act" in text and "lean loop" in text


@pytest.mark.parametrize("rules", ["basic", "riichi"])
def test_async_overlap_loops_play_the_same_steps(rules):
    """The overlap benchmark's two loops (in turn, and step_async / step_wait with the inference between) see the
    same observations and draw the same actions (``measure`` checks their hashes) and report both rates."""
    pytest.importorskip("torch")
    from benchmarks.async_overlap import Loop, measure

    m = measure(rules, 4, 8, 6, 2, seed=1)
    assert m["in turn"] > 0 and m["overlapped"] > 0 and m["ratio"] == m["overlapped"] / m["in turn"]
    a, b = (Loop(rules, 2, 8, 3, overlapped) for overlapped in (False, True))
    a.run(5)
    b.run(4)  # one step fewer: the hashes differ, so the check can fail
    assert a.digest.hexdigest() != b.digest.hexdigest()
    b.run(1)
    assert a.digest.hexdigest() == b.digest.hexdigest()


def test_riichi_greedy_rows_times_both_ways_on_the_same_rows(capsys, monkeypatch):
    from benchmarks import riichi_greedy_rows as rg
    from mjenv.rulesets.riichi.agents import RiichiGreedyAgent

    steps = rg.collect(2, 40, seed=1)
    assert len(steps) == 40 and steps[0][0].shape[0] == 8
    cpu = rg.measure(steps, repeats=1, chunks=3)
    assert set(cpu) == {"act_rows", "act, one seat at a time", "act, every seat decoded"}
    assert all(v > 0 for v in cpu.values())
    rg.main(["--tables", "1", "--steps", "10", "--repeats", "1"])
    assert "act_rows" in capsys.readouterr().out
    # the check can fail: a batch that passes everywhere is caught
    monkeypatch.setattr(RiichiGreedyAgent, "act_rows", classmethod(lambda cls, agents, o, m: np.full(len(o), 84)))
    with pytest.raises(AssertionError, match="different actions"):
        rg.measure(steps, repeats=1, chunks=1)


def test_riichi_eval_speed_plays_the_same_games_on_both_engines(capsys, monkeypatch):
    """The evaluation benchmark times both engines on the same games, and stops when their records differ."""
    from benchmarks import riichi_eval_speed as es

    es.main(["--games", "2", "--episode", "hand"])
    out = capsys.readouterr().out
    assert "the records of every game equal" in out
    assert re.search(r"compiled / python: \d+\.\d\dx", out)
    import mjenv.rulesets.riichi.evaluation as ev

    real = ev.play_game

    def skewed(agents, seed, episode, engine="auto"):  # the Python engine's record of another deal
        return real(agents, seed + (engine == "python"), episode, engine=engine)

    monkeypatch.setattr(ev, "play_game", skewed)
    with pytest.raises(SystemExit, match="records differ"):
        es.main(["--games", "2", "--episode", "hand"])


def test_riichi_log_decisions_speed_reads_the_same_rows_both_ways(capsys, tmp_path):
    import shutil
    from pathlib import Path

    from benchmarks import riichi_log_decisions_speed as ls

    logs = sorted((Path(__file__).parent / "data" / "mjlog").glob("*.mjlog"))[:2]
    for p in logs:
        shutil.copy(p, tmp_path / p.name)
    ls.main(["--logs", str(tmp_path), "--workers", "2", "--repeats", "1"])
    out = capsys.readouterr().out
    assert "2 games" in out and re.search(r"2 processes / 1: \d+\.\d\dx", out)
