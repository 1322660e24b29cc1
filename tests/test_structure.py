"""The house's structure: no import loops, rule-set words kept in the rooms, and a rule set added as one
folder plus one registry line (docs/ARCHITECTURE.md, "Rule sets are rooms")."""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mjenv
from mjenv import rulesets
from mjenv.game import Game
from mjenv.rules import PRESET_NAMES, get_rules

ROOT = Path(__file__).resolve().parents[1]
SOURCE_DIRS = ("mjenv", "baselines", "wrappers")
RULE_WORDS = re.compile(r"sichuan|taiwan|missing_suit|bloody|flower|riichi|dora", re.IGNORECASE)
#: Source files outside mjenv/rulesets/*/ that name a rule set or its fields, each for a reason: the Rules
#: fields themselves (rules.py), the deficiency layer's public ``missing_suit=`` / ``rules="riichi"`` and the
#: one module mapping those names to forms (deficiency/__init__.py, deficiency/forms.py), and the public Riichi
#: facade (riichi.py). A new file here is a rule-specific branch in shared code.
RULE_WORD_FILES = {
    "mjenv/deficiency/__init__.py", "mjenv/deficiency/forms.py", "mjenv/riichi.py", "mjenv/rules.py",
}  # fmt: skip
#: The most files outside the rooms that may name a rule set.
MAX_RULE_WORD_FILES = 6


def _sources(suffixes=(".py",)) -> list[Path]:
    return sorted(p for d in SOURCE_DIRS for p in (ROOT / d).rglob("*") if p.suffix in suffixes)


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[0] in ("wrappers", "baselines"):  # installed as mjenv.wrappers, mjenv.baselines
        parts = ["mjenv", *parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_extension(name: str) -> bool:
    """Whether ``name`` is a compiled extension module (its C source beside the package)."""
    parts = name.split(".")
    if parts[:2] in (["mjenv", "baselines"], ["mjenv", "wrappers"]):
        parts = parts[1:]
    return (ROOT.joinpath(*parts[:-1]) / (parts[-1] + ".c")).exists()


def import_graph() -> dict[str, set[str]]:
    """module -> the mjenv modules it imports anywhere (top level, in functions, under TYPE_CHECKING).

    ``from pkg import sub`` is an edge to the submodule ``sub`` (a package's own ``__init__`` runs first
    for every submodule; that is no loop of ours); a name that is not a module is an edge to ``pkg``.
    """
    files = _sources()
    mods = {_module(p): p for p in files}
    graph: dict[str, set[str]] = {}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                subs = [f"{base}.{a.name}" for a in node.names]
                found = [s for s in subs if s in mods or _is_extension(s)]
                deps.update(found)
                if len(found) < len(subs):
                    deps.add(base)
        deps = {("mjenv." + d) if d.split(".")[0] in ("wrappers", "baselines") else d for d in deps}
        graph[m] = {d for d in deps if d in mods and d != m}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_cycles_finds_a_loop_in_a_small_graph():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_has_the_known_edges():
    g = import_graph()
    assert "mjenv.game.engine" in g["mjenv.game.log"]  # replay builds games
    assert "mjenv.rulesets.protocol" in g["mjenv.rulesets.sichuan.game"]
    assert "mjenv.rulesets" in g["mjenv.game.engine"]  # the engine asks the registry, never a room by name
    assert not any(d.startswith("mjenv.rulesets.") for d in g["mjenv.game.engine"])


def test_no_import_loops_in_mjenv_baselines_and_wrappers():
    assert cycles(import_graph()) == []


def test_the_registry_imports_no_room_and_nothing_else_of_mjenv():
    assert import_graph()["mjenv.rulesets"] == set()


def test_rule_set_words_stay_in_the_rooms():
    found = {str(p.relative_to(ROOT)) for p in _sources((".py", ".c", ".h"))
             if not p.relative_to(ROOT).as_posix().startswith("mjenv/rulesets/")
             and RULE_WORDS.search(p.read_text(encoding="utf-8"))}  # fmt: skip
    assert found <= RULE_WORD_FILES, f"new rule-set words outside mjenv/rulesets/*/: {sorted(found - RULE_WORD_FILES)}"
    assert found == RULE_WORD_FILES, f"no longer naming a rule set (take them off the list): {RULE_WORD_FILES - found}"
    assert len(RULE_WORD_FILES) <= MAX_RULE_WORD_FILES


def test_the_shared_code_asks_the_registry_what_a_rule_set_changes():
    basic, sichuan, taiwan16 = (get_rules(n) for n in ("basic", "sichuan", "taiwan16"))
    assert rulesets.plays_on(sichuan) and not rulesets.plays_on(basic) and not rulesets.plays_on(taiwan16)
    declaring = get_rules({"name": "basic", "missing_suit": True})  # the room's fields, under any name
    assert rulesets.declares_suit(sichuan) and rulesets.declares_suit(declaring)
    assert not rulesets.plays_on(declaring) and not rulesets.declares_suit(basic)
    assert rulesets.excluded_suit_view(sichuan) == "missing_suit" and rulesets.excluded_suit_view(basic) is None
    assert rulesets.extra_tiles(taiwan16) == tuple(range(34, 42)) and rulesets.extra_tiles(sichuan) == ()
    parts = rulesets.render_parts()
    assert [p.position for p in parts] == sorted(p.position for p in parts) and len(parts) >= 2
    g = Game("basic", seed=0)
    assert all(p.seat_lines(g, 0) == [] and p.result_line(g) is None for p in parts)  # nothing for basic


def test_every_registered_room_is_a_folder_with_its_preset():
    assert PRESET_NAMES == rulesets.names()
    for name, module in rulesets.ROOMS.items():
        assert module == f"mjenv.rulesets.{name}"
        assert (ROOT / "mjenv" / "rulesets" / name / "__init__.py").exists()
        room = rulesets.room(name)
        assert room.name == name and get_rules(name) is room.preset
        own = rulesets.own_engine(name)
        if own is not None:  # the keywords its envs take (the wrappers pass them on): the protocol's ARGUMENTS
            assert "rules" in own.ARGUMENTS and all(isinstance(a, str) for a in own.ARGUMENTS)
            assert all(callable(getattr(own, f)) for f in ("make_parallel_env", "make_env", "make_vector_env"))
    assert rulesets.room("basic").engines == ("python", "compiled")
    assert rulesets.room("sichuan").engines == ("python", "compiled")  # through its compiled hooks
    with pytest.raises(ValueError, match="unknown rules 'nope'; allowed presets: basic, honours"):
        rulesets.room("nope")


def test_the_engine_calls_a_rooms_hooks_only_for_rules_that_turn_them_on():
    assert rulesets.game_hooks(get_rules("basic")) is None and rulesets.game_hooks(get_rules("taiwan16")) is None
    assert type(rulesets.game_hooks(get_rules("sichuan"))).__name__ == "SichuanHooks"
    tai = get_rules({"name": "honours", "scoring": "tai"})
    assert type(rulesets.game_hooks(tai)).__name__ == "TaiHooks"
    assert rulesets.engines(tai) == ("python",) and rulesets.engines(get_rules("honours")) == ("python", "compiled")


ROOM_SOURCE = '''
"""sevens: basic where seven pairs win too (a rule set for the test of adding a room)."""

from mjenv.rules import Rules
from mjenv.rulesets.protocol import GameHooks, RuleSet


class DoubleDraws(GameHooks):
    settles = True

    def settle(self, game, winners, deal_in, reason, scores):
        return 2 * scores


HOOKS = DoubleDraws()
ROOM = RuleSet(
    name="sevens",
    preset=Rules(name="sevens", seven_pairs=True, self_draw_points=5),
    summary="basic with seven pairs; self-draws pay double",
    uses=lambda rules: rules.name == "sevens",
    game_hooks="sevens_room",
)
'''


def test_a_new_room_is_one_folder_plus_one_registry_line(tmp_path, monkeypatch):
    """A room written in a temporary folder, registered by one line, plays in the env (the worked example
    of docs/ARCHITECTURE.md)."""
    (tmp_path / "sevens_room").mkdir()
    (tmp_path / "sevens_room" / "__init__.py").write_text(textwrap.dedent(ROOM_SOURCE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(rulesets.ROOMS, "sevens", "sevens_room")  # the one registry line
    try:
        rules = get_rules("sevens")
        assert rules.seven_pairs and rules.self_draw_points == 5
        env = mjenv.parallel_env(rules="sevens")
        assert env.engine == "python"  # the room lists only the Python engine
        rng = np.random.default_rng(0)
        totals = []
        for seed in range(12):
            obs, _ = env.reset(seed=seed)
            while env.agents:
                obs, rew, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                                         for a in env.agents})
            g = env.game
            assert g.rules.name == "sevens"
            if g.end_reason == "self_draw":  # the room's settle: twice the preset's 5 points from each
                assert sorted(g.scores.tolist()) == [-10, -10, -10, 30]
            totals.append(g.end_reason)
            assert mjenv.replay(g.log).result() == g.result()  # logs name the room and replay under it
        assert "self_draw" in totals or "discard" in totals
    finally:
        sys.modules.pop("sevens_room", None)
        rulesets._load.cache_clear()


HISTORY_TAGS = re.compile(
    r"\bissue[- ]?\d+|\bspeed\d+\b|\bkern\d+\b|\bsession [a-z]+\d|\bdefects? \d+\b", re.IGNORECASE
)
#: Its generated report quotes the studies' labels (the report in docs/ is generated from it).
HISTORY_TAG_EXEMPT = {"benchmarks/ndde_tables.py"}


def test_no_history_tags_in_code_and_comments():
    """History belongs in commit messages: no issue numbers, session or speed-run labels in the code."""
    dirs = (*SOURCE_DIRS, "benchmarks", "tests")
    found = []
    for d in dirs:
        for p in sorted((ROOT / d).rglob("*")):
            rel = p.relative_to(ROOT).as_posix()
            if p.suffix not in (".py", ".c", ".h") or rel in HISTORY_TAG_EXEMPT:
                continue
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
                if HISTORY_TAGS.search(line) and "HISTORY_TAGS" not in line:
                    found.append(f"{rel}:{i}: {line.strip()[:80]}")
    assert not found, "\n".join(found)


OWN_ENGINE_SOURCE = '''
"""A room with env shells of its own (stand-ins that record how they were built)."""

from mjenv.rules import Rules
from mjenv.rulesets.protocol import RuleSet


def make_parallel_env(**kwargs):
    return ("parallel", kwargs)


def make_env(**kwargs):
    return ("aec", kwargs)


def make_vector_env(num_envs, **kwargs):
    return ("vector", num_envs, kwargs)


ROOM = RuleSet(name="ownhouse", preset=Rules(name="ownhouse"), own_engine="ownhouse_room")
'''


def test_a_room_may_bring_its_own_engine_and_env_shells(tmp_path, monkeypatch):
    (tmp_path / "ownhouse_room").mkdir()
    (tmp_path / "ownhouse_room" / "__init__.py").write_text(textwrap.dedent(OWN_ENGINE_SOURCE))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(rulesets.ROOMS, "ownhouse", "ownhouse_room")
    try:
        assert mjenv.parallel_env(rules="ownhouse", seed_note=1) == ("parallel", {"rules": "ownhouse", "seed_note": 1})
        assert mjenv.env(rules={"name": "ownhouse"}) == ("aec", {"rules": {"name": "ownhouse"}})
        assert mjenv.vector_env(3, rules="ownhouse") == ("vector", 3, {"rules": "ownhouse"})
        assert rulesets.own_engine("basic") is None and rulesets.own_engine(get_rules("sichuan")) is None
        assert type(mjenv.parallel_env(rules="basic")).__name__ == "MahjongParallelEnv"
    finally:
        sys.modules.pop("ownhouse_room", None)
        rulesets._load.cache_clear()
