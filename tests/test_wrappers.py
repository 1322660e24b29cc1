"""SingleAgentEnv (gymnasium check_env, sb3-contrib MaskablePPO) and the RLlib adapter (a PPO iteration)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from mjenv.wrappers import SingleAgentEnv

import mjenv

#: why the RLlib tests skip without Ray RLlib
RLLIB_MISSING = "Ray RLlib is not in the Quick start's install: pip install -e '.[rllib]' (CI installs it)"


def test_single_agent_env_passes_gymnasium_check_env():
    check_env(SingleAgentEnv(opponents="random", seat=None), skip_render_check=True)


def test_every_step_is_a_real_decision_and_rewards_add_up_to_the_score():
    env = SingleAgentEnv(opponents=["greedy", "random", "greedy"], seat=2)
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        total, done, steps = 0.0, False, 0
        while not done:
            mask = env.action_masks()
            assert mask.sum() > 1 and np.array_equal(mask, info["action_mask"])
            assert env.observation_space.contains(obs)
            obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not truncated
            total += reward
            steps += 1
        assert info["seat"] == 2 and steps > 0
        assert total == info["scores"]  # no shaping: the only reward is the end-of-hand score


def test_learner_sees_the_same_hand_as_the_parallel_env_seat():
    env = SingleAgentEnv(opponents="greedy", seat=0)  # the dealer decides at once: no forced steps first
    obs, _ = env.reset(seed=4)
    par = mjenv.parallel_env()
    # the wrapper seeds the env from its own generator; replay that seed on a plain parallel env
    inner_seed = int(np.random.Generator(np.random.PCG64(4)).integers(2**31 - 1))
    p_obs, _ = par.reset(seed=inner_seed)
    np.testing.assert_array_equal(obs, p_obs["player_0"]["observation"])


def test_scaled_observation_is_each_view_over_its_bound_and_the_default_is_raw():
    """scale_observation=True: the same hand, every view divided by its documented bound (written out here),
    deficiency views capped at 15 first, -1 (not applicable) kept; the default env hands the raw array."""
    from mjenv.observation import ObservationSpec

    spec = ObservationSpec("basic")
    bound = {"hand": 4, "melds": 4, "num_melds": 4, "discards": 27, "knowledge_base": 4, "wall_count": 108,
             "effective_count": 108, "effective_count_after_discard": 108}
    raw_env = SingleAgentEnv(opponents="random", seat=1)
    env = SingleAgentEnv(opponents="random", seat=1, scale_observation=True)
    check_env(env, skip_render_check=True)
    assert env.observation_space.low.min() == -1 and env.observation_space.high.max() == 1
    for seed in range(4):
        raw, _ = raw_env.reset(seed=seed)
        obs, _ = env.reset(seed=seed)
        seen_na = False
        for _ in range(6):
            assert raw.max() > 1  # the default stays the documented raw observation
            assert obs.dtype == np.float32 and env.observation_space.contains(obs)
            for name, x in spec.decode(raw).items():
                got = spec.decode(obs)[name]
                if name.startswith("deficiency"):
                    want = np.where(x < 0, -1.0, np.minimum(x, 15) / 15)
                    seen_na |= bool((x == -1).any())
                else:
                    want = np.where(x < 0, -1.0, x / bound.get(name, 1))
                np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=name)
            action = int(np.flatnonzero(env.action_masks())[0])
            raw, _, done, _, _ = raw_env.step(action)
            obs, _, done2, _, _ = env.step(action)
            assert done == done2
            if done:
                break
        assert seen_na
    with pytest.raises(ValueError, match="scale_observation must be True or False"):
        SingleAgentEnv(scale_observation="yes")


def test_bad_arguments_raise_value_error():
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(seat=4)
    with pytest.raises(ValueError, match="three"):
        SingleAgentEnv(opponents=["greedy", "greedy"])
    with pytest.raises(ValueError, match="unknown agent"):
        SingleAgentEnv(opponents="wizard")
    env = SingleAgentEnv(opponents="random")
    with pytest.raises(ValueError, match="reset"):
        env.action_masks()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action must be"):
        env.step(500)


def test_maskable_ppo_trains_a_few_steps_and_acts_legally():
    sb3_contrib = pytest.importorskip("sb3_contrib")  # in the train extra; CI installs it
    env = SingleAgentEnv(opponents="random", seat=None)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=16, n_epochs=1, seed=0,
                                    policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=32)
    assert model.num_timesteps >= 32
    assert any(not np.allclose(b.numpy(), p.detach().numpy()) for b, p in zip(before, model.policy.parameters()))
    obs, _ = env.reset(seed=1)
    for _ in range(10):
        mask = env.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)]
        obs, _, done, _, _ = env.step(int(action))
        if done:
            obs, _ = env.reset()


def test_rllib_adapter_presents_only_seats_with_a_choice_and_keeps_every_reward():
    from mjenv.wrappers.rllib import RLlibParallelEnv

    from mjenv.env import POTENTIAL_CAP

    env = RLlibParallelEnv(shaping="deficiency", gamma=1.0)
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=3)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    first_deficiency = {a: infos[a]["deficiency"] for a in obs}
    while True:
        assert obs, "some seat always has a choice until the hand ends"
        for a, o in obs.items():
            assert set(o) == {"observations", "action_mask"}
            assert o["observations"].dtype == np.float32 and o["action_mask"].dtype == np.float32
            assert o["action_mask"].sum() > 1
            assert env.observation_space(a).contains(o)
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terms, truncs, infos = env.step(actions)
        for a, r in rewards.items():
            totals[a] += r
            first_deficiency.setdefault(a, infos[a]["deficiency"])
        if terms and all(terms.values()):
            break
        assert not any(terms.values())
    scores = {a: infos[a]["scores"] for a in infos}
    # shaping telescopes to -Phi(s0) (Phi = -deficiency at the seat's first observation) on top of the score
    for a in scores:
        assert totals[a] == pytest.approx(scores[a] + min(first_deficiency[a], POTENTIAL_CAP), abs=1e-9)


def test_rllib_multi_agent_ppo_trains_one_iteration_with_the_masked_module():
    ray = pytest.importorskip("ray", reason=RLLIB_MISSING)
    pytest.importorskip("ray.rllib", reason=RLLIB_MISSING)
    from mjenv.wrappers.rllib import policy_agent_from_module, ppo_config

    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        algo = ppo_config(train_batch_size=64, minibatch_size=32, num_epochs=1, hidden=(32,)).build_algo()
        before = {k: v.clone() for k, v in algo.get_module("shared").net.state_dict().items()}
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 64
        assert np.isfinite(result["learners"]["shared"]["policy_loss"])
        after = algo.get_module("shared").net.state_dict()
        assert any(not np.allclose(before[k].numpy(), after[k].numpy()) for k in before)
        agent = policy_agent_from_module(algo.get_module("shared"))
        obs, _ = mjenv.parallel_env().reset(seed=0)
        for a in obs:
            assert obs[a]["action_mask"][agent.act(obs[a])] == 1
        algo.stop()
    finally:
        ray.shutdown()


@pytest.mark.parametrize("seed, forced_seat", [(622, 0), (1002, 1)])
def test_single_agent_env_plays_a_forced_non_pass_action_instead_of_an_illegal_pass(seed, forced_seat):
    # In these hands (random opponents, the learner picking uniformly with its own seeded generator) a seat
    # has exactly one legal action and it is not PASS (a forced discard): the learner itself at seed 622,
    # an opponent at 1002. Sending PASS there ended the hand with an illegal-action penalty.
    from mjenv.wrappers import SingleAgentEnv

    env = SingleAgentEnv(opponents="random", seat=0)
    forced = []
    step = env.env.step

    def watch(actions):
        for a, o in env._obs.items():
            m = o["action_mask"]
            if m.sum() == 1 and not m[env.pass_action]:
                forced.append(int(a[-1]))
        return step(actions)

    env.env.step = watch
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        _, _, done, _, _ = env.step(int(legal[rng.integers(len(legal))]))
    assert forced_seat in forced  # the hand did reach the forced state
    assert not env.env._table.ended_by_illegal, env.env._table.illegal_seats


@pytest.mark.parametrize("seed", [480, 1219])
def test_rllib_adapter_plays_a_forced_non_pass_action_instead_of_an_illegal_pass(seed):
    # Seeded uniform choices for the deciding seats; in these hands some seat is forced to one non-PASS
    # action while nobody else decides. The adapter used to send PASS for it (an illegal action).
    from mjenv.wrappers.rllib import RLlibParallelEnv

    env = RLlibParallelEnv()
    forced = []
    step = env.env.step

    def watch(actions):
        forced.extend(a for a, o in env._raw.items()
                      if o["action_mask"].sum() == 1 and not o["action_mask"][env.pass_action])
        return step(actions)

    env.env.step = watch
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while env.agents:
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
    assert forced  # the hand did reach the forced state
    assert not env.env._table.ended_by_illegal, env.env._table.illegal_seats


@pytest.mark.parametrize("shaping", [None, "deficiency"])
def test_rllib_adapter_in_the_bloody_battle_terminates_each_winner_once_and_keeps_every_reward(shaping):
    """sichuan: a winner leaves mid-hand and the others play on. Each seat gets terminated = True
    exactly once (when it leaves, or at the end), never an observation after it, and its rewards add
    up to the base env's (unshaped) plus, with shaping and gamma = 1, -Phi of its first observation."""
    from mjenv.wrappers.rllib import RLlibParallelEnv

    from mjenv.env import POTENTIAL_CAP
    from mjenv.game.actions import ActionLayout
    from mjenv.rules import get_rules

    env = RLlibParallelEnv(rules="sichuan", shaping=shaping, gamma=1.0)
    assert env.pass_action == ActionLayout.for_rules(get_rules("sichuan")).pass_ != env.action_space("player_0").n - 1
    rng = np.random.default_rng(5)
    left_mid_hand = 0
    for hand in range(25):
        obs, infos = env.reset(seed=700 + hand)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        first = {a: infos[a]["deficiency"] for a in obs}
        terminated: set[str] = set()
        base = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()
                       if a not in terminated and o["action_mask"].sum() > 1}
            obs, rewards, terms, _, infos = env.step(actions)
            assert not (set(obs) & terminated), "an observation after the seat was terminated"
            for a, r in rewards.items():
                totals[a] += r
                first.setdefault(a, infos[a]["deficiency"])
            for a, t in terms.items():
                if t:
                    assert a not in terminated
                    terminated.add(a)
                    base[a] = float(infos[a]["scores"])
            if not env.agents:
                break
            left_mid_hand += sum(terms.values())
        assert terminated == set(first)  # every seat that was ever observed ends exactly once
        for a in terminated:
            extra = 0.0 if shaping is None else min(first[a], POTENTIAL_CAP)
            assert totals[a] == pytest.approx(base[a] + extra, abs=1e-9), (hand, a)
    assert left_mid_hand > 0  # some winners really left while the others played on


def test_single_agent_env_plays_riichi_with_its_own_opponents_shaping_and_scaling():
    """A room with its own engine: gymnasium's check_env (the scaled observation in [-1, 1] too), the room's own
    agents as opponents, its env's keywords passed on, every step a real decision, and the rewards of a one-hand
    game adding up to the learner's final score change (with deficiency shaping and gamma = 1, plus -Phi of its
    first decision: min(deficiency, 15))."""
    from mjenv.env import POTENTIAL_CAP

    check_env(SingleAgentEnv(rules="riichi", episode="hand", opponents="random", seat=None), skip_render_check=True)
    check_env(SingleAgentEnv(rules="riichi", episode="hand", scale_observation=True), skip_render_check=True)
    env = SingleAgentEnv(rules="riichi", episode="hand", opponents=["greedy", "random", "greedy"], seat=1,
                         shaping="deficiency", gamma=1.0)
    assert type(env.opponents[0]).__name__ == "RiichiGreedyAgent" and env.pass_action == 84
    rng = np.random.default_rng(1)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        first = min(info["deficiency"], POTENTIAL_CAP)
        assert info["potential"] == -first
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            assert mask.sum() > 1 and env.observation_space.contains(obs)
            obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
        final = info["final_scores"][1] if isinstance(info["final_scores"], list) else info["final_scores"]
        assert total == pytest.approx((final - 25000) / 1000 + first, abs=1e-9)
    # a typo: refused, naming this class's keywords and the env's own for these rules (the shared env's are fewer)
    with pytest.raises(ValueError, match="'oponents'; allowed: opponents, .*; and the env's own for these rules: "
                                         "episode, reward, "):
        SingleAgentEnv(rules="riichi", oponents="greedy")
    with pytest.raises(ValueError, match="'episode'; allowed: .*; and the env's own for these rules: log_dir, engine$"):
        SingleAgentEnv(episode="hand")
    assert SingleAgentEnv(engine="python").env.engine == "python"  # the shared env's own keywords pass on too
    with pytest.raises(ValueError, match="render_seat"):
        SingleAgentEnv(rules="riichi", render_seat=0)


def test_rllib_adapter_plays_riichi_and_keeps_every_reward():
    """The adapter on a room with its own engine: only seats with a choice are presented, and each seat's rewards
    over a one-hand game add up to its final score change plus -Phi of its first observation (gamma = 1)."""
    from mjenv.wrappers.rllib import RLlibParallelEnv

    from mjenv.env import POTENTIAL_CAP

    env = RLlibParallelEnv(rules="riichi", episode="hand", shaping="deficiency", gamma=1.0)
    assert env.pass_action == 84
    for seed in (3, 8):
        obs, infos = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        first = {a: infos[a]["deficiency"] for a in obs}
        while True:
            assert obs and all(o["action_mask"].sum() > 1 for o in obs.values())
            obs, rewards, terms, _, infos = env.step(
                {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
            for a, r in rewards.items():
                totals[a] += r
                first.setdefault(a, infos[a]["deficiency"])
            if terms and all(terms.values()):
                break
        for s, a in enumerate(env.possible_agents):
            final = infos[a]["final_scores"][s]
            assert totals[a] == pytest.approx((final - 25000) / 1000 + min(first[a], POTENTIAL_CAP), abs=1e-9)


@pytest.mark.parametrize(("rules", "says"), [("riichi", "own engine.*ppo_config's policy module .* plays basic"),
                                             ("nonsense", "unknown rules 'nonsense'")])
def test_rllib_ppo_config_refuses_rules_its_policy_module_cannot_read(rules, says):
    """Before Ray is imported (Ray RLlib need not be installed): the shared policy network reads the shared rule
    sets' observations only."""
    from mjenv.wrappers.rllib import ppo_config

    with pytest.raises(ValueError, match=says):
        ppo_config(rules=rules)
