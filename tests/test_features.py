"""Features agree with their definitions computed through deficiency() hand by hand."""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import (
    INCOMPLETABLE,
    deficiency,
    deficiency_after_claim,
    deficiency_after_discard,
    effective_tiles,
    is_complete,
)
from mjenv.deficiency.features import NOT_APPLICABLE
from mjenv.deficiency.reference import reference_one

from .conftest import random_case


def test_deficiency_after_discard_matches_definition():
    rng = np.random.default_rng(1)
    hands, kbs = zip(*[random_case(rng, extra=2, kb_mode="random") for _ in range(25)])
    batch = deficiency_after_discard(np.array(hands), np.array(kbs))
    for h, k, row in zip(hands, kbs, batch):
        for t in range(27):
            if h[t] == 0:
                assert row[t] == NOT_APPLICABLE
            else:
                h2 = h.copy()
                h2[t] -= 1
                assert row[t] == deficiency(h2, k, method="dp")
    # The best discard keeps the deficiency: dfncy(14 tiles) = min over discards of dfncy(13 tiles).
    for h, k, row in zip(hands, kbs, batch):
        d = deficiency(h, k, method="dp")
        if d != INCOMPLETABLE:
            assert row[row >= 0].min() == d


def _effective_by_definition(h, k):
    now = deficiency(h, k, method="dp")
    mask = np.zeros(len(h), bool)
    for t in np.flatnonzero(k):
        h2, k2 = h.copy(), k.copy()
        h2[t] += 1
        k2[t] -= 1
        if h.sum() % 3 == 1:
            after = deficiency(h2, k2, method="dp")
        else:  # draw t, then the best discard
            after = min(deficiency(h2 - np.eye(len(h), dtype=h.dtype)[d], k2, method="dp") for d in np.flatnonzero(h2))
        mask[t] = after < now
    return mask


def test_effective_tiles_matches_definition_for_13_and_14_tiles():
    rng = np.random.default_rng(2)
    for extra in (1, 2):
        for _ in range(12):
            h, k = random_case(rng, extra=extra, kb_mode="random")
            mask, count = effective_tiles(h, k)
            expected = _effective_by_definition(h, k)
            assert (mask == expected).all()
            assert count == int(k[expected].sum())


def test_is_complete_any_size():
    assert is_complete("123m") is False  # 3 tiles: not 3k+2
    assert is_complete("11m") and is_complete("11123m") and is_complete("123456789m11p123s")
    assert not is_complete("12m") and not is_complete("123456789m12p123s")
    assert is_complete("123456789m11p123s", melds=4) and not is_complete("11123m", melds=4)
    rng = np.random.default_rng(4)
    hands = np.array([random_case(rng, extra=2, kb_mode="empty")[0] for _ in range(200)])
    got = is_complete(hands)
    want = [reference_one(h, np.zeros(27, np.int8), 4) == 0 for h in hands]
    assert got.tolist() == want


def test_deficiency_after_claim_matches_definition():
    rng = np.random.default_rng(6)
    for _ in range(40):
        h, k = random_case(rng, extra=1, kb_mode="random")
        candidates = np.flatnonzero((h + k) < 4)
        d = int(rng.choice(candidates))
        row = deficiency_after_claim(h, k, d)
        takes = {0: (1, 2), 1: (-1, 1), 2: (-2, -1), 3: (0, 0), 4: (0, 0, 0)}
        rank = d % 9
        valid_rank = {0: rank <= 6, 1: 1 <= rank <= 7, 2: rank >= 2, 3: True, 4: True}
        for col, offs in takes.items():
            h2 = h.astype(int).copy()
            for o in offs:
                if 0 <= d + o < 27:
                    h2[d + o] -= 1
            possible = valid_rank[col] and all(0 <= d + o < 27 for o in offs) and (h2 >= 0).all()
            if not possible:
                assert row[col] == NOT_APPLICABLE
            else:
                assert row[col] == deficiency(h2, k, method="dp", exposed_melds=1)
