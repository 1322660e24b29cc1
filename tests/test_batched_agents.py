"""Agents deciding many rows in one call (``act_rows``) make exactly the decisions of ``act`` row by row."""

from __future__ import annotations

import numpy as np
import pytest
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DISCARD, act_rows
from mjenv.baselines.greedy import GreedyAgent, _greedy_rows
from mjenv.baselines.random_agent import RandomAgent

import mjenv
from mjenv.rulesets import shared_names


def _rows(rules: str, steps: int, seed: int):
    """Observation and mask rows of every seat of 8 tables, played half greedy, half at random."""
    venv = mjenv.vector_env(8, rules=rules)
    obs, _ = venv.reset(seed=seed)
    greedy = GreedyAgent(rules=rules)
    rng = np.random.default_rng(seed)
    out_o, out_m = [], []
    for _ in range(steps):
        o, m = obs["observation"], obs["action_mask"]
        flat_o, flat_m = o.reshape(-1, o.shape[-1]), m.reshape(-1, m.shape[-1])
        out_o.append(flat_o.copy())
        out_m.append(flat_m.copy())
        actions = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=2)
        by_greedy = rng.random(actions.shape) < 0.5
        rows = np.flatnonzero(by_greedy.reshape(-1))
        actions.reshape(-1)[rows] = GreedyAgent.act_rows([greedy] * len(rows), flat_o[rows], flat_m[rows])
        obs, *_ = venv.step(actions)
    return np.concatenate(out_o), np.concatenate(out_m)


@pytest.mark.parametrize("rules", shared_names())  # the presets the baseline agents' observations cover
def test_batched_greedy_equals_the_per_seat_agent(rules):
    o, m = _rows(rules, 150, seed=3)
    agents = [GreedyAgent(rules=rules) for _ in range(len(o))]
    got = act_rows(agents, o, m)
    want = np.array([a.act({"observation": x, "action_mask": y}) for a, x, y in zip(agents, o, m)])
    np.testing.assert_array_equal(got, want)
    # the batched path itself decided most rows, in every branch (not the per-seat fallback)
    _, done = _greedy_rows(agents[0], o, m.astype(bool))
    choice = m.sum(axis=1) > 1
    assert done[choice].mean() > 0.6, done[choice].mean()  # Sichuan: its declarations go per seat
    phase = np.argmax(agents[0]._decoder().decode(o)["phase"], axis=1)
    lay = agents[0].layout
    t = lay.num_tile_types
    fast = done & choice
    assert (fast & (phase == PHASE_DISCARD) & (got < t)).sum() > 100  # discards
    claims = fast & (phase == PHASE_CLAIM)
    if "missing_suit" not in agents[0]._decoder().slices:  # (Sichuan's claims come after a declaration: per seat)
        assert (claims & (got < lay.win)).sum() > 20  # claims taken (greedy takes any claim that does not hurt)


def test_batched_greedy_takes_wins_and_rejects_bad_rows():
    o, m = _rows("basic", 150, seed=4)
    agent = GreedyAgent()
    wins = np.flatnonzero(m[:, agent.layout.win] > 0)
    assert len(wins) > 0
    assert (GreedyAgent.act_rows([agent] * len(wins), o[wins], m[wins]) == agent.layout.win).all()
    bad = m[:3].copy()
    bad[1] = 0
    with pytest.raises(ValueError, match="no legal action"):
        GreedyAgent.act_rows([agent] * 3, o[:3], bad)
    with pytest.raises(ValueError, match="one agent per row"):
        act_rows([agent] * 2, o[:3], m[:3])


def test_batched_random_draws_what_each_agent_would():
    o, m = _rows("honours", 40, seed=5)
    a = [RandomAgent(seed=100 + i % 4, rules="honours") for i in range(len(o))]
    b = [RandomAgent(seed=100 + i % 4, rules="honours") for i in range(len(o))]
    got = act_rows(a, o, m)
    want = np.array([x.act({"observation": y, "action_mask": z}) for x, y, z in zip(b, o, m)])
    np.testing.assert_array_equal(got, want)
    assert len(set(got.tolist())) > 3
    with pytest.raises(ValueError, match="masks must be"):
        RandomAgent.act_rows([RandomAgent()] * 2, o[:2], m[:2])  # basic agents, honours rows


def test_act_rows_mixes_agent_classes_in_row_order():
    o, m = _rows("basic", 20, seed=6)
    mixed = [GreedyAgent() if i % 3 else RandomAgent(seed=i) for i in range(len(o))]
    same = [GreedyAgent() if i % 3 else RandomAgent(seed=i) for i in range(len(o))]
    want = np.array([x.act({"observation": y, "action_mask": z}) for x, y, z in zip(same, o, m)])
    np.testing.assert_array_equal(act_rows(mixed, o, m), want)


def _riichi_rows(steps: int, seed: int):
    """Observation and mask rows of every seat of 16 Riichi tables (east games), played 70% by the greedy (so wins,
    riichi, kans and calls come up) and 30% at random."""
    from mjenv.rulesets.riichi.agents import RiichiGreedyAgent

    venv = mjenv.vector_env(16, rules="riichi", episode="east")
    obs, _ = venv.reset(seed=seed)
    greedy = [RiichiGreedyAgent() for _ in range(64)]
    rng = np.random.default_rng(seed)
    out_o, out_m = [], []
    for _ in range(steps):
        o, m = obs["observation"].reshape(64, -1), obs["action_mask"].reshape(64, -1)
        out_o.append(o.copy())
        out_m.append(m.copy())
        chosen = np.array([a.act({"observation": x, "action_mask": y}) for a, x, y in zip(greedy, o, m)])
        uniform = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=1)
        obs, *_ = venv.step(np.where(rng.random(64) < 0.7, chosen, uniform).reshape(16, 4))
    return np.concatenate(out_o), np.concatenate(out_m)


def test_batched_riichi_greedy_equals_the_per_seat_agent():
    from mjenv.rulesets.riichi import actions as A
    from mjenv.rulesets.riichi.agents import RiichiGreedyAgent

    o, m = _riichi_rows(300, seed=7)
    agents = [RiichiGreedyAgent(rules="riichi") for _ in range(len(o))]
    got = act_rows(agents, o, m)
    want = np.array([a.act({"observation": x, "action_mask": y}) for a, x, y in zip(agents, o, m)])
    np.testing.assert_array_equal(got, want)
    # every branch of the rules came up
    calls = (got >= A.CHI) & (got <= A.PON_RED)
    for name, picked in [("discards", got < A.DISCARD_RED), ("red fives", (got >= A.DISCARD_RED) & (got < A.KAN)),
                         ("riichi", got == A.RIICHI), ("wins", (got == A.TSUMO) | (got == A.RON)), ("calls", calls),
                         ("calls declined", (got == A.PASS) & m[:, A.CHI:A.PON_RED + 1].any(axis=1))]:
        assert picked.sum() >= 5, name


def test_batched_riichi_flatmc_decides_row_by_row():
    """The flat Monte Carlo agent chooses its discards by simulation: its rows go to act(), each drawing from its own
    generator in row order, exactly as one by one."""
    from mjenv.rulesets.riichi.agents import RiichiFlatMCAgent

    o, m = _riichi_rows(12, seed=8)
    rows = np.flatnonzero(m.sum(axis=1) > 1)[:12]
    a = [RiichiFlatMCAgent(seed=i % 3, simulations=20) for i in range(len(rows))]
    b = [RiichiFlatMCAgent(seed=i % 3, simulations=20) for i in range(len(rows))]
    want = np.array([x.act({"observation": y, "action_mask": z}) for x, y, z in zip(b, o[rows], m[rows])])
    np.testing.assert_array_equal(act_rows(a, o[rows], m[rows]), want)


def test_batched_riichi_calls_prefer_pon_then_the_plain_call_as_the_seat_does():
    """Rows made to tie (a yakuhai pon already declared, so every call keeps a yaku): the least deficiency, then pon
    before chi, then the plain call before its red-five twin; the batch agrees with act on each."""
    from mjenv.rulesets.riichi import actions as A
    from mjenv.rulesets.riichi.agents import RiichiGreedyAgent
    from mjenv.rulesets.riichi.observation import spec

    sl = spec().slices

    def row(after_claim, legal):
        o = np.zeros(spec().size, np.float32)
        o[sl["deficiency"]] = 3
        o[sl["last_discard"].start + 2] = 1  # 3m, a simple
        o[sl["seat_wind"].start] = o[sl["round_wind"].start] = 1
        o[sl["meld_kind"].start + 1] = 1  # the own first meld: a pon (kinds chi, pon, ...) ...
        o[sl["meld_tile"].start] = 32 + 1  # ... of white dragons: a yaku in hand
        o[sl["deficiency_after_claim"]] = after_claim
        m = np.zeros(A.N_ACTIONS, np.int8)
        m[[A.PASS, *legal]] = 1
        return o, m

    cases = [  # (deficiency after chi low / mid / high, pon, open kan), legal calls, the choice
        ([2, 2, 2, 2, -1], [A.CHI + 1, A.PON], A.PON),
        ([2, 1, 2, 2, -1], [A.CHI + 1, A.PON], A.CHI + 1),
        ([2, 2, 2, 3, -1], [A.CHI + 1, A.PON], A.CHI + 1),  # the pon does not lower it
        ([2, 2, 2, 2, -1], [A.CHI + 1, A.CHI_RED + 1], A.CHI + 1),
        ([2, 2, 2, 2, -1], [A.PON, A.PON_RED], A.PON),
        ([3, 3, 3, 3, -1], [A.CHI + 1, A.PON], A.PASS),  # nothing lowers the deficiency
    ]
    agent = RiichiGreedyAgent()
    o, m = (np.stack(x) for x in zip(*(row(d, legal) for d, legal, _ in cases)))
    want = [choice for *_, choice in cases]
    assert [agent.act({"observation": x, "action_mask": y}) for x, y in zip(o, m)] == want
    assert RiichiGreedyAgent.act_rows([agent] * len(cases), o, m).tolist() == want
