"""What a new user meets in the first hour: registration with gymnasium, clear errors for unknown keywords
and for ``last()`` after the end, what ``mjenv play`` tells, taiwan16's flowers in the image, the eval
table's few-deals note, the SB3 example's progress."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import mjenv
from mjenv import cli
from mjenv._extras import UnknownKeywordError

ROOT = Path(__file__).resolve().parents[1]


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})


@pytest.mark.smoke
def test_import_mjenv_registers_the_gymnasium_id_without_importing_gymnasium():
    proc = _python(
        "import sys, mjenv\n"
        "assert 'gymnasium' not in sys.modules, 'import mjenv imported gymnasium'\n"
        "import gymnasium\n"
        "env = gymnasium.make('mjenv/SingleSeat-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(obs.shape)\n"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "(565,)"


def test_the_gymnasium_id_is_registered_when_gymnasium_came_first():
    proc = _python("import gymnasium, mjenv\nenv = gymnasium.make('mjenv/SingleSeat-v0', rules='honours')\n"
                   "print(env.reset(seed=1)[0].shape)")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "(754,)"


@pytest.mark.smoke
@pytest.mark.parametrize("make", [
    lambda **k: mjenv.parallel_env(**k),
    lambda **k: mjenv.env(**k),
    lambda **k: mjenv.raw_env(**k),
    lambda **k: mjenv.vector_env(2, **k),
])
def test_unknown_keyword_names_the_allowed_ones(make):
    with pytest.raises(ValueError, match=r"unknown keyword argument\(s\) 'foo'; allowed: .*rules.*observation"):
        make(foo=1)
    with pytest.raises(TypeError):  # still what Python raises for an unknown keyword
        make(rule="basic")


def test_single_agent_env_unknown_keyword():
    from mjenv.wrappers import SingleAgentEnv

    with pytest.raises(UnknownKeywordError, match="'oponents'; allowed: opponents, seat, rules"):
        SingleAgentEnv(oponents="random")


@pytest.mark.smoke
@pytest.mark.parametrize("rules", ["basic", "sichuan"])
def test_aec_last_after_the_end_says_reset(rules):
    env = mjenv.env(rules=rules)
    env.reset(seed=3)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(ValueError, match=r"last\(\) after the hand ended.*reset\(\)"):
        env.last()
    env.reset(seed=4)
    assert env.last()[1] == 0.0  # a new hand reads again


def _play(rules: str, seed: int, answers: int = 80) -> str:
    args = SimpleNamespace(opponents=["greedy"], seat=0, hands=1, seed=seed, rules=rules)
    out = io.StringIO()
    # "0" is always a listed move: the human plays its first legal move every time
    assert cli.play(args, input=io.StringIO("0\n" * answers), output=out) == 0
    return out.getvalue()


def _seed_with_a_claim_of_another_seat(rules: str) -> int:
    """A seed where a seat other than 0 claims someone's discard while seat 0 plays its first move."""
    from mjenv.baselines.registry import make_agent

    from mjenv.game import Game
    from mjenv.observation import ObservationSpec
    from mjenv.render import ClaimMarks

    spec = ObservationSpec(rules)
    for seed in range(50):
        g, marks = Game(rules, seed), ClaimMarks()
        bots = [make_agent("greedy", seed=i, rules=rules) for i in range(3)]
        while not g.is_over:
            acts = {}
            for s in g.acting_seats():
                mask = g.legal_action_mask(s)
                acts[s] = int(np.flatnonzero(mask)[0]) if s == 0 else int(
                    bots[s - 1].act({"observation": spec.encode(g, s), "action_mask": mask}))
            marks.before(g)
            g.step(acts)
            marks.after(g)
        if any(d != 0 for d, _ in marks.claimed):
            return seed
    raise AssertionError("no seed with a claim in 50")


def test_play_says_which_tile_you_drew():
    text = _play("basic", 5)
    draws = [line for line in text.splitlines() if line.startswith("  you draw ")]
    assert draws, text[:2000]
    # every draw told is in the hand shown right after it
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("  you draw "):
            tile = line.split()[-1]
            hand = next(x for x in lines[i:] if x.startswith("  your hand: "))
            rank, suit = tile[0], tile[1]
            group = next(g for g in hand.split(":")[1].split("(")[0].split() if g.endswith(suit))
            assert rank in group, (line, hand)


def test_play_brackets_claimed_tiles_in_the_discarders_pile():
    seed = _seed_with_a_claim_of_another_seat("basic")
    text = _play("basic", seed)
    assert "(a tile in brackets was claimed into a meld)" in text
    claimed = [line for line in text.splitlines() if "discards" in line and "(" in line.split("discards")[1]]
    assert claimed, text[-3000:]


def test_render_observation_brackets_exactly_the_claimed_discards():
    from mjenv.baselines.human import render_observation

    from mjenv.observation import decode
    from mjenv.rules import get_rules

    obs = np.zeros(565, np.float32)
    views = decode(obs)
    views["discards"][1, :3] = [1, 5, 10]  # right discarded 1s 5s 1m
    text = render_observation(views, get_rules("basic"), claimed={(1, 1)})
    assert "discards 1s (5s) 1m" in text
    assert "discards 1s 5s 1m" in render_observation(views, get_rules("basic"))


def test_play_shows_sichuan_declared_suits():
    text = _play("sichuan", 2)
    after = text.split("--- your turn ---", 1)[1]
    table = after.split("legal moves")[0]
    for seat in ("across", "left", "right", "you"):
        row = next(x for x in table.splitlines() if x.strip().startswith(seat))
        assert "missing suit " in row, row


def test_rgb_array_draws_taiwan16_flowers():
    from mjenv.render import render_rgb

    env = mjenv.parallel_env(rules="taiwan16", render_mode="rgb_array")
    for seed in range(30):
        env.reset(seed=seed)
        if env.game.flowers.any():
            break
    game = env.game
    with_flowers = render_rgb(game)
    bare = game.clone()
    bare.flowers[:] = 0
    without = render_rgb(bare)
    seats = np.flatnonzero(game.flowers.any(axis=1))
    assert len(seats) and not np.array_equal(with_flowers, without)
    assert np.array_equal(env.render(), with_flowers)


def test_eval_table_with_few_deals_says_why_nothing_is_tested():
    from mjenv.baselines.evaluate import MIN_DEALS_FOR_TEST, evaluate

    few = evaluate(["random", "greedy"], 3, 0, progress=False).table()
    assert f"not tested (3 < {MIN_DEALS_FOR_TEST} deals)" in few and "Not tested: a t-interval" in few
    enough = evaluate(["random", "greedy"], MIN_DEALS_FOR_TEST, 0, progress=False).table()
    assert "not tested" not in enough.lower()
    assert "| yes |" in enough or "| no |" in enough


def test_sb3_example_prints_progress(tmp_path):
    pytest.importorskip("sb3_contrib")
    proc = subprocess.run([sys.executable, "examples/sb3_maskable_ppo.py", "--timesteps", "128", "--n-steps", "64",
                           "--eval-deals", "0", "--out-dir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                          timeout=180, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "MaskablePPO" in proc.stderr and "128/128" in proc.stderr, proc.stderr[-2000:]


def test_difference_heatmap_never_clips_and_keeps_text_readable():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_rgb
    from mjenv.baselines.league import difference_heatmap

    m = np.array([[np.nan, 49.0, 3.0], [-49.0, np.nan, -12.0], [-3.0, 12.0, np.nan]])
    fig, ax = plt.subplots()
    difference_heatmap(fig, ax, m, ["a", "b", "c"])
    norm = ax.images[0].norm
    assert norm.vmax >= 49 and norm.vmin <= -49  # the scale reaches the largest difference
    assert norm(12.0) < norm(49.0) and norm(3.0) < norm(12.0)  # and tells them apart
    colour = {t.get_text(): to_rgb(t.get_color()) for t in ax.texts}
    assert colour["+49.0"] == colour["-49.0"] == (1.0, 1.0, 1.0)  # white on the darkest cells
    assert colour["+3.0"] == colour["-3.0"] == (0.0, 0.0, 0.0)  # black on the lightest
    plt.close(fig)


def test_ladder_figure_reads_the_pair_tables_kept_in_research_notes():
    sys.path.insert(0, str(ROOT))
    from research.strength_ladder import find_result

    d, ci, sig = find_result(ROOT / "research" / "notes" / "training" / "ladder", "policy:bc", "greedy")
    assert (round(100 * d, 1), round(100 * ci, 1), sig) == (10.5, 6.0, True)
    d2, ci2, _ = find_result(ROOT / "research" / "notes" / "training" / "ladder", "greedy", "policy:bc")
    assert (d2, ci2) == (-d, ci)


def test_shaping_study_plot_labels_every_line_and_keeps_the_legend_off_the_bands(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sys.path.insert(0, str(ROOT))
    from research.shaping_study import plot

    row = {"step": 1000, "seeds": 2, "win_random": 0.5, "win_random_ci": 0.1, "win_greedy": 0.2, "win_greedy_ci": 0.1,
           "win_random_per_seed": [0.4, 0.6], "win_greedy_per_seed": [0.1, 0.3], "random_seat_win_random": 0.01,
           "greedy_seat_win_greedy": 0.27}
    agg = {"ppo:none": {"rows": [row, {**row, "step": 2000}], "seeds": [0, 1], "budget": 2000}}
    kept = []
    monkeypatch.setattr(plt, "close", lambda fig=None: kept.append(fig))
    plot(agg, "ppo", tmp_path / "p.png", "env steps")
    fig = kept[0]
    for ax in fig.axes:
        assert ax.get_legend() is None  # no legend inside a panel
        for line in ax.get_lines():
            if line.get_linewidth() > 0.7 or line.get_linestyle() != "-":  # the thin per-seed curves aside
                assert not line.get_label().startswith("_"), line
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert any("25%" in x for x in labels) and any("none" in x for x in labels)
    legend_top = fig.legends[0].get_window_extent().y1
    assert all(legend_top <= ax.get_window_extent().y0 for ax in fig.axes)  # below the panels
    plt.close(fig)


def test_ci_installs_rllib_and_chromium_before_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    test_at = ci.index(".venv/bin/python -m pytest")
    rllib = next(i for i, line in enumerate(ci) if "pip install" in line and "rllib" in line)
    chromium = next(i for i, line in enumerate(ci) if "apt-get install" in line and "chromium" in line)
    assert rllib < test_at and chromium < test_at
    readme = (ROOT / "README.md").read_text()
    quick = readme.split("## Quick start", 1)[1].split("```", 2)[1]
    assert "--index-url https://download.pytorch.org/whl/cpu" in quick and "rllib" not in quick
    # an unreachable extra index costs seconds per package: CI (a mirror-only machine) must not name one
    assert "extra-index-url" not in "\n".join(ci) and "extra-index-url" not in quick
    assert "pytest -m smoke" in readme


@pytest.mark.smoke
def test_the_smoke_tier_selects_a_part_of_the_suite():
    proc = subprocess.run([sys.executable, "-m", "pytest", "-m", "smoke", "--collect-only", "-q", "-p", "no:warnings"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    counts = [int(line.rsplit(": ", 1)[1]) for line in proc.stdout.splitlines() if line.startswith("tests/")]
    files = {line.split(":")[0] for line in proc.stdout.splitlines() if line.startswith("tests/")}
    assert 100 < sum(counts) < 400, proc.stdout[-2000:]
    # every layer: tiles, game, observation, env, agents, the command line, and the new parts
    for f in ("test_tiles.py", "test_game_claims.py", "test_observation.py", "test_env_api.py", "test_agents.py",
              "test_cli.py", "test_planes.py", "test_league.py", "test_first_hour.py"):
        assert f"tests/{f}" in files, f


@pytest.mark.parametrize(("flags", "workers"), [([], True), (["-p", "no:xdist"], False), (["-n", "0"], False)])
def test_the_suite_spreads_over_the_cores_when_xdist_is_there_and_runs_without_it(flags, workers):
    """pytest-xdist's -n auto comes from tests/conftest.py, not addopts: plain pytest without the plugin (not
    installed, or -p no:xdist) runs the tests in one process instead of failing on an unknown -n."""
    proc = subprocess.run([sys.executable, "-m", "pytest", *flags, "-v", "-p", "no:cacheprovider",
                           "tests/test_tiles.py"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "passed" in proc.stdout, proc.stdout[-2000:] + proc.stderr[-2000:]
    spread = re.search(r"\d+ workers? \[\d+ items\]", proc.stdout) is not None  # xdist's "2 workers [13 items]"
    assert spread == workers, proc.stdout[-2000:]
