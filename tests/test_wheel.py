"""``python -m build`` makes an sdist and a wheel (kernel included) that install into a fresh venv, where
``mjenv tournament`` runs.

About 30 s: the build (sdist, then the wheel from the sdist, in build's isolated environment, which
fetches setuptools from the package index), a fresh venv, and one deal of the tournament. The fresh
venv gets the wheel without its dependencies (``--no-deps``); a ``.pth`` line points it at the
site-packages of the running interpreter for numpy and tqdm, so nothing is downloaded, and the
check that ``mjenv`` is imported from the venv (not the clone) keeps it honest.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _source_tree(dest: Path) -> Path:
    """The repository's files as a fresh clone has them (tracked, plus new files not ignored)."""
    files = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard"],
                           capture_output=True, text=True, check=True).stdout.splitlines()  # fmt: skip
    for rel in files:
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


@pytest.mark.heavy
@pytest.mark.timeout(300)
def test_build_sdist_and_wheel_install_in_a_fresh_venv_and_run_the_tournament(tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed to list the repository's files")
    src = _source_tree(tmp_path / "src")
    dist = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "build", "--outdir", str(dist), str(src)],
                       capture_output=True, text=True, timeout=240)  # fmt: skip
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (wheel,) = dist.glob("mjenv-*.whl")
    (sdist,) = dist.glob("mjenv-*.tar.gz")

    names = set(zipfile.ZipFile(wheel).namelist())
    assert "mjenv/py.typed" in names and "mjenv/mjenv_v0.py" in names
    assert "mjenv/baselines/data/pretrained_policy.pt" in names
    assert any(n.startswith("mjenv/deficiency/_kernel.") and n.endswith((".so", ".pyd")) for n in names), names
    assert not any(n.startswith(("wrappers/", "baselines/", "tests/")) for n in names)  # only under mjenv/
    from mjenv import rulesets

    for module in rulesets.ROOMS.values():  # every room is found by itself (no package list to edit)
        assert module.replace(".", "/") + "/__init__.py" in names, module
    members = {m.split("/", 1)[1] for m in tarfile.open(sdist).getnames() if "/" in m}
    assert {"README.md", "setup.py", "pyproject.toml", "mjenv/deficiency/_kernel.c", "mjenv/py.typed"} <= members

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                       capture_output=True, text=True, timeout=120)  # fmt: skip
    assert r.returncode == 0, r.stderr
    deps = [p for p in sys.path if p.endswith("site-packages") and not (Path(p) / "mjenv").exists()]
    deps.append(sysconfig.get_paths()["purelib"])
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())  # fmt: skip
    (site / "_mjenv_test_deps.pth").write_text("\n".join(dict.fromkeys(deps)) + "\n")

    work = tmp_path / "elsewhere"  # not the clone: `import mjenv` must find the installed wheel
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("MJENV_NO_KERNEL", "PYTHONPATH")}
    r = subprocess.run(
        [str(py), "-c", "import mjenv, mjenv.deficiency.kernel as k; print(mjenv.__file__); print(k.available())"],
        capture_output=True, text=True, cwd=work, timeout=60, env=env,
    )
    where, kernel = r.stdout.split()
    assert Path(where).is_relative_to(venv), where
    assert kernel == "True"
    r = subprocess.run([str(py), "-c", "import wrappers"], capture_output=True, text=True, cwd=work, timeout=60,
                       env=env)
    assert r.returncode != 0 and "No module named 'wrappers'" in r.stderr  # installed as mjenv.wrappers only
    r = subprocess.run([str(venv / "bin" / "mjenv"), "tournament", "--deals", "1", "--workers", "1", "--no-progress"],
                       capture_output=True, text=True, cwd=work, timeout=180, env=env)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "1 duplicate deals x 4 rotations = 4 hands" in r.stdout
    assert "| flatmc:sims=1000 |" in r.stdout
