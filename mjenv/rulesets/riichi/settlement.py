"""Payments and the game's flow between hands (Tenhou ranked rules).

* A win: the scorer's base payments (no honba, no sticks), plus 300 per honba (100 from each payer
  on tsumo) and the riichi sticks on the table (1000 each), both to the one winner nearest the
  discarder's right on a double ron (head-bump; the other winner gets the bare points).
* Pao (big three dragons, big four winds): on tsumo the liable seat pays everything; on a ron by
  another seat, it and the discarder pay half each, the honba from the liable seat.
* Exhaustive draw: 3000 points split between tenpai and noten seats, or, when a seat has nagashi
  mangan, a mangan tsumo for each such seat instead (no honba, no sticks).
* The game: hanchan (East-South) or east; the dealer keeps the seat on a win or a tenpai; abortive
  draws keep it too; a score below zero ends the game; after the last scheduled hand the game ends
  as soon as a seat has 30,000 (West extension, at most to West 4), except while the dealer keeps
  the seat without being first (agari-yame: a first-placed dealer's win or tenpai in the last hand
  ends it). An east-only game extends into South the same way, at most to South 4.
* Final: start 25,000, return 30,000, uma +20/+10/-10/-20, oka and leftover sticks to the first;
  ties go to the seat nearer the first dealer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

START_SCORE = 25000
RETURN_SCORE = 30000
UMA = (20, 10, -10, -20)
#: Number of scheduled hands by game length (round index = 4 * wind + dealer seat).
SCHEDULED_HANDS = {"hanchan": 8, "east": 4}
#: The last possible hand by game length: West 4 for a hanchan (no North round), South 4 for an
#: east-only game (its extension is the South round).
LAST_HAND = {"hanchan": 11, "east": 7}
LAST_ROUND_INDEX = LAST_HAND["hanchan"]


def win_deltas(
    winner: int,
    loser: int | None,
    dealer: int,
    cost: Mapping[str, int],
    honba: int,
    sticks: int,
    pao: int | None = None,
    bonus: bool = True,
) -> list[int]:
    """Score changes of one win.

    Args:
        winner, loser: seats (``loser`` None on tsumo).
        dealer: the dealer's seat.
        cost: the scorer's ``ScoreResult.cost`` (``"ron"``, ``"tsumo_dealer"``, ``"tsumo_nondealer"``).
        honba: the honba count; sticks: riichi sticks on the table (both paid only when ``bonus``).
        pao: the liable seat for big three dragons / big four winds, or None.
        bonus: whether this winner takes honba and sticks (False for the second winner of a double ron).

    Returns:
        4 ints summing to ``1000 * sticks`` when ``bonus`` else 0.
    """
    d = [0, 0, 0, 0]
    h = honba if bonus else 0
    if loser is None:
        pays = []
        for s in range(4):
            if s == winner:
                continue
            base = cost["tsumo_nondealer"] if (winner == dealer or s != dealer) else cost["tsumo_dealer"]
            pays.append((s, base))
        if pao is not None:
            total = sum(p for _, p in pays) + 300 * h
            d[pao] -= total
            d[winner] += total
        else:
            for s, base in pays:
                d[s] -= base + 100 * h
                d[winner] += base + 100 * h
    else:
        base = cost["ron"]
        if pao is not None and pao != loser:
            half = base // 2
            d[loser] -= half
            d[pao] -= base - half + 300 * h
        else:
            d[loser] -= base + 300 * h
        d[winner] += base + 300 * h
    if bonus:
        d[winner] += 1000 * sticks
    return d


def tenpai_deltas(tenpai: Sequence[bool]) -> list[int]:
    """Exhaustive-draw payments: 3000 split between the tenpai and the noten seats."""
    k = sum(bool(t) for t in tenpai)
    if k in (0, 4):
        return [0, 0, 0, 0]
    return [3000 // k if t else -3000 // (4 - k) for t in tenpai]


def nagashi_deltas(seats: Sequence[int], dealer: int) -> list[int]:
    """Nagashi mangan: a mangan tsumo (no honba) for each listed seat."""
    d = [0, 0, 0, 0]
    for w in seats:
        for s in range(4):
            if s != w:
                p = 4000 if (w == dealer or s == dealer) else 2000
                d[s] -= p
                d[w] += p
    return d


def placement(scores: Sequence[int]) -> list[int]:
    """Seats from first to last; ties go to the seat nearer the first dealer (seat 0)."""
    return sorted(range(4), key=lambda s: (-scores[s], s))


def game_over(
    round_index: int,
    scores: Sequence[int],
    dealer_kept: bool,
    abortive: bool,
    length: str = "hanchan",
) -> bool:
    """Whether the game ends after this hand (Tenhou's rules, see the module docstring).

    Args:
        round_index: the hand that just ended (0 = East 1, 4 = South 1, 8 = West 1).
        scores: the scores after the hand's payments (sticks still on the table).
        dealer_kept: the dealer won or was tenpai at the draw (the dealer keeps the seat).
        abortive: an abortive draw (the game never ends on one).
        length: ``"hanchan"`` or ``"east"``.
    """
    if abortive:
        return False
    if min(scores) < 0:
        return True
    if round_index < SCHEDULED_HANDS[length] - 1:
        return False
    dealer = round_index % 4
    dealer_not_first = placement(scores)[0] != dealer
    if round_index >= LAST_HAND[length]:
        return not (dealer_kept and dealer_not_first)
    if max(scores) < RETURN_SCORE:
        return False
    return not (dealer_kept and dealer_not_first)


def final_result(scores: Sequence[int], sticks: int) -> tuple[list[int], list[float]]:
    """Final scores (leftover sticks to the first) and Tenhou's game points (uma and oka).

    Points of the non-first seats are ``(score - 30000) / 1000`` rounded half down on the absolute
    value (Tenhou's rounding), plus uma; the first takes minus their sum (so oka and any rounding).
    """
    final = list(scores)
    order = placement(final)
    final[order[0]] += 1000 * sticks
    points = [0.0] * 4
    for rank, s in enumerate(order[1:], start=1):
        x = final[s] - RETURN_SCORE
        q = (abs(x) + 400) // 1000
        points[s] = float((q if x >= 0 else -q) + UMA[rank])
    points[order[0]] = -sum(points[s] for s in order[1:])
    return final, points
