"""The ``mjenv`` command line: tournament, eval (with files and errors), play fed from stdin."""

from __future__ import annotations

import argparse
import io
import json

import pytest

from mjenv import cli


def test_tournament_runs_end_to_end_and_prints_the_table(capsys, monkeypatch):
    # the README's main job, shrunk: one deal, tiny flat MC budgets, one process
    monkeypatch.setattr(cli, "TOURNAMENT_AGENTS", ("random", "greedy", "flatmc:sp,sims=60", "flatmc:sims=60"))
    assert cli.main(["tournament", "--deals", "1", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1 duplicate deals x 4 rotations = 4 hands" in out
    for name in ("random", "greedy", "flatmc:sp,sims=60", "flatmc:sims=60"):
        assert f"| {name} |" in out
    assert "win rate difference" in out


def test_a_tournament_of_a_room_that_plays_games_takes_the_rooms_line_up_and_episode(capsys, monkeypatch):
    """``mjenv tournament --rules riichi``: the room's line-up (the shared one names a flat MC model the room's agent
    does not have) on the room's episode, unless ``--episode`` says another."""
    import mjenv.rulesets.riichi.agents as room

    monkeypatch.setattr(room, "TOURNAMENT_AGENTS", ("random", "greedy", "flatmc:sims=20", "flatmc:sims=40"))
    assert cli.main(["tournament", "--rules", "riichi", "--deals", "1", "--workers", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"4 games of '{room.TOURNAMENT_EPISODE}'" in out
    for name in ("random", "greedy", "flatmc:sims=20", "flatmc:sims=40"):
        assert f"| {name} |" in out
    assert cli.main(["tournament", "--rules", "riichi", "--episode", "hand", "--deals", "1", "--workers", "1",
                     "--no-progress"]) == 0
    assert "4 games of 'hand' (4 hands" in capsys.readouterr().out


def test_eval_writes_markdown_json_and_png(tmp_path, capsys):
    code = cli.main(["eval", "greedy", "random", "--deals", "1", "--no-progress", "--out", str(tmp_path)])
    assert code == 0
    assert "| greedy |" in capsys.readouterr().out
    data = json.loads((tmp_path / "results.json").read_text())
    assert data["config"]["labels"] == ["greedy", "random", "greedy", "random"]
    assert (tmp_path / "results.md").exists() and (tmp_path / "results.png").stat().st_size > 10_000
    # merging the file with itself is refused (same seed), merging is otherwise a pure re-summary
    assert cli.main(["eval", "--merge", str(tmp_path / "results.json"), str(tmp_path / "results.json")]) == 2


def test_eval_rejects_unknown_agents_and_bad_counts(capsys):
    assert cli.main(["eval", "bogus", "random", "--deals", "1", "--no-progress"]) == 2
    assert "unknown agent 'bogus'" in capsys.readouterr().err
    assert cli.main(["eval", "greedy", "random", "random", "--deals", "1"]) == 2
    assert "give 2 or 4 agents" in capsys.readouterr().err


def _play_args(**kw):
    base = {"opponents": ["greedy"], "seat": 0, "hands": 1, "seed": 11, "rules": "basic"}
    base.update(kw)
    return argparse.Namespace(**base)


def test_play_with_stdin_answers_bad_input_clearly_and_finishes_the_hand():
    # a person who first types nonsense, then always the first listed move
    answers = "hello\n42\n\n" + "0\n" * 300
    out = io.StringIO()
    assert cli.play(_play_args(), input=io.StringIO(answers), output=out) == 0
    text = out.getvalue()
    assert "your hand:" in text and "legal moves: [0]" in text
    assert "did not understand 'hello'" in text
    assert "42 is not a listed move" in text
    assert "empty answer" in text
    assert "=== hand 1 (seed 11) over ===" in text and "your total score:" in text


def test_play_ends_cleanly_when_input_ends():
    out = io.StringIO()
    assert cli.play(_play_args(), input=io.StringIO(""), output=out) == 0
    assert "input ended" in out.getvalue()


def test_subcommands_can_be_registered_by_other_modules(capsys):
    def build(p: argparse.ArgumentParser):
        p.add_argument("--x", type=int, default=1)
        return lambda args: print(f"x={args.x}") or 0

    cli.register_command("unit-test-cmd", "a test command", build)
    try:
        assert cli.main(["unit-test-cmd", "--x", "7"]) == 0
        assert "x=7" in capsys.readouterr().out
        with pytest.raises(ValueError, match="already exists"):
            cli.register_command("unit-test-cmd", "again", build)
    finally:
        cli._COMMANDS.pop("unit-test-cmd")


def test_eval_threads_flag_reaches_the_harness(monkeypatch, capsys):
    import importlib

    # the package re-exports the function under the module's name, so fetch the module itself
    evaluate_module = importlib.import_module("mjenv.baselines.evaluate")
    seen = {}
    real = evaluate_module.evaluate

    def spy(*args, **kwargs):
        seen["threads"] = kwargs.get("threads")
        return real(*args, **kwargs)

    monkeypatch.setattr(evaluate_module, "evaluate", spy)
    assert cli.main(["eval", "greedy", "random", "--deals", "1", "--no-progress", "--threads", "3"]) == 0
    assert seen["threads"] == 3
    assert cli.main(["eval", "greedy", "random", "--deals", "1", "--no-progress"]) == 0
    assert seen["threads"] == 1
