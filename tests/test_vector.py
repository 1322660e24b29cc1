"""mjenv.vector_env: same hands as single envs, one batched feature call per step, gymnasium conventions.

The vector env has one path: all tables' new states go through one observation-writer call per step
(one C call with the compiled kernel, one batched feature evaluation on the numpy path,
``MJENV_NO_KERNEL=1``). The behaviour tests run on both, on the default engine (the compiled batch step
for ``"basic"``; ``tests/test_vector_batch.py`` checks it equals the Python engine byte for byte).
"""

from __future__ import annotations

import numpy as np
import pytest

import mjenv
from mjenv.vector import MahjongVectorEnv


def _random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(masks.shape[:2], dtype=np.int64)
    for i in range(masks.shape[0]):
        for s in range(4):
            out[i, s] = rng.choice(np.flatnonzero(masks[i, s]))
    return out


@pytest.fixture(params=["c", "numpy"])
def path(request, monkeypatch):
    """Run the test on the kernel path and on the batched numpy path (the single envs follow suit)."""
    if request.param == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    return request.param


@pytest.mark.parametrize("shaping", [None, "deficiency"])
def test_vector_env_equals_single_envs_with_the_same_seeds_and_actions(shaping, path):
    n, seed = 3, 11
    kwargs = {"shaping": shaping, "gamma": 0.99} if shaping else {}
    venv = mjenv.vector_env(n, **kwargs)
    singles = [mjenv.parallel_env(**kwargs) for _ in range(n)]
    obs, infos = venv.reset(seed=seed)
    single_obs = [e.reset(seed=seed + i)[0] for i, e in enumerate(singles)]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(260):
        for i, e in enumerate(singles):
            for s, a in enumerate(e.possible_agents):
                np.testing.assert_array_equal(obs["observation"][i, s], single_obs[i][a]["observation"])
                np.testing.assert_array_equal(obs["action_mask"][i, s], single_obs[i][a]["action_mask"])
        actions = _random_actions(obs["action_mask"], rng)
        obs, rewards, terms, truncs, infos = venv.step(actions)
        assert not truncs.any()
        for i, e in enumerate(singles):
            o, r, te, _, inf = e.step({a: int(actions[i, s]) for s, a in enumerate(e.possible_agents)})
            np.testing.assert_allclose(rewards[i], [r[a] for a in e.possible_agents], rtol=0, atol=1e-5)
            assert bool(terms[i]) == te["player_0"]
            assert infos["_final_obs"][i] == te["player_0"]
            if te["player_0"]:
                ended += 1
                np.testing.assert_array_equal(infos["final_obs"]["observation"][i, 2], o["player_2"]["observation"])
                assert list(infos["final_info"]["scores"][i]) == [inf[a]["scores"] for a in e.possible_agents]
                assert sorted(np.flatnonzero(infos["final_info"]["winners"][i])) == inf["player_0"]["winners"]
                o, _ = e.reset()  # the vector env autoresets from the same generator
            else:
                needs = [inf[a]["needs_action"] for a in e.possible_agents]
                assert [bool(x) for x in infos["needs_action"][i]] == needs
            single_obs[i] = o
    assert ended >= 3  # the comparison crossed several autoresets


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_one_writer_call_per_step(path, monkeypatch, engine):
    """One writer call per step through Python; none where the compiled step calls the kernel itself (its one
    C call writes every table's observation, and one more the hands dealt again)."""
    venv = mjenv.vector_env(4, engine=engine)
    in_c = engine == "compiled" and path == "c"
    calls = []
    # the Python engine hands the writer games, the compiled batch step state records
    name = "observe_many" if engine == "python" else "observe_records"
    real = getattr(venv.spec, name)

    def counting(states, memos):
        calls.append(len(states))
        return real(states, memos)

    monkeypatch.setattr(venv.spec, name, counting)
    seats = []  # on the numpy path: one batched feature call over every observed seat
    if path == "numpy":
        evaluate = venv.spec.features.compute
        monkeypatch.setattr(venv.spec.features, "compute", lambda *a: seats.append(len(a[0])) or evaluate(*a))
    obs, _ = venv.reset(seed=3)
    assert calls == [4]  # the 4 tables together
    rng = np.random.default_rng(1)
    for _ in range(120):
        calls.clear()
        seats.clear()
        obs, _, terms, _, _ = venv.step(_random_actions(obs["action_mask"], rng))
        # live tables, plus the final state and the next deal of every table whose hand just ended
        assert calls == ([] if in_c else [4 + int(terms.sum())])
        assert seats == ([4 * calls[0]] if path == "numpy" else [])


def test_spaces_and_autoreset_metadata():
    from gymnasium.vector import AutoresetMode

    venv = mjenv.vector_env(2)
    single = mjenv.parallel_env().observation_space("player_0")
    assert venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert venv.single_observation_space["observation"].shape == single["observation"].shape
    assert venv.single_action_space.n == mjenv.parallel_env().action_space("player_0").n
    obs, infos = venv.reset(seed=0)
    assert venv.observation_space.contains(obs)
    assert obs["observation"].shape == (2, 4, single["observation"].shape[0])
    assert (obs["action_mask"].sum(axis=2) >= 1).all()  # never an all-zero mask
    assert infos["deficiency"].shape == (2, 4)


def test_reset_seeds_reproduce_and_per_table_seed_lists(path):
    a = mjenv.vector_env(2)
    b = mjenv.vector_env(2)
    oa, _ = a.reset(seed=5)
    ob, _ = b.reset(seed=[5, 6])
    np.testing.assert_array_equal(oa["observation"], ob["observation"])
    oc, _ = b.reset(seed=[6, 5])
    np.testing.assert_array_equal(oa["observation"][0], oc["observation"][1])
    assert not np.array_equal(oa["observation"][0], oa["observation"][1])


def test_bad_input_raises_value_error():
    with pytest.raises(ValueError, match="num_envs"):
        MahjongVectorEnv(0)
    venv = mjenv.vector_env(2)
    with pytest.raises(ValueError, match="reset"):
        venv.step(np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="one per table"):
        venv.reset(seed=[1, 2, 3])
    venv.reset(seed=0)
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError, match="outside the action space"):
        venv.step(np.full((2, 4), 999, dtype=np.int64))


def test_illegal_action_ends_only_that_table_with_the_penalty(path):
    venv = mjenv.vector_env(2)
    obs, _ = venv.reset(seed=1)
    actions = np.argmax(obs["action_mask"], axis=2)  # legal everywhere
    seat = int(np.flatnonzero(obs["action_mask"][0].sum(axis=1) > 1)[0])
    illegal = int(np.flatnonzero(obs["action_mask"][0, seat] == 0)[0])
    actions[0, seat] = illegal
    _, rewards, terms, _, infos = venv.step(actions)
    assert terms.tolist() == [True, False]
    assert rewards[0, seat] == -1.0 and rewards[0].sum() == -1.0
    assert infos["final_info"]["illegal_action"][0, seat]
