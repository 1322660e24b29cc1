"""``PolicyNet`` reads the per-action views instead of recomputing them, and the shipped weights (made on
the layout without them) act exactly as before on the current observation."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mjenv.baselines.policy import PolicyNet, build_net, load_pretrained, pretrained_path  # noqa: E402

import mjenv  # noqa: E402
from mjenv.observation import ObservationSpec  # noqa: E402

NEW_VIEWS = ("effective_count_after_discard", "deficiency_after_kong")


def _observations(rules: str, steps: int = 200, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of every live seat along seeded random play (float32[N, size], int8[N, A])."""
    env = mjenv.parallel_env(rules=rules)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    xs, ms = [], []
    for i in range(steps):
        if not env.agents:
            obs, _ = env.reset(seed=seed + i)
        for a in env.agents:
            xs.append(obs[a]["observation"])
            ms.append(obs[a]["action_mask"])
        obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
    return np.array(xs), np.array(ms)


def _without_new_views(spec: ObservationSpec, x: np.ndarray) -> np.ndarray:
    """The observations in the layout before the per-action views (those slices removed)."""
    keep = np.concatenate([np.arange(sl.start, sl.stop) for k, sl in spec.slices.items() if k not in NEW_VIEWS])
    return x[:, keep]


def test_the_shipped_policy_acts_as_before_on_the_new_layout():
    ckpt = torch.load(pretrained_path(), weights_only=True)
    cfg = ckpt["config"]
    assert not set(NEW_VIEWS) & set(cfg["views"])  # made before the views existed
    before = PolicyNet(cfg["views"], cfg["num_tile_types"], cfg["hidden"], cfg["discard_effective"])
    before.load_state_dict(ckpt["state_dict"])  # the old layout: recomputes the facts with numpy
    before.eval()
    agent = load_pretrained()
    spec = ObservationSpec("basic")
    assert agent.net.obs_size == spec.size and agent.net.observation_views == spec.views
    x, m = _observations("basic")
    assert (x[:, spec.slices["effective_count_after_discard"]] >= 0).any(axis=1).sum() > 50  # discard turns
    with torch.no_grad():
        new_logits, new_values = agent.net(torch.as_tensor(x), torch.as_tensor(m))
        old_logits, old_values = before(torch.as_tensor(_without_new_views(spec, x)), torch.as_tensor(m))
    torch.testing.assert_close(torch.softmax(new_logits, 1), torch.softmax(old_logits, 1), atol=1e-6, rtol=0)
    torch.testing.assert_close(new_values, old_values, atol=1e-5, rtol=1e-6)
    env = mjenv.parallel_env()
    obs, _ = env.reset(seed=9)
    for a in obs:  # the agent takes the env's observation as it is
        assert obs[a]["action_mask"][agent.act(obs[a])] == 1


@pytest.mark.parametrize("rules", ["basic", "honours", "taiwan16"])
def test_aux_read_from_the_views_equals_the_recomputation(rules):
    net = build_net(rules, hidden=(16,))
    assert set(NEW_VIEWS) <= set(net.views)
    x, _ = _observations(rules, steps=150)
    read = net.aux(x)
    assert (read[:, : net.num_tile_types] >= 0).any(axis=1).sum() > 30
    assert torch.equal(read, net._aux_from_core(x))


def test_a_layout_without_the_network_views_is_refused():
    net = build_net("basic", hidden=(16,))
    with pytest.raises(ValueError, match="lacks the network's views"):
        net.bind_observation({k: v for k, v in net.views.items() if k != "hand"})
    with pytest.raises(ValueError, match="lacks the network's views"):
        net.bind_observation(ObservationSpec("honours").views)


def _threads_seen(agent) -> list[int]:
    """Make ``agent.net`` record torch's thread count at each forward; returns the record."""
    seen: list[int] = []
    forward = agent.net.forward

    def spy(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return forward(*args, **kwargs)

    agent.net.forward = spy
    return seen


@pytest.mark.parametrize("threads", [1, 3])
def test_a_policy_agent_sets_torch_threads_for_its_decision_and_puts_them_back(threads):
    from mjenv.baselines.policy import PolicyAgent

    agent = PolicyAgent(build_net("basic", hidden=(16,)), threads=threads)
    seen = _threads_seen(agent)
    env = mjenv.parallel_env()
    obs, _ = env.reset(seed=1)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        agent.act(obs["player_0"])
        assert seen == [threads] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
    with pytest.raises(ValueError, match="threads must be"):
        PolicyAgent(agent.net, threads=0)


def test_eval_workers_and_policy_specs_get_one_thread_by_default(tmp_path):
    import importlib

    from mjenv.baselines import registry

    ev = importlib.import_module("mjenv.baselines.evaluate")  # the package exports the function evaluate
    from mjenv.baselines.policy import PolicyAgent

    path = PolicyAgent(build_net("basic", hidden=(16,))).save(tmp_path / "p.pt")
    assert registry.agent_threads() == 1 and registry.make_agent(f"policy:{path}").threads == 1
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        ev._worker_init(["greedy"] * 4, ["greedy"] * 4, 0, "basic", 1)  # what each pool worker runs first
        assert torch.get_num_threads() == 1 and registry.make_agent(f"policy:{path}").threads == 1
        ev._worker_init(["greedy"] * 4, ["greedy"] * 4, 0, "basic", 2)
        assert torch.get_num_threads() == 2 and registry.make_agent(f"policy:{path}").threads == 2
    finally:
        registry.set_agent_threads(1)
        torch.set_num_threads(before)
    # in-process evaluation: the policies built from specs decide with the threads asked for
    built = []
    registry.register_agent("spy_threads", lambda arg, seed, rules: built.append(registry.agent_threads())
                            or registry.make_agent("greedy", seed, rules), replace=True)
    try:
        ev.evaluate(["spy_threads", "greedy"], 1, threads=3, progress=False)
    finally:
        registry._FACTORIES.pop("spy_threads")
        registry._HELP.pop("spy_threads")
    played = built[2:]  # after the two spec checks evaluate() makes before it plays
    assert played and set(played) == {3} and registry.agent_threads() == 1
    with pytest.raises(ValueError, match="threads must be"):
        ev.evaluate(["greedy", "greedy"], 1, threads=0, progress=False)
