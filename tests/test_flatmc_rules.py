"""Flat MC's simulated win check under the rule set: seven pairs where the rules allow it,
no completion with a tile of the Sichuan missing suit, and ``basic`` exactly as before.

The reference here is independent of :mod:`mjenv.baselines.flatmc`: one simulation at a time in plain
Python (the rounds of SIMCAT Fig. 3 as the module docstring states them) and a recursive "does the hand
contain m melds and a pair" check, so it stands for the simulation of commit 7f97720 (before the
rule-set arguments) wherever those arguments are left at their defaults."""

from __future__ import annotations

import numpy as np
import pytest
from mjenv.baselines import FlatMCAgent, GreedyAgent
from mjenv.baselines import flatmc as fm
from mjenv.baselines.flatmc import MAX_STATES_PER_SIM, sample_draws, simulate

from mjenv import tiles
from mjenv.game import Game
from mjenv.observation import ObservationSpec

from .conftest import contains_reference


def _t(name: str) -> int:
    return int(tiles.parse(name, 27).argmax())


def _hand(text: str) -> np.ndarray:
    return tiles.parse(text, 27)[None]


def _sp_draws(picks: list[int], junk: int) -> np.ndarray:
    """SP draws: one round per own pick (the others' picks are ``junk``), no kong replacement."""
    row = []
    for p in picks:
        row += [junk, junk, junk, p]
    return np.array([row + [junk]], dtype=np.int16)


# ------------------------------------------------------------------------------ hand-built positions


def test_seven_pairs_wins_only_with_the_flag():
    # six pairs and 3s: the pick 3s makes seven pairs; no meld can form (pairs three ranks apart)
    hand = _hand("11m44m77m22p55p99s3s")
    draws = _sp_draws([_t("3s")], _t("9m"))
    for model in ("sp", "fp"):
        assert simulate(hand, [4], [0], draws, model=model).tolist() == [[False]]
        assert simulate(hand, [4], [0], draws, model=model, seven_pairs=np.array([1])).tolist() == [[True]]
        assert simulate(hand, [4], [0], draws, model=model, seven_pairs=np.array([0])).tolist() == [[False]]


def test_four_of_a_kind_counts_as_two_pairs_only_in_the_fours_form():
    hand = _hand("1111m44m77m22p55p3s")
    draws = _sp_draws([_t("3s")], _t("9m"))
    assert simulate(hand, [4], [0], draws, model="sp", seven_pairs=np.array([1])).tolist() == [[False]]
    assert simulate(hand, [4], [0], draws, model="sp", seven_pairs=np.array([2])).tolist() == [[True]]


def test_seven_pairs_applies_per_afterstate():
    hands = np.concatenate([_hand("11m44m77m22p55p99s3s")] * 2)
    draws = _sp_draws([_t("3s")], _t("9m"))
    assert simulate(hands, [4, 4], [0, 0], draws, model="sp", seven_pairs=np.array([0, 1])).tolist() == [
        [False],
        [True],
    ]


def test_a_completion_with_the_missing_suit_is_no_win():
    # 123456789m 456s 9p waits on 9p for the pair: that completion uses the dots
    hand = _hand("123456789m456s9p")
    draws = _sp_draws([_t("9p")], _t("9m"))
    assert simulate(hand, [4], [0], draws, model="sp").tolist() == [[True]]
    assert simulate(hand, [4], [0], draws, model="sp", excluded_suit=2).tolist() == [[False]]
    # seven pairs with a pair of the missing suit is no win either
    pairs = _hand("11m44m77m22p55p88p3m")  # no bamboo: with 3m, seven pairs of characters and dots
    three = _sp_draws([_t("3m")], _t("9m"))
    assert simulate(pairs, [4], [0], three, model="sp", seven_pairs=np.array([2]), excluded_suit=0).tolist() == [[True]]
    got = simulate(pairs, [4], [0], three, model="sp", seven_pairs=np.array([2]), excluded_suit=2)
    assert got.tolist() == [[False]]


def test_a_held_missing_suit_tile_outside_the_completion_does_not_stop_the_win():
    # 123456789m 11s 5s 9p; the picks 4s and 6s make 456s: the 9p is simply not part of the hand
    hand = _hand("123456789m11s5s9p")
    draws = _sp_draws([_t("4s"), _t("6s")], _t("9m"))
    assert simulate(hand, [4], [0], draws, model="sp", excluded_suit=2).tolist() == [[True]]


def test_no_pong_of_the_missing_suit_in_the_simulation():
    # 123456m 99p 11s 456s: a pong of the lower seat's 9p completes it; Sichuan forbids that pong
    hand = _hand("123456m99p11s456s")
    junk = _t("9m")
    draws = np.array([[_t("9p"), junk, junk, junk, junk]], dtype=np.int16)
    assert simulate(hand, [4], [0], draws, model="fp").tolist() == [[True]]
    assert simulate(hand, [4], [0], draws, model="fp", excluded_suit=2).tolist() == [[False]]


# --------------------------------------------------------------------------- independent reference


def _ref_complete(h: np.ndarray, needed: int, form: int, missing: int) -> bool:
    h = h.copy()
    if missing >= 0:
        h[9 * missing : 9 * missing + 9] = 0
    if contains_reference(tuple(int(x) for x in h), needed, 1):
        return True
    pairs = int((h >= 2).sum()) if form == 1 else int((h // 2).sum())
    return form > 0 and pairs >= 7


def _ref_simulate(hands, needed, extra, draws, model, allow_chow, ron, forms=None, missing=-1) -> np.ndarray:
    """One simulation at a time: every reachable hand of Fig. 3, then the win check of each."""
    n_a, n_t = hands.shape
    rounds = (draws.shape[1] - 1) // 4
    forms = np.zeros(n_a, np.int64) if forms is None else forms
    out = np.zeros((n_a, len(draws)), dtype=bool)
    for a in range(n_a):
        for s, d in enumerate(draws):
            h0 = hands[a].astype(np.int64).copy()
            if extra[a]:
                h0[d[-1]] += 1
            states, tried = [(h0, int(needed[a]))], []
            if model == "sp" or rounds == 0:
                for i in range(rounds):
                    h0[d[4 * i + 3]] += 1
            else:
                for i in range(rounds):
                    low, opp, up, own = (int(x) for x in d[4 * i : 4 * i + 4])
                    discards = list(dict.fromkeys((low, opp, up)))  # each distinct tile once
                    if ron:
                        tried += [(h + np.eye(n_t, dtype=np.int64)[t], m) for t in discards for h, m in states]
                    kids = [(h + np.eye(n_t, dtype=np.int64)[own], m) for h, m in states]
                    for t in discards:
                        for h, m in states:
                            if m >= 1 and h[t] >= 2 and t // 9 != missing:
                                kids.append((h - 2 * np.eye(n_t, dtype=np.int64)[t], m - 1))
                    if allow_chow and up < 27 and up // 9 != missing:
                        for lo, hi in ((1, 2), (-1, 1), (-2, -1)):
                            if not (0 <= up % 9 + lo and up % 9 + hi <= 8):
                                continue
                            for h, m in states:
                                if m >= 1 and h[up + lo] >= 1 and h[up + hi] >= 1:
                                    k = h.copy()
                                    k[up + lo] -= 1
                                    k[up + hi] -= 1
                                    kids.append((k, m - 1))
                    assert len(kids) <= MAX_STATES_PER_SIM, "keep the reference positions under the cap"
                    states = kids
            out[a, s] = any(_ref_complete(h, m, forms[a] if m == needed[a] else 0, missing) for h, m in states + tried)
    return out


def _observations(rules: str, seed: int, every: int, limit: int, own_discard: bool = False) -> list[dict]:
    """Every ``every``-th real decision (more than one legal action; with ``own_discard`` only own-turn
    discards) of a seeded greedy self-play hand, as observation dicts."""
    spec = ObservationSpec(rules=rules)
    agents = [GreedyAgent(seed=i, rules=rules) for i in range(4)]
    g = Game(rules=rules, seed=seed)
    out, k = [], 0
    while not g.is_over and len(out) < limit:
        actions = {}
        for seat in g.acting_seats():
            obs = {"observation": spec.encode(g, seat), "action_mask": g.legal_action_mask(seat)}
            s = agents[seat].situation(obs)
            real = obs["action_mask"].sum() > 1
            if own_discard:
                real = s.phase == fm.PHASE_DISCARD and obs["action_mask"][: s.layout.num_tile_types].sum() > 1
            if real:
                k += 1
                if k % every == 0:
                    out.append(obs)
            actions[seat] = agents[seat].act(obs)
        g.step(actions)
    return out


def _situations(rules: str, seed: int, every: int = 7, limit: int = 6) -> list:
    """Every ``every``-th own-turn discard decision of a seeded greedy self-play hand."""
    agent = GreedyAgent(rules=rules)
    return [agent.situation(o) for o in _observations(rules, seed, every, limit, own_discard=True)]


def _afterstates(s, rules: str):
    agent = FlatMCAgent(rules=rules)
    after = agent._own_turn_afterstates(s)
    hands = np.stack([a.hand for a in after])
    needed = np.array([a.needed for a in after], dtype=np.int64)
    extra = np.array([a.extra for a in after], dtype=np.int64)
    forms = np.array([fm.seven_pairs_code(agent.rules, int(m)) for m in needed], dtype=np.int64)
    return hands, needed, extra, forms


@pytest.mark.parametrize("model", ["fp", "sp"])
@pytest.mark.parametrize("ron", [False, True])
def test_basic_simulations_match_the_independent_reference(model, ron):
    rng = np.random.default_rng(11)
    for s in _situations("basic", seed=5) + _situations("basic", seed=6):
        hands, needed, extra, _ = _afterstates(s, "basic")
        draws = sample_draws(s.kb, 40, 4 * 2 + 1, rng)
        got = simulate(hands, needed, extra, draws, model=model, allow_chow=True, ron=ron)
        assert got.tolist() == _ref_simulate(hands, needed, extra, draws, model, True, ron).tolist()


def test_sichuan_simulations_match_the_independent_reference():
    rng = np.random.default_rng(12)
    checked = 0
    for seed in (3, 4):
        for s in _situations("sichuan", seed=seed, every=3):
            hands, needed, extra, forms = _afterstates(s, "sichuan")
            draws = sample_draws(s.kb, 40, 4 * 2 + 1, rng)
            args = (hands, needed, extra, draws)
            got = simulate(*args, model="fp", allow_chow=False, seven_pairs=forms, excluded_suit=s.excluded_suit)
            want = _ref_simulate(*args, "fp", False, False, forms, s.excluded_suit)
            assert got.tolist() == want.tolist()
            checked += s.excluded_suit >= 0
    assert checked >= 4  # positions after the declaration


def test_basic_decisions_are_those_of_the_reference_simulation(monkeypatch):
    # same seeds, same decisions and win counts whether the agent runs simulate() or the reference
    situations = [s for seed in (8, 9) for s in _situations("basic", seed=seed, every=3, limit=14) if s.wall_count < 44]

    def decide_all():
        out = []
        for prefilter in (True, False):
            agent = FlatMCAgent(seed=3, simulations=300, max_rounds=3, discard_twice="original", prefilter=prefilter)
            for s in situations:
                agent.last_result = None
                out.append(agent.decide(s))
                r = agent.last_result
                out.append(None if r is None else (r.wins.tolist(), r.sims.tolist()))
        return out

    now = decide_all()
    assert sum(r is not None and sum(r[0]) > 0 for r in now[1::2]) >= 5  # simulations that won decide

    def reference(hands, needed, extra, draws, model="fp", allow_chow=True, ron=False, *, seven_pairs=None,
                  excluded_suit=-1, engine="auto"):  # fmt: skip
        return _ref_simulate(np.asarray(hands), needed, extra, draws, model, allow_chow, ron, seven_pairs,
                             excluded_suit)

    monkeypatch.setattr(fm, "simulate", reference)
    assert decide_all() == now
