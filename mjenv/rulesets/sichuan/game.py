"""Sichuan bloody battle (血战到底) at game level: the missing-suit declaration, its constraints, the
play-on after a win, and the payments of :mod:`mjenv.rulesets.sichuan.scoring` wired into a hand.

The shared engine (:mod:`mjenv.game.engine`) calls :data:`HOOKS` (a
:class:`~mjenv.rulesets.protocol.GameHooks`) at its hook points when its rule set turns on this room's
fields (``Rules.missing_suit``, ``Rules.bloody``, ``Rules.scoring == "sichuan"``); the rule set itself is
documented in :mod:`mjenv.rules` and docs/DESIGN.md ("Sichuan"). The hooks change the game through its
public methods only.

* 定缺 (:func:`start_declarations`, :func:`on_declare`): after the deal every seat declares, all at
  once in one step (``Phase.DECLARE``); ``Game.missing`` holds the declared suits (-1 before).
* Constraints (:func:`restrict_turn`, :func:`can_win`, :func:`may_pong`): a seat holding tiles of its
  missing suit may only discard those; no pong or kong of the missing suit; no win holding it.
* Bloody battle (:func:`win`): a win pays (fan scoring), marks the winners out of the hand and passes
  the turn to the first seat still in it after the last winner, or ends the hand at the third winner.
* Kongs pay when they are made (:func:`pay_kong`); an exhaustive draw settles 查花猪 / 查大叫
  (:func:`draw_settlement`).
"""

from __future__ import annotations

import numpy as np

from mjenv.game._win import is_winning_bytes
from mjenv.game.actions import Phase
from mjenv.game.engine import EndReason, Game
from mjenv.rulesets.protocol import GameHooks
from mjenv.rulesets.sichuan import scoring as sc

NUM_SEATS = 4
#: ``Game.missing`` of a seat that has not declared (every seat before the first step, and every
#: seat of a rule set without ``missing_suit``).
UNDECLARED = -1
# meld kind codes (engine.MeldKind) -> the kind names of scoring.fan
_FAN_KIND = {1: "pong", 2: "kong", 3: "kong", 4: "kong"}


def holds_suit(hand: np.ndarray, suit: int) -> bool:
    """Whether ``hand`` (int8[27] counts) holds a tile of ``suit`` (0..2); False for ``suit == -1``."""
    return suit >= 0 and bool(hand[9 * suit : 9 * suit + 9].any())


def can_win(hand: np.ndarray, tile: int, missing: int, melds: int, seven_pairs: bool) -> bool:
    """Whether ``hand`` (int8[27] concealed counts) plus ``tile`` (-1: none) is a Sichuan win.

    No tile of the missing suit (a seat that has not declared cannot win either; every seat declares
    before the first draw decision, so this never bites in play); melds + a pair, or with no declared
    meld and ``seven_pairs`` seven pairs where a four of a kind counts as two pairs (龙七对).
    """
    if missing < 0:
        return False
    b = bytearray(hand.tobytes())
    if tile >= 0:
        b[tile] += 1
    if any(b[9 * missing : 9 * missing + 9]):
        return False
    if is_winning_bytes(bytes(b), False):
        return True
    return seven_pairs and melds == 0 and sum(b) == 14 and all(c % 2 == 0 for c in b)


def may_pong(game: Game, seat: int, tile: int) -> bool:
    """Whether ``seat``'s missing suit allows a pong / exposed kong of ``tile`` (not its missing suit)."""
    return tile // 9 != game.missing[seat]


def start_declarations(game: Game) -> None:
    """After the deal (the dealer holds her extra tile): every seat declares its missing suit now."""
    lay = game.layout
    masks = np.zeros((NUM_SEATS, lay.size), dtype=np.int8)
    masks[:, lay.declares] = 1
    masks.flags.writeable = False
    game.phase = Phase.DECLARE
    game.set_decision(masks, (1 << NUM_SEATS) - 1)


def on_declare(game: Game, chosen: list[int]) -> None:
    """Apply the four declarations (``chosen[s]``: a declare id, checked) and start the dealer's turn."""
    start = game.layout.declares.start
    game.missing = np.array([a - start for a in chosen], dtype=np.int8)
    game.phase = Phase.DISCARD
    game.set_turn_masks(game.current_player)


def restrict_turn(game: Game, seat: int, row: np.ndarray) -> None:
    """Apply the missing suit to ``seat``'s own-turn mask ``row`` (int8[A], modified in place).

    Holding the missing suit: only its tiles may be discarded (定缺 discards first). A kong of the
    missing suit is never legal. The win is decided by :func:`can_win` (the engine's ordinary check
    knows neither the missing suit nor a four of a kind in seven pairs).
    """
    lay = game.layout
    m = int(game.missing[seat])
    h = game.tile_counts[seat]
    lo = 9 * m
    if h[lo : lo + 9].any():
        held = row[lay.discards.start + lo : lay.discards.start + lo + 9].copy()
        row[lay.discards] = 0
        row[lay.discards.start + lo : lay.discards.start + lo + 9] = held
    row[lay.kongs.start + lo : lay.kongs.start + lo + 9] = 0
    row[lay.win] = not game.claimed_turn and can_win(
        h, -1, m, int(game.melds_declared[seat]), game.rules.seven_pairs
    )


def live_seats(game: Game) -> list[int]:
    """Seats still in the hand (not yet won), ascending."""
    return np.flatnonzero(~game.won).tolist()


def next_live(game: Game, seat: int) -> int:
    """The first seat after ``seat`` in turn order that is still in the hand (-1 when none)."""
    for k in (1, 2, 3, 4):
        s = (seat + k) % NUM_SEATS
        if not game.won[s]:
            return s
    return -1


def fans(game: Game, seat: int, tile: int, reason: int) -> dict[str, int]:
    """The fan of ``seat``'s win (:func:`mjenv.rulesets.sichuan.scoring.fan`), its hand as it is now.

    Args:
        tile: the won discard or robbed tile (added to the hand); ignored for a self-draw (the drawn
            tile is in the hand).
        reason: ``EndReason`` value: 1 self-draw, 2 discard, 3 robbed kong.
    """
    concealed = game.tile_counts[seat].astype(np.int64)
    if reason != 1:
        concealed[tile] += 1
    melds = [(_FAN_KIND[k], t) for k, t, _, _ in game.meld_table[seat, : game.melds_declared[seat]].tolist()]
    out = sc.fan(
        concealed, melds, int(game.missing[seat]), self_draw=reason == 1,
        after_kong=reason == 1 and game.after_kong, robbing_kong=reason == 3,
    )  # fmt: skip
    if out is None:  # the engine's win check and the fan table disagree: a bug, never a silent 0
        raise RuntimeError(f"seat {seat}'s win is not a win for the fan table (hand {concealed.tolist()}, {melds})")
    return out


def win(game: Game, winners: list[int], deal_in: int, tile: int, reason) -> None:
    """Bloody battle: pay the wins, take the winners out, and play on (or end at the third winner).

    Args:
        winners: the winning seats, in turn order from the discarder (one for a self-draw).
        deal_in: the discarder (the kong's declarer when robbed), -1 for a self-draw.
        tile: the winning tile.
        reason: :class:`~mjenv.game.engine.EndReason` of the win.
    """
    live = live_seats(game)
    for w in winners:
        f = fans(game, w, tile, int(reason))
        pts = sc.points(f)
        game.scores += sc.win_payments(w, pts, discarder=None if deal_in < 0 else deal_in, live=live)
        game.wins.append({"seat": w, "tile": tile, "deal_in": deal_in, "reason": int(reason), "fan": f,
                          "points": pts})
    game.won[winners] = True
    if int(game.won.sum()) >= NUM_SEATS - 1:
        game.finish(winners, deal_in=deal_in, tile=tile, reason=reason)
        return
    game.last_discard = -1
    game.last_discarder = -1
    game.draw(next_live(game, winners[-1]))


def pay_kong(game: Game, seat: int, kind: str, discarder: int | None = None) -> None:
    """Pay ``seat``'s kong (刮风下雨) as it is made: ``kind`` "exposed", "added" or "concealed"."""
    game.scores += sc.kong_payments(seat, kind, discarder=discarder, live=live_seats(game))


def draw_settlement(game: Game) -> np.ndarray:
    """int64[4] the payments at an exhaustive draw among the seats still in the hand (查花猪, 查大叫)."""
    live = live_seats(game)
    pigs = [s for s in live if holds_suit(game.tile_counts[s], int(game.missing[s]))]
    ready: dict[int, int] = {}
    for s in live:
        if s in pigs:
            continue
        h, m, melds = game.tile_counts[s], int(game.missing[s]), int(game.melds_declared[s])
        best = 0
        for t in range(27):
            if h[t] < 4 and can_win(h, t, m, melds, game.rules.seven_pairs):
                best = max(best, sc.points(fans(game, s, t, 2)))
        if best:
            ready[s] = best
    return sc.draw_settlement(live, pigs, ready)


class SichuanHooks(GameHooks):
    """The Sichuan rules at the shared engine's hook points (the functions above)."""

    restricts = True
    plays_on = True
    pays_kongs = True
    settles = True
    seven_pairs_form = "fours"  # a four of a kind is two pairs (龙七对), as can_win counts it

    def start(self, game: Game) -> None:
        start_declarations(game)

    def on_phase(self, game: Game, chosen: list[int]) -> None:
        on_declare(game, chosen)

    def may_meld(self, game: Game, seat: int, tile: int) -> bool:
        return may_pong(game, seat, tile)

    def wins_with(self, game: Game, seat: int, tile: int) -> bool:
        return can_win(game.tile_counts[seat], tile, int(game.missing[seat]), int(game.melds_declared[seat]),
                       game.rules.seven_pairs)

    def restrict_turn(self, game: Game, seat: int, row: np.ndarray) -> None:
        if game.missing[seat] >= 0:  # from the declaration on
            restrict_turn(game, seat, row)

    def win(self, game: Game, winners: list[int], deal_in: int, tile: int, reason: int) -> None:
        win(game, winners, deal_in, tile, reason)

    def next_seat(self, game: Game, seat: int) -> int:
        return next_live(game, seat)

    def pay_kong(self, game: Game, seat: int, kind: str, discarder: int | None = None) -> None:
        pay_kong(game, seat, kind, discarder)

    def settle(self, game: Game, winners: list[int], deal_in: int, reason: int, scores: np.ndarray) -> np.ndarray:
        # wins and kongs were paid as they came; an exhaustive draw settles among the seats still in
        return game.scores + draw_settlement(game) if reason == EndReason.EXHAUSTIVE_DRAW else game.scores

    def result(self, game: Game) -> dict:
        return {"missing": game.missing.tolist(), "wins": [dict(w) for w in game.wins]}


HOOKS = SichuanHooks()
