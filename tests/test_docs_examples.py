"""The documentation's code runs, as Farama tests theirs: every ```python block of README.md and of
docs/**/*.md is executed, and the README's tables are the ones the code derives.

A block runs in a fresh namespace in a scratch folder; a signature listing that is not meant to run
is fenced as ```text instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _python_blocks() -> list[tuple[str, int, str]]:
    out = []
    for path in DOCS:
        for i, block in enumerate(re.findall(r"^```python\n(.*?)^```", path.read_text(), re.DOTALL | re.MULTILINE)):
            out.append((str(path.relative_to(ROOT)), i, block))
    return out


BLOCKS = _python_blocks()


def test_the_docs_have_python_examples():
    files = {name for name, _, _ in BLOCKS}
    assert {"README.md", "docs/DESIGN.md"} <= files, files


@pytest.mark.parametrize("name, index, code", BLOCKS, ids=[f"{n}#{i}" for n, i, _ in BLOCKS])
def test_python_block_runs(name, index, code, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a block that writes files writes them here
    exec(compile(code, f"{name} (python block {index})", "exec"), {"__name__": "__docs__"})


def _readme() -> str:
    return (ROOT / "README.md").read_text()


def test_readme_tables_are_the_ones_the_code_derives():
    import mjenv.env
    from mjenv.game.actions import ActionLayout
    from mjenv.observation import ObservationSpec

    text = _readme()
    assert ObservationSpec("basic").markdown_table() in text, "README's observation table is stale"
    assert mjenv.env._action_table(ActionLayout(27)) in text, "README's action table is stale"


@pytest.mark.parametrize("preset", ["basic", "honours", "sichuan", "taiwan16"])
def test_readme_preset_row_matches_the_rules(preset):
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    r = get_rules(preset)
    row = next(line for line in _readme().splitlines() if line.startswith(f"| `{preset}`"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    chow = "yes" if r.allow_chow else "no"
    expected = [str(r.num_tiles), str(r.hand_size), f"{r.melds} + 1", chow, str(r.num_tile_types)]
    assert cells[1:7] == [*expected, str(ObservationSpec(r).size)], row


def test_readme_points_are_the_rules_scoring():
    from mjenv.game import Game, read_jsonl
    from mjenv.rules import get_rules

    r = get_rules("basic")
    text = " ".join(_readme().split())
    assert f"gives the winner **+{r.discard_win_points}** and the discarder **−{r.discard_win_points}**" in text
    assert f"takes **{r.self_draw_points} from each opponent** (+{3 * r.self_draw_points} for the winner" in text
    # and the game pays them so: replay a discard win and a self-draw win from the golden logs
    kinds = set()
    for log in ("basic_discard_win", "basic_self_draw_kong"):
        hand = read_jsonl(ROOT / "tests" / "golden" / f"{log}.jsonl")[0]
        g = Game(r, hand["seed"], dealer=hand["dealer"], wall=hand.get("wall"))
        for step in hand["steps"]:
            g.step({int(s): int(a) for s, a in step})
        (w,) = g.winners
        if g.deal_in >= 0:
            kinds.add("discard")
            assert g.scores[w] == r.discard_win_points and g.scores[g.deal_in] == -r.discard_win_points
        else:
            kinds.add("self-draw")
            assert g.scores[w] == 3 * r.self_draw_points
            assert all(g.scores[s] == -r.self_draw_points for s in range(4) if s != w)
    assert kinds == {"discard", "self-draw"}


def test_no_link_leaves_the_repository_and_relative_links_resolve():
    for path in DOCS:
        text = path.read_text()
        assert "../shared" not in text, f"{path.relative_to(ROOT)} links outside the repository"
    for path in (ROOT / "README.md", ROOT / "docs" / "DESIGN.md", ROOT / "docs" / "ARCHITECTURE.md"):
        for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", path.read_text()):
            if re.match(r"^[a-z]+://", target):
                continue
            assert (path.parent / target).exists(), f"broken link in {path.relative_to(ROOT)}: {target}"
