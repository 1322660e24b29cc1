"""Tile planes (``observation="planes"``): every entry against the flat views it comes from, on every
preset (the shared engine's and Riichi's own observation); the space, ``decode``, the torch path and the env
option (parallel, AEC and vector)."""

from __future__ import annotations

import numpy as np
import pytest

import mjenv
from mjenv.observation import ObservationSpec
from mjenv.planes import RECENT, PlaneSpec, plane_spec
from mjenv.rulesets import shared_names


def _observations(rules: str, hands: int = 2, seed: int = 0, **kwargs) -> np.ndarray:
    """Flat observations of every seat at every step of a few random hands, float32[N, size]."""
    env = mjenv.parallel_env(rules=rules, **kwargs)
    rng = np.random.default_rng(seed)
    rows = []
    for h in range(hands):
        obs, _ = env.reset(seed=seed + h)
        while env.agents:
            rows += [o["observation"] for o in obs.values()]
            obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()})
    return np.array(rows, np.float32)


def _expected(views: dict[str, np.ndarray], spec) -> dict[str, np.ndarray]:
    """The planes of one observation, entry by entry by loops over its views (the reference)."""
    t = spec.num_tile_types
    kinds = getattr(spec, "plane_kinds", {})
    out = {}
    for name, shape in spec.views.items():
        v = views[name]
        kind = kinds.get(name)
        if kind == "tile_ids":  # each row's tile ids (+ 1) counted
            rows = v.reshape(-1, shape[-1])
            counts = np.zeros((len(rows), t))
            for r, row in enumerate(rows):
                for x in row:
                    if x > 0:
                        counts[r, int(x) - 1] += 1
            out[name] = counts.reshape(*shape[:-1], t)
        elif kind == "per_discard":  # per seat and tile: the largest fact over the seat's discards of the tile
            best = np.zeros((4, t))
            for seat in range(4):
                for x, fact in zip(views["discards"][seat], v[seat]):
                    if x > 0:
                        best[seat, int(x) - 1] = max(best[seat, int(x) - 1], fact)
            out[name] = best
        elif kind == "slot_sums":
            out[name] = sum(v[:, j] for j in range(shape[1]))
        elif name == "discards":
            counts = np.zeros((4, t))
            recent = np.zeros((4, RECENT, t))
            for seat in range(4):
                made = [int(x) - 1 for x in v[seat] if x > 0]
                for tile in made:
                    counts[seat, tile] += 1
                for r, tile in enumerate(reversed(made[-RECENT:])):
                    recent[seat, r, tile] = 1
            out["discard_counts"], out["recent_discards"] = counts, recent
        elif shape[-1] == t:
            out[name] = v
        else:
            out[name] = v  # a scalar per entry: decode reads it back from its constant plane
    return out


def _check_every_entry(spec, planes, flat: np.ndarray, label: str, every: int) -> set[str]:
    """Every ``every``-th row's planes against the reference; the names of the groups seen non-zero."""
    got = planes.planes(flat)
    assert got.shape == (len(flat), *planes.shape) and got.dtype == np.float32
    assert all(planes.space.contains(g) for g in got)
    decoded = planes.decode(got)
    t, seen = spec.num_tile_types, set()
    for i in range(0, len(flat), every):
        want = _expected(spec.decode(flat[i]), spec)
        assert set(want) == set(decoded)
        for name, value in want.items():
            np.testing.assert_array_equal(decoded[name][i], value, err_msg=f"{label} row {i} {name}")
        seen.update(name for name, value in want.items() if np.any(value))
        # the constant planes are constant along the tile axis, and hold the entries in order
        for name, kind in planes.kinds.items():
            if kind in ("scalar", "slot_sums"):
                c0, shape = planes.layout[name]
                block = got[i, c0:c0 + int(np.prod(shape))]
                np.testing.assert_array_equal(block, np.repeat(want[name].reshape(-1, 1), t, 1))
    return seen


@pytest.mark.parametrize("rules", shared_names())  # the rule sets of the shared engine and observation
def test_every_plane_entry_matches_the_flat_views(rules):
    _check_every_entry(ObservationSpec(rules), plane_spec(rules), _observations(rules), rules, 7)


def test_every_riichi_plane_entry_matches_its_flat_views():
    from mjenv.rulesets.riichi.observation import spec as riichi_spec

    planes = plane_spec("riichi")
    assert planes.shape == (164, 34)
    assert {planes.kinds[n] for n in ("meld_kind", "meld_from", "meld_red")} == {"slot_sums"}
    seen = _check_every_entry(riichi_spec(), planes, _observations("riichi", hands=2, seed=3, episode="hand"),
                              "riichi", 3)
    # the random hands reached melds, red fives and the tsumogiri, called and riichi marks
    assert {"meld_tile", "meld_called", "meld_kind", "discard_tsumogiri", "discard_called", "discard_red",
            "dora_indicators", "discard_order"} <= seen, sorted(seen)


def test_plane_kinds_are_checked():
    views = {"hand": (27,), "discards": (4, 8), "marks": (4, 8), "slots": (4, 2, 3)}
    with pytest.raises(ValueError, match="plane kind 'rows' of view 'marks' is not one of"):
        PlaneSpec(views, 27, kinds={"marks": "rows"})
    with pytest.raises(ValueError, match="name the view 'nope'"):
        PlaneSpec(views, 27, kinds={"nope": "tile_ids"})
    with pytest.raises(ValueError, match=r"view 'slots' of shape \(4, 2, 3\) cannot be laid out as 'per_discard'"):
        PlaneSpec(views, 27, kinds={"slots": "per_discard"})
    p = PlaneSpec(views, 27, kinds={"marks": "per_discard", "slots": "slot_sums"})
    assert p.layout["marks"] == (1 + 4 * (1 + RECENT), (4, 27)) and p.layout["slots"] == (25, (4, 3))
    assert p.shape == (1 + 4 * (1 + RECENT) + 4 + 12, 27)


def test_channel_count_and_layout_of_basic():
    p = plane_spec("basic")
    # hand 1, melds 4, num_melds 4, discards 4 x (1 + RECENT), last_discard 1, last_discarder 4, kb 1, wall 1,
    # dealer 4, phase 4, deficiency 1, after discard 1, effective tiles 1, effective count 1, after claim 5,
    # count after discard 1, after kong 1
    assert p.shape == (1 + 4 + 4 + 4 * (1 + RECENT) + 1 + 4 + 1 + 1 + 4 + 4 + 1 + 1 + 1 + 1 + 5 + 1 + 1, 27)
    assert p.layout["hand"] == (0, (27,)) and p.layout["melds"] == (1, (4, 27))
    assert p.layout["discard_counts"] == (9, (4, 27)) and p.layout["recent_discards"] == (13, (4, RECENT, 27))


@pytest.mark.parametrize("rules", ["taiwan16", "riichi"])
def test_torch_planes_equal_numpy_planes(rules):
    torch = pytest.importorskip("torch")
    p = plane_spec(rules)
    flat = _observations(rules, hands=1, **({"episode": "hand"} if rules == "riichi" else {}))
    np.testing.assert_array_equal(p.planes(torch.as_tensor(flat)).numpy(), p.planes(flat))
    # any leading axes: [N, 4, size] -> [N, 4, C, T]
    n = len(flat) // 4 * 4
    np.testing.assert_array_equal(p.planes(flat[:n].reshape(-1, 4, p.size)),
                                  p.planes(flat[:n]).reshape(-1, 4, *p.shape))


def test_bad_shapes_are_refused_clearly():
    p = plane_spec("basic")
    with pytest.raises(ValueError, match=r"planes need \(565,\) or \(B, 565\)"):
        p.planes(np.zeros(564, np.float32))
    with pytest.raises(ValueError, match=r"this spec needs \(55, 27\)"):
        p.decode(np.zeros((54, 27)))
    with pytest.raises(ValueError, match="needs the view 'discards'"):
        PlaneSpec({"hand": (27,)}, 27)
    with pytest.raises(ValueError, match="without bounds"):
        PlaneSpec(ObservationSpec("basic").views, 27).space  # noqa: B018


@pytest.mark.smoke
@pytest.mark.parametrize("rules", ["basic", "sichuan"])
def test_env_planes_option_parallel_and_aec(rules):
    flat_env, plane_env = mjenv.parallel_env(rules=rules), mjenv.parallel_env(rules=rules, observation="planes")
    p = plane_spec(rules)
    assert plane_env.observation_space("player_0")["observation"].shape == p.shape
    a, _ = flat_env.reset(seed=5)
    b, _ = plane_env.reset(seed=5)
    rng = np.random.default_rng(0)
    while flat_env.agents:
        assert set(a) == set(b)
        for agent in a:
            np.testing.assert_array_equal(b[agent]["observation"], p.planes(a[agent]["observation"]))
            np.testing.assert_array_equal(b[agent]["action_mask"], a[agent]["action_mask"])
            assert plane_env.observation_space(agent).contains(b[agent])
        acts = {x: int(rng.choice(np.flatnonzero(o["action_mask"]))) for x, o in a.items() if x in flat_env.agents}
        a, *_ = flat_env.step(acts)
        b, *_ = plane_env.step(acts)
    aec = mjenv.env(rules=rules, observation="planes")
    aec.reset(seed=5)
    obs = aec.last()[0]
    assert obs["observation"].shape == p.shape
    ref = mjenv.env(rules=rules)
    ref.reset(seed=5)
    np.testing.assert_array_equal(obs["observation"], p.planes(ref.last()[0]["observation"]))


def test_riichi_env_planes_option_parallel_aec_and_vector():
    p = plane_spec("riichi")
    flat_env = mjenv.parallel_env(rules="riichi", episode="hand")
    plane_env = mjenv.parallel_env(rules="riichi", episode="hand", observation="planes")
    assert plane_env.observation_space("player_2")["observation"].shape == p.shape == (164, 34)
    a, _ = flat_env.reset(seed=4)
    b, _ = plane_env.reset(seed=4)
    rng = np.random.default_rng(1)
    while flat_env.agents:
        for agent in a:
            np.testing.assert_array_equal(b[agent]["observation"], p.planes(a[agent]["observation"]))
            np.testing.assert_array_equal(b[agent]["action_mask"], a[agent]["action_mask"])
            assert plane_env.observation_space(agent).contains(b[agent])
        acts = {x: int(rng.choice(np.flatnonzero(o["action_mask"]))) for x, o in a.items()}
        a, *_ = flat_env.step(acts)
        b, *_ = plane_env.step(acts)
    aec, ref = mjenv.env(rules="riichi", observation="planes"), mjenv.env(rules="riichi")
    aec.reset(seed=5)
    ref.reset(seed=5)
    np.testing.assert_array_equal(aec.last()[0]["observation"], p.planes(ref.last()[0]["observation"]))
    venv = mjenv.vector_env(2, rules="riichi", episode="hand", observation="planes")
    flat_venv = mjenv.vector_env(2, rules="riichi", episode="hand")
    obs, _ = venv.reset(seed=0)
    ref_obs, _ = flat_venv.reset(seed=0)
    assert obs["observation"].shape == (2, 4, 164, 34) and venv.observation_space.contains(obs)
    np.testing.assert_array_equal(obs["observation"], p.planes(ref_obs["observation"]))
    with pytest.raises(ValueError, match=r"observation must be one of \('default', 'planes', 'raw'\) for rules="):
        mjenv.parallel_env(rules="riichi", observation="oracle")


@pytest.mark.parametrize("rules", ["basic", "sichuan"])  # the compiled and the Python engine
def test_vector_env_planes_option(rules):
    p = plane_spec(rules)
    venv, flat = mjenv.vector_env(3, rules=rules, observation="planes"), mjenv.vector_env(3, rules=rules)
    assert venv.single_observation_space["observation"].shape == p.shape
    a, _ = venv.reset(seed=2)
    b, _ = flat.reset(seed=2)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        np.testing.assert_array_equal(a["observation"], p.planes(b["observation"]))
        assert venv.observation_space.contains(a)
        acts = np.array([[int(rng.choice(np.flatnonzero(m))) for m in table] for table in b["action_mask"]])
        a, _, done, _, info_a = venv.step(acts)
        b, _, _, _, info_b = flat.step(acts)
        if done.any():
            ended += 1
            np.testing.assert_array_equal(info_a["final_obs"]["observation"],
                                          p.planes(info_b["final_obs"]["observation"]))
    assert ended


def test_unknown_observation_lists_planes():
    with pytest.raises(ValueError, match=r"observation must be one of \('default', 'oracle', 'planes'\)"):
        mjenv.parallel_env(observation="plane")
    with pytest.raises(ValueError, match=r"observation must be one of \('default', 'oracle', 'planes'\)"):
        mjenv.vector_env(2, observation="plane")


def test_cnn_policy_net_reads_the_planes_of_its_flat_input():
    torch = pytest.importorskip("torch")
    from mjenv.baselines.policy import build_net

    net = build_net("honours", hidden=(32,), trunk="cnn")
    flat = torch.as_tensor(_observations("honours", hands=1)[:16])
    x = net.normalise(flat)
    assert x.shape == (16, *plane_spec("honours").shape)
    assert float(x.abs().max()) <= 2.0  # clipped and scaled as the views are
    # a plane that changes in the flat input changes in the CNN's input, and only there
    hand = slice(*ObservationSpec("honours").slices["hand"].indices(10**6)[:2])
    bumped = flat.clone()
    bumped[:, hand.start + 3] += 1
    diff = (net.normalise(bumped) - x).abs().sum(dim=0)
    assert diff[0, 3] > 0 and float(diff.sum()) == pytest.approx(float(diff[0, 3]))
    mask = torch.ones(16, net.num_actions, dtype=torch.bool)
    logits, values = net(flat, mask)
    assert logits.shape == (16, 75) and values.shape == (16,)


def test_cnn_policy_round_trips_through_a_checkpoint(tmp_path):
    torch = pytest.importorskip("torch")
    from mjenv.baselines.policy import build_net, load_net, save_policy

    net = build_net("basic", hidden=(16,), trunk="cnn")
    save_policy(net, tmp_path / "cnn.pt")
    again = load_net(tmp_path / "cnn.pt")
    assert again.trunk_kind == "cnn" and again.config() == net.config()
    flat = torch.as_tensor(_observations("basic", hands=1)[:8])
    mask = torch.ones(8, 61, dtype=torch.bool)
    torch.testing.assert_close(again(flat, mask)[0], net(flat, mask)[0])
    with pytest.raises(ValueError, match=r"trunk must be one of \('mlp', 'cnn'\)"):
        build_net("basic", trunk="resnet")


def _rows(path):
    import csv

    with open(path) as f:
        return list(csv.DictReader(f))


@pytest.mark.smoke
def test_cnn_trains_with_behaviour_cloning(tmp_path):
    pytest.importorskip("torch")
    from mjenv.baselines import train_bc
    from mjenv.baselines.policy import PolicyAgent

    out = tmp_path / "bc"
    # about 2,500 greedy decisions, fitted for 15 epochs
    path = train_bc.main(["--hands", "10", "--num-envs", "5", "--epochs", "15", "--batch-size", "64",
                          "--learning-rate", "3e-3", "--hidden", "64", "--trunk", "cnn", "--val-fraction", "0.2",
                          "--out-dir", str(out), "--no-progress", "--no-tensorboard"])
    rows = _rows(out / "bc_log.csv")
    assert float(rows[-1]["loss"]) < 0.5 * float(rows[0]["loss"])
    assert float(rows[-1]["train_accuracy"]) > 0.8
    assert PolicyAgent.load(path).net.trunk_kind == "cnn"


def test_cnn_trains_with_ppo(tmp_path):
    torch = pytest.importorskip("torch")
    from mjenv.baselines import train_ppo

    out = tmp_path / "ppo"
    train_ppo.main(["--total-timesteps", "2048", "--num-envs", "4", "--num-steps", "128", "--hidden", "32",
                    "--trunk", "cnn", "--eval-hands", "0", "--opponents", "self,random", "--out-dir", str(out),
                    "--no-progress", "--seed", "2", "--checkpoint-every", "4"])
    rows = _rows(out / "ppo_log.csv")
    assert int(rows[-1]["global_step"]) == 2048 and len(rows) == 4
    ckpt = torch.load(out / "checkpoint.pt", weights_only=False)
    conv = [k for k in ckpt["net"] if k.startswith("trunk.0.")]
    assert conv, "the saved network has no convolution"
    fresh = train_ppo.build_net("basic", (32,), trunk="cnn")
    assert ckpt["net"]["trunk.0.weight"].shape == fresh.state_dict()["trunk.0.weight"].shape
    assert all(np.isfinite(float(r["pg_loss"])) and np.isfinite(float(r["v_loss"])) for r in rows)
