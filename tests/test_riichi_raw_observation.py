"""``observation="raw"`` for Riichi: the observation without the views derived per tile from the own hand (the
deficiency features and the per-discard tenpai and yaku facts), on both engines and in every shell.

The reference is the full observation itself: a raw env and a default env play the same seeds and actions side by
side, and every raw row must be the full row's kept columns, with the same infos (the deficiency the infos give is
still computed). The compiled engine's arrays equal the Python engine's (``tests/test_riichi_compiled.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

import mjenv
from mjenv import AGENTS
from mjenv.rulesets.riichi import compiled
from mjenv.rulesets.riichi.observation import DERIVED, spec
from tests.riichi_game_helpers import make_game

ENGINES = ["python", "compiled"] if compiled.available() else ["python"]


def test_the_raw_spec_is_the_full_spec_without_the_derived_views():
    full, raw = spec(), spec(raw=True)
    assert list(raw.views) == [v for v in full.views if v not in DERIVED]
    assert raw.size == full.size - sum(int(np.prod(full.views[v])) for v in DERIVED)
    for v in raw.views:
        assert raw.views[v] == full.views[v]
        np.testing.assert_array_equal(raw.low[raw.slices[v]], full.low[full.slices[v]])
        np.testing.assert_array_equal(raw.high[raw.slices[v]], full.high[full.slices[v]])
    assert "deficiency" not in raw.markdown_table() and "knowledge_base" in raw.markdown_table()


@pytest.mark.parametrize("engine", ENGINES)
def test_every_shell_has_the_raw_space(engine):
    size = spec(raw=True).size
    env = mjenv.parallel_env(rules="riichi", engine=engine, observation="raw")
    assert env.observation_space(AGENTS[0])["observation"].shape == (size,)
    obs, _ = env.reset(seed=0)
    assert obs[AGENTS[0]]["observation"].shape == (size,)
    aec = mjenv.env(rules="riichi", engine=engine, observation="raw")
    aec.reset(seed=0)
    assert aec.observe(AGENTS[0])["observation"].shape == (size,)
    venv = mjenv.vector_env(3, rules="riichi", engine=engine, observation="raw")
    obs, _ = venv.reset(seed=0)
    assert obs["observation"].shape == (3, 4, size) == venv.observation_space["observation"].shape
    assert venv.observation_space["observation"].contains(obs["observation"])
    with pytest.raises(ValueError, match=r"observation must be one of \('default', 'planes', 'raw'\)"):
        mjenv.parallel_env(rules="riichi", engine=engine, observation="lean")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("observers", ["all", "acting"])
def test_raw_rows_are_the_full_rows_kept_columns(engine, observers):
    kept = spec(raw=True)._kept
    raw = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, observation="raw", observers=observers,
                             shaping="deficiency", gamma=0.95)
    full = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, observers=observers,
                              shaping="deficiency", gamma=0.95)
    rows = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        (oa, ia), (of, inf) = raw.reset(seed=seed), full.reset(seed=seed)
        while True:
            for a in AGENTS:
                np.testing.assert_array_equal(oa[a]["observation"], of[a]["observation"][kept])
                np.testing.assert_array_equal(oa[a]["action_mask"], of[a]["action_mask"])
                assert ia[a] == inf[a]
                rows += 1
            if not full.agents:
                break
            acts = {a: int(rng.choice(np.flatnonzero(of[a]["action_mask"]))) for a in AGENTS if inf[a]["needs_action"]}
            oa, ra, _, _, ia = raw.step(acts)
            of, rf, _, _, inf = full.step(acts)
            assert ra == rf  # the shaping reads the same deficiencies
    assert rows > 1000


@pytest.mark.parametrize("engine", ENGINES)
def test_raw_vector_rows_are_the_full_rows_kept_columns(engine):
    kept = spec(raw=True)._kept
    n = 4
    vr = mjenv.vector_env(n, rules="riichi", episode="hand", engine=engine, observation="raw")
    vf = mjenv.vector_env(n, rules="riichi", episode="hand", engine=engine)
    (orw, irw), (of, inf) = vr.reset(seed=1), vf.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(300):
        np.testing.assert_array_equal(orw["observation"], of["observation"][..., kept])
        np.testing.assert_array_equal(irw["deficiency"], inf["deficiency"])
        masks = of["action_mask"]
        acts = (rng.random(masks.shape) * masks).argmax(axis=2)
        orw, rr, dr, _, irw = vr.step(acts)
        of, rf, df, _, inf = vf.step(acts)
        np.testing.assert_array_equal(rr, rf)
        np.testing.assert_array_equal(dr, df)
        np.testing.assert_array_equal(irw["final_obs"]["observation"], inf["final_obs"]["observation"][..., kept])


@pytest.mark.parametrize("engine", ENGINES)
def test_pettingzoo_api_tests_pass(engine):
    parallel_api_test(mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, observation="raw"),
                      num_cycles=300)
    api_test(mjenv.env(rules="riichi", episode="hand", engine=engine, observation="raw"), num_cycles=300)


@pytest.mark.parametrize("engine", ENGINES)
def test_closed_forms_give_the_infos_deficiency(engine):
    """Thirteen orphans and seven pairs hands (the closed forms the raw path computes without the features): the
    infos' deficiencies equal the Python engine's full observation's, at the deal and over the hand."""
    game, _ = make_game(["19m19p19s1234567z", "1122m3344p556s77z", "19m19p1s123z1155p", "2233m4466p66s788s"])
    wall = list(game.wall.tiles)
    raw = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, observation="raw")
    ref = mjenv.parallel_env(rules="riichi", episode="hand", engine="python")
    (_, ia), (_, ir) = raw.reset(seed=0, options={"wall": wall}), ref.reset(seed=0, options={"wall": wall})
    # tenpai in a closed form only (four melds and a pair are several tiles away); the dealer has drawn a 14th tile
    assert ir[AGENTS[0]]["deficiency"] <= 1 and ir[AGENTS[1]]["deficiency"] == 1
    rng = np.random.default_rng(0)
    while True:
        assert {a: ia[a]["deficiency"] for a in AGENTS} == {a: ir[a]["deficiency"] for a in AGENTS}
        if not ref.agents:
            break
        obs = ref._table.masks
        acts = {a: int(rng.choice(np.flatnonzero(obs[s]))) for s, a in enumerate(AGENTS) if ir[a]["needs_action"]}
        ia = raw.step(acts)[4]
        ir = ref.step(acts)[4]
