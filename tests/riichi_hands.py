"""Random winning Riichi hands in random situations, and the same hand for the ``mahjong`` library.

Used by ``tests/test_riichi_scoring.py`` and ``benchmarks/riichi_scoring_speed.py``. Each hand is built
from a random *theme* (plain, simples, one suit, terminals, honours, all green, same runs in three suits,
straight, twin runs, triplets, same triplets in three suits, kans, nine gates, seven pairs, thirteen
orphans, sets crowded into a few ranks) so that every yaku and yakuman of Tenhou's list comes up in a
few thousand hands.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from mjenv.rulesets.riichi.scoring import Meld, WinContext
from mjenv.rulesets.riichi.tiles136 import FIRST136

ORPHANS = (0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33)
GREEN = (1, 2, 3, 5, 7, 32)
THEMES = (
    "plain",
    "plain",
    "plain",
    "simples",
    "flush",
    "flush",
    "terminals",
    "honours",
    "honours",
    "green",
    "sanshoku",
    "ittsu",
    "peikou",
    "toitoi",
    "doukou",
    "kans",
    "chuuren",
    "pairs",
    "pairs",
    "orphans",
    "winds",
    "dragons",
    "terminal_trips",
    "dense",
    "dense",
)

#: mjenv's yaku names -> the ``mahjong`` library's (``None``: compared by name only when the library
#: reports that name; see ``LIBRARY_NAMES``).
LIBRARY_NAMES = {
    "menzen tsumo": "Menzen Tsumo",
    "riichi": "Riichi",
    "ippatsu": "Ippatsu",
    "chankan": "Chankan",
    "rinshan kaihou": "Rinshan Kaihou",
    "haitei": "Haitei Raoyue",
    "houtei": "Houtei Raoyui",
    "pinfu": "Pinfu",
    "tanyao": "Tanyao",
    "iipeikou": "Iipeiko",
    "haku": "Yakuhai (haku)",
    "hatsu": "Yakuhai (hatsu)",
    "chun": "Yakuhai (chun)",
    **{f"seat wind {w}": f"Yakuhai (seat wind {w})" for w in ("east", "south", "west", "north")},
    **{f"round wind {w}": f"Yakuhai (round wind {w})" for w in ("east", "south", "west", "north")},
    "double riichi": "Double Riichi",
    "chiitoitsu": "Chiitoitsu",
    "chanta": "Chantai",
    "ittsu": "Ittsu",
    "sanshoku doujun": "Sanshoku Doujun",
    "sanshoku doukou": "Sanshoku Doukou",
    "sankantsu": "San Kantsu",
    "toitoi": "Toitoi",
    "sanankou": "San Ankou",
    "shousangen": "Shou Sangen",
    "honroutou": "Honroutou",
    "ryanpeikou": "Ryanpeikou",
    "junchan": "Junchan",
    "honitsu": "Honitsu",
    "chinitsu": "Chinitsu",
    "tenhou": "Tenhou",
    "chiihou": "Chiihou",
    "daisangen": "Daisangen",
    "suuankou": "Suu Ankou",
    "suuankou tanki": "Suu Ankou Tanki",
    "tsuuiisou": "Tsuu Iisou",
    "ryuuiisou": "Ryuuiisou",
    "chinroutou": "Chinroutou",
    "chuuren poutou": "Chuuren Poutou",
    "junsei chuuren poutou": "Daburu Chuuren Poutou",
    "kokushi musou": "Kokushi Musou",
    "kokushi musou 13-wait": "Kokushi Musou Juusanmen Matchi",
    "daisuushii": "Dai Suushii",
    "shousuushii": "Shousuushii",
    "suukantsu": "Suu Kantsu",
    "dora": "Dora",
    "ura dora": "Ura Dora",
    "aka dora": "Aka Dora",
}


@dataclass
class Deal:
    """One random win: the arguments of ``score_hand``."""

    concealed: list[int]
    melds: list[Meld]
    win_tile: int
    ctx: WinContext


def _suited(rng: random.Random, ranks, suits=(0, 1, 2)) -> int:
    return 9 * rng.choice(suits) + rng.choice(ranks)


def _sets_for(theme: str, rng: random.Random) -> tuple[list[tuple[str, int]], int] | None:
    """Four sets ``("run"|"trip", type)`` and a pair type for a regular-form theme."""
    sets: list[tuple[str, int]] = []

    def rand_set(kind=None, ranks_run=range(7), ranks_trip=range(9), suits=(0, 1, 2), honours=True):
        kind = kind or rng.choice(("run", "run", "trip"))
        if kind == "run":
            return ("run", _suited(rng, ranks_run, suits))
        if honours and rng.random() < 0.3:
            return ("trip", rng.randrange(27, 34))
        return ("trip", _suited(rng, ranks_trip, suits))

    pair = None
    if theme == "plain":
        sets = [rand_set() for _ in range(4)]
        pair = rng.randrange(34)
    elif theme == "simples":
        sets = [rand_set(ranks_run=range(1, 6), ranks_trip=range(1, 8), honours=False) for _ in range(4)]
        pair = _suited(rng, range(1, 8))
    elif theme == "flush":
        s = (rng.randrange(3),)
        hon = rng.random() < 0.5
        sets = [rand_set(suits=s, honours=hon) for _ in range(4)]
        pair = rng.randrange(27, 34) if hon and rng.random() < 0.3 else _suited(rng, range(9), s)
    elif theme == "terminals":
        hon = rng.random() < 0.5
        sets = [rand_set(ranks_run=(0, 6), ranks_trip=(0, 8), honours=hon) for _ in range(4)]
        pair = rng.choice(ORPHANS if hon else ORPHANS[:6])
    elif theme == "terminal_trips":
        hon = rng.random() < 0.6
        pool = ORPHANS if hon else ORPHANS[:6]
        sets = [("trip", t) for t in rng.sample(pool, 4)]
        pair = rng.choice(pool)
    elif theme == "honours":
        sets = [("trip", t) for t in rng.sample(range(27, 34), rng.choice((2, 3, 4)))]
        sets += [rand_set() for _ in range(4 - len(sets))]
        pair = rng.randrange(27, 34)
    elif theme == "winds":
        n = rng.choice((3, 4))
        sets = [("trip", t) for t in rng.sample(range(27, 31), n)] + [rand_set() for _ in range(4 - n)]
        pair = rng.randrange(27, 31) if rng.random() < 0.7 else rng.randrange(34)
    elif theme == "dragons":
        n = rng.choice((2, 3))
        sets = [("trip", t) for t in rng.sample(range(31, 34), n)] + [rand_set() for _ in range(4 - n)]
        pair = rng.randrange(31, 34) if rng.random() < 0.7 else rng.randrange(34)
    elif theme == "green":
        runs = [("run", 1)] * rng.randrange(3)  # 234s
        sets = runs + [("trip", rng.choice(GREEN)) for _ in range(4 - len(runs))]
        pair = rng.choice(GREEN)
    elif theme == "sanshoku":
        r = rng.randrange(7)
        sets = [("run", r), ("run", 9 + r), ("run", 18 + r), rand_set()]
        pair = rng.randrange(34)
    elif theme == "ittsu":
        s = 9 * rng.randrange(3)
        sets = [("run", s), ("run", s + 3), ("run", s + 6), rand_set()]
        pair = rng.randrange(34)
    elif theme == "peikou":
        a = rand_set("run")
        b = rand_set("run") if rng.random() < 0.4 else rand_set()
        sets = [a, a, b, b]
        pair = rng.randrange(34)
    elif theme == "toitoi":
        sets = [rand_set("trip") for _ in range(4)]
        pair = rng.randrange(34)
    elif theme == "doukou":
        r = rng.randrange(9)
        sets = [("trip", r), ("trip", 9 + r), ("trip", 18 + r), rand_set()]
        pair = rng.randrange(34)
    elif theme == "dense":  # sets crowded into a few ranks of one suit: many readings of one hand
        s = (rng.randrange(3),)
        lo = rng.randrange(6)
        sets = [
            rand_set(ranks_run=range(lo, min(lo + 2, 6) + 1), ranks_trip=range(lo, lo + 4), suits=s, honours=False)
            for _ in range(rng.choice((3, 4)))
        ]
        sets += [rand_set() for _ in range(4 - len(sets))]
        pair = _suited(rng, range(lo, lo + 4), s)
    elif theme == "kans":
        sets = [rand_set("trip") for _ in range(4)]
        pair = rng.randrange(34)
    else:
        return None
    return sets, pair


def _alloc(types: list[int], rng: random.Random, pools: dict[int, list[int]]) -> list[int] | None:
    out = []
    for t in types:
        pool = pools.setdefault(t, rng.sample(range(FIRST136[t], FIRST136[t] + 4), 4))
        if not pool:
            return None
        out.append(pool.pop())
    return out


def _tiles_of(kind: str, t: int) -> list[int]:
    return [t, t + 1, t + 2] if kind == "run" else [t, t, t]


def random_deal(rng: random.Random) -> Deal:
    """A random winning hand (it may have no yaku) in a random, consistent situation."""
    while True:
        deal = _try_deal(rng)
        if deal is not None:
            return deal


def _try_deal(rng: random.Random) -> Deal | None:
    theme = rng.choice(THEMES)
    pools: dict[int, list[int]] = {}
    melds: list[Meld] = []
    if theme == "pairs":
        kind = rng.random()
        if kind < 0.15:
            types = list(range(27, 34))
        elif kind < 0.35:
            types = rng.sample(ORPHANS, 7)
        elif kind < 0.55:
            s = rng.randrange(3)
            types = rng.sample([9 * s + r for r in range(9)] + ([] if rng.random() < 0.5 else [27, 31]), 7)
        elif kind < 0.7:
            types = rng.sample([9 * s + r for s in range(3) for r in range(1, 8)], 7)
        else:
            types = rng.sample(range(34), 7)
        concealed = _alloc([t for t in types for _ in range(2)], rng, pools)
    elif theme == "orphans":
        concealed = _alloc(list(ORPHANS) + [rng.choice(ORPHANS)], rng, pools)
    elif theme == "chuuren":
        s = 9 * rng.randrange(3)
        types = [s + r for r, n in enumerate((3, 1, 1, 1, 1, 1, 1, 1, 3)) for _ in range(n)] + [s + rng.randrange(9)]
        concealed = _alloc(types, rng, pools)
    else:
        got = _sets_for(theme, rng)
        if got is None:
            return None
        sets, pair = got
        concealed = []
        p_open = rng.choice((0.0, 0.0, 0.3, 0.6))
        for kind, t in sets:
            if kind == "run" and t % 9 > 6:
                return None
            tiles = _alloc(_tiles_of(kind, t), rng, pools)
            if tiles is None:
                return None
            kan_p = 0.8 if theme == "kans" else 0.08
            if kind == "trip" and rng.random() < kan_p:
                extra = _alloc([t], rng, pools)
                if extra is None:
                    return None
                tiles += extra
                mk = rng.choice(("minkan", "ankan", "kakan", "ankan"))
                melds.append(Meld(mk, tuple(tiles), None if mk == "ankan" else tiles[0]))
            elif rng.random() < p_open:
                melds.append(Meld("chi" if kind == "run" else "pon", tuple(tiles), tiles[0]))
            else:
                concealed += tiles
        got = _alloc([pair, pair], rng, pools)
        if got is None:
            return None
        concealed += got
    if concealed is None:
        return None
    rng.shuffle(concealed)
    win_tile = rng.choice(concealed)
    closed = all(m.kind == "ankan" for m in melds)
    kans = sum(1 for m in melds if m.kind in ("minkan", "ankan", "kakan"))
    tsumo = rng.random() < 0.5
    seat = rng.randrange(4)
    riichi = closed and rng.random() < 0.5
    double = riichi and rng.random() < 0.15
    ippatsu = riichi and rng.random() < 0.2
    rinshan = tsumo and kans > 0 and rng.random() < 0.4
    chankan = (not tsumo) and rng.random() < 0.05
    haitei = tsumo and not rinshan and rng.random() < 0.07
    houtei = (not tsumo) and not chankan and rng.random() < 0.07
    tenhou = chiihou = False
    if tsumo and not melds and not riichi and rng.random() < 0.03:
        tenhou = seat == 0
        chiihou = seat != 0
    used = set(concealed) | {t for m in melds for t in m.tiles}
    free = [t for t in range(136) if t not in used]
    n_ind = 1 + kans + (rng.randrange(3) if rng.random() < 0.2 else 0)
    inds = rng.sample(free, 2 * n_ind)
    ctx = WinContext(
        is_tsumo=tsumo,
        is_riichi=riichi and not double,
        is_double_riichi=double,
        is_ippatsu=ippatsu,
        is_rinshan=rinshan,
        is_chankan=chankan,
        is_haitei=haitei,
        is_houtei=houtei,
        is_tenhou=tenhou,
        is_chiihou=chiihou,
        seat_wind=seat,
        round_wind=rng.choice((0, 0, 1, 1, 2, 3)),
        dora_indicators=tuple(inds[:n_ind]),
        ura_indicators=tuple(inds[n_ind:]),
        honba=rng.choice((0, 0, 0, 1, 2, 5)),
    )
    return Deal(concealed, melds, win_tile, ctx)


def library_inputs(deal: Deal, options=None) -> tuple:
    """The ``mahjong`` library's arguments for ``deal``: (tiles, win_tile, melds, dora_indicators, config,
    ura_dora_indicators), under ``options`` (default: :func:`tenhou_options`)."""
    from mahjong.hand_calculating.hand_config import HandConfig
    from mahjong.meld import Meld as LibMeld

    kinds = {
        "chi": LibMeld.CHI,
        "pon": LibMeld.PON,
        "minkan": LibMeld.KAN,
        "ankan": LibMeld.KAN,
        "kakan": LibMeld.SHOUMINKAN,
    }
    melds = [
        LibMeld(meld_type=kinds[m.kind], tiles=sorted(m.tiles), opened=m.kind != "ankan", called_tile=m.called)
        for m in deal.melds
    ]
    c = deal.ctx
    config = HandConfig(
        is_tsumo=c.is_tsumo,
        is_riichi=c.is_riichi,
        is_ippatsu=c.is_ippatsu,
        is_rinshan=c.is_rinshan,
        is_chankan=c.is_chankan,
        is_haitei=c.is_haitei,
        is_houtei=c.is_houtei,
        is_daburu_riichi=c.is_double_riichi,
        is_tenhou=c.is_tenhou,
        is_chiihou=c.is_chiihou,
        player_wind=27 + c.seat_wind,
        round_wind=27 + c.round_wind,
        tsumi_number=c.honba,
        options=tenhou_options() if options is None else options,
    )
    tiles = list(deal.concealed) + [t for m in deal.melds for t in m.tiles]
    return tiles, deal.win_tile, melds, list(c.dora_indicators), config, list(c.ura_indicators)


def library_call(deal: Deal):
    """Score ``deal`` with the ``mahjong`` library under Tenhou's options; returns its HandResponse."""
    from mahjong.hand_calculating.hand import HandCalculator

    tiles, win_tile, melds, dora, config, ura = library_inputs(deal)
    return HandCalculator.estimate_hand_value(
        tiles, win_tile, melds=melds, dora_indicators=dora, config=config, ura_dora_indicators=ura
    )


def tenhou_options():
    """The ``mahjong`` library's options for Tenhou's ranked rules."""
    from mahjong.hand_calculating.hand_config import OptionalRules

    return OptionalRules(
        has_open_tanyao=True,
        has_aka_dora=True,
        has_double_yakuman=False,
        kazoe_limit=0,
        kiriage=False,
        fu_for_open_pinfu=True,
        fu_for_pinfu_tsumo=False,
        renhou_as_yakuman=False,
    )
