"""The observation writer and the numpy feature evaluator: one writer call over many states equals one
call per state on both paths; the part cache is shared, bounded and exact."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mjenv
from mjenv.deficiency import seat_features
from mjenv.deficiency.seat_features import DeficiencyFeatures, PartCache
from mjenv.knowledge import knowledge_bases
from mjenv.observation import ObservationSpec, seven_pairs_form

from .test_observation import _states


@pytest.fixture(params=["kernel", "numpy"])
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    return request.param


@pytest.mark.parametrize("oracle", [False, True])
def test_one_writer_call_over_many_states_equals_one_call_each(oracle, path):
    spec = ObservationSpec("basic", oracle=oracle)
    assert spec.compiled == (path == "kernel")
    games = _states(11, 120)[::7] + _states(12, 300)[-3:]  # claim windows, discards, melds, the end
    got, got_def = spec.observe_many(games, [spec.new_memo() for _ in games])
    assert got.shape == (len(games), 4, spec.size) and got_def.shape == (len(games), 4)
    for i, g in enumerate(games):
        want, want_def = spec.observe(g)
        np.testing.assert_array_equal(got[i], want)
        np.testing.assert_array_equal(got_def[i], want_def)
        views = spec.decode(want)
        np.testing.assert_array_equal(views["knowledge_base"], knowledge_bases(g))  # the KB's one writer
        np.testing.assert_array_equal(views["hand"], g.hands)
    assert len({int(g.phase) for g in games}) >= 3 and any(int(g.last_discard) >= 0 for g in games)
    assert any(g.num_melds(s) for g in games for s in range(4))


def test_the_two_writers_execute_the_same_plan_on_every_preset():
    from mjenv.rulesets import shared_names

    for rules in sorted(shared_names()):  # the presets the shared writer plays
        fast = ObservationSpec(rules, oracle=True)
        ref = ObservationSpec(rules, oracle=True)
        ref.__dict__["features"] = DeficiencyFeatures(ref.num_tile_types, ref.rules.melds, backend="numpy",
                                                   seven_pairs=seven_pairs_form(ref.rules))
        games = _states(5, 200, rules=rules)[::9]
        a, da = fast.observe_many(games)
        b, db = ref.observe_many(games)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(da, db)


def test_a_tiny_part_cache_equals_a_large_one():
    # a cache that overflows every few steps (started over, pool rows reused) gives the same features
    small = ObservationSpec("basic")
    large = ObservationSpec("basic")
    small.__dict__["features"] = DeficiencyFeatures(27, backend="numpy", cache=PartCache(max_parts=9))
    large.__dict__["features"] = DeficiencyFeatures(27, backend="numpy", cache=PartCache())
    for g in _states(13, 150):
        np.testing.assert_array_equal(small.observe(g)[0], large.observe(g)[0])
    assert small.features.stats["part_misses"] > large.features.stats["part_misses"] > 0
    # at most max_parts, or the distinct parts of one call when that is more (4 seats x 3 suits + claims)
    assert len(small.features.cache.index) <= 4 * 3 + 5 and len(small.features.cache.pool) <= 1024


def test_the_part_cache_is_bounded_and_shared_by_every_numpy_env(path):
    # bounded: never more than max_parts entries, however many distinct parts it is asked for
    cache = PartCache(max_parts=50)
    rng = np.random.default_rng(0)
    for _ in range(20):
        codes = rng.integers(0, 3, (17, 9), dtype=np.uint8)  # codes 0..2: h + KB <= 1 everywhere
        cache.rows([bytes(c) for c in codes])
        assert len(cache.index) <= 50 and len(cache.pool) <= 1024
    with pytest.raises(ValueError, match="max_parts"):
        PartCache(max_parts=0)
    envs = [mjenv.parallel_env(), mjenv.vector_env(2)]
    caches = {id(e.spec.features.cache) for e in envs}
    if path == "numpy":  # one cache for the process, at most SHARED.max_parts parts
        assert caches == {id(seat_features.SHARED)}
        assert seat_features.SHARED.max_parts * seat_features.SHARED.pool[0].nbytes < 20e6


@pytest.mark.slow
def test_four_numpy_envs_stay_under_300_mb_after_1000_hands_each():
    script = textwrap.dedent("""
        import resource, numpy as np, mjenv
        envs = [mjenv.parallel_env(rules=r) for r in ("basic", "honours", "sichuan", "taiwan16")]
        rng = np.random.default_rng(0)
        for h in range(1000):
            for e in envs:
                obs, infos = e.reset(seed=h)
                while e.agents:
                    obs, _, _, _, infos = e.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                                                  for a in e.agents if infos[a]["needs_action"]})
        print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
    """)
    env = {**os.environ, "MJENV_NO_KERNEL": "1", "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    peak_mb = int(out.stdout.split()[-1])
    assert peak_mb < 300, f"peak RSS {peak_mb} MB"


class _WithMeldsNeeded(ObservationSpec):
    """A spec with one more view: what adding a view of a fact the state record has takes."""

    def _view_list(self):
        return [*super()._view_list(),
                mjenv.observation.View("melds_needed", (4,), 0, 5, "melds each seat still needs", "melds_needed",
                                       "relative")]


def test_a_view_of_a_state_field_is_one_edit_and_both_writers_show_it():
    spec = _WithMeldsNeeded("basic")
    ref = _WithMeldsNeeded("basic")
    ref.__dict__["features"] = DeficiencyFeatures(27, backend="numpy")
    base = ObservationSpec("basic")
    for g in _states(21, 250)[::10]:
        got = spec.observe(g)[0]
        np.testing.assert_array_equal(got, ref.observe(g)[0])
        np.testing.assert_array_equal(got[:, : base.size], base.observe(g)[0])  # the old views are unchanged
        for s in range(4):
            want = [4 - g.num_melds((s + i) % 4) for i in range(4)]
            np.testing.assert_array_equal(spec.decode(got[s])["melds_needed"], want)
    assert any(g.num_melds(s) for g in _states(21, 250) for s in range(4))
