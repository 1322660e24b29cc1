"""mjenv's Riichi scorer against the ``mahjong`` library and RiichiEnv's Rust scorer, per hand, one run.

The same random winning hands (``tests/riichi_hands.py``: themed hands in random situations, red fives,
melds and kans, seven pairs, thirteen orphans, yakuman) go through:

* ``mjenv``: ``score_hand(...)`` with its input checks, and with ``validate=False`` (the engine's call),
  once on the Python path and once on the C path (the extension ``_score``, the default when built);
  and the C scorer alone (``_score.score`` on tile-type bytes built before the clock starts: what the
  compiled step pays, plus one Python call);
* ``mahjong``: ``HandCalculator.estimate_hand_value`` with Tenhou's options, its ``HandConfig`` and
  ``Meld`` objects built before the clock starts;
* ``riichienv`` (if installed): its Rust ``HandEvaluator(tiles, melds).calc(...)``, inputs built before
  the clock starts (the evaluator object is built inside, as it holds the hand).

A second table times ``hand.waits`` (Python path, C path, and the C ``_score.waits`` alone) on 13-tile
concealed hands (the winning hands without melds, less one random tile) against RiichiEnv's
``HandEvaluator(tiles, []).get_waits()`` and counts agreements. A third times
``discards_tenpai_yaku`` (the observation's per-discard flags) on the Python and the C path.

Times are CPU seconds of this process (``time.process_time``), best of ``--repeat`` passes, divided
by the number of hands. It also counts the hands where RiichiEnv's han, fu or payments differ from
mjenv's (mjenv equals ``mahjong`` on every hand: ``tests/test_riichi_scoring.py``). RiichiEnv plays
Mahjong Soul's rules, where suuankou tanki, 13-wait kokushi, junsei chuuren and daisuushii are double
yakuman; the count allows for that.

Run: ``nice -n 10 python -m benchmarks.riichi_scoring_speed --hands 20000 --repeat 3``
"""

from __future__ import annotations

import argparse
import random
import time

from tqdm import tqdm

from mjenv.rulesets.riichi import hand, scoring
from mjenv.rulesets.riichi.hand import waits
from mjenv.rulesets.riichi.scoring import WinContext, discards_tenpai_yaku, score_hand
from mjenv.rulesets.riichi.tiles136 import TYPE34
from tests.riichi_hands import library_inputs, random_deal, tenhou_options


def _library_inputs(deals):
    opts = tenhou_options()
    return [library_inputs(d, opts) for d in deals]


def _riichienv_inputs(deals):
    from riichienv import _riichienv as rc

    kinds = {
        "chi": rc.MeldType.Chi,
        "pon": rc.MeldType.Pon,
        "minkan": rc.MeldType.Daiminkan,
        "ankan": rc.MeldType.Ankan,
        "kakan": rc.MeldType.Kakan,
    }
    winds = (rc.Wind.East, rc.Wind.South, rc.Wind.West, rc.Wind.North)
    out = []
    for d in deals:
        c = d.ctx
        cond = rc.Conditions(
            tsumo=c.is_tsumo,
            riichi=c.is_riichi or c.is_double_riichi,
            double_riichi=c.is_double_riichi,
            ippatsu=c.is_ippatsu,
            haitei=c.is_haitei,
            houtei=c.is_houtei,
            rinshan=c.is_rinshan,
            chankan=c.is_chankan,
            tsumo_first_turn=c.is_tenhou or c.is_chiihou,
            player_wind=winds[c.seat_wind],
            round_wind=winds[c.round_wind],
        )
        melds = [rc.Meld(kinds[m.kind], sorted(m.tiles), m.kind != "ankan") for m in d.melds]
        ura = list(c.ura_indicators) if c.is_riichi or c.is_double_riichi else []  # riichienv counts ura always
        out.append((sorted(d.concealed), melds, d.win_tile, list(c.dora_indicators), ura, cond))
    return out, rc.HandEvaluator


_DOUBLE_ON_MAHJONG_SOUL = ("suuankou tanki", "kokushi musou 13-wait", "junsei chuuren poutou", "daisuushii")


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    rng = random.Random(args.seed)
    deals = [random_deal(rng) for _ in tqdm(range(args.hands), desc="hands", leave=False)]
    n = len(deals)
    rows = []

    def mjenv_checked():
        for d in deals:
            score_hand(d.concealed, d.melds, d.win_tile, d.ctx)

    def mjenv_trusted():
        for d in deals:
            score_hand(d.concealed, d.melds, d.win_tile, d.ctx, validate=False)

    ext = scoring._ext
    scoring._ext = hand._ext = None  # the Python path
    # the caches of per-suit decompositions fill on the first pass: time after one warm pass
    mjenv_trusted()
    rows.append(("mjenv score_hand Python (checked)", _best(mjenv_checked, args.repeat) / n))
    rows.append(("mjenv score_hand Python (validate=False)", _best(mjenv_trusted, args.repeat) / n))
    scoring._ext = hand._ext = ext
    if ext is not None:
        rows.append(("mjenv score_hand C path (checked)", _best(mjenv_checked, args.repeat) / n))
        rows.append(("mjenv score_hand C path (validate=False)", _best(mjenv_trusted, args.repeat) / n))
        c_in = _c_inputs(deals)

        def c_core():
            score = ext.score
            for a in c_in:
                score(*a)

        rows.append(("mjenv C scorer alone (_score.score)", _best(c_core, args.repeat) / n))

    from mahjong.hand_calculating.hand import HandCalculator

    lib_in = _library_inputs(deals)

    def library():
        for tiles, win, melds, dora, config, ura in lib_in:
            HandCalculator.estimate_hand_value(
                tiles, win, melds=melds, dora_indicators=dora, config=config, ura_dora_indicators=ura
            )

    rows.append(("mahjong 2.x estimate_hand_value", _best(library, args.repeat) / n))

    differ = None
    try:
        rin_in, evaluator = _riichienv_inputs(deals)
    except ImportError:
        rin_in = None
    if rin_in is not None:

        def rust():
            for tiles, melds, win, dora, ura, cond in rin_in:
                evaluator(tiles, melds).calc(win, dora, ura, cond)

        rows.append(("riichienv HandEvaluator (Rust)", _best(rust, args.repeat) / n))
        differ = 0
        for d, (tiles, melds, win, dora, ura, cond) in zip(deals, rin_in):
            mine = score_hand(d.concealed, d.melds, d.win_tile, d.ctx)
            theirs = evaluator(tiles, melds).calc(win, dora, ura, cond)
            if mine is None:
                differ += bool(theirs.is_win)
                continue
            pay = (
                (mine.cost["ron"],) if not d.ctx.is_tsumo else (mine.cost["tsumo_dealer"], mine.cost["tsumo_nondealer"])
            )
            got = (theirs.ron_agari,) if not d.ctx.is_tsumo else (theirs.tsumo_agari_oya, theirs.tsumo_agari_ko)
            if mine.dealer and d.ctx.is_tsumo:
                got = (0, theirs.tsumo_agari_ko)
            # riichienv plays Mahjong Soul's rules: these four yakuman count double there, single on Tenhou
            doubled = sum(13 for name, _ in mine.yaku if name in _DOUBLE_ON_MAHJONG_SOUL)
            if mine.yakuman:
                differ += (not theirs.is_win) or mine.han + doubled != theirs.han
            else:
                differ += (not theirs.is_win) or (mine.han, mine.fu, pay) != (theirs.han, theirs.fu, got)

    base = rows[0][1]
    lib = next(t for name, t in rows if name.startswith("mahjong"))
    rust = next((t for name, t in rows if name.startswith("riichienv")), None)
    print(f"{n} random winning hands (seed {args.seed}), CPU time per hand, best of {args.repeat}")
    print("(ratios are time over the other's time: below 1 is faster)")
    head = f"{'scorer':42s} {'us/hand':>9s} {'vs mahjong':>11s} {'vs Python checked':>18s}"
    print(head + (f" {'vs riichienv':>13s}" if rust else ""))
    for name, t in rows:
        line = f"{name:42s} {t * 1e6:9.2f} {t / lib:10.3f}x {t / base:17.3f}x"
        print(line + (f" {t / rust:12.2f}x" if rust else ""))
    if differ is not None:
        print(f"hands where riichienv's han, fu or payments differ from mjenv's: {differ} of {n}")
        print("(yakuman: han only, after Mahjong Soul's double yakuman; tenhou with thirteen orphans counts as")
        print(" the 13-wait there, a name difference that pays the same under Tenhou's single yakuman)")
    waits_table(deals, args.repeat)
    discards_table(deals, args.repeat)


def _c_inputs(deals):
    """``_score.score``'s arguments for each deal (tile types, melds, flags), built once."""
    out = []
    for d in deals:
        types = bytes(TYPE34[t] for t in d.concealed)
        red = sum(t in scoring.RED_FIVES for t in d.concealed)
        c = d.ctx
        flags = sum(
            bool(v) << i
            for i, v in enumerate(
                (c.is_tsumo, c.is_riichi, c.is_double_riichi, c.is_ippatsu, c.is_rinshan, c.is_chankan,
                 c.is_haitei, c.is_houtei, c.is_tenhou, c.is_chiihou)
            )
        )  # fmt: skip
        dora = bytes(TYPE34[t] for t in c.dora_indicators)
        ura = bytes(TYPE34[t] for t in c.ura_indicators)
        melds = scoring._meld_bytes(d.melds)
        out.append((types, red, TYPE34[d.win_tile], melds, flags, c.seat_wind, c.round_wind, dora, ura))
    return out


def discards_table(deals, repeat: int) -> None:
    """``discards_tenpai_yaku`` (per discard: tenpai with a yaku) on the Python and the C path."""
    ctx = WinContext(is_tsumo=False, seat_wind=1)
    hands = deals[:5000]
    n = len(hands)

    def run():
        for d in hands:
            discards_tenpai_yaku(d.concealed, d.melds, ctx)

    ext = scoring._ext
    rows = []
    scoring._ext = hand._ext = None
    run()
    rows.append(("Python path", _best(run, repeat) / n))
    scoring._ext = hand._ext = ext
    if ext is not None:
        rows.append(("C path", _best(run, repeat) / n))
    print(f"\n{n} winning hands as 14-tile hands before a discard: discards_tenpai_yaku, CPU time per hand")
    for name, t in rows:
        print(f"{name:42s} {t * 1e6:9.2f} us {t / rows[0][1]:8.3f}x")


def waits_table(deals, repeat: int) -> None:
    """``hand.waits`` on 13-tile concealed hands (a winning hand less one tile) against RiichiEnv's."""
    rng = random.Random(1)
    hands = []
    for d in deals:
        if not d.melds:
            tiles = list(d.concealed)
            tiles.pop(rng.randrange(len(tiles)))
            hands.append(tiles)
    n = len(hands)

    def mine():
        for tiles in hands:
            c = [0] * 34
            for t in tiles:
                c[TYPE34[t]] += 1
            waits(c)

    ext = hand._ext
    hand._ext = None  # the Python path
    mine()
    rows = [("mjenv hand.waits Python (from 136-ids)", _best(mine, repeat) / n)]
    hand._ext = ext
    if ext is not None:
        rows.append(("mjenv hand.waits C path (from 136-ids)", _best(mine, repeat) / n))

        def mine_c():
            for tiles in hands:
                c = [0] * 34
                for t in tiles:
                    c[TYPE34[t]] += 1
                ext.waits(bytes(c))

        rows.append(("mjenv C _score.waits (from 136-ids)", _best(mine_c, repeat) / n))
    try:
        from riichienv import _riichienv as rc
    except ImportError:
        rc = None
    same = None
    if rc is not None:

        def rust():
            for tiles in hands:
                rc.HandEvaluator(tiles, []).get_waits()

        rows.append(("riichienv HandEvaluator.get_waits (Rust)", _best(rust, repeat) / n))
        same = 0
        for tiles in hands:
            c = [0] * 34
            for t in tiles:
                c[TYPE34[t]] += 1
            theirs = sorted(TYPE34[4 * k] for k in rc.HandEvaluator(tiles, []).get_waits())
            same += theirs == waits(c)
    print(f"\n{n} 13-tile concealed hands (winning hands less one tile), CPU time per hand, best of {repeat}")
    for name, t in rows:
        print(f"{name:42s} {t * 1e6:9.1f} us {t / rows[0][1]:8.2f}x")
    if same is not None:
        print(f"hands where both give the same waits: {same} of {n}")


if __name__ == "__main__":
    main()
