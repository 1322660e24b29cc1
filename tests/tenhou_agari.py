"""The wins recorded in Tenhou logs (mjlog ``<AGARI>`` tags) as ``score_hand`` arguments, with Tenhou's values.

Tenhou writes, for each win: the concealed tiles with the winning tile (``hai``), the melds (``m``, bit
fields), the winning tile (``machi``), ``ten="fu,points,limit"`` (points: what the winner receives for the
hand, without honba and sticks), ``yaku="id,han,..."`` or ``yakuman="id,..."``, the indicators
(``doraHai``, ``doraHaiUra``), ``who`` and ``fromWho``. The round wind and the dealer come from the
``<INIT>`` before it; the situational yaku (riichi, ippatsu, rinshan, ...) are read from the yaku list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mjenv.rulesets.riichi.mjlog import decode_meld, parse
from mjenv.rulesets.riichi.scoring import Meld, WinContext

#: Tenhou's yaku ids -> mjenv's names (renhou, id 36, is not used in ranked games).
TENHOU_YAKU = {
    0: "menzen tsumo", 1: "riichi", 2: "ippatsu", 3: "chankan", 4: "rinshan kaihou", 5: "haitei", 6: "houtei",
    7: "pinfu", 8: "tanyao", 9: "iipeikou",
    10: "seat wind east", 11: "seat wind south", 12: "seat wind west", 13: "seat wind north",
    14: "round wind east", 15: "round wind south", 16: "round wind west", 17: "round wind north",
    18: "haku", 19: "hatsu", 20: "chun", 21: "double riichi", 22: "chiitoitsu", 23: "chanta", 24: "ittsu",
    25: "sanshoku doujun", 26: "sanshoku doukou", 27: "sankantsu", 28: "toitoi", 29: "sanankou",
    30: "shousangen", 31: "honroutou", 32: "ryanpeikou", 33: "junchan", 34: "honitsu", 35: "chinitsu",
    37: "tenhou", 38: "chiihou", 39: "daisangen", 40: "suuankou", 41: "suuankou tanki", 42: "tsuuiisou",
    43: "ryuuiisou", 44: "chinroutou", 45: "chuuren poutou", 46: "junsei chuuren poutou", 47: "kokushi musou",
    48: "kokushi musou 13-wait", 49: "daisuushii", 50: "shousuushii", 51: "suukantsu",
    52: "dora", 53: "ura dora", 54: "aka dora",
}  # fmt: skip


@dataclass
class Win:
    """One logged win: ``score_hand`` arguments and Tenhou's values."""

    where: str
    concealed: list[int]
    melds: list[Meld]
    win_tile: int
    ctx: WinContext
    fu: int
    points: int
    yaku: dict[str, int]


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x != ""]


def wins(path: Path) -> list[Win]:
    """Every ``<AGARI>`` of one mjlog file (read with the engine's ``mjlog.parse`` and ``decode_meld``)."""
    _, hands = parse(path.read_text())
    out = []
    for h, hand in enumerate(hands):
        init = hand[0][1]
        round_wind = _ints(init["seed"])[0] // 4
        dealer = int(init["oya"])
        for tag, a in hand:
            if tag != "AGARI":
                continue
            where = f"{path.name} hand {h}"
            who, from_who = int(a["who"]), int(a["fromWho"])
            if "yakuman" in a:
                yaku = {TENHOU_YAKU[i]: 13 for i in _ints(a["yakuman"])}
            else:
                pairs = _ints(a["yaku"])
                yaku = {TENHOU_YAKU[i]: han for i, han in zip(pairs[0::2], pairs[1::2]) if han}
            fu, points, _ = _ints(a["ten"])
            ctx = WinContext(
                is_tsumo=who == from_who,
                is_riichi="riichi" in yaku,
                is_double_riichi="double riichi" in yaku,
                is_ippatsu="ippatsu" in yaku,
                is_rinshan="rinshan kaihou" in yaku,
                is_chankan="chankan" in yaku,
                is_haitei="haitei" in yaku,
                is_houtei="houtei" in yaku,
                is_tenhou="tenhou" in yaku,
                is_chiihou="chiihou" in yaku,
                seat_wind=(who - dealer) % 4,
                round_wind=round_wind,
                dora_indicators=tuple(_ints(a.get("doraHai", ""))),
                ura_indicators=tuple(_ints(a.get("doraHaiUra", ""))),
            )
            melds = []
            for m in _ints(a.get("m", "")):
                d = decode_meld(who, m, where)
                melds.append(Meld(d["kind"], tuple(d["tiles"]), d["called"]))
            out.append(Win(where, _ints(a["hai"]), melds, int(a["machi"]), ctx, fu, points, yaku))
    return out
