"""Flat MC's compiled simulation (``baselines/_flatmc.c``) gives the numpy path's wins bit for bit, so
the agent's decisions and win counts do not depend on the engine (the speed under taiwan16
comes with no change of results). The timing itself is ``benchmarks/flatmc_speed.py``."""

from __future__ import annotations

import numpy as np
import pytest
from mjenv.baselines import FlatMCAgent
from mjenv.baselines import flatmc as fm
from mjenv.baselines.flatmc import sample_draws, simulate

from .test_flatmc_rules import _afterstates, _observations, _situations


def test_the_compiled_simulation_is_built():
    # CI has a C compiler: a missing extension there is a packaging bug, not a fallback to accept
    assert fm._flatmc is not None


@pytest.mark.parametrize("rules", ["taiwan16", "basic", "sichuan"])
def test_simulate_engines_agree_bit_for_bit(rules, monkeypatch):
    capped = []
    cap = fm._cap_per_group
    monkeypatch.setattr(fm, "_cap_per_group", lambda *a: capped.append(1) or cap(*a))
    rng = np.random.default_rng(5)
    won = 0
    for s in _situations(rules, seed=21, every=2, limit=10):
        hands, needed, extra, forms = _afterstates(s, rules)
        rounds = min(s.wall_count // 4, 6)
        draws = sample_draws(s.kb, 60, 4 * rounds + 1, rng)
        for model in ("fp", "sp"):
            for ron in (False, True):
                kw = dict(model=model, allow_chow=rules != "sichuan", ron=ron, seven_pairs=forms,
                          excluded_suit=s.excluded_suit)  # fmt: skip
                got = simulate(hands, needed, extra, draws, **kw)
                assert got.tolist() == simulate(hands, needed, extra, draws, engine="numpy", **kw).tolist()
                won += int(got.sum())
    assert won > 100  # wins are compared, not only losses
    assert capped or rules != "taiwan16"  # and simulations past the cap of reachable hands


def test_engines_agree_past_the_cap_of_reachable_hands(monkeypatch):
    # eight pairs, and every round the three dummies discard tiles of them: the pongs branch three ways
    # a round, past MAX_STATES_PER_SIM by the fourth round, so the cap decides which hands are kept
    capped = []
    cap = fm._cap_per_group
    monkeypatch.setattr(fm, "_cap_per_group", lambda *a: capped.append(1) or cap(*a))
    hand = np.zeros((1, 34), dtype=np.int16)
    pairs = [0, 4, 8, 10, 14, 19, 23, 27]
    hand[0, pairs] = 2
    rng = np.random.default_rng(3)
    rows = []
    for _ in range(40):
        row = []
        for _ in range(6):
            row += [int(t) for t in rng.choice(pairs, 3, replace=False)] + [int(rng.integers(0, 34))]
        rows.append(row + [0])
    draws = np.array(rows, dtype=np.int16)
    draws[:, 3::4][:, :6] = np.array([1, 2, 3, 5, 6, 7], dtype=np.int16)  # own picks: one copy of each
    for ron in (False, True):
        got = simulate(hand, [5], [0], draws, ron=ron)
        assert got.tolist() == simulate(hand, [5], [0], draws, ron=ron, engine="numpy").tolist()
    assert capped


@pytest.mark.parametrize("rules", ["taiwan16", "basic"])
def test_agent_decisions_and_win_counts_do_not_depend_on_the_engine(rules):
    observations = _observations(rules, seed=31, every=3, limit=10)

    def run(engine: str) -> list:
        agent = FlatMCAgent(seed=7, simulations=1500, rules=rules, engine=engine)
        out = []
        for obs in observations:
            agent.last_result = None
            out.append(agent.act(obs))
            r = agent.last_result
            out.append(None if r is None else (r.wins.tolist(), r.sims.tolist(), r.alive.tolist(), r.iterations))
        return out

    fast = run("auto")
    assert sum(r is not None and sum(r[0]) > 0 for r in fast[1::2]) >= 3
    assert fast == run("numpy")


def test_counts_past_four_are_a_value_error_in_both_engines():
    hand = np.zeros((1, 27), dtype=np.int16)
    hand[0, 0] = 4
    draws = np.zeros((1, 5), dtype=np.int16)  # the own pick is a fifth copy of tile 0
    for engine in ("auto", "numpy"):
        with pytest.raises(ValueError, match="outside 0..4"):
            simulate(hand, [1], [0], draws, model="sp", engine=engine)
    with pytest.raises(ValueError, match="engine"):
        simulate(hand, [1], [0], draws, engine="c")
    with pytest.raises(ValueError, match="engine"):
        FlatMCAgent(engine="c")
