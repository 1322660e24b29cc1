"""``vector_env(N, num_threads=k)``: the compiled step on k threads gives the same arrays for every k, and the
gymnasium-style ``step_async`` / ``step_wait`` pair returns what ``step`` returns."""

from __future__ import annotations

import numpy as np
import pytest

import mjenv
from mjenv.game import batch
from tests.compare_helpers import assert_same, step_arrays

pytestmark = pytest.mark.skipif(not batch.available(), reason="mjenv.game._step is not built")


def _play(num_threads: int, steps: int, num_envs: int, shaping, seed: int, illegal_every: int = 0, rules="basic"):
    venv = mjenv.vector_env(num_envs, rules=rules, shaping=shaping, gamma=0.9, num_threads=num_threads)
    assert venv.engine == "compiled" and venv.num_threads == num_threads
    obs, infos = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    trace = [("reset/observation", obs["observation"].copy()), ("reset/deficiency", infos["deficiency"].copy())]
    for k in range(steps):
        m = obs["action_mask"]
        acts = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1)
        if illegal_every and k % illegal_every == illegal_every - 1:  # a seat plays an action its mask forbids
            i = k % num_envs
            acts[i, 0] = int(np.flatnonzero(m[i, 0] == 0)[0])
        out = venv.step(acts)
        trace += [(f"step {k}{path}", a.copy()) for path, a in step_arrays(out)]
        obs = out[0]
    venv.close()
    return trace


@pytest.mark.parametrize("shaping", [None, "deficiency"])
def test_outputs_are_the_same_for_every_number_of_threads(shaping):
    """Every array of 400 steps of 13 tables (hands ending and dealt again, illegal actions ending some) equals
    the one-thread run exactly, at 2 and 3 threads."""
    one = _play(1, 400, 13, shaping, seed=5, illegal_every=37)
    assert sum(int(a.sum()) for path, a in one if path.endswith("/2")) >= 30  # many hands ended (terminations)
    for k in (2, 3):
        assert_same(_play(k, 400, 13, shaping, seed=5, illegal_every=37), one, f"{k} threads", (f"{k} threads", "1"))


@pytest.mark.parametrize("rules", ["sichuan", "taiwan16"])
def test_the_rooms_rule_sets_give_the_same_outputs_for_every_number_of_threads(rules):
    """The rooms' compiled hooks (a Sichuan hand pays as it goes, taiwan16's flowers) on 2 and 3 threads."""
    one = _play(1, 300, 11, "deficiency", seed=9, illegal_every=41, rules=rules)
    for k in (2, 3):
        assert_same(_play(k, 300, 11, "deficiency", seed=9, illegal_every=41, rules=rules), one, f"{k} threads")


def test_more_threads_than_tables():
    assert_same(_play(5, 60, 2, None, 3), _play(1, 60, 2, None, 3), "5 threads")


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
        for misuse, args in ((b.step_async, (acts,)), (b.step, (acts,)), (b.reset, ())):
            with pytest.raises(ValueError, match="pending; call step_wait"):
                misuse(*args)
        acts_kept = acts.copy()
        acts[:] = -1  # the caller's buffer may change after step_async: the step took a copy
        got = b.step_wait()
        want = a.step(acts_kept)
        assert_same(got, want, "step_wait", ("step_wait", "step"))
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
        assert_same(got, want, "compiled", ("compiled", "python"))
        obs = {"action_mask": got[0]["action_mask"].copy()}  # nothing the step returned is held
        ended += int(got[2].sum())
        del got
    assert ended >= 5


def _seeds(count: int) -> np.ndarray:
    """uint64 seeds: the edges of one and two 32-bit words, then ``count`` drawn as the tables draw game seeds."""
    edges = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 2, 2**64 - 1]
    drawn = np.random.default_rng(11).integers(0, 2**63 - 1, count, dtype=np.int64)
    return np.concatenate([np.array(edges, dtype=np.uint64), drawn.astype(np.uint64), np.arange(200, dtype=np.uint64)])


@pytest.mark.parametrize("size", [1, 2, 3, 108, 136, 144, 200])
def test_walls_are_numpys_permutation_bit_for_bit(size):
    """The deal's wall in C (``_step.shuffled_walls``) is ``numpy.random.default_rng(seed).permutation(tiles)``."""
    from mjenv.game import _step

    seeds = _seeds(3000)
    tiles = np.random.default_rng(size).integers(0, 42, size).astype(np.int8)
    out = np.empty((len(seeds), size), dtype=np.int8)
    _step.shuffled_walls(tiles, seeds, out)
    want = np.stack([np.random.default_rng(int(s)).permutation(tiles) for s in seeds])
    assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("rules", ["basic", "honours", "taiwan16"])
def test_batch_walls_equal_the_python_engines(rules):
    from mjenv.game.engine import seeded_wall, tile_set
    from mjenv.rules import get_rules

    games = batch.BatchGames(get_rules(rules), 1)
    seeds = [int(s) for s in _seeds(500)] + [2**64, 3 * 2**70]  # beyond 64 bits: numpy's own shuffle
    want = np.stack([seeded_wall(tile_set(get_rules(rules)), s) for s in seeds])
    assert games.walls(seeds).tobytes() == want.astype(np.int8).tobytes()


@pytest.mark.parametrize("seed", [None, 0, 7, 2**40])
def test_game_seeds_drawn_in_c_are_the_generators_own_draws(seed):
    """``_step.game_seeds`` draws ``integers(0, 2**63 - 1)`` through the generator's capsule: the same numbers, and
    the generator moves on exactly as numpy's calls move it."""
    from gymnasium.utils import seeding

    from mjenv.game import _step
    from mjenv.tables import game_seed_of

    ours, _ = seeding.np_random(seed)
    theirs = np.random.Generator(np.random.PCG64())
    theirs.bit_generator.state = ours.bit_generator.state
    out = np.empty(2000, dtype=np.uint64)
    _step.game_seeds(ours, out)
    assert out.tolist() == [game_seed_of(theirs)[1] for _ in range(2000)]
    assert ours.bit_generator.state == theirs.bit_generator.state
    assert ours.random() == theirs.random()


@pytest.mark.parametrize("num_threads", [1, 2])
def test_resets_between_steps_keep_the_compiled_deals_equal_to_the_python_engine(num_threads):
    """A reset with seeds (new generators for every table), without them (the same generators go on) and with a
    given wall: the hands the step deals afterwards are still the Python engine's."""
    from mjenv.game.engine import tile_set

    a = mjenv.vector_env(6, engine="compiled", num_threads=num_threads)
    b = mjenv.vector_env(6, engine="python")
    rng = np.random.default_rng(2)
    ended = 0
    wall = np.random.default_rng(5).permutation(tile_set(a._batch.rules)).tolist()
    for options, seed in [(None, 3), (None, None), ([None, {"wall": wall}] + [None] * 4, 40), (None, [9] * 6)]:
        got, want = a.reset(seed=seed, options=options), b.reset(seed=seed, options=options)
        assert all(x.tobytes() == y.tobytes() for x, y in zip(got[0].values(), want[0].values()))
        obs = got[0]
        for _ in range(250):
            m = obs["action_mask"]
            acts = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1)
            got, want = a.step(acts), b.step(acts)
            assert_same(got, want, "compiled", ("compiled", "python"))
            obs = got[0]
            ended += int(got[2].sum())
    assert ended >= 10
