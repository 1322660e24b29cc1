"""The one-tile variant functions of the ``dp`` backend equal the row-by-row evaluation exactly."""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import INCOMPLETABLE, dp
from mjenv.deficiency import _dp_tables as tables

from .test_dp import _batch


def _row_by_row(hands, kbs, needed):
    """(now, after_draw, after_discard) built as explicit modified hands through ``deficiency_batch``."""
    n_b, n_t = hands.shape
    now = dp.deficiency_batch(hands, kbs, needed)
    draw = np.full((n_b, n_t), -1, np.int32)
    disc = np.full((n_b, n_t), -1, np.int32)
    b, t = np.nonzero(kbs > 0)
    hh, kk = hands[b].astype(np.int16), kbs[b].astype(np.int16)
    hh[np.arange(len(b)), t] += 1
    kk[np.arange(len(b)), t] -= 1
    draw[b, t] = dp.deficiency_batch(hh.astype(np.int8), kk.astype(np.int8), needed[b])
    b, t = np.nonzero(hands > 0)
    hh = hands[b].astype(np.int16)
    hh[np.arange(len(b)), t] -= 1
    disc[b, t] = dp.deficiency_batch(hh.astype(np.int8), kbs[b], needed[b])
    return now, draw, disc


def _check(hands, kbs, needed):
    now, draw, disc = dp.deficiency_one_tile_rows(hands, kbs, needed)
    e_now, e_draw, e_disc = _row_by_row(hands, kbs, needed)
    assert (now == e_now).all(), np.flatnonzero(now != e_now)[:5]
    assert (draw == e_draw).all(), np.argwhere(draw != e_draw)[:5]
    assert (disc == e_disc).all(), np.argwhere(disc != e_disc)[:5]
    return e_draw, e_disc


def test_one_tile_rows_equal_row_by_row_with_honours():
    rng = np.random.default_rng(70)
    hands, kbs, needed = _batch(rng, 1500)  # 3m+1 and 3m+2, exposed melds, tiny/empty/full KBs, 34 tiles
    e_draw, e_disc = _check(hands, kbs, needed)
    sizes = hands.sum(axis=1) - 3 * needed
    assert set(sizes.tolist()) == {1, 2} and len(set(needed.tolist())) > 1
    assert (e_draw == INCOMPLETABLE).any() and ((e_draw >= 0) & (e_draw <= 2)).any()
    assert (e_disc == INCOMPLETABLE).any() and (hands[:, 27:] > 0).any()


def test_one_tile_rows_equal_row_by_row_five_melds_27_tiles():
    rng = np.random.default_rng(71)
    hands, kbs, needed = _batch(rng, 1000, kb_modes=("tiny", "random", "full", "suit"), melds=5, honours=False)
    _check(hands, kbs, needed)
    assert needed.max() == 5 and hands.shape[1] == 27


def test_one_tile_rows_uniform_melds_and_34_tile_full_kb():
    # one m for the whole batch takes the plain-indexing path of combine_with_others
    rng = np.random.default_rng(72)
    hands, kbs, needed = _batch(rng, 600, kb_modes=("full", "random"))
    keep = needed == 4
    _check(hands[keep], kbs[keep], needed[keep])


def test_one_tile_rows_equal_the_plain_forward_dp():
    # independent of the lookup tables and of the two-equal-chows argument
    rng = np.random.default_rng(73)
    hands, kbs, needed = _batch(rng, 120)
    now, draw, disc = dp.deficiency_one_tile_rows(hands, kbs, needed)
    assert (now == dp.plain_deficiency_batch(hands, kbs, needed)).all()
    b, t = np.nonzero(kbs > 0)
    hh, kk = hands[b].astype(np.int16), kbs[b].astype(np.int16)
    hh[np.arange(len(b)), t] += 1
    kk[np.arange(len(b)), t] -= 1
    assert (draw[b, t] == dp.plain_deficiency_batch(hh, kk, needed[b])).all()


def test_wrappers_and_not_applicable_entries():
    rng = np.random.default_rng(74)
    hands, kbs, needed = _batch(rng, 50, kb_modes=("tiny",))
    _, draw, disc = dp.deficiency_one_tile_rows(hands, kbs, needed)
    assert (dp.deficiency_after_each_draw(hands, kbs, needed) == draw).all()
    assert (dp.deficiency_after_each_discard(hands, kbs, needed) == disc).all()
    assert ((draw == -1) == (kbs == 0)).all()
    assert ((disc == -1) == (hands == 0)).all()


def test_suit_variant_vectors_of_an_empty_suit():
    # an empty suit with every copy available: (k, p) costs 3k + 2p; after drawing rank 1 one tile
    # of a pair or pong is already there; discarding from an empty suit does not apply
    vec = dp.suit_variant_vectors(np.full((1, 9), 10))[0]  # code 10 = (h, a) = (0, 4)
    assert tables.option_pairs(False)[10] == (0, 4)
    expected = np.array([3 * k + 2 * p for k in range(tables.KMAX + 1) for p in (0, 1)])
    assert (vec[0] == expected).all()
    drawn = vec[1].astype(int)
    assert drawn[0] == 0 and drawn[1] == 1 and drawn[2] == 2 and drawn[3] == 4
    assert (vec[dp.DISCARD0 : dp.DISCARD0 + 9] == tables.INF).all()


def test_small_batches_with_mixed_melds_needed():
    # up to 16 hands with different m take the every-target path of combine_with_others
    rng = np.random.default_rng(75)
    hands, kbs, needed = _batch(rng, 200)
    for lo in range(0, 200, 10):
        sl = slice(lo, lo + 10)
        assert len(set(needed[sl].tolist())) > 1
        _check(hands[sl], kbs[sl], needed[sl])
