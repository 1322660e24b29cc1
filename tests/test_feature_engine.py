"""The feature engine and the batched encoder: `encode_batch` equals `encode_all`; bounded caches stay exact."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.knowledge import knowledge_bases
from mjenv.observation import ObservationSpec

from .test_observation import _states


@pytest.mark.parametrize("oracle", [False, True])
def test_encode_batch_equals_encode_all_per_game(oracle):
    spec = ObservationSpec("basic", oracle=oracle)
    games = _states(11, 120)[::7] + _states(12, 300)[-3:]  # claim windows, discards, melds, the end
    kbs = np.stack([np.asarray(knowledge_bases(g), dtype=np.int8) for g in games])
    feats = [spec.seat_features(g, k) for g, k in zip(games, kbs)]
    stacked = {key: np.concatenate([f[key] for f in feats]) for key in feats[0]}
    got = spec.encode_batch(games, kbs, stacked)
    assert got.shape == (len(games), 4, spec.size)
    for i, g in enumerate(games):
        np.testing.assert_array_equal(got[i], spec.encode_all(g, kbs[i], feats[i]))
    phases = {int(g.phase) for g in games}
    assert len(phases) >= 3 and any(int(g.last_discard) >= 0 for g in games)
    assert any(len(m) for g in games for m in g.melds)


def test_feature_engine_with_a_tiny_cache_equals_a_large_one():
    # a cache that overflows every few steps (cleared, pool rows reused) gives the same features
    from mjenv.observation import DeficiencyFeatures

    spec = ObservationSpec("basic")
    small = DeficiencyFeatures(27, max_cache=9, backend="numpy")
    large = DeficiencyFeatures(27, backend="numpy")
    games = _states(13, 150)
    for g in games:
        kbs = np.asarray(knowledge_bases(g), dtype=np.int8)
        spec.__dict__["features"] = small
        a = spec.seat_features(g, kbs)
        spec.__dict__["features"] = large
        b = spec.seat_features(g, kbs)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    assert small.stats["part_misses"] > large.stats["part_misses"] > 0
