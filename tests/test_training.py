"""Policy network and agent, behaviour cloning, masked PPO (smoke runs with tiny budgets), resume."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch
from mjenv.baselines import train_bc, train_ppo
from mjenv.baselines.policy import PolicyAgent, PolicyNet, build_net, load_net, load_pretrained, pretrained_path

import mjenv


def _rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def net() -> PolicyNet:
    torch.manual_seed(0)
    return build_net("basic", hidden=(32, 32))


def _one_observation(seed: int = 0):
    env = mjenv.parallel_env()
    obs, _ = env.reset(seed=seed)
    return obs


def test_masked_logits_give_illegal_actions_zero_probability(net):
    obs = _one_observation()
    o = torch.as_tensor(np.stack([obs[a]["observation"] for a in obs]))
    m = torch.as_tensor(np.stack([obs[a]["action_mask"] for a in obs]))
    with torch.no_grad():
        logits, values = net(o, m)
    assert values.shape == (4,)
    assert torch.isneginf(logits[m == 0]).all()
    assert torch.isfinite(logits[m == 1]).all()
    probs = torch.softmax(logits, dim=1)
    assert float(probs[m == 0].sum()) == 0.0
    np.testing.assert_allclose(probs.sum(dim=1).numpy(), 1.0, rtol=1e-5)


def test_all_zero_mask_and_bad_shapes_raise(net):
    obs = torch.zeros(2, net.obs_size)
    mask = torch.zeros(2, net.num_actions, dtype=torch.int8)
    mask[0, -1] = 1
    with pytest.raises(ValueError, match="all zero"):
        net(obs, mask)
    with pytest.raises(ValueError, match="obs must have shape"):
        net(torch.zeros(2, 5), mask)
    with pytest.raises(ValueError, match="mask must have shape"):
        net(obs, mask[:, :10])
    with pytest.raises(ValueError, match="deficiency views"):
        PolicyNet({"hand": (27,)}, 27)


def test_action_features_see_the_deficiency_change_of_each_discard(net):
    from mjenv.observation import ObservationSpec

    spec = ObservationSpec("basic")
    obs = np.zeros(spec.size, dtype=np.float32)
    view = spec.decode(obs)
    view["deficiency"][0] = 3
    view["deficiency_after_discard"][:] = -1
    view["deficiency_after_discard"][[0, 1, 2]] = [2, 3, 5]  # better, same, much worse; others not held
    with torch.no_grad():
        feats = net.action_features(torch.as_tensor(obs)[None])[0]
    delta_bins = feats[:, :5].argmax(dim=1)
    assert delta_bins[:4].tolist() == [0, 1, 3, 4]  # -1, 0, >=+2, not applicable
    assert (feats[:27, 5] == 1).all() and (feats[27:54, 6] == 1).all()  # kinds: discard, kong


def test_policy_agent_acts_legally_reproducibly_and_round_trips(tmp_path, net):
    env = mjenv.parallel_env()
    agents = [PolicyAgent(net, seed=s, greedy=False) for s in range(4)]
    obs, _ = env.reset(seed=2)
    first = []
    while env.agents:
        actions = {}
        for s, a in enumerate(env.agents):
            act = agents[s].act(obs[a])
            assert obs[a]["action_mask"][act] == 1
            actions[a] = act
        first.append(actions)
        obs, *_ = env.step(actions)
    # same seeds -> same sampled actions
    again = [PolicyAgent(net, seed=s, greedy=False) for s in range(4)]
    obs, _ = env.reset(seed=2)
    for actions in first:
        assert {a: again[s].act(obs[a]) for s, a in enumerate(env.agents)} == actions
        obs, *_ = env.step(actions)
    # save / load: same logits and greedy actions
    path = PolicyAgent(net).save(tmp_path / "p.pt")
    loaded = PolicyAgent.load(path)
    o = _one_observation(5)
    x = torch.as_tensor(np.stack([o[a]["observation"] for a in o]))
    m = torch.as_tensor(np.stack([o[a]["action_mask"] for a in o]))
    with torch.no_grad():
        torch.testing.assert_close(loaded.net(x, m)[0], net(x, m)[0])
    assert [loaded.act(o[a]) for a in o] == [PolicyAgent(net).act(o[a]) for a in o]
    with pytest.raises(ValueError, match="no policy checkpoint"):
        PolicyAgent.load(tmp_path / "missing.pt")
    torch.save({"something": 1}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not an mjenv policy checkpoint"):
        load_net(tmp_path / "other.pt")
    with pytest.raises(ValueError, match="observation dict"):
        loaded.act(o["player_0"]["observation"])


def test_shipped_pretrained_policy_loads_small_and_plays_legally():
    assert pretrained_path().is_file()
    assert pretrained_path().stat().st_size < 2_000_000
    agent = load_pretrained()
    assert isinstance(agent, PolicyAgent)
    env = mjenv.parallel_env()
    obs, _ = env.reset(seed=9)
    while env.agents:
        actions = {a: agent.act(obs[a]) for a in env.agents}
        for a, act in actions.items():
            assert obs[a]["action_mask"][act] == 1
        obs, *_ = env.step(actions)


@pytest.mark.timeout(300)  # guards a hang, not a speed: forked workers once deadlocked in torch
def test_policy_agent_plays_in_the_evaluation_harness_also_in_forked_workers(tmp_path, net):
    from mjenv.baselines.evaluate import evaluate

    path = PolicyAgent(net).save(tmp_path / "p.pt")
    with torch.no_grad():  # a parallel torch op in this (parent) process before the workers fork
        torch.randn(256, 256) @ torch.randn(256, 256)
    for workers in (1, 2):
        report = evaluate([f"policy:{path}", "greedy", "greedy", "greedy"], 1, 0, progress=False,
                          labels=["policy", "greedy", "greedy", "greedy"], workers=workers)
        assert len(report.hands) == 4  # one deal in four rotations
        assert set(report.stats) == {"policy", "greedy"}


def test_behaviour_cloning_generates_teacher_decisions_and_fits_them(tmp_path):
    out = tmp_path / "bc"
    path = train_bc.main(["--hands", "6", "--num-envs", "3", "--epochs", "25", "--batch-size", "32",
                          "--learning-rate", "3e-3",
                          "--hidden", "64,64", "--val-fraction", "0.0", "--out-dir", str(out), "--no-progress",
                          "--no-tensorboard"])
    rows = _rows(out / "bc_log.csv")
    assert len(rows) == 25
    assert float(rows[-1]["loss"]) < float(rows[0]["loss"])
    assert float(rows[-1]["train_accuracy"]) > 0.85  # six hands of greedy decisions are easy to fit
    assert (out / "bc_curve.png").stat().st_size > 0
    assert PolicyAgent.load(path).net.hidden == (64, 64)


def test_bc_from_game_logs_recovers_the_logged_decisions(tmp_path):
    from mjenv.baselines.greedy import GreedyAgent

    env = mjenv.parallel_env(log_dir=tmp_path)
    agents = [GreedyAgent(seed=s) for s in range(4)]
    played = []
    for seed in (1, 2):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            actions = {}
            for s, a in enumerate(env.agents):
                actions[a] = agents[s].act(obs[a])
                if obs[a]["action_mask"].sum() > 1:
                    played.append((obs[a]["observation"].copy(), actions[a]))
            obs, *_ = env.step(actions)
    obs, masks, actions, hand_ids = train_bc.from_logs(str(tmp_path / "hands.jsonl"), rules="basic", progress=False)
    assert len(actions) == len(played)
    for (o, a), o2, a2 in zip(played, obs, actions):
        np.testing.assert_array_equal(o, o2)
        assert a == a2
    assert sorted(set(hand_ids.tolist())) == [0, 1]


def test_ppo_smoke_run_writes_logs_and_resumes_from_its_checkpoint(tmp_path):
    out = tmp_path / "ppo"
    base = ["--num-envs", "2", "--num-steps", "16", "--hidden", "32,32", "--eval-hands", "0",
            "--snapshot-every", "1", "--checkpoint-every", "1", "--opponents", "self,past,random",
            "--out-dir", str(out), "--no-progress", "--seed", "3"]
    train_ppo.main(["--total-timesteps", "32", *base])
    rows = _rows(out / "ppo_log.csv")
    assert [int(r["iteration"]) for r in rows] == [1]
    assert int(rows[0]["global_step"]) == 32
    ckpt = torch.load(out / "checkpoint.pt", weights_only=False)
    assert ckpt["iteration"] == 1 and len(ckpt["pool"]) == 1
    for name in ("policy.pt", "ppo_curve.png", "args.json"):
        assert (out / name).is_file()
    assert any((out / "tb").iterdir())
    saved = {k: v.clone() for k, v in ckpt["net"].items()}

    # resume: continues at iteration 2 from exactly the checkpointed weights
    resumed_from = {}
    real_init = train_ppo.PolicyNet.load_state_dict

    def spy(self, state, *args, **kwargs):
        resumed_from.update({k: v.clone() for k, v in state.items()})
        return real_init(self, state, *args, **kwargs)

    train_ppo.PolicyNet.load_state_dict = spy
    try:
        train_ppo.main(["--total-timesteps", "64", "--resume", *base])
    finally:
        train_ppo.PolicyNet.load_state_dict = real_init
    for k, v in saved.items():
        torch.testing.assert_close(resumed_from[k], v)
    rows = _rows(out / "ppo_log.csv")
    assert [int(r["iteration"]) for r in rows] == [1, 2]
    assert int(rows[-1]["global_step"]) == 64
    ckpt2 = torch.load(out / "checkpoint.pt", weights_only=False)
    assert ckpt2["iteration"] == 2 and len(ckpt2["pool"]) == 2
    assert any(not torch.equal(ckpt2["net"][k], saved[k]) for k in saved)  # it trained further
    assert json.loads((out / "args.json").read_text())["resume"] is True


def test_ppo_with_shaping_evaluates_against_greedy_through_the_harness(tmp_path):
    out = tmp_path / "ppo"
    train_ppo.main(["--total-timesteps", "32", "--num-envs", "2", "--num-steps", "16", "--hidden", "32,32",
                    "--eval-hands", "1", "--opponents", "greedy", "--out-dir", str(out), "--no-progress",
                    "--no-tensorboard", "--shaping", "deficiency"])
    row = _rows(out / "ppo_log.csv")[-1]
    assert 0.0 <= float(row["eval_policy_win_rate"]) <= 1.0
    assert 0.0 <= float(row["eval_greedy_win_rate"]) <= 1.0
    assert (out / "eval" / "update_00001" / "policy_vs_greedy.md").is_file()


def test_bad_arguments_raise_value_error(tmp_path):
    with pytest.raises(ValueError, match="shaping"):
        train_ppo.main(["--shaping", "score", "--out-dir", str(tmp_path)])
    with pytest.raises(ValueError, match="opponents"):
        train_ppo.main(["--opponents", "self,wizard", "--out-dir", str(tmp_path)])
    with pytest.raises(ValueError, match="resume"):
        train_ppo.main(["--resume", "--out-dir", str(tmp_path / "empty")])
    with pytest.raises(ValueError, match="unknown agent"):
        train_bc.make_agent("wizard", seed=0, rules="basic")
    with pytest.raises(ValueError, match="val_fraction"):
        train_bc.main(["--val-fraction", "1.5", "--out-dir", str(tmp_path)])


def test_value_warmup_keeps_a_warm_started_policy_and_trains_the_value_head(tmp_path, net):
    init = PolicyAgent(net).save(tmp_path / "init.pt")
    out = tmp_path / "ppo"
    train_ppo.main(["--init", str(init), "--value-warmup", "1", "--total-timesteps", "32", "--num-envs", "2",
                    "--num-steps", "16", "--eval-hands", "0", "--opponents", "random", "--out-dir", str(out),
                    "--no-progress", "--no-tensorboard"])
    after = load_net(out / "policy.pt").state_dict()
    before = net.state_dict()
    for k, v in before.items():
        if k.startswith("critic."):
            assert not torch.equal(after[k], v), k
        else:
            assert torch.equal(after[k], v), k


def test_mjenv_train_subcommand_passes_options_to_the_scripts(tmp_path, capsys):
    from mjenv import cli

    with pytest.raises(ValueError, match="resume"):  # reached train_ppo.main with the options
        cli.main(["train", "ppo", "--resume", "--out-dir", str(tmp_path / "none")])
    with pytest.raises(SystemExit):
        cli.main(["train", "bc", "--help"])
    assert "--teacher" in capsys.readouterr().out
