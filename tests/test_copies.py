"""Copies are independent and exact: ``copy.deepcopy`` and pickle of a game or env mid-hand.

Each test plays a few steps, copies the object, then steps three objects with the same actions for
whole hands: the original, its copy, and a twin that was never copied (same seed, same actions from
the start). All three must show the same observations, masks, rewards and infos at every step: a copy
that shares state with its original, or that kept a buffer its transitions no longer write, drifts
from the twin. Every test runs on the compiled kernel and on the numpy path.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from mjenv.wrappers import SingleAgentEnv

import mjenv
from mjenv.game import Game
from mjenv.observation import ObservationSpec

COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda x: pickle.loads(pickle.dumps(x))}
#: steps played before the copy: early in a hand and well into it (melds usually declared by then)
COPY_AT = (3, 40)


@pytest.fixture(params=["kernel", "numpy"])
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    return request.param


def _pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _all_equal(outputs: list) -> None:
    """The step outputs of original, copy and twin are equal (nested dicts, lists, arrays)."""
    for other in outputs[1:]:
        np.testing.assert_equal(other, outputs[0])


def _game_state(g: Game, spec: ObservationSpec) -> dict:
    obs, deficiency = spec.observe(g)
    return {
        "obs": obs, "deficiency": deficiency, "table": g.tile_counts.copy(), "hands": g.hands.copy(),
        "masks": g.legal_action_masks(), "acting": g.acting_seats(), "result": g.result(),
        "melds": g.melds, "discards": g.discards.copy(), "wall_remaining": g.wall_remaining,
    }  # fmt: skip


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("at", COPY_AT)
def test_game_copy_steps_in_lockstep(path, how, at):
    spec = ObservationSpec("basic")
    for seed in range(2):
        rng = np.random.default_rng(seed)
        g, twin = Game("basic", seed), Game("basic", seed)
        for _ in range(at):
            actions = [_pick(g.legal_action_mask(s), rng) for s in range(4)]
            g.step(actions)
            twin.step(actions)
        games = [g, COPIES[how](g), twin]
        while not g.is_over:
            _all_equal([_game_state(x, spec) for x in games])
            actions = [_pick(g.legal_action_mask(s), rng) for s in range(4)]
            for x in games:
                x.step(actions)
        _all_equal([_game_state(x, spec) for x in games])
        _all_equal([x.log for x in games])


def _parallel_actions(obs: dict, rng: np.random.Generator) -> dict[str, int]:
    return {a: _pick(o["action_mask"], rng) for a, o in obs.items()}


@pytest.mark.parametrize("how", COPIES)
def test_parallel_env_copy_steps_in_lockstep(path, how):
    rng = np.random.default_rng(0)
    env, twin = mjenv.parallel_env(shaping="deficiency"), mjenv.parallel_env(shaping="deficiency")
    out = [env.reset(seed=5), twin.reset(seed=5)]
    _all_equal(out)
    for _ in range(COPY_AT[1]):
        a = _parallel_actions(out[0][0], rng)
        out = [env.step(a), twin.step(a)]
        _all_equal(out)
    envs = [env, COPIES[how](env), twin]
    for _ in range(2):  # the rest of this hand, then a whole hand dealt by the copied generator
        while envs[0].agents:
            a = _parallel_actions(out[0][0], rng)
            out = [e.step(a) for e in envs]
            _all_equal(out)
        out = [e.reset() for e in envs]
        _all_equal(out)


def _aec_view(env) -> tuple:
    return (env.agent_selection, env.last(), env.rewards, env._cumulative_rewards, env.terminations, env.infos,
            [env.observe(a) for a in env.possible_agents])  # fmt: skip


def _aec_action(env, rng: np.random.Generator):
    obs, _, term, trunc, _ = env.last()
    return None if term or trunc else _pick(obs["action_mask"], rng)


@pytest.mark.parametrize("how", COPIES)
def test_aec_env_copy_steps_in_lockstep(path, how):
    rng = np.random.default_rng(1)
    env, twin = mjenv.env(), mjenv.env()
    env.reset(seed=9)
    twin.reset(seed=9)
    for _ in range(COPY_AT[1]):
        a = _aec_action(env, rng)
        env.step(a)
        twin.step(a)
    envs = [env, COPIES[how](env), twin]
    for _ in range(2):  # the rest of this hand, then a whole hand dealt by the copied generator
        while envs[0].agents:
            _all_equal([_aec_view(e) for e in envs])
            a = _aec_action(envs[0], rng)
            for e in envs:
                e.step(a)
        for e in envs:
            e.reset()
        _all_equal([_aec_view(e) for e in envs])


@pytest.mark.parametrize("how", COPIES)
def test_vector_env_copy_steps_in_lockstep(path, how):
    rng = np.random.default_rng(2)
    venv, twin = mjenv.vector_env(2), mjenv.vector_env(2)
    out = [venv.reset(seed=3), twin.reset(seed=3)]
    _all_equal(out)

    def actions(obs) -> np.ndarray:
        m = obs["action_mask"]
        return np.array([[_pick(m[i, s], rng) for s in range(4)] for i in range(m.shape[0])])

    for _ in range(COPY_AT[1]):
        a = actions(out[0][0])
        out = [venv.step(a), twin.step(a)]
        _all_equal(out)
    envs = [venv, COPIES[how](venv), twin]
    ended = 0
    while ended < 4:  # hands that end after the copy, autoreset included
        a = actions(out[0][0])
        out = [e.step(a) for e in envs]
        _all_equal(out)
        ended += int(out[0][2].sum())


@pytest.mark.parametrize("how", COPIES)
def test_single_agent_env_copy_steps_in_lockstep(path, how):
    rng = np.random.default_rng(3)
    env, twin = SingleAgentEnv(opponents="random", seat=None), SingleAgentEnv(opponents="random", seat=None)
    _all_equal([env.reset(seed=4), twin.reset(seed=4)])
    for _ in range(10):
        a = _pick(env.action_masks(), rng)
        out = [env.step(a), twin.step(a)]
        _all_equal(out)
        if out[0][2]:
            _all_equal([env.reset(), twin.reset()])
    envs = [env, COPIES[how](env), twin]
    hands = 0
    while hands < 2:
        _all_equal([e.action_masks() for e in envs])
        a = _pick(envs[0].action_masks(), rng)
        out = [e.step(a) for e in envs]
        _all_equal(out)
        if out[0][2] or out[0][3]:
            hands += 1
            _all_equal([e.reset() for e in envs])
