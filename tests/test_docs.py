"""The docs that make promises: the README's Quick start, CI running its test command, BENCHMARKS.md."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks import assemble_docs

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
    install = re.search(r"pip install [^&]*", setup).group(0).strip()
    assert any(line.endswith(install) for line in ci), (install, ci)
    assert tests in ci, (tests, ci)


def test_benchmarks_page_is_assembled_from_its_sections():
    assert (ROOT / "docs" / "BENCHMARKS.md").read_text() == assemble_docs.assemble(), (
        "docs/BENCHMARKS.md is stale: run `python -m benchmarks.assemble_docs`"
    )


def test_benchmarks_page_links_resolve():
    text = (ROOT / "docs" / "BENCHMARKS.md").read_text()
    for target in re.findall(r"!?\[[^\]]*\]\(([^)\s#]+)\)", text):
        if re.match(r"^[a-z]+://", target):
            continue
        assert (ROOT / "docs" / target).exists(), f"broken link in docs/BENCHMARKS.md: {target}"
