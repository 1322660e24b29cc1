"""The Riichi env: PettingZoo's API tests, the vector env, episodes, rewards, illegal actions, nothing hidden,
logs and their replay, copies, rendering and bad arguments."""

from __future__ import annotations

import argparse
import copy
import io
import re

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import mjenv
import mjenv.riichi
from mjenv import AGENTS, cli
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import compiled
from mjenv.rulesets.riichi import log as rlog
from mjenv.rulesets.riichi.observation import MAX_DISCARDS, decode
from tests.riichi_game_helpers import make_game, unseen_swap_walls


def _wall(hands, draws="", **kw) -> list[int]:
    game, _ = make_game(hands, draws, **kw)
    return list(game.wall.tiles)


def _random_actions(obs, rng) -> dict:
    return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}


def _quiet_actions(env, obs) -> dict:
    """Win when possible, else discard the drawn tile (or the first legal discard), pass every call."""
    out = {}
    for a, o in obs.items():
        m = o["action_mask"]
        if m[A.TSUMO] or m[A.RON]:
            out[a] = A.TSUMO if m[A.TSUMO] else A.RON
        elif m[A.PASS]:
            out[a] = A.PASS
        else:
            d = decode(o)["drawn"]
            drawn = int(np.argmax(d)) if d.any() else -1
            legal = np.flatnonzero(m[:37])
            out[a] = drawn if drawn >= 0 and m[drawn] else int(legal[0])
    return out


def play(env, policy, seed=0, options=None, rng=None):
    """Play one episode; (steps, per-step rewards, last infos)."""
    obs, infos = env.reset(seed=seed, options=options)
    steps = []
    while env.agents:
        acts = policy(obs, rng) if rng is not None else policy(env, obs)
        obs, rew, term, trunc, infos = env.step(acts)
        steps.append((rew, infos))
    return steps, infos


# ------------------------------------------------------------------ PettingZoo and gymnasium checks
def test_pettingzoo_api_tests():
    api_test(mjenv.env(rules="riichi", episode="hand"), num_cycles=200)
    parallel_api_test(mjenv.parallel_env(rules="riichi", episode="hand"), num_cycles=200)


def test_pettingzoo_seed_tests():
    seed_test(lambda: mjenv.env(rules="riichi", episode="hand", shaping="deficiency"), num_cycles=60)
    parallel_seed_test(lambda: mjenv.parallel_env(rules="riichi", episode="hand"), num_cycles=60)


def test_vector_env_tables_are_the_parallel_env():
    venv = mjenv.vector_env(3, rules="riichi", episode="hand")
    assert venv.single_action_space.n == A.N_ACTIONS
    obs, infos = venv.reset(seed=10)
    assert obs["observation"].shape == (3, 4, venv.single_observation_space["observation"].shape[0])
    assert venv.observation_space.contains(obs)
    envs = [mjenv.parallel_env(rules="riichi", episode="hand") for _ in range(3)]
    singles = [e.reset(seed=10 + i)[0] for i, e in enumerate(envs)]
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        for i in range(3):
            for s, a in enumerate(AGENTS):
                np.testing.assert_array_equal(obs["observation"][i, s], singles[i][a]["observation"])
                np.testing.assert_array_equal(obs["action_mask"][i, s], singles[i][a]["action_mask"])
        acts = np.array([[rng.choice(np.flatnonzero(obs["action_mask"][i, s])) for s in range(4)] for i in range(3)])
        obs, rew, term, trunc, infos = venv.step(acts)
        assert rew.shape == (3, 4) and rew.dtype == np.float32 and not trunc.any()
        for i, e in enumerate(envs):
            o, r, t, _, _ = e.step({a: int(acts[i, s]) for s, a in enumerate(AGENTS)})
            assert [r[a] for a in AGENTS] == pytest.approx(rew[i].tolist())
            assert t["player_0"] == term[i]
            if t["player_0"]:
                ended += 1
                np.testing.assert_array_equal(infos["final_obs"]["observation"][i, 0], o["player_0"]["observation"])
                assert infos["final_info"]["final_scores"][i].sum() == 100000
                o, _ = e.reset()  # the vector table went on from its own generator: so does the single env
            singles[i] = o
    assert ended >= 1
    with pytest.raises(ValueError, match=r"shape \(3, 4\)"):
        venv.step(np.zeros((2, 4), dtype=np.int64))


# ------------------------------------------------------------------ episodes and rewards
def test_points_rewards_add_up_per_hand_and_per_game():
    env = mjenv.parallel_env(rules="riichi", episode="east")
    steps, infos = play(env, _random_actions, seed=3, rng=np.random.default_rng(1))
    game = env.game
    assert game.phase == "game_over" and game.length == "east"
    totals = np.zeros(4)
    hands = 0
    for rew, info in steps:
        r = np.array([rew[a] for a in AGENTS])
        totals += r
        if "hand" in info["player_0"]:
            res = game.results[hands]
            # the hand's score changes, deposits included: they sum to minus the sticks the hand added
            assert r * 1000 == pytest.approx(res["deltas"], abs=1e-6) or hands == len(game.results) - 1
            sticks_after = game.results[hands + 1]["sticks"] if hands + 1 < len(game.results) else None
            if sticks_after is not None:
                assert sum(res["deltas"]) == -1000 * (sticks_after - res["sticks"])
            hands += 1
        else:
            assert not r.any()
    assert hands == len(game.results) >= 4
    # the game's rewards: final score - 25,000 in thousands (leftover sticks to the first), zero-sum
    assert totals * 1000 == pytest.approx(np.array(game.final_scores) - 25000, abs=1e-6)
    assert totals.sum() == pytest.approx(0, abs=1e-9)
    assert infos["player_0"]["final_scores"] == game.final_scores
    assert sorted(i["rank"] for i in infos.values()) == [0, 1, 2, 3]


def test_rank_rewards_are_the_final_points_at_the_end_only():
    env = mjenv.parallel_env(rules="riichi", episode="hand", reward="rank")
    steps, infos = play(env, _quiet_actions, seed=5)
    for rew, _ in steps[:-1]:
        assert not any(rew.values())
    last = [steps[-1][0][a] for a in AGENTS]
    assert last == env.game.final_points and sum(last) == 0
    assert infos["player_0"]["final_points"] == last


@pytest.mark.parametrize("episode", ["hand", "east", "hanchan"])
def test_each_episode_mode_ends_where_its_game_ends(episode):
    env = mjenv.parallel_env(rules="riichi", episode=episode)
    # from the last scheduled hand with a clear leader the game is short in every mode
    start = {"hand": {}, "east": {"round": 3}, "hanchan": {"round": 7}}[episode]
    steps, infos = play(env, _quiet_actions, seed=11, options={"scores": [40000, 20000, 20000, 20000], **start})
    g = env.game
    assert g.phase == "game_over" and g.final_scores is not None and not env.agents
    rounds = [r["round"] for r in g.results]
    assert rounds[0] == start.get("round", 0)
    if episode == "hand":
        assert len(g.results) == 1
    else:  # the game ends after its last scheduled hand (or an extension hand), never before
        assert max(rounds) >= start["round"] and max(rounds) <= (7 if episode == "east" else 11)
    assert sum(1 for _, info in steps if "hand" in info["player_0"]) == len(g.results)


def test_a_whole_east_game_plays_to_its_end():
    env = mjenv.parallel_env(rules="riichi", episode="east")
    play(env, _quiet_actions, seed=2)
    rounds = [r["round"] for r in env.game.results]
    assert rounds == sorted(rounds) and rounds[0] == 0 and (max(rounds) >= 3 or min(env.game.scores) < 0)


@pytest.mark.slow
def test_a_whole_hanchan_of_random_play():
    env = mjenv.parallel_env(rules="riichi")
    steps, _ = play(env, _random_actions, seed=4, rng=np.random.default_rng(4))
    rounds = [r["round"] for r in env.game.results]
    assert max(rounds) >= 7 or min(env.game.scores) < 0
    assert sum(sum(r.values()) for r, _ in steps) == pytest.approx(0, abs=1e-6)


# ------------------------------------------------------------------ illegal actions
RIICHI_HANDS = ["159m26p37s123456z", "", "", ""]  # seat 0: far from tenpai


def test_riichi_without_tenpai_is_penalized_or_raises():
    wall = _wall(RIICHI_HANDS, draws="8p")
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    obs, _ = env.reset(options={"wall": wall})
    assert not obs["player_0"]["action_mask"][A.RIICHI]
    obs, rew, term, _, infos = env.step({"player_0": A.RIICHI})
    assert rew == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}
    assert all(term.values()) and infos["player_0"]["illegal_action"] and not infos["player_1"]["illegal_action"]
    env = mjenv.parallel_env(rules="riichi", episode="hand", illegal_action="raise")
    env.reset(options={"wall": wall})
    with pytest.raises(ValueError, match=r"player_0: action 71 \(riichi\) is illegal in phase 'act'; legal:"):
        env.step({"player_0": A.RIICHI})
    assert env.agents  # a refused step changes nothing
    aec = mjenv.env(rules="riichi", episode="hand", illegal_action="raise")
    aec.reset(options={"wall": wall})
    with pytest.raises(ValueError, match=r"riichi"):
        aec.step(A.RIICHI)


def test_a_discard_that_breaks_kuikae_is_penalized_or_raises():
    hands = ["1m999p111s555z777z", "234m678p2345s666z", "", ""]
    wall = _wall(hands, draws="2z")
    for mode in ("penalize", "raise"):
        env = mjenv.parallel_env(rules="riichi", episode="hand", illegal_action=mode)
        env.reset(options={"wall": wall})
        env.step({"player_0": A.DISCARD + 9})  # 1m (mjenv id 9)
        env.step({"player_1": A.CHI})  # 1m + 2m3m; the others pass by default
        obs = env.step({})[0] if env.game.phase == "claim" else None
        assert env.game.phase == "after_call" and env.game.turn == 1
        swap = A.DISCARD + 12  # 4m: the suji swap of the chi
        if obs is None:
            obs = {a: env._table.observation(i) for i, a in enumerate(AGENTS)}
        assert not obs["player_1"]["action_mask"][swap] and obs["player_1"]["action_mask"][A.DISCARD + 23]
        if mode == "raise":
            with pytest.raises(ValueError, match=r"player_1: action 12 \(discard_12\) is illegal"):
                env.step({"player_1": swap})
        else:
            _, rew, term, _, _ = env.step({"player_1": swap})
            assert rew["player_1"] == -1.0 and all(term.values())


def test_a_call_that_kuikae_would_leave_without_a_discard_is_penalized_or_raises():
    from mjenv.rulesets.riichi.game import CalledMeld

    wall = _wall(["1m999p111s222z333z", "234m678p2345s666z", "", ""], draws="2z")
    for mode in ("penalize", "raise"):
        # the Python engine: the test edits its game's state (the compiled table's game is a read-only replay)
        env = mjenv.parallel_env(rules="riichi", episode="hand", illegal_action=mode, engine="python")
        env.reset(options={"wall": wall})
        g = env.game
        # seat 1 is left with 2m 3m 4m 4m beside three dragon pons: a chi of 1m (2m3m) would leave 4m 4m,
        # both forbidden right after it (the called tile's suji swap)
        g.hands[1] = [t for t in g.hands[1] if t >> 2 in (1, 2, 3)] + [15]
        g.melds[1] = [CalledMeld("pon", (4 * tt, 4 * tt + 1, 4 * tt + 2), 4 * tt, 0) for tt in (31, 32, 33)]
        env._table._observe()  # the state was edited under the env: observe it again
        obs, *_ = env.step({"player_0": A.DISCARD + 9})  # 1m
        assert env.game.phase == "claim" and not obs["player_1"]["action_mask"][A.CHI]
        if mode == "raise":
            with pytest.raises(ValueError, match=r"player_1: action 74 \(chi_low\) is illegal in phase 'claim'"):
                env.step({"player_1": A.CHI})
        else:
            _, rew, term, _, infos = env.step({"player_1": A.CHI})
            assert rew["player_1"] == -1.0 and all(term.values()) and infos["player_1"]["illegal_action"]


def test_an_omitted_agent_with_a_choice_and_bad_actions_are_refused():
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"player_0 must act"):
        env.step({})
    with pytest.raises(ValueError, match=r"outside the action space 0..84"):
        env.step({"player_0": 85})
    with pytest.raises(ValueError, match=r"must be an int"):
        env.step({"player_0": "discard"})


@pytest.mark.parametrize(("engine", "shaping", "observation"), [
    ("compiled", None, "default"), ("python", None, "default"), ("compiled", "deficiency", "default"),
    ("compiled", None, "planes")])  # fmt: skip
def test_the_common_step_and_the_checked_step_play_the_same_game(engine, shaping, observation, monkeypatch):
    """The parallel env steps the common case (only the acting agents, legal ints) at once: on the compiled engine
    in one engine call (``CompiledRiichiTable.step_quick``, which every step of this game takes, shaped or not, with
    planes or not), on the Python one through ``RiichiTable.step_quick``. The same choices given every agent (the
    acting ones as numpy ints, the others PASS) with the one call turned off go through the checks: same game,
    every return and the log equal."""
    served = []
    real = compiled.Tables.step_observe
    monkeypatch.setattr(compiled.Tables, "step_observe", lambda t, chosen: served.append(real(t, chosen)) or served[-1])
    kwargs = {"engine": engine, "shaping": shaping, "observation": observation}
    lean = mjenv.parallel_env(rules="riichi", episode="east", **kwargs)
    full = mjenv.parallel_env(rules="riichi", episode="east", **kwargs)
    rng = np.random.default_rng(5)
    (obs, infos), reset2 = lean.reset(seed=11), full.reset(seed=11)
    full._table.step_quick = lambda actions: None  # the checks, always
    assert infos == reset2[1]
    steps, shaped = 0, []
    while lean.agents:
        acts = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in lean.agents
                if infos[a]["needs_action"]}
        out = lean.step(acts)
        out2 = full.step({a: np.int64(acts[a]) if a in acts else A.PASS for a in AGENTS})
        obs, infos, obs2 = out[0], out[4], out2[0]
        for a in AGENTS:
            assert np.array_equal(obs[a]["observation"], obs2[a]["observation"])
            assert np.array_equal(obs[a]["action_mask"], obs2[a]["action_mask"])
        assert out[1:] == out2[1:]
        shaped.append(list(out[1].values()))
        steps += 1
    assert full.agents == [] and steps > 200
    assert lean.log() == full.log()
    if shaping is not None:  # the deficiency changes pay on many steps (the scores at the hands' ends only)
        assert sum(any(r) for r in shaped) > steps // 5
    if engine == "compiled":
        assert len(served) == steps and None not in served
    else:
        assert served == []


def test_the_one_call_step_refuses_without_changes_and_never_writes_kept_arrays():
    """The compiled parallel env's one call (``CompiledRiichiTable.step_quick``, ``_engine.step_observe``): None
    with nothing changed for actions that need the env's checks (which then refuse or penalize them as before);
    otherwise new arrays each step, and an observation a caller keeps (a row, a slice of one, its base array, a mask
    row) keeps its values over the rest of the hand: its memory is written again only once nothing holds it."""
    env = mjenv.parallel_env(rules="riichi", episode="hand", engine="compiled")
    obs, infos = env.reset(seed=4)
    t = env._table
    forced = next(a for a in AGENTS if infos[a]["needs_action"])
    waiting = next(a for a in AGENTS if not infos[a]["needs_action"])
    legal = int(np.flatnonzero(obs[forced]["action_mask"])[0])
    illegal = int(np.flatnonzero(obs[forced]["action_mask"] == 0)[0])
    not_pass = int(np.flatnonzero(obs[waiting]["action_mask"] == 0)[0])  # a seat not acting may only pass
    states, moves = t.core.states.copy(), len(t.record["hands"][-1]["actions"])
    for acts in ({forced: True}, {forced: 1.0}, {forced: -1}, {forced: 10**30}, {forced: None}, {forced: "0"},
                 {forced: illegal}, {forced: A.N_ACTIONS}, {}, {waiting: A.PASS}, {"player_9": 0}, {forced: [legal]},
                 {forced: legal, waiting: not_pass}):
        assert t.step_quick(acts) is None, acts
    np.testing.assert_array_equal(t.core.states, states)
    assert len(t.record["hands"][-1]["actions"]) == moves
    with pytest.raises(ValueError, match="must act"):
        env.step({})
    rng = np.random.default_rng(2)
    kept, last = [], None
    while env.agents:
        acts = _random_actions(obs, rng)
        if len(kept) % 3 == 0:  # numpy integers count as their ints
            acts = {a: np.int16(x) for a, x in acts.items()}
        obs, _, _, _, infos = env.step(acts)
        a = AGENTS[len(kept) % 4]
        rows = (obs[a]["observation"], obs[a]["observation"][3:40], obs[a]["observation"].base, obs[a]["action_mask"])
        part = rows[len(kept) % 4]
        assert last is None or not np.shares_memory(obs[a]["observation"], last)
        last = obs[a]["observation"]
        kept.append((part, part.copy()))  # the rest of this step's dicts is dropped at the next step
    assert len(kept) > 40 and t.step_quick({forced: legal}) is None  # the hand is over
    for part, copied in kept:
        np.testing.assert_array_equal(part, copied)


# ------------------------------------------------------------------ arguments
@pytest.mark.parametrize(("kwargs", "match"), [
    ({"episode": "game"}, r"episode must be one of \('hanchan', 'east', 'hand'\)"),
    ({"reward": "score"}, r"reward must be one of \('points', 'rank'\)"),
    ({"illegal_action": "ignore"}, r"illegal_action must be one of"),
    ({"render_mode": "svg"}, r"render_mode must be None or one of"),
    ({"log_format": "xml"}, r"log_format must be one of \['mjai', 'mjenv'\], got 'xml'"),
    ({"engine": "rust"}, r"engine must be one of \('auto', 'compiled', 'python'\)"),
    ({"num_envs": 2}, r"unknown arguments \['num_envs'\] for rules='riichi'; allowed: \['rules', 'episode'"),
    ({"kokushi_robs_ankan": 1}, r"kokushi_robs_ankan must be True or False"),
    ({"claim_window": "never"}, r"claim_window must be one of \('always', 'when_possible'\), got 'never'"),
    ({"rules": {"name": "riichi", "seven_pairs": False}}, r"rules must be 'riichi' here"),
])  # fmt: skip
def test_bad_arguments_name_what_is_allowed(kwargs, match):
    with pytest.raises(ValueError, match=match):
        mjenv.parallel_env(**{"rules": "riichi", **kwargs})


def test_bad_reset_options_and_seeds():
    env = mjenv.parallel_env(rules="riichi")
    with pytest.raises(ValueError, match=r"seed must be None or an int >= 0"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match=r"options\['scores'\] must be 4 integers"):
        env.reset(options={"scores": [1, 2]})
    with pytest.raises(ValueError, match=r"136 tile ids"):
        env.reset(options={"wall": list(range(135))})
    with pytest.raises(ValueError, match=r"step\(\) before reset"):
        mjenv.parallel_env(rules="riichi").step({})


def test_kokushi_robs_ankan_reaches_the_engine():
    for flag in (True, False):
        env = mjenv.parallel_env(rules="riichi", kokushi_robs_ankan=flag)
        env.reset(seed=0)
        assert env.game.kokushi_robs_ankan is flag and env.game.claim_window == "always"


# ------------------------------------------------------------------ the observation
def test_nothing_hidden_two_deals_differing_in_unseen_tiles():
    """Seat 0's observations are equal over two deals that differ only in tiles it never sees: a tile swapped
    between two other seats' starting hands (both keep it: everyone discards what it draws), and a
    replacement tile swapped with an ura-dora indicator."""
    base, other = unseen_swap_walls(21)
    runs = []
    for wall in (base, other):
        env = mjenv.parallel_env(rules="riichi", episode="hand")
        obs, infos = env.reset(options={"wall": wall})
        seen = [(obs, infos)]
        while env.agents:
            acts = {}
            for a, o in obs.items():  # tsumogiri everyone, pass every call, never win
                m = o["action_mask"]
                d = decode(o)["drawn"]
                acts[a] = int(np.argmax(d)) if d.any() and m[int(np.argmax(d))] else (
                    A.PASS if m[A.PASS] else int(np.flatnonzero(m[:37])[0]))
                if d.any() and decode(o)["drawn_red"][0]:
                    acts[a] = A.DISCARD_RED + int(np.argmax(d)) // 9
            obs, _, _, _, infos = env.step(acts)
            seen.append((obs, infos))
        runs.append(seen)
    a, b = runs
    assert len(a) == len(b) > 100
    for (oa, ia), (ob, ib) in zip(a[:-1], b[:-1]):  # the last step shows the hands' tenpai (public)
        for agent in ("player_0", "player_3"):  # neither sees the hands of players 1 and 2
            np.testing.assert_array_equal(oa[agent]["observation"], ob[agent]["observation"])
            np.testing.assert_array_equal(oa[agent]["action_mask"], ob[agent]["action_mask"])
            assert ia[agent] == ib[agent]
    # the deals do differ for the seats that hold the swapped tiles
    assert any(not np.array_equal(oa["player_1"]["observation"], ob["player_1"]["observation"])
               for (oa, _), (ob, _) in zip(a, b))


def _kb_from_events(game, seat: int) -> np.ndarray:
    """4 minus the copies the seat has seen: its hand, every discard, every meld's tiles from the hand (a called
    discard is seen once), every dora indicator; from the hand's events."""
    from mjenv.rulesets.riichi.tiles136 import TYPE34

    start = max(i for i, e in enumerate(game.events) if e["type"] == "start_hand")
    seen = list(game.hands[seat])
    for e in game.events[start:]:
        if e["type"] == "start_hand":
            seen += e["dora"]
        elif e["type"] == "dora":
            seen.append(e["indicator"])
        elif e["type"] == "discard":
            seen.append(e["tile"])
        elif e["type"] == "call":
            # chi/pon/open kan: the tiles beside the called discard; added kan: the added tile; closed kan: all four
            if e["kind"] == "kakan":
                seen.append(e["called"])
            else:
                seen += [t for t in e["tiles"] if t != e["called"]]
    kb = np.full(34, 4)
    for t in set(seen):  # a tile id once: the own hand may hold a tile the events also show (a closed kan's)
        kb[TYPE34[t]] -= 1
    return kb


def test_views_are_seat_relative_and_within_bounds():
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    obs, _ = env.reset(seed=7)
    rng = np.random.default_rng(7)
    space = env.observation_space("player_0")
    called = False
    while env.agents:
        for s, a in enumerate(AGENTS):
            assert space.contains(obs[a])
            v = decode(obs[a])
            assert all(np.array_equal(v[k], x) for k, x in mjenv.riichi.decode(obs[a]).items())
            g = env.game
            assert v["hand"].sum() == len(g.hands[s])
            assert v["scores"][1] * 1000 == g.scores[(s + 1) % 4]
            assert v["seat_wind"][(s - g.dealer) % 4] == 1 and v["dealer"][(g.dealer - s) % 4] == 1
            assert v["wall_count"][0] == g.live_remaining
            for r in range(4):
                seat = (s + r) % 4
                n = len(g.discards[seat])
                assert (v["discards"][r, :n] > 0).all() and not v["discards"][r, n:].any()
                for k, m in enumerate(g.melds[seat]):
                    if m.from_seat is not None:
                        called = True
                        assert v["meld_from"][r, k, (m.from_seat - s) % 4] == 1
            # the discard order interleaves the rows: 1..n once each
            order = v["discard_order"][v["discard_order"] > 0]
            assert sorted(order.tolist()) == list(range(1, len(order) + 1))
            # the knowledge base, recounted from the public events and the own hand
            np.testing.assert_array_equal(v["knowledge_base"], _kb_from_events(g, s))
        obs, *_ = env.step(_random_actions(obs, rng))
    assert called
    assert MAX_DISCARDS >= max(len(d) for d in env.game.discards)


def test_tenpai_and_yaku_after_each_discard():
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    # seat 0 holds 234m 11m 78m 567p 999s and draws the east wind (27): discarding it leaves a 6m-9m wait
    # with no yaku by ron without riichi (999s: no pinfu; 1m, 9s: no tanyao)
    obs, _ = env.reset(options={"wall": _wall(["23411m567p999s78m", "", "", ""], draws="1z")})
    v = decode(obs["player_0"])
    assert v["tenpai_after_discard"][27] == 1 and v["yaku_after_discard"][27] == 0
    assert v["tenpai_after_discard"][8] == 0 and v["yaku_after_discard"][8] == 0  # 9s: the east wind stays
    absent = v["hand"] == 0
    assert (v["tenpai_after_discard"][absent] == -1).all() and (v["yaku_after_discard"][absent] == -1).all()
    assert (decode(obs["player_1"])["yaku_after_discard"] == -1).all()  # not on its discard turn
    # all simples: the same wait has tanyao (and pinfu)
    obs, _ = env.reset(options={"wall": _wall(["234m567p234s55s78m", "", "", ""], draws="1z")})
    v = decode(obs["player_0"])
    assert v["tenpai_after_discard"][27] == 1 and v["yaku_after_discard"][27] == 1


# ------------------------------------------------------------------ AEC order
def test_aec_selects_the_three_other_seats_in_every_window():
    aec = mjenv.env(rules="riichi", episode="hand")
    aec.reset(seed=1)
    order = []
    for _ in range(12):
        agent = aec.agent_selection
        order.append(agent)
        obs, *_ = aec.last()
        m = obs["action_mask"]
        aec.step(A.PASS if m[A.PASS] else int(np.flatnonzero(m[:37])[0]))
    # the dealer discards, then players 1, 2, 3 answer; then player 1 discards, 2, 3, 0 answer ...
    assert order[:8] == ["player_0", "player_1", "player_2", "player_3", "player_1", "player_2", "player_3",
                         "player_0"]


# ------------------------------------------------------------------ logs, replay, copies, render
def test_log_replays_the_game_exactly(tmp_path):
    env = mjenv.parallel_env(rules="riichi", episode="east", log_dir=tmp_path)
    play(env, _random_actions, seed=9, rng=np.random.default_rng(9))
    records = rlog.read(tmp_path / "riichi.jsonl")
    assert len(records) == 1 and records[0] == env.log()
    game = rlog.replay(records[0])
    assert game.final_scores == env.game.final_scores and game.results == env.game.results
    assert game.events == env.game.events
    bad = copy.deepcopy(records[0])
    bad["hands"][0]["result"]["deltas"] = [1, 2, 3, 4]
    with pytest.raises(ValueError, match=r"hand 1: the record's result \[1, 2, 3, 4\] is not mjenv's"):
        rlog.replay(bad)
    bad = copy.deepcopy(records[0])
    bad["hands"][0]["actions"][0] = [[0, A.TSUMO]]
    with pytest.raises(ValueError, match=r"hand 1, step 1: seat 0: action 72 \(tsumo\) is not legal"):
        rlog.replay(bad)
    with pytest.raises(ValueError, match="not an mjenv Riichi log record"):
        rlog.replay({"format": "other"})


def test_a_registered_log_format_gets_the_engine_events(tmp_path):
    rlog.register_log_format("count", "count.txt", lambda game, record: f"{len(game.events)}\n")
    try:
        env = mjenv.parallel_env(rules="riichi", episode="hand", log_dir=tmp_path, log_format="count")
        play(env, _quiet_actions, seed=1)
        assert (tmp_path / "count.txt").read_text() == f"{len(env.game.events)}\n"
    finally:
        del rlog.LOG_FORMATS["count"]


def test_mjai_log_format_replays_to_the_same_game(tmp_path):
    from mjenv.rulesets.riichi.mjai import replay_mjai

    env = mjenv.parallel_env(rules="riichi", episode="east", log_dir=tmp_path, log_format="mjai")
    play(env, _random_actions, seed=13, rng=np.random.default_rng(13))
    text = (tmp_path / "riichi.mjai.jsonl").read_text()
    game = replay_mjai(text, length="east")
    assert game.final_scores == env.game.final_scores and game.results == env.game.results


def test_copies_play_on_identically_and_independently():
    env = mjenv.parallel_env(rules="riichi", episode="east")
    obs, _ = env.reset(seed=12)
    rng = np.random.default_rng(3)
    for _ in range(30):
        obs, *_ = env.step(_random_actions(obs, rng))
    twin = env.copy()
    acts_rng = np.random.default_rng(5)
    for _ in range(300):
        if not env.agents:
            break
        acts = _random_actions(obs, acts_rng)
        obs, r1, *_ = env.step(acts)
        obs2, r2, *_ = twin.step(acts)
        assert r1 == r2
        for a in AGENTS:
            np.testing.assert_array_equal(obs[a]["observation"], obs2[a]["observation"])
    assert env.game is not twin.game and env.game.events == twin.game.events


def test_render_shows_dora_sticks_scores_and_winds():
    env = mjenv.parallel_env(rules="riichi", episode="hand", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "East 1" in text and "honba 0" in text and "riichi sticks 0" in text and "dora indicators" in text
    assert "E player_0  25000 (dealer)" in text and "S player_1" in text
    env = mjenv.parallel_env(rules="riichi", episode="hand", render_mode="ansi", render_seat=1)
    env.reset(seed=0)
    assert "14 tiles face down" in env.render()
    env = mjenv.parallel_env(rules="riichi", episode="hand", render_mode="rgb_array")
    env.reset(seed=0)
    img = env.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.std() > 0


def test_mjenv_play_riichi_at_the_terminal():
    answers = io.StringIO("help\nnonsense\n" + "\n" * 400)  # then Enter: pass, or discard the drawn tile
    out = io.StringIO()
    args = argparse.Namespace(rules="riichi", opponents=["greedy"], seat=1, hands=1, seed=3)
    assert cli.play(args, input=answers, output=out) == 0
    text = out.getvalue()
    assert "you play player_1" in text and "legal: " in text and "not a legal action: 'nonsense'" in text
    assert "result: " in text and "your total score change:" in text
    assert cli.main(["play", "--rules", "riichi", "--opponents", "chess"]) == 2
    from mjenv.rulesets.riichi.play import _label

    # each discard and kan shows its tile (a plain copy: a red five has an action of its own)
    assert [_label(a) for a in (0, 4, 13, 22, 27, 33, A.KAN + 31)] == [
        "discard_0 (1s)", "discard_4 (5s)", "discard_13 (5m)", "discard_22 (5p)", "discard_27 (E)", "discard_33 (Rd)",
        "kan_31 (Wh)"]
    assert _label(A.DISCARD_RED) == A.describe(A.DISCARD_RED) and _label(A.PASS) == "pass"
    assert "discard_" in text and all(f"{m.group(1)} (" in text for m in re.finditer(r"\d+ (discard_\d+)", text))


def test_readme_riichi_rows_match_the_env():
    from pathlib import Path

    from mjenv.rulesets.riichi.env import action_table, observation_spec

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    sp = observation_spec()
    row = next(line for line in readme.splitlines() if line.startswith("| `riichi`"))
    assert [c.strip() for c in row.strip("|").split("|")][1:7] == ["136", "13", "4 + 1", "yes", "34", str(sp.size)]
    assert f"`Discrete({A.N_ACTIONS})`" in readme and f"{sp.size} floats in {len(sp.views)} named views" in readme
    # the env's documentation holds the spec's own tables
    doc = mjenv.rulesets.riichi.env.__doc__
    assert sp.markdown_table() in doc and action_table() in doc and "riichi.wiki" in doc and "tenhou.net" in doc


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_an_illegal_action_with_shaping_gets_the_contracts_rewards_and_end_infos(engine):
    """mjenv.contract's rewards: -1 to the offender, 0 to the others, each plus the shaping term gamma * 0 - Phi(s)
    (the episode ends); the infos' end keys (illegal_action, scores 0 and no winners: no hand ended)."""
    if engine == "compiled" and not mjenv.rulesets.riichi.compiled.available():
        pytest.skip("the compiled Riichi engine is not built")
    env = mjenv.parallel_env(rules="riichi", episode="hand", shaping="deficiency", gamma=0.9, engine=engine)
    obs, infos = env.reset(seed=11)
    seat = next(a for a in AGENTS if infos[a]["needs_action"])
    bad = int(np.flatnonzero(obs[seat]["action_mask"] == 0)[0])
    before = {a: infos[a]["potential"] for a in AGENTS}
    assert min(before.values()) < 0  # a non-zero shaping term
    _, rewards, terms, _, infos = env.step({seat: bad})
    assert rewards == {a: (-1.0 if a == seat else 0.0) - before[a] for a in AGENTS}
    assert all(terms.values()) and env.agents == []
    for a in AGENTS:
        assert infos[a]["illegal_action"] == (a == seat)
        assert infos[a]["scores"] == 0 and infos[a]["winners"] == [] and infos[a]["potential"] == 0.0
        assert "final_scores" not in infos[a]


@pytest.mark.parametrize("observation", ["default", "planes"])
@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_observations_after_an_illegal_end_are_fresh_arrays(engine, observation):
    """gymnasium's check_env (as the shared env's test): users keep what a step returns, so the step that an illegal
    action ends (the state unchanged) hands out equal arrays, not the ones the step before handed out."""
    if engine == "compiled" and not mjenv.rulesets.riichi.compiled.available():
        pytest.skip("the compiled Riichi engine is not built")
    env = mjenv.parallel_env(rules="riichi", episode="hand", engine=engine, observation=observation)
    before, infos = env.reset(seed=11)
    seat = next(a for a in AGENTS if infos[a]["needs_action"])
    after, *_ = env.step({seat: int(np.flatnonzero(before[seat]["action_mask"] == 0)[0])})
    assert env.agents == []
    for a in AGENTS:
        for key in ("observation", "action_mask"):
            assert not np.shares_memory(after[a][key], before[a][key]), (a, key)
            np.testing.assert_array_equal(after[a][key], before[a][key])


@pytest.mark.parametrize("engine", ["python", "compiled"])
def test_vector_env_reset_reads_seeds_as_the_shared_vector_env(engine):
    """A 0-d integer array is its number; a wrong count or a negative seed is a ValueError naming what is allowed."""
    venv = mjenv.vector_env(2, rules="riichi", episode="hand", engine=engine)
    a, _ = venv.reset(seed=np.array(5))
    b, _ = venv.reset(seed=[5, 6])
    assert np.array_equal(a["observation"], b["observation"])
    with pytest.raises(ValueError, match=r"reset got 3 seeds for 2 tables"):
        venv.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match=r"seed must be None or an int >= 0"):
        venv.reset(seed=[1, -2])
    with pytest.raises(ValueError, match=r"options must be None, a dict, or a sequence of 2 dicts"):
        venv.reset(seed=0, options=[{}, 3])
