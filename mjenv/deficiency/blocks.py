"""KB-blocks of a hand (BDA paper, Sec. 5, Definitions 13 and 14), shared by ``hbba`` and ``bda``.

A KB-block is a non-empty set of hand tiles of one colour that is closed under KB-connectedness
(Definition 14): two hand tiles t = (c, n) and t' = (c, n') are *KB-connected* if t = t', or if the
hand or the knowledge base holds a tile t'' such that (t t' t'') is a chow. Concretely, for ranks
n < n' of one suit:

* n' = n + 1: connected when rank n - 1 or rank n + 2 is in H or KB (the chows (n-1, n, n+1) and
  (n, n+1, n+2));
* n' = n + 2: connected when rank n + 1 is in H or KB (the chow (n, n+1, n+2));
* n' >= n + 3: never directly connected (no chow holds both).

Blocks are the connected components of that relation (its transitive closure), so they partition
the hand and every meld of a completion that uses two or more hand tiles lies inside one block.
Honours (ids 27-33, only in 34-entry vectors) form pongs and pairs only, never chows, so each honour
tile type is its own block.

Example (paper, Sec. 5): H = ()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8) and
KB = (001100121)(010000030)(032242321) give the blocks (C1)(C4)(C6C7C8C9)(D1D2D3)(D6D6D7D8): C4 and C6
are not connected because neither H nor KB holds a C5.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mjenv.tiles import NUM_SUITED, NUM_TILES

#: Suit index of the honours in :attr:`KBBlock.suit` (0 bamboo B, 1 characters C, 2 dots D).
HONOURS = 3

__all__ = ["HONOURS", "KBBlock", "kb_blocks", "kb_connected", "local_kb", "suit_tiles"]


@dataclass(frozen=True)
class KBBlock:
    """One KB-block (BDA paper, Definition 14).

    Attributes:
        suit: 0 bamboo (B), 1 characters (C), 2 dots (D), 3 honours.
        tiles: tile ids of the block with multiplicity, sorted ascending.
    """

    suit: int
    tiles: tuple[int, ...]

    @property
    def offset(self) -> int:
        """Tile id of rank 1 of the block's suit (0, 9, 18 or 27)."""
        return 9 * self.suit

    @property
    def ranks(self) -> tuple[int, ...]:
        """Ranks of the tiles (1..9 suited, 1..7 honours), with multiplicity, sorted."""
        return tuple(t - self.offset + 1 for t in self.tiles)

    def local_counts(self) -> tuple[int, ...]:
        """Counts of the block's tiles by rank within its suit: length 9 (suits) or 7 (honours)."""
        out = [0] * (7 if self.suit == HONOURS else 9)
        for t in self.tiles:
            out[t - self.offset] += 1
        return tuple(out)

    def local_kb(self, kb: Sequence[int] | np.ndarray) -> tuple[int, ...]:
        """The KB restricted to the block's suit (the paper's local knowledge base), by rank."""
        return local_kb(kb, self.suit)


def suit_tiles(suit: int) -> range:
    """Tile ids of one suit: ``range(9 * suit, 9 * suit + 9)`` (honours: ``range(27, 34)``)."""
    if suit not in (0, 1, 2, HONOURS):
        raise ValueError(f"suit must be 0 (B), 1 (C), 2 (D) or 3 (honours), got {suit!r}")
    return range(27, NUM_TILES) if suit == HONOURS else range(9 * suit, 9 * suit + 9)


def local_kb(kb: Sequence[int] | np.ndarray, suit: int) -> tuple[int, ...]:
    """KB counts of one suit by rank: length 9 (suits) or 7 (honours; all 0 for a 27-entry KB)."""
    tiles = suit_tiles(suit)
    n = len(kb)
    return tuple(int(kb[t]) if t < n else 0 for t in tiles)


def kb_connected(t1: int, t2: int, hand: Sequence[int] | np.ndarray, kb: Sequence[int] | np.ndarray) -> bool:
    """Whether two tile ids are KB-connected w.r.t. ``hand`` and ``kb`` (Definition 14).

    Args:
        t1, t2: tile ids.
        hand: int[T] hand counts.
        kb: int[T] knowledge base.

    Returns:
        True if ``t1 == t2`` or H or KB holds a third tile completing them into a chow.
    """
    if t1 == t2:
        return True
    if t1 >= NUM_SUITED or t2 >= NUM_SUITED or t1 // 9 != t2 // 9:
        return False
    lo, hi = min(t1, t2), max(t1, t2)
    base = 9 * (lo // 9)

    def present(t: int) -> bool:
        return base <= t < base + 9 and int(hand[t]) + int(kb[t]) > 0

    if hi - lo == 1:
        return present(lo - 1) or present(hi + 1)
    if hi - lo == 2:
        return present(lo + 1)
    return False


def kb_blocks(hand: Sequence[int] | np.ndarray, kb: Sequence[int] | np.ndarray) -> list[KBBlock]:
    """Partition a hand into its KB-blocks (BDA paper, Definition 14).

    Args:
        hand: int[T] tile counts, T in {27, 34}.
        kb: int[T] knowledge base (same length).

    Returns:
        The KB-blocks, ordered by suit and then by smallest tile; together they hold every hand
        tile exactly once. Each honour tile type in the hand is a block of its own.
    """
    h = hand.tolist() if isinstance(hand, np.ndarray) else [int(v) for v in hand]
    k = kb.tolist() if isinstance(kb, np.ndarray) else [int(v) for v in kb]
    if len(h) not in (NUM_SUITED, NUM_TILES) or len(k) != len(h):
        raise ValueError(f"hand and kb must both have 27 or 34 entries, got {len(h)} and {len(k)}")
    blocks: list[KBBlock] = []
    for suit in range(3):
        base = 9 * suit
        avail = [h[base + r] + k[base + r] > 0 for r in range(9)]
        current: list[int] = []
        last = -10
        for r in range(9):
            if h[base + r] == 0:
                continue
            # Ranks are visited in order, so the component of the previous held rank either
            # continues (r is connected to it, directly or through the held rank in between) or ends.
            if current and _ranks_connected(last, r, avail):
                current.extend([base + r] * h[base + r])
            else:
                if current:
                    blocks.append(KBBlock(suit, tuple(current)))
                current = [base + r] * h[base + r]
            last = r
        if current:
            blocks.append(KBBlock(suit, tuple(current)))
    for t in range(NUM_SUITED, len(h)):
        if h[t]:
            blocks.append(KBBlock(HONOURS, (t,) * h[t]))
    return blocks


def _ranks_connected(lo: int, hi: int, avail: list[bool]) -> bool:
    """KB-connectedness of two held ranks lo < hi (0-based) of one suit, given H+KB presence."""
    d = hi - lo
    if d == 1:
        return (lo >= 1 and avail[lo - 1]) or (hi <= 7 and avail[hi + 1])
    if d == 2:
        return avail[lo + 1]
    return False
