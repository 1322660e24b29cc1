"""The docs site: the per-rule-set pages are the env's spec, and the site builds with warnings as errors."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _hook(name: str):
    spec = importlib.util.spec_from_file_location(f"_docs_hook_{name}", ROOT / "docs" / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGES = _hook("env_pages")


def test_every_rule_set_of_the_readme_has_a_page_in_the_nav():
    readme = (ROOT / "README.md").read_text()
    presets = re.findall(r"^\| `([a-z0-9_]+)`(?: \(default\))? \| \d+ \|", readme, re.MULTILINE)
    assert presets and set(presets) <= set(PAGES.rule_set_names()), presets
    pages = PAGES.pages()
    assert set(pages) == {"envs/index.md", *(f"envs/{n}.md" for n in PAGES.rule_set_names())}
    config = PAGES.on_config({"nav": [{"Home": "index.md"}, {"Environments": []}]})
    assert config["nav"][1]["Environments"] == [{"Overview": "envs/index.md"},
                                                *(f"envs/{n}.md" for n in PAGES.rule_set_names())]


@pytest.mark.parametrize("name", ["basic", "honours", "sichuan", "taiwan16"])  # the shared engine's
def test_env_page_holds_the_specs_tables(name):
    from mjenv.game.actions import ActionLayout
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    r = get_rules(name)
    page = PAGES.pages()[f"envs/{name}.md"]
    spec = ObservationSpec(r)
    assert spec.markdown_table() in page
    assert f"float32[{spec.size}]" in page and f"Discrete({ActionLayout.for_rules(r).size})" in page
    assert f"| `hand_size` | `{r.hand_size}` |" in page and f"| `flowers` | `{r.flowers}` |" in page
    # every action id has exactly one row, in order
    actions = page.split("## Actions", 1)[1].split("## Observation", 1)[0]
    ids = [(int(a), int(b or a)) for a, b in re.findall(r"^\| (\d+)(?:\.\.(\d+))? \|", actions, re.MULTILINE)]
    assert ids[0][0] == 0 and all(nxt[0] == prev[1] + 1 for prev, nxt in zip(ids, ids[1:])), ids
    assert ids[-1][1] == ActionLayout.for_rules(r).size - 1


def test_sichuan_page_lists_its_declarations_and_no_chow():
    page = PAGES.pages()["envs/sichuan.md"]
    for i, suit in zip((61, 62, 63), "smp"):
        assert f"| {i} | declare {suit} missing |" in page
    assert "never legal" in page and "Discrete(64)" in page
    assert "never legal" not in PAGES.pages()["envs/basic.md"]
    assert "each step rewards that step's score changes" in page.lower()


def test_index_page_has_one_row_per_rule_set_with_the_readmes_numbers():
    index = PAGES.pages()["envs/index.md"]
    readme = (ROOT / "README.md").read_text()
    for name in PAGES.rule_set_names():
        row = next(line for line in index.splitlines() if line.startswith(f"| [`{name}`]"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        readme_row = next((line for line in readme.splitlines() if line.startswith(f"| `{name}`")), None)
        if readme_row:  # tiles, hand, melds + pair, chow, T as the README says; N last
            readme_cells = [c.strip() for c in readme_row.strip("|").split("|")]
            assert cells[1:6] == readme_cells[1:6] and cells[-1] == readme_cells[6], (row, readme_row)


def test_ci_builds_the_site_strictly_before_the_tests():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    build = next(i for i, line in enumerate(ci) if "mkdocs build --strict" in line)
    tests = next(i for i, line in enumerate(ci) if line.strip().endswith("-m pytest"))
    install = next(i for i, line in enumerate(ci) if '".[docs]"' in line)
    assert install < build < tests


def test_site_builds_strictly(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        pytest.skip('the docs extra is not installed (pip install -e ".[docs]")')
    # as on a fresh clone: the API reference's copied sources (a generated folder) are not there yet
    shutil.rmtree(ROOT / "build" / "api_src", ignore_errors=True)
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, env={"NO_MKDOCS_2_WARNING": "1", **_env()})
    assert out.returncode == 0, out.stderr[-3000:]
    for page in ("index.html", "envs/sichuan/index.html", "api/env/index.html", "tutorials/ppo/index.html"):
        assert (tmp_path / "site" / page).exists(), page
    api = (tmp_path / "site" / "api" / "baselines" / "index.html").read_text()
    assert "GreedyAgent" in api and "evaluate" in api


def _env() -> dict:
    import os

    return dict(os.environ)


def test_a_room_with_its_own_engine_gets_its_page_from_its_own_spec():
    import importlib

    from mjenv import rulesets

    own = [n for n in rulesets.names() if rulesets.room(n).own_engine]
    assert own, "no room with its own engine to check"
    for name in own:
        module = importlib.import_module(rulesets.room(name).own_engine)
        page = PAGES.pages()[f"envs/{name}.md"]
        assert module.action_table() in page and module.observation_spec().markdown_table() in page
        actions = module.action_table()
        last = max(int(b or a) for a, b in re.findall(r"^\| (\d+)(?:\.\.(\d+))? \|", actions, re.MULTILINE))
        assert f"| actions | {last + 1} |" in page and f"| N (observation) | {module.observation_spec().size} |" in page
