"""The Riichi policy network (mjenv.rulesets.riichi.policy, the room's own_policy) and masked PPO on Riichi
(``mjenv train ppo --rules riichi``): the action head's sources checked against the observation's views by action
name, legal play, save and load, the rules check of ``policy:PATH``, tiny training runs (PPO and behaviour cloning)
and the refusals."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch
from mjenv.baselines import train_bc, train_ppo
from mjenv.baselines.policy import PolicyAgent, build_net, load_net, save_policy
from mjenv.baselines.registry import make_agent

import mjenv
from mjenv import rulesets
from mjenv.rulesets.riichi.actions import ACTION_NAMES, N_ACTIONS
from mjenv.rulesets.riichi.observation import spec as riichi_spec
from mjenv.rulesets.riichi.policy import RiichiPolicyNet

#: mjenv tile ids of the red fives' tile types, by the suit word of their action names (bamboo 5s, characters 5m,
#: dots 5p: ids 0-8, 9-17, 18-26)
_RED = {"5s": 4, "5m": 13, "5p": 22}
_CLAIM = {"chi_low": 0, "chi_mid": 1, "chi_high": 2, "pon": 3, "minkan": 4}


def _expected_after(name: str, view: dict) -> float:
    """The deficiency after the action called ``name`` as the observation's views give it (-1: none applies),
    written from the action names (not from the module's table)."""
    if name.startswith("discard_red_"):
        return float(view["deficiency_after_discard"][_RED[name.removeprefix("discard_red_")]])
    if name.startswith("discard_"):
        return float(view["deficiency_after_discard"][int(name.removeprefix("discard_"))])
    if name.startswith("kan_"):
        return float(view["deficiency_after_kan"][int(name.removeprefix("kan_"))])
    base = name.removesuffix("_red")
    if base in _CLAIM:
        return float(view["deficiency_after_claim"][_CLAIM[base]])
    return -1.0


def _positions(n: int, seed: int = 11) -> list[np.ndarray]:
    """Observations of greedy self-play on Riichi where some seat has several legal actions (discard turns, claims)."""
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    agents = [make_agent("greedy", seed=s, rules="riichi") for s in range(4)]
    out: list[np.ndarray] = []
    while len(out) < n:
        obs, infos = env.reset(seed=seed)
        seed += 1
        while env.agents and len(out) < n:
            for a in env.agents:
                if obs[a]["action_mask"].sum() > 1:
                    out.append(obs[a]["observation"].copy())
            obs, _, _, _, infos = env.step({a: agents[s].act(obs[a]) for s, a in enumerate(env.agents)
                                            if infos[a]["needs_action"]})
    return out


@pytest.fixture(scope="module")
def net() -> RiichiPolicyNet:
    torch.manual_seed(0)
    return build_net("riichi", hidden=(32, 32))


def test_build_net_makes_the_riichi_network_of_the_riichi_observation(net):
    spec = riichi_spec()
    assert isinstance(net, RiichiPolicyNet)
    assert net.obs_size == spec.size and net.num_actions == N_ACTIONS == len(ACTION_NAMES)
    x = torch.as_tensor(np.stack(_positions(4)))
    assert net.normalise(x).abs().max() <= 4.0  # every view scaled to a few units at most


def test_the_action_head_reads_each_actions_deficiency_after_it_by_name(net):
    spec = riichi_spec()
    obs = _positions(60)
    with torch.no_grad():
        feats = net.action_features(torch.as_tensor(np.stack(obs)))
    seen_kinds = set()
    for x, f in zip(obs, feats):
        view = spec.decode(x)
        now = min(max(float(view["deficiency"][0]), 0.0), 8.0)
        for a, name in enumerate(ACTION_NAMES):
            after = _expected_after(name, view)
            if after < 0:
                want = 4  # not applicable
            else:
                want = int(np.clip(np.round(min(after, 8.0) - now), -1, 2)) + 1
            assert int(f[a, :5].argmax()) == want and float(f[a, :5].sum()) == 1.0, (name, after, now)
            seen_kinds.add(int(f[a, 5:18].argmax()))
        # the discard's effective count after it, the red five's the same as its tile type's
        eff = view["effective_count_after_discard"]
        for t in range(34):
            want = min(max(float(eff[t]), 0.0), 40.0) / 20.0 if eff[t] >= 0 else 0.0
            assert float(f[t, 18]) == pytest.approx(want)
        for word, t in _RED.items():
            assert torch.equal(f[ACTION_NAMES.index(f"discard_red_{word}"), 18:], f[t, 18:])
        assert (f[37:, 18:] == 0).all()  # no effective features but for discards
    assert len(seen_kinds) == 13  # every kind is a column of its own (all 85 actions were checked)


def test_the_best_flag_marks_the_discards_with_the_most_effective_tiles_among_equal_deficiencies(net):
    spec = riichi_spec()
    for x in _positions(40):
        view = spec.decode(x)
        dad, eff = view["deficiency_after_discard"], view["effective_count_after_discard"]
        held = np.flatnonzero(eff >= 0)
        if len(held) == 0:
            continue
        with torch.no_grad():
            f = net.action_features(torch.as_tensor(x)[None])[0]
        for t in held:
            best = max(eff[u] for u in held if dad[u] == dad[t])
            assert float(f[t, 20]) == float(eff[t] == best)


def test_policy_agent_plays_riichi_legally_and_round_trips(tmp_path, net):
    env = mjenv.parallel_env(rules="riichi", episode="hand", illegal_action="raise")
    agent = PolicyAgent(net, seed=1, greedy=False)
    steps = 0
    for seed in range(5, 9):  # illegal_action="raise": an illegal action would raise in step()
        obs, infos = env.reset(seed=seed)
        while env.agents:
            acts = {}
            for a in env.agents:
                if infos[a]["needs_action"]:
                    acts[a] = agent.act(obs[a])
                    assert obs[a]["action_mask"][acts[a]] == 1
            obs, _, _, _, infos = env.step(acts)
            steps += 1
    assert steps > 40  # whole hands (a hand can end early: an abortive draw, a quick win)
    path = tmp_path / "riichi.pt"
    save_policy(net, path)
    again = load_net(path)
    assert isinstance(again, RiichiPolicyNet) and again.config() == net.config()
    x = torch.as_tensor(np.stack(_positions(8)))
    m = torch.ones(len(x), N_ACTIONS, dtype=torch.int8)
    with torch.no_grad():
        torch.testing.assert_close(again(x, m)[0], net(x, m)[0], rtol=0, atol=0)


def test_policy_spec_refuses_a_network_of_other_rules(tmp_path, net):
    path = tmp_path / "riichi.pt"
    save_policy(net, path)
    assert make_agent(f"policy:{path}", rules="riichi").net.num_actions == N_ACTIONS
    with pytest.raises(ValueError, match="a network of rules 'riichi', not of rules 'basic'"):
        make_agent(f"policy:{path}", rules="basic")
    with pytest.raises(ValueError, match="a network of the shared rule sets, not of rules 'riichi'"):
        make_agent("policy:bc", rules="riichi")


def test_a_riichi_network_refuses_another_trunk_and_raw_observations():
    with pytest.raises(ValueError, match=r"trunk is one of \('mlp', 'cnn'\), got trunk='resnet'"):
        build_net("riichi", hidden=(8,), trunk="resnet")
    with pytest.raises(ValueError, match="needs the deficiency views"):
        RiichiPolicyNet(riichi_spec(raw=True).views, hidden=(8,))


def test_the_riichi_cnn_reads_the_riichi_planes_each_scaled_as_its_view(tmp_path):
    """``trunk="cnn"``: the network's input is ``observation="planes"``'s planes of the flat observation (the env's
    own map), each divided by its view's scale (a count plane by 4, a one-hot as it is); a tile bumped in the flat
    hand changes that tile of the hand plane alone; the checkpoint round-trips."""
    from mjenv.planes import plane_spec

    net = build_net("riichi", hidden=(16,), trunk="cnn")
    flat = torch.as_tensor(np.stack(_positions(24)))
    planes = plane_spec("riichi").planes(flat)
    x = net.normalise(flat)
    assert x.shape == (24, 164, 34) and float(x.abs().max()) <= 2.0
    lay = plane_spec("riichi").layout
    for name, scale in (("hand", 4.0), ("discard_counts", 4.0), ("meld_tile", 4.0), ("recent_discards", 1.0),
                        ("wall_count", 70.0), ("scores", 50.0)):
        c = lay[name][0]
        torch.testing.assert_close(x[:, c], planes[:, c] / scale, msg=name)
    hand = riichi_spec().slices["hand"].start
    bumped = flat.clone()
    bumped[:, hand + 5] += 1
    diff = (net.normalise(bumped) - x).abs().sum(dim=0)
    assert diff[lay["hand"][0], 5] > 0 and float(diff.sum()) == pytest.approx(float(diff[lay["hand"][0], 5]))
    mask = torch.ones(24, N_ACTIONS, dtype=torch.bool)
    save_policy(net, tmp_path / "cnn.pt")
    again = load_net(tmp_path / "cnn.pt")
    assert isinstance(again, RiichiPolicyNet) and again.trunk_kind == "cnn"
    torch.testing.assert_close(again(flat, mask)[0], net(flat, mask)[0])


def _rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(("episode", "extra"), [
    ("hand", ["--eval-hands", "1", "--opponents", "self,greedy,random,past"]),
    ("east", ["--eval-hands", "0", "--shaping", "deficiency_tiles", "--win-reward", "1", "--opponents", "self,random"]),
])
def test_ppo_trains_on_riichi_and_its_policy_plays_in_the_harness(tmp_path, episode, extra):
    out = tmp_path / "ppo"
    policy = train_ppo.main(["--rules", "riichi", "--episode", episode, "--total-timesteps", "512", "--num-envs", "4",
                             "--num-steps", "64", "--hidden", "32,32", "--snapshot-every", "1", "--no-progress",
                             "--no-tensorboard", "--out-dir", str(out), "--seed", "2", *extra])
    rows = _rows(out / "ppo_log.csv")
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert int(rows[-1]["global_step"]) == 512 and np.isfinite(float(rows[-1]["pg_loss"]))
    assert json.loads((out / "args.json").read_text())["rules"] == "riichi"
    net = load_net(policy)
    assert isinstance(net, RiichiPolicyNet)
    ckpt = torch.load(out / "checkpoint.pt", weights_only=False)
    assert ckpt["net_config"]["rules"] == "riichi"
    torch.manual_seed(2)  # the script seeds torch with --seed and builds its network first: the weights it started from
    start = build_net("riichi", hidden=(32, 32)).state_dict()
    assert any(not torch.equal(v, start[k]) for k, v in net.state_dict().items())  # the updates moved them
    if "--eval-hands" in extra and extra[extra.index("--eval-hands") + 1] == "1":
        assert 0.0 <= float(rows[-1]["eval_policy_win_rate"]) <= 1.0
        assert (out / "eval" / "update_00002" / "policy_vs_greedy.md").is_file()
    from mjenv.baselines.evaluate import evaluate

    report = evaluate([f"policy:{policy}", "random"], 1, 9, rules="riichi", episode="hand", progress=False)
    assert len(report.hands) == 2  # one deal, two rotations of the teams


def test_episode_wins_of_riichi_hands_and_games_and_of_the_shared_rules():
    final = {"scores": np.array([[1000, -1000, 0, 0], [0, 0, 0, 0]]),
             "winners": np.array([[True, False, False, False], [False, False, False, False]]),
             "final_points": np.array([[10.0, 40.0, -20.0, -30.0], [5.0, -5.0, 20.0, -20.0]])}
    own = rulesets.own_policy("riichi")
    np.testing.assert_array_equal(train_ppo.episode_wins(final, own, False), final["winners"])
    np.testing.assert_array_equal(train_ppo.episode_wins(final, own, True),
                                  [[False, True, False, False], [False, False, True, False]])
    np.testing.assert_array_equal(train_ppo.episode_wins(final), final["scores"] > 0)
    assert rulesets.own_policy("basic") is None and own.POLICY_NET is RiichiPolicyNet


@pytest.mark.parametrize(("args", "says"), [
    (["--oracle-critic"], "--oracle-critic reads the shared engine's games"),
    (["--trunk", "resnet"], "the network of rules 'riichi' has the trunks ('mlp', 'cnn'), got --trunk 'resnet'"),
    (["--episode", "hanchan_x"], "--episode must be one of ('hand', 'east', 'hanchan')"),
])
def test_ppo_on_riichi_refuses_what_it_cannot_do_before_writing(tmp_path, args, says):
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        train_ppo.main(["--rules", "riichi", "--out-dir", str(out), *args])
    assert not out.exists()


def test_episodes_of_games_are_riichis_alone(tmp_path):
    with pytest.raises(ValueError, match=r"--episode must be one of \('hand',\) for rules 'basic'"):
        train_ppo.main(["--episode", "east", "--out-dir", str(tmp_path / "run")])


def test_behaviour_cloning_fits_the_riichi_network_to_the_greedy_teacher(tmp_path):
    """``mjenv train bc --rules riichi``: the greedy's decisions on the room's own env, split by hand; the fitted
    network agrees with the teacher on held-out hands far more often than a uniform legal pick would, and its
    checkpoint is a Riichi network that ``train_ppo --init`` starts from."""
    out = tmp_path / "bc"
    policy = train_bc.main(["--rules", "riichi", "--hands", "48", "--num-envs", "8", "--epochs", "12",
                            "--batch-size", "128", "--hidden", "64,64", "--val-fraction", "0.25", "--no-progress",
                            "--no-tensorboard", "--save-data", "--out-dir", str(out), "--seed", "3"])
    net = load_net(policy)
    assert isinstance(net, RiichiPolicyNet)
    with np.load(out / "bc_data.npz") as z:
        obs, masks, actions, hand_ids = z["obs"], z["masks"], z["actions"], z["hand_ids"]
    assert obs.shape[1] == riichi_spec().size and set(hand_ids.tolist()) == set(range(48))
    assert (masks.sum(axis=1) > 1).all() and masks[np.arange(len(actions)), actions].all()  # choices, all legal
    val = hand_ids >= 36
    rows = _rows(out / "bc_log.csv")
    chance = float(np.mean(1.0 / masks[val].sum(axis=1)))  # a uniform legal pick's expected accuracy
    assert float(rows[-1]["val_accuracy"]) > chance + 0.2, (rows[-1]["val_accuracy"], chance)
    assert train_bc.accuracy(net, obs[val], masks[val], actions[val], aux=net.aux(obs[val])) == pytest.approx(
        float(rows[-1]["val_accuracy"]))
    ppo = train_ppo.main(["--rules", "riichi", "--init", str(policy), "--total-timesteps", "128", "--num-envs", "2",
                          "--num-steps", "64", "--eval-hands", "0", "--no-progress", "--no-tensorboard",
                          "--out-dir", str(tmp_path / "ppo")])
    assert isinstance(load_net(ppo), RiichiPolicyNet)


def test_behaviour_cloning_on_riichi_games_counts_games():
    """With ``episode="east"`` each generated episode is a game: ``hand_ids`` number the games."""
    obs, masks, actions, ids = train_bc.generate("greedy", 3, rules="riichi", seed=1, num_envs=3, progress=False,
                                                 episode="east")
    assert set(ids.tolist()) == {0, 1, 2} and len(obs) == len(masks) == len(actions)
    assert len(obs) > 3 * 4 * 20  # an east game holds several hands of decisions


@pytest.mark.parametrize(("args", "says"), [
    (["--trunk", "resnet"], "the network of rules 'riichi' has the trunks ('mlp', 'cnn'), got --trunk 'resnet'"),
    (["--episode", "south"], "--episode must be one of ('hand', 'east', 'hanchan')"),
    (["--logs", "hands.jsonl"], "--logs replays the shared engine's hand logs"),
])
def test_behaviour_cloning_on_riichi_refuses_what_it_cannot_do_before_writing(tmp_path, monkeypatch, args, says):
    # --logs: refused for a room that reads no logs of its own (Riichi's log_decisions taken away)
    monkeypatch.delattr(rulesets.own_policy("riichi"), "log_decisions")
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
        train_bc.main(["--rules", "riichi", "--out-dir", str(out), *args])
    assert not out.exists()


def test_behaviour_cloning_trains_the_riichi_cnn(tmp_path):
    out = tmp_path / "bc_cnn"
    policy = train_bc.main(["--rules", "riichi", "--trunk", "cnn", "--hands", "12", "--num-envs", "6", "--epochs", "8",
                            "--batch-size", "64", "--learning-rate", "3e-3", "--hidden", "64", "--val-fraction", "0.25",
                            "--no-progress", "--no-tensorboard", "--out-dir", str(out), "--seed", "5"])
    rows = _rows(out / "bc_log.csv")
    assert float(rows[-1]["loss"]) < 0.6 * float(rows[0]["loss"])
    assert float(rows[-1]["train_accuracy"]) > 0.7
    net = load_net(policy)
    assert isinstance(net, RiichiPolicyNet) and net.trunk_kind == "cnn"
