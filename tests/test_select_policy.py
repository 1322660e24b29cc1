"""The recipes' one selection step (research.training.select_policy): scores cached, best difference chosen."""

from __future__ import annotations

import json

import pytest

from research.training import select_policy


def test_select_best_takes_the_best_difference_caches_scores_and_resumes_without_playing_again(tmp_path, monkeypatch):
    files = {}
    for name in ("a", "b", "c"):
        files[name] = tmp_path / f"{name}.pt"
        files[name].write_bytes(name.encode())
    diffs = {"a": 0.01, "b": 0.04, "c": -0.02}
    played = []

    def fake_score(path, against, *, deals, seed, rules, out_dir, name):
        played.append((path.stem, against, deals, seed, name))
        return {"win_rate": 0.25, "diff": diffs[path.stem]}

    monkeypatch.setattr(select_policy, "score", fake_score)
    cache, dest, lines = tmp_path / "sel" / "scores.json", tmp_path / "best.pt", []
    best = select_policy.select_best(files, "greedy", deals=3, seed=51000, cache=cache, dest=dest, log=lines.append)
    assert best == "b" and dest.read_bytes() == b"b"
    assert played == [(n, "greedy", 3, 51000, f"select_{n}") for n in "abc"]
    assert {k: v["diff"] for k, v in json.loads(cache.read_text()).items()} == diffs
    assert sum("win-rate difference against greedy" in line for line in lines) == 3
    # a second call reads the cache: nothing is played, the same file is chosen
    played.clear()
    assert select_policy.select_best(files, "greedy", deals=3, seed=51000, cache=cache, log=lines.append) == "b"
    assert played == []
    # ties go to the later name
    diffs["c"] = 0.04
    assert select_policy.select_best(files, "greedy", deals=3, seed=51000, cache=tmp_path / "t.json", log=len) == "c"


def test_select_best_rejects_no_candidates_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="at least one"):
        select_policy.select_best({}, "greedy", deals=1, seed=0, cache=tmp_path / "c.json")
    with pytest.raises(ValueError, match="not found"):
        select_policy.select_best({"x": tmp_path / "nope.pt"}, "greedy", deals=1, seed=0, cache=tmp_path / "c.json")


def test_cli_rejects_bad_deals_and_missing_files_with_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit):
        select_policy.main([str(tmp_path / "a.pt"), "--against", "greedy", "--deals", "0", "--seed", "1",
                            "--cache", str(tmp_path / "c.json")])
    assert "--deals must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        select_policy.main([f"n={tmp_path / 'a.pt'}", "--against", "greedy", "--deals", "1", "--seed", "1",
                            "--cache", str(tmp_path / "c.json")])
    assert "not found" in capsys.readouterr().err
