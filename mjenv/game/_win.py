"""The win check on the game's hot path: is a concealed hand (plus one tile) complete?

A concealed hand of ``3k + 2`` tiles is complete when it splits into k melds and one pair (the
declared melds are already out of the hand), or, when the rule is on, into seven pairs.

The game asks this question several times per discard (every other seat may win on it) and once per
draw, so it must cost microseconds. A hand is complete exactly when every suit is complete on its own
(melds only, or melds plus the one pair) and the honours are pongs and at most one pair; the tile
counts per suit decide cheaply which suit must hold the pair (``count % 3 == 2``), and most hands fail
there. Whether one suit's nine counts split into melds (plus a pair) is memoised per pattern: there
are few distinct suit patterns, so after a short warm-up nearly every check is a handful of dict
lookups (``benchmarks/game_speed.py``: about 1 us against 360 us for ``is_complete``).

On a memo miss the suit is split by the textbook leftmost-tile recursion (the lowest tile present
is either in a pong or starts a chow), a few microseconds. The deficiency DP answers the same
question (``mjenv.deficiency.is_complete``) but costs about 150 us per call, which made the first few
hundred hands of a process (while the memo fills) several times slower; the tests check the two
against each other on random and near-complete hands and at every win decision of random games.
"""

from __future__ import annotations

import numpy as np

# suit pattern (9 count bytes) -> whether it splits into melds (count % 3 == 0) or melds + a pair
# (count % 3 == 2); the count fixes which of the two questions is asked.
_SUIT_MEMO: dict[bytes, bool] = {}


def _melds_only(c: list[int]) -> bool:
    """Whether counts ``c`` (one suit, 9 ranks; modified and restored) split into chows and pongs."""
    i = 0
    while i < 9 and c[i] == 0:
        i += 1
    if i == 9:
        return True
    # the lowest tile present is in a pong or starts a chow (nothing lower is left to chow with it)
    if c[i] >= 3:
        c[i] -= 3
        ok = _melds_only(c)
        c[i] += 3
        if ok:
            return True
    if i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        ok = _melds_only(c)
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1
        return ok
    return False


def _suit_complete(pattern: bytes) -> bool:
    ok = _SUIT_MEMO.get(pattern)
    if ok is None:
        c = list(pattern)
        if sum(c) % 3 == 0:
            ok = _melds_only(c)
        else:
            ok = False
            for t in range(9):
                if c[t] >= 2:
                    c[t] -= 2
                    ok = _melds_only(c)
                    c[t] += 2
                    if ok:
                        break
        _SUIT_MEMO[pattern] = ok
    return ok


def is_winning_bytes(counts: bytes, seven_pairs: bool = False) -> bool:
    """Whether a concealed hand given as its count bytes is complete.

    Args:
        counts: the hand's int8[T] tile counts as bytes (T = 27 or 34); any size (sizes that are not
            ``3k + 2`` are never complete).
        seven_pairs: also accept seven pairs (14 tiles, every count 0 or 2; four of a kind is not
            two pairs).

    Returns:
        True when the hand is k melds + 1 pair (or seven pairs when allowed).
    """
    if seven_pairs and sum(counts) == 14 and all(c in (0, 2) for c in counts):
        return True
    pair = False
    for lo in (0, 9, 18):
        r = sum(counts[lo : lo + 9]) % 3
        if r == 1:
            return False
        if r == 2:
            if pair:
                return False
            pair = True
    for c in counts[27:]:
        if c == 1 or c == 4:
            return False
        if c == 2:
            if pair:
                return False
            pair = True
    if not pair:
        return False
    for lo in (0, 9, 18):
        seg = counts[lo : lo + 9]
        if any(seg) and not _suit_complete(seg):
            return False
    return True


def is_winning(hand: np.ndarray, seven_pairs: bool = False) -> bool:
    """Whether a concealed hand int8[T] is complete (see :func:`is_winning_bytes`)."""
    return is_winning_bytes(np.ascontiguousarray(hand, dtype=np.int8).tobytes(), seven_pairs)


def is_winning_with(hand: np.ndarray, tile: int, seven_pairs: bool = False) -> bool:
    """Whether concealed hand int8[T] plus one ``tile`` is complete (a win on a discard or a robbed kong)."""
    b = bytearray(np.ascontiguousarray(hand, dtype=np.int8).tobytes())
    b[tile] += 1
    return is_winning_bytes(bytes(b), seven_pairs)
