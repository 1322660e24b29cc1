"""Env input defects, each on the compiled-kernel and the numpy path: all-or-nothing vector
steps, vector reset options, omitted agents with one legal action, step before reset, numpy seeds,
and malformed actions (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mjenv
from mjenv.env import parallel_env, raw_env
from mjenv.game import make_wall

PASS = 2 * 27 + 6


@pytest.fixture(params=["kernel", "numpy"])
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    return request.param


def _legal(masks: np.ndarray) -> np.ndarray:
    """int[N, 4]: the first legal action of every seat."""
    return np.argmax(masks, axis=2)


@pytest.fixture(params=["python", "compiled"])
def engine(request):
    """The vector env's engine (the compiled batch step, or the Python engine)."""
    return request.param


def _snapshot(venv) -> list:
    if venv.engine == "python":
        return [(t.game.log, t.obs.copy(), t.masks.copy()) for t in venv.tables]
    g = venv._batch.games  # every array of the batch step's tables
    return [(None, a.copy(), venv._batch.deficiency.copy()) for a in (*g._arrays(), g.scalars, g.dealer)]


def _same(a, b) -> bool:
    return all(la == lb and np.array_equal(oa, ob) and np.array_equal(ma, mb)
               for (la, oa, ma), (lb, ob, mb) in zip(a, b))


def _dealers(venv) -> list[int]:
    if venv.engine == "python":
        return [t.game.dealer for t in venv.tables]
    return venv._batch.games.dealer.tolist()


def _hands(venv) -> list[np.ndarray]:
    if venv.engine == "python":
        return [t.game.hands for t in venv.tables]
    return list(venv._batch.games.tiles[:, 0:4])


# -- a vector step is all-or-nothing ------------------------------------------------------


@pytest.mark.parametrize("bad_table", [0, 1, 2])
@pytest.mark.parametrize("mode", ["penalize", "raise"])
def test_a_refused_vector_step_moves_no_table(path, bad_table, mode, engine):
    venv = mjenv.vector_env(3, illegal_action=mode, engine=engine)
    ref = mjenv.vector_env(3, illegal_action=mode, engine=engine)
    obs, _ = venv.reset(seed=4)
    ref.reset(seed=4)
    good = _legal(obs["action_mask"])
    refused = [good.copy()]
    refused[0][bad_table, 1] = 999  # outside the action space: always refused
    if mode == "raise":  # an illegal action in the mask's sense is refused too
        seat = int(np.flatnonzero(obs["action_mask"][bad_table].sum(axis=1) > 1)[0])
        row = good.copy()
        row[bad_table, seat] = int(np.flatnonzero(obs["action_mask"][bad_table, seat] == 0)[0])
        refused.append(row)
    before = _snapshot(venv)
    for actions in refused:
        with pytest.raises(ValueError):
            venv.step(actions)
        assert _same(_snapshot(venv), before)
    # the retry is a plain step: the same results as an env that never saw the refused one
    got, want = venv.step(good), ref.step(good)
    np.testing.assert_array_equal(got[0]["observation"], want[0]["observation"])
    np.testing.assert_array_equal(got[1], want[1])
    assert not got[4]["final_info"]["illegal_action"].any()


# -- vector reset options ----------------------------------------------------------------


def test_vector_reset_deals_with_the_options(path, engine):
    venv = mjenv.vector_env(3, engine=engine)
    venv.reset(seed=0, options={"dealer": 2})
    assert _dealers(venv) == [2, 2, 2]
    single, _ = parallel_env().reset(seed=1, options={"dealer": 2})
    obs, _ = venv.reset(seed=0, options=[None, {"dealer": 2}, {"dealer": 3}])
    assert _dealers(venv) == [0, 2, 3]
    np.testing.assert_array_equal(obs["observation"][1, 0], single["player_0"]["observation"])
    wall = make_wall("basic", hands=["123456789m1234p"])
    venv.reset(options={"wall": wall})
    scripted = mjenv.game.Game("basic", 0, wall=wall).hands
    assert all(np.array_equal(h, scripted) for h in _hands(venv))
    for bad in ([{"dealer": 2}], "dealer", [{"dealer": 1}, 5, None]):
        with pytest.raises(ValueError, match="options"):
            venv.reset(options=bad)
    with pytest.raises(ValueError, match="dealer"):
        venv.reset(options={"dealer": 4})


# -- an omitted agent takes its only legal action ---------------------------------------


def test_an_omitted_agent_takes_its_only_legal_action_even_when_it_is_not_pass(path):
    # seed 480 with these actions reaches a seat whose only legal action is a discard (a forced move)
    env = parallel_env()
    rng = np.random.default_rng(480)
    obs, _ = env.reset(seed=480)
    forced = 0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        single = [a for a in env.agents if obs[a]["action_mask"].sum() == 1]
        forced += sum(not obs[a]["action_mask"][PASS] for a in single)
        obs, _, _, _, infos = env.step({a: x for a, x in actions.items() if a not in single})
        assert not any(i.get("illegal_action") for i in infos.values())
    assert forced >= 1


def test_an_omitted_agent_with_a_choice_is_refused():
    env = parallel_env()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_0 must act now .*legal actions"):
        env.step({})


# -- step before reset, numpy seeds -------------------------------------------


@pytest.mark.parametrize("factory", [parallel_env, raw_env])
def test_step_before_reset_says_so(factory):
    env = factory()
    with pytest.raises(ValueError, match="before reset"):
        env.step({} if factory is parallel_env else PASS)


@pytest.mark.parametrize("seed", [np.int64(3), np.int32(3), np.uint8(3)])
def test_numpy_integer_seeds_equal_python_ints(seed, path):
    a, _ = parallel_env().reset(seed=seed)
    b, _ = parallel_env().reset(seed=3)
    np.testing.assert_array_equal(a["player_0"]["observation"], b["player_0"]["observation"])
    env = raw_env()
    env.reset(seed=seed)
    va, _ = mjenv.vector_env(2).reset(seed=seed)
    vb, _ = mjenv.vector_env(2).reset(seed=[np.int64(3), 4])
    np.testing.assert_array_equal(va["observation"], vb["observation"])


@pytest.mark.parametrize("seed", ["3", 3.0, -1, True, [3], object()])
def test_other_seeds_raise_value_error(seed):
    with pytest.raises(ValueError, match="seed"):
        parallel_env().reset(seed=seed)
    with pytest.raises(ValueError, match="seed"):
        raw_env().reset(seed=seed)


# -- malformed actions (hypothesis) ----------------------------------------------------------------

_MALFORMED = st.one_of(
    st.integers(max_value=-1),
    st.integers(min_value=2 * 27 + 7),
    st.floats(allow_nan=True),
    st.text(max_size=3),
    st.none(),
    st.booleans(),
    st.lists(st.integers(0, 60), max_size=2),
    st.just(np.float32(1.0)),
    st.just(np.array([1, 2])),
)


@given(action=_MALFORMED)
def test_malformed_parallel_actions_raise_naming_the_problem_and_the_legal_actions(action):
    env = parallel_env()
    obs, _ = env.reset(seed=0)
    with pytest.raises(ValueError) as err:
        env.step({"player_0": action})
    text = str(err.value)
    assert "player_0" in text and "legal actions" in text
    assert "0.." in text  # the allowed range of the action space
    legal = int(np.flatnonzero(obs["player_0"]["action_mask"])[0])
    env.step({"player_0": legal})  # nothing moved: the hand goes on from the same state


@given(action=_MALFORMED)
def test_malformed_aec_actions_raise_naming_the_problem_and_the_legal_actions(action):
    env = mjenv.env()
    env.reset(seed=0)
    agent = env.agent_selection
    with pytest.raises(ValueError) as err:
        env.step(action)
    assert agent in str(err.value) and "legal actions" in str(err.value)
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
