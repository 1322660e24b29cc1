"""Bad input gets a ValueError saying what was wrong and what is allowed."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.deficiency import deficiency

HAND = "123456789m123p11s"


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(hand=np.zeros(20, int)), "shape"),
        (dict(hand=np.zeros((2, 3, 27), int)), "shape"),
        (dict(hand=np.full(27, 5)), "out of range"),
        (dict(hand=np.r_[np.full(13, 1), np.zeros(14, int)] - np.eye(27, dtype=int)[20]), "out of range"),
        (dict(hand=HAND, exposed_melds=1), "does not fit exposed_melds"),
        (dict(hand="123m"), "does not fit"),
        (dict(hand=HAND, kb=np.full(27, 4)), "not compatible"),
        (dict(hand="123456789m123p1z1z", kb=np.zeros(27, int)), "honours"),
        (dict(hand=HAND, method="quadtree"), "unknown method"),
        (dict(hand="123q"), "position 3"),
        (dict(hand=np.full(27, 0.5)), "integer"),
        (dict(hand=HAND, melds=7), "melds"),
        (dict(hand=HAND, exposed_melds=-1), "exposed_melds"),
        (dict(hand=np.zeros((3, 27), int), kb=np.zeros((2, 27), int)), "batch sizes"),
    ],
)
def test_bad_input_raises_clear_value_error(kwargs, message):
    hand = kwargs.pop("hand")
    with pytest.raises(ValueError, match=message):
        deficiency(hand, **{"method": "dp", **kwargs})


def test_nothing_is_changed_in_place():
    hand = np.array([1] * 13 + [0] * 14)
    kb = 4 - hand
    hand_copy, kb_copy = hand.copy(), kb.copy()
    deficiency(hand, kb, method="dp")
    assert (hand == hand_copy).all() and (kb == kb_copy).all()


def test_accepts_every_documented_form():
    counts = np.zeros(27, int)
    np.add.at(counts, [9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 0, 0], 1)
    forms = [HAND, "(B1B1)(C1C2C3C4C5C6C7C8C9)(D1D2D3)", counts, counts.tolist(), np.r_[counts, np.zeros(7, int)]]
    values = {deficiency(f, method="dp") for f in forms}
    assert values == {0}
    batch = deficiency(np.stack([counts, counts]), method="dp")
    assert batch.tolist() == [0, 0]
