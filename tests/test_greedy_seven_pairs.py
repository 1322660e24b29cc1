"""The greedy agent under each rule set's deficiency: seven pairs where the rules allow it
(distinct pairs with ``seven_pairs=True``, a four of a kind as two pairs in ``sichuan``), the missing
suit out of every completion. Hand-checked positions, the enumerating reference, and the agent's
scores against the observation's own per-action views over played hands."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from mjenv.baselines import GreedyAgent
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DISCARD, Situation
from mjenv.baselines.greedy import discard_scores, seven_pairs_code

import mjenv
from mjenv import tiles
from mjenv.deficiency.reference import reference_one, reference_seven_pairs
from mjenv.game.actions import ActionLayout
from mjenv.observation import ObservationSpec
from mjenv.rules import get_rules

BASIC_7P = dataclasses.replace(get_rules("basic"), seven_pairs=True)
SICHUAN = get_rules("sichuan")


def _t(name: str) -> int:
    return int(tiles.parse(name, 27).argmax())


def _discard_situation(hand: str, rules, excluded_suit: int = -1) -> Situation:
    lay = ActionLayout.for_rules(rules)
    h = tiles.parse(hand, 27).astype(np.int16)
    k = (4 - h).astype(np.int16)
    if excluded_suit >= 0:  # as the agent's observation gives it once declared
        k[9 * excluded_suit : 9 * excluded_suit + 9] = 0
    mask = np.zeros(lay.size, dtype=bool)
    mask[:27] = h > 0
    return Situation(h, k, 4, PHASE_DISCARD, -1, 40, mask, lay, excluded_suit=excluded_suit)


def _minus(h: np.ndarray, tile: int) -> np.ndarray:
    out = h.copy()
    out[tile] -= 1
    return out


def test_basic_with_seven_pairs_keeps_the_seven_pairs_tenpai():
    # 99s 5m 66m 77m 11p 4p 55p 88p: six pairs and the singles 5m, 4p. Discarding 5m (or 4p) leaves
    # seven pairs waiting on 4p (5m); discarding 9s keeps the better melds-and-pair deficiency (3, not 4)
    s = _discard_situation("99s566m77m11p455p88p", BASIC_7P)
    h, k = s.hand, s.kb
    ordinary = {t: reference_one(_minus(h, _t(t)), k, 4) for t in ("5m", "9s")}
    assert ordinary == {"5m": 4, "9s": 3}
    assert reference_seven_pairs(_minus(h, _t("5m")), k, fours=False) == 1
    assert reference_seven_pairs(_minus(h, _t("9s")), k, fours=False) == 2
    # plain basic takes the melds-and-pair discard, as before
    assert GreedyAgent(rules="basic").decide(s) == s.layout.discard(_t("9s"))
    # with seven pairs: 5m and 4p both leave deficiency 1 with 3 effective copies; 5m has the lower id
    assert GreedyAgent(rules=BASIC_7P).decide(s) == s.layout.discard(_t("5m"))
    d, eff = discard_scores(h, k, 4, seven_pairs_code(BASIC_7P, 4))
    assert (d[_t("5m")], eff[_t("5m")], d[_t("4p")], eff[_t("4p")]) == (1, 3, 1, 3)


def test_sichuan_counts_a_four_of_a_kind_as_two_pairs():
    # bamboo declared missing. 5m 6666m 77m 11p 4p 55p 88p: with 6666m as two pairs, discarding 5m
    # leaves seven pairs waiting on 4p; distinct pairs would need 3 tiles (4p and a new pair). 7m keeps
    # melds-and-pair 2.
    s = _discard_situation("56666m77m11p455p88p", SICHUAN, excluded_suit=0)
    h, k = s.hand, s.kb
    after_5m, after_7m = _minus(h, _t("5m")), _minus(h, _t("7m"))
    assert reference_seven_pairs(after_5m, k, exclude_suit=0, fours=True) == 1
    assert reference_seven_pairs(after_5m, k, exclude_suit=0, fours=False) == 3
    assert reference_one(after_5m, k, 4, exclude_suit=0) == 3
    assert reference_one(after_7m, k, 4, exclude_suit=0) == 2
    assert GreedyAgent(rules=SICHUAN).decide(s) == s.layout.discard(_t("5m"))


def test_seven_pairs_tenpai_passes_a_pong_that_only_helps_melds():
    # 99s 66m 77m 11p 55p 88p 4p waits on 4p for seven pairs (deficiency 1); a pong of 5p declares a
    # meld and leaves melds-and-pair deficiency 3: better than the melds-and-pair 4 now (basic pongs),
    # worse than seven pairs' 1 (basic with seven pairs passes)
    lay = ActionLayout.for_rules(BASIC_7P)
    h = tiles.parse("99s66m77m11p55p88p4p", 27).astype(np.int16)
    k = (4 - h).astype(np.int16)
    k[_t("5p")] -= 1
    mask = np.zeros(lay.size, dtype=bool)
    mask[[lay.pong, lay.pass_]] = True
    s = Situation(h, k, 4, PHASE_CLAIM, _t("5p"), 40, mask, lay)
    rest = h.copy()
    rest[_t("5p")] -= 2
    assert reference_one(rest, k, 3) == 3 and reference_one(h, k, 4) == 4
    assert reference_seven_pairs(h, k, fours=False) == 1
    assert GreedyAgent(rules="basic").decide(s) == lay.pong
    assert GreedyAgent(rules=BASIC_7P).decide(s) == lay.pass_


@pytest.mark.parametrize("rules", [SICHUAN, BASIC_7P, get_rules("basic")], ids=["sichuan", "basic+7p", "basic"])
def test_greedy_scores_equal_the_observations_per_action_views(rules):
    # greedy seats play whole hands; at every discard turn the agent's own scores must be the
    # observation's deficiency_after_discard and effective_count_after_discard views
    spec = ObservationSpec(rules=rules)
    agent = GreedyAgent(rules=rules)
    env = mjenv.parallel_env(rules=rules)
    checked = 0
    for seed in (11, 12):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            actions = {}
            for a in env.agents:
                s = agent.situation(obs[a])
                v = spec.decode(obs[a]["observation"])
                if s.phase == PHASE_DISCARD and s.mask[:27].any():
                    d, eff = discard_scores(s.hand, s.kb, s.melds_needed, seven_pairs_code(rules, s.melds_needed),
                                            s.excluded_suit)
                    held = s.hand > 0
                    np.testing.assert_array_equal(d[held], v["deficiency_after_discard"][held])
                    np.testing.assert_array_equal(eff[held], v["effective_count_after_discard"][held])
                    checked += 1
                actions[a] = agent.decide(s)
            obs, *_ = env.step(actions)
    assert checked > 20


def test_flatmc_prefilter_orders_discards_by_the_rule_sets_deficiency():
    # the position of the basic+seven_pairs test: the flat MC agent's greedy key (its pre-filter and
    # tie-break) puts 5m and 4p (seven-pairs tenpai, deficiency 1) alone first with seven pairs; without,
    # the least is melds-and-pair 3, which discarding 5m (4) does not reach
    from mjenv.baselines.flatmc import FlatMCAgent

    s = _discard_situation("99s566m77m11p455p88p", BASIC_7P)
    held = np.flatnonzero(s.hand > 0)
    hands = np.stack([_minus(s.hand, int(t)) for t in held])
    needed = np.full(len(held), 4)
    least = {}
    for name, forms in (("basic", None), ("seven_pairs", np.full(len(held), 1))):
        d = FlatMCAgent._greedy_key(hands, needed, s.kb, forms) // 1000
        least[name] = (int(d.min()), {f"{t % 9 + 1}{'smp'[t // 9]}" for t in held[d == d.min()]})
    assert least["seven_pairs"] == (1, {"5m", "4p"})
    assert least["basic"][0] == 3 and "5m" not in least["basic"][1] and "9s" in least["basic"][1]
    agent = FlatMCAgent(rules=BASIC_7P, seed=0, simulations=200)
    assert agent.decide(s) in (s.layout.discard(_t("5m")), s.layout.discard(_t("4p")))


def _ref(h, k, m, fours):
    """Reference rule-set deficiency: melds-and-pair, and seven pairs when no meld is exposed."""
    d = reference_one(h, k, m)
    return d if m != 4 or fours is None else min(d, reference_seven_pairs(h, k, fours=fours))


@pytest.mark.parametrize("form", ["distinct", "fours"])
def test_public_features_take_seven_pairs_and_match_the_reference(form):
    from mjenv.deficiency.features import deficiency_after_discard, effective_tiles

    fours = form == "fours"
    rng = np.random.default_rng(7)
    hands = ["99s566m77m11p455p88p", "56666m77m11p455p88p", "1122m3355p77p9p11s5s"]
    for _ in range(3):  # and a few random hands of seven pairs (14 tiles)
        t = rng.choice(27, 7, replace=False)
        h = np.zeros(27, np.int16)
        h[t[:6]] += 2
        h[t[6]] += 2
        hands.append(h)
    for hand in hands:
        h = tiles.parse(hand, 27).astype(np.int16) if isinstance(hand, str) else hand
        k = (4 - h).astype(np.int16)
        got = deficiency_after_discard(h, k, seven_pairs=form)
        for t in np.flatnonzero(h > 0):
            assert got[t] == _ref(_minus(h, t), k, 4, fours), (hand, t)
        rest = _minus(h, int(np.flatnonzero(h > 0)[0]))  # a 13-tile hand
        mask, count = effective_tiles(rest, k, seven_pairs=form)
        now = _ref(rest, k, 4, fours)
        want = [k[u] > 0 and _ref(rest + np.eye(27, dtype=np.int16)[u], k - np.eye(27, dtype=np.int16)[u], 4, fours)
                < now for u in range(27)]
        np.testing.assert_array_equal(mask, want)
        assert count == int((k * np.array(want)).sum())
    # an exposed meld rules seven pairs out: the plain values
    h = tiles.parse("99s66m77m11p455p", 27).astype(np.int16)
    np.testing.assert_array_equal(deficiency_after_discard(h, exposed_melds=1, seven_pairs=form),
                                  deficiency_after_discard(h, exposed_melds=1))
    with pytest.raises(ValueError, match="seven_pairs"):
        deficiency_after_discard(h, exposed_melds=1, seven_pairs="pairs")
