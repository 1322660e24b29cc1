"""The compiled batched win check (``mjenv.game._step``) equals the Python engine's check."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.game import batch
from mjenv.game._win import is_winning_bytes

pytestmark = pytest.mark.skipif(not batch.available(), reason="mjenv.game._step not built (no C compiler)")


def _random_hands(rng: np.random.Generator, m: int, t: int, size: int) -> np.ndarray:
    """int8[m, t]: hands of ``size`` tiles drawn without replacement from 4 copies of t tile types."""
    wall = np.repeat(np.arange(t), 4)
    hands = np.zeros((m, t), dtype=np.int8)
    for i in range(m):
        np.add.at(hands[i], rng.choice(wall, size, replace=False), 1)
    return hands


def _complete_hands(rng: np.random.Generator, m: int, t: int) -> np.ndarray:
    """int8[m, t]: 4 random melds + a pair (counts may exceed 4 and are then dropped), many complete."""
    out = []
    while len(out) < m:
        h = np.zeros(t, dtype=np.int8)
        for _ in range(4):
            if rng.random() < 0.5:
                s, r = rng.integers(3), rng.integers(7)
                h[9 * s + r : 9 * s + r + 3] += 1
            else:
                h[rng.integers(t)] += 3
        h[rng.integers(t)] += 2
        if h.max() <= 4:
            out.append(h)
    return np.stack(out)


@pytest.mark.parametrize("t", [27, 34])
@pytest.mark.parametrize("seven", [False, True])
def test_batch_equals_python(t: int, seven: bool) -> None:
    rng = np.random.default_rng(16)
    hands = np.concatenate(
        [
            _random_hands(rng, 3000, t, 14),
            _random_hands(rng, 500, t, 11),
            _random_hands(rng, 300, t, 13),
            _complete_hands(rng, 3000, t),
        ]
    )
    # perturb half of the complete ones by moving one tile, so near-misses are covered
    for i in range(3800, hands.shape[0], 2):
        src = np.flatnonzero(hands[i])
        dst = np.flatnonzero(hands[i] < 4)
        hands[i, rng.choice(src)] -= 1
        hands[i, rng.choice(dst)] += 1
    pairs = np.zeros((20, t), dtype=np.int8)
    for i in range(20):
        pairs[i, rng.choice(t, 7, replace=False)] = 2
    pairs[10:, 0] = 4  # four of a kind is not two pairs
    hands = np.concatenate([hands, pairs])
    expected = np.array([is_winning_bytes(h.tobytes(), seven) for h in hands])
    got = batch.is_winning_batch(hands, seven)
    assert expected.sum() > 500, "the sample must hold many complete hands"
    np.testing.assert_array_equal(got, expected)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="shape"):
        batch.is_winning_batch(np.zeros((3, 30), dtype=np.int8))
    with pytest.raises(ValueError, match="0..4"):
        batch.is_winning_batch(np.full((1, 34), 5, dtype=np.int8))


def test_fallback_equals_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    hands = np.concatenate([_complete_hands(rng, 300, 34), _random_hands(rng, 300, 34, 14)])
    compiled = batch.is_winning_batch(hands, True)
    monkeypatch.setattr(batch, "_step", None)
    assert not batch.available()
    np.testing.assert_array_equal(batch.is_winning_batch(hands, True), compiled)
