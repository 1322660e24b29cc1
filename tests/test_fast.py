"""The default call ``deficiency(hand[, kb])`` (``method="auto"``): the compiled engine ``_fast.c`` and
its fallbacks give the exact value, the slow reference's, on every input form.

``tests/test_deficiency.py`` runs ``auto`` beside ``hbba`` and ``dp`` on its hypothesis cases (every
suit mix, KB mode, exposed melds, 16-tile rules); here: the forms the compiled engine declines
(it answers None and the full validation takes over), the batch path, and the fallbacks without it.
"""

from __future__ import annotations

import numpy as np
import pytest

import mjenv.deficiency as dfc
from mjenv.deficiency import INCOMPLETABLE, deficiency, dp
from mjenv.deficiency.reference import reference_deficiency

from .conftest import KB_MODES, random_case

HAND = np.array([1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 0, 0, 0])


def sample(n: int, seed: int):
    """n random (hand, kb, exposed, melds) of every shape the definition allows."""
    rng = np.random.default_rng(seed)
    suit_sets = [(0,), (0, 1), (0, 1, 2), (2, 3), (0, 1, 2, 3)]
    out = []
    for i in range(n):
        suits = suit_sets[i % len(suit_sets)]
        melds = 5 if i % 7 == 0 else 4
        exposed = int(rng.integers(0, 3))
        hand, kb = random_case(rng, suits=suits, num_tile_types=34 if 3 in suits or i % 2 else 27, exposed=exposed,
                               extra=1 + i % 2, kb_mode=KB_MODES[i % len(KB_MODES)], four_copies=i % 5 == 0,
                               melds=melds)
        out.append((hand, None if i % 6 == 0 else kb, exposed, melds))
    return out


def test_the_compiled_engine_is_built_and_used_by_default():
    # CI has a C compiler: a missing engine there is a packaging bug, not a fallback to accept
    assert dfc._fast is not None and dfc._fast_ready()
    assert dfc._fast.one(HAND, None, 0, 4) == deficiency(HAND, method="hbba")


def test_default_equals_reference_on_every_shape():
    cases = sample(400, 1)
    seen_incompletable = 0
    for hand, kb, exposed, melds in cases:
        want = reference_deficiency(hand, kb, exposed_melds=exposed, melds=melds)
        seen_incompletable += want == INCOMPLETABLE
        assert dfc._fast.one(hand, kb, exposed, melds) == want
        assert deficiency(hand, kb, exposed_melds=exposed, melds=melds) == want
    assert seen_incompletable > 10  # the sample exercises incompletable hands too


def test_every_integer_dtype_and_strided_views_are_read_exactly():
    kb = np.zeros(27, dtype=np.int64)
    kb[[9, 10, 11, 20]] = 1
    want = reference_deficiency(HAND, kb)
    for dtype in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64):
        assert dfc._fast.one(HAND.astype(dtype), kb.astype(dtype), 0, 4) == want
        strided = np.zeros((27, 2), dtype=dtype)
        strided[:, 0] = HAND
        assert dfc._fast.one(strided[:, 0], kb.astype(dtype), 0, 4) == want


@pytest.mark.parametrize(
    "args",
    [
        (HAND.tolist(), None, 0, 4),  # not an ndarray: the full path parses it
        ("123456789s11122p", None, 0, 4),
        (HAND.astype(np.float64), None, 0, 4),
        (HAND.astype(bool), None, 0, 4),
        (HAND.astype(">i4"), None, 0, 4),  # byte-swapped
        (HAND[None], None, 0, 4),  # a batch
        (HAND, HAND.tolist(), 0, 4),
        (HAND, None, np.int64(0), 4),  # not a plain int
        (HAND, None, True, 4),
        (HAND, None, 0, 6),
        (HAND, None, 1, 4),  # 14 tiles with one meld exposed
        (np.where(np.arange(27) == 0, 65536, HAND), None, 0, 4),
        (HAND, np.where(np.arange(27) == 26, -65535, 0), 0, 4),
        (HAND, np.full(27, 4), 0, 4),  # hand + kb > 4
        (HAND, np.zeros(34, int), 0, 4),
    ],
)
def test_the_engine_declines_all_but_the_plain_valid_call(args):
    assert dfc._fast.one(*args) is None


def test_declined_forms_still_get_the_exact_value_or_the_error():
    want = reference_deficiency(HAND)
    assert deficiency(HAND.tolist()) == want
    assert deficiency(HAND.astype(">i4")) == want
    assert deficiency(HAND.astype(np.float32)) == want
    assert deficiency(HAND, exposed_melds=np.int64(0)) == want
    with pytest.raises(ValueError, match="does not fit exposed_melds"):
        deficiency(HAND, exposed_melds=1)
    with pytest.raises(ValueError, match="not compatible"):
        deficiency(HAND, np.full(27, 4))


def test_batches_equal_dp_below_and_above_the_compiled_batch_size(monkeypatch):
    calls = []
    batch = dfc._fast.batch
    monkeypatch.setattr(dfc._fast, "batch", lambda *a: calls.append(len(a[0])) or batch(*a))
    rng = np.random.default_rng(2)
    for n in (27, 34):
        for rows in (dfc._FAST_BATCH_MAX - 1, dfc._FAST_BATCH_MAX):  # the compiled loop, then numpy dp
            hands, kbs = zip(*(random_case(rng, num_tile_types=n, kb_mode=KB_MODES[i % 5], extra=1 + i % 2)
                               for i in range(rows)))
            hands, kbs = np.array(hands), np.array(kbs)
            got = deficiency(hands, kbs)
            assert got.dtype == np.int32 and got.shape == (rows,)
            assert (got == dp.deficiency_batch(hands, kbs, np.full(rows, 4))).all()
        assert (deficiency(hands[:100]) == deficiency(hands[:100], method="hbba")).all()
    assert calls == [dfc._FAST_BATCH_MAX - 1, 100] * 2
    assert deficiency(np.zeros((0, 27), int)).shape == (0,)


@pytest.mark.parametrize("how", ["not installed", "MJENV_NO_KERNEL"])
def test_without_the_engine_the_default_is_still_exact(monkeypatch, how):
    if how == "not installed":  # the engine's module is held by mjenv.deficiency._run (and re-exported)
        monkeypatch.setattr(dfc, "_fast", None)
        monkeypatch.setattr(dfc._run, "_fast", None)
    else:
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")

        def refuse(*args):
            raise AssertionError("the compiled engine ran although MJENV_NO_KERNEL=1")

        monkeypatch.setattr(dfc._fast, "one", refuse, raising=False)
    dfc._HAND_MEMO.clear()
    for hand, kb, exposed, melds in sample(60, 3):
        want = reference_deficiency(hand, kb, exposed_melds=exposed, melds=melds)
        assert deficiency(hand, kb, exposed_melds=exposed, melds=melds) == want
    hands = np.stack([c[0] for c in sample(40, 4) if len(c[0]) == 27 and c[2] == 0 and c[3] == 4])
    assert (deficiency(hands) == dp.deficiency_batch(hands, 4 - hands, np.full(len(hands), 4))).all()


def test_inputs_are_not_changed():
    hand, kb = HAND.copy(), np.zeros(27, dtype=np.int8)
    deficiency(hand, kb)
    deficiency(np.stack([hand, hand]), np.stack([kb, kb]))
    assert (hand == HAND).all() and not kb.any()
