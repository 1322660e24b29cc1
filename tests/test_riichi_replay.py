"""The referee: real Tenhou games replayed through mjenv's Riichi rules.

Every vendored game (tests/data/mjlog, see its NOTICE.md) must come out exactly: the number of
hands, each hand's score changes (against the log's ``sc=``, which only this test reads) and the
final scores and game points (against ``owari=``).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from mjenv.riichi import replay_mjlog, replay_mjlog_game

DATA = Path(__file__).parent / "data" / "mjlog"
LOGS = sorted(DATA.glob("*.mjlog"))
PARTIAL = {p.name for p in LOGS if p.name.startswith("partial-")}


def _expected(text: str) -> tuple[list[list[int]], list[int] | None, list[float] | None]:
    """Per-hand deltas from the log's own INIT ten= and the last sc= of each hand; owari= split."""
    root = ET.fromstring(text)
    deltas: list[list[int]] = []
    start: list[int] | None = None
    last_sc: list[int] | None = None
    owari = None
    for el in root:
        if el.tag == "INIT":
            if start is not None:
                deltas.append(_delta(start, last_sc))
            start = [int(x) * 100 for x in el.get("ten").split(",")]
            last_sc = None
        if el.tag in ("AGARI", "RYUUKYOKU"):
            last_sc = [int(x) for x in el.get("sc").split(",")]
            owari = el.get("owari", owari)
    deltas.append(_delta(start, last_sc))
    if owari is None:
        return deltas, None, None
    v = owari.split(",")
    return deltas, [int(v[2 * i]) * 100 for i in range(4)], [float(v[2 * i + 1]) for i in range(4)]


def _delta(start: list[int], sc: list[int]) -> list[int]:
    return [(sc[2 * i] + sc[2 * i + 1]) * 100 - start[i] for i in range(4)]


def test_vendored_logs_present():
    assert len(LOGS) >= 35
    assert sum(p.stat().st_size for p in LOGS) < 2_000_000
    for p in LOGS:
        text = p.read_text()
        assert "<UN " not in text, f"{p.name} still names the players"


@pytest.mark.parametrize("path", LOGS, ids=[p.stem for p in LOGS])
def test_replay_reproduces_every_hand(path):
    text = path.read_text()
    want_deltas, want_final, want_points = _expected(text)
    game = replay_mjlog_game(text)
    got = [h["deltas"] for h in game["hands"]]
    assert len(got) == len(want_deltas)
    for k, (g, w) in enumerate(zip(got, want_deltas)):
        assert g == w, f"hand {k + 1} ({game['hands'][k]['result']}): mjenv {g}, log {w}"
    if path.name in PARTIAL:
        assert want_final is None
    else:
        assert want_final is not None
        assert game["final_scores"] == want_final
        assert game["points"] == want_points
        assert sum(game["final_scores"]) == 100_000


def test_replay_mjlog_returns_one_dict_per_hand():
    text = (DATA / "double-ron.mjlog").read_text()
    hands = replay_mjlog(text)
    assert len(hands) == text.count("<INIT ")
    assert all(len(h["deltas"]) == 4 and all(isinstance(x, int) for x in h["deltas"]) for h in hands)


def test_edge_cases_are_covered():
    """The vendored set exercises the rare endings (the parametrized test checks their payments)."""
    results = {}
    for p in LOGS:
        for h in replay_mjlog(p.read_text()):
            results[h["result"]] = results.get(h["result"], 0) + 1
    for kind in ("agari", "exhaustive", "nm", "yao9", "kaze4", "reach4", "kan4", "ron3"):
        assert results.get(kind, 0) >= 1, kind


def test_replay_never_reads_the_logs_scores():
    """Scrambling every sc=/ten=/owari= in a log leaves mjenv's deltas unchanged."""
    text = (DATA / "pao-tsumo.mjlog").read_text()
    scrambled = re.sub(r'(sc|ten|owari)="[^"]*"', lambda m: f'{m.group(1)}="1,2,3,4,5,6,7,8"', text)
    assert replay_mjlog(scrambled) == replay_mjlog(text)
