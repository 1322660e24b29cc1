"""Smoke test of research/strength_ladder.py: a two-agent ladder on two deals, and its input checks."""

from __future__ import annotations

import pytest

from research import strength_ladder


def test_two_agent_ladder_writes_matrix_and_step(tmp_path, capsys):
    strength_ladder.main(["--agents", "random,greedy", "--deals", "2", "--out", str(tmp_path)])
    text = (tmp_path / "ladder.md").read_text()
    # greedy beats random in (nearly) every hand; the step row reads the eval's own json
    d, ci, sig = strength_ladder.find_result(tmp_path, "greedy", "random")
    assert d > 0.3
    assert strength_ladder.find_result(tmp_path, "random", "greedy")[0] == pytest.approx(-d)
    assert f"| `random` < `greedy` | {100 * d:+.1f} ± {100 * ci:.1f} |" in text
    assert (tmp_path / "greedy_vs_random.json").is_file()
    # a second call replays nothing (resumable): the json is not rewritten
    mtime = (tmp_path / "greedy_vs_random.json").stat().st_mtime_ns
    strength_ladder.main(["--agents", "random,greedy", "--deals", "2", "--out", str(tmp_path)])
    assert (tmp_path / "greedy_vs_random.json").stat().st_mtime_ns == mtime


@pytest.mark.parametrize("argv", [["--agents", "greedy"], ["--agents", "greedy,greedy"], ["--deals", "0"]])
def test_bad_arguments(argv, tmp_path):
    with pytest.raises(ValueError):
        strength_ladder.main([*argv, "--out", str(tmp_path)])
