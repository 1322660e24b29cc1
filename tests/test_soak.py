"""Soak test: many hands over every rule preset, on the compiled path and on the numpy path
(``MJENV_NO_KERNEL=1``), checking invariants at every step and the process's memory.

Invariants: every live agent's action mask is non-empty and the action taken is in it; every tile's
copies are conserved (hands + melds + unclaimed discards + undrawn wall = 4); the observation is
finite; a finished hand's scores sum to zero. Memory: the process (four envs, one per preset) ends
under ``RSS_LIMIT_MB`` (four numpy-path envs under 300 MB), and its resident memory grows
by at most ``RSS_GROWTH_MB`` over the second half of the hands (bounded caches are full by then, so
growth there is a leak).

Each path runs in a fresh process (the environment variable is read when the observation engine is
built, and RSS is per process). The slow test plays ``MJENV_SOAK_HANDS`` hands per path (default
100,000, split over the presets); the default-suite test plays a few hands of each preset per path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RSS_GROWTH_MB = 64.0
RSS_LIMIT_MB = 300.0


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def soak(hands: int, seed: int = 0) -> dict:
    """Play ``hands`` hands (split over the presets) with random legal actions; check invariants.

    Returns:
        {"hands", "steps", "rss_warm_mb" (after a tenth of the hands), "rss_mid_mb" (after half),
        "rss_end_mb", "path"}; raises AssertionError on a broken invariant.
    """
    import numpy as np

    import mjenv
    from mjenv.rulesets import shared_names

    from .game_helpers import tile_totals

    presets = sorted(shared_names())  # the presets of the shared engine
    rng = np.random.default_rng(seed)
    envs = {p: mjenv.parallel_env(rules=p) for p in presets}
    steps = 0
    warm_at, mid_at = max(1, hands // 10), max(1, hands // 2)
    rss_warm = rss_mid = _rss_mb()
    for h in range(hands):
        if h == warm_at:
            rss_warm = _rss_mb()
        if h == mid_at:
            rss_mid = _rss_mb()
        env = envs[presets[h % len(presets)]]
        obs, _ = env.reset(seed=seed * 1_000_003 + h)
        while env.agents:
            game = env.game
            assert (tile_totals(game) == 4).all(), f"hand {h}: tiles not conserved"
            actions = {}
            for a in env.agents:
                legal = np.flatnonzero(obs[a]["action_mask"])
                assert len(legal) > 0, f"hand {h}: empty action mask for {a}"
                assert np.isfinite(obs[a]["observation"]).all(), f"hand {h}: non-finite observation"
                actions[a] = int(legal[rng.integers(len(legal))])
            obs, rewards, term, trunc, infos = env.step(actions)
            steps += 1
            if any(term.values()):
                scores = [infos[a]["scores"] for a in infos]
                assert sum(scores) == 0, f"hand {h}: scores {scores} do not sum to zero"
                assert not any(infos[a]["illegal_action"] for a in infos), f"hand {h}: a legal action was penalised"
        assert env.game.is_over
    path = "c" if envs[presets[0]].spec.features.backend == "c" else "numpy"
    return {"hands": hands, "steps": steps, "rss_warm_mb": rss_warm, "rss_mid_mb": rss_mid, "rss_end_mb": _rss_mb(),
            "path": path}


def _run(hands: int, no_kernel: bool) -> dict:
    env = {**os.environ, "MJENV_NO_KERNEL": "1" if no_kernel else "0"}
    code = f"import json; from tests.test_soak import soak; print(json.dumps(soak({hands})))"
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["path"] == ("numpy" if no_kernel else "c")
    assert out["hands"] == hands and out["steps"] > 10 * hands
    return out


@pytest.mark.parametrize("no_kernel", [False, True], ids=["kernel", "numpy"])
def test_soak_few_hands(no_kernel):
    out = _run(12, no_kernel)  # three hands of each preset
    assert out["rss_end_mb"] < RSS_LIMIT_MB, out


@pytest.mark.slow
@pytest.mark.timeout(0)
@pytest.mark.parametrize("no_kernel", [False, True], ids=["kernel", "numpy"])
def test_soak(no_kernel):
    hands = int(os.environ.get("MJENV_SOAK_HANDS", "100000"))
    out = _run(hands, no_kernel)
    print(json.dumps(out))
    assert out["rss_end_mb"] - out["rss_mid_mb"] < RSS_GROWTH_MB, out
    assert out["rss_end_mb"] < RSS_LIMIT_MB, out
