"""Winning shapes of a Riichi hand: decompositions, the win test and the waits.

Hands here are count vectors of mjenv's 34 tile types (``mjenv.tiles``: 0-8 bamboo, 9-17 characters,
18-26 dots, 27-33 E S W N white green red), of the concealed tiles only (called melds are separate).
A concealed part of ``3n + 2`` tiles wins in one of three forms:

* regular: ``n`` sets (triplets or runs) and one pair;
* seven pairs (chiitoitsu): 14 tiles, seven *distinct* types twice each (four of a kind is not two pairs);
* thirteen orphans (kokushi musou): 14 tiles, each terminal and honour once and one of them twice.

A regular decomposition is ``(pair, sets)``: ``pair`` a tile type, ``sets`` a tuple of set codes, where
code ``t`` (0..33) is a triplet of type ``t`` and code ``34 + t`` a run ``t, t+1, t+2``.

The three suits are treated alike (nothing here depends on which suit is which), so counts in
Tenhou's type order (m, p, s, z) get the same answers, in that order.

Each suit (and the honours) is decomposed on its own and the result cached by its nine (seven) counts,
so that after a warm-up a hand costs a few dictionary look-ups.

Waits follow Tenhou: a tile type is a wait when adding one copy of it makes a winning shape, except a
type of which the concealed hand already holds all four (the "fifth tile" is no wait; a hand whose only
waits are such is not tenpai). Copies held in the seat's own called melds do not remove a wait (Tenhou
scored ``12s44466688p`` with a called kan of ``3s`` as tenpai, riichi.wiki "Karaten").

``waits`` runs in C (``_score.h`` through the optional extension ``_score``) when it is installed and
``MJENV_NO_KERNEL=1`` was not set when this module was imported; the answers are the same.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

try:  # built by setup.py (optional extension); MJENV_NO_KERNEL=1 keeps the Python path (for comparisons)
    from . import _score as _ext
except ImportError:  # pragma: no cover - depends on the install
    _ext = None
if os.environ.get("MJENV_NO_KERNEL", "") not in ("", "0"):
    _ext = None


def compiled() -> bool:
    """Whether the C scorer runs (``_score`` is installed and ``MJENV_NO_KERNEL=1`` was not set at import)."""
    return _ext is not None


#: The thirteen terminal and honour types (mjenv ids).
ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
_ORPHAN_SET = frozenset(ORPHANS)
#: Group g covers types GROUP_START[g] .. GROUP_START[g] + GROUP_LEN[g] - 1 (three suits, then honours).
GROUP_START = (0, 9, 18, 27)
GROUP_LEN = (9, 9, 9, 7)

# key (tuple of counts, is_honour) -> (decompositions without pair, decompositions with pair, waits0, waits2)
# decompositions use local ranks: code r = triplet of rank r, 9 + r = run from rank r; pair is a rank.
_CACHE: dict[tuple, tuple] = {}


def _sets(c: list[int], i: int, honour: bool, out: list[tuple], acc: list[int]) -> None:
    n = len(c)
    while i < n and c[i] == 0:
        i += 1
    if i == n:
        out.append(tuple(acc))
        return
    if c[i] >= 3:
        c[i] -= 3
        acc.append(i)
        _sets(c, i, honour, out, acc)
        acc.pop()
        c[i] += 3
    if not honour and i <= 6 and c[i + 1] and c[i + 2]:
        c[i] -= 1
        c[i + 1] -= 1
        c[i + 2] -= 1
        acc.append(9 + i)
        _sets(c, i, honour, out, acc)
        acc.pop()
        c[i] += 1
        c[i + 1] += 1
        c[i + 2] += 1


def _group(key: tuple, honour: bool) -> tuple:
    entry = _CACHE.get((key, honour))
    if entry is not None:
        return entry
    c = list(key)
    total = sum(c)
    nopair: list[tuple] = []
    withpair: list[tuple] = []
    if total % 3 == 0:
        _sets(c, 0, honour, nopair, [])
    elif total % 3 == 2:
        for r, x in enumerate(c):
            if x >= 2:
                c[r] -= 2
                found: list[tuple] = []
                _sets(c, 0, honour, found, [])
                c[r] += 2
                withpair.extend((r, s) for s in found)
    entry = (tuple(nopair), tuple(withpair))
    _CACHE[(key, honour)] = entry
    return entry


def _group_waits(key: tuple, honour: bool) -> tuple[int, ...]:
    """Ranks whose one added copy completes the group (as sets, or sets and a pair)."""
    wkey = (key, honour, "w")
    got = _CACHE.get(wkey)
    if got is not None:
        return got
    c = list(key)
    out = []
    for r in range(len(c)):
        if c[r] >= 4:
            continue
        c[r] += 1
        nopair, withpair = _group(tuple(c), honour)
        c[r] -= 1
        if nopair or withpair:
            out.append(r)
    res = tuple(out)
    _CACHE[wkey] = res
    return res


def _keys(counts: Sequence[int]) -> list[tuple]:
    c = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    if len(c) != 34:
        raise ValueError(f"a hand is a count vector of length 34; got length {len(c)}")
    return [tuple(c[0:9]), tuple(c[9:18]), tuple(c[18:27]), tuple(c[27:34])]


# Per group g: counts key -> (decompositions without pair, with pair), in global set codes.
_GLOBAL: tuple[dict, dict, dict, dict] = ({}, {}, {}, {})


def _global(g: int, key: tuple) -> tuple:
    entry = _GLOBAL[g].get(key)
    if entry is None:
        base = GROUP_START[g]
        nopair, withpair = _group(key, g == 3)

        def conv(local):
            return tuple(base + x if x < 9 else 34 + base + x - 9 for x in local)

        entry = (tuple(conv(x) for x in nopair), tuple((base + r, conv(x)) for r, x in withpair))
        _GLOBAL[g][key] = entry
    return entry


def decompose(counts: Sequence[int]) -> list[tuple[int, tuple[int, ...]]]:
    """All regular decompositions ``(pair, sets)`` of a concealed part of ``3n + 2`` tiles.

    Args:
        counts: shape ``(34,)``, the concealed tiles' counts (mjenv order).

    Returns:
        A list of ``(pair_type, set_codes)``; set code ``t`` is a triplet of type ``t``, ``34 + t`` a run
        starting at ``t``. Empty when the tiles are not sets and a pair.
    """
    c = counts.tolist() if hasattr(counts, "tolist") else counts
    if len(c) != 34:
        raise ValueError(f"a hand is a count vector of length 34; got length {len(c)}")
    pairs: tuple = ()
    rest: list[tuple] = []
    for g in range(4):
        start = GROUP_START[g]
        key = tuple(c[start : start + GROUP_LEN[g]])
        m = sum(key) % 3
        if m == 1:
            return []
        if m == 0 and not key.count(0) == GROUP_LEN[g] or m == 2:
            nopair, withpair = _global(g, key)
            if m == 2:
                if pairs or not withpair:
                    return []
                pairs = withpair
            else:
                if not nopair:
                    return []
                rest.append(nopair)
    if not pairs:
        return []
    results = list(pairs)
    for opts in rest:
        if len(opts) == 1:
            only = opts[0]
            results = [(p, sets + only) for p, sets in results]
        else:
            results = [(p, sets + o) for p, sets in results for o in opts]
    return results


def is_regular(counts: Sequence[int]) -> bool:
    """Whether the concealed part is ``n`` sets and a pair."""
    keys = _keys(counts)
    pairs = 0
    for g in range(4):
        key = keys[g]
        s = sum(key) % 3
        if s == 1:
            return False
        nopair, withpair = _group(key, g == 3)
        if s == 2:
            pairs += 1
            if not withpair:
                return False
        elif not nopair:
            return False
    return pairs == 1


def is_seven_pairs(counts: Sequence[int]) -> bool:
    """Seven distinct pairs (14 tiles, no melds)."""
    c = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    return sum(c) == 14 and sum(1 for x in c if x == 2) == 7


def is_thirteen_orphans(counts: Sequence[int]) -> bool:
    """Each terminal and honour once, one of them twice (14 tiles, no melds)."""
    c = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    return sum(c) == 14 and all(c[t] >= 1 for t in ORPHANS) and sum(c[t] for t in ORPHANS) == 14


def is_winning_shape(counts: Sequence[int]) -> bool:
    """Whether the concealed part (``3n + 2`` tiles, shape ``(34,)``) wins in any of the three forms."""
    c = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    if len(c) != 34:
        raise ValueError(f"a hand is a count vector of length 34; got length {len(c)}")
    if sum(c) == 14 and (is_seven_pairs(c) or is_thirteen_orphans(c)):
        return True
    return is_regular(c)


def waits(counts: Sequence[int]) -> list[int]:
    """Tile types that complete a concealed part of ``3n + 1`` tiles (any of the three forms).

    Args:
        counts: shape ``(34,)``, the concealed tiles' counts (mjenv order), ``3n + 1`` tiles.

    Returns:
        The sorted wait types. A type whose four copies are all in ``counts`` is never a wait (see the
        module docstring); an empty list means not tenpai.
    """
    c = counts.tolist() if hasattr(counts, "tolist") else list(counts)
    if len(c) != 34:
        raise ValueError(f"a hand is a count vector of length 34; got length {len(c)}")
    total = sum(c)
    if total % 3 != 1 or min(c) < 0 or max(c) > 4:
        raise ValueError(f"waits need 3n + 1 tiles with counts 0..4; got {total} tiles, counts {min(c)}..{max(c)}")
    if total <= 13 and _ext is not None:
        return _ext.waits(bytes(c))
    keys = (tuple(c[0:9]), tuple(c[9:18]), tuple(c[18:27]), tuple(c[27:34]))
    mods = (sum(keys[0]) % 3, sum(keys[1]) % 3, sum(keys[2]) % 3, sum(keys[3]) % 3)
    out: list[int] = []
    # The added tile goes to a group with mod 1 (which becomes the pair group, the others complete
    # without a pair) or to one of two mod-2 groups (which becomes complete; the other holds the pair).
    if mods.count(1) == 1 and mods.count(2) == 0:
        g = mods.index(1)
        if all(h == g or _group(keys[h], h == 3)[0] for h in range(4)):
            base = GROUP_START[g]
            out.extend(base + r for r in _group_waits(keys[g], g == 3))
    elif mods.count(2) == 2 and mods.count(1) == 0:
        g1 = mods.index(2)
        g2 = mods.index(2, g1 + 1)
        if all(h in (g1, g2) or _group(keys[h], h == 3)[0] for h in range(4)):
            for g, other in ((g1, g2), (g2, g1)):
                if _group(keys[other], other == 3)[1]:
                    base = GROUP_START[g]
                    out.extend(base + r for r in _group_waits(keys[g], g == 3))
    if total == 13:
        # seven pairs: six pairs and a single
        if c.count(2) == 6 and c.count(1) == 1:
            single = c.index(1)
            if single not in out:
                out.append(single)
        # thirteen orphans
        if c[0] + c[8] + c[9] + c[17] + c[18] + c[26] + sum(c[27:34]) == 13:
            missing = [t for t in ORPHANS if c[t] == 0]
            if not missing:
                out = list(ORPHANS)
            elif len(missing) == 1 and missing[0] not in out:
                out.append(missing[0])
    out.sort()
    return out


def may_leave_tenpai(counts: Sequence[int]) -> bool:
    """A quick necessary condition: can some discard from this ``3n + 2``-tile concealed part leave tenpai?

    ``False`` means no discard does (so ``waits`` need not be asked for each); ``True`` decides nothing.
    A discard changes one group (suit or honours) and the winning tile one more, so in the regular form
    at most two groups may be incomplete now; seven pairs needs six pairs already, thirteen orphans
    twelve different terminals and honours.
    """
    c = counts.tolist() if hasattr(counts, "tolist") else counts
    incomplete = 0
    for g in range(4):
        start = GROUP_START[g]
        key = tuple(c[start : start + GROUP_LEN[g]])
        m = sum(key) % 3
        if m == 1:
            incomplete += 1
        elif m == 0 and key.count(0) == GROUP_LEN[g]:
            continue
        else:
            nopair, withpair = _group(key, g == 3)
            if not (withpair if m == 2 else nopair):
                incomplete += 1
    if incomplete <= 2:
        return True
    if sum(c) == 14:
        if sum(1 for x in c if x >= 2) >= 6:
            return True
        if sum(1 for t in ORPHANS if c[t]) >= 12:
            return True
    return False
