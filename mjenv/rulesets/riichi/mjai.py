"""mjai, the JSON-lines protocol of Mortal and RiichiEnv: write a Riichi game as mjai, read one back.

A game is a list of mjai messages (dicts), one JSON object per line in a file. :func:`game_to_mjai`
turns the engine's events (:mod:`~mjenv.rulesets.riichi.game`) and each hand's wall into the full log;
:func:`seat_view` hides what one seat may not see; :func:`replay_mjai` plays a log back through
:class:`~mjenv.rulesets.riichi.game.RiichiGame`, so every action must be legal by mjenv's rules and every
payment must come out the same; :func:`mjlog_to_mjai` converts a Tenhou mjlog through the engine replay.

Tiles: ``1m``-``9m``, ``1p``-``9p``, ``1s``-``9s``, the red fives ``5mr`` ``5pr`` ``5sr``, the honours
``E S W N`` (winds) and ``P F C`` (white, green, red dragon); ``?`` is a tile a seat may not see.

==============  ===================================================================================
message         keys (as written here; the readers also take Mortal's and RiichiEnv's spellings)
==============  ===================================================================================
start_game      names (4 strings); in a seat's view also ``id`` (the seat)
start_kyoku     bakaze (E/S/W/N), kyoku (1-4), honba, kyotaku (riichi sticks), oya, scores,
                dora_marker, tehais (4 x 13 tiles in tile order; ``?`` in a seat's view for the others)
tsumo           actor, pai (``?`` for the other seats)
dahai           actor, pai, tsumogiri
chi, pon,       actor, target (the discarder), pai (the called tile), consumed (the tiles from the
daiminkan       hand: 2, 2 and 3)
kakan           actor, pai (the added tile), consumed (the three tiles of the pon)
ankan           actor, consumed (4 tiles)
reach           actor (the declaration; the discard follows)
reach_accepted  actor, deltas (-1000 for the actor), scores (after the deposit)
dora            dora_marker (a newly revealed indicator)
hora            actor, target (== actor for tsumo), pai, deltas (the win's payments, honba and
                sticks included, the deposits already paid at ``reach_accepted`` not), ura_markers
                (the winner's ura-dora indicators when in riichi, else empty), han, fu
ryukyoku        reason, deltas (tenpai or nagashi payments; zeros for an abortive draw)
end_kyoku       (nothing)
end_game        scores (final, leftover sticks to the first), points (uma and oka)
==============  ===================================================================================

Ryukyoku reasons (mjenv's ``draw_game`` reason -> mjai): exhaustive -> ``fanpai``, nm ->
``nagashimangan``, yao9 -> ``kyushukyuhai``, kaze4 -> ``sufonrenta``, reach4 -> ``suchareach``,
kan4 -> ``sukaikan``, ron3 -> ``sanchaho``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.mjlog import _pass_all, replay_with_walls
from mjenv.rulesets.riichi.tiles136 import RED_FIVES
from mjenv.rulesets.riichi.wall import Wall

__all__ = [
    "MAX_LOG_CHARS",
    "UNKNOWN",
    "dumps",
    "game_to_mjai",
    "hand_walls",
    "log_writer",
    "loads",
    "mjlog_to_mjai",
    "replay_mjai",
    "seat_view",
    "split_games",
    "tile_name",
    "tile_type",
]

MAX_LOG_CHARS = 5_000_000
MAX_LINE_CHARS = 10_000
UNKNOWN = "?"
_SUITS = "mps"
_HONOURS = ("E", "S", "W", "N", "P", "F", "C")
_TYPE_NAMES = tuple(f"{n}{s}" for s in _SUITS for n in range(1, 10)) + _HONOURS
_NAME_TYPE = {name: i for i, name in enumerate(_TYPE_NAMES)}
_RED_NAMES = {f"5{s}r": RED_FIVES[k] for k, s in enumerate(_SUITS)}
_BAKAZE = "ESWN"
REASONS = {
    "exhaustive": "fanpai",
    "nm": "nagashimangan",
    "yao9": "kyushukyuhai",
    "kaze4": "sufonrenta",
    "reach4": "suchareach",
    "kan4": "sukaikan",
    "ron3": "sanchaho",
}
_REASON_OF = {v: k for k, v in REASONS.items()}
_CALL_TYPE = {"chi": "chi", "pon": "pon", "minkan": "daiminkan"}


# ---------------------------------------------------------------------------------------------- tiles
def tile_name(tile136: int) -> str:
    """mjai name of a Tenhou 136-id (``"5mr"`` for the red five of characters)."""
    if not 0 <= tile136 < 136:
        raise ValueError(f"136-tile id {tile136} is out of range; allowed 0..135")
    if tile136 in RED_FIVES:
        return f"5{_SUITS[RED_FIVES.index(tile136)]}r"
    return _TYPE_NAMES[tile136 >> 2]


def tile_type(name: str) -> tuple[int, bool]:
    """``(Tenhou 34-type, red)`` of an mjai tile name.

    Raises:
        ValueError: not an mjai tile name (``?`` included: it names no tile).
    """
    if isinstance(name, str):
        if name in _NAME_TYPE:
            return _NAME_TYPE[name], False
        if name in _RED_NAMES:
            return _RED_NAMES[name] >> 2, True
    raise ValueError(f"{name!r} is not an mjai tile; allowed 1m-9m, 1p-9p, 1s-9s, 5mr, 5pr, 5sr, E S W N P F C")


def _names(tiles: Iterable[int]) -> list[str]:
    return [tile_name(t) for t in tiles]


def _fits(tile136: int, name: str) -> bool:
    tt, red = tile_type(name)
    return tile136 >> 2 == tt and (tile136 in RED_FIVES) == red


# ---------------------------------------------------------------------------------------------- writer
def hand_walls(walls: Sequence) -> list[Wall]:
    """Each hand's :class:`Wall` from Wall objects or 136-id lists (mjenv's env log keeps ``wall`` lists)."""
    return [w if isinstance(w, Wall) else Wall(w) for w in walls]


def _haipai(wall: Wall, dealer: int) -> list[list[int]]:
    return [sorted(wall.deal((s - dealer) % 4)) for s in range(4)]


def game_to_mjai(events: Sequence[Mapping], walls: Sequence, names: Sequence[str] | None = None) -> list[dict]:
    """The full mjai log of a game from the engine's events and each hand's wall.

    Args:
        events: :attr:`RiichiGame.events` (the whole game or a prefix of it).
        walls: one wall per ``start_hand`` event, as :class:`Wall` or 136-id lists (the deal only is
            read: the rest of a hand is in its events).
        names: the four players' names (default ``seat0`` .. ``seat3``).

    Returns:
        The messages in order (module docstring); nothing hidden is removed (see :func:`seat_view`).

    Raises:
        ValueError: fewer walls than hands, or names that are not four strings.
    """
    names = [f"seat{s}" for s in range(4)] if names is None else list(names)
    if len(names) != 4 or not all(isinstance(n, str) for n in names):
        raise ValueError(f"names must be four strings, got {names!r}")
    walls = hand_walls(walls)
    n_hands = sum(1 for e in events if e["type"] == "start_hand")
    if len(walls) < n_hands:
        raise ValueError(f"{n_hands} hands need {n_hands} walls, got {len(walls)}")
    out: list[dict] = [{"type": "start_game", "names": names}]
    k = -1
    for e in events:
        tehais = None
        if e["type"] == "start_hand":
            k += 1
            tehais = _haipai(walls[k], e["dealer"])
        out.append(event_message(e, tehais))
    return close_hands(out)


def event_message(e: Mapping, tehais: Sequence[Sequence[int]] | None = None) -> dict:
    """The mjai message of one engine event (``tehais``: the four starting hands, for ``start_hand``)."""
    t = e["type"]
    if t == "start_hand":
        if tehais is None:
            raise ValueError("a start_hand event needs the four starting hands (tehais)")
        return {
            "type": "start_kyoku",
            "bakaze": _BAKAZE[min(e["round"] // 4, 3)],
            "kyoku": e["round"] % 4 + 1,
            "honba": e["honba"],
            "kyotaku": e["sticks"],
            "oya": e["dealer"],
            "scores": list(e["scores"]),
            "dora_marker": tile_name(e["dora"][0]),
            "tehais": [[x if isinstance(x, str) else tile_name(x) for x in h] for h in tehais],
        }
    if t == "draw":
        return {"type": "tsumo", "actor": e["seat"], "pai": tile_name(e["tile"])}
    if t == "discard":
        return {"type": "dahai", "actor": e["seat"], "pai": tile_name(e["tile"]), "tsumogiri": bool(e["tsumogiri"])}
    if t == "riichi":
        return {"type": "reach", "actor": e["seat"]}
    if t == "riichi_accepted":
        deltas = [-1000 if s == e["seat"] else 0 for s in range(4)]
        return {"type": "reach_accepted", "actor": e["seat"], "deltas": deltas, "scores": list(e["scores"])}
    if t == "call":
        return _call_message(e)
    if t == "dora":
        return {"type": "dora", "dora_marker": tile_name(e["indicator"])}
    if t == "win":
        return {
            "type": "hora",
            "actor": e["seat"],
            "target": e["seat"] if e["from"] is None else e["from"],
            "pai": tile_name(e["tile"]),
            "deltas": list(e["deltas"]),
            "ura_markers": _names(e["ura"]),
            "han": e["han"],
            "fu": e["fu"],
        }
    if t == "draw_game":
        return {"type": "ryukyoku", "reason": REASONS[e["reason"]], "deltas": list(e["deltas"])}
    if t == "end_game":
        return {"type": "end_game", "scores": list(e["scores"]), "points": list(e["points"])}
    raise ValueError(f"unknown engine event type {t!r}")


def close_hands(out: list[dict]) -> list[dict]:
    """Insert ``end_kyoku`` after each hand's last hora/ryukyoku (double ron: after the second hora)."""
    res: list[dict] = []
    for i, m in enumerate(out):
        res.append(m)
        if m["type"] in ("hora", "ryukyoku"):
            nxt = out[i + 1]["type"] if i + 1 < len(out) else None
            if nxt not in ("hora", "end_kyoku"):
                res.append({"type": "end_kyoku"})
    return res


def _call_message(e: Mapping) -> dict:
    kind, tiles, called = e["kind"], list(e["tiles"]), e["called"]
    if kind == "ankan":
        return {"type": "ankan", "actor": e["seat"], "consumed": _names(tiles)}
    rest = list(tiles)
    rest.remove(called)
    if kind == "kakan":
        return {"type": "kakan", "actor": e["seat"], "pai": tile_name(called), "consumed": _names(rest)}
    return {
        "type": _CALL_TYPE[kind],
        "actor": e["seat"],
        "target": e["from"],
        "pai": tile_name(called),
        "consumed": _names(rest),
    }


def seat_view(messages: Iterable[Mapping], seat: int) -> list[dict]:
    """What ``seat`` sees of an mjai log: the other seats' starting hands and draws become ``?``.

    ``start_game`` gains ``"id": seat`` (the seat a bot plays). Everything else in the log is public.
    """
    if seat not in range(4):
        raise ValueError(f"seat must be 0..3, got {seat!r}")
    out = []
    for m in messages:
        m = dict(m)
        if m["type"] == "start_game":
            m["id"] = seat
        elif m["type"] == "start_kyoku":
            m["tehais"] = [list(h) if s == seat else [UNKNOWN] * len(h) for s, h in enumerate(m["tehais"])]
        elif m["type"] == "tsumo" and m["actor"] != seat:
            m["pai"] = UNKNOWN
        out.append(m)
    return out


def dumps(messages: Iterable[Mapping]) -> str:
    """mjai JSONL text: one compact JSON object per line, each line ending in a newline."""
    return "".join(json.dumps(m, separators=(",", ":")) + "\n" for m in messages)


def log_writer(game: RiichiGame, record: Mapping) -> str:
    """An env log writer: the finished ``game`` as mjai JSONL, its walls from mjenv's record.

    ``record["hands"][k]["wall"]`` is hand ``k``'s wall (136-ids); the signature is the env's
    ``writer(game, record) -> str`` for a log format.
    """
    return dumps(game_to_mjai(game.events, [h["wall"] for h in record["hands"]]))


def mjlog_to_mjai(xml_text: str, names: Sequence[str] | None = None) -> list[dict]:
    """Convert a Tenhou mjlog to mjai messages through mjenv's replay (every action refereed by mjenv).

    Raises:
        ValueError: as :func:`mjenv.riichi.replay_mjlog` (a malformed log or an action mjenv finds illegal).
    """
    game, walls = replay_with_walls(xml_text)
    return game_to_mjai(game.events, walls, names)


# ---------------------------------------------------------------------------------------------- reader
def loads(text: str) -> list[dict]:
    """Parse mjai JSONL text into messages (blank lines skipped).

    Raises:
        ValueError: text too large, a line too long or not a JSON object with a string ``type``,
            naming the line.
    """
    if not isinstance(text, str):
        raise ValueError(f"an mjai log is JSONL text (str), got {type(text).__name__}")
    if len(text) > MAX_LOG_CHARS:
        raise ValueError(f"mjai log too large: {len(text)} characters (at most {MAX_LOG_CHARS})")
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        out.append(_parse_line(line, f"line {i}"))
    return out


def split_games(messages: Sequence[Mapping]) -> list[list[dict]]:
    """Split the messages of several games written one after another (each from its ``start_game``)."""
    games: list[list[dict]] = []
    for m in messages:
        if m.get("type") == "start_game" or not games:
            games.append([])
        games[-1].append(dict(m))
    return games


def _parse_line(line: str, where: str) -> dict:
    if len(line) > MAX_LINE_CHARS:
        raise ValueError(f"{where}: {len(line)} characters, more than an mjai message may have ({MAX_LINE_CHARS})")
    try:
        m = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{where}: not JSON ({getattr(e, 'msg', e)}): {line[:80]!r}") from None
    if not isinstance(m, dict) or not isinstance(m.get("type"), str):
        raise ValueError(f"{where}: an mjai message is a JSON object with a string 'type', got {line[:80]!r}")
    return m


def _seat(m: Mapping, key: str) -> int:
    v = m.get(key)
    if type(v) is not int or not 0 <= v < 4:
        raise ValueError(f"{key}={v!r} is not a seat (0..3)")
    return v


def _int_list(m: Mapping, key: str, n: int | None = 4) -> list[int]:
    v = m.get(key)
    if not isinstance(v, list) or (n is not None and len(v) != n) or any(type(x) is not int for x in v):
        raise ValueError(f"{key}={v!r} is not a list of {n} integers")
    return v


class _Pool:
    """Gives each mjai tile name of one hand a distinct 136-id (the red five its own id)."""

    def __init__(self) -> None:
        self.free = {tt: [4 * tt + c for c in range(4) if 4 * tt + c not in RED_FIVES] for tt in range(34)}
        self.red_used: set[int] = set()

    def take(self, name: str) -> int:
        tt, red = tile_type(name)
        if red:
            t = RED_FIVES[_SUITS.index(name[1])]
            if t in self.red_used:
                raise ValueError(f"a second red five {name} in one hand")
            self.red_used.add(t)
            return t
        if not self.free[tt]:
            raise ValueError(f"a fifth {name} (or a fourth plain five) in one hand")
        return self.free[tt].pop(0)


_KAN_TYPES = ("ankan", "kakan", "daiminkan", "kan")


def _kyoku_wall(msgs: list[tuple[int, dict]]) -> Wall:
    """The wall of one hand from its start_kyoku, draws, dora markers and ura markers."""
    pool = _Pool()
    lineno, start = msgs[0]
    tehais = start.get("tehais")
    if not isinstance(tehais, list) or len(tehais) != 4 or any(not isinstance(h, list) or len(h) != 13 for h in tehais):
        raise ValueError(f"line {lineno}: tehais must be 4 hands of 13 tiles")
    try:
        oya = _seat(start, "oya")
        hands = [[pool.take(x) for x in h] for h in tehais]
        dora = [pool.take(start.get("dora_marker"))]
    except ValueError as e:
        raise ValueError(f"line {lineno}: {e}") from None
    live: list[int] = []
    rinshan: list[int] = []
    ura: list[int] = []
    after_kan = False
    for lineno, m in msgs[1:]:
        try:
            t = m["type"]
            if t == "tsumo":
                (rinshan if after_kan else live).append(pool.take(m.get("pai")))
                after_kan = False
            elif t in _KAN_TYPES:
                after_kan = True
            elif t == "dora":
                dora.append(pool.take(m.get("dora_marker")))
                continue
            elif t == "hora":
                marks = m.get("ura_markers", m.get("uradora_markers")) or []
                if marks and not ura:
                    if not isinstance(marks, list):
                        raise ValueError(f"ura_markers={marks!r} is not a list of tiles")
                    ura = [pool.take(x) for x in marks]
            if t not in _KAN_TYPES and t != "tsumo":
                after_kan = False
        except ValueError as e:
            raise ValueError(f"line {lineno}: {e}") from None
    try:
        return Wall.from_parts([hands[(oya + k) % 4] for k in range(4)], live, rinshan, dora, ura)
    except ValueError as e:
        raise ValueError(f"line {msgs[0][0]}: the hand does not add up: {e}") from None


def _split_kyokus(messages: list[tuple[int, dict]]) -> tuple[list[list[tuple[int, dict]]], tuple[int, dict] | None]:
    kyokus: list[list[tuple[int, dict]]] = []
    end_game = None
    current: list[tuple[int, dict]] | None = None
    for lineno, m in messages:
        t = m["type"]
        if t == "start_kyoku":
            current = [(lineno, m)]
            kyokus.append(current)
        elif t == "end_game":
            end_game = (lineno, m)
            current = None
        elif t == "start_game" and (kyokus or end_game):
            raise ValueError(f"line {lineno}: a second game in one log (split the games with split_games)")
        elif t in ("start_game", "end_kyoku", "none"):
            if t == "end_kyoku":
                current = None
        elif current is None:
            raise ValueError(f"line {lineno}: a {t!r} message outside a hand (no start_kyoku before it)")
        else:
            current.append((lineno, m))
    if not kyokus:
        raise ValueError("the mjai log has no hand (start_kyoku message)")
    return kyokus, end_game


def replay_mjai(log: str | Iterable[Mapping], length: str = "hanchan", kokushi_robs_ankan: bool = True) -> RiichiGame:
    """Play an mjai log through :class:`RiichiGame`; the game (``results``, ``events``, final scores).

    Each hand's wall is rebuilt from its ``start_kyoku``, draws and dora/ura markers; every action is
    stepped through mjenv's rules and every ``start_kyoku``, ``reach_accepted``, ``hora``, ``ryukyoku``
    and ``end_game`` is checked against what mjenv computes (the log's deltas and scores are never used,
    only compared).

    Args:
        log: JSONL text or already parsed messages.
        length: the game's length, as :class:`RiichiGame` (``"hanchan"``, ``"east"``, ``"hand"``);
            the first ``start_kyoku`` gives the starting scores, round, honba and sticks.
        kokushi_robs_ankan: as :class:`RiichiGame`.

    Raises:
        ValueError: malformed input or an action or result mjenv does not reproduce, naming the line.
    """
    if isinstance(log, str):
        msgs = loads(log)
    else:
        msgs = []
        for i, m in enumerate(log, 1):
            if not isinstance(m, Mapping) or not isinstance(m.get("type"), str):
                raise ValueError(f"line {i}: an mjai message is a mapping with a string 'type', got {m!r:.80}")
            msgs.append(dict(m))
    numbered = list(enumerate(msgs, 1))
    kyokus, end_game = _split_kyokus(numbered)
    walls = [_kyoku_wall(k) for k in kyokus]
    queue = iter(walls)
    first = kyokus[0][0]
    lineno, start = first
    try:
        scores = _int_list(start, "scores")
        round_index = _round_index(start)
        honba, sticks = start.get("honba"), start.get("kyotaku", start.get("kyoutaku"))
        game = RiichiGame(
            length=length,
            wall_factory=lambda g: next(queue),
            scores=scores,
            round_index=round_index,
            honba=honba if type(honba) is int else -1,
            sticks=sticks if type(sticks) is int else -1,
            kokushi_robs_ankan=kokushi_robs_ankan,
        )
    except (ValueError, TypeError) as e:
        raise ValueError(f"line {lineno}: {e}") from None
    for k, kyoku in enumerate(kyokus):
        lineno, start = kyoku[0]
        if k:
            if game.phase != "hand_over":
                raise ValueError(f"line {lineno}: a new hand, but mjenv's game is over (length={length!r})")
            game.next_hand()
        _check_start(game, start, lineno)
        _play_kyoku(game, kyoku)
    if end_game is not None:
        lineno, m = end_game
        if game.phase != "game_over":
            raise ValueError(f"line {lineno}: the log ends the game, mjenv's game goes on (length={length!r})")
        if "scores" in m and m["scores"] != game.final_scores:
            raise ValueError(f"line {lineno}: final scores {m['scores']} in the log, {game.final_scores} by mjenv")
    return game


def _round_index(start: Mapping) -> int:
    bakaze, kyoku = start.get("bakaze"), start.get("kyoku")
    if bakaze not in tuple(_BAKAZE) or type(kyoku) is not int or not 1 <= kyoku <= 4:
        raise ValueError(f"bakaze={bakaze!r} kyoku={kyoku!r}: need a wind E/S/W/N and kyoku 1-4")
    return 4 * _BAKAZE.index(bakaze) + kyoku - 1


def _check_start(game: RiichiGame, m: Mapping, lineno: int) -> None:
    got = {
        "round": _round_index(m) if m.get("bakaze") in tuple(_BAKAZE) else None,
        "honba": m.get("honba"),
        "kyotaku": m.get("kyotaku", m.get("kyoutaku")),
        "oya": m.get("oya"),
        "scores": m.get("scores"),
    }
    want = {"round": game.round_index, "honba": game.honba, "kyotaku": game.sticks, "oya": game.dealer,
            "scores": game.scores}  # fmt: skip
    if got != want:
        raise ValueError(f"line {lineno}: start_kyoku {got}, but mjenv's game is at {want}: the hands do not add up")


def _close_window(game: RiichiGame) -> None:
    if game.phase in ("claim", "chankan"):
        _pass_all(game)


def _from_hand(hand: Sequence[int], names: Sequence[str], prefer: int | None = None) -> tuple[int, ...]:
    """Distinct 136-ids of ``hand`` matching ``names`` (``prefer`` first when it fits)."""
    left = list(hand)
    out = []
    for n in names:
        cands = [t for t in left if _fits(t, n)]
        if not cands:
            raise ValueError(f"tile {n} is not in the hand ({_names(sorted(hand))})")
        t = prefer if prefer in cands else cands[0]
        prefer = None
        left.remove(t)
        out.append(t)
    return tuple(out)


def _tile_list(m: Mapping, key: str, n: int) -> list[str]:
    v = m.get(key)
    if not isinstance(v, list) or len(v) != n:
        raise ValueError(f"{key}={v!r} is not a list of {n} tiles")
    for x in v:
        tile_type(x)
    return v


def _play_kyoku(game: RiichiGame, kyoku: list[tuple[int, dict]]) -> None:
    start_event = len(game.events) - 1
    while game.events[start_event]["type"] != "start_hand":
        start_event -= 1
    accepted: list[tuple[int, int]] = []
    dora_seen = [kyoku[0][1].get("dora_marker")]
    ended = False
    i = 1
    while i < len(kyoku):
        lineno, m = kyoku[i]
        t = m["type"]
        try:
            if ended and t not in ("hora", "ryukyoku"):
                raise ValueError("the hand is over by mjenv's rules")
            if t == "tsumo":
                seat = _seat(m, "actor")
                _close_window(game)
                last = next(e for e in reversed(game.events) if e["type"] == "draw")
                if game.phase != "act" or game.turn != seat or not _fits(last["tile"], m.get("pai")):
                    raise ValueError(f"mjenv expects phase {game.phase!r} for seat {game.turn}, not this draw")
            elif t == "dahai":
                seat = _seat(m, "actor")
                _close_window(game)
                if seat not in game.to_act():
                    raise ValueError(f"seat {seat} does not act now (phase {game.phase!r}, seat {game.turn})")
                prefer = game.drawn if m.get("tsumogiri") else None
                hand = game.hands[seat]
                if not m.get("tsumogiri") and game.drawn is not None:
                    others = [x for x in hand if x != game.drawn and _fits(x, m.get("pai"))]
                    prefer = others[0] if others else None
                (tile,) = _from_hand(hand, [m.get("pai")], prefer)
                game.step({seat: A.discard_action(tile)}, {seat: (tile,)})
            elif t in ("chi", "pon", "daiminkan", "kan"):
                seat, target = _seat(m, "actor"), _seat(m, "target")
                consumed = _tile_list(m, "consumed", 2 if t in ("chi", "pon") else 3)
                if game.phase != "claim" or game.claim_from != target or not _fits(game.claim_tile, m.get("pai")):
                    raise ValueError(f"no discard of {m.get('pai')} by seat {target} to call")
                if seat not in game.to_act():
                    raise ValueError(f"seat {seat} may not call this discard by mjenv's rules")
                used = _from_hand(game.hands[seat], consumed)
                red = any(A.is_red(x) for x in used)
                if t == "pon":
                    act = A.PON_RED if red else A.PON
                elif t == "chi":
                    types = sorted([game.claim_tile >> 2] + [x >> 2 for x in used])
                    act = (A.CHI_RED if red else A.CHI) + types.index(game.claim_tile >> 2)
                else:
                    act = A.MINKAN
                _pass_all(game, {seat: act}, {seat: used})
            elif t in ("ankan", "kakan"):
                seat = _seat(m, "actor")
                _close_window(game)
                if t == "ankan":
                    used = _from_hand(game.hands[seat], _tile_list(m, "consumed", 4))
                else:
                    used = _from_hand(game.hands[seat], [m.get("pai")])
                if len({x >> 2 for x in used}) != 1:
                    raise ValueError("the four tiles of a closed kan must be of one type")
                game.step({seat: A.kan_action(used[0] >> 2)}, {seat: used})
            elif t == "reach":
                seat = _seat(m, "actor")
                _close_window(game)
                game.step({seat: A.RIICHI})
            elif t == "reach_accepted":
                accepted.append((lineno, _seat(m, "actor")))
            elif t == "dora":
                tile_type(m.get("dora_marker"))
                dora_seen.append(m.get("dora_marker"))
            elif t == "hora":
                seat, target = _seat(m, "actor"), _seat(m, "target")
                j = i
                if not ended:
                    if seat == target:
                        game.step({seat: A.TSUMO})
                    else:
                        winners = [seat]
                        while j + 1 < len(kyoku) and kyoku[j + 1][1]["type"] == "hora":
                            j += 1
                            winners.append(_seat(kyoku[j][1], "actor"))
                        if game.phase not in ("claim", "chankan"):
                            raise ValueError("no discard or kan to win on")
                        for w in winners:
                            if w not in game.to_act():
                                raise ValueError(f"seat {w} may not win on this tile by mjenv's rules")
                        _pass_all(game, {w: A.RON for w in winners})
                    ended = True
                for lj, mj in kyoku[i : j + 1]:
                    _check_win(game, mj, lj, start_event)
                i = j
            elif t == "ryukyoku":
                reason = _REASON_OF.get(m.get("reason"), m.get("reason"))
                if not ended:
                    if reason == "yao9":
                        game.step({game.turn: A.KYUUSHU})
                    elif reason == "ron3":
                        _pass_all(game, {s: A.RON for s in game.to_act() if game.legal_actions(s)[A.RON]})
                    else:
                        _close_window(game)
                    ended = True
                got = game.results[-1]["result"] if game.phase in ("hand_over", "game_over") else None
                if got is None or (reason in REASONS and got != reason):
                    raise ValueError(f"the log draws the hand ({m.get('reason')}); mjenv gives {got or 'no end'}")
                ev = next(e for e in reversed(game.events) if e["type"] == "draw_game")
                if "deltas" in m and m["deltas"] is not None and _int_list(m, "deltas") != ev["deltas"]:
                    raise ValueError(f"deltas {m['deltas']} in the log, {ev['deltas']} by mjenv")
            else:
                raise ValueError(f"unknown mjai message type {t!r}")
        except ValueError as e:
            raise ValueError(f"line {lineno} ({_short(m)}): {e}") from None
        except StopIteration:
            raise ValueError(f"line {lineno} ({_short(m)}): the wall runs out") from None
        i += 1
    if not ended:
        raise ValueError(f"line {kyoku[-1][0]}: the hand ends without hora or ryukyoku (truncated log)")
    hand_events = game.events[start_event:]
    got_acc = [e["seat"] for e in hand_events if e["type"] == "riichi_accepted"]
    if [s for _, s in accepted] != got_acc:
        where = accepted[0][0] if accepted else kyoku[0][0]
        raise ValueError(f"line {where}: riichi accepted for seats {[s for _, s in accepted]}, by mjenv {got_acc}")
    shown = [tile_name(hand_events[0]["dora"][0])]
    shown += [tile_name(e["indicator"]) for e in hand_events if e["type"] == "dora"]
    if shown != dora_seen:
        raise ValueError(f"line {kyoku[0][0]}: dora markers {dora_seen} in the log, mjenv reveals {shown}")


def _check_win(game: RiichiGame, m: Mapping, lineno: int, start_event: int) -> None:
    seat = _seat(m, "actor")
    wins = [e for e in game.events[start_event:] if e["type"] == "win" and e["seat"] == seat]
    if not wins:
        raise ValueError(f"line {lineno} ({_short(m)}): seat {seat} does not win by mjenv's rules")
    w = wins[-1]
    for key, ours in (("deltas", w["deltas"]), ("han", w["han"]), ("fu", w["fu"])):
        theirs = m.get(key, m.get("delta")) if key == "deltas" else m.get(key)
        if theirs is not None and theirs != ours:
            raise ValueError(f"line {lineno} ({_short(m)}): {key} {theirs} in the log, {ours} by mjenv")
    if m.get("pai") is not None and not _fits(w["tile"], m["pai"]):
        raise ValueError(f"line {lineno} ({_short(m)}): winning tile {m['pai']}, mjenv's is {tile_name(w['tile'])}")


def _short(m: Mapping) -> str:
    s = json.dumps(m, separators=(",", ":"))
    return s if len(s) <= 120 else s[:117] + "..."
