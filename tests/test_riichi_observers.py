"""The Riichi env's ``observers`` argument: ``"all"`` (the default: every seat observed every step) and ``"acting"``
(only the seats that must act, and every seat after a deal and at a hand's or the game's end), on both engines and
in every shell.

The reference is the default itself: an ``"acting"`` env and an ``"all"`` env play the same seeds and actions side
by side; an observed seat's row must equal the ``"all"`` env's row, every other row must be zeros, and an unobserved
seat's ``infos["deficiency"]`` must be the one the ``"all"`` env gave it at the seat's last observed step. The
compiled engine's arrays equal the Python engine's with either argument (``tests/test_riichi_compiled.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test

import mjenv
from mjenv import AGENTS
from mjenv.rulesets.riichi import compiled
from tests.riichi_game_helpers import assert_checked_in_every_shell

ENGINES = ["python", "compiled"] if compiled.available() else ["python"]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_argument_is_checked_in_every_shell(engine):
    assert_checked_in_every_shell(engine, "observers", "some",
                                  r"observers must be one of \('all', 'acting'\), got 'some'")


def _observed(infos_all: dict, phase: str, dealt: bool) -> set[str]:
    """The agents an ``"acting"`` env observes: the acting ones, or all after a deal and at an end."""
    if dealt or phase in ("hand_over", "game_over"):
        return set(AGENTS)
    return {a for a in AGENTS if infos_all[a]["needs_action"]}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("episode", "window"), [("hand", "always"), ("east", "when_possible")])
def test_acting_rows_are_the_default_rows_and_the_others_zeros(engine, episode, window):
    acting = mjenv.parallel_env(rules="riichi", episode=episode, engine=engine, claim_window=window,
                                observers="acting", shaping="deficiency", gamma=0.9)
    full = mjenv.parallel_env(rules="riichi", episode=episode, engine=engine, claim_window=window,
                              shaping="deficiency", gamma=0.9)
    zeros_seen = shown_seen = 0
    for seed in range(6 if episode == "hand" else 1):
        rng = np.random.default_rng(seed)
        (oa, ia), (of, inf) = acting.reset(seed=seed), full.reset(seed=seed)
        last = {a: inf[a]["deficiency"] for a in AGENTS}  # every seat is observed after the deal
        dealt, step = True, 0
        while True:
            phase = inf[AGENTS[0]]["phase"]
            shown = _observed(inf, phase, dealt)
            for a in AGENTS:
                np.testing.assert_array_equal(oa[a]["action_mask"], of[a]["action_mask"])
                assert ia[a]["needs_action"] == inf[a]["needs_action"]
                if a in shown:
                    np.testing.assert_array_equal(oa[a]["observation"], of[a]["observation"], f"step {step} {a}")
                    last[a] = inf[a]["deficiency"]
                    shown_seen += 1
                else:
                    assert not oa[a]["observation"].any(), f"step {step}: {a} does not act but has a row"
                    zeros_seen += 1
                assert ia[a]["deficiency"] == last[a], f"step {step} {a}"
            if not full.agents:
                assert not acting.agents
                break
            acts = {a: int(rng.choice(np.flatnonzero(of[a]["action_mask"]))) for a in AGENTS
                    if inf[a]["needs_action"]}  # fmt: skip
            hands_before = len(full.log()["hands"])
            oa, ra, _, _, ia = acting.step(acts)
            of, rf, _, _, inf = full.step(acts)
            dealt = len(full.log()["hands"]) > hands_before  # a new hand was dealt in the step
            # the shaping reads the deficiencies the infos give (the last observed ones for a seat that waits)
            assert set(ra) == set(rf)
            step += 1
    assert zeros_seen > 100 and shown_seen > 100


@pytest.mark.parametrize("engine", ENGINES)
def test_vector_rows_and_resets(engine):
    """The vector env: the rows of seats that do not act are zeros, every row after an autoreset's deal is filled,
    and the acting rows equal the default env's."""
    n = 4
    va = mjenv.vector_env(n, rules="riichi", episode="hand", engine=engine, observers="acting",
                          claim_window="when_possible")
    vf = mjenv.vector_env(n, rules="riichi", episode="hand", engine=engine, claim_window="when_possible")
    (oa, ia), (of, inf) = va.reset(seed=3), vf.reset(seed=3)
    rng = np.random.default_rng(3)
    fresh = np.ones(n, dtype=bool)
    resets = 0
    for _ in range(400):
        shown = inf["needs_action"] | fresh[:, None]
        np.testing.assert_array_equal(oa["observation"][shown], of["observation"][shown])
        assert not oa["observation"][~shown].any()
        np.testing.assert_array_equal(oa["action_mask"], of["action_mask"])
        masks = of["action_mask"]
        acts = (np.cumsum(masks, axis=2) <= rng.random((n, 4, 1)) * masks.sum(axis=2, keepdims=True)).sum(axis=2)
        oa, _, da, _, ia = va.step(acts)
        of, _, df, _, inf = vf.step(acts)
        np.testing.assert_array_equal(da, df)
        # an ended hand's last observation shows every seat
        np.testing.assert_array_equal(ia["final_obs"]["observation"][df], inf["final_obs"]["observation"][df])
        fresh = df.copy()
        resets += int(df.sum())
    assert resets > 5


@pytest.mark.parametrize("engine", ENGINES)
def test_pettingzoo_api_tests_pass(engine):
    parallel_api_test(mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, observers="acting"),
                      num_cycles=300)
    api_test(mjenv.env(rules="riichi", episode="hand", engine=engine, observers="acting"), num_cycles=300)
