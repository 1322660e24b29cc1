"""Rollout policy improvement (research.training.train_rollout): worlds, duplicate rollouts, targets, distillation."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from mjenv.baselines.policy import build_net  # noqa: E402

from mjenv.game import Game  # noqa: E402
from mjenv.game.actions import Phase  # noqa: E402
from mjenv.observation import ObservationSpec  # noqa: E402
from research.training.train_rollout import (  # noqa: E402
    RolloutEngine,
    Root,
    chunk_targets,
    distill,
    evaluate_roots,
    improved_target,
    screen,
)


@pytest.fixture(scope="module")
def engine():
    torch.manual_seed(0)
    net = build_net("basic")
    net.eval()
    return RolloutEngine(net, "basic")


def play_to(phase: Phase, seed: int, skip: int) -> Game:
    """A game (first legal action everywhere, so claims happen) advanced to its ``skip``-th state of ``phase``."""
    g = Game("basic", seed=seed)
    seen = 0
    while not g.is_over:
        if g.phase == phase and g.acting_seats():
            if seen == skip:
                return g
            seen += 1
        g.step({s: int(np.flatnonzero(g._masks[s])[-1 if g.phase == Phase.CLAIM else 0]) for s in g.acting_seats()})
    raise AssertionError("the hand ended first")


@pytest.mark.parametrize("phase", [Phase.DISCARD, Phase.CLAIM])
def test_redeal_unseen_keeps_the_seats_observation_and_the_tile_counts_and_deals_the_rest_anew(phase):
    spec = ObservationSpec("basic")
    g = play_to(phase, seed=3, skip=6)
    seat = g.acting_seats()[0]
    before_obs = spec.encode(g, seat)
    before_tiles, before_wall = g.tile_counts.copy(), np.array(g.wall)
    head, tail = g.wall_head, g.wall_tail
    others = [s for s in range(4) if s != seat]
    unseen = before_tiles[others].sum(axis=0) + np.bincount(before_wall[head:tail], minlength=27)
    moved = False
    for k in range(5):
        w = g.redeal_unseen(seat, np.random.default_rng(k))
        np.testing.assert_array_equal(spec.encode(w, seat), before_obs)
        np.testing.assert_array_equal(w.legal_action_mask(seat), g.legal_action_mask(seat))
        np.testing.assert_array_equal(w.tile_counts[4:], before_tiles[4:])  # melds and public counts
        np.testing.assert_array_equal(w.tile_counts[seat], before_tiles[seat])
        np.testing.assert_array_equal(w.tile_counts[others].sum(axis=1), before_tiles[others].sum(axis=1))
        got = w.tile_counts[others].sum(axis=0) + np.bincount(np.array(w.wall)[head:tail], minlength=27)
        np.testing.assert_array_equal(got, unseen)
        np.testing.assert_array_equal(np.array(w.wall)[:head], before_wall[:head])
        assert (w.wall_head, w.wall_tail, w.phase) == (head, tail, g.phase)
        moved |= not np.array_equal(w.tile_counts[others], before_tiles[others])
        if phase == Phase.CLAIM:  # every seat's claim row fits its own (new) hand
            fresh = w.clone()
            fresh._claim_masks(w.last_discarder, w.last_discard)
            np.testing.assert_array_equal(w.legal_action_masks(), fresh.legal_action_masks())
    assert moved
    np.testing.assert_array_equal(g.tile_counts, before_tiles)  # the original is untouched
    np.testing.assert_array_equal(np.array(g.wall), before_wall)


def test_redeal_unseen_rejects_a_bad_seat_and_an_ended_hand():
    g = Game("basic", seed=1)
    with pytest.raises(ValueError, match="seat"):
        g.redeal_unseen(4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat"):
        g.redeal_unseen(True, np.random.default_rng(0))
    with pytest.raises(ValueError, match="flowers"):
        Game("taiwan16", seed=1).redeal_unseen(0, np.random.default_rng(0))
    while not g.is_over:
        g.step({s: int(np.flatnonzero(g._masks[s])[0]) for s in g.acting_seats()})
    with pytest.raises(ValueError, match="phase"):
        g.redeal_unseen(0, np.random.default_rng(0))


def test_play_out_replays_the_reference_engine_with_the_same_argmax_policy(engine):
    games = [Game("basic", seed=s) for s in range(4)]
    won, scores = engine.play_out([g.clone() for g in games], np.full((4, 4), -1))
    spec = engine.spec
    for i, g in enumerate(games):
        while not g.is_over:
            obs, _ = spec.observe(g)
            acts = {}
            for s in g.acting_seats():
                legal = g._masks[s]
                pick = engine.choose(obs[s][None], legal[None])[0][0] if legal.sum() > 1 else legal.argmax()
                acts[s] = int(pick)
            g.step(acts)
        np.testing.assert_array_equal(scores[i], g.scores)
        np.testing.assert_array_equal(won[i], g.won)


def test_duplicate_rollouts_share_the_future_one_candidate_twice_gives_equal_returns(engine):
    g = play_to(Phase.DISCARD, seed=5, skip=8)
    seat = g.current_player
    legal = np.flatnonzero(g._masks[seat])
    a, b = int(legal[0]), int(legal[-1])
    root = Root(g, seat, None, g._masks[seat].copy(), [a, a, b], a)
    (returns,) = evaluate_roots(engine, [root], 6, np.random.default_rng(1))
    assert returns.shape == (6, 3)
    np.testing.assert_array_equal(returns[:, 0], returns[:, 1])  # same world, same action: the same hand
    assert len(set(returns[:, 0].tolist())) > 1 or len(set(returns[:, 2].tolist())) > 1  # the worlds differ


def test_improved_target_changes_only_on_a_clear_paired_gain():
    root = Root(None, 0, None, None, [4, 7, 9], 4)
    flat = np.zeros((8, 3))
    assert improved_target(root, flat, 0.25, 2.0) == 4
    clear = flat.copy()
    clear[:, 1] = [3, 3, 0, 3, 3, 0, 3, 3]  # candidate 7 wins 6 of 8 worlds the policy's choice draws
    assert improved_target(root, clear, 0.25, 2.0) == 7
    noisy = flat.copy()
    noisy[:, 2] = [3, -3, 3, -3, 3, -3, 3, 0]  # a mean gain of 0.375 with a large spread: not clear
    assert improved_target(root, noisy, 0.25, 2.0) == 4
    small = flat.copy()
    small[:, 2] = 0.1  # certain but below the margin
    assert improved_target(root, small, 0.25, 2.0) == 4


def test_distill_moves_the_policy_toward_the_targets_and_the_kl_term_holds_it(engine):
    g = play_to(Phase.DISCARD, seed=2, skip=3)
    spec = engine.spec
    obs = np.repeat(spec.encode(g, g.current_player)[None], 16, axis=0)
    masks = np.repeat(g._masks[g.current_player][None], 16, axis=0)
    torch.manual_seed(0)
    net, anchor = build_net("basic"), build_net("basic")
    anchor.load_state_dict(net.state_dict())
    with torch.no_grad():
        p0 = torch.softmax(net(torch.from_numpy(obs[:1]), torch.from_numpy(masks[:1]))[0], dim=1)[0]
    target = int(np.flatnonzero(masks[0])[np.argmin(p0.numpy()[masks[0] > 0])])  # the least likely legal action
    targets = np.full(16, target, dtype=np.int64)
    stats = distill(net, anchor, obs, masks, targets, epochs=20, lr=1e-3, kl_coef=0.0, batch_size=8, seed=0)
    with torch.no_grad():
        p1 = torch.softmax(net(torch.from_numpy(obs[:1]), torch.from_numpy(masks[:1]))[0], dim=1)[0]
    assert p1[target] > p0[target] + 0.2 and stats["agree"] == 1.0
    held = build_net("basic")
    held.load_state_dict(anchor.state_dict())
    distill(held, anchor, obs, masks, targets, epochs=20, lr=1e-3, kl_coef=50.0, batch_size=8, seed=0)
    with torch.no_grad():
        p2 = torch.softmax(held(torch.from_numpy(obs[:1]), torch.from_numpy(masks[:1]))[0], dim=1)[0]
    assert p0[target] < p2[target] < p1[target]


def test_screen_sends_only_a_clear_enough_best_to_confirmation_and_targets_read_only_the_fresh_worlds():
    a, b = Root("g1", 0, None, None, [4, 7, 9], 4), Root("g2", 1, None, None, [5, 6], 5)
    qa = np.zeros((8, 3))
    qa[:, 2] = [3, 3, 0, 3, 0, 3, 3, 0]  # candidate 9 clearly ahead of the policy's 4
    qb = np.zeros((8, 2))
    qb[0, 1] = 3  # one world in eight: a gain of exactly one standard error, below the screen's 1.5
    picked = screen([a, b], [qa, qb], 1.5)
    assert [(r.game, r.candidates, r.policy_action) for r in picked] == [("g1", [4, 9], 4)]
    # the screening worlds say 9 for root 0, but its confirmation worlds show no gain: the target stays 4;
    # root 1 was not confirmed (-1 candidates): it keeps the policy's choice whatever its screening worlds say
    chunk = {"policy_actions": np.array([4, 5]), "candidates": np.array([[4, 7, 9], [5, 6, -1]]),
             "returns": np.stack([qa, np.pad(qb, ((0, 0), (0, 1)))]),
             "confirm_candidates": np.array([[4, 9], [-1, -1]]), "confirm_returns": np.zeros((2, 16, 2))}

    class Chunk(dict):
        files = list(chunk)

    np.testing.assert_array_equal(chunk_targets(Chunk(chunk), 0.1, 2.0), [4, 5])
    chunk["confirm_returns"][0, :, 1] = np.tile([3, 0, 3, 3], 4)
    np.testing.assert_array_equal(chunk_targets(Chunk(chunk), 0.1, 2.0), [9, 5])


def test_distill_changed_weight_lets_a_few_changed_targets_outvote_the_unchanged_ones(engine):
    g = play_to(Phase.DISCARD, seed=2, skip=3)
    obs = np.repeat(engine.spec.encode(g, g.current_player)[None], 16, axis=0)
    masks = np.repeat(g._masks[g.current_player][None], 16, axis=0)
    torch.manual_seed(1)
    anchor = build_net("basic")
    with torch.no_grad():
        top = int(anchor(torch.from_numpy(obs[:1]), torch.from_numpy(masks[:1]))[0].argmax())
    other = int(next(a for a in np.flatnonzero(masks[0]) if a != top))
    targets = np.array([top] * 12 + [other] * 4, dtype=np.int64)  # the same state: 12 keep, 4 change
    picks = []
    for weight in (1.0, 10.0):
        net = build_net("basic")
        net.load_state_dict(anchor.state_dict())
        stats = distill(net, anchor, obs, masks, targets, epochs=30, lr=1e-3, kl_coef=0.0, batch_size=16, seed=0,
                        changed_weight=weight)
        picks.append(stats["agree_changed"])
    assert picks == [0.0, 1.0]
