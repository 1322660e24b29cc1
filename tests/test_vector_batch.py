"""The vector env on the compiled batch step equals the vector env on the Python engine, byte for byte.

OpenSpiel-style differential test: two ``mjenv.vector_env`` s with the same arguments, one
on ``engine="compiled"`` (``mjenv.vector_batch`` over ``mjenv.game.batch.BatchGames``), one on
``engine="python"`` (``mjenv.env.step_tables`` over Python ``Game`` s), reset with the same seed and
stepped with the same random legal actions (and, under ``illegal_action="penalize"``, a few illegal
ones) until enough hands ended at every table; after every step every returned array (observations,
masks, rewards, terminations, truncations, every info, final observations and infos) must be equal in
dtype, shape and bytes. The default suite plays 1,200 hands per preset; the slow suite 50,000.
"""

from __future__ import annotations

import numpy as np
import pytest

import mjenv
from mjenv.game import batch
from tests.compare_helpers import assert_same

pytestmark = pytest.mark.skipif(not batch.available(), reason="mjenv.game._step not built (no C compiler)")

#: sichuan and taiwan16 run on the compiled step through their rooms' hooks; pong-only play stays compared.
NO_CHOW = {"name": "basic", "allow_chow": False}
PRESETS = ("basic", "honours", NO_CHOW, "sichuan", "taiwan16")
#: Hands per preset in the default suite: at least 2,000. About 1 CPU-second per 200
#: hands (the Python engine's side dominates), so the three presets cost about 30 s.
HANDS = 2_000


def _actions(masks: np.ndarray, rng: np.random.Generator, illegal_rate: float) -> np.ndarray:
    """int64[N, 4]: a uniformly random legal action per seat; with ``illegal_rate``, one illegal one."""
    acts = np.argmax(np.where(masks > 0, rng.random(masks.shape), -1.0), axis=-1)
    if illegal_rate and rng.random() < illegal_rate:
        i, s = rng.integers(masks.shape[0]), rng.integers(4)
        acts[i, s] = int(rng.choice(np.flatnonzero(masks[i, s] == 0)))
    return acts


def play_both(rules: str, num_envs: int, hands: int, seed: int, illegal_rate: float = 0.0,
              left_seats_send_anything: bool = False, **kwargs) -> int:
    """Plays both engines side by side until ``hands`` hands ended; returns the number of steps. With
    ``left_seats_send_anything``, a seat that has won and left a hand that plays on sends a random action."""
    fast = mjenv.vector_env(num_envs, rules=rules, engine="compiled", **kwargs)
    ref = mjenv.vector_env(num_envs, rules=rules, engine="python", **kwargs)
    assert fast.engine == "compiled" and ref.engine == "python"
    out = fast.reset(seed=seed)
    assert_same(out, ref.reset(seed=seed), "reset")
    rng = np.random.default_rng(seed)
    ended = steps = 0
    while ended < hands:
        acts = _actions(out[0]["action_mask"], rng, illegal_rate)
        if left_seats_send_anything:
            left = fast._batch.games.won
            acts = np.where(left, rng.integers(0, fast.layout.size, acts.shape), acts)
        out = fast.step(acts)
        assert_same(out, ref.step(acts), f"step {steps}")
        ended += int(out[2].sum())
        steps += 1
    return steps


@pytest.mark.heavy
@pytest.mark.parametrize(
    ("rules", "kwargs"),
    [
        ("basic", {"shaping": "deficiency", "gamma": 0.99}),
        ("honours", {}),
        (NO_CHOW, {"shaping": "deficiency"}),
    ],
)
def test_compiled_vector_env_equals_the_python_engine(rules, kwargs):
    play_both(rules, 64, HANDS, seed=16_000, illegal_rate=0.01, **kwargs)


# the rooms' rule sets: fewer hands (their Python reference is slower); illegal actions end some hands (a Sichuan
# hand keeps what it paid), and a seat that has left a Sichuan hand sends anything (it is ignored)
@pytest.mark.parametrize(
    ("rules", "kwargs"),
    [("sichuan", {"shaping": "deficiency", "gamma": 0.9}), ("sichuan", {}), ("taiwan16", {"shaping": "deficiency"})],
)
def test_compiled_vector_env_equals_the_python_engine_on_the_rooms_rules(rules, kwargs):
    play_both(rules, 32, 400, seed=16_050, illegal_rate=0.01, left_seats_send_anything=True, **kwargs)


@pytest.mark.parametrize("rules", [{"name": "taiwan16", "scoring": "tai"}])
def test_rule_sets_the_batch_step_does_not_implement_fall_back(rules):
    assert mjenv.vector_env(2, rules=rules).engine == "python"
    with pytest.raises(ValueError, match="engine='compiled' is not available"):
        mjenv.vector_env(2, rules=rules, engine="compiled")


def test_compiled_vector_env_equals_the_python_engine_on_the_numpy_writer(monkeypatch):
    monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    play_both("basic", 8, 24, seed=16_100, illegal_rate=0.02)


@pytest.mark.slow
@pytest.mark.parametrize("rules", PRESETS)
def test_compiled_vector_env_equals_the_python_engine_50000_hands(rules):
    play_both(rules, 256, 50_000, seed=16_200, illegal_rate=0.001, shaping="deficiency", gamma=0.99)


def test_state_records_equal_the_spec_state_of_each_game():
    venv = mjenv.vector_env(6, rules="honours", engine="compiled")
    ref = mjenv.vector_env(6, rules="honours", engine="python")
    out = venv.reset(seed=3)
    ref.reset(seed=3)
    rng = np.random.default_rng(3)
    records = np.empty((6, venv.spec.state_size), dtype=np.int16)
    for _ in range(300):
        venv._batch._records(slice(None), records)
        want = np.stack([t.spec.state(t.game) for t in ref.tables])
        np.testing.assert_array_equal(records, want)
        acts = _actions(out[0]["action_mask"], rng, 0.0)
        out = venv.step(acts)
        ref.step(acts)


def test_raise_mode_refuses_every_table_on_both_engines():
    fast = mjenv.vector_env(3, engine="compiled", illegal_action="raise")
    ref = mjenv.vector_env(3, engine="python", illegal_action="raise")
    obs, _ = fast.reset(seed=8)
    ref.reset(seed=8)
    acts = np.argmax(obs["action_mask"], axis=2)
    seat = int(np.flatnonzero(obs["action_mask"][1].sum(axis=1) > 1)[0])
    bad = acts.copy()
    bad[1, seat] = int(np.flatnonzero(obs["action_mask"][1, seat] == 0)[0])
    for env in (fast, ref):
        with pytest.raises(ValueError, match="illegal"):
            env.step(bad)
    outside = acts.copy()
    outside[2, 0] = 999
    for env in (fast, ref):
        with pytest.raises(ValueError, match="outside the action space"):
            env.step(outside)
    assert_same(fast.step(acts), ref.step(acts), "the step after the refused ones")


def test_legal_and_penalized_actions_never_take_the_checked_path(monkeypatch):
    """The compiled step's C calls (``BatchTables.step``) take every well-formed step, illegal actions under
    ``"penalize"`` and autoreset included: ``step_tables`` (the checked path) is only for the refusals."""
    import mjenv.vector as vector

    venv = mjenv.vector_env(8, engine="compiled", shaping="deficiency")
    obs, _ = venv.reset(seed=9)

    def checked_path(*args, **kwargs):
        raise AssertionError("the compiled vector env took the checked path (step_tables)")

    monkeypatch.setattr(vector, "step_tables", checked_path)
    rng = np.random.default_rng(9)
    ended = illegal = 0
    for _ in range(400):
        out = venv.step(_actions(obs["action_mask"], rng, 0.05))
        obs = out[0]
        ended += int(out[2].sum())
        illegal += int(out[4]["final_info"]["illegal_action"].any(axis=1).sum())
    assert ended > 10 and illegal > 5  # hands ended by moves and by illegal actions, each dealt again


def test_engine_choice_and_fallbacks():
    assert mjenv.vector_env(2).engine == "compiled"
    assert mjenv.vector_env(2, rules="taiwan16").engine == "compiled"  # flowers: its room's hooks
    tai = {"name": "taiwan16", "scoring": "tai"}  # tai scoring: not in the room's hooks
    assert mjenv.vector_env(2, rules=tai).engine == "python"
    assert mjenv.vector_env(2, observation="oracle").engine == "python"
    with pytest.raises(ValueError, match="taiwan16"):
        mjenv.vector_env(2, rules=tai, engine="compiled")
    with pytest.raises(ValueError, match="log_dir"):
        mjenv.vector_env(2, engine="compiled", log_dir="unused")
    with pytest.raises(ValueError, match="engine must be one of"):
        mjenv.vector_env(2, engine="c")


def test_rules_with_a_field_the_step_does_not_port_fall_back():
    import dataclasses

    from mjenv.rules import get_rules

    # every Rules field outside batch.IMPLEMENTED_RULES must be at its default (a field added later
    # for a preset, makes that preset fall back until ported)
    for field, value in (("scoring", "tai"),):
        rules = dataclasses.replace(get_rules("honours"), **{field: value})
        with pytest.raises(ValueError, match=f"{field}="):
            batch.BatchGames(rules, 1)
        assert mjenv.vector_env(1, rules=rules).engine == "python"
    # the draw at N tiles left is the shared step's
    assert mjenv.vector_env(1, rules=dataclasses.replace(get_rules("honours"), draw_at=16)).engine == "compiled"


def test_without_the_compiled_step_auto_warns_once_and_runs_on_python(monkeypatch):
    from mjenv import vector

    monkeypatch.setattr(batch, "_step", None)
    monkeypatch.setattr(vector, "_warned_no_step", False)
    with pytest.warns(RuntimeWarning, match="_step is not built"):
        assert mjenv.vector_env(2).engine == "python"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mjenv.vector_env(2).engine == "python"  # once per process
    with pytest.raises(ValueError, match="not built"):
        mjenv.vector_env(2, engine="compiled")
