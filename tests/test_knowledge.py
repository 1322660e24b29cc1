"""Knowledge bases: known values on scripted hands, and a from-scratch recount at every step."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.game import Game, Phase
from mjenv.knowledge import knowledge_base, knowledge_bases
from mjenv.rules import get_rules
from mjenv.rulesets import shared_names
from mjenv.tiles import parse
from tests.game_helpers import play_random, random_action, recount_kb, script, tid
from tests.test_game_claims import CHOW_VS_PONG, M5, L

PRESET_NAMES = shared_names()  # the presets the shared engine plays


def test_initial_kb_is_four_minus_the_own_hand():
    g = script(CHOW_VS_PONG, draws="9m")
    for s in range(4):
        assert (knowledge_base(g, s) == 4 - g.hands[s]).all()
    kb0 = knowledge_base(g, 0)
    assert kb0.dtype == np.int8 and kb0.shape == (27,)
    assert kb0[tid("9m")] == 3 and kb0[M5] == 3 and kb0[tid("1s")] == 3 and kb0[tid("6p")] == 4


def test_discard_then_pong_takes_three_in_all():
    """BDA paper Sec. 4.1: a ponged discard lowers every other seat's KB by 3 (the discard once)."""
    g = script(CHOW_VS_PONG, draws="9m")
    before = knowledge_bases(g).astype(int)
    g.step({0: M5})
    after_discard = knowledge_bases(g).astype(int)
    # everyone but the discarder sees one more 5m gone; the discarder already knew
    assert (before[:, M5] - after_discard[:, M5]).tolist() == [0, 1, 1, 1]
    g.step({1: L.pass_, 2: L.pong})
    after_pong = knowledge_bases(g).astype(int)
    # seats 1, 3: the discard and the two shown 5m; seat 0 knew its discard, learns the two shown;
    # seat 2 learns only the discard (its own two 5m move from hand to meld)
    assert (before[:, M5] - after_pong[:, M5]).tolist() == [2, 3, 1, 3]
    assert after_pong[:, M5].tolist() == [1, 1, 1, 1]  # the fourth 5m is still in the wall
    other = np.arange(27) != M5
    assert (after_pong[:, other] == before[:, other]).all()


def test_chow_shows_two_hand_tiles():
    g = script(CHOW_VS_PONG, draws="9m")
    g.step({0: M5})
    g.step({1: L.chow_mid, 2: L.pass_})
    kb3 = knowledge_base(g, 3).astype(int)
    expected = 4 - parse("3s6s9s 4p6p8p 1m4m8m8m 2p5p7p", 27).astype(int)
    for t in (tid("4m"), M5, tid("6m")):
        expected[t] -= 1
    assert (kb3 == expected).all()


def test_concealed_kong_is_treated_as_revealed():
    hands = [
        "1s1s1s1s 2p3p4p 5p6p7p 9m9m 2m",
        "4m6m 2s4s7s 1p4p7p 2m 2p5p8p9p",
        "5m5m5m 2s5s8s 3p6p9p 1m3m 8p 9s",
        "3s6s9s 4p6p8p 1m4m8m8m 2p5p7p",
    ]
    g = script(hands, draws="3m", replacements="4m")
    assert knowledge_base(g, 1)[0] == 4
    g.step({0: L.kong(0)})
    assert [knowledge_base(g, s)[0] for s in range(4)] == [0, 0, 0, 0]


def test_bad_seat():
    g = Game("basic", seed=0)
    with pytest.raises(ValueError, match="seat must be 0..3, got 4"):
        knowledge_base(g, 4)


def _check_game(g: Game, rng: np.random.Generator) -> int:
    steps = 0
    while True:
        kbs = knowledge_bases(g)
        for s in range(4):
            kb = knowledge_base(g, s)
            assert (kb == recount_kb(g, s)).all(), (s, g.log["steps"][-3:])
            assert (kb == kbs[s]).all()
            assert kb.min() >= 0 and kb.max() <= 4
        # the KB never hides a tile the seat can see: hand + KB + public tiles == 4
        assert ((kbs + g.hands + g.public_counts) == 4).all()
        if g.is_over:
            return steps
        g.step({s: random_action(g, s, rng) for s in g.acting_seats()})
        steps += 1


@pytest.mark.parametrize("preset", [*PRESET_NAMES, {"name": "basic", "claim_window": "when_possible"}])
def test_kb_equals_recount_at_every_step(preset):
    rng = np.random.default_rng(5)
    for seed in range(25):
        _check_game(Game(preset, seed=seed, dealer=seed % 4), rng)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_kb_equals_recount_at_every_step_many(preset):
    rng = np.random.default_rng(6)
    for seed in range(400):
        _check_game(Game(preset, seed=1000 + seed, dealer=seed % 4), rng)


@pytest.mark.parametrize("claim_window", ["always", "when_possible"])
def test_kb_after_a_finished_hand_with_a_robbed_kong(claim_window):
    from tests.test_game_claims import ADDED, _to_added_kong

    g = _to_added_kong(ADDED, get_rules({"name": "basic", "claim_window": claim_window}))
    g.step({1: L.kong(M5)})
    g.step({3: L.win})
    assert g.phase == Phase.END
    for s in range(4):
        assert (knowledge_base(g, s) == recount_kb(g, s)).all()
    assert knowledge_base(g, 0)[M5] == 0  # all four 5m were shown


def test_random_games_reach_every_meld_kind():
    """The recount test above means something only if random games make every kind of meld."""
    rng = np.random.default_rng(9)
    kinds = set()
    for seed in range(60):
        g = play_random(Game("basic", seed=seed), rng)
        kinds |= {m.kind for ms in g.melds for m in ms}
    assert kinds == {"chow", "pong", "exposed_kong", "concealed_kong", "added_kong"}
