"""``benchmarks/kernel_replay.py`` records the states the vector env observed: replaying its records gives the
env's observations byte for byte (the kernel's outputs do not depend on the memo's contents)."""

from __future__ import annotations

import numpy as np
import pytest

import mjenv
from benchmarks.kernel_replay import record
from mjenv.deficiency import kernel

pytestmark = pytest.mark.skipif(not kernel.available(), reason="the compiled kernel is not built")


@pytest.mark.parametrize("rules", ["basic", "taiwan16"])
def test_the_recorded_records_are_the_observed_states(rules):
    tables, steps, seed = 3, 40, 7
    spec, calls = record(tables, steps, seed, rules)
    assert len(calls) == steps
    assert all(r.shape == (tables, spec.state_size) and which == list(range(tables)) for r, which in calls)
    # the same env, the same seeds and actions: its last observation is of the last records
    venv = mjenv.vector_env(tables, rules=rules)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    for _ in range(steps):
        u = rng.random(obs["action_mask"].shape)
        obs, *_ = venv.step(np.argmax(np.where(obs["action_mask"] > 0, u, -1.0), axis=-1))
    out, _ = spec.observe_records(calls[-1][0], [spec.new_memo() for _ in range(tables)])
    np.testing.assert_array_equal(out, obs["observation"])
    assert len({r.tobytes() for r, _ in calls}) > steps // 2  # the states move from step to step
