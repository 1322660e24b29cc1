"""A new user's first hour: examples' --help, one-line errors for missing extras, ecosystem names,
evaluation output, ``mjenv play``, rendering (issue 11)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
    assert '"mjenv" = ["py.typed"]' in (ROOT / "pyproject.toml").read_text()
