"""Sichuan bloody-battle (血战到底) fan scoring, kong payments and draw settlement: pure functions.

Rule set (one common variant; Sichuan tables differ from table to table). Source: the Sichuan
"bloody battle" fan table at http://juzizhaichaowu.com/jingdianjuzi/515574.html (plain win, all
pongs, pure suit, seven pairs, gen, self-draw, win after a kong, robbing a kong; payments doubling
per fan; 查花猪 / 查大叫 at an exhaustive draw). Our choices where tables differ:

==================  =====  ====================================================================
pattern             fan    when
==================  =====  ====================================================================
plain (平胡)          0    any complete hand without the missing suit
all pongs (对对胡)    +1    four pongs/kongs and a pair
pure suit (清一色)    +2    every tile of one suit
seven pairs (七对)    +2    seven pairs, nothing exposed (a four of a kind counts as two pairs)
gen (根)             +1    each tile whose four copies are all in the winner's hand or melds
self-draw (自摸)      +1    won on the player's own draw
after a kong (杠上花) +1    won on the replacement draw after a kong
robbing a kong (抢杠) +1    won on a tile another player adds to a pong
==================  =====  ====================================================================

A win is worth ``2 ** min(fan, FAN_CAP)`` points. Self-draw: every other player still in the hand
pays it; a win on a discard (or a robbed kong): the discarder (the konger) alone pays it. Several
players may win on one discard (一炮多响): the discarder pays each. Kongs (刮风下雨): an exposed kong
on a discard, the discarder pays 2; an added kong, each other player still in the hand pays 1; a
concealed kong, each other player still in the hand pays 2. At an exhaustive draw: a player still
holding the missing suit (花猪) pays ``2 ** FAN_CAP`` to every player still in the hand who is not
one; then a player who is not ready pays each ready player (neither a 花猪) the most that player's
hand could win on a discard (查大叫). Left out: refunding kong income at a draw (退税), 杠上炮,
one-nine and 2-5-8 hands, heavenly/earthly hands.
"""

from __future__ import annotations

import numpy as np

#: Fan above this is not paid (封顶).
FAN_CAP = 4
KONG_EXPOSED = 2  # paid by the discarder
KONG_ADDED = 1  # paid by each other player still in the hand
KONG_CONCEALED = 2  # paid by each other player still in the hand


def _suits_used(total: np.ndarray) -> set[int]:
    return {s for s in range(3) if total[9 * s : 9 * s + 9].any()}


def _decomposes(counts: list[int], melds: int) -> bool:
    """Whether ``counts`` is ``melds`` melds (pongs/chows) and one pair (plain recursion, 27 tiles)."""
    def rec(c: list[int], need_pair: bool) -> bool:
        i = next((t for t in range(27) if c[t]), None)
        if i is None:
            return not need_pair
        if need_pair and c[i] >= 2:
            c[i] -= 2
            if rec(c, False):
                c[i] += 2
                return True
            c[i] += 2
        if c[i] >= 3:
            c[i] -= 3
            if rec(c, need_pair):
                c[i] += 3
                return True
            c[i] += 3
        if i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for t in (i, i + 1, i + 2):
                c[t] -= 1
            ok = rec(c, need_pair)
            for t in (i, i + 1, i + 2):
                c[t] += 1
            if ok:
                return True
        return False

    return sum(counts) == 3 * melds + 2 and rec(list(counts), True)


def fan(concealed, melds, missing_suit: int, *, self_draw: bool = False, after_kong: bool = False,
        robbing_kong: bool = False) -> dict[str, int] | None:
    """Fan of a winning Sichuan hand, by pattern; None when the hand is not a win.

    Args:
        concealed: int[27] concealed counts including the winning tile.
        melds: list of ``(kind, tile)`` exposed melds, kind in {"pong", "kong"} (no chow in Sichuan;
            a concealed kong is listed as "kong" too).
        missing_suit: the declared suit (``tiles.suit_of`` index, 0..2).
        self_draw, after_kong, robbing_kong: how the hand was won.

    Returns:
        dict pattern -> fan (only the patterns that apply, "plain" always), or None.

    Raises:
        ValueError: bad shape, a meld kind other than pong/kong, a suit outside 0..2.
    """
    c = np.asarray(concealed, dtype=np.int64)
    if c.shape != (27,) or (c < 0).any() or (c > 4).any():
        raise ValueError(f"concealed must be int[27] counts 0..4 (Sichuan has no honours), got shape {c.shape}")
    if missing_suit not in (0, 1, 2):
        raise ValueError(f"missing_suit must be 0, 1 or 2, got {missing_suit!r}")
    total = c.copy()
    for kind, tile in melds:
        if kind not in ("pong", "kong"):
            raise ValueError(f"meld kind must be 'pong' or 'kong' (Sichuan has no chow), got {kind!r}")
        total[tile] += 3 if kind == "pong" else 4
    if missing_suit in _suits_used(total):
        return None
    counts = [int(v) for v in c]
    seven = not melds and c.sum() == 14 and all(v % 2 == 0 for v in counts)
    standard = _decomposes(counts, 4 - len(melds))
    if not (seven or standard):
        return None
    out = {"plain": 0}
    if standard and all(v in (0, 2, 3) for v in counts) and counts.count(2) == 1:
        out["all_pongs"] = 1
    if seven and "all_pongs" not in out:
        out["seven_pairs"] = 2
    if len(_suits_used(total)) == 1:
        out["pure_suit"] = 2
    gen = int((total == 4).sum())
    if gen:
        out["gen"] = gen
    # the one-fan circumstances of the win, in this order
    out.update((name, 1) for name, on in (("self_draw", self_draw), ("after_kong", after_kong),
                                          ("robbing_kong", robbing_kong)) if on)
    return out


def points(fans: dict[str, int]) -> int:
    """Points a win is worth: ``2 ** min(total fan, FAN_CAP)``."""
    return 2 ** min(sum(fans.values()), FAN_CAP)


def win_payments(winner: int, points_: int, *, discarder: int | None, live: list[int]) -> np.ndarray:
    """int64[4] score changes of one win: the discarder pays, or (self-draw) every other live seat.

    Args:
        winner: the winning seat.
        points_: the win's value (:func:`points`).
        discarder: the seat that discarded (or whose kong was robbed); None for a self-draw.
        live: seats still in the hand before this win (the winner included).
    """
    d = np.zeros(4, dtype=np.int64)
    payers = [discarder] if discarder is not None else [s for s in live if s != winner]
    for p in payers:
        d[p] -= points_
        d[winner] += points_
    return d


def kong_payments(konger: int, kind: str, *, discarder: int | None, live: list[int]) -> np.ndarray:
    """int64[4] score changes of a kong (刮风下雨); kind in {"exposed", "added", "concealed"}.

    Raises:
        ValueError: an unknown kind, or an exposed kong without its discarder.
    """
    d = np.zeros(4, dtype=np.int64)
    if kind == "exposed":
        if discarder is None:
            raise ValueError("an exposed kong is made on a discard: give its discarder")
        payers, amount = [discarder], KONG_EXPOSED
    elif kind in ("added", "concealed"):
        payers = [s for s in live if s != konger]
        amount = KONG_ADDED if kind == "added" else KONG_CONCEALED
    else:
        raise ValueError(f"kong kind must be 'exposed', 'added' or 'concealed', got {kind!r}")
    for p in payers:
        d[p] -= amount
        d[konger] += amount
    return d


def draw_settlement(live: list[int], pigs: list[int], ready_value: dict[int, int]) -> np.ndarray:
    """int64[4] score changes at an exhaustive draw (查花猪, then 查大叫).

    Args:
        live: seats still in the hand (not yet won).
        pigs: live seats still holding their missing suit.
        ready_value: for each live, non-pig seat that is ready, the most its hand could win on a
            discard (:func:`points` of its best wait); seats absent are not ready.
    """
    d = np.zeros(4, dtype=np.int64)
    cap = 2 ** FAN_CAP
    for pig in pigs:
        for s in live:
            if s not in pigs:
                d[pig] -= cap
                d[s] += cap
    for s in live:
        if s in pigs or s in ready_value:
            continue
        for r, value in ready_value.items():
            d[s] -= value
            d[r] += value
    return d
