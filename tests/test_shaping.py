"""Potential-based shaping telescopes in each learner's own decision process, through every integration.

For a learner with discount gamma that sees states s_0, s_1, ... s_T (s_T the end of the hand, Phi = 0)
and gets rewards r_t = F_t (+ the score on the last one), potential-based shaping means
``sum_t gamma^t F_t = -Phi(s_0)`` on every hand. The potentials are computed here from the env's
``infos["deficiency"]`` (and the observation's ``effective_count`` view), not by the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.random_agent import RandomAgent
from mjenv.wrappers import SingleAgentEnv

import mjenv
from mjenv.env import POTENTIAL_CAP
from mjenv.observation import ObservationSpec
from mjenv.shaping import Potential

GAMMAS = (0.9, 0.99, 1.0)
SPEC = ObservationSpec("basic")


def phi_of(deficiency: float, observation: np.ndarray | None = None, shaping: str = "deficiency") -> float:
    """The potential, written out independently of mjenv.shaping."""
    phi = -float(min(deficiency, POTENTIAL_CAP))
    if shaping == "deficiency_tiles":
        phi += float(SPEC.decode(observation)["effective_count"][0]) / (4 * SPEC.num_tile_types)
    return phi


def discounted(rewards: list[float], gamma: float) -> float:
    return float(sum(gamma**t * r for t, r in enumerate(rewards)))


def play_single(shaping, gamma, opponents, seed, **kwargs):
    """One hand of SingleAgentEnv with seeded random learner actions: (rewards, Phi(s_0), score)."""
    env = SingleAgentEnv(opponents=opponents, seat=None, shaping=shaping, gamma=gamma, **kwargs)
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    phi0 = phi_of(info["deficiency"], obs, shaping or "deficiency")
    rewards, done = [], False
    while not done:
        obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        rewards.append(r)
    return rewards, phi0, float(info["scores"])


@pytest.mark.parametrize("gamma", GAMMAS)
@pytest.mark.parametrize("opponents", ["random", "greedy"])
def test_single_agent_env_shaping_telescopes_with_the_learners_gamma(gamma, opponents):
    for seed in range(3):
        rewards, phi0, score = play_single("deficiency", gamma, opponents, seed)
        assert len(rewards) > 1
        # the score comes with the last decision's reward, discounted like it
        assert discounted(rewards, gamma) - gamma ** (len(rewards) - 1) * score == pytest.approx(-phi0, abs=1e-9)


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_single_agent_env_tiles_variant_telescopes(gamma):
    rewards, phi0, score = play_single("deficiency_tiles", gamma, "greedy", 5)
    assert phi0 != round(phi0)  # the tile term is there
    assert discounted(rewards, gamma) - gamma ** (len(rewards) - 1) * score == pytest.approx(-phi0, abs=1e-9)


@pytest.mark.parametrize("gamma", [0.9, 0.99])
@pytest.mark.parametrize("shaping", ["deficiency", "deficiency_tiles"])
def test_single_agent_env_scaled_shaping_telescopes_to_minus_c_phi0(gamma, shaping):
    """shaping_scale=c multiplies the potential: the discounted sum is -c * Phi(s_0), also with the scaled
    observation (Phi_0 from info's deficiency; the tile term's count is the scaled view times 4 * 27)."""
    c = 1 / 15
    for seed in (3, 4):
        env = SingleAgentEnv(opponents="random", seat=None, shaping=shaping, gamma=gamma, shaping_scale=c,
                             scale_observation=True)
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        raw = obs.copy()
        raw[SPEC.slices["effective_count"]] *= 4 * SPEC.num_tile_types  # the only view phi_of reads
        phi0 = phi_of(info["deficiency"], raw, shaping)
        rewards, done = [], False
        while not done:
            _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            rewards.append(r)
        score = float(info["scores"])
        assert len(rewards) > 1 and phi0 < 0
        assert discounted(rewards, gamma) - gamma ** (len(rewards) - 1) * score == pytest.approx(-c * phi0, abs=1e-9)


def test_single_agent_env_shaping_is_exactly_f_between_decisions_and_unshaped_reward_is_the_score():
    gamma = 0.95
    runs = {}
    for shaping in (None, "deficiency"):
        env = SingleAgentEnv(opponents=["greedy", "random", "greedy"], seat=1, shaping=shaping, gamma=gamma)
        rng = np.random.default_rng(7)
        _, info = env.reset(seed=7)
        defs, rewards, done = [info["deficiency"]], [], False
        while not done:
            _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            rewards.append(r)
            defs.append(info["deficiency"])
        runs[shaping] = (rewards, defs, info["scores"])
    plain, defs, score = runs[None]
    assert plain[:-1] == [0.0] * (len(plain) - 1) and plain[-1] == score  # unshaped: the score only
    shaped = runs["deficiency"][0]
    assert len(shaped) == len(plain)  # the same hand, the same decisions
    phis = [phi_of(d) for d in defs[:-1]] + [0.0]  # Phi = 0 at the end of the hand
    for t in range(len(plain)):
        assert shaped[t] - plain[t] == pytest.approx(gamma * phis[t + 1] - phis[t], abs=1e-12)


def adapter_actions(obs: dict, chooser: str, rng: np.random.Generator, agents: dict) -> dict:
    out = {}
    for a, o in obs.items():
        raw = {"observation": o["observations"], "action_mask": o["action_mask"].astype(np.int8)}
        out[a] = agents[a].act(raw) if chooser == "greedy" else int(rng.choice(np.flatnonzero(o["action_mask"])))
    return out


@pytest.mark.parametrize("gamma", GAMMAS)
@pytest.mark.parametrize("chooser", ["random", "greedy"])
def test_rllib_adapter_shaping_telescopes_per_seat_with_the_learners_gamma(gamma, chooser):
    from mjenv.wrappers.rllib import RLlibParallelEnv  # the adapter alone: no Ray needed

    env = RLlibParallelEnv(shaping="deficiency", gamma=gamma)
    agents = {a: GreedyAgent() for a in env.possible_agents}
    for seed in range(2):
        rng = np.random.default_rng(seed)
        obs, infos = env.reset(seed=seed)
        phi0 = {a: phi_of(infos[a]["deficiency"]) for a in obs}
        rewards: dict[str, list[float]] = {a: [] for a in env.possible_agents}
        while True:
            obs, rew, terms, _, infos = env.step(adapter_actions(obs, chooser, rng, agents))
            for a, r in rew.items():
                if a in phi0:
                    rewards[a].append(r)  # RLlib credits it to a's previous action
                else:
                    assert r == 0.0  # a's first observation: nothing to credit yet
                    phi0[a] = phi_of(infos[a]["deficiency"])
            if terms and all(terms.values()):
                break
        assert set(phi0) == set(infos)
        for a in phi0:
            r, score = rewards[a], infos[a]["scores"]
            assert discounted(r, gamma) - gamma ** (len(r) - 1) * score == pytest.approx(-phi0[a], abs=1e-9)


def test_rllib_adapter_unshaped_rewards_are_the_scores():
    from mjenv.wrappers.rllib import RLlibParallelEnv

    env = RLlibParallelEnv()
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    totals: dict[str, float] = {}
    while True:
        obs, rew, terms, _, infos = env.step(adapter_actions(obs, "random", rng, {}))
        for a, r in rew.items():
            totals[a] = totals.get(a, 0.0) + r
        if terms and all(terms.values()):
            break
    assert totals == {a: float(infos[a]["scores"]) for a in infos}


def seat_actions(obs: np.ndarray, masks: np.ndarray, agents: list, rng: np.random.Generator) -> list[int]:
    """Seats 0 and 2 greedy, 1 and 3 random (legal), PASS-only seats pass."""
    out = []
    for s in range(4):
        legal = np.flatnonzero(masks[s])
        if len(legal) == 1:
            out.append(int(legal[0]))
        elif s % 2 == 0:
            out.append(agents[s].act({"observation": obs[s], "action_mask": masks[s]}))
        else:
            out.append(int(rng.choice(legal)))
    return out


@pytest.mark.parametrize("gamma", GAMMAS)
def test_parallel_env_shaping_telescopes_per_env_step_with_its_gamma(gamma):
    env = mjenv.parallel_env(shaping="deficiency", gamma=gamma)
    agents = [GreedyAgent(), RandomAgent(seed=1), GreedyAgent(), RandomAgent(seed=3)]
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=11)
    phi0 = [phi_of(infos[a]["deficiency"]) for a in env.possible_agents]
    rewards: list[list[float]] = [[] for _ in range(4)]
    while env.agents:
        names = env.possible_agents
        acts = seat_actions([obs[a]["observation"] for a in names], [obs[a]["action_mask"] for a in names], agents, rng)
        obs, rew, _, _, infos = env.step(dict(zip(names, acts)))
        for s, a in enumerate(names):
            rewards[s].append(rew[a])
    for s, a in enumerate(env.possible_agents):
        r = rewards[s]
        assert discounted(r, gamma) - gamma ** (len(r) - 1) * infos[a]["scores"] == pytest.approx(-phi0[s], abs=1e-9)


@pytest.mark.parametrize("gamma", [0.9, 0.999])
def test_vector_env_shaping_telescopes_per_env_step_and_matches_the_observation_potential(gamma):
    venv = mjenv.vector_env(2, shaping="deficiency", gamma=gamma)
    phi = Potential("deficiency")
    agents = [GreedyAgent(), RandomAgent(seed=1), GreedyAgent(), RandomAgent(seed=3)]
    rng = np.random.default_rng(0)
    obs, infos = venv.reset(seed=20)
    phi0 = infos["potential"].astype(np.float64).copy()
    rewards: list[list[np.ndarray]] = [[], []]
    open_tables = {0, 1}
    while open_tables:
        # the observation's potential (what the wrappers and train_ppo use) is the env's
        np.testing.assert_allclose(phi(obs["observation"]), infos["potential"], atol=1e-6)
        acts = np.array([seat_actions(obs["observation"][i], obs["action_mask"][i], agents, rng) for i in range(2)])
        obs, rew, terms, _, infos = venv.step(acts)
        for i in sorted(open_tables):
            rewards[i].append(rew[i].astype(np.float64))
            if terms[i]:
                r = np.array(rewards[i])
                disc = (gamma ** np.arange(len(r)))[:, None] * r
                score = np.asarray(infos["final_info"]["scores"][i], dtype=np.float64)
                # float32 rewards: a looser tolerance
                np.testing.assert_allclose(disc.sum(axis=0) - gamma ** (len(r) - 1) * score, -phi0[i], atol=1e-3)
                open_tables.discard(i)


def test_bad_shaping_arguments_raise_value_error():
    from mjenv.wrappers.rllib import RLlibParallelEnv

    with pytest.raises(ValueError, match="shaping must be one of"):
        SingleAgentEnv(shaping="shanten")
    with pytest.raises(ValueError, match="gamma"):
        SingleAgentEnv(shaping="deficiency", gamma=0.0)
    with pytest.raises(ValueError, match="gamma"):
        RLlibParallelEnv(shaping="deficiency", gamma=1.5)
    with pytest.raises(ValueError, match="shaping must be one of"):
        Potential("shanten")
    for bad in (0.0, -1.0, float("nan"), "1", True):
        with pytest.raises(ValueError, match="shaping_scale must be a positive finite number"):
            SingleAgentEnv(shaping="deficiency", gamma=0.99, shaping_scale=bad)


def test_potential_of_a_rooms_own_spec_is_the_envs_potential():
    """Potential(spec=env.spec) reads a room's own observation (its deficiency and effective-count views): the
    env's infos["potential"] every step; a spec without those views is refused."""
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    deficiency, tiles = Potential("deficiency", spec=env.spec), Potential("deficiency_tiles", spec=env.spec)
    obs, infos = env.reset(seed=4)
    rng = np.random.default_rng(4)
    count = env.spec.slices["effective_count"].start
    while env.agents:
        for a in env.agents:
            assert deficiency(obs[a]["observation"]) == infos[a]["potential"]
            want = infos[a]["potential"] + obs[a]["observation"][count] / (4 * 34)
            assert tiles(obs[a]["observation"]) == pytest.approx(want)
        obs, _, _, _, infos = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                                        for a in env.agents if infos[a]["needs_action"]})
    with pytest.raises(ValueError, match="'deficiency' and 'effective_count' views"):
        Potential("deficiency", spec=object())


def test_shaping_reward_scale_smoke():
    """The diagnosis script plays the same hands with and without shaping; unshaped mid-hand rewards are 0."""
    from research.shaping_reward_scale import main

    out = main(["--hands", "3"])
    assert out["None"]["decisions"] == out["deficiency"]["decisions"]
    assert out["None"]["mid_sd"] == 0.0 and out["None"]["mid_absmax"] == 0.0
    assert out["deficiency"]["mid_absmax"] > 0.0


# --- seats that leave mid-hand (the sichuan preset's bloody battle): Phi = 0 from the step a seat leaves,
# so the identity holds for every seat, the leavers included, on every shell. Each hand is played twice
# with the same actions, unshaped and shaped: the reward difference at each of a seat's steps is its F.

SICHUAN_SEEDS = (0, 1, 2)  # seed 0: a seat wins on a discard and leaves while play goes on
SICHUAN_GREEDY = GreedyAgent(rules="sichuan")


def win_or_random(mask: np.ndarray, rng: np.random.Generator, observation: np.ndarray) -> int:
    """The greedy agent's action half of the time (so that seats win and leave mid-hand), else a
    random legal action."""
    if rng.random() < 0.5:
        return SICHUAN_GREEDY.act({"observation": observation, "action_mask": mask})
    return int(rng.choice(np.flatnonzero(mask)))


def _sichuan_parallel_rewards(shaping, gamma, seed):
    """Per agent its rewards while it is in the returned dicts, Phi(s_0), and the seats that left mid-hand."""
    env = mjenv.parallel_env(rules="sichuan", shaping=shaping, gamma=gamma)
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    phi0 = {a: phi_of(infos[a]["deficiency"]) for a in env.possible_agents}
    rewards: dict[str, list[float]] = {a: [] for a in env.possible_agents}
    left = set()
    while env.agents:
        live = list(env.agents)
        acts = {a: win_or_random(obs[a]["action_mask"], rng, obs[a]["observation"]) for a in live}
        obs, rew, term, _, infos = env.step(acts)
        for a, r in rew.items():
            rewards[a].append(r)
        left |= {a for a in live if term[a] and env.agents}
    return rewards, phi0, left


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_parallel_env_sichuan_shaping_telescopes_for_every_seat_including_those_that_leave(gamma):
    leavers = 0
    for seed in SICHUAN_SEEDS:
        plain, _, left = _sichuan_parallel_rewards(None, gamma, seed)
        shaped, phi0, _ = _sichuan_parallel_rewards("deficiency", gamma, seed)
        leavers += len(left)
        for a in phi0:
            assert len(shaped[a]) == len(plain[a])
            f = [s - p for s, p in zip(shaped[a], plain[a])]
            assert discounted(f, gamma) == pytest.approx(-phi0[a], abs=1e-9), (seed, a, a in left)
    assert leavers > 0  # the case in question is played


def _sichuan_aec_rewards(shaping, gamma, seed):
    """Per agent its rewards at the steps that moved the table while it was live, and Phi(s_0)."""
    env = mjenv.env(rules="sichuan", shaping=shaping, gamma=gamma)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    game = env.unwrapped.game
    phi0 = {a: phi_of(env.unwrapped.infos[a]["deficiency"]) for a in env.possible_agents}
    rewards: dict[str, list[float]] = {a: [] for a in env.possible_agents}
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        moved = game._num_steps
        env.step(None if term or trunc else win_or_random(obs["action_mask"], rng, obs["observation"]))
        game = env.unwrapped.game
        if game._num_steps != moved:  # a table step: every agent still in rewards got its part of it
            for a, r in env.unwrapped.rewards.items():
                rewards[a].append(r)
    return rewards, phi0


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_aec_env_sichuan_shaping_telescopes_for_every_seat_including_those_that_leave(gamma):
    for seed in (3, 5, 6):  # each has a seat that wins on a discard and leaves while play goes on
        plain, _ = _sichuan_aec_rewards(None, gamma, seed)
        shaped, phi0 = _sichuan_aec_rewards("deficiency", gamma, seed)
        for a in phi0:
            f = [s - p for s, p in zip(shaped[a], plain[a])]
            assert len(shaped[a]) == len(plain[a]) and discounted(f, gamma) == pytest.approx(-phi0[a], abs=1e-9)


def _sichuan_vector_rewards(shaping, gamma, seed, n=2):
    """Per table its [steps, 4] rewards of its first hand, Phi(s_0) [n, 4], and the won flags at each step."""
    venv = mjenv.vector_env(n, rules="sichuan", shaping=shaping, gamma=gamma)
    rng = np.random.default_rng(seed)
    obs, infos = venv.reset(seed=seed)
    phi0 = np.array([[phi_of(d) for d in row] for row in infos["deficiency"]])
    rewards: list[list[np.ndarray]] = [[] for _ in range(n)]
    open_tables = set(range(n))
    while open_tables:
        masks = obs["action_mask"]
        acts = np.array([[win_or_random(masks[i, s], rng, obs["observation"][i, s]) for s in range(4)]
                         for i in range(n)])
        obs, rew, terms, _, infos = venv.step(acts)
        for i in sorted(open_tables):
            rewards[i].append(rew[i].astype(np.float64))
            if terms[i]:
                open_tables.discard(i)
    return [np.array(r) for r in rewards], phi0


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_vector_env_sichuan_shaping_telescopes_and_pays_nothing_after_a_seat_leaves(gamma):
    for seed in SICHUAN_SEEDS:
        plain, _ = _sichuan_vector_rewards(None, gamma, seed)
        shaped, phi0 = _sichuan_vector_rewards("deficiency", gamma, seed)
        for i in range(len(plain)):
            f = shaped[i] - plain[i]
            disc = (gamma ** np.arange(len(f)))[:, None] * f
            np.testing.assert_allclose(disc.sum(axis=0), -phi0[i], atol=1e-3)  # float32 rewards


def test_vector_env_sichuan_pays_no_shaping_to_a_seat_after_it_left():
    venv = mjenv.vector_env(1, rules="sichuan", shaping="deficiency", gamma=0.9)
    rng = np.random.default_rng(0)
    obs, infos = venv.reset(seed=0)
    paid_after_leaving = 0
    gone = np.zeros(4, dtype=bool)
    while True:
        masks = obs["action_mask"][0]
        acts = np.array([[win_or_random(masks[s], rng, obs["observation"][0, s]) for s in range(4)]])
        obs, rew, terms, _, infos = venv.step(acts)
        if terms[0]:
            break
        paid_after_leaving += int((rew[0][gone] != 0).sum())
        gone = venv._tables.won[0].copy()
        assert (infos["potential"][0][gone] == 0).all()
    assert gone.any()  # someone left before the end
    assert paid_after_leaving == 0


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_single_agent_env_sichuan_shaping_telescopes_for_the_learner_also_when_it_leaves(gamma):
    for seed in SICHUAN_SEEDS:
        runs = {}
        for shaping in (None, "deficiency"):
            env = SingleAgentEnv(rules="sichuan", opponents="random", seat=None, shaping=shaping, gamma=gamma)
            rng = np.random.default_rng(seed)
            obs, info = env.reset(seed=seed)
            phi0, rewards, done = phi_of(info["deficiency"]), [], False
            while not done:
                obs, r, done, _, info = env.step(win_or_random(env.action_masks(), rng, obs))
                rewards.append(r)
            runs[shaping] = rewards
        f = [s - p for s, p in zip(runs["deficiency"], runs[None])]
        assert len(runs[None]) == len(runs["deficiency"])
        assert discounted(f, gamma) == pytest.approx(-phi0, abs=1e-9)


@pytest.mark.parametrize("gamma", [0.9, 1.0])
def test_rllib_adapter_sichuan_shaping_telescopes_for_every_seat_including_those_that_leave(gamma):
    from mjenv.wrappers.rllib import RLlibParallelEnv

    for seed in SICHUAN_SEEDS:
        runs = {}
        for shaping in (None, "deficiency"):
            env = RLlibParallelEnv(rules="sichuan", shaping=shaping, gamma=gamma)
            rng = np.random.default_rng(seed)
            obs, infos = env.reset(seed=seed)
            phi0 = {a: phi_of(infos[a]["deficiency"]) for a in obs}
            rewards: dict[str, list[float]] = {a: [] for a in env.possible_agents}
            while True:
                obs, rew, terms, _, infos = env.step(
                    {a: win_or_random(o["action_mask"].astype(np.int8), rng, o["observations"]) for a, o in obs.items()}
                )
                for a, r in rew.items():
                    if a in phi0:
                        rewards[a].append(r)
                    else:
                        phi0[a] = phi_of(infos[a]["deficiency"])
                if not env.agents:
                    break
            runs[shaping] = (rewards, phi0)
        (plain, _), (shaped, phi0) = runs[None], runs["deficiency"]
        assert set(phi0) == set(mjenv.AGENTS)
        for a in phi0:
            f = [s - p for s, p in zip(shaped[a], plain[a])]
            assert len(shaped[a]) == len(plain[a]) and discounted(f, gamma) == pytest.approx(-phi0[a], abs=1e-9)
