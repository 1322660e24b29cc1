"""Riichi games in ``mjenv view``: the frames of a hand of the env's record (``"mjenv-riichi"``).

Importing this module registers the builder (:func:`mjenv.view.register_frame_builder`); ``mjenv view``
imports it through the room's ``viewer``. A record holds a whole game: :func:`hands` splits it into one
log per hand (``--hand k`` counts the hands of every game in the file), and :func:`frames` replays the
game up to that hand through :class:`~mjenv.rulesets.riichi.game.RiichiGame` (every action checked
again), then draws one frame per state of the hand.

What a frame shows: every hand face up (red fives marked, the drawn tile apart), the melds with the
called tile sideways (a closed kan upright), the discards with the riichi tile sideways, tsumogiri
(the drawn tile thrown at once) greyed and called-away tiles marked, the tile on offer outlined, the
dora indicators, each seat's wind, score and riichi, and the round, honba and riichi sticks.
"""

from __future__ import annotations

from typing import Any

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import log as _log
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.tiles136 import TYPE34, is_red
from mjenv.tiles import tile_name
from mjenv.view import register_frame_builder

__all__ = ["frames", "hands", "round_name"]

WINDS = ("East", "South", "West", "North")
_DISCARD_PHASES = ("act", "riichi_discard")


def round_name(round_index: int) -> str:
    """``"East 1"`` .. ``"West 4"`` of a round index."""
    return f"{WINDS[min(round_index // 4, 3)]} {round_index % 4 + 1}"


def hands(record: dict[str, Any]) -> list[dict[str, Any]]:
    """One log per hand of a record: the record with ``"view_hand"`` (the hand's index) and a title."""
    _log.start_game(record)  # refuses what is not a record
    out = []
    for k in range(len(record["hands"])):
        out.append({**record, "view_hand": k, "rules": "riichi",
                    "title": f"mjenv riichi game, hand {k + 1} of {len(record['hands'])}"})
    return out


def _tile(t136: int, **flags: bool) -> str | dict[str, Any]:
    name = tile_name(int(TYPE34[t136]))
    flags = {k: v for k, v in flags.items() if v}
    if is_red(t136):
        flags["red"] = True
    return {"t": name, **flags} if flags else name


def _sorted(tiles) -> list[int]:
    return sorted(tiles, key=lambda x: (TYPE34[x], x))


def _frame(game: RiichiGame, k: int, caption: str) -> dict[str, Any]:
    over = game.phase in ("hand_over", "game_over")
    # the hand's round, honba and dealer (its end already moves the game's on to the next hand's)
    round_index, honba, _ = game.hand_start
    dealer = round_index % 4
    offer = game.claim_from if game.phase in ("claim", "chankan") else None
    seats = []
    for s in range(4):
        held = list(game.hands[s])
        drawn = None
        if not over and s == game.turn and game.phase in _DISCARD_PHASES and game.drawn in held:
            drawn = game.drawn
            held.remove(drawn)  # drawn apart, at the right of the hand
        melds = []
        for m in game.melds[s]:
            called = m.called if m.kind != "ankan" else None
            melds.append({"kind": m.kind, "tiles": [_tile(t, sideways=t == called) for t in m.tiles]})
        discards = []
        n = len(game.discards[s])
        for i, (t, f) in enumerate(zip(game.discards[s], game.discard_flags[s])):
            discards.append(_tile(t, grey=bool(f & 1), sideways=bool(f & 2), claimed=bool(f & 4),
                                  last=offer == s and i == n - 1 and game.phase == "claim"))
        notes = [f"{WINDS[(s - dealer) % 4]} seat"]
        if game.riichi[s]:
            notes.append({1: "riichi", 2: "double riichi"}[game.riichi[s]])
        seats.append({
            "name": f"player_{s}",
            "dealer": s == dealer,
            "score": int(game.scores[s]),
            "hand": [_tile(t) for t in _sorted(held)],
            "drawn": None if drawn is None else _tile(drawn),
            "melds": melds,
            "discards": discards,
            "rows": [],
            "notes": notes,
        })
    indicators = [{"label": "dora indicators", "tiles": [_tile(t) for t in game.dora_indicators]}]
    if game.phase == "chankan":
        indicators.append({"label": "kan tile on offer", "tiles": [_tile(game.claim_tile)]})
    result = ""
    if over and game.results:
        r = game.results[-1]
        result = f"{r['result']}; deltas {r['deltas']}; scores {r['scores']}"
        if game.final_scores is not None:
            result += f"; game over: final scores {game.final_scores}, points {game.final_points}"
    return {
        "step": k,
        "caption": caption,
        "phase": game.phase,
        "wall": int(game.live_remaining),
        "to_act": [] if over else [int(s) for s in game.to_act()],
        "indicators": indicators,
        "info": [round_name(round_index), f"honba {honba}", f"riichi sticks {game.sticks}"],
        "result": result,
        "seats": seats,
    }


def frames(log: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames of hand ``log["view_hand"]`` (0 when absent) of a record, one per state, the deal first.

    Raises:
        ValueError: not a record, no such hand, or an illegal action (naming the hand and the step).
    """
    game = _log.start_game(log)
    k = int(log.get("view_hand", 0))
    if not 0 <= k < len(log["hands"]):
        raise ValueError(f"the record holds {len(log['hands'])} hand(s), not a hand {k}")
    for h in range(k + 1):
        if h:
            if game.phase != "hand_over":
                raise ValueError(f"hand {h + 1}: the record goes on after the game ended (phase {game.phase})")
            game.next_hand()
        if h == k:
            break
        for i, step in enumerate(log["hands"][h]["actions"]):
            _step(game, step, h, i)
    out = [_frame(game, 0, f"the deal of {round_name(game.round_index)}")]
    for i, step in enumerate(log["hands"][k]["actions"]):
        _step(game, step, k, i)
        acts = {int(s): int(a) for s, a in step}
        told = [f"player_{s}: {A.describe(a)}" for s, a in acts.items() if a != A.PASS]
        if not told:
            told = ["everyone passes"] if acts else ["nobody can claim"]
        out.append(_frame(game, i + 1, "; ".join(told)))
    return out


def _step(game: RiichiGame, step, hand: int, i: int) -> None:
    try:
        game.step({int(s): int(a) for s, a in step})
    except (ValueError, TypeError) as e:
        raise ValueError(f"hand {hand + 1}, step {i + 1}: {e}") from None


register_frame_builder(_log.FORMAT, frames, hands=hands)
