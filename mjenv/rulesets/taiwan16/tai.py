"""Taiwanese 16-tile tai (台) scoring: the ``Rules(scoring="tai")`` option of ``taiwan16``.

SIMCAT (Sec. 2.1, Sec. 5) counts only who won, which stays the default (``scoring="points"``). This
module scores a win with the common Taiwanese tai table as published for 16-tile Taiwanese Mahjong
(Wikipedia, "Taiwanese mahjong", section "Scoring", https://en.wikipedia.org/wiki/Taiwanese_mahjong;
the same values as the Taiwan Mahjong Association table reproduced on mahjongtime.com, "Taiwanese
Mahjong Scoring"):

==========================  ===  =============================================================
pattern                     tai  when
==========================  ===  =============================================================
dealer                      1    the winner is the dealer
self_draw                   1    won on her own draw
concealed                   1    no exposed meld (concealed kongs allowed)
concealed_self_draw         1    both of the above (門清自摸: 3 tai together)
seat_flower                 1    each flower of the winner's seat (seat 0 = the dealer's, east)
flower_set                  2    all four seasons, or all four plants (花槓; replaces seat_flower)
dragon_pong                 1    each pong/kong of a dragon
seat_wind_pong              1    a pong/kong of the winner's seat wind
round_wind_pong             1    a pong/kong of east (one hand is one east round)
last_tile                   1    self-draw with the wall at ``draw_at`` tiles (海底撈月)
last_discard                1    won on a discard made with the wall at ``draw_at`` tiles (河底撈魚)
robbing_kong                1    won on a robbed added kong (搶槓)
all_chows                   2    five chows, a suited pair, no flowers, not a self-draw (平胡)
all_pongs                   4    five pongs/kongs (碰碰胡)
half_flush                  4    one suit plus honours (混一色)
full_flush                  8    one suit, no honours (清一色)
small_three_dragons         4    two dragon pongs and a dragon pair (小三元; dragon pongs still count)
big_three_dragons           8    three dragon pongs (大三元)
small_four_winds            8    three wind pongs and a wind pair (小四喜)
big_four_winds              16   four wind pongs (大四喜)
all_honours                 16   honours only (字一色)
==========================  ===  =============================================================

Left out: heavenly/earthly/human hands, three/four/five concealed pongs, the dealer's consecutive
wins (連莊), waiting-shape tai (edge, closed, single wait), winning on a kong's replacement tile
(槓上開花: the game does not record which draw was a replacement), eight/seven flowers (八仙過海,
七搶一), all-melded hands (全求人, 半求人) and round winds other than east.

Payment (zero-sum): a winner on a discard (or robbed kong) takes ``1 + tai`` from the discarder; a
self-drawing winner takes ``1 + tai`` from each opponent (one base point plus one point per tai).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: Tile ids of the honours (DESIGN: 27-30 winds east..north, 31-33 dragons).
WINDS = (27, 28, 29, 30)
DRAGONS = (31, 32, 33)


@lru_cache(maxsize=1 << 14)
def _decompositions(counts: tuple[int, ...]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Every split of concealed tile counts into pongs, chows and exactly one pair (as sorted
    ``(kind, lowest tile)`` tuples, kind in ``"pong"``, ``"chow"``, ``"pair"``)."""
    out: set[tuple[tuple[str, int], ...]] = set()

    def rec(c: list[int], parts: list[tuple[str, int]], pair: bool) -> None:
        i = next((k for k, n in enumerate(c) if n), -1)
        if i < 0:
            if pair:
                out.add(tuple(sorted(parts)))
            return
        if c[i] >= 3:
            c[i] -= 3
            rec(c, [*parts, ("pong", i)], pair)
            c[i] += 3
        if not pair and c[i] >= 2:
            c[i] -= 2
            rec(c, [*parts, ("pair", i)], True)
            c[i] += 2
        if i < 27 and i % 9 <= 6 and c[i + 1] and c[i + 2]:
            for k in (i, i + 1, i + 2):
                c[k] -= 1
            rec(c, [*parts, ("chow", i)], pair)
            for k in (i, i + 1, i + 2):
                c[k] += 1

    rec(list(counts), [], False)
    return tuple(sorted(out))


def _patterns(game, seat: int, parts: list[tuple[str, int]], self_draw: bool, concealed: bool) -> dict[str, int]:
    """The tai patterns of one decomposition ``parts`` (declared melds and concealed parts)."""
    pats: dict[str, int] = {}
    wind = (seat - game.dealer) % 4
    if seat == game.dealer:
        pats["dealer"] = 1
    if self_draw:
        pats["self_draw"] = 1
    if concealed:
        pats["concealed"] = 1
        if self_draw:
            pats["concealed_self_draw"] = 1
    fl = game.flowers[seat]
    for group in (0, 4):
        if fl[group : group + 4].all():
            pats["flower_set"] = pats.get("flower_set", 0) + 2
        elif fl[group + wind]:
            pats["seat_flower"] = pats.get("seat_flower", 0) + 1
    pongs = [t for k, t in parts if k == "pong"]
    pair = next(t for k, t in parts if k == "pair")
    chows = [t for k, t in parts if k == "chow"]
    dragon_pongs = sum(t in DRAGONS for t in pongs)
    wind_pongs = sum(t in WINDS for t in pongs)
    if dragon_pongs:
        pats["dragon_pong"] = dragon_pongs
    if WINDS[wind] in pongs:
        pats["seat_wind_pong"] = 1
    if WINDS[0] in pongs:
        pats["round_wind_pong"] = 1
    if game.wall_remaining == game.rules.draw_at:  # no draw is left: the last tile or its discard
        pats["last_tile" if self_draw else "last_discard"] = 1
    if int(game.end_code) == 3:  # EndReason.ROBBED_KONG
        pats["robbing_kong"] = 1
    if len(chows) == 5 and pair < 27 and not fl.any() and not self_draw:
        pats["all_chows"] = 2
    if not chows:
        pats["all_pongs"] = 4
    tiles = [t for _, t in parts]
    suits = {t // 9 for t in tiles if t < 27}
    honours = any(t >= 27 for t in tiles)
    if not suits:
        pats["all_honours"] = 16
    elif len(suits) == 1:
        pats["half_flush" if honours else "full_flush"] = 4 if honours else 8
    if dragon_pongs == 3:
        pats["big_three_dragons"] = 8
    elif dragon_pongs == 2 and pair in DRAGONS:
        pats["small_three_dragons"] = 4
    if wind_pongs == 4:
        pats["big_four_winds"] = 16
    elif wind_pongs == 3 and pair in WINDS:
        pats["small_four_winds"] = 8
    return pats


def tai_patterns(game, seat: int, self_draw: bool) -> dict[str, int]:
    """The tai of ``seat``'s complete hand in ``game`` (its concealed tiles include the winning tile).

    Args:
        game: a finished :class:`~mjenv.game.Game` (34 tile types) that ``seat`` won.
        seat: the winner 0..3.
        self_draw: whether she won on her own draw.

    Returns:
        ``{pattern: tai}`` of the decomposition with the most tai (empty when the hand is not complete).

    Raises:
        ValueError: a rule set without honours (the table needs tile ids 27-33).
    """
    if game.num_tile_types != 34:
        raise ValueError(f"tai scoring needs the 34 tile types of taiwan16, got {game.num_tile_types}")
    rows = [(kind, t) for kind, t, _, _ in game.meld_table[seat].tolist() if kind >= 0]
    declared = [("chow" if kind == 0 else "pong", t) for kind, t in rows]  # kongs score as pongs
    concealed = all(kind == 3 for kind, _ in rows)  # 3: MeldKind.CONCEALED_KONG
    counts = [int(x) for x in game.hands[seat]]
    if not self_draw:  # a won discard (or robbed kong) is not in the concealed hand
        counts[game.winning_tile] += 1
    best: dict[str, int] = {}
    for split in _decompositions(tuple(counts)):
        pats = _patterns(game, seat, declared + list(split), self_draw, concealed)
        if sum(pats.values()) > sum(best.values()) or not best:
            best = pats
    return best


def tai_scores(game, winners: list[int], deal_in: int) -> np.ndarray:
    """Zero-sum scores of a finished hand under tai scoring (see the module docstring).

    Returns:
        int64[4] the score of each seat.
    """
    scores = np.zeros(4, dtype=np.int64)
    for w in winners:
        pts = 1 + sum(tai_patterns(game, w, self_draw=deal_in < 0).values())
        if deal_in >= 0:
            scores[w] += pts
            scores[deal_in] -= pts
        else:
            scores -= pts
            scores[w] += 4 * pts
    return scores
