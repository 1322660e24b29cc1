"""Fu (minipoints) of a winning Riichi hand, Tenhou's rules.

Seven pairs: 25 fu flat. Regular hands: 20 base; closed ron +10; tsumo +2 (not with pinfu); triplets
2 (simples) or 4 (terminals, honours), doubled when concealed, times 4 for a kan; a triplet completed by
a ron counts as open; the pair 2 for a dragon, 2 for the seat wind and 2 for the round wind (a double
wind pair is 4); a kanchan, penchan or tanki wait 2. Totals round up to 10. Pinfu tsumo is 20 and
pinfu ron 30; an open hand with no fu at all (open pinfu shape) is 30.
"""

from __future__ import annotations

from .yaku import TERMINAL_OR_HONOUR

CHIITOITSU_FU = 25

RYANMEN, SHANPON, KANCHAN, PENCHAN, TANKI = 0, 1, 2, 3, 4


def set_fu(code: int, concealed: bool, kan: bool) -> int:
    """Fu of one set (code ``t`` triplet/kan of type ``t``, ``34 + t`` a run)."""
    if code >= 34:
        return 0
    f = 4 if TERMINAL_OR_HONOUR[code] else 2
    if concealed:
        f *= 2
    if kan:
        f *= 4
    return f


def pair_fu(pair: int, seat_wind: int, round_wind: int) -> int:
    """Fu of the pair: 2 per role (dragon, seat wind, round wind)."""
    if pair >= 31:
        return 2
    f = 0
    if pair == 27 + seat_wind:
        f += 2
    if pair == 27 + round_wind:
        f += 2
    return f


def wait_kind(code: int, win34: int) -> int:
    """The wait a set had before the winning tile ``win34`` completed it."""
    if code < 34:
        return SHANPON
    r = code - 34
    if win34 == r + 1:
        return KANCHAN
    if (win34 == r + 2 and r % 9 == 0) or (win34 == r and r % 9 == 6):
        return PENCHAN
    return RYANMEN


def round_up10(fu: int) -> int:
    return -(-fu // 10) * 10
