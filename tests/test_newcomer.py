"""A new user's first hour: examples' --help, one-line errors for missing extras, ecosystem names,
evaluation output, ``mjenv play``, rendering (issue 11)."""

from __future__ import annotations

import io
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
