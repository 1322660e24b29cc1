"""The compiled Riichi engine (``mjenv/rulesets/riichi/_engine.c``) against the Python engine, the reference.

Both vector envs play the same seeds with the same random legal actions; every array they return (observations,
masks, rewards, terminations, the infos' arrays and the final scores and points) must be equal at every step.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import mjenv
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import compiled
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.mjlog import replay_with_walls
from mjenv.rulesets.riichi.observation import spec
from tests.compare_helpers import assert_same

pytestmark = pytest.mark.skipif(not compiled.available(), reason="the compiled Riichi engine is not built")

_INFO_KEYS = ("needs_action", "deficiency", "potential")
_FINAL_KEYS = ("final_scores", "final_points", "illegal_action", "scores", "winners")


#: the actions a seat takes whenever they are legal (``eager`` play: wins, riichi and calls come often)
_EAGER = np.array([A.TSUMO, A.RON, A.RIICHI, A.PON, A.CHI])
#: the tile type each discard action discards (the red fives' actions: bamboo, characters, dots)
_DISCARD_TYPE = np.array([*range(34), 4, 13, 22])
_AFTER_DISCARD = spec().slices["deficiency_after_discard"]


def play_both(n: int, episode: str, hands: int, seed: int = 0, num_threads: int = 1, illegal: float = 0.0,
              eager: float = 0.0, **kwargs) -> int:
    """Play ``n`` tables on both engines until ``hands`` hands have ended (by a result or an illegal action); the
    hands played. ``illegal``: the
    chance that a table's step gives one seat a uniformly random action (mostly illegal: it ends the episode).
    ``eager``: the chance that a seat takes the first legal one of a win, riichi, pon or chi instead of a uniform
    legal action (random play alone rarely wins, so the scorer's paths would go unchecked)."""
    py = mjenv.vector_env(n, rules="riichi", episode=episode, engine="python", **kwargs)
    cc = mjenv.vector_env(n, rules="riichi", episode=episode, engine="compiled", num_threads=num_threads, **kwargs)
    out1, out2 = py.reset(seed=seed), cc.reset(seed=seed)
    rng = np.random.default_rng(seed)
    played = step = 0
    while True:
        assert_same(out1, out2, f"step {step}", ("python", "compiled"))  # everything the step returned
        if played >= hands:
            return played
        o1 = out1[0]
        masks = o1["action_mask"]
        pick = rng.random((n, 4, 1)) * masks.sum(axis=2, keepdims=True)
        acts = (np.cumsum(masks, axis=2) <= pick).sum(axis=2)  # a uniform legal action of each seat
        if eager:  # discard towards the least deficiency (ties and near-ties at random), then take what is offered
            cost = o1["observation"][:, :, _AFTER_DISCARD][:, :, _DISCARD_TYPE] + rng.random((n, 4, 37)) * 1.5
            cost[masks[:, :, :37] == 0] = np.inf
            greedy = np.isfinite(cost).any(axis=2) & (rng.random((n, 4)) < eager)
            acts = np.where(greedy, cost.argmin(axis=2), acts)
            offered = masks[:, :, _EAGER] > 0
            first = _EAGER[offered.argmax(axis=2)]
            take = offered.any(axis=2) & (rng.random((n, 4)) < eager)
            acts = np.where(take, first, acts)
        wild = np.flatnonzero(rng.random(n) < illegal)
        acts[wild, rng.integers(4, size=len(wild))] = rng.integers(masks.shape[2], size=len(wild))
        out1, out2 = py.step(acts), cc.step(acts)
        step += 1
        d1, i1 = out1[2], out1[4]
        assert i1.keys() >= {*_INFO_KEYS, "final_obs", "final_info"} and i1["final_info"].keys() >= set(_FINAL_KEYS)
        cut = d1 & np.asarray(i1["final_info"]["illegal_action"]).any(axis=1)  # hands an illegal action ended
        played += sum(t.hand_end is not None for t in py.tables) + int((d1 if episode == "hand" else cut).sum())


def play_both_split(n: int, episode: str, hands: int, seed: int, **kwargs) -> int:
    """:func:`play_both` of ``hands`` hands shared by one worker process per core (at most 2; under ``-n`` they
    share the cores with the suite's other workers), each on its own seed; the hands played. A worker's failed
    comparison is raised here with its message. Under 100 hands one process plays them (a worker's start would cost
    more than it saves)."""
    workers = max(1, min(2, len(os.sched_getaffinity(0))))
    if workers == 1 or hands < 100:
        return play_both(n, episode, hands, seed, **kwargs)
    share = -(-hands // workers)
    ctx = multiprocessing.get_context("spawn")  # a fresh interpreter: no fork of this process's threads
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        runs = [pool.submit(play_both, n, episode, share, seed + 7919 * k, **kwargs) for k in range(workers)]
        return sum(r.result() for r in runs)


#: hands per episode mode: the default suite's (the Python reference plays about 18 hands per CPU-second; two
#: worker processes share them) and the slow suite's
DEFAULT_HANDS = {"hand": 2000, "east": 2000, "hanchan": 2000}
SLOW_HANDS = {"hand": 50000, "east": 50000, "hanchan": 50000}


@pytest.mark.heavy
@pytest.mark.parametrize("episode", list(DEFAULT_HANDS))
def test_play_equals_python(episode):
    """Random and eager play on 16 tables: every array of both engines equal at every step."""
    hands = DEFAULT_HANDS[episode]
    assert play_both_split(16, episode, hands, seed=3, eager=0.8) >= hands


@pytest.mark.slow
@pytest.mark.parametrize("episode", list(SLOW_HANDS))
def test_play_equals_python_many_hands(episode):
    hands = SLOW_HANDS[episode]
    assert play_both_split(64, episode, hands, seed=11, eager=0.8) >= hands


#: hands per episode mode with ``claim_window="when_possible"`` (a window only when some seat can claim: the
#: engine resolves an empty window inside the step of its discard or kan), default and slow suite
WHEN_POSSIBLE_HANDS = {"hand": 400, "east": 200, "hanchan": 200}
SLOW_WHEN_POSSIBLE_HANDS = {"hand": 20000, "east": 5000, "hanchan": 5000}


@pytest.mark.parametrize("episode", list(WHEN_POSSIBLE_HANDS))
def test_when_possible_play_equals_python(episode):
    hands = WHEN_POSSIBLE_HANDS[episode]
    assert play_both_split(16, episode, hands, seed=4, eager=0.8, claim_window="when_possible") >= hands


@pytest.mark.slow
@pytest.mark.parametrize("episode", list(SLOW_WHEN_POSSIBLE_HANDS))
def test_when_possible_play_equals_python_many_hands(episode):
    hands = SLOW_WHEN_POSSIBLE_HANDS[episode]
    assert play_both(64, episode, hands, seed=12, eager=0.8, claim_window="when_possible") >= hands


def test_when_possible_illegal_actions_and_shaping_equal_python():
    assert play_both(8, "east", 60, seed=8, illegal=0.005, eager=0.5, shaping="deficiency", gamma=0.99,
                     claim_window="when_possible", num_threads=2) >= 60


#: hands per (episode mode, claim window) with ``observers="acting"`` (only the acting seats observed; every seat
#: after a deal and at an end), default and slow suite
ACTING_HANDS = {("hand", "always"): 150, ("hand", "when_possible"): 150, ("east", "always"): 50}
SLOW_ACTING_HANDS = {("hand", "always"): 10000, ("hand", "when_possible"): 10000, ("hanchan", "always"): 2000}


@pytest.mark.parametrize(("episode", "window"), list(ACTING_HANDS))
def test_acting_observers_play_equals_python(episode, window):
    hands = ACTING_HANDS[episode, window]
    assert play_both_split(16, episode, hands, seed=9, eager=0.8, claim_window=window, observers="acting") >= hands


@pytest.mark.slow
@pytest.mark.parametrize(("episode", "window"), list(SLOW_ACTING_HANDS))
def test_acting_observers_play_equals_python_many_hands(episode, window):
    hands = SLOW_ACTING_HANDS[episode, window]
    assert play_both(64, episode, hands, seed=13, eager=0.8, claim_window=window, observers="acting") >= hands


def test_acting_observers_illegal_actions_and_shaping_equal_python():
    """The shaping of a seat that waits reads its last observed deficiency: the same on both engines, on 2 threads."""
    assert play_both(8, "east", 40, seed=10, illegal=0.005, eager=0.5, shaping="deficiency", gamma=0.99,
                     observers="acting", num_threads=2) >= 40


#: hands per (episode mode, claim window, observers) with ``observation="raw"`` (no derived views; the infos'
#: deficiencies alone through the kernel), uniform random play (eager play reads the derived views), default and slow
RAW_HANDS = {("hand", "always", "all"): 150, ("hand", "when_possible", "acting"): 150, ("east", "always", "acting"): 40}
SLOW_RAW_HANDS = {("hand", "always", "all"): 10000, ("hand", "when_possible", "acting"): 10000}


@pytest.mark.parametrize(("episode", "window", "observers"), list(RAW_HANDS))
def test_raw_observation_play_equals_python(episode, window, observers):
    hands = RAW_HANDS[episode, window, observers]
    assert play_both_split(16, episode, hands, seed=15, observation="raw", claim_window=window,
                           observers=observers) >= hands


@pytest.mark.slow
@pytest.mark.parametrize(("episode", "window", "observers"), list(SLOW_RAW_HANDS))
def test_raw_observation_play_equals_python_many_hands(episode, window, observers):
    hands = SLOW_RAW_HANDS[episode, window, observers]
    assert play_both(64, episode, hands, seed=16, observation="raw", claim_window=window,
                     observers=observers) >= hands


def test_raw_observation_illegal_actions_and_shaping_equal_python():
    assert play_both(8, "east", 30, seed=17, illegal=0.005, shaping="deficiency", gamma=0.99, observation="raw",
                     observers="acting", num_threads=2) >= 30


def test_illegal_actions_and_shaping_equal_python():
    """Illegal actions (the episode ends, mjenv.contract's rewards) with shaping: the same arrays on both engines."""
    assert play_both(8, "east", 60, seed=7, illegal=0.005, eager=0.5, shaping="deficiency", gamma=0.99) >= 60


@pytest.mark.parametrize("observation", ["default", "raw"])
@pytest.mark.parametrize("observers", ["all", "acting"])
def test_what_a_caller_writes_into_returned_arrays_never_shows(observation, observers):
    """The vector env hands a returned array out again once the caller drops it, and the engine writes every float
    of it: what a caller wrote into it (NaN, -7 here) never shows in a later step (the same seeds and actions on a
    table set whose arrays nobody writes give equal arrays at every step)."""
    kw = dict(episode="hanchan", observers=observers, **({} if observation == "default" else {"observation": "raw"}))
    clean, scribbled = mjenv.vector_env(8, rules="riichi", **kw), mjenv.vector_env(8, rules="riichi", **kw)
    o1, _ = clean.reset(seed=21)
    o2, _ = scribbled.reset(seed=21)
    rng = np.random.default_rng(21)
    for step in range(300):
        for k in ("observation", "action_mask"):
            assert_same(o1[k], o2[k], f"step {step}: {k}", ("clean", "written into"))
        masks = o1["action_mask"]
        acts = (rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=2)
        o2["observation"][...] = np.nan
        o2["action_mask"][...] = -7
        o1 = clean.step(acts)[0]
        o2 = scribbled.step(acts)[0]


def test_planes_equal_python():
    """``observation="planes"``: the compiled vector env's tile planes (and the ended episodes') are the Python's."""
    assert play_both(3, "hand", 6, seed=5, observation="planes", shaping="deficiency") >= 6


LOGS = sorted((Path(__file__).parent / "data" / "mjlog").glob("*.mjlog"))


@pytest.mark.parametrize("path", LOGS, ids=[p.stem[:24] for p in LOGS])
def test_real_logs_replay_on_the_compiled_engine(path, monkeypatch):
    """Every vendored Tenhou game's actions, played on the compiled engine, give every hand's result and deltas
    and the final scores of the Python referee."""
    steps: list[dict] = []
    step = RiichiGame.step

    def recording(self, actions, tiles=None):
        steps.append(dict(actions))
        return step(self, actions, tiles)

    monkeypatch.setattr(RiichiGame, "step", recording)
    game, walls = replay_with_walls(path.read_text())
    monkeypatch.undo()
    got = compiled.replay(steps, walls, game.length)
    assert [h["deltas"] for h in got["hands"]] == [r["deltas"] for r in game.results]
    assert [h["result"] for h in got["hands"]] == [r["result"] for r in game.results]
    assert got["final_scores"] == game.final_scores and got["final_points"] == game.final_points


def test_one_hand_walls_are_numpys_permutations():
    """A one-hand game's wall is drawn in C (no generator kept): ``default_rng(seed).permutation(136)`` bit for bit,
    with the game seed drawn from the table's generator as ``RiichiTable.reset`` draws it."""
    seeds = [int(x) for x in np.random.default_rng(7).integers(2**63, size=3000)] + [0, 1, 2**32, 2**63 - 1]
    out = np.empty((len(seeds), 136), dtype=np.uint8)
    compiled._shuffled_walls(compiled._TILES136, np.array(seeds, dtype=np.uint64), out)
    for wall, seed in zip(out, seeds):
        np.testing.assert_array_equal(wall, np.random.default_rng(seed).permutation(136))
    t = compiled.Tables(3, "hand")
    t.start([0, 1, 2], [5, 6, None])
    for i, s in enumerate([5, 6]):
        game_seed = int(np.random.default_rng(s).integers(2**63))
        assert t.walls[i] == np.random.default_rng(game_seed).permutation(136).tolist()
        assert t.game_rngs[i] is None


def _first_choice(masks: np.ndarray) -> np.ndarray:
    """int64[N, 4]: each seat's highest legal action (a discard or call where it has a choice)."""
    return 84 - np.argmax(masks[..., ::-1], axis=2)


@pytest.mark.parametrize("illegal_action", ["penalize", "raise"])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64, np.uint64])
def test_vector_actions_of_any_int_dtype_and_layout_step_alike(dtype, illegal_action):
    """The compiled vector env reads legal actions of every int dtype, C-ordered or not, as the same ids (with
    either illegal_action: none is refused)."""
    ref, venv = (mjenv.vector_env(3, rules="riichi", episode="hand", illegal_action=illegal_action)
                 for _ in range(2))
    o_ref, _ = ref.reset(seed=3)
    venv.reset(seed=3)
    for step in range(40):
        acts = _first_choice(o_ref["action_mask"])
        given = np.asfortranarray(acts.astype(dtype)) if step % 2 else acts.astype(dtype)
        o_ref, r_ref, *_ = ref.step(acts)
        o, r, *_ = venv.step(given)
        assert_same(o_ref["observation"], o["observation"], f"step {step}: observations")
        assert_same(r_ref, r, f"step {step}: rewards")


@pytest.mark.parametrize("engine, num_threads", [("compiled", 2), ("python", 1)])
def test_vector_step_async_and_step_wait_return_what_step_returns(engine, num_threads):
    """gymnasium's async pair on the Riichi vector env: every array equals a twin env's step over 300 steps (hands
    ending and dealt again); the caller's action buffer may change once step_async has returned; misuse and a bad
    action are clear errors (step, reset or step_async while a step is pending; step_wait without one)."""
    twin = mjenv.vector_env(4, rules="riichi", episode="hand", engine=engine)
    venv = mjenv.vector_env(4, rules="riichi", episode="hand", engine=engine, num_threads=num_threads)
    obs, _ = twin.reset(seed=11)
    venv.reset(seed=11)
    with pytest.raises(ValueError, match="without a pending"):
        venv.step_wait()
    ended = 0
    for step in range(300):
        acts = _first_choice(obs["action_mask"]) if step % 3 else np.zeros((4, 4), np.int64) + A.PASS
        acts = np.where(np.take_along_axis(obs["action_mask"], acts[..., None], 2)[..., 0] > 0, acts,
                        _first_choice(obs["action_mask"]))
        venv.step_async(acts)
        for misuse, args in ((venv.step_async, (acts,)), (venv.step, (acts,)), (venv.reset, ())):
            with pytest.raises(ValueError, match="pending; call step_wait"):
                misuse(*args)
        kept = acts.copy()
        acts[:] = -1  # the step took a copy
        got = venv.step_wait()
        want = twin.step(kept)
        assert_same(want, got, f"step {step}", ("step", "step_wait"))
        obs = want[0]
        ended += int(want[2].sum())
    assert ended >= 2  # hands ended and were dealt again on the way
    venv.step_async(np.full((4, 4), 85))  # outside the space: step_wait raises what step raised
    with pytest.raises(ValueError, match="outside the action space"):
        venv.step_wait()
    venv.step_async(kept)
    venv.close()  # lets the pending step finish, then stops the worker
    assert venv._stepping is None and venv._worker is None


@pytest.mark.parametrize("bad", [85, -1, 2**40, 2**32 + 5])
def test_vector_actions_outside_the_space_are_refused_and_move_no_table(bad):
    """An id outside 0..84 (also one that an int32 cast would wrap into the space) is refused, naming the seat and
    the id as given; no table moves."""
    venv = mjenv.vector_env(2, rules="riichi", episode="hand")
    obs, _ = venv.reset(seed=4)
    acts = _first_choice(obs["action_mask"])
    before = venv._core.core.states.copy()
    wrong = acts.copy()
    wrong[1, 2] = bad
    with pytest.raises(ValueError, match=rf"table 1: player_2: action {bad} is outside the action space 0..84"):
        venv.step(wrong)
    np.testing.assert_array_equal(venv._core.core.states, before)
    venv.step(acts)  # the retry is a plain step


def test_vector_illegal_int32_action_is_refused_with_raise():
    """An id in the space but not in the seat's mask: ``illegal_action="raise"`` refuses it and no table moves."""
    venv = mjenv.vector_env(2, rules="riichi", episode="hand", illegal_action="raise")
    obs, _ = venv.reset(seed=5)
    acts = _first_choice(obs["action_mask"]).astype(np.int32)
    seat = int(np.flatnonzero(obs["action_mask"][0].sum(axis=1) > 1)[0])
    acts[0, seat] = int(np.flatnonzero(obs["action_mask"][0, seat] == 0)[0])
    before = venv._core.core.states.copy()
    with pytest.raises(ValueError, match=rf"table 0: player_{seat}: action {acts[0, seat]} .* is illegal"):
        venv.step(acts)
    np.testing.assert_array_equal(venv._core.core.states, before)


@pytest.mark.parametrize("how", ["copy", "deepcopy", "pickle"])
def test_copied_tables_step_their_own_arrays(how):
    """The engine holds a table set's arrays (``Tables._bind``): a copy, deepcopy or unpickled set binds its own, so
    stepping the copy leaves the original's arrays alone and both play on as a twin that was never copied."""
    import copy
    import pickle

    make = {"copy": lambda t: t.copy(), "deepcopy": copy.deepcopy, "pickle": lambda t: pickle.loads(pickle.dumps(t))}
    orig, twin = compiled.Tables(3, "hand"), compiled.Tables(3, "hand")
    for t in (orig, twin):
        t.start(range(3), seeds=[7, 8, 9])
    for _ in range(5):
        acts = _first_choice(orig.masks)
        orig.step(acts)
        twin.step(acts)
    dup = make[how](orig)
    states, obs = orig.states.copy(), orig.obs.copy()
    acts = _first_choice(dup.masks)
    dup.step(acts)  # the copy alone: the original must not move
    np.testing.assert_array_equal(orig.states, states)
    np.testing.assert_array_equal(orig.obs, obs)
    assert not np.array_equal(dup.states, states)
    orig.step(acts)
    twin.step(acts)
    for _ in range(30):
        acts = _first_choice(twin.masks)
        for t in (orig, dup, twin):
            t.step(acts)
        for t in (orig, dup):
            for k in ("states", "obs", "masks", "defs", "info"):
                np.testing.assert_array_equal(getattr(t, k), getattr(twin, k), err_msg=k)


def test_the_engine_refuses_arrays_of_the_wrong_size():
    """``bind`` and ``run`` check every buffer's size (and run its obs' contiguity) with a ValueError naming it."""
    from mjenv.rulesets.riichi import _engine

    t = compiled.Tables(2, "hand")
    with pytest.raises(ValueError, match=r"bind\(\): info has 8 bytes, expected"):
        _engine.bind(t.states, t._ops, t._params, t.defs, np.zeros(2, np.int32), t.memos)
    with pytest.raises(ValueError, match=r"bind\(\): memos must be uint8\[N, memo_bytes\]"):
        _engine.bind(t.states, t._ops, t._params, t.defs, t.info, np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match=r"run\(\): obs has \d+ bytes, expected"):
        _engine.run(t._bound, t._no_actions, t.obs[:1], t.masks, None, 0)
    with pytest.raises(ValueError, match=r"run\(\): obs must be a C-contiguous buffer|not C-contiguous"):
        _engine.run(t._bound, t._no_actions, np.asfortranarray(t.obs), t.masks, None, 0)
    with pytest.raises(TypeError, match=r"run\(\) takes 6 arguments"):
        _engine.run(t._bound, t._no_actions, t.obs, t.masks, None)
