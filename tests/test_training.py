"""Policy network and agent, behaviour cloning, masked PPO (smoke runs with tiny budgets), resume."""

from __future__ import annotations

import csv
import json
import math

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


def _greedy_discard_positions(n: int = 40, seed: int = 3):
    """(observation, hand, kb) of the first ``n`` own-turn discard decisions of greedy self-play."""
    from mjenv.baselines.greedy import GreedyAgent

    from mjenv.observation import ObservationSpec

    spec = ObservationSpec("basic")
    env = mjenv.parallel_env()
    agents = [GreedyAgent(seed=s) for s in range(4)]
    out = []
    while len(out) < n:
        obs, _ = env.reset(seed=seed)
        seed += 1
        while env.agents and len(out) < n:
            for a in env.agents:
                view = spec.decode(obs[a]["observation"])
                if (view["deficiency_after_discard"] >= 0).any():
                    hand, kb = view["hand"].astype(int), view["knowledge_base"].astype(int)
                    out.append((obs[a]["observation"].copy(), hand, kb))
            obs, *_ = env.step({a: agents[s].act(obs[a]) for s, a in enumerate(env.agents)})
    return out


def _row_by_row_discard_scores(hand, kb, needed):
    """Reference for the discard features: every H - t and every H - t + u through plain dp rows."""
    from mjenv.deficiency import dp

    t_n = len(hand)
    d = np.full(t_n, -1, dtype=np.int64)
    eff = np.zeros(t_n, dtype=np.int64)
    for t in np.flatnonzero(hand > 0):
        after = hand.astype(np.int8).copy()
        after[t] -= 1
        rows, kbs = [after], [kb.astype(np.int8)]
        draws = np.flatnonzero(kb > 0)
        for u in draws:
            drawn, k = after.copy(), kb.astype(np.int8).copy()
            drawn[u] += 1
            k[u] -= 1
            rows.append(drawn)
            kbs.append(k)
        out = dp.deficiency_batch(np.stack(rows), np.stack(kbs), np.full(len(rows), needed))
        d[t] = out[0]
        eff[t] = int(kb[draws[out[1:] < out[0]]].sum())
    return d, eff


def test_effective_count_after_discard_is_the_greedy_tie_break():
    from mjenv.baselines.greedy import discard_scores

    from mjenv.deficiency.features import effective_count_after_discard

    positions = _greedy_discard_positions()
    hands = np.stack([h for _, h, _ in positions])
    kbs = np.stack([k for _, _, k in positions])
    exposed = 4 - (hands.sum(axis=1) - 2) // 3
    batch = effective_count_after_discard(hands, kbs, exposed_melds=exposed)
    for i, (_, hand, kb) in enumerate(positions):
        needed = (hand.sum() - 2) // 3
        ref_d, ref_eff = _row_by_row_discard_scores(hand, kb, needed)
        d, eff = discard_scores(hand, kb, needed)  # what the greedy agent decides with
        np.testing.assert_array_equal(d, ref_d)
        np.testing.assert_array_equal(eff, ref_eff)
        expected = np.where(hand > 0, ref_eff, -1)
        np.testing.assert_array_equal(batch[i], expected)
        np.testing.assert_array_equal(effective_count_after_discard(hand, kb, exposed_melds=int(exposed[i])), expected)
    assert len({tuple(r) for r in batch}) > 1 and (batch > 0).any()
    # three melds in m + 12344p: discarding 4p or 1p waits on 1p (3 unseen) and 4p (2 unseen); 2p on 2p only
    one = effective_count_after_discard("123456789m12344p")
    assert one.shape == (27,) and one[0] == -1  # 1s (id 0) is not held
    assert (one[18], one[19], one[21]) == (5, 3, 5)
    with pytest.raises(ValueError, match="3m\\+2"):
        effective_count_after_discard("123456789m1234p")


def test_discard_effective_head_sees_the_greedy_tie_break(net):
    big = build_net("basic", hidden=(32, 32))
    assert big.discard_effective and not PolicyNet(big.views, 27, (32, 32)).discard_effective
    positions = _greedy_discard_positions(20)
    obs = torch.as_tensor(np.stack([o for o, _, _ in positions]))
    aux = big.aux(obs)
    with torch.no_grad():
        feats = big.action_features(obs, aux)
    assert feats.shape == (len(positions), big.num_actions, 17)
    for i, (_, hand, kb) in enumerate(positions):
        d, eff = _row_by_row_discard_scores(hand, kb, (hand.sum() - 2) // 3)
        held = np.flatnonzero(hand > 0)
        np.testing.assert_allclose(feats[i, held, 14].numpy(), np.minimum(eff[held], 40) / 20, rtol=1e-6)
        for t in held:
            group = held[d[held] == d[t]]
            assert feats[i, t, 16] == float(eff[t] == eff[group].max())
            assert feats[i, t, 15] == pytest.approx(min(eff[group].max() - eff[t], 8) / 4)
        assert (feats[i, 27:, 14:] == 0).all()  # only discards carry the effective features
    # the head's forward computes the same features when not given them
    mask = torch.ones(len(positions), big.num_actions, dtype=torch.int8)
    with torch.no_grad():
        torch.testing.assert_close(big(obs, mask)[0], big(obs, mask, aux)[0])


def test_checkpoints_without_discard_effective_still_load(tmp_path, net):
    from mjenv.baselines.policy import save_policy

    old = PolicyNet(net.views, 27, (32, 32))
    cfg = old.config()
    del cfg["discard_effective"]  # what checkpoints written before the flag hold
    torch.save({"format": "mjenv-policy-v1", "config": cfg, "state_dict": old.state_dict(), "extra": {}},
               tmp_path / "old.pt")
    loaded = load_net(tmp_path / "old.pt")
    assert not loaded.discard_effective and loaded.action_head[0].in_features == 14
    save_policy(build_net("basic", hidden=(32, 32)), tmp_path / "new.pt")
    assert load_net(tmp_path / "new.pt").action_head[0].in_features == 17
    assert load_pretrained().net.discard_effective == load_net(pretrained_path()).config()["discard_effective"]


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


def test_bc_teacher_against_opponents_clones_only_the_teacher_seat_and_round_trips_its_data(tmp_path):
    from mjenv.baselines.greedy import GreedyAgent

    obs, masks, actions, hand_ids = train_bc.generate("greedy", 4, rules="basic", seed=1, num_envs=2,
                                                      progress=False, opponents="random")
    assert len(actions) > 10 and sorted(set(hand_ids.tolist())) == [0, 1, 2, 3]
    greedy = GreedyAgent(seed=0)
    # every sample is a greedy decision: the random seats' decisions are not cloned
    assert all(greedy.act({"observation": o, "action_mask": m}) == a for o, m, a in zip(obs, masks, actions))
    _, _, all_actions, _ = train_bc.generate("greedy", 4, rules="basic", seed=1, num_envs=2, progress=False)
    assert len(all_actions) > 2 * len(actions)  # four teacher seats per table instead of one

    out = tmp_path / "bc"
    train_bc.main(["--hands", "3", "--num-envs", "3", "--epochs", "1", "--hidden", "32,32", "--out-dir", str(out),
                   "--save-data", "--no-save-logs", "--no-progress", "--no-tensorboard"])
    data = str(out / "bc_data.npz")
    o2, m2, a2, h2 = train_bc.load_data([data, data])
    with np.load(data) as z:
        n = len(z["actions"])
        np.testing.assert_array_equal(o2[:n], z["obs"])
        np.testing.assert_array_equal(a2[n:], z["actions"])
        assert h2[n:].min() == z["hand_ids"].max() + 1  # the second copy's hands are numbered after the first's
    train_bc.main(["--data", f"{data},{data}", "--epochs", "1", "--hidden", "32,32", "--out-dir", str(tmp_path / "b2"),
                   "--no-progress", "--no-tensorboard"])
    assert len(_rows(tmp_path / "b2" / "bc_log.csv")) == 1
    with pytest.raises(ValueError, match="no data set"):
        train_bc.load_data([str(tmp_path / "missing.npz")])


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


def test_win_reward_pays_only_the_winners_of_hands_that_ended():
    done = np.array([True, False, True])
    scores = np.array([[3, -3, 0, 0], [3, 0, 0, -3], [-1, -1, 3, -1]])  # env 1's row is not a finished hand
    expected = np.array([[2.5, 0, 0, 0], [0, 0, 0, 0], [0, 0, 2.5, 0]])
    np.testing.assert_array_equal(train_ppo.win_rewards(done, scores, 2.5), expected)


def test_ppo_with_win_reward_learns_from_wins_only(tmp_path):
    out = tmp_path / "ppo"
    train_ppo.main(["--total-timesteps", "256", "--num-envs", "2", "--num-steps", "128", "--hidden", "32,32",
                    "--eval-hands", "0", "--opponents", "random", "--win-reward", "1", "--reward-scale", "1",
                    "--out-dir", str(out), "--no-progress", "--no-tensorboard"])
    row = _rows(out / "ppo_log.csv")[-1]
    # without shaping a hand's learner return is 1 for a win and 0 otherwise, never a negative score
    assert 0.0 <= float(row["learner_return"]) <= 1.0
    assert float(row["learner_return"]) == pytest.approx(float(row["learner_win_rate"]))


def test_bad_arguments_raise_value_error(tmp_path):
    with pytest.raises(ValueError, match="shaping"):
        train_ppo.main(["--shaping", "score", "--out-dir", str(tmp_path)])
    with pytest.raises(ValueError, match="opponents"):
        train_ppo.main(["--opponents", "self,wizard", "--out-dir", str(tmp_path)])
    with pytest.raises(ValueError, match="resume"):
        train_ppo.main(["--resume", "--out-dir", str(tmp_path / "empty")])
    with pytest.raises(ValueError, match="--win-reward must be >= 0"):
        train_ppo.main(["--win-reward", "-1", "--out-dir", str(tmp_path)])
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


def test_kl_to_init_is_logged_and_pulls_the_policy_toward_its_start(tmp_path, net):
    init = PolicyAgent(net).save(tmp_path / "init.pt")
    common = ["--init", str(init), "--total-timesteps", "64", "--num-envs", "2", "--num-steps", "16",
              "--eval-hands", "0", "--opponents", "random", "--no-progress", "--no-tensorboard",
              "--learning-rate", "0.01", "--no-anneal-lr", "--seed", "3"]
    kls = {}
    for coef in ("0", "100"):
        out = tmp_path / f"kl{coef}"
        train_ppo.main([*common, "--kl-to-init", coef, "--out-dir", str(out)])
        with open(out / "ppo_log.csv") as f:
            rows = list(csv.DictReader(f))
        if coef == "0":
            assert rows[0]["kl_to_init"] == "nan"  # off: not computed
        else:
            vals = [float(r["kl_to_init"]) for r in rows]
            assert all(math.isfinite(v) and v >= -1e-6 for v in vals)
        # distance of the final policy from the start, measured here on fresh observations
        after = load_net(out / "policy.pt")
        kls[coef] = _mean_kl(after, net)
    assert kls["100"] < kls["0"]
    with pytest.raises(ValueError, match="needs --init"):
        train_ppo.main(["--kl-to-init", "1", "--total-timesteps", "32", "--out-dir", str(tmp_path / "x")])


def _mean_kl(a, b) -> float:
    import mjenv

    env = mjenv.env(rules="basic")
    env.reset(seed=11)
    total, n = 0.0, 0
    for _agent in env.agent_iter(max_iter=200):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o = torch.as_tensor(obs["observation"][None])
        m = torch.as_tensor(obs["action_mask"][None])
        with torch.no_grad():
            la, _ = a(o, m)
            lb, _ = b(o, m)
        pa, legal = torch.softmax(la, 1), m.bool()
        lpa = torch.log_softmax(la, 1).masked_fill(~legal, 0)
        lpb = torch.log_softmax(lb, 1).masked_fill(~legal, 0)
        total += float((pa * legal * (lpa - lpb)).sum())
        n += 1
        env.step(int(torch.argmax(la)))
    return total / n


def test_shipped_policies_load_by_name_and_bad_names_raise():
    assert pretrained_path("bc") == pretrained_path()
    assert pretrained_path("bc").name == "pretrained_policy.pt"
    bc = load_pretrained("bc")
    default = load_pretrained()
    for k, v in bc.net.state_dict().items():
        assert torch.equal(v, default.net.state_dict()[k]), k
    rl = load_pretrained("rl")
    assert pretrained_path("rl").name == "rl_policy.pt"
    assert any(not torch.equal(v, bc.net.state_dict()[k]) for k, v in rl.net.state_dict().items())
    with pytest.raises(ValueError, match="unknown shipped policy"):
        pretrained_path("ppo9000")
    from mjenv.baselines.registry import make_agent

    agent = make_agent("policy:bc", seed=0, rules="basic")
    for k, v in bc.net.state_dict().items():
        assert torch.equal(v, agent.net.state_dict()[k]), k


def test_mjenv_train_subcommand_passes_options_to_the_scripts(tmp_path, capsys):
    from mjenv import cli

    # reached train_ppo.main with the options; its ValueError is one line on stderr, as mjenv eval's
    assert cli.main(["train", "ppo", "--resume", "--out-dir", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjenv: error: --resume needs") and "Traceback" not in err
    with pytest.raises(SystemExit):
        cli.main(["train", "bc", "--help"])
    assert "--teacher" in capsys.readouterr().out


@pytest.mark.parametrize(("algorithm", "rules", "says"), [
    ("bc", "riichi", "played by their room's own engine"),
    ("ppo", "riichi", "played by their room's own engine"),
    ("ppo", "nonsense", "unknown rules 'nonsense'; allowed presets:"),
    ("bc", "nonsense", "unknown rules 'nonsense'; allowed presets:"),
])
def test_mjenv_train_refuses_rules_it_cannot_train_before_writing(tmp_path, capsys, monkeypatch, algorithm, rules,
                                                                   says):
    """A room with its own engine and no network of its own (Riichi with its ``own_policy`` taken away: both scripts
    train the Riichi network, tests/test_riichi_policy.py) or an unknown preset: a clear error naming what the script
    plays, and nothing written."""
    from mjenv import cli, rulesets

    real = rulesets.own_policy
    monkeypatch.setattr(rulesets, "own_policy", lambda name: None if name == "riichi" else real(name))
    out = tmp_path / "run"
    assert cli.main(["train", algorithm, "--rules", rules, "--out-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and not out.exists()
    if rules == "riichi":
        assert f"mjenv train {algorithm} plays basic, honours, sichuan, taiwan16" in err


def test_sample_actions_draws_what_categorical_draws():
    logits = torch.randn(64, 61)
    logits[torch.rand(64, 61) < 0.7] = -math.inf
    logits[:, 60] = 0.5  # every row keeps a legal action
    torch.manual_seed(11)
    dist = torch.distributions.Categorical(logits=logits)
    want = dist.sample()
    want_logp = dist.log_prob(want)
    torch.manual_seed(11)
    got, got_logp = train_ppo.sample_actions(logits)
    assert torch.equal(got, want) and torch.equal(got_logp, want_logp)
    assert torch.isfinite(logits.gather(1, got[:, None])).all()  # only legal actions


def test_precomputed_action_features_give_the_same_forward(net):
    obs = _one_observation()
    o = torch.as_tensor(np.stack([obs[a]["observation"] for a in obs]))
    m = torch.as_tensor(np.stack([obs[a]["action_mask"] for a in obs]))
    logits, values = net(o, m)
    logits2, values2 = net(o, m, features=net.action_features(o))
    assert torch.equal(logits, logits2) and torch.equal(values, values2)


@pytest.mark.parametrize("flag", ["--num-threads", "--torch-threads"])
def test_ppo_num_threads_sets_torch_threads(tmp_path, flag, monkeypatch):
    seen = []
    monkeypatch.setattr(torch, "set_num_threads", lambda n: seen.append(n))
    train_ppo.main(["--total-timesteps", "64", "--num-envs", "2", "--num-steps", "32", "--eval-hands", "0",
                    "--no-progress", "--no-tensorboard", "--opponents", "random", flag, "3",
                    "--out-dir", str(tmp_path)])
    assert seen[0] == 3
    assert json.loads((tmp_path / "args.json").read_text())["num_threads"] == 3
    assert train_ppo.parse_args(train_ppo.Args, []).num_threads == 1  # the default: one thread


@pytest.mark.parametrize("discard_effective", [True, False])
def test_numpy_action_features_equal_the_torch_ones_byte_for_byte(discard_effective):
    net = build_net("honours", hidden=(8,), discard_effective=discard_effective)
    venv = mjenv.vector_env(16, rules="honours")
    obs, _ = venv.reset(seed=4)
    rng = np.random.default_rng(4)
    rows = []
    for _ in range(80):
        rows.append(obs["observation"].reshape(-1, obs["observation"].shape[-1]).copy())
        m = obs["action_mask"]
        obs, *_ = venv.step(np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=2))
    x = torch.as_tensor(np.concatenate(rows))
    got = net.action_features(x)  # a CPU tensor without gradient: the numpy path
    want = net.action_features(x.clone().requires_grad_()).detach()  # the torch path
    assert got.dtype == want.dtype == torch.float32 and got.shape == want.shape
    assert torch.equal(got, want)
    assert (got[:, : net.num_tile_types, :5].argmax(-1) < 4).any()  # some discards change the deficiency bins


def _played_rows(steps: int = 40, seed: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    """Observations and masks of every seat over a few random-play steps of 8 tables (discard turns and
    claims among them)."""
    venv = mjenv.vector_env(8)
    obs, _ = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows, masks = [], []
    for _ in range(steps):
        m = obs["action_mask"]
        rows.append(obs["observation"].reshape(-1, obs["observation"].shape[-1]).copy())
        masks.append(m.reshape(-1, m.shape[-1]).copy())
        obs, *_ = venv.step(np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=2))
    return torch.as_tensor(np.concatenate(rows)), torch.as_tensor(np.concatenate(masks))


def test_head_where_there_is_a_choice_gives_the_distributions_and_gradients_of_the_head_everywhere(net):
    o, m = _played_rows()
    assert (m.sum(dim=1) > 2).any() and (m.sum(dim=1) == 1).any()
    legal = m.bool()
    head_at = net.head_mask(m)
    assert torch.equal(head_at, legal & (legal.sum(dim=1) > 1)[:, None])
    features = net.action_features(o)

    def loss_and_grads(logits, values):
        loss = (torch.softmax(logits, dim=1) * torch.arange(m.shape[1])).sum() + values.square().sum()
        net.zero_grad()
        loss.backward()
        return [p.grad.clone() for p in net.parameters()]

    logits, values = net(o, m, features=features)
    got = loss_and_grads(logits, values)
    # the head at every action, the illegal ones masked afterwards (what the network computed before)
    h = net.trunk(net.normalise(o))
    everywhere = (net.actor(h) + net.action_head(features).squeeze(-1)).masked_fill(~legal, -math.inf)
    want = loss_and_grads(everywhere, net.critic(h).squeeze(-1))
    assert torch.equal(torch.isinf(logits), ~legal)
    torch.testing.assert_close(logits[head_at], everywhere[head_at], rtol=0, atol=1e-6)
    torch.testing.assert_close(torch.log_softmax(logits, 1)[legal], torch.log_softmax(everywhere, 1)[legal],
                               rtol=0, atol=1e-6)  # a forced action's log-probability is 0 either way
    scale = max(float(w.abs().max()) for w in want)  # float32 round-off of sums over the batch's rows
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=0, atol=1e-5 * scale)
    # the features where the head runs only, or none given, give the same forward; another count is a ValueError
    assert torch.equal(net(o, m, features=features[head_at])[0], logits)
    torch.testing.assert_close(net(o, m)[0], logits, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="head_mask"):
        net(o, m, features=features[legal])


def test_log_prob_entropy_gives_categoricals_values_and_gradients():
    logits = torch.randn(64, 61)
    logits[torch.rand(64, 61) < 0.8] = -math.inf
    logits[:, 60] = 0.5  # every row keeps a legal action
    logits.requires_grad_()
    actions = torch.distributions.Categorical(logits=logits.detach()).sample()
    got = train_ppo.log_prob_entropy(logits, actions)
    (g_got,) = torch.autograd.grad(got[0].sum() + got[1].sum(), logits)
    dist = torch.distributions.Categorical(logits=logits, validate_args=False)
    want = dist.log_prob(actions), dist.entropy()
    (g_want,) = torch.autograd.grad(want[0].sum() + want[1].sum(), logits)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1]) and torch.equal(g_got, g_want)


def test_row_entries_pick_a_minibatchs_rows_of_the_array_of_a_masks_entries():
    mask = torch.rand(50, 61) < 0.1
    mask[:, 60] = True
    values = torch.arange(50 * 61).reshape(50, 61)
    count = mask.sum(dim=1)
    first = count.cumsum(0) - count
    mb = torch.as_tensor(np.random.default_rng(0).permutation(50)[:20])
    got = values[mask][train_ppo.row_entries(first[mb], count[mb])]
    assert torch.equal(got, values[mb][mask[mb]])
    assert len(train_ppo.row_entries(first[:0], count[:0])) == 0
