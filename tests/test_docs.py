"""The docs that make promises: the README's Quick start, CI running its test command, a docs folder of pages only."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Quick start", 1)[1]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.DOTALL)
    assert block, "the Quick start has no code block"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_quick_start_holds_exactly_two_commands_setup_then_tests():
    cmds = _quick_start_commands()
    assert len(cmds) == 2, cmds
    assert "pip install" in cmds[0] and "mjenv tournament" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_installs_like_the_readme_and_runs_its_test_command_verbatim():
    setup, tests = _quick_start_commands()
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()]
    install = re.search(r'pip install -q -e "[^"]*"', setup).group(0)  # the project's own install
    assert any(line.endswith(install) for line in ci), (install, ci)
    assert tests in ci, (tests, ci)


def test_docs_hold_pages_and_the_figures_they_show_not_experiment_data():
    docs = ROOT / "docs"
    data = [p for p in docs.rglob("*") if p.suffix in {".csv", ".json", ".jsonl", ".npz", ".pt", ".log"}]
    assert not data, f"experiment data belongs under research/, not docs/: {data}"
    pages = "\n".join(p.read_text() for p in docs.rglob("*.md"))
    unshown = [p for p in docs.rglob("*.png") if p.name not in pages]
    assert not unshown, f"docs/ keeps only figures a page shows; move these under research/: {unshown}"


def test_research_is_not_installed_and_benchmarks_holds_speed_runs():
    import ast

    from setuptools import find_packages

    # the packages setup.py installs: find_packages(include=[...]) plus the two mapped folders
    include = re.search(r"find_packages\(include=(\[[^\]]*\])\)", (ROOT / "setup.py").read_text())
    packages = find_packages(where=str(ROOT), include=ast.literal_eval(include.group(1)))
    assert "mjenv" in packages and not any(p.split(".")[0] == "research" for p in packages), packages
    studies = {"headroom", "outcome_predictability", "paper_tables", "shaping_study", "strength_ladder", "ndde_tables"}
    assert not studies & {p.stem for p in (ROOT / "benchmarks").glob("*.py")}
    assert studies <= {p.stem for p in (ROOT / "research").glob("*.py")}
