"""The oracle-guided critic of ``train_ppo --oracle-critic``: its privileged features against a reference
read from ``Game`` objects, and that nothing of it reaches the saved policy."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from mjenv.baselines import train_ppo
from mjenv.baselines.oracle_critic import (
    LOOKAHEAD,
    OracleCritic,
    completion_index,
    privileged_features,
    privileged_size,
)
from mjenv.baselines.policy import PolicyAgent, build_net, load_net

from mjenv.deficiency.contains import contains_complete
from mjenv.game import Game
from mjenv.game.batch import BatchGames
from tests.game_helpers import random_action

T = Game("basic", seed=0).rules.num_tile_types  # 27: the basic preset has no honours


def _reference(game: Game, observer: int) -> np.ndarray:
    """The observer's feature row, built from one Game's public attributes, seat by seat."""
    hands = np.asarray(game.hands, dtype=np.int64)
    wall = np.asarray(game.wall)[game.wall_head : game.wall_tail]
    current = int(game.current_player)
    parts = []
    for r in range(4):
        a = (observer + r) % 4
        mine = [int(wall[j]) for j in range(len(wall)) if (current + 1 + j) % 4 == a][:LOOKAHEAD]
        c4 = np.bincount(mine[:4], minlength=T)
        c8 = np.bincount(mine[:8], minlength=T)
        needed = game.rules.melds - int(game.melds_declared[a])
        first = LOOKAHEAD + 1
        for k in range(len(mine) + 1):
            hand = hands[a] + np.bincount(mine[:k], minlength=T)
            # the dp core (engine="numpy"), not the compiled table the features use
            if contains_complete(hand[None, :], np.array([needed]), engine="numpy")[0]:
                first = k
                break
        parts += [hands[a] / 4.0, c4, c8, np.eye(LOOKAHEAD + 2)[first]]
    parts.append([(game.wall_tail - game.wall_head) / 70.0])
    return np.concatenate(parts).astype(np.float32)


def test_privileged_features_match_a_reference_read_from_games():
    rng = np.random.default_rng(5)
    games = []
    for i in range(24):
        g = Game("basic", seed=1000 + i)
        for _ in range(int(rng.integers(0, 120))):  # states with claims, kongs and short walls too
            if g.is_over:
                break
            g.step({s: random_action(g, s, rng) for s in g.acting_seats()})
        if not g.is_over:
            games.append(g)
    assert len(games) >= 12
    batch = BatchGames("basic", len(games))
    for i, g in enumerate(games):
        batch.load(i, g)
    feats = privileged_features(batch)
    assert feats.shape == (len(games), 4, privileged_size(T))
    assert any(int(g.melds_declared.sum()) > 0 for g in games)  # exposed melds were covered
    seen_firsts = set()
    for i, g in enumerate(games):
        for s in range(4):
            ref = _reference(g, s)
            np.testing.assert_allclose(feats[i, s], ref, err_msg=f"game {i}, observer {s}")
            block = 3 * T + LOOKAHEAD + 2
            firsts = [int(np.argmax(ref[r * block + 3 * T : (r + 1) * block])) for r in range(4)]
            assert completion_index(feats[i, s], T).tolist() == firsts  # read back as written
            seen_firsts.update(firsts)
    assert len(seen_firsts) >= 3  # the completion one-hot is not constant over these states


def test_oracle_critic_rejects_a_wrong_privileged_shape():
    net = build_net("basic", hidden=(16,))
    critic = OracleCritic(net, privileged_size(T), hidden=(8,))
    obs = torch.zeros(3, net.obs_size)
    assert critic(obs, torch.zeros(3, privileged_size(T))).shape == (3,)
    with pytest.raises(ValueError, match="priv must have shape"):
        critic(obs, torch.zeros(3, 5))
    with pytest.raises(ValueError, match="hidden"):
        OracleCritic(net, privileged_size(T), hidden=())


def _ppo(out, init, *extra):
    return train_ppo.main(["--init", str(init), "--oracle-critic", "--critic-hidden", "16", "--num-envs", "2",
                           "--num-steps", "16", "--eval-hands", "0", "--opponents", "random", "--out-dir", str(out),
                           "--no-progress", "--no-tensorboard", "--torch-threads", "1", *extra])


def test_oracle_critic_warmup_keeps_the_policy_and_the_saved_policy_holds_no_critic(tmp_path):
    torch.manual_seed(0)
    net = build_net("basic", hidden=(32, 32))
    init = PolicyAgent(net).save(tmp_path / "init.pt")
    out = tmp_path / "warm"
    _ppo(out, init, "--value-warmup", "2", "--total-timesteps", "64")
    after = load_net(out / "policy.pt").state_dict()
    assert set(after) == set(net.state_dict())  # the policy file holds the actor's network only
    for k, v in net.state_dict().items():  # warm-up moved only the oracle critic, not even net.critic
        assert torch.equal(after[k], v), k
    ckpt = torch.load(out / "checkpoint.pt", weights_only=False)
    assert ckpt["critic"] is not None and ckpt["critic"]["body.0.weight"].shape[1] == net.obs_size + privileged_size(T)

    moved = tmp_path / "moved"
    _ppo(moved, init, "--total-timesteps", "64", "--learning-rate", "1e-2")
    changed = load_net(moved / "policy.pt").state_dict()
    assert any(not torch.equal(changed[k], v) for k, v in net.state_dict().items())
    # and it resumes, critic included
    _ppo(moved, init, "--total-timesteps", "96", "--learning-rate", "1e-2", "--resume")


def test_resuming_a_run_without_an_oracle_critic_with_one_raises(tmp_path):
    torch.manual_seed(0)
    init = PolicyAgent(build_net("basic", hidden=(16,))).save(tmp_path / "init.pt")
    out = tmp_path / "plain"
    train_ppo.main(["--init", str(init), "--num-envs", "2", "--num-steps", "16", "--total-timesteps", "32",
                    "--eval-hands", "0", "--opponents", "random", "--out-dir", str(out), "--no-progress",
                    "--no-tensorboard"])
    with pytest.raises(ValueError, match="no oracle critic"):
        _ppo(out, init, "--total-timesteps", "64", "--resume")


def test_outcome_predictability_scores_a_predictable_flag_high_and_noise_near_zero():
    from research.outcome_predictability import held_out_r2

    rng = np.random.default_rng(0)
    won = (rng.random(4000) < 0.25).astype(np.float32)
    test = rng.random(4000) < 0.25
    told = np.stack([won, rng.random(4000)], axis=1).astype(np.float32)
    assert held_out_r2(told, won, test, epochs=3, seed=0) > 0.9
    assert held_out_r2(rng.random((4000, 2)).astype(np.float32), won, test, epochs=3, seed=0) < 0.05


def test_outcome_predictability_script_prints_its_tables():
    from research.outcome_predictability import main

    text = main(["--tables", "4", "--steps", "120", "--epochs", "1"])
    assert "| observation + privileged (oracle critic) | " in text
    assert "real decisions" in text and "R^2" in text
