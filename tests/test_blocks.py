"""Tests of KB-blocks (BDA paper, Definitions 13-14) in ``mjenv.deficiency.blocks``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from mjenv import tiles
from mjenv.deficiency.blocks import HONOURS, KBBlock, kb_blocks, kb_connected, local_kb


def _names(blocks: list[KBBlock]) -> list[str]:
    return ["".join(tiles.tile_name(t, "paper") for t in b.tiles) for b in blocks]


def test_paper_example_sec5():
    hand = tiles.parse("()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)")
    kb = tiles.parse("(001100121)(010000030)(032242321)")
    blocks = kb_blocks(hand, kb)
    assert _names(blocks) == ["C1", "C4", "C6C7C8C9", "D1D2D3", "D6D6D7D8"]
    assert [b.suit for b in blocks] == [1, 1, 1, 2, 2]
    # the paper's local knowledge base of the Character suit
    assert blocks[2].local_kb(kb) == (0, 1, 0, 0, 0, 0, 0, 3, 0)
    assert blocks[2].ranks == (6, 7, 8, 9)
    assert blocks[4].local_counts() == (0, 0, 0, 0, 0, 2, 1, 1, 0)


def test_c5_in_kb_joins_c4_and_c6():
    hand = tiles.parse("()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)")
    kb = tiles.parse("(001100121)(010010030)(032242321)")
    assert _names(kb_blocks(hand, kb))[:2] == ["C1", "C4C6C7C8C9"]


def test_adjacent_ranks_need_an_outer_tile():
    # B4B5: connected only if B3 or B6 is in H or KB
    hand = tiles.parse("B4B5", 27)
    kb = np.zeros(27, dtype=np.int8)
    assert _names(kb_blocks(hand, kb)) == ["B4", "B5"]
    kb[tiles.parse("B6", 27).argmax()] = 1
    assert _names(kb_blocks(hand, kb)) == ["B4B5"]
    # B8B9: only B7 can complete it
    hand = tiles.parse("B8B9", 27)
    kb = tiles.parse("(000000001)(000000000)(000000000)")
    assert _names(kb_blocks(hand, kb)) == ["B8", "B9"]


def test_honours_are_their_own_blocks():
    hand = tiles.parse("11122z", 34)
    kb = 4 - hand
    blocks = kb_blocks(hand, kb)
    assert [(b.suit, b.tiles) for b in blocks] == [(HONOURS, (27, 27, 27)), (HONOURS, (28, 28))]
    assert blocks[0].local_counts() == (3, 0, 0, 0, 0, 0, 0)
    assert not kb_connected(27, 28, hand, kb)


def test_local_kb_honours_of_27_vector_are_zero():
    assert local_kb(np.full(27, 2), HONOURS) == (0,) * 7


def test_bad_lengths():
    with pytest.raises(ValueError, match="27 or 34"):
        kb_blocks(np.zeros(20, int), np.zeros(20, int))


def _components(hand: np.ndarray, kb: np.ndarray) -> list[list[int]]:
    """Brute-force connected components by pairwise ``kb_connected`` (independent of the scan)."""
    held = [t for t in range(len(hand)) if hand[t]]
    parent = {t: t for t in held}

    def find(x: int) -> int:
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in itertools.combinations(held, 2):
        if kb_connected(a, b, hand, kb):
            parent[find(a)] = find(b)
    comps: dict[int, list[int]] = {}
    for t in held:
        comps.setdefault(find(t), []).extend([t] * int(hand[t]))
    return sorted(comps.values())


def _direct_connected(a: int, b: int, hand: np.ndarray, kb: np.ndarray) -> bool:
    """Definition 14 literally: some chow holds a, b and a third tile present in H or KB."""
    if a == b:
        return True
    for s in range(3):
        for r in range(7):
            chow = (9 * s + r, 9 * s + r + 1, 9 * s + r + 2)
            if a in chow and b in chow:
                (c,) = set(chow) - {a, b}
                if hand[c] + kb[c] > 0:
                    return True
    return False


@pytest.mark.parametrize("num_types", [27, 34])
def test_random_partition_and_disconnection(num_types):
    rng = np.random.default_rng(1234 + num_types)
    wall = np.repeat(np.arange(num_types), 4)
    for _ in range(400):
        n = int(rng.choice([1, 2, 5, 8, 13, 14]))
        hand = np.bincount(rng.choice(wall, n, replace=False), minlength=num_types)
        kb = rng.integers(0, 5 - hand) * (rng.random(num_types) < rng.random())
        blocks = kb_blocks(hand, kb)
        # the blocks partition the hand
        total = np.zeros(num_types, int)
        for b in blocks:
            assert list(b.tiles) == sorted(b.tiles)
            assert len({tiles.suit_of(t) for t in b.tiles}) == 1
            assert b.suit == tiles.suit_of(b.tiles[0])
            np.add.at(total, list(b.tiles), 1)
        assert np.array_equal(total, hand)
        # tiles in different blocks are not KB-connected (checked on Definition 14 literally)
        for b1, b2 in itertools.combinations(blocks, 2):
            for a in set(b1.tiles):
                for c in set(b2.tiles):
                    assert not _direct_connected(a, c, hand, kb)
        # and the blocks are exactly the connected components (no block can be split)
        assert sorted(list(b.tiles) for b in blocks) == _components(hand, kb)
        # kb_connected agrees with the literal definition
        held = [t for t in range(num_types) if hand[t]]
        for a, c in itertools.combinations(held, 2):
            assert kb_connected(a, c, hand, kb) == _direct_connected(a, c, hand, kb)
