"""``vector_env(N, num_threads=k)``: the compiled step on k threads gives the same arrays for every k, and the
gymnasium-style ``step_async`` / ``step_wait`` pair returns what ``step`` returns."""

from __future__ import annotations

import numpy as np
import pytest

import mjenv
from mjenv.game import batch

pytestmark = pytest.mark.skipif(not batch.available(), reason="mjenv.game._step is not built")


def _flat(out) -> list[np.ndarray]:
    """Every array a step returns, in a fixed order."""
    obs, rewards, terms, truncs, infos = out
    arrays = [obs["observation"], obs["action_mask"], rewards, terms, truncs]
    for key in ("needs_action", "deficiency", "potential", "_final_obs", "_final_info"):
        arrays.append(infos[key])
    arrays += [infos["final_obs"]["observation"], infos["final_obs"]["action_mask"]]
    arrays += [infos["final_info"][k] for k in ("scores", "winners", "illegal_action")]
    return arrays


def _play(num_threads: int, steps: int, num_envs: int, shaping, seed: int, illegal_every: int = 0, rules="basic"):
    venv = mjenv.vector_env(num_envs, rules=rules, shaping=shaping, gamma=0.9, num_threads=num_threads)
    assert venv.engine == "compiled" and venv.num_threads == num_threads
    obs, infos = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [obs["observation"].copy(), infos["deficiency"].copy()]
    for k in range(steps):
        m = obs["action_mask"]
        acts = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1)
        if illegal_every and k % illegal_every == illegal_every - 1:  # a seat plays an action its mask forbids
            i = k % num_envs
            acts[i, 0] = int(np.flatnonzero(m[i, 0] == 0)[0])
        out = venv.step(acts)
        trace += [a.copy() for a in _flat(out)]
        obs = out[0]
    venv.close()
    return trace


@pytest.mark.parametrize("shaping", [None, "deficiency"])
def test_outputs_are_the_same_for_every_number_of_threads(shaping):
    """Every array of 400 steps of 13 tables (hands ending and dealt again, illegal actions ending some) equals
    the one-thread run exactly, at 2 and 3 threads."""
    one = _play(1, 400, 13, shaping, seed=5, illegal_every=37)
    assert sum(int(t.sum()) for t in one[5::15]) >= 30  # many hands ended (terminations) over the run
    for k in (2, 3):
        other = _play(k, 400, 13, shaping, seed=5, illegal_every=37)
        assert len(other) == len(one)
        for i, (a, b) in enumerate(zip(one, other)):
            assert a.dtype == b.dtype and a.shape == b.shape, (k, i)
            assert a.tobytes() == b.tobytes(), (k, i)


@pytest.mark.parametrize("rules", ["sichuan", "taiwan16"])
def test_the_rooms_rule_sets_give_the_same_outputs_for_every_number_of_threads(rules):
    """The rooms' compiled hooks (a Sichuan hand pays as it goes, taiwan16's flowers) on 2 and 3 threads."""
    one = _play(1, 300, 11, "deficiency", seed=9, illegal_every=41, rules=rules)
    for k in (2, 3):
        other = _play(k, 300, 11, "deficiency", seed=9, illegal_every=41, rules=rules)
        assert len(other) == len(one)
        assert all(a.dtype == b.dtype and a.tobytes() == b.tobytes() for a, b in zip(one, other)), k


def test_more_threads_than_tables():
    assert all(a.tobytes() == b.tobytes() for a, b in zip(_play(1, 60, 2, None, 3), _play(5, 60, 2, None, 3)))


def test_step_async_and_step_wait_return_what_step_returns():
    a, b = mjenv.vector_env(6, num_threads=2), mjenv.vector_env(6, num_threads=2)
    obs_a, _ = a.reset(seed=1)
    b.reset(seed=1)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="without a pending"):
        b.step_wait()
    for _ in range(150):
        m = obs_a["action_mask"]
        acts = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1)
        b.step_async(acts)
        with pytest.raises(ValueError, match="pending"):
            b.step_async(acts)
        acts_kept = acts.copy()
        acts[:] = -1  # the caller's buffer may change after step_async: the step took a copy
        got = b.step_wait()
        want = a.step(acts_kept)
        assert all(x.tobytes() == y.tobytes() for x, y in zip(_flat(want), _flat(got)))
        obs_a = want[0]
    b.step_async(np.full((6, 4), 10**6))  # out of range: step_wait raises what step raised
    with pytest.raises(ValueError, match="outside the action space"):
        b.step_wait()
    b.close()


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", 300])
def test_bad_thread_counts_are_refused(bad):
    with pytest.raises(ValueError, match="num_threads"):
        mjenv.vector_env(2, num_threads=bad)


def test_compiled_steps_equal_the_python_engine_while_their_arrays_are_reused():
    """The compiled step writes a returned array again once the caller has dropped it (and zeroes the final
    observations' rows it wrote): every array still equals the Python engine's, step after step."""
    a = mjenv.vector_env(5, engine="compiled", num_threads=2)
    b = mjenv.vector_env(5, engine="python")
    obs, _ = a.reset(seed=9)
    b.reset(seed=9)
    rng = np.random.default_rng(4)
    ended = 0
    for _ in range(300):
        m = obs["action_mask"]
        acts = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1)
        got, want = a.step(acts), b.step(acts)
        for x, y in zip(_flat(got), _flat(want)):
            assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
        obs = {"action_mask": got[0]["action_mask"].copy()}  # nothing the step returned is held
        ended += int(got[2].sum())
        del got
    assert ended >= 5
