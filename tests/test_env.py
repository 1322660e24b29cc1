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
from mjenv.game import read_jsonl
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
    steps = 0
    while env.agents:
        assert set(obs) == set(env.agents) == set(infos)
        for a in env.agents:
            mask = obs[a]["action_mask"]
            assert mask.dtype == np.int8 and mask.sum() >= 1
            assert obs[a]["observation"].dtype == np.float32
            if not infos[a]["needs_action"]:
                assert np.flatnonzero(mask).tolist() == [PASS]
        assert any(infos[a]["needs_action"] for a in env.agents)
        for a in env.agents:
            assert infos[a]["potential"] == -min(infos[a]["deficiency"], POTENTIAL_CAP)
        obs, rew, term, trunc, infos = env.step(_masked_random(obs, env.agents, rng))
        steps += 1
    assert all(term.values()) and steps > 10
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


def test_illegal_action_penalize_ends_the_hand_in_parallel():
    env = parallel_env()
    obs, infos = env.reset(seed=0)
    actor = next(a for a in env.agents if infos[a]["needs_action"])
    actions = {a: PASS for a in env.agents}
    actions[actor] = _first_illegal(obs[actor]["action_mask"])
    obs, rew, term, trunc, infos = env.step(actions)
    assert all(term.values()) and env.agents == []
    assert rew[actor] == -1.0 and all(rew[a] == 0.0 for a in rew if a != actor)
    assert infos[actor]["illegal_action"] and not any(infos[a]["illegal_action"] for a in infos if a != actor)


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


def _aec_vs_parallel(seed: int):
    par = parallel_env(shaping="deficiency", gamma=0.9)
    obs, infos = par.reset(seed=seed)
    decisions = []  # per parallel step: the choices of the seats that had to decide
    total_par = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        acts = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in par.agents}
        decisions.append({a: acts[a] for a in par.agents if infos[a]["needs_action"]})
        obs, rew, term, trunc, infos = par.step(acts)
        for a in rew:
            total_par[a] += rew[a]
    multi = sum(len(d) > 1 for d in decisions)
    aec = mjenv.env(shaping="deficiency", gamma=0.9)
    aec.reset(seed=seed)
    total_aec = dict.fromkeys(aec.possible_agents, 0.0)
    step = 0
    for agent in aec.agent_iter():
        _, reward, term, _, info = aec.last()
        total_aec[agent] += reward
        if term:
            aec.step(None)
            continue
        assert info["needs_action"] and agent in decisions[step]
        aec.step(decisions[step].pop(agent))
        if not decisions[step]:
            step += 1
    assert step == len(decisions)
    assert total_aec == pytest.approx(total_par)
    return multi, {a: infos[a]["scores"] for a in infos}


def test_aec_and_parallel_agree_on_a_hand():
    """The same seed and the same choice per decision give the same rewards in both APIs, including
    claim windows where several seats decide (the AEC env selects them one after another)."""
    multi, _ = _aec_vs_parallel(11)
    assert multi > 0
    _, scores = _aec_vs_parallel(14)
    assert any(scores.values())  # a hand that ends with a win


def test_render_every_mode(capsys):
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
