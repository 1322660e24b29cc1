"""research/training/danger.py: the features against a by-hand reading of the observation, the labels against
the game, the AUC against its definition, fitting, and checkpoints."""

import numpy as np
import pytest
import torch

from mjenv.game import Game
from mjenv.observation import ObservationSpec, relative_order
from mjenv.rules import get_rules
from research.training.danger import (
    NUM_FEATURES,
    DangerFeatures,
    DangerNet,
    collect,
    fit,
    load_danger,
    roc_auc,
    save_danger,
    wait_labels,
)

RULES = get_rules("basic")
SPEC = ObservationSpec(rules=RULES)
T = 27


def _reference_features(obs: np.ndarray) -> np.ndarray:
    """The features of one observation, read view by view with plain loops."""
    v = {name: obs[sl].reshape(SPEC.views[name]) for name, sl in SPEC.slices.items()}
    out = np.zeros((3, T, NUM_FEATURES), dtype=np.float32)
    for o in range(3):
        seq = [int(x) - 1 for x in v["discards"][o + 1] if x > 0]
        counts = np.bincount(seq, minlength=T).astype(np.float32) if seq else np.zeros(T, np.float32)
        melds = v["melds"][o + 1]
        n_melds = int(round(v["num_melds"][o + 1]))
        for t in range(T):
            f = []
            for d in (-2, -1, 0, 1, 2):
                j = t + d
                f.append(counts[j] / 2 if 0 <= j < T and j // 9 == t // 9 else 0.0)
            for d in (-2, -1, 0, 1, 2):
                j = t + d
                f.append(v["knowledge_base"][j] / 4 if 0 <= j < T and j // 9 == t // 9 else 0.0)
            f.append(1.0 if t in seq[-3:] else 0.0)
            f.append(len(seq) / 20)
            f.append(melds.sum() / 12)
            f += [1.0 if k == n_melds else 0.0 for k in range(5)]
            suit = slice(9 * (t // 9), 9 * (t // 9) + 9)
            f.append(counts[suit].sum() / max(len(seq), 1))
            f.append(melds[suit].sum() / max(melds.sum(), 1))
            f.append(melds[t] / 4)
            f.append(v["wall_count"][0] / 100)
            f += [1.0 if k == t % 9 else 0.0 for k in range(9)]
            out[o, t] = f
    return out


def _observations(n_hands: int = 3, seed: int = 11):
    rng = np.random.default_rng(seed)
    for h in range(n_hands):
        g = Game(rules=RULES, seed=seed + h)
        while not g.is_over:
            for s in range(4):
                yield g, s, SPEC.encode(g, s)
            actions = {}
            for s in g.acting_seats():
                legal = np.flatnonzero(g.legal_action_mask(s))
                # mostly discards and claims, so that discards and melds pile up
                actions[s] = int(legal[0] if len(legal) == 1 else rng.choice(legal))
            g.step(actions)


def test_features_match_a_by_hand_reading_of_the_observation():
    feats = DangerFeatures(SPEC.views)
    checked = 0
    for i, (_, _, obs) in enumerate(_observations()):
        if i % 7:
            continue
        got = feats(torch.as_tensor(obs[None]))[0].numpy()
        np.testing.assert_allclose(got, _reference_features(obs), atol=1e-6)
        checked += 1
    assert checked > 20


def test_wait_labels_mark_exactly_the_tiles_each_opponent_wins_on():
    from mjenv.game._win import is_winning_with

    g = Game(rules=RULES, seed=3)
    hands = g.hands.copy()
    # seat 2 (across from seat 0) holds 2m3m + 111p 222p 111s + 99s: it wins on 1m and 4m
    hand = np.zeros(T, dtype=np.int8)
    for tile, n in {1: 1, 2: 1, 9: 3, 10: 3, 18: 3, 26: 2}.items():
        hand[tile] = n
    hands[2] = hand

    class _View:
        num_tile_types = T
        won = np.zeros(4, dtype=bool)

    view = _View()
    view.hands = hands
    labels = wait_labels(view, 0)
    assert labels.shape == (3, T)
    assert np.flatnonzero(labels[1]).tolist() == [0, 3]  # across
    for k, q in enumerate(relative_order(0)[1:]):
        want = [t for t in range(T) if is_winning_with(hands[q], t)]
        assert np.flatnonzero(labels[k]).tolist() == want
    view.won = np.array([False, False, True, False])
    assert not wait_labels(view, 0)[1].any()


def test_roc_auc_is_the_share_of_positive_negative_pairs_ranked_right():
    rng = np.random.default_rng(0)
    y = rng.random(300) < 0.2
    s = np.round(rng.random(300) + 0.5 * y, 1)  # many ties
    pos, neg = s[y], s[~y]
    want = ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg))
    assert roc_auc(y, s) == pytest.approx(want)
    assert roc_auc([0, 1], [0.1, 0.9]) == 1.0
    with pytest.raises(ValueError, match="both positive and negative"):
        roc_auc([1, 1], [0.2, 0.3])


def test_collect_fit_save_and_load(tmp_path):
    x, y, hand = collect(["policy:bc", "greedy", "policy:bc", "greedy"], 6, seed=123)
    assert x.shape == (len(y), SPEC.size) and y.shape == (len(x), 3, T)
    assert sorted(set(hand.tolist())) == list(range(6))
    assert y.sum() > 0  # opponents do wait on tiles
    torch.manual_seed(0)
    net = DangerNet(SPEC.views, hidden=16)
    losses = fit(net, x, y, epochs=3, batch=64)
    assert losses[-1] < losses[0]
    path = tmp_path / "d.pt"
    save_danger(net, path)
    back = load_danger(path)
    obs = torch.as_tensor(x[:5])
    torch.testing.assert_close(back.danger(obs), net.danger(obs))
    d = back.danger(obs)
    assert d.shape == (5, T) and bool(((d >= 0) & (d <= 1)).all())
    torch.save({"format": "something else"}, tmp_path / "bad.pt")
    with pytest.raises(ValueError, match="not a danger network"):
        load_danger(tmp_path / "bad.pt")


def test_bad_layouts_and_line_ups_are_refused():
    views = dict(SPEC.views)
    del views["discards"]
    with pytest.raises(ValueError, match="discards"):
        DangerFeatures(views)
    with pytest.raises(ValueError, match="27 suited tiles"):
        DangerFeatures(SPEC.views, num_tile_types=34)
    with pytest.raises(ValueError, match="four agents"):
        collect(["greedy"] * 3, 1, seed=0)


def test_the_script_fits_saves_and_evaluates(tmp_path, capsys):
    from research.training.danger import main

    out = tmp_path / "danger.pt"
    main(["--hands", "20", "--epochs", "1", "--out", str(out), "--no-progress", "--seed", "77"])
    text = capsys.readouterr().out
    assert "held out:" in text and "AUC of danger (any opponent)" in text and out.exists()
    assert "| flag the choice when danger > |" in text
    main(["--evaluate", str(out), "--hands", "20", "--no-progress", "--seed", "78"])
    text = capsys.readouterr().out
    assert "on " in text and "fresh hands (seed 78)" in text and "policy:bc's choice deals in" in text
