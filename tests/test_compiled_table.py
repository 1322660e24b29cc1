"""The PettingZoo envs on the compiled step (N = 1) equal the same envs on the Python engine, byte for byte.

Differential test: ``mjenv.parallel_env(engine="compiled")`` (``mjenv.compiled_table``: one
table of ``mjenv.game.batch.BatchGames``) against ``engine="python"`` (a ``mjenv.game.Game``), reset
with the same seeds and stepped with the same random actions: legal ones for the deciding seats,
some seats left out (they take their only legal action), and a few illegal ones; after every step
every returned dict (observations, masks, rewards, terminations, truncations, infos) must be equal
in dtype, shape and bytes, and at the end of each hand the game the compiled env rebuilds on demand
must hold the same log. The AEC env is compared the same way, and so are the observations a caller
keeps: a later step must not change them. The default suite plays 150 hands per preset (the vector
env's differential test, ``tests/test_vector_batch.py``, plays the same compiled step on 1,200); the
slow suite 5,000.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import mjenv
from mjenv.game import batch, make_wall
from tests.compare_helpers import assert_same

pytestmark = pytest.mark.skipif(not batch.available(), reason="mjenv.game._step not built (no C compiler)")

NO_CHOW = {"name": "basic", "allow_chow": False}
#: Hands per preset: about 5 ms a hand for both engines and the comparisons, so about 3 s in all.
HANDS = 150


def _actions(obs: dict, infos: dict, rng: np.random.Generator, illegal_rate: float) -> dict:
    """Random legal actions (some as numpy integers), some seats left out (PASS only, or a forced
    move), and with probability ``illegal_rate`` one illegal action."""
    acts = {}
    for a, o in obs.items():
        legal = np.flatnonzero(o["action_mask"])
        if len(legal) == 1 and rng.random() < 0.5:
            continue  # left out: the env takes its only legal action
        x = int(rng.choice(legal))
        acts[a] = np.int64(x) if rng.random() < 0.2 else x  # numpy integers too (a sampled action is one)
    if rng.random() < illegal_rate:
        a = list(obs)[int(rng.integers(len(obs)))]
        acts[a] = int(rng.choice(np.flatnonzero(obs[a]["action_mask"] == 0)))
    return acts


@pytest.mark.parametrize(
    ("rules", "kwargs"),
    [("basic", {"shaping": "deficiency", "gamma": 0.99}), ("honours", {}), (NO_CHOW, {"shaping": "deficiency"}),
     ("sichuan", {"shaping": "deficiency", "gamma": 0.9}), ("sichuan", {}), ("taiwan16", {"shaping": "deficiency"})],
)
def test_compiled_parallel_env_equals_the_python_engine(rules, kwargs):
    play_both(rules, HANDS, **kwargs)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["basic", "honours", NO_CHOW, "sichuan", "taiwan16"])
def test_compiled_parallel_env_equals_the_python_engine_5000_hands(rules):
    play_both(rules, 5_000, shaping="deficiency", gamma=0.97)


def play_both(rules, hands: int, **kwargs) -> None:
    """Plays ``hands`` hands on both engines side by side, comparing everything after every step."""
    fast = mjenv.parallel_env(rules=rules, engine="compiled", **kwargs)
    ref = mjenv.parallel_env(rules=rules, engine="python", **kwargs)
    assert fast.engine == "compiled" and ref.engine == "python"
    rng = np.random.default_rng(7)
    kept = []  # (observation dicts as returned, a copy of them): a later step must leave them as they were
    for hand in range(hands):
        seed = None if hand % 5 == 4 else 1000 + hand  # every fifth hand from the generator of the hand before
        out = fast.reset(seed=seed)
        assert_same(out, ref.reset(seed=seed), f"hand {hand} reset")
        step = 0
        while fast.agents:
            live = {a: o for a, o in out[0].items() if a in fast.agents}  # a seat that won has left (bloody battle)
            acts = _actions(live, out[1], rng, illegal_rate=0.002)
            out = fast.step(acts)
            assert_same(out, ref.step(acts), f"hand {hand} step {step}")
            if rng.random() < 0.01:
                kept.append((out[0], copy.deepcopy(out[0])))
            step += 1
        assert fast.agents == ref.agents == []
        assert_same(fast.game.log, ref.game.log, f"hand {hand} log")  # the game rebuilt on demand
    for given, copied in kept:
        assert_same(given, copied, "an observation kept across steps")


@pytest.mark.parametrize("rules", ["basic", "sichuan", "taiwan16"])
def test_compiled_aec_env_equals_the_python_engine(rules):
    fast = mjenv.env(rules=rules, engine="compiled", shaping="deficiency")
    ref = mjenv.env(rules=rules, engine="python", shaping="deficiency")
    assert fast.unwrapped.engine == "compiled"
    rng = np.random.default_rng(3)
    for hand in range(40):
        fast.reset(seed=hand)
        ref.reset(seed=hand)
        for agent in fast.agent_iter():
            assert agent == ref.agent_selection
            last = fast.last()
            assert_same(last, ref.last(), f"hand {hand} {agent}")
            mask = last[0]["action_mask"]
            act = None if last[2] or last[3] else int(rng.choice(np.flatnonzero(mask)))
            fast.step(act)
            ref.step(act)
        assert_same(fast.unwrapped.game.log, ref.unwrapped.game.log, f"hand {hand} log")


def test_game_rebuilt_on_demand_follows_every_step_and_copies():
    fast, ref = mjenv.parallel_env(engine="compiled"), mjenv.parallel_env(engine="python")
    wall = make_wall("basic", hands=["1m1m1m2m3m4m5m6m7m8m9m9m9m"], dealer=2)
    for options in (None, {"wall": wall, "dealer": 2}):
        obs, _ = fast.reset(seed=4, options=options)
        ref.reset(seed=4, options=options)
        rng = np.random.default_rng(1)
        while fast.agents:
            g, h = fast.game, ref.game
            assert g.hands.tolist() == h.hands.tolist() and g.phase == h.phase and g.dealer == h.dealer
            assert g.acting_seats() == h.acting_seats() == fast._table.acting
            acts = _actions(obs, None, rng, 0.0)
            obs = fast.step(acts)[0]
            ref.step(acts)
            if fast.agents and rng.random() < 0.05:  # a copy goes on alone, the same as the original would
                for twin in (copy.deepcopy(fast), pickle.loads(pickle.dumps(fast))):
                    a = {k: int(np.flatnonzero(o["action_mask"])[0]) for k, o in obs.items()}
                    assert_same(twin.step(a), copy.deepcopy(fast).step(a), "copy")
        assert_same(fast.game.log, ref.game.log, "log")


def test_errors_are_the_python_engines():
    for kwargs in ({}, {"illegal_action": "raise"}):
        fast, ref = mjenv.parallel_env(engine="compiled", **kwargs), mjenv.parallel_env(engine="python", **kwargs)
        with pytest.raises(ValueError, match="reset"):
            fast.step({})
        fast.reset(seed=9)
        ref.reset(seed=9)
        bad = [{"player_9": 0}, {"player_0": 999}, {"player_0": "x"}, {"player_0": 1.0}, {}, [0, 1]]
        if kwargs:  # an illegal action (player_1 has PASS only) raises only in "raise" mode
            bad.append({"player_1": 0})
        for acts in bad:
            with pytest.raises(ValueError) as want:
                ref.step(acts)
            with pytest.raises(ValueError) as got:
                fast.step(acts)
            assert str(got.value) == str(want.value)
        # nothing moved: both take the same legal step after the refusals
        acts = {"player_0": int(np.flatnonzero(fast._table.masks[0])[0])}
        assert_same(fast.step(acts), ref.step(acts), "after the errors")


def test_engine_choice_and_fallbacks():
    assert mjenv.parallel_env().engine == "compiled"
    for rules in ("sichuan", "taiwan16"):  # through their rooms' compiled hooks
        assert mjenv.parallel_env(rules=rules).engine == "compiled"
    tai = {"name": "taiwan16", "scoring": "tai"}  # a room's rules its hooks do not cover
    for kwargs in ({"rules": tai}, {"observation": "oracle"}):
        assert mjenv.parallel_env(**kwargs).engine == "python"
        with pytest.raises(ValueError, match="engine='compiled' is not available"):
            mjenv.parallel_env(engine="compiled", **kwargs)
    with pytest.raises(ValueError, match="engine must be one of"):
        mjenv.parallel_env(engine="fast")
    with pytest.raises(ValueError, match="shaping"):  # a bad argument is named before the engine
        mjenv.parallel_env(engine="compiled", shaping="x")


def test_one_call_step_returns_fresh_objects_and_refuses_without_changes():
    """The parallel env's compiled road (``CompiledTable.step_quick``: one C call, ``_step.step_observe``, and
    mjenv.contract's dicts): new dicts and arrays every step, observations a caller keeps never overwritten,
    values that follow the env's definitions, and None with nothing changed for actions that need the env's
    checks."""
    from mjenv.compiled_table import OMITTED
    from mjenv.contract import parallel_dicts

    def parallel_step(t, acts):  # the parallel env's road: agent names to seats, one call, the contract's dicts
        chosen = [OMITTED] * 4
        for a, x in acts.items():
            chosen[mjenv.AGENTS.index(a)] = x
        out = t.step_quick(chosen)
        return None if out is None else parallel_dicts(*out)

    env = mjenv.parallel_env(engine="compiled", shaping="deficiency")  # gamma = 1: the shaping telescopes
    t = env._table
    obs, infos = env.reset(seed=11)
    d0 = [infos[a]["deficiency"] for a in mjenv.AGENTS]
    state = (t.batch.scalars.copy(), t.batch.tiles.copy(), t.masks.copy(), len(t._moves()))
    forced = next(a for a in mjenv.AGENTS if infos[a]["needs_action"])
    for acts in ({forced: True}, {forced: 1.0}, {forced: -1}, {forced: 10**30}, {forced: None}, {forced: "0"},
                 {forced: int(np.flatnonzero(obs[forced]["action_mask"] == 0)[0])}, {}):
        assert parallel_step(t, acts) is None, acts
    for acts in ([(forced, 0)], {"player_9": 0}):  # the env's own checks refuse these (nothing moves)
        with pytest.raises(ValueError):
            env.step(acts)
    assert (t.batch.scalars == state[0]).all() and (t.batch.tiles == state[1]).all()
    assert (t.masks == state[2]).all() and len(t._moves()) == state[3]
    rng = np.random.default_rng(0)
    returned, total = [], np.zeros(4)
    while True:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                for a in mjenv.AGENTS if infos[a]["needs_action"]}
        if acts and rng.random() < 0.5:  # a numpy integer counts as its int
            a = next(iter(acts))
            acts[a] = np.int32(acts[a])
        out = parallel_step(t, acts)
        assert out is not None and len(out) == 5
        for d in out:
            assert list(d) == list(mjenv.AGENTS)
        obs, rewards, term, trunc, infos = out
        total += [rewards[a] for a in mjenv.AGENTS]
        over = term["player_0"]
        assert set(term.values()) == {over} and set(trunc.values()) == {False}
        for s, a in enumerate(mjenv.AGENTS):
            o, info = obs[a], infos[a]
            assert o["observation"].dtype == np.float32 and o["observation"].shape == (env.spec.size,)
            assert o["action_mask"].dtype == np.int8 and (o["action_mask"] == t.masks[s]).all()
            assert info["seat"] == s and info["needs_action"] == (s in t.acting) and type(info["deficiency"]) is int
            want = 0.0 if over else -float(min(info["deficiency"], mjenv.env.POTENTIAL_CAP))
            assert type(info["potential"]) is float and info["potential"] == want
        for old in returned[-3:]:  # nothing returned before is reused
            for k in range(5):
                assert out[k] is not old[0][k]
            for a in mjenv.AGENTS:
                assert out[0][a] is not old[0][0][a] and out[4][a] is not old[0][4][a]
                for key in ("observation", "action_mask"):
                    assert not np.shares_memory(out[0][a][key], old[0][0][a][key])
        returned.append((out, copy.deepcopy(out)))
        if over:
            break
    winners = [infos[a]["winners"] for a in mjenv.AGENTS]
    assert all(w == winners[0] for w in winners) and len({id(w) for w in winners}) == 4  # a list each
    scores = [infos[a]["scores"] for a in mjenv.AGENTS]
    assert sum(scores) == 0 and not any(infos[a]["illegal_action"] for a in mjenv.AGENTS)
    # the shaped rewards of a hand sum to its scores minus Phi(s_0) = -min(d_0, cap) (gamma = 1)
    want = [sc + min(d, mjenv.env.POTENTIAL_CAP) for sc, d in zip(scores, d0)]
    assert np.allclose(total, want)
    for given, copied in returned:  # every observation kept stays as it was returned
        assert_same(given, copied, "kept")
    assert parallel_step(t, {}) is None  # the hand is over


def test_one_call_aec_step_refuses_actions_the_masks_do_not_allow():
    env = mjenv.env(engine="compiled")
    env.reset(seed=2)
    t = env.unwrapped._table
    assert t.step_quick([0, 0, 0, 0]) is None  # seats 1..3 have PASS only
    _, _, rewards, over, infos = t.step_quick([int(np.flatnonzero(t.masks[s])[0]) for s in range(4)])
    assert rewards == [0.0] * 4 and not over and list(infos) == list(mjenv.AGENTS)


def test_without_the_compiled_step_the_envs_run_on_python(monkeypatch):
    monkeypatch.setattr(batch, "_step", None)
    for env in (mjenv.parallel_env(), mjenv.parallel_env(shaping="deficiency")):
        assert env.engine == "python"
        obs, infos = env.reset(seed=3)
        rng = np.random.default_rng(0)
        while env.agents:
            obs, _, _, _, infos = env.step(_actions(obs, infos, rng, 0.0))
        assert env.game.is_over
    aec = mjenv.env()
    assert aec.unwrapped.engine == "python"
    aec.reset(seed=3)
    for _ in aec.agent_iter():
        last = aec.last()
        aec.step(None if last[2] else int(np.flatnonzero(last[0]["action_mask"])[-1]))


def test_arrays_a_caller_keeps_any_part_of_are_never_written_again():
    """The compiled table writes an observation's memory again only once nothing holds any of it: a kept row,
    a slice of a row, a row's base array or a mask row keeps its values over the rest of the hand."""
    env = mjenv.parallel_env(engine="compiled")
    obs, infos = env.reset(seed=4)
    rng = np.random.default_rng(2)
    kept = []
    while env.agents:
        obs, _, _, _, infos = env.step(_actions(obs, infos, rng, 0.0))
        a = mjenv.AGENTS[len(kept) % 4]
        part = (obs[a]["observation"], obs[a]["observation"][3:40], obs[a]["observation"].base,
                obs[a]["action_mask"])[len(kept) % 4]
        kept.append((part, part.copy()))  # the rest of this step's dicts is dropped at the next step
    assert len(kept) > 40
    for part, copied in kept:
        np.testing.assert_array_equal(part, copied)
