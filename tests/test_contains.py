"""``contains_complete``: whether hands of any size contain m melds and a pair (deficiency 0 with an
empty KB), by the compiled per-suit table of ``_contains.h`` and by the ``dp`` core, against the plain
recursive reference of ``conftest.contains_reference``."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.deficiency import contains as ct
from mjenv.deficiency.contains import contains_complete

from .conftest import contains_reference


def _hands(n: int, num_tile_types: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Hands of 0..22 tiles: half built from random melds and a pair (so many contain a pattern), half
    random; each with a random m in 0..5 (often more melds than the hand holds)."""
    rng = np.random.default_rng(seed)
    hands = np.zeros((n, num_tile_types), dtype=np.int8)
    for i in range(n):
        h = hands[i]
        if i % 2 == 0:
            for _ in range(int(rng.integers(0, 6))):
                t = int(rng.integers(0, num_tile_types))
                if rng.random() < 0.5 and t < 27 and t % 9 <= 6 and (h[t : t + 3] < 4).all():
                    h[t : t + 3] += 1
                elif h[t] <= 1:
                    h[t] += 3
            t = int(rng.integers(0, num_tile_types))
            if h[t] <= 2:
                h[t] += 2
        room = np.repeat(np.arange(num_tile_types), 4 - h)
        extra = rng.choice(room, size=int(rng.integers(0, 8 if i % 2 == 0 else 23)), replace=False)
        np.add.at(h, extra, 1)
    return hands, rng.integers(0, 6, n)


def test_the_compiled_check_is_built_and_used_by_default():
    # CI has a C compiler: a missing check there is a packaging bug, not a fallback to accept
    assert ct.compiled()


@pytest.mark.parametrize("num_tile_types", [27, 34])
def test_both_engines_equal_the_reference(num_tile_types):
    hands, needed = _hands(3000, num_tile_types, seed=num_tile_types)
    want = np.array([contains_reference(tuple(int(x) for x in h), int(m), 1) for h, m in zip(hands, needed)])
    assert 0.2 < want.mean() < 0.8  # both answers are well represented
    assert contains_complete(hands, needed).tolist() == want.tolist()
    assert contains_complete(hands, needed, engine="numpy").tolist() == want.tolist()


def test_honours_pairs_and_pongs():
    def h34(counts: dict[int, int]) -> np.ndarray:
        h = np.zeros((1, 34), dtype=np.int8)
        for t, c in counts.items():
            h[0, t] = c
        return h

    # east pong + red pair: one meld and a pair; a lone four of a kind is one meld or one pair, not both
    for engine in ("auto", "numpy"):
        assert contains_complete(h34({27: 3, 33: 2}), [1], engine).tolist() == [True]
        assert contains_complete(h34({27: 4}), [1], engine).tolist() == [False]
        assert contains_complete(h34({27: 4}), [0], engine).tolist() == [True]
        assert contains_complete(h34({27: 3, 28: 3}), [1], engine).tolist() == [True]  # one pong as the pair


def test_bad_input_is_a_clear_value_error():
    h = np.zeros((2, 27), dtype=np.int8)
    with pytest.raises(ValueError, match="engine"):
        contains_complete(h, [1, 1], engine="gpu")
    with pytest.raises(ValueError, match="int\\[B, 27\\|34\\]"):
        contains_complete(np.zeros((2, 30), dtype=np.int8), [1, 1])
    with pytest.raises(ValueError, match="one melds_needed per row"):
        contains_complete(h, [1])
    h[1, 3] = 5
    for engine in ("auto", "numpy"):
        with pytest.raises(ValueError, match="outside 0..4"):
            contains_complete(h, [1, 1], engine)
