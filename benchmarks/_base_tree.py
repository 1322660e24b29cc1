"""A second tree of mjenv to measure beside this one: a temporary git worktree at a commit, installed in its
own virtual environment (``pip install --no-deps -e .``, which builds its C extensions), removed afterwards.
The new environment reads its other packages (numpy, torch, ...) from the running interpreter's: its system site
when that is where they are, else (run from a virtual environment, as the README's set-up) that environment's
site-packages, listed in a ``.pth`` file of the new one; its own mjenv is the older tree's alone (the running
environment's editable mjenv is a ``.pth`` finder, which a path listed that way does not run).

Used by the before/after benchmarks (``cold_start.py``, ``train_ppo_throughput.py``) so that "before" is
the same command on the older code, run in the same session as "after".
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: main before the on-disk table cache and the batched training loop: the default "before".
BASE_COMMIT = "3afb4f4"


@contextlib.contextmanager
def base_tree(rev: str, python: str | None = None, tree: str | None = None) -> Iterator[tuple[str, str]]:
    """Yield ``(tree, python)`` of mjenv at ``rev``.

    Args:
        rev: any git revision of this repository.
        python, tree: an already installed tree to use instead (both, e.g. to repeat runs without
            rebuilding); then nothing is created or removed.
    """
    if python or tree:
        if not (python and tree):
            raise ValueError("give both --base-python and --base-tree, or neither")
        yield tree, python
        return
    with tempfile.TemporaryDirectory(prefix="mjenv-base-") as tmp:
        path = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev], check=True)
        try:
            print(f"installing {rev} in {path} (its own venv; about a minute) ...", file=sys.stderr, flush=True)
            subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(path / ".venv")], check=True)
            py = str(path / ".venv" / "bin" / "python")
            _see_running_packages(py)
            subprocess.run([py, "-m", "pip", "install", "--no-deps", "-q", "-e", str(path)], check=True,
                           stdout=subprocess.DEVNULL)
            yield str(path), py
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


def _see_running_packages(py: str) -> None:
    """Make the environment of interpreter ``py`` read the running virtual environment's packages (a ``.pth`` file
    listing its site-packages); nothing when this interpreter is not in a virtual environment (``--system-site-
    packages`` already gives its packages)."""
    if sys.prefix == sys.base_prefix:
        return
    import sysconfig

    mine = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    site = subprocess.run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], check=True,
                          capture_output=True, text=True).stdout.strip()
    Path(site, "_mjenv_running_packages.pth").write_text("".join(f"{d}\n" for d in mine))
