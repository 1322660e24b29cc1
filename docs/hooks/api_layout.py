"""mkdocs hook: lay the package out for the API reference as it is installed.

``mjenv.baselines`` and ``mjenv.wrappers`` live in ``baselines/`` and ``wrappers/`` at the repository
root and are mapped under ``mjenv`` at install (``[tool.setuptools.package-dir]`` in pyproject.toml).
mkdocstrings reads sources by walking folders (symbolic links resolved), so this hook copies the
Python sources into ``build/api_src/mjenv/`` in the layout of the installed wheel, the two mapped
packages included, and the handler reads them there (``paths:`` in ``mkdocs.yml``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "build" / "api_src"


def layout() -> Path:
    """(Re)build the copied tree; returns the folder that holds ``mjenv/``."""
    mapped = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    shutil.rmtree(OUT, ignore_errors=True)
    sources = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.h", "data")
    shutil.copytree(ROOT / "mjenv", OUT / "mjenv", ignore=sources)
    for name, folder in mapped.items():
        shutil.copytree(ROOT / folder, OUT / name.replace(".", "/"), ignore=sources)
    return OUT


# Built when mkdocs loads this hook, before any plugin's ``on_config``: mkdocstrings' handler resolves its
# ``paths`` then, and a folder that is not there yet would be dropped (griffe would then find the repository's
# own ``mjenv/``, which has no ``baselines``). ``on_config`` builds it again for each rebuild of ``mkdocs serve``.
layout()


def on_config(config):
    layout()
    return config
