"""A new user's first hour: examples' --help, one-line errors for missing extras, ecosystem names,
evaluation output, ``mjenv play``, rendering."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mjenv import cli

ROOT = Path(__file__).resolve().parents[1]


def _run(code_or_args: list[str], *, timeout: int = 120, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, *code_or_args], capture_output=True, text=True, timeout=timeout,
                          cwd=cwd, env=env)  # fmt: skip


# -- missing extras: one line naming what to pip install -------------------------------------------

# Each case blocks one optional module (None in sys.modules makes its import fail, as when it is not
# installed) and runs an entry point a user would try after a bare `pip install mjenv`.
_MISSING = {
    "tournament without tqdm": ("tqdm", "from mjenv.cli import main; sys.exit(main(['tournament', '--deals', '1', "
                                "'--workers', '1']))", 'mjenv tournament needs tqdm (not installed): '
                                'pip install "mjenv[env]"'),
    "train without torch": ("torch", "from mjenv.cli import main; sys.exit(main(['train', 'ppo']))",
                            'mjenv train needs torch (not installed): pip install "mjenv[train]"'),
    "parallel_env without gymnasium": ("gymnasium", "import mjenv; mjenv.parallel_env()",
                                       'mjenv.parallel_env needs gymnasium (not installed): pip install "mjenv[env]"'),
    "mjenv_v0 without pettingzoo": ("pettingzoo", "from mjenv import mjenv_v0",
                                    'mjenv.mjenv_v0 needs pettingzoo (not installed): pip install "mjenv[env]"'),
    "SingleAgentEnv without gymnasium": ("gymnasium", "from mjenv.wrappers import SingleAgentEnv",
                                         'mjenv.wrappers.SingleAgentEnv needs gymnasium (not installed): '
                                         'pip install "mjenv[env]"'),
}  # fmt: skip


@pytest.mark.parametrize("case", list(_MISSING))
def test_a_missing_extra_says_in_one_line_what_to_pip_install(case):
    module, code, message = _MISSING[case]
    r = _run(["-c", f"import sys; sys.modules[{module!r}] = None\n{code}"])
    assert r.returncode != 0
    last = r.stderr.strip().splitlines()[-1]
    assert last.endswith(message), r.stderr


def test_a_missing_extra_leaves_its_command_listed_in_help():
    r = _run(["-c", "import sys; sys.modules['torch'] = None\nfrom mjenv.cli import main; main(['--help'])"])
    assert r.returncode == 0
    text = " ".join(r.stdout.split())  # argparse wraps the help lines
    assert "train a policy" in text and 'pip install "mjenv[train]"' in text


def test_other_import_errors_are_not_disguised_as_missing_extras(monkeypatch):
    def build(p):
        def run(args):
            import mjenv_no_such_module  # noqa: F401

        return run

    monkeypatch.setitem(cli._COMMANDS, "unit-test-broken", ("broken", build))
    with pytest.raises(ModuleNotFoundError, match="mjenv_no_such_module"):
        cli.main(["unit-test-broken"])


def test_rules_help_names_every_preset(capsys):
    with pytest.raises(SystemExit):
        cli.main(["tournament", "--help"])
    out = capsys.readouterr().out
    for preset in ("basic", "honours", "sichuan", "taiwan16"):
        assert preset in out
    with pytest.raises(SystemExit):
        cli.main(["eval", "greedy", "random", "--rules", "bogus"])
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


# -- ecosystem names -----------------------------------------------------------------------------


def test_mjenv_v0_module_gives_the_environments_under_their_versioned_name():
    from pettingzoo import AECEnv, ParallelEnv

    from mjenv import mjenv_v0

    par, aec = mjenv_v0.parallel_env(), mjenv_v0.env()
    assert isinstance(par, ParallelEnv) and isinstance(aec, AECEnv)
    assert par.metadata["name"] == aec.metadata["name"] == "mjenv_v0"
    obs, _ = par.reset(seed=0)
    assert set(obs) == {"player_0", "player_1", "player_2", "player_3"}


def test_single_seat_env_is_registered_with_gymnasium_and_passes_its_checker():
    import warnings

    import gymnasium
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("mjenv.wrappers:mjenv/SingleSeat-v0", opponents="random", seat=1)
    assert env.spec.id == "mjenv/SingleSeat-v0"
    assert type(env.unwrapped).__name__ == "SingleAgentEnv" and env.unwrapped.seat == 1
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    mask = env.get_wrapper_attr("action_masks")()
    obs, reward, terminated, truncated, info = env.step(int(mask.nonzero()[0][0]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    assert not [w for w in caught if "spec" in str(w.message)], [str(w.message) for w in caught]


def test_the_package_is_marked_typed():
    import mjenv

    assert (Path(mjenv.__file__).parent / "py.typed").exists()
    assert re.search(r'^"mjenv" = \[[^\]]*"py\.typed"', (ROOT / "pyproject.toml").read_text(), re.MULTILINE)


# -- render: labels fit their tiles, the last discard is marked, human mode opens a window -------


def _claim_window_game():
    """A basic-rules game right after seat 0's first discard (a claim window is open)."""
    from mjenv.game import Game

    g = Game("basic", 5)
    layout = g.layout
    tile = int(np.flatnonzero(g.hands[0])[0])
    g.step({0: layout.discard(tile)})
    assert int(g.last_discard) == tile and int(g.last_discarder) == 0
    return g, tile


def test_text_render_brackets_the_last_discard_of_its_seat():
    from mjenv.render import render_text
    from mjenv.tiles import UNICODE_TILES

    g, tile = _claim_window_game()
    lines = render_text(g).splitlines()
    rows = [line for line in lines if line.strip().startswith("discards")]
    assert rows[0].rstrip().endswith(f"[{UNICODE_TILES[tile]}]")  # seat 0's row
    assert not any("[" in r for r in rows[1:])


def test_image_render_marks_the_last_discard_in_its_seats_row():
    from mjenv import render

    g, _ = _claim_window_game()
    img = render.render_rgb(g)
    # the bottom panel (seat 0) holds a card with the marked face; the other panels none
    bottom, top = img[610:872, 300:900], img[8:270, 300:900]
    marked = np.all(bottom == render._MARKED_FACE, axis=-1)
    assert marked.sum() > 50
    assert not np.all(top == render._MARKED_FACE, axis=-1).any()


@pytest.mark.parametrize("tile", [31, 32, 33])  # Wh Gr Rd: the two-letter labels
def test_honour_labels_stay_inside_their_tile(tile):
    from PIL import Image, ImageDraw

    from mjenv import render

    for w, h in ((20, 27), (24, 32), (26, 36), (38, 52)):  # every tile size the image uses
        img = Image.new("RGB", (w + 20, h + 20), render._BG)
        render._draw_tile(ImageDraw.Draw(img), 10, 10, w, h, tile)
        a = np.asarray(img).copy()
        a[10 : 10 + h + 1, 10 : 10 + w + 1] = render._BG  # blank the tile: nothing may be left outside
        assert np.all(a == render._BG), (tile, w, h)


def _human_render(code: str, **env_overrides) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER")}
    env.update(env_overrides)
    prog = (
        "import types, numpy as np\nfrom mjenv.game import Game\nfrom mjenv import render\n"
        "g = Game('basic', 0); owner = types.SimpleNamespace()\n" + code
    )
    return subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True, env=env, timeout=60)


def test_human_render_opens_a_pygame_window_showing_the_image():
    pytest.importorskip("pygame", reason="the render extra (pygame) is not installed")
    # SDL's dummy driver: a real pygame display surface without a screen
    r = _human_render(
        "render.render_human(owner, g); render.render_human(owner, g)\n"
        "print(owner._window.reason, np.array_equal(owner._window.frame(), render.render_rgb(g)))",
        SDL_VIDEODRIVER="dummy",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "True"]


def test_env_render_mode_human_shows_the_table_in_a_window_and_close_closes_it():
    pytest.importorskip("pygame", reason="the render extra (pygame) is not installed")
    r = _human_render(
        "import mjenv\n"
        "env = mjenv.parallel_env(render_mode='human'); env.reset(seed=2)\n"
        "w = env._output._window\n"
        "print(w.reason, np.array_equal(w.frame(), render.render_rgb(env._table.game)))\n"
        "env.close(); print(w.frame() is None)",
        SDL_VIDEODRIVER="dummy",
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "True", "True"]


@pytest.mark.parametrize(
    "block, reason",
    [("", "there is no display"), ("import sys; sys.modules['pygame'] = None\n", "pygame is not installed")],
)
def test_human_render_falls_back_to_text_with_one_note(block, reason):
    r = _human_render(block + "render.render_human(owner, g); render.render_human(owner, g)")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("mjenv: render_mode='human' prints text: " + reason)
    assert sum("prints text" in line for line in lines) == 1  # the note once, the table each time
    assert sum(line.startswith("mjenv basic | phase discard") for line in lines) == 2


# -- mjenv play: narration, meld groups, one tile order, help, the winning hand -------------------


def test_hand_text_uses_the_tile_id_order_of_the_glyphs_and_moves():
    from mjenv.baselines.human import hand_text

    from mjenv.tiles import parse

    assert hand_text(parse("123m456p789s")) == "789s 123m 456p"
    assert hand_text(parse("11z2s", 34)) == "2s 11z"


def test_the_agent_and_the_renderer_write_hands_alike():
    from mjenv.baselines.human import hand_text as agent_text

    from mjenv.render import hand_text as render_text

    rng = np.random.default_rng(0)
    for k in range(500):
        n = (27, 34)[k % 2]
        counts = rng.integers(0, 5, n) * (rng.random(n) < 0.3)
        assert agent_text(counts) == render_text(counts)


def test_meld_groups_split_declared_tiles_into_melds():
    from mjenv.baselines.human import meld_groups

    from mjenv.tiles import parse

    assert meld_groups(parse("444789m"), 2) == ["444m", "789m"]
    assert meld_groups(parse("2222s123m"), 2) == ["2222s", "123m"]
    assert meld_groups(parse("2222s"), 1) == ["2222s"]
    assert meld_groups(parse("111222333p"), 3) in (["111p", "222p", "333p"], ["123p", "123p", "123p"])
    assert meld_groups(parse("12m"), 1) == ["12m"]  # no split: the tiles as one group


def test_narration_tells_every_discard_and_meld_of_the_other_seats():
    from mjenv.baselines import GreedyAgent

    from mjenv.cli import _public_state, narrate
    from mjenv.game import Game
    from mjenv.observation import ObservationSpec
    from mjenv.tiles import tile_name

    names = ["you", "right", "across", "left"]
    for seed in range(4):
        g, spec = Game("basic", seed), ObservationSpec("basic")
        agents = [GreedyAgent(seed=s) for s in range(4)]
        told: list[str] = []
        while not g.is_over:
            acts = {s: agents[s].act({"observation": spec.encode(g, s), "action_mask": g.legal_action_mask(s)})
                    for s in g.acting_seats()}  # fmt: skip
            before = _public_state(g)
            g.step(acts)
            told += narrate(before, g, names, 0)
        assert not any(line.strip().startswith("you ") for line in told)
        for s in (1, 2, 3):
            said = [line.split(" discards ")[1] for line in told if line.strip().startswith(names[s] + " discards")]
            assert said == [tile_name(int(t)) for t in g.discards[s][: int(g.num_discards[s])]]
            melds = [line for line in told if line.strip().startswith(names[s]) and " discards " not in line]
            assert len(melds) >= len(g.melds[s])


def test_help_is_answered_without_counting_as_a_bad_answer():
    from mjenv.baselines.human import HumanAgent

    from mjenv.game import Game
    from mjenv.observation import ObservationSpec

    out = io.StringIO()
    human = HumanAgent(input=io.StringIO("help\n?\n0\n"), output=out, max_attempts=1)
    g = Game("basic", 0)
    action = human.act({"observation": ObservationSpec("basic").encode(g, 0), "action_mask": g.legal_action_mask(0)})
    assert g.legal_action_mask(0)[action]
    text = out.getvalue()
    assert text.count("how to answer:") == 2 and "(help: how to answer)" in text


def test_play_end_screen_shows_the_winning_hand_with_its_winning_tile():
    out = io.StringIO()
    args = argparse.Namespace(opponents=["greedy"], seat=0, hands=2, seed=11, rules="basic")
    assert cli.play(args, input=io.StringIO("0\n" * 600), output=out) == 0
    text = out.getvalue()
    winners = [line for line in text.splitlines() if line.startswith("winner:")]
    assert winners
    for line in winners:
        tiles = line.split("): ", 1)[1]
        groups = tiles.replace("+", " ").split()
        n = sum(len(g) - 1 for g in groups)
        kongs = sum(1 for g in groups if len(g) == 5 and len(set(g[:-1])) == 1)
        assert n == 14 + kongs, line  # 4 melds and a pair, the winning tile included
    assert "discards" in text and "(greedy) discards" in text


# -- examples: --help answers at once, a tiny budget runs end to end ------------------------------


def test_ppo_selfplay_example_help_lists_its_budget_flags_without_training():
    r = _run(["examples/ppo_selfplay.py", "--help"], timeout=60)
    assert r.returncode == 0, r.stderr
    for flag in ("--total-timesteps", "--torch-threads", "--eval-deals", "--out-dir"):
        assert flag in r.stdout
    assert "saved" not in r.stdout  # --help does not start a run


def test_ppo_selfplay_example_runs_a_tiny_budget_and_prints_its_evaluation(tmp_path):
    pytest.importorskip("torch", reason="the example needs the train extra")
    out = tmp_path / "run"
    r = _run(["examples/ppo_selfplay.py", "--total-timesteps", "32", "--num-envs", "2", "--num-steps", "16",
              "--eval-deals", "1", "--out-dir", str(out)], timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    assert (out / "policy.pt").exists()
    assert "1 duplicate deals x 4 rotations = 4 hands" in r.stdout and "| policy |" in r.stdout


def test_train_pretrained_script_answers_help():
    r = subprocess.run(["bash", "examples/train_pretrained.sh", "--help"], capture_output=True, text=True,
                       cwd=ROOT, timeout=30)  # fmt: skip
    assert r.returncode == 0 and "behaviour cloning" in r.stdout and "CHUNKS" in r.stdout


def test_ppo_selfplay_comment_describes_the_shipped_policy_as_it_is():
    text = " ".join((ROOT / "examples" / "ppo_selfplay.py").read_text().replace("#", " ").split())
    # the shipped policy is a greedy clone further trained on flat-MC decisions, not a greedy clone
    assert "then of flat Monte Carlo decisions" in text


# -- evaluation output --------------------------------------------------------------------------


def test_one_deal_prints_n_a_not_nan_and_a_team_gets_its_note(capsys):
    assert cli.main(["eval", "greedy", "random", "--deals", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "nan" not in out
    assert "± n/a pp" in out and "one deal gives no confidence interval" in out
    assert "Rates are per seat" in out and "50% for a team of 2" in out


def test_four_distinct_agents_get_no_team_note(capsys):
    agents = ["random", "greedy", "flatmc:sims=20", "flatmc:sp,sims=20"]
    assert cli.main(["eval", *agents, "--deals", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Rates are per seat" not in out


def test_train_bc_prints_its_evaluation_as_a_markdown_table_not_json(tmp_path, capsys):
    pytest.importorskip("torch", reason="mjenv train needs the train extra")
    code = cli.main(["train", "bc", "--hands", "4", "--num-envs", "4", "--epochs", "1", "--eval-hands", "1",
                     "--no-tensorboard", "--no-progress", "--no-save-logs", "--out-dir", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "(1 duplicate deals = 4 hands" in out
    assert "\n| policy | 1 |" in out and '"table"' not in out and "\\n" not in out


@pytest.mark.parametrize("module", ["mjenv.baselines.train_ppo", "mjenv.baselines.train_bc"])
def test_eval_hands_help_says_it_counts_deals_of_four_hands(module):
    pytest.importorskip("torch", reason="the train extra is not installed")
    r = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "COLUMNS": "200"})
    assert r.returncode == 0, r.stderr
    line = " ".join(r.stdout.split())
    assert "--eval-hands EVAL_HANDS duplicate DEALS" in line
    assert "4 episodes (hands, or a room's games of --episode) per deal" in line
