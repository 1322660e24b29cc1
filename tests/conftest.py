"""Shared test helpers: random hands and knowledge bases of every shape the definition allows."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("ci")

#: Test files run whole in the smoke tier (``pytest -m smoke``: under a minute on 2 cores; every layer:
#: tiles, rules, the game and its claims, the observation and features, the env APIs, shaping, agents, the
#: command line, the docs' promises), beside single tests marked ``@pytest.mark.smoke`` in other files.
SMOKE_FILES = frozenset({
    "test_tiles.py", "test_rules.py", "test_game_claims.py", "test_features.py", "test_observation.py",
    "test_env_api.py", "test_shaping.py", "test_agents.py", "test_cli.py", "test_docs.py",
})


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own (tryfirst too; a conftest registers later, so runs first)
def pytest_cmdline_main(config):
    """The suite on every core: pytest-xdist's ``-n auto --dist worksteal`` (an idle worker takes queued tests from a
    busy one; a ``--dist`` given is kept) unless ``-n`` was given (``-n 0``: one process) or xdist is not there (not
    installed, or ``-p no:xdist``): then one process, as plain pytest runs. (In ``addopts`` the flags broke a run
    without xdist: "unrecognized arguments: -n".)"""
    if (not config.pluginmanager.hasplugin("xdist") or config.getoption("numprocesses", None) is not None
            or hasattr(config, "workerinput")):  # a worker of a run already spread: it runs its share
        return
    config.option.numprocesses = "auto"
    if config.getoption("dist", "no") == "no":
        config.option.dist = "worksteal"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name in SMOKE_FILES and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.smoke)
    # the tests marked heavy first (otherwise in their order): a worker of ``-n`` that met one last would leave the
    # others idle while it runs
    items.sort(key=lambda item: item.get_closest_marker("heavy") is None)


SUITS = {0: range(0, 9), 1: range(9, 18), 2: range(18, 27), 3: range(27, 34)}
KB_MODES = ("full", "empty", "random", "tiny", "suit")


def random_case(rng: np.random.Generator, *, suits=(0, 1, 2), num_tile_types: int = 27, exposed: int = 0,
                extra: int = 1, kb_mode: str = "random", four_copies: bool = False, melds: int = 4):
    """A random hand (3m+1 or 3m+2 tiles, m = melds - exposed) drawn from the given suits, and a KB.

    Args:
        suits: suit indices the hand is drawn from (3 = honours, needs num_tile_types=34).
        extra: 1 for a 3m+1-tile hand, 2 for 3m+2.
        kb_mode: "full" (4 - H), "empty", "random" (each unseen copy kept with one random probability),
            "tiny" (1-3 copies), "suit" (random, restricted to the hand's suits).
        four_copies: force four copies of one tile into the hand.
    """
    tiles = np.concatenate([np.array(SUITS[s]) for s in suits])
    m = melds - exposed
    n = 3 * m + extra
    wall = np.repeat(tiles, 4)
    hand = np.zeros(num_tile_types, dtype=np.int64)
    if four_copies and n >= 4:
        t = rng.choice(tiles)
        hand[t] = 4
        wall = wall[wall != t]
        n -= 4
    n = min(n, len(wall))
    pick = rng.choice(len(wall), size=n, replace=False)
    np.add.at(hand, wall[pick], 1)
    rest = 4 - hand
    if kb_mode == "full":
        kb = rest
    elif kb_mode == "empty":
        kb = np.zeros_like(rest)
    elif kb_mode == "tiny":
        kb = np.zeros_like(rest)
        pool = np.repeat(np.arange(num_tile_types), rest)
        if len(pool):
            np.add.at(kb, rng.choice(pool, size=min(len(pool), int(rng.integers(1, 4))), replace=False), 1)
    elif kb_mode in ("random", "suit"):
        kb = rng.binomial(rest, rng.uniform(0.0, 1.0))
        if kb_mode == "suit":
            mask = np.zeros(num_tile_types, dtype=bool)
            mask[tiles] = True
            kb = np.where(mask, kb, 0)
    else:
        raise ValueError(kb_mode)
    return hand.astype(np.int8), kb.astype(np.int8)


@functools.cache
def contains_reference(counts: tuple, melds: int, pair: int) -> bool:
    """Some tiles of ``counts`` (a tuple of 27 or 34) form ``melds`` melds and ``pair`` (0 or 1) pairs:
    the lowest held tile is left out once, or starts a pong, a pair or a chow (plain recursion)."""
    if melds == 0 and pair == 0:
        return True
    t = next((i for i, c in enumerate(counts) if c), -1)
    if t < 0:
        return False
    c = list(counts)
    c[t] -= 1
    if contains_reference(tuple(c), melds, pair):  # a copy of the lowest tile left out of the pattern
        return True
    c[t] += 1
    if melds and c[t] >= 3:
        c[t] -= 3
        if contains_reference(tuple(c), melds - 1, pair):
            return True
        c[t] += 3
    if pair and c[t] >= 2:
        c[t] -= 2
        if contains_reference(tuple(c), melds, 0):
            return True
        c[t] += 2
    if melds and t < 27 and t % 9 <= 6 and c[t + 1] and c[t + 2]:
        for u in (t, t + 1, t + 2):
            c[u] -= 1
        if contains_reference(tuple(c), melds - 1, pair):
            return True
    return False
