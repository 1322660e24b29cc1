"""Refactors change nothing a user sees: replayed hands match the digests recorded before them.

``tests/golden/behaviour_digest.json`` holds, per preset, one SHA-256 per seeded hand of everything
``mjenv.parallel_env`` showed (observations, masks, rewards, terminations, infos, the game log); see
``tests/behaviour_digest.py``. The default run replays the first hands of every preset on the compiled
kernel and on the numpy path; the slow run replays all of them on both.
"""

from __future__ import annotations

import json

import pytest

from tests.behaviour_digest import GOLDEN, PRESETS, digests

RECORDED = json.loads(GOLDEN.read_text())


@pytest.fixture(params=["kernel", "numpy"])
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    return request.param


def _check(preset: str, hands: int) -> None:
    want = RECORDED["presets"][preset][:hands]
    got = digests(preset, len(want))
    bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
    assert not bad, f"{preset}: {len(bad)} of {len(want)} hands differ from the recorded digest, first seeds {bad[:5]}"


@pytest.mark.parametrize("preset", PRESETS)
def test_first_hands_match_the_recorded_digest(preset, path):
    _check(preset, 60 if path == "kernel" else 16)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_all_recorded_hands_match(preset, path):
    _check(preset, RECORDED["hands"])
