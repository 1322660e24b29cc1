"""PettingZoo's own API and seed checks on the AEC and parallel envs."""

from __future__ import annotations

import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import mjenv


@pytest.mark.parametrize("kwargs", [{}, {"observation": "oracle", "shaping": "deficiency", "gamma": 0.95}])
def test_aec_api(kwargs):
    api_test(mjenv.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", [{}, {"observation": "oracle", "shaping": "deficiency", "gamma": 0.95}])
def test_parallel_api(kwargs):
    parallel_api_test(mjenv.parallel_env(**kwargs), num_cycles=300)


def test_aec_seed():
    seed_test(lambda: mjenv.env(shaping="deficiency"), num_cycles=100)


def test_parallel_seed():
    parallel_seed_test(lambda: mjenv.parallel_env(shaping="deficiency"), num_cycles=100)
