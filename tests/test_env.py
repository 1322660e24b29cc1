"""The PettingZoo env: determinism, seeding, shaping, illegal actions, masks, infos, render, logs."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import mjenv
from mjenv.deficiency import INCOMPLETABLE
from mjenv.env import POTENTIAL_CAP, parallel_env, potential, raw_env, replay_observations
from mjenv.game import Phase, make_wall, read_jsonl
from mjenv.game.actions import CLAIM_NAMES
from mjenv.observation import ObservationSpec

PASS = 2 * 27 + 6


def _masked_random(obs, agents, rng):
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in agents}


def _rollout(seed: int, action_seed: int, **kwargs):
    """One hand with seeded masked-random actions; every step's (obs, rewards, terminations, infos)."""
    env = parallel_env(**kwargs)
    rng = np.random.default_rng(action_seed)
    obs, infos = env.reset(seed=seed)
    trace = [(obs, None, None, infos)]
    while env.agents:
        obs, rew, term, trunc, infos = env.step(_masked_random(obs, env.agents, rng))
        assert not any(trunc.values())
        trace.append((obs, rew, term, infos))
    return trace


def _assert_same(a, b):
    assert type(a) is type(b)
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _assert_same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def test_seeded_rollouts_are_identical():
    first = _rollout(3, 4, shaping="deficiency", gamma=0.99)
    second = _rollout(3, 4, shaping="deficiency", gamma=0.99)
    assert len(first) > 10
    _assert_same(first, second)


def test_seeds_change_the_deal_and_reset_without_seed_continues_the_generator():
    a, b = parallel_env(), parallel_env()
    oa, _ = a.reset(seed=1)
    ob, _ = b.reset(seed=2)
    assert not np.array_equal(oa["player_0"]["observation"], ob["player_0"]["observation"])
    b.reset(seed=1)
    na, _ = a.reset()
    nb, _ = b.reset()
    np.testing.assert_array_equal(na["player_1"]["observation"], nb["player_1"]["observation"])
    assert not np.array_equal(na["player_1"]["observation"], oa["player_1"]["observation"])


def test_every_live_agent_is_observed_and_masks_match_needs_action():
    env = parallel_env()
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=0)
    steps = empty_windows = 0
    while env.agents:
        assert set(obs) == set(env.agents) == set(infos)
        for a in env.agents:
            mask = obs[a]["action_mask"]
            assert mask.dtype == np.int8 and mask.sum() >= 1
            assert obs[a]["observation"].dtype == np.float32
            if not infos[a]["needs_action"]:
                assert np.flatnonzero(mask).tolist() == [PASS]
            # needs_action is read off the agent's own mask: a real choice besides PASS
            assert infos[a]["needs_action"] == bool(np.flatnonzero(mask).tolist() != [PASS])
        if not any(infos[a]["needs_action"] for a in env.agents):
            # only a claim window nobody can claim has nobody deciding (claim_window="always")
            assert env.game.phase in (Phase.CLAIM, Phase.ROB_KONG) and env.game.acting_seats() == []
            empty_windows += 1
        for a in env.agents:
            assert infos[a]["potential"] == -min(infos[a]["deficiency"], POTENTIAL_CAP)
        obs, rew, term, trunc, infos = env.step(_masked_random(obs, env.agents, rng))
        steps += 1
    assert all(term.values()) and steps > 10 and empty_windows > 0
    assert sum(rew.values()) == 0  # zero-sum score changes (no shaping)
    assert {a: infos[a]["scores"] for a in infos} == rew


@pytest.mark.parametrize("gamma", [1.0, 0.9])
def test_shaping_differs_from_the_scores_by_the_potential_terms_only(gamma):
    plain = _rollout(5, 6)
    shaped = _rollout(5, 6, shaping="deficiency", gamma=gamma)
    assert len(plain) == len(shaped)
    for agent in ("player_0", "player_1", "player_2", "player_3"):
        phi0 = shaped[0][3][agent]["potential"]
        assert phi0 == -min(shaped[0][3][agent]["deficiency"], POTENTIAL_CAP)
        discounted = 0.0
        for t in range(1, len(shaped)):
            before = shaped[t - 1][3][agent]["potential"]
            after = shaped[t][3][agent]["potential"]
            extra = shaped[t][1][agent] - plain[t][1][agent]
            assert extra == pytest.approx(gamma * after - before)
            discounted += gamma ** (t - 1) * extra
        assert shaped[-1][3][agent]["potential"] == 0.0
        # telescoping: the discounted sum of F is -Phi(s_0)
        assert discounted == pytest.approx(-phi0)
        assert phi0 < 0


def test_potential_caps_incompletable_hands():
    np.testing.assert_array_equal(potential(np.array([INCOMPLETABLE, 3, 0, 15, 14])), [-15, -3, 0, -15, -14])
    assert POTENTIAL_CAP == 15  # one more than the largest completable deficiency (3 * 4 + 2 = 14)


def _first_illegal(mask):
    return int(np.flatnonzero(mask == 0)[0])


def _step_with_an_illegal_action(env):
    """Reset (seed 0), then step with the first acting seat playing its first illegal action.

    Returns:
        (observations of the reset, the acting agent, the step's five results).
    """
    before, infos = env.reset(seed=0)
    actor = next(a for a in env.agents if infos[a]["needs_action"])
    actions = {a: PASS for a in env.agents}
    actions[actor] = _first_illegal(before[actor]["action_mask"])
    return before, actor, env.step(actions)


def test_illegal_action_penalize_ends_the_hand_in_parallel():
    env = parallel_env()
    _, actor, (obs, rew, term, trunc, infos) = _step_with_an_illegal_action(env)
    assert all(term.values()) and env.agents == []
    assert rew[actor] == -1.0 and all(rew[a] == 0.0 for a in rew if a != actor)
    assert infos[actor]["illegal_action"] and not any(infos[a]["illegal_action"] for a in infos if a != actor)


def test_observations_after_an_illegal_end_are_fresh_arrays():
    # gymnasium >= 1.4's check_env: users keep what a step returns, so no later step may hand out
    # (and later modify) the same arrays, also when an illegal action leaves the state unchanged
    env = parallel_env()
    before, _, (after, *_) = _step_with_an_illegal_action(env)
    for a in after:
        for key in ("observation", "action_mask"):
            assert not np.shares_memory(after[a][key], before[a][key]), (a, key)
            np.testing.assert_array_equal(after[a][key], before[a][key])


def test_illegal_action_of_a_seat_with_nothing_to_decide_is_penalized():
    env = parallel_env()
    obs, infos = env.reset(seed=0)
    idle = next(a for a in env.agents if not infos[a]["needs_action"])
    actions = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in env.agents}
    actions[idle] = 0
    _, rew, term, _, infos = env.step(actions)
    assert all(term.values()) and rew[idle] == -1.0 and infos[idle]["illegal_action"]


def test_illegal_action_penalize_in_aec():
    env = mjenv.env()
    env.reset(seed=0)
    agent = env.agent_selection
    obs, *_ = env.last()
    env.step(_first_illegal(obs["action_mask"]))
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0 and env.infos[agent]["illegal_action"]
    for _agent in env.agent_iter():
        assert env.last()[2]  # every agent is terminated and steps None once
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("factory", [parallel_env, raw_env])
def test_illegal_action_raise_names_agent_action_and_legal_actions(factory):
    env = factory(illegal_action="raise")
    env.reset(seed=0)
    if isinstance(env, raw_env):
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        call = lambda: env.step(_first_illegal(mask))  # noqa: E731
    else:
        agent = "player_0"  # the dealer acts first
        mask = env._table.masks[0]
        call = lambda: env.step({a: PASS for a in env.agents} | {agent: _first_illegal(mask)})  # noqa: E731
    with pytest.raises(ValueError) as err:
        call()
    text = str(err.value)
    assert agent in text and str(_first_illegal(mask)) in text and "legal actions" in text
    assert str(int(np.flatnonzero(mask)[0])) in text
    # the refused action changed nothing: a legal one is accepted next and the hand goes on
    legal = int(np.flatnonzero(mask)[0])
    if isinstance(env, raw_env):
        env.step(legal)
        assert not any(env.terminations.values())
    else:
        _, _, term, _, _ = env.step({a: PASS for a in env.agents} | {agent: legal})
        assert not any(term.values())


def test_out_of_range_and_bad_arguments_raise_value_errors():
    env = parallel_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step({"player_0": 999})
    with pytest.raises(ValueError, match="must act now"):
        env.step({"player_1": PASS})
    for kwargs, word in [({"observation": "x"}, "observation"), ({"shaping": "y"}, "shaping"),
                         ({"gamma": 0.0}, "gamma"), ({"illegal_action": "z"}, "illegal_action"),
                         ({"render_mode": "video"}, "render_mode"), ({"rules": "nope"}, "rules"),
                         ({"render_seat": 7}, "render_seat")]:
        with pytest.raises(ValueError, match=word):
            parallel_env(**kwargs)


def _answering(game) -> list[int]:
    """The seats the AEC env must select for the game's current decision (its documented order)."""
    if game.phase in (Phase.CLAIM, Phase.ROB_KONG):
        return [(game.last_discarder + k) % 4 for k in (1, 2, 3)]
    return [game.current_player]


def _aec_vs_parallel(seed: int, rules="basic"):
    par = parallel_env(shaping="deficiency", gamma=0.9, rules=rules)
    obs, infos = par.reset(seed=seed)
    decisions = []  # per parallel step: the AEC agents to select, in order, with their choices
    total_par = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        acts = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in par.agents}
        decisions.append([(f"player_{s}", acts[f"player_{s}"], infos[f"player_{s}"]["needs_action"])
                          for s in _answering(par.game)])
        obs, rew, term, trunc, infos = par.step(acts)
        for a in rew:
            total_par[a] += rew[a]
    multi = sum(sum(needs for *_, needs in d) > 1 for d in decisions)
    aec = mjenv.env(shaping="deficiency", gamma=0.9, rules=rules)
    aec.reset(seed=seed)
    total_aec = dict.fromkeys(aec.possible_agents, 0.0)
    expected = [x for d in decisions for x in d]
    selected = []
    for agent in aec.agent_iter():
        obs, reward, term, _, info = aec.last()
        total_aec[agent] += reward
        if term:
            aec.step(None)
            continue
        want, action, needs = expected[len(selected)]
        assert agent == want and info["needs_action"] == needs
        if not needs:  # selected only to answer a window: PASS is its one legal action
            assert np.flatnonzero(obs["action_mask"]).tolist() == [PASS] and action == PASS
        selected.append(agent)
        aec.step(action)
    assert len(selected) == len(expected)
    assert total_aec == pytest.approx(total_par)
    return multi, {a: infos[a]["scores"] for a in infos}, decisions


@pytest.mark.parametrize("rules", ["basic", {"name": "basic", "claim_window": "when_possible"}],
                         ids=["always", "when_possible"])
def test_aec_and_parallel_agree_on_a_hand(rules):
    """The same seed and the same choice per decision give the same rewards in both APIs, including
    claim windows where several seats decide (the AEC env selects them one after another); in every
    window the AEC env selects all three other seats, those with nothing to decide answering PASS."""
    multi, _, decisions = _aec_vs_parallel(11, rules)
    assert multi > 0
    windows = [d for d in decisions if len(d) == 3]
    empty = [d for d in windows if not any(needs for *_, needs in d)]
    # always: windows nobody can claim are stepped through; when_possible: they never open
    assert windows and (len(empty) > 0) == (rules == "basic")
    _, scores, _ = _aec_vs_parallel(14, rules)
    assert any(scores.values())  # a hand that ends with a win


def test_render_every_mode(capsys, monkeypatch):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):  # "human" falls back to text here, no window
        monkeypatch.delenv(var, raising=False)
    env = parallel_env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert "player_0" in text and "wall 55" in text and "\U0001f010" <= max(text) <= "\U0001f02b"
    seat_view = parallel_env(render_mode="ansi", render_seat=1)
    seat_view.reset(seed=2)
    assert seat_view.render().count("\U0001f02b") == 13 + 13 + 14  # the other hands face down
    human = parallel_env(render_mode="human")
    human.reset(seed=2)
    assert "wall 55" in capsys.readouterr().out  # printed by reset itself
    obs, *_ = human.step({a: int(np.flatnonzero(obs_mask)[0]) for a, obs_mask in
                          ((a, human._table.masks[i]) for i, a in enumerate(human.agents))})
    assert "player_3" in capsys.readouterr().out  # and after every step
    assert human.render() is None and "player_3" in capsys.readouterr().out
    rgb = mjenv.env(render_mode="rgb_array")
    rgb.reset(seed=2)
    img = rgb.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20  # drawn, not a blank canvas


def test_logs_replay_to_the_same_observations(tmp_path):
    env = parallel_env(log_dir=tmp_path, observation="oracle")
    rng = np.random.default_rng(1)
    seen = []
    for seed in (0, 1):
        obs, _ = env.reset(seed=seed)
        hand = [np.stack([obs[a]["observation"] for a in sorted(obs)])]
        while env.agents:
            obs, *_ = env.step(_masked_random(obs, env.agents, rng))
            hand.append(np.stack([obs[a]["observation"] for a in sorted(obs)]))
        seen.append(hand)
    logs = read_jsonl(tmp_path / "hands.jsonl")
    assert len(logs) == 2
    for log, hand in zip(logs, seen):
        json.dumps(log)
        replayed = replay_observations(log, observation="oracle")
        assert len(replayed) == len(hand)
        for x, y in zip(replayed, hand):
            np.testing.assert_array_equal(x, y)


def test_documentation_page_tables_come_from_the_definitions():
    page = sys.modules["mjenv.env"].__doc__
    assert ObservationSpec("basic").markdown_table() in page
    for name in CLAIM_NAMES:
        assert f"| {name} |" in page
    assert not any(p in page for p in ("{ACTIONS}", "{OBSERVATION}", "{SIZE}"))  # placeholders filled


def test_mjenv_env_is_callable_before_and_after_importing_the_module():
    code = (
        "import mjenv\n"
        "a = mjenv.env(rules='basic')\n"
        "import mjenv.env\n"
        "b = mjenv.env(rules='basic')\n"
        "from mjenv.env import raw_env\n"
        "assert type(a) is type(b) and isinstance(a.unwrapped, raw_env)\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


# ---------------------------------------------------------------- no leak through claim windows
# Two deals that differ only in hidden tiles: seat 0 (dealer) draws and discards 9p first. In
# CAN_PONG seat 2 holds 9p 9p and may pong it; in CANNOT seat 2 holds 9p 6p and seat 3 the other 9p
# (instead of 6p), so nobody can claim it. Seats 0 and 1 hold the same tiles in both, and with every
# seat discarding what it draws and passing every claim, they see the same tiles at the same times.
_S0, _S1 = "123s 456s 789s 123m 4m", "1s 2s 3s 4s 5s 6s 1m 2m 3m 4m 5m 6m 1p"
CAN_PONG = [_S0, _S1, "9p9p 7s8s9s 5m6m7m8m9m 2p3p4p", "1s 3s 5s 7s 2m 4m 6m 8m 1p 3p 5p 7p 6p"]
CANNOT = [_S0, _S1, "9p6p 7s8s9s 5m6m7m8m9m 2p3p4p", "1s 3s 5s 7s 2m 4m 6m 8m 1p 3p 5p 7p 9p"]
WHEN_POSSIBLE = {"name": "basic", "claim_window": "when_possible"}


def _fixed_choice(game, seat: int) -> int:
    """Discard the drawn tile on one's own turn, pass everything else (never claim, never win)."""
    return int(game.last_drawn) if game.phase == Phase.DISCARD and seat == game.current_player else PASS


def _parallel_view(hands, seat: int, rules="basic") -> list:
    """Everything ``seat`` receives from the parallel env over the whole hand, step by step."""
    env = parallel_env(rules=rules)
    obs, infos = env.reset(seed=0, options={"wall": make_wall(rules, hands=hands, draws="9p")})
    a = f"player_{seat}"
    view = [(obs[a]["observation"].tobytes(), obs[a]["action_mask"].tobytes(), infos[a])]
    while env.agents:
        obs, rew, term, _, infos = env.step({b: _fixed_choice(env.game, i) for i, b in enumerate(env.agents)})
        view.append((obs[a]["observation"].tobytes(), obs[a]["action_mask"].tobytes(), infos[a], rew[a], term[a]))
    return view


def _aec_view(hands, seat: int, rules="basic") -> list:
    """The AEC agent order and everything ``seat`` can observe, selection by selection."""
    env = mjenv.env(rules=rules)
    env.reset(seed=0, options={"wall": make_wall(rules, hands=hands, draws="9p")})
    a = f"player_{seat}"
    view = []
    for agent in env.agent_iter():
        o = env.observe(a)
        # the seat's entries go once it has stepped out after the end
        view.append((agent, o["observation"].tobytes(), o["action_mask"].tobytes(), env.infos.get(a),
                     env._cumulative_rewards.get(a), env.terminations.get(a)))
        env.step(None if env.terminations[agent] else _fixed_choice(env.unwrapped.game, int(agent[-1])))
    return view


def test_the_scripted_deals_differ_in_a_claim_only():
    """The premise of the no-leak tests: after the first discard seat 2 can pong in one deal only."""
    for hands, acting in ((CAN_PONG, [2]), (CANNOT, [])):
        env = parallel_env()
        env.reset(options={"wall": make_wall("basic", hands=hands, draws="9p")})
        assert env.game.hands[0, 26] == 1 and env.game.last_drawn == 26  # 9p
        env.step({b: _fixed_choice(env.game, i) for i, b in enumerate(env.agents)})
        assert env.game.phase == Phase.CLAIM and env.game.acting_seats() == acting
    with pytest.raises(ValueError, match="wall must hold each tile id 0..26 exactly 4 times"):
        parallel_env().reset(options={"wall": [0] * 108})
    with pytest.raises(ValueError, match="dealer must be a seat 0..3"):
        mjenv.env().reset(options={"dealer": 5})


@pytest.mark.parametrize("seat", [0, 1])
def test_no_leak_whether_an_opponent_can_claim(seat):
    """Under the default rules a seat's whole stream (steps, observations, masks, infos, rewards) is
    the same whether or not an opponent can claim; under claim_window="when_possible" it is not (the
    window, and so an extra step, appears only when someone can claim), which shows the test can fail."""
    same = _parallel_view(CAN_PONG, seat), _parallel_view(CANNOT, seat)
    assert len(same[0]) > 100
    _assert_same(same[0], same[1])
    leaky = _parallel_view(CAN_PONG, seat, WHEN_POSSIBLE), _parallel_view(CANNOT, seat, WHEN_POSSIBLE)
    # the first discard opens the pong window in one deal only: the observation right after it (its
    # phase) differs, and so does the number of steps (more windows open in the deal with the pair)
    assert leaky[0][1][0] != leaky[1][1][0] and len(leaky[0]) > len(leaky[1])


def test_no_leak_in_the_aec_agent_order():
    """In the AEC API the selected agents are public: with the default rules every window selects the
    three other seats, so the order and the seat's observations match; with when_possible they do not."""
    same = _aec_view(CAN_PONG, 1), _aec_view(CANNOT, 1)
    _assert_same(same[0], same[1])
    assert [x[0] for x in same[0][:4]] == ["player_0", "player_1", "player_2", "player_3"]
    leaky = _aec_view(CAN_PONG, 1, WHEN_POSSIBLE), _aec_view(CANNOT, 1, WHEN_POSSIBLE)
    assert [x[0] for x in leaky[0]] != [x[0] for x in leaky[1]]


def test_seat_view_render_marks_every_answering_seat():
    """A seat's rendered view of a window marks the three answering seats, whoever can claim."""
    texts = []
    for hands in (CAN_PONG, CANNOT):
        env = parallel_env(render_mode="ansi", render_seat=1)
        env.reset(options={"wall": make_wall("basic", hands=hands, draws="9p")})
        env.step({b: _fixed_choice(env.game, i) for i, b in enumerate(env.agents)})
        texts.append(env.render())
    assert texts[0] == texts[1]
    assert "phase claim" in texts[0] and "to act: player_1, player_2, player_3" in texts[0]


def test_aec_env_last_checks_reset_and_matches_the_raw_env():
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper

    e = mjenv.env()
    assert isinstance(e, OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        e.last()
    e.reset(seed=3)
    for _ in range(40):
        got, want = e.last(), e.unwrapped.last()
        np.testing.assert_array_equal(got[0]["observation"], want[0]["observation"])
        assert got[1:] == want[1:] and e.last(observe=False)[0] is None
        obs = got[0]
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
