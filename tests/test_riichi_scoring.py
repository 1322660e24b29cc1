"""mjenv's Riichi scorer (Tenhou rules): fixed cases, then agreement with the ``mahjong`` library."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from mjenv.rulesets.riichi.hand import is_winning_shape, waits
from mjenv.rulesets.riichi.scoring import (
    Meld,
    WinContext,
    discards_tenpai_yaku,
    score_hand,
    tenpai_has_yaku,
)
from mjenv.rulesets.riichi.tiles136 import FIRST136, TYPE34
from mjenv.rulesets.riichi.yaku import YAKU_HAN
from tests.riichi_hands import LIBRARY_NAMES, random_deal

_SUIT = {"s": 0, "m": 9, "p": 18, "z": 27}


def tiles(text: str, used: dict[int, int] | None = None) -> list[int]:
    """136-ids of an mps string (``0`` = the red five); ``used`` carries the copies taken between calls."""
    out: list[int] = []
    used = {} if used is None else used
    digits: list[str] = []
    for ch in text:
        if ch.isdigit():
            digits.append(ch)
            continue
        for d in digits:
            red = d == "0"
            t34 = _SUIT[ch] + (4 if red else int(d) - 1)
            base = FIRST136[t34]
            if red:
                out.append(base)  # copy 0 of a five is the red one
                continue
            k = used.get(t34, 1 if ch != "z" and int(d) == 5 else 0)
            assert k <= 3, f"too many {d}{ch} (write a red five as 0)"
            out.append(base + k)
            used[t34] = k + 1
        digits = []
    return out


def win(hand: str, win_tile: str, melds=(), **ctx):
    """Score ``hand`` (mps) won on ``win_tile``; ``melds`` are ``(kind, mps)`` pairs, the first tile called."""
    used: dict[int, int] = {}
    ids = tiles(hand, used)
    w = tiles(win_tile, {})[0]
    assert w in ids
    ms = []
    for kind, text in melds:
        m = tuple(tiles(text, used))
        ms.append(Meld(kind, m, None if kind == "ankan" else m[0]))
    return score_hand(ids, ms, w, WinContext(**ctx))


def test_pinfu_tsumo_is_20_fu():
    r = win("234789m12345666p", "6p", is_tsumo=True, seat_wind=1)
    assert (r.han, r.fu) == (2, 20)
    assert {n for n, _ in r.yaku} == {"pinfu", "menzen tsumo"}
    assert (r.cost["tsumo_dealer"], r.cost["tsumo_nondealer"]) == (700, 400)


def test_pinfu_ron_is_30_fu():
    r = win("234789m12345666p", "6p", is_tsumo=False, seat_wind=1)
    assert (r.han, r.fu, r.cost["ron"]) == (1, 30, 1000)


def test_chiitoitsu_25_fu():
    r = win("1199m2288p3377s11z", "1z", is_tsumo=False, seat_wind=1, is_riichi=True)
    assert (r.han, r.fu, r.cost["ron"]) == (3, 25, 3200)


def test_open_pinfu_shape_ron_is_30_fu():
    r = win("234m234p34566s", "6s", melds=[("chi", "678s")], is_tsumo=False, seat_wind=1)
    assert (r.han, r.fu, r.cost["ron"]) == (1, 30, 1000)
    assert r.yaku == [("tanyao", 1)]


def test_no_yaku_is_none_and_dora_is_not_a_yaku():
    assert (
        win(
            "234m234p34566s",
            "6s",
            melds=[("pon", "999s")],
            is_tsumo=False,
            seat_wind=1,
            dora_indicators=tuple(tiles("8s")),
        )
        is None
    )


def test_sanankou_with_a_ron_completed_triplet_does_not_count():
    # 111m 333p 555s concealed, 99s pair, 234s run; ron on 5s completes the 555s triplet: two concealed only
    r = win("111m333p234555s99s", "5s", is_tsumo=False, seat_wind=1)
    assert r is None or "sanankou" not in {n for n, _ in r.yaku}
    r = win("111m333p234555s99s", "5s", is_tsumo=True, seat_wind=1)
    assert "sanankou" in {n for n, _ in r.yaku}


def test_no_kiriage_mangan():
    # 4 han 30 fu non-dealer ron: 7,700 (riichi, pinfu, tanyao, dora 1)
    r = win("234678m23455p678s", "4p", is_tsumo=False, seat_wind=1, is_riichi=True, dora_indicators=tuple(tiles("1m")))
    assert (r.han, r.fu, r.cost["ron"], r.limit) == (4, 30, 7700, None)
    # 3 han 60 fu: riichi + sanankou, 20 + 10 (closed ron) + 3 x 8 (terminal/honour ankou) + 2 (kanchan)
    r = win("111m88999p456s444z", "5s", is_tsumo=False, seat_wind=1, is_riichi=True)
    assert (r.han, r.fu, r.cost["ron"], r.limit) == (3, 60, 7700, None)
    assert {n for n, _ in r.yaku} == {"riichi", "sanankou"}


def test_kazoe_yakuman():
    # riichi, tsumo, pinfu, chinitsu, ryanpeikou = 12 han, two dora: 14 han
    r = win("22334466778899m", "2m", is_tsumo=True, seat_wind=1, is_riichi=True, dora_indicators=tuple(tiles("1m")))
    assert r.han == 14
    assert r.limit == "kazoe yakuman" and r.yakuman == 0 and r.cost["total"] == 32000


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda h, m, w, c: (h[:13], m, w, c), "concealed"),
        (lambda h, m, w, c: (h, m, 135, c), "winning tile"),
        (lambda h, m, w, c: (h[:-1] + [136], m, w, c), "0..135"),
        (lambda h, m, w, c: (h[:-1] + [1.5], m, w, c), "0..135"),
        (lambda h, m, w, c: (h[:-1] + [h[0]], m, w, c), "twice"),
        (lambda h, m, w, c: (h[:11], [Meld("pong", (100, 101, 102), 100)], w, c), "unknown"),
        (lambda h, m, w, c: (h[:11], [Meld("chi", (100, 104, 112), 100)], w, c), "consecutive"),
        (lambda h, m, w, c: (h[:11], [Meld("pon", (100, 101, 102), 3)], w, c), "called"),
        (lambda h, m, w, c: (h, m, w, WinContext(is_tsumo=False, is_rinshan=True)), "tsumo wins"),
        (lambda h, m, w, c: (h, m, w, WinContext(is_tsumo=True, is_houtei=True)), "ron wins"),
        (lambda h, m, w, c: (h, m, w, WinContext(is_tsumo=False, is_ippatsu=True)), "ippatsu"),
        (lambda h, m, w, c: (h, m, w, WinContext(is_tsumo=True, is_tenhou=True, seat_wind=2)), "dealer"),
        (lambda h, m, w, c: (h, m, w, WinContext(is_tsumo=True, seat_wind=4)), "winds"),
        (lambda h, m, w, c: (h, m, w, WinContext(is_tsumo=True, dora_indicators=(-1,))), "0..135"),
    ],
)
def test_bad_input_is_a_value_error(change, message):
    hand = tiles("234789m12345666p")
    args = change(hand, [], hand[0], WinContext(is_tsumo=True))
    with pytest.raises(ValueError, match=message):
        score_hand(*args)


def test_numpy_ids_are_accepted():
    import numpy as np

    hand = tiles("234789m12345666p")
    r = score_hand(list(np.array(hand)), [], np.int64(hand[-1]), WinContext(is_tsumo=True, seat_wind=1))
    assert r is not None and r.fu == 20


# --- agreement with the ``mahjong`` library (Tenhou options) on random hands


def _mismatches(deal) -> list[str]:
    """How ``score_hand`` and the library differ on one deal (empty: they agree)."""
    from tests.riichi_hands import library_call

    r = score_hand(deal.concealed, deal.melds, deal.win_tile, deal.ctx)
    lib = library_call(deal)
    if lib.error:
        return [] if r is None else [f"library: {lib.error}; mjenv: {r.yaku}"]
    if r is None:
        return [f"mjenv: no win; library: {[y.name for y in lib.yaku]}"]
    out = []
    mine = sorted((LIBRARY_NAMES[n], h) for n, h in r.yaku)
    theirs = sorted((y.name, y.han_open if lib.is_open_hand and y.han_open else y.han_closed) for y in lib.yaku)
    if mine != theirs:
        out.append(f"yaku {mine} != {theirs}")
    if r.han != lib.han:
        out.append(f"han {r.han} != {lib.han}")
    if r.fu != lib.fu and not r.yakuman:
        out.append(f"fu {r.fu} != {lib.fu}")
    c = lib.cost
    if deal.ctx.is_tsumo:
        payer = r.cost["tsumo_nondealer"] if r.dealer else r.cost["tsumo_dealer"]
        if (payer, r.cost["tsumo_nondealer"]) != (c["main"], c["additional"]):
            out.append(f"tsumo {payer}/{r.cost['tsumo_nondealer']} != {c['main']}/{c['additional']}")
    elif r.cost["ron"] != c["main"]:
        out.append(f"ron {r.cost['ron']} != {c['main']}")
    if r.cost["total"] != (c["main"] + 2 * c["additional"] if deal.ctx.is_tsumo else c["main"]):
        out.append(f"total {r.cost['total']}")
    return out


def _agree(n: int, seed: int) -> Counter:
    rng = random.Random(seed)
    seen: Counter = Counter()
    for i in range(n):
        deal = random_deal(rng)
        bad = _mismatches(deal)
        assert not bad, f"hand {i} (seed {seed}): {bad}\n{deal}"
        r = score_hand(deal.concealed, deal.melds, deal.win_tile, deal.ctx)
        if r is not None:
            seen.update(name for name, _ in r.yaku)
    return seen


def test_agrees_with_the_mahjong_library_on_20000_random_hands():
    seen = _agree(20_000, seed=2026)
    missing = sorted(set(YAKU_HAN) - set(seen))
    assert not missing, f"the random hands never produced {missing}"


@pytest.mark.slow
def test_agrees_with_the_mahjong_library_on_200000_random_hands():
    seen = _agree(200_000, seed=7)
    assert set(YAKU_HAN) <= set(seen)


# --- winning shapes and waits


def _to_tenhou34(c) -> list[int]:
    """mjenv's 34 order (s, m, p, z) -> Tenhou's (m, p, s, z)."""
    return list(c[9:18]) + list(c[18:27]) + list(c[0:9]) + list(c[27:34])


def _random_concealed(rng: random.Random) -> list[int]:
    """A 14-tile concealed part: a random winning hand's tiles, or random tiles."""
    if rng.random() < 0.5:
        while True:
            deal = random_deal(rng)
            if not deal.melds:
                return [TYPE34[t] for t in deal.concealed]
    return [TYPE34[t] for t in rng.sample(range(136), 14)]


def test_is_winning_shape_and_waits_agree_with_the_library():
    from mahjong.agari import Agari
    from mahjong.shanten import Shanten

    rng = random.Random(11)
    for _ in range(3000):
        tiles = _random_concealed(rng)
        c = [0] * 34
        for t in tiles:
            c[t] += 1
        assert is_winning_shape(c) == Agari.is_agari(_to_tenhou34(c)), c
        c[tiles[rng.randrange(14)]] -= 1  # 13 tiles
        got = waits(c)
        want = []
        for t in range(34):
            if c[t] < 4:
                c[t] += 1
                if Agari.is_agari(_to_tenhou34(c)):
                    want.append(t)
                c[t] -= 1
        assert got == want, (c, got, want)
        assert (Shanten.calculate_shanten(_to_tenhou34(c)) == 0) == bool(want) or any(x == 4 for x in c), c


def test_a_fifth_tile_is_no_wait():
    # 123456789m + 5555p: only a fifth 5p would complete it
    c = [0] * 34
    for t in range(9, 18):
        c[t] += 1
    c[22] = 4
    assert waits(c) == []


def test_tenpai_has_yaku():
    ron = WinContext(is_tsumo=False, seat_wind=1)
    # closed tanyao tenpai (tanki on 3s or 6s)
    assert tenpai_has_yaku(tiles("234m234678p3456s"), [], ron)
    # the same waits with a pon of 9s: no yaku on any wait
    used: dict[int, int] = {}
    hand = tiles("234m234p3456s", used)
    pon = tuple(tiles("999s", used))
    assert not tenpai_has_yaku(hand, [Meld("pon", pon, pon[0])], ron)
    # with a pon of the seat wind (South) instead, every wait has a yaku
    used = {}
    hand = tiles("234m234p3456s", used)
    pon = tuple(tiles("222z", used))
    assert tenpai_has_yaku(hand, [Meld("pon", pon, pon[0])], ron)
    # not tenpai
    assert not tenpai_has_yaku(tiles("13579m13579p135s"), [], ron)


def test_discards_tenpai_yaku_matches_one_call_per_discard():
    rng = random.Random(3)
    ctx = WinContext(is_tsumo=False, seat_wind=2)
    for _ in range(150):
        deal = random_deal(rng)
        flags = discards_tenpai_yaku(deal.concealed, deal.melds, ctx)
        for i, t in enumerate(deal.concealed):
            rest = deal.concealed[:i] + deal.concealed[i + 1 :]
            assert flags[TYPE34[t]] == tenpai_has_yaku(rest, deal.melds, ctx)
        assert not any(flags[t] for t in range(34) if t not in {TYPE34[x] for x in deal.concealed})


# --- more fixed cases (values from the rules, not from the code)


def test_double_wind_pair_is_4_fu():
    # East seat, East round, pair of East, closed ron on a kanchan 3p: 20 + 10 + 4 (pair) + 2 (kanchan) = 36 -> 40
    r = win("234m234p567p678s11z", "3p", is_tsumo=False, seat_wind=0, round_wind=0, is_riichi=True)
    assert (r.han, r.fu, r.cost["ron"]) == (1, 40, 2000)  # dealer: 40 * 8 * 6 = 1920 -> 2000


def test_kans_fu_and_sankantsu():
    # ankan 2m (16), minkan 9p (16), kakan 6s (8), chun pair (2), tanki (2), open ron: 20 + 44 = 64 -> 70 fu
    r = win(
        "234s77z",
        "7z",
        melds=[("ankan", "2222m"), ("minkan", "9999p"), ("kakan", "6666s")],
        is_tsumo=False,
        seat_wind=1,
    )
    assert r.yaku == [("sankantsu", 2)]
    assert (r.han, r.fu, r.cost["ron"]) == (2, 70, 4500)  # 70 * 16 * 4 = 4480 -> 4500


def test_yakuman_add_up_and_single_yakuman_never_double():
    # daisangen + tsuuiisou + suuankou tanki: three yakuman, non-dealer ron 96,000
    r = win("555666777z111z22z", "2z", is_tsumo=False, seat_wind=1)
    assert r.yakuman == 3 and r.cost["ron"] == 96000
    # ron on the East triplet: no suuankou; daisangen + tsuuiisou, 64,000
    r = win("555666777z111z22z", "1z", is_tsumo=False, seat_wind=1)
    assert {n for n, _ in r.yaku} == {"daisangen", "tsuuiisou"} and r.cost["ron"] == 64000
    # thirteen-wait kokushi: a single yakuman on Tenhou
    r = win("19m19p19s12345677z", "7z", is_tsumo=False, seat_wind=1)
    assert r.yaku == [("kokushi musou 13-wait", 13)] and r.cost["ron"] == 32000
    # dealer yakuman tsumo: 16,000 all
    r = win("19m19p19s12345677z", "1m", is_tsumo=True, seat_wind=0)
    assert r.yaku == [("kokushi musou", 13)] and r.cost["tsumo_nondealer"] == 16000 and r.cost["total"] == 48000


def test_dealer_no_kiriage():
    ind = tuple(tiles("1m"))  # dora 2m
    # dealer, riichi pinfu tanyao dora 1: 4 han 30 fu ron = 11,600 (not 12,000)
    r = win("234678m23455p678s", "4p", is_tsumo=False, seat_wind=0, round_wind=1, is_riichi=True, dora_indicators=ind)
    assert (r.han, r.fu, r.cost["ron"]) == (4, 30, 11600)
    # the same hand by tsumo: 5 han (menzen tsumo) 20 fu: mangan, 4,000 all
    r = win("234678m23455p678s", "4p", is_tsumo=True, seat_wind=0, round_wind=1, is_riichi=True, dora_indicators=ind)
    assert (r.han, r.fu, r.limit, r.cost["tsumo_nondealer"]) == (5, 20, "mangan", 4000)


def test_chankan_houtei_haitei_rinshan():
    r = win("234678m23455p678s", "4p", is_tsumo=False, seat_wind=1, is_chankan=True)
    assert {n for n, _ in r.yaku} == {"chankan", "pinfu", "tanyao"}
    r = win("234678m23455p678s", "4p", is_tsumo=False, seat_wind=1, is_houtei=True)
    assert {n for n, _ in r.yaku} == {"houtei", "pinfu", "tanyao"}
    r = win("234678m23455p678s", "4p", is_tsumo=True, seat_wind=1, is_haitei=True)
    assert {n for n, _ in r.yaku} == {"haitei", "menzen tsumo", "pinfu", "tanyao"}
    # open kan of 9p, tsumo on the replacement tile completing 666s
    r = win("234m345666s88s", "6s", melds=[("minkan", "9999p")], is_tsumo=True, seat_wind=1, is_rinshan=True)
    assert r.yaku == [("rinshan kaihou", 1)]
    # 20 + 16 (open terminal kan) + 4 (concealed simple triplet) + 2 (tsumo) = 42 -> 50; 1 han 50 fu: 800 / 400
    assert (r.fu, r.cost["tsumo_dealer"], r.cost["tsumo_nondealer"]) == (50, 800, 400)


def test_ura_dora_only_with_riichi():
    ind = tuple(tiles("1m"))  # shows 2m
    r = win("234678m23455p678s", "4p", is_tsumo=False, seat_wind=1, ura_indicators=ind)
    assert all(n != "ura dora" for n, _ in r.yaku)
    r = win("234678m23455p678s", "4p", is_tsumo=False, seat_wind=1, is_riichi=True, ura_indicators=ind)
    assert ("ura dora", 1) in r.yaku


def test_red_fives_are_aka_dora():
    r = win("234678m23405p678s", "4p", is_tsumo=False, seat_wind=1)
    assert ("aka dora", 1) in r.yaku and r.han == 3


# --- real Tenhou games: every logged win scored as Tenhou scored it

MJLOG_DIR = Path(__file__).parent / "data" / "mjlog"


@pytest.mark.skipif(
    not MJLOG_DIR.is_dir(), reason="the Tenhou logs (tests/data/mjlog) arrive with the Riichi engine's branch"
)
def test_every_win_in_the_tenhou_logs_scores_as_tenhou_scored_it():
    from tests.tenhou_agari import wins

    n = 0
    for path in sorted(MJLOG_DIR.glob("*.mjlog")):
        for w in wins(path):
            n += 1
            r = score_hand(w.concealed, w.melds, w.win_tile, w.ctx)
            assert r is not None, w.where
            assert dict(r.yaku) == w.yaku, w.where
            assert r.cost["total"] == w.points, w.where
            assert r.fu == w.fu, w.where
    assert n >= 200


def test_tiles136_conversion():
    from mjenv.rulesets.riichi.tiles136 import counts34, dora_of_indicator, is_red, tiles136_of, to34

    assert [to34(t) for t in (0, 35, 36, 71, 72, 107, 108, 135)] == [9, 17, 18, 26, 0, 8, 27, 33]
    assert [to34(t) for t in (16, 52, 88)] == [13, 22, 4]  # 5m, 5p, 5s
    assert is_red(16) and is_red(52) and is_red(88) and not is_red(17)
    assert list(tiles136_of(0)) == [72, 73, 74, 75] and list(tiles136_of(27)) == [108, 109, 110, 111]
    assert counts34([0, 1, 108]).tolist() == [0] * 9 + [2] + [0] * 17 + [1] + [0] * 6
    assert [dora_of_indicator(t) for t in (0, 8, 17, 26, 27, 30, 31, 33)] == [1, 0, 9, 18, 28, 27, 32, 31]
    with pytest.raises(ValueError, match="0..135"):
        to34(136)
    with pytest.raises(ValueError, match="0..33"):
        tiles136_of(34)


def test_may_leave_tenpai_is_a_necessary_condition():
    from mjenv.rulesets.riichi.hand import may_leave_tenpai

    rng = random.Random(5)
    rejected = 0
    for k in range(3000):
        tiles = _random_concealed(rng) if k % 3 == 0 else [TYPE34[t] for t in rng.sample(range(136), 14)]
        c = [0] * 34
        for t in tiles:
            c[t] += 1
        some = False
        for t in set(tiles):
            c[t] -= 1
            some = some or bool(waits(c))
            c[t] += 1
        if not may_leave_tenpai(c):
            rejected += 1
            assert not some, c
    assert rejected > 500  # it does reject most random hands
