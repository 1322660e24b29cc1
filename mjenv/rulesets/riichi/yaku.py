"""Yaku and yakuman of Tenhou's ranked rules, on mjenv's 34 tile types.

Hands come in as count vectors (shape ``(34,)``, mjenv order: 0-8 bamboo, 9-17 characters, 18-26 dots,
27-33 E S W N white green red) and, for the regular form, as set codes (``t`` a triplet or kan of type
``t``, ``34 + t`` a run from ``t``; see ``hand``). Every function returns ``[(name, han), ...]``.

Tenhou's choices followed here: open tanyao counts; a single yakuman never counts double (thirteen-wait
thirteen orphans, suuankou tanki, junsei chuuren and daisuushii are named apart but are 13 han each);
different yakuman in one hand add up; renhou is not a yaku; ryuuiisou needs no green dragon.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Terminal or honour, per type.
TERMINAL_OR_HONOUR = tuple(t >= 27 or t % 9 in (0, 8) for t in range(34))
TERMINAL = tuple(t < 27 and t % 9 in (0, 8) for t in range(34))
WIND_NAMES = ("east", "south", "west", "north")
DRAGONS = (31, 32, 33)
DRAGON_NAMES = ("haku", "hatsu", "chun")
SEAT_WIND_NAMES = tuple(f"seat wind {w}" for w in WIND_NAMES)
ROUND_WIND_NAMES = tuple(f"round wind {w}" for w in WIND_NAMES)
_CHUUREN = (3, 1, 1, 1, 1, 1, 1, 1, 3)

#: Every name ``score_hand`` can report, with its closed han (yakuman: 13).
YAKU_HAN = {
    "menzen tsumo": 1,
    "riichi": 1,
    "ippatsu": 1,
    "chankan": 1,
    "rinshan kaihou": 1,
    "haitei": 1,
    "houtei": 1,
    "pinfu": 1,
    "tanyao": 1,
    "iipeikou": 1,
    "haku": 1,
    "hatsu": 1,
    "chun": 1,
    **dict.fromkeys(SEAT_WIND_NAMES, 1),
    **dict.fromkeys(ROUND_WIND_NAMES, 1),
    "double riichi": 2,
    "chiitoitsu": 2,
    "chanta": 2,
    "ittsu": 2,
    "sanshoku doujun": 2,
    "sanshoku doukou": 2,
    "sankantsu": 2,
    "toitoi": 2,
    "sanankou": 2,
    "shousangen": 2,
    "honroutou": 2,
    "ryanpeikou": 3,
    "junchan": 3,
    "honitsu": 3,
    "chinitsu": 6,
    "tenhou": 13,
    "chiihou": 13,
    "daisangen": 13,
    "suuankou": 13,
    "suuankou tanki": 13,
    "tsuuiisou": 13,
    "ryuuiisou": 13,
    "chinroutou": 13,
    "chuuren poutou": 13,
    "junsei chuuren poutou": 13,
    "kokushi musou": 13,
    "kokushi musou 13-wait": 13,
    "daisuushii": 13,
    "shousuushii": 13,
    "suukantsu": 13,
    "dora": 1,
    "ura dora": 1,
    "aka dora": 1,
}


def situational(ctx, menzen: bool) -> list[tuple[str, int]]:
    """Yaku from the win's situation (riichi, ippatsu, menzen tsumo, rinshan, chankan, haitei, houtei)."""
    out = []
    if ctx.is_double_riichi:
        out.append(("double riichi", 2))
    elif ctx.is_riichi:
        out.append(("riichi", 1))
    if ctx.is_ippatsu:
        out.append(("ippatsu", 1))
    if ctx.is_tsumo and menzen:
        out.append(("menzen tsumo", 1))
    if ctx.is_rinshan:
        out.append(("rinshan kaihou", 1))
    if ctx.is_chankan:
        out.append(("chankan", 1))
    if ctx.is_haitei:
        out.append(("haitei", 1))
    if ctx.is_houtei:
        out.append(("houtei", 1))
    return out


def tile_yaku(
    c: Sequence[int], menzen: bool, kans: int, seat_wind: int, round_wind: int
) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """Yakuman and yaku decided by the tiles alone (all of them, melds included).

    In a winning hand of the regular or seven-pairs form an honour held three or four times is a
    triplet or kan and one held twice is the pair, so yakuhai, shousangen, the dragon and wind yakuman
    are decided by the counts too. (Thirteen orphans is handled apart and never reaches here.)

    Args:
        c: shape ``(34,)``, counts of all the hand's tiles (a kan counts 4).
        menzen: the hand is closed (closed kans allowed).
        kans: number of kans.
        seat_wind, round_wind: 0..3 (East..North).

    Returns:
        ``(yakuman, yaku)``: tanyao, honitsu/chinitsu, honroutou, yakuhai, shousangen; daisangen,
        tsuuiisou, ryuuiisou, chinroutou, daisuushii/shousuushii, suukantsu.
    """
    ym = []
    out = []
    s0 = c[0] + c[1] + c[2] + c[3] + c[4] + c[5] + c[6] + c[7] + c[8]
    s1 = c[9] + c[10] + c[11] + c[12] + c[13] + c[14] + c[15] + c[16] + c[17]
    s2 = c[18] + c[19] + c[20] + c[21] + c[22] + c[23] + c[24] + c[25] + c[26]
    wind = c[27] + c[28] + c[29] + c[30]
    dragon = c[31] + c[32] + c[33]
    honours = wind + dragon
    total = s0 + s1 + s2 + honours
    terms = c[0] + c[8] + c[9] + c[17] + c[18] + c[26]
    nsuits = (s0 > 0) + (s1 > 0) + (s2 > 0)
    # yakuman
    if dragon >= 9 and c[31] >= 3 and c[32] >= 3 and c[33] >= 3:
        ym.append(("daisangen", 13))
    if honours == total:
        ym.append(("tsuuiisou", 13))
    elif s1 == 0 and s2 == 0 and c[1] + c[2] + c[3] + c[5] + c[7] + c[32] == total:
        ym.append(("ryuuiisou", 13))
    if terms == total:
        ym.append(("chinroutou", 13))
    if wind >= 11:
        wind_trips = (c[27] >= 3) + (c[28] >= 3) + (c[29] >= 3) + (c[30] >= 3)
        if wind_trips == 4:
            ym.append(("daisuushii", 13))
        elif wind_trips == 3 and (c[27] == 2) + (c[28] == 2) + (c[29] == 2) + (c[30] == 2) == 1:
            ym.append(("shousuushii", 13))
    if kans == 4:
        ym.append(("suukantsu", 13))
    if ym:
        return ym, out
    # yaku
    if honours == 0 and terms == 0:
        out.append(("tanyao", 1))
    if nsuits == 1:
        if honours:
            out.append(("honitsu", 3 if menzen else 2))
        else:
            out.append(("chinitsu", 6 if menzen else 5))
    if honours and terms and honours + terms == total:
        out.append(("honroutou", 2))
    if dragon >= 3:
        for i in range(3):
            if c[31 + i] >= 3:
                out.append((DRAGON_NAMES[i], 1))
        if dragon >= 8 and min(c[31], c[32], c[33]) == 2:
            out.append(("shousangen", 2))
    if c[27 + seat_wind] >= 3:
        out.append((SEAT_WIND_NAMES[seat_wind], 1))
    if c[27 + round_wind] >= 3:
        out.append((ROUND_WIND_NAMES[round_wind], 1))
    return ym, out


def set_yaku(pair: int, sets: Sequence[int], menzen: bool, kans: int) -> list[tuple[str, int]]:
    """Yaku decided by a regular decomposition (independent of which set the winning tile completed).

    Args:
        pair: the pair's type.
        sets: the four set codes, melds included.
        menzen: the hand is closed (closed kans allowed).
        kans: number of kans among the melds.
    """
    out = []
    runs = [s - 34 for s in sets if s >= 34]
    trips = [s for s in sets if s < 34]
    if menzen and len(runs) >= 2:
        rs = sorted(runs)
        pairs = 0
        i = 0
        while i + 1 < len(rs):
            if rs[i] == rs[i + 1]:
                pairs += 1
                i += 2
            else:
                i += 1
        if pairs == 2:
            out.append(("ryanpeikou", 3))
        elif pairs == 1:
            out.append(("iipeikou", 1))
    if len(runs) >= 3:
        rset = set(runs)
        for r in range(7):
            if r in rset and r + 9 in rset and r + 18 in rset:
                out.append(("sanshoku doujun", 2 if menzen else 1))
                break
        for s in (0, 9, 18):
            if s in rset and s + 3 in rset and s + 6 in rset:
                out.append(("ittsu", 2 if menzen else 1))
                break
    if runs:
        if (
            TERMINAL_OR_HONOUR[pair]
            and all(TERMINAL_OR_HONOUR[t] for t in trips)
            and all(r % 9 in (0, 6) for r in runs)
        ):
            if pair >= 27 or any(t >= 27 for t in trips):
                out.append(("chanta", 2 if menzen else 1))
            else:
                out.append(("junchan", 3 if menzen else 2))
    else:
        out.append(("toitoi", 2))
    if len(trips) >= 3:
        tset = set(trips)
        for r in range(9):
            if r in tset and r + 9 in tset and r + 18 in tset:
                out.append(("sanshoku doukou", 2))
                break
    if kans == 3:
        out.append(("sankantsu", 2))
    return out


def chuuren(c: Sequence[int], win34: int) -> list[tuple[str, int]]:
    """Chuuren poutou of a closed hand without melds (``c`` the 14 concealed tiles)."""
    for s in (0, 9, 18):
        if sum(c[s : s + 9]) == 14:
            extra = [c[s + i] - _CHUUREN[i] for i in range(9)]
            if min(extra) >= 0:
                if extra[win34 - s] == 1 if s <= win34 < s + 9 else False:
                    return [("junsei chuuren poutou", 13)]
                return [("chuuren poutou", 13)]
    return []
