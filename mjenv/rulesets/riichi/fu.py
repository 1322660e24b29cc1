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

RYANMEN, SHANPON, KANCHAN, PENCHAN = 0, 1, 2, 3


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


def readings(
    pair: int, sets, meld_sets, win34: int, tsumo: bool, menzen: bool, seat_wind: int, round_wind: int
) -> list[tuple[int, bool, int]]:
    """``(fu, pinfu, ron_trip)`` for each reading of one regular decomposition.

    A reading is the concealed set (or the pair) the winning tile completed; a set code read twice
    (twin runs) counts once.

    Args:
        pair: the pair's type.
        sets: the concealed set codes (``t`` triplet, ``34 + t`` run).
        meld_sets: ``(code, concealed, kan)`` of each meld.
        win34: the winning tile's type.
        tsumo, menzen: a self-draw; a closed hand (closed kans allowed).
        seat_wind, round_wind: 0..3.

    Returns:
        One tuple per reading: its fu (rounded); whether it is pinfu (closed, four runs, a pair without
        fu, a two-sided wait); 1 when a ron completed a concealed triplet (it then counts as open), else 0.
    """
    pf = pair_fu(pair, seat_wind, round_wind)
    fixed = 20 + pf
    for s in sets:
        if s < 34:
            fixed += 8 if TERMINAL_OR_HONOUR[s] else 4
    for code, closed, kan in meld_sets:
        fixed += set_fu(code, closed, kan)
    if tsumo:
        fixed += 2
    elif menzen:
        fixed += 10
    all_runs = not meld_sets and pf == 0
    if all_runs:
        for s in sets:
            if s < 34:
                all_runs = False
                break
    out = []
    seen = -1
    for s in sets:
        if s == seen:
            continue
        if s < 34:
            if s != win34:
                continue
            f = fixed
            if not tsumo:  # the ron made this triplet: open
                f -= 4 if TERMINAL_OR_HONOUR[s] else 2
            out.append((finish(f, menzen), False, 0 if tsumo else 1))
        elif s - 34 <= win34 <= s - 32:
            wait = wait_kind(s, win34)
            if wait == RYANMEN:
                if all_runs:
                    out.append((20 if tsumo else 30, True, 0))
                else:
                    out.append((finish(fixed, menzen), False, 0))
            else:
                out.append((finish(fixed + 2, menzen), False, 0))
        else:
            continue
        seen = s
    if pair == win34:  # tanki
        out.append((finish(fixed + 2, menzen), False, 0))
    return out


def finish(fu: int, menzen: bool) -> int:
    """Round up to 10; an open hand without any fu (open pinfu shape, on ron) is 30."""
    if fu == 20 and not menzen:
        return 30
    return -(-fu // 10) * 10
