"""PettingZoo's own API and seed checks on the AEC and parallel envs."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import mjenv

#: both engines (the PettingZoo checks pass on each); the oracle view is the Python engine's
KWARGS = [
    {"engine": "compiled"},
    {"engine": "compiled", "shaping": "deficiency", "gamma": 0.95},
    {"engine": "python"},
    {"observation": "oracle", "shaping": "deficiency", "gamma": 0.95},
]


@pytest.mark.parametrize("kwargs", KWARGS)
def test_aec_api(kwargs):
    api_test(mjenv.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", KWARGS)
def test_parallel_api(kwargs):
    parallel_api_test(mjenv.parallel_env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_aec_seed(engine):
    seed_test(lambda: mjenv.env(shaping="deficiency", engine=engine), num_cycles=100)


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_parallel_seed(engine):
    parallel_seed_test(lambda: mjenv.parallel_env(shaping="deficiency", engine=engine), num_cycles=100)
