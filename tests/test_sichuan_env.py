"""Sichuan in the PettingZoo envs: the declaration in the observation, winners leaving the
hand under both APIs' dead-agent conventions, per-step payments as rewards, PettingZoo's own tests."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import mjenv
from mjenv.game import make_wall
from mjenv.observation import ObservationSpec
from tests.test_sichuan_game import LAY, THREE_WINS

WALL = {"wall": make_wall("sichuan", hands=THREE_WINS, draws="3s 9p 5m"), "dealer": 0}
DECLARED = [2, 1, 0, 0]  # seat 0 dots, 1 characters, 2 and 3 bamboo missing
SPEC = ObservationSpec("sichuan")


def scripted(agent: str, obs) -> int:
    """The THREE_WINS hand: declare, win when possible, else the one legal action (PASS or a forced discard)."""
    legal = np.flatnonzero(obs["action_mask"])
    if legal[0] >= LAY.declares.start:
        return LAY.declare(DECLARED[int(agent[-1])])
    return LAY.win if LAY.win in legal else int(legal[0])


def test_parallel_winners_leave_and_are_paid_step_by_step():
    env = mjenv.parallel_env(rules="sichuan")
    obs, infos = env.reset(options=WALL)
    assert SPEC.decode(obs["player_2"])["missing_suit"].sum() == 0  # nobody has declared yet
    obs, rew, term, trunc, infos = env.step({a: scripted(a, obs[a]) for a in env.agents})
    # every declaration is public at once, seat-relative: player_2 sees itself first, then 3, 0, 1
    seen = SPEC.decode(obs["player_2"])["missing_suit"]
    assert np.argmax(seen, axis=1).tolist() == [DECLARED[2], DECLARED[3], DECLARED[0], DECLARED[1]]
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = []
    while env.agents:
        live = list(env.agents)
        obs, rew, term, trunc, infos = env.step({a: scripted(a, obs[a]) for a in live})
        for d in (obs, rew, term, trunc, infos):
            assert list(d) == live  # the agents live before the step, each once
        for a, r in rew.items():
            totals[a] += r
        steps.append((dict(rew), [a for a in live if term[a]]))
        if any(term.values()) and env.agents:
            won = [a for a in live if term[a]]
            assert all(infos[a]["winners"] for a in won) and env.agents == [a for a in live if not term[a]]
    # the win steps: player_1 on player_0's 5p (1 point), player_2's self-draw (2 from each of the
    # two seats left), player_0 on player_3's 4s (1): the hand's scores, paid as they happened
    wins = [(r, t) for r, t in steps if t]
    assert wins[0] == ({"player_0": -1.0, "player_1": 1.0, "player_2": 0.0, "player_3": 0.0}, ["player_1"])
    assert wins[1] == ({"player_0": -2.0, "player_2": 4.0, "player_3": -2.0}, ["player_2"])
    assert wins[2] == ({"player_0": 1.0, "player_3": -1.0}, ["player_0", "player_3"])
    assert totals == {"player_0": -2.0, "player_1": 1.0, "player_2": 4.0, "player_3": -3.0}
    assert env.game.scores.tolist() == [-2, 1, 4, -3]


def test_a_winner_cannot_act_again():
    env = mjenv.parallel_env(rules="sichuan")
    obs, _ = env.reset(options=WALL)
    for _ in range(3):  # the declarations; player_0 discards 5p; player_1 wins on it
        obs, *_ = env.step({a: scripted(a, obs[a]) for a in env.agents})
    assert env.agents == ["player_0", "player_2", "player_3"]
    with pytest.raises(ValueError, match="unknown or finished agent 'player_1'"):
        env.step({"player_1": LAY.pass_})


def test_aec_winner_steps_none_once_then_play_goes_on():
    env = mjenv.env(rules="sichuan")
    env.reset(options=WALL)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    order = []
    for agent in env.agent_iter(max_iter=1000):
        obs, rew, term, trunc, info = env.last()
        totals[agent] += rew
        order.append((agent, term))
        env.step(None if term else scripted(agent, obs))
    assert not env.agents
    assert order[:4] == [(f"player_{s}", False) for s in range(4)]  # the declarations
    dead = [i for i, (a, t) in enumerate(order) if t]
    # player_1 wins in the claim window (answered by 1, 2, 3), is selected once to step None, then
    # player_2 (the next seat) plays; player_2 self-draws and leaves; player_3 discards, only
    # player_0 answers (1 and 2 are out), wins, and the two agents left step None
    assert [order[i][0] for i in dead] == ["player_1", "player_2", "player_0", "player_3"]
    assert order[dead[0] - 3 : dead[0] + 2] == [
        ("player_1", False), ("player_2", False), ("player_3", False), ("player_1", True), ("player_2", False)
    ]  # fmt: skip
    assert order[dead[1] - 1 : dead[1] + 2] == [("player_2", False), ("player_2", True), ("player_3", False)]
    assert order[dead[2] - 2 : dead[2]] == [("player_3", False), ("player_0", False)]
    assert totals == {"player_0": -2.0, "player_1": 1.0, "player_2": 4.0, "player_3": -3.0}


def test_the_dealer_declares_before_discarding_in_aec():
    env = mjenv.env(rules="sichuan")
    env.reset(seed=3)
    for s in range(4):
        assert env.agent_selection == f"player_{s}"
        obs, *_ = env.last()
        assert np.flatnonzero(obs["action_mask"]).tolist() == list(range(LAY.declares.start, LAY.size))
        assert SPEC.decode(obs)["missing_suit"].sum() == 0  # the earlier seats' choices are not shown yet
        env.step(LAY.declare(0))
    assert env.agent_selection == "player_0" and env.unwrapped.game.missing.tolist() == [0, 0, 0, 0]
    obs, *_ = env.last()
    held = env.unwrapped.game.hands[0]
    # bamboo declared missing: the held bamboo goes first (any held tile once there is none)
    want = np.flatnonzero(held[:9]) if held[:9].any() else np.flatnonzero(held)
    assert np.flatnonzero(obs["action_mask"][: LAY.discards.stop]).tolist() == want.tolist()


@pytest.mark.parametrize("kwargs", [{}, {"observation": "oracle", "shaping": "deficiency", "gamma": 0.95}])
def test_pettingzoo_api_tests(kwargs):
    api_test(mjenv.env(rules="sichuan", **kwargs), num_cycles=300)
    parallel_api_test(mjenv.parallel_env(rules="sichuan", **kwargs), num_cycles=300)


def test_pettingzoo_seed_tests():
    seed_test(lambda: mjenv.env(rules="sichuan", shaping="deficiency"), num_cycles=100)
    parallel_seed_test(lambda: mjenv.parallel_env(rules="sichuan", shaping="deficiency"), num_cycles=100)


def test_other_presets_keep_their_action_space():
    for preset, size in (("basic", 61), ("honours", 75), ("taiwan16", 75), ("sichuan", 64)):
        env = mjenv.parallel_env(rules=preset)
        assert env.action_space("player_0").n == size
        assert ("missing_suit" in env.spec.views) == (preset == "sichuan")


def test_single_agent_wrapper_plays_on_past_opponents_wins():
    from mjenv.wrappers import SingleAgentEnv

    env = SingleAgentEnv(opponents="random", rules="sichuan", seat=0, shaping="deficiency", gamma=0.9)
    rng = np.random.default_rng(0)
    opponent_wins = 0
    for hand in range(12):
        obs, info = env.reset(seed=hand)
        over, total = False, 0.0
        while not over:
            legal = np.flatnonzero(info["action_mask"])
            a = LAY.win if LAY.win in legal else int(rng.choice(legal))
            obs, r, over, _, info = env.step(a)
            total += r
        opponent_wins += int(env.env.game.won[1:].sum())
    assert opponent_wins > 0  # hands in which an opponent won and left while the learner played on


def test_greedy_and_flatmc_declare_the_suit_cheapest_to_drop():
    from mjenv.baselines.flatmc import FlatMCAgent
    from mjenv.baselines.greedy import GreedyAgent

    from mjenv.deficiency import best_missing_suit
    from mjenv.knowledge import knowledge_base

    env = mjenv.parallel_env(rules="sichuan")
    for seed in (7, 8):
        obs, _ = env.reset(seed=seed)
        for agent in (GreedyAgent(rules="sichuan"), FlatMCAgent(rules="sichuan", seed=0)):
            for a in env.agents:
                s = int(a[-1])
                want = best_missing_suit(env.game.hands[s], knowledge_base(env.game, s))
                assert agent.act(obs[a]) == LAY.declare(want), (seed, a, type(agent).__name__)


def _after_first_win(env):
    """Play the THREE_WINS hand until player_1 has won on player_0's 5p and left; return the observations."""
    obs, _ = env.reset(options=WALL)
    for _ in range(3):  # the declarations; player_0 discards 5p; player_1 wins on it
        obs, *_ = env.step({a: scripted(a, obs[a]) for a in env.agents})
    assert env.game.winners == [1] and env.game.scores.tolist() == [-1, 1, 0, 0]
    return obs


def test_a_hand_ended_by_an_illegal_action_keeps_the_earlier_results_in_the_final_infos():
    env = mjenv.parallel_env(rules="sichuan")
    obs = _after_first_win(env)
    actor = next(a for a in env.agents if obs[a]["action_mask"].sum() > 1)
    acts = {a: scripted(a, obs[a]) for a in env.agents}
    acts[actor] = int(np.flatnonzero(obs[actor]["action_mask"] == 0)[0])
    _, rew, term, _, infos = env.step(acts)
    assert all(term.values()) and rew[actor] == -1.0
    # player_1 was paid when it won: the final infos still say so
    for a in infos:
        assert infos[a]["winners"] == [1]
        assert infos[a]["scores"] == [-1, 1, 0, 0][int(a[-1])]


def _vector_after_first_win():
    """A one-table sichuan vector env on the THREE_WINS hand, after player_1's win."""
    venv = mjenv.vector_env(1, rules="sichuan")
    obs, _ = venv.reset(options=WALL)
    for _ in range(3):
        acts = [[scripted(a, {"action_mask": obs["action_mask"][0, s]}) for s, a in enumerate(mjenv.AGENTS)]]
        obs, rew, terms, _, infos = venv.step(np.array(acts))
    assert venv._tables.won[0].tolist() == [False, True, False, False] and not terms[0]
    return venv, obs


def test_vector_env_final_info_of_an_illegal_end_keeps_the_earlier_results():
    venv, obs = _vector_after_first_win()
    masks = obs["action_mask"][0]
    actor = next(s for s in range(4) if masks[s].sum() > 1)
    acts = [scripted(a, {"action_mask": masks[s]}) for s, a in enumerate(mjenv.AGENTS)]
    acts[actor] = int(np.flatnonzero(masks[actor] == 0)[0])
    _, rew, terms, _, infos = venv.step(np.array([acts]))
    assert terms[0] and rew[0, actor] == -1.0
    assert infos["final_info"]["scores"][0].tolist() == [-1, 1, 0, 0]
    assert infos["final_info"]["winners"][0].tolist() == [False, True, False, False]
    assert infos["final_info"]["illegal_action"][0].tolist() == [s == actor for s in range(4)]


def test_vector_env_ignores_the_action_of_a_seat_that_has_left():
    venv, obs = _vector_after_first_win()
    masks = obs["action_mask"][0]
    assert np.flatnonzero(masks[1]).tolist() == [LAY.pass_]  # player_1 has left: PASS only
    acts = [scripted(a, {"action_mask": masks[s]}) for s, a in enumerate(mjenv.AGENTS)]
    acts[1] = 0  # not PASS: the seat is out of the hand, its action does not count
    _, rew, terms, _, infos = venv.step(np.array([acts]))
    assert not terms[0] and rew[0, 1] == 0.0
    assert venv._tables.scores[0, 1] == 1  # the hand went on (here: player_2's self-draw)
