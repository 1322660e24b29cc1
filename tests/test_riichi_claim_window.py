"""The Riichi env's ``claim_window`` argument: ``"always"`` (the default: a claim or kan-robbing window after every
discard and kan is a step, even when nobody can claim) and ``"when_possible"`` (a window only when some seat can
claim), on both engines, in every shell, in the logs, the replay and the viewer.

The compiled engine's arrays equal the Python engine's with either window (``tests/test_riichi_compiled.py``).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from pettingzoo.test import api_test

import mjenv
from mjenv import AGENTS
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import compiled
from mjenv.rulesets.riichi import log as rlog
from tests.riichi_game_helpers import assert_checked_in_every_shell

ENGINES = ["python", "compiled"] if compiled.available() else ["python"]
WINDOWS = ("claim", "chankan")


def _random_actions(obs, infos, rng) -> dict:
    """A uniform legal action for each seat that must act (the others pass when left out)."""
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in obs if infos[a]["needs_action"]}


def _play(env, seed: int, options=None) -> list[tuple[dict, dict, dict]]:
    """One episode of random play: (observations, infos, actions) of every step, then the last (obs, infos, {})."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed, options=options)
    out = []
    while env.agents:
        acts = _random_actions(obs, infos, rng)
        out.append((obs, infos, acts))
        obs, _, _, _, infos = env.step(acts)
    out.append((obs, infos, {}))
    return out


# ------------------------------------------------------------------ the argument
@pytest.mark.parametrize("engine", ENGINES)
def test_the_argument_is_checked_in_every_shell(engine):
    assert_checked_in_every_shell(engine, "claim_window", "sometimes",
                                  r"claim_window must be one of \('always', 'when_possible'\), got 'sometimes'")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_game_gets_the_window(engine):
    for window in ("always", "when_possible"):
        env = mjenv.parallel_env(rules="riichi", engine=engine, claim_window=window)
        env.reset(seed=0)
        assert env.game.claim_window == window and env.log()["claim_window"] == window
    assert mjenv.parallel_env(rules="riichi", engine=engine)._table.claim_window == "always"


# ------------------------------------------------------------------ the steps
@pytest.mark.parametrize("engine", ENGINES)
def test_no_window_step_where_nobody_can_claim(engine):
    """With "when_possible" every step of a hand has a seat that must act (a window only when someone can claim);
    with "always" the same deals have windows where nobody acts, and more steps."""
    steps, empty, windows = {}, {}, {}
    for window in ("always", "when_possible"):
        env = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, claim_window=window)
        steps[window] = empty[window] = windows[window] = 0
        for seed in range(6):
            played = _play(env, seed)
            for _, infos, _ in played[:-1]:
                acting = [infos[a]["needs_action"] for a in AGENTS]
                in_window = infos["player_0"]["phase"] in WINDOWS
                windows[window] += in_window
                empty[window] += not any(acting)
                if not any(acting):  # only a window nobody can use has no acting seat
                    assert in_window
            steps[window] += len(played) - 1
    assert empty["when_possible"] == 0 and windows["when_possible"] > 0
    assert empty["always"] > 0.3 * steps["always"]
    assert steps["when_possible"] < 0.8 * steps["always"]


@pytest.mark.parametrize("engine", ENGINES)
def test_when_possible_is_always_without_the_empty_windows(engine):
    """The same deal and the same choices: every observation, mask and info of a "when_possible" hand is the
    "always" hand's with the steps of the windows nobody could use left out, and its record is that record
    without those steps."""
    for seed in range(4):
        env = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine)
        always = _play(env, seed)
        rec = env.log()
        kept = [k for k, (_, infos, _) in enumerate(always)
                if k == len(always) - 1 or any(infos[a]["needs_action"] for a in AGENTS)]  # fmt: skip
        assert len(kept) < len(always)
        wp = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, claim_window="when_possible")
        obs, infos = wp.reset(seed=seed)
        for n, k in enumerate(kept):
            want_obs, want_infos, acts = always[k]
            for a in AGENTS:
                assert np.array_equal(obs[a]["observation"], want_obs[a]["observation"]), (seed, n, a)
                assert np.array_equal(obs[a]["action_mask"], want_obs[a]["action_mask"]), (seed, n, a)
            assert infos == want_infos, (seed, n)
            if n < len(kept) - 1:
                obs, _, _, _, infos = wp.step(acts)
        assert not wp.agents
        want = copy.deepcopy(rec)
        want["claim_window"] = "when_possible"
        for h in want["hands"]:
            h["actions"] = [s for s in h["actions"] if s]
        assert wp.log() == want


@pytest.mark.parametrize("engine", ENGINES)
def test_the_vector_env_takes_the_window(engine):
    n = 4
    for window in ("always", "when_possible"):
        venv = mjenv.vector_env(n, rules="riichi", episode="hand", engine=engine, claim_window=window)
        obs, infos = venv.reset(seed=2)
        rng = np.random.default_rng(2)
        nobody = 0
        for _ in range(150):
            nobody += int((~infos["needs_action"].any(axis=1)).sum())
            masks = obs["action_mask"]
            acts = (np.cumsum(masks, axis=2) <= rng.random((n, 4, 1)) * masks.sum(axis=2, keepdims=True)).sum(axis=2)
            obs, _, _, _, infos = venv.step(acts)
        if window == "when_possible":
            assert nobody == 0
        else:
            assert nobody > 100


# ------------------------------------------------------------------ the AEC env
@pytest.mark.parametrize("engine", ENGINES)
def test_aec_selects_the_three_others_in_a_window_someone_can_use(engine):
    """The AEC rule with "when_possible": a window exists only when a seat can claim, and then the three seats
    other than the discarder (declarer) are selected in turn order, as with "always"."""
    aec = mjenv.env(rules="riichi", episode="hand", engine=engine, claim_window="when_possible")
    rng = np.random.default_rng(4)
    windows = 0
    for seed in range(4):
        aec.reset(seed=seed)
        group: list[tuple[str, bool]] = []
        for agent in aec.agent_iter():
            obs, _, term, trunc, info = aec.last()
            if term or trunc:
                aec.step(None)
                continue
            mask = obs["action_mask"]
            if info["phase"] in WINDOWS:
                group.append((agent, bool(mask[:A.PASS].any())))
                if len(group) == 3:
                    seats = [AGENTS.index(a) for a, _ in group]
                    frm = (seats[0] - 1) % 4
                    assert seats == [(frm + k) % 4 for k in (1, 2, 3)]
                    assert any(can for _, can in group)  # never a window nobody can use
                    windows += 1
                    group = []
            else:
                assert not group
            aec.step(int(rng.choice(np.flatnonzero(mask))))
    assert windows > 5


def test_aec_api_test_with_when_possible():
    api_test(mjenv.env(rules="riichi", episode="hand", claim_window="when_possible"), num_cycles=200)


# ------------------------------------------------------------------ logs, replay, viewer
@pytest.mark.parametrize("engine", ENGINES)
def test_the_record_replays_with_its_window(engine, tmp_path):
    env = mjenv.parallel_env(rules="riichi", episode="east", engine=engine, log_dir=tmp_path,
                             claim_window="when_possible")  # fmt: skip
    played = _play(env, 9)
    final = played[-1][1]["player_0"]["final_scores"]
    (rec,) = rlog.read(tmp_path / "riichi.jsonl")
    assert rec == env.log() and rec["claim_window"] == "when_possible"
    game = rlog.replay(rec)
    assert game.claim_window == "when_possible" and game.final_scores == final
    assert env.game.final_scores == final and env.game.results == game.results  # compiled: rebuilt by replay
    assert not any(s == [] for h in rec["hands"] for s in h["actions"])  # no step nobody acted in
    wrong = dict(rec, claim_window="always")
    with pytest.raises(ValueError):
        rlog.replay(wrong)
    with pytest.raises(ValueError, match=r"the record's claim_window must be one of \('when_possible', 'always'\)"):
        rlog.replay(dict(rec, claim_window="never"))


@pytest.mark.parametrize("engine", ENGINES)
def test_the_rebuilt_game_follows_the_table(engine):
    """``env.game`` (on the compiled engine: the record replayed) is in the env's phase with its acting seats."""
    env = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, claim_window="when_possible")
    rng = np.random.default_rng(5)
    obs, infos = env.reset(seed=5)
    for _ in range(60):
        if not env.agents:
            break
        g = env.game
        assert g.phase == infos["player_0"]["phase"]
        assert set(g.to_act()) == {s for s, a in enumerate(AGENTS) if infos[a]["needs_action"]}
        obs, _, _, _, infos = env.step(_random_actions(obs, infos, rng))


def test_a_record_without_the_field_replays_as_always():
    env = mjenv.parallel_env(rules="riichi", episode="hand", engine="python")
    _play(env, 3)
    rec = env.log()
    assert any(s == [] for s in rec["hands"][0]["actions"])  # the windows nobody could use
    old = {k: v for k, v in rec.items() if k != "claim_window"}
    game = rlog.replay(old)
    assert game.claim_window == "always" and game.results == env.game.results and game.events == env.game.events


@pytest.mark.parametrize("engine", ENGINES)
def test_mjai_log_and_viewer_of_a_when_possible_game(engine, tmp_path):
    from mjenv.rulesets.riichi.mjai import replay_mjai
    from mjenv.rulesets.riichi.view import frames, hands

    env = mjenv.parallel_env(rules="riichi", episode="east", engine=engine, log_dir=tmp_path, log_format="mjai",
                             claim_window="when_possible")  # fmt: skip
    played = _play(env, 13)
    game = replay_mjai((tmp_path / "riichi.mjai.jsonl").read_text(), length="east")
    assert game.final_scores == played[-1][1]["player_0"]["final_scores"] and game.results == env.game.results
    rec = env.log()
    for k, one in enumerate(hands(rec)):
        got = frames(one)
        assert len(got) == len(rec["hands"][k]["actions"]) + 1
        assert "nobody can claim" not in [f["caption"] for f in got]
    assert got[-1]["result"].startswith(env.game.results[-1]["result"])
