"""Tenhou mjlog (XML) reader and the referee replay through mjenv's own rules.

The reader is defensive: a log over ``MAX_LOG_CHARS`` characters, any ``<!DOCTYPE`` or ``<!ENTITY``
(entity expansion), broken XML, a root other than ``mjloggm``, another rule set (three players, no
red fives, no open tanyao), a tile id outside 0..135, a missing or malformed attribute, or a hand
that does not add up all raise ``ValueError`` naming the hand and the tag. The replay never reads
the log's scores (``sc=``, ``ten=``, ``owari=``): every payment comes from mjenv's rules.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.wall import Wall

MAX_LOG_CHARS = 2_000_000
_DRAW = "TUVW"
_DISCARD = "DEFG"
_MOVE = re.compile(r"^([TUVWDEFG])(\d+)$")
_FORBIDDEN = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
ROUND_NAMES = [f"{w} {k}" for w in ("East", "South", "West", "North") for k in range(1, 5)]


def _int(attrs: dict, key: str, where: str) -> int:
    if key not in attrs:
        raise ValueError(f"{where}: missing attribute {key}=")
    try:
        return int(attrs[key])
    except ValueError:
        raise ValueError(f"{where}: attribute {key}={attrs[key]!r} is not an integer") from None


def _ints(attrs: dict, key: str, where: str, n: int | None = None) -> list[int]:
    if key not in attrs:
        raise ValueError(f"{where}: missing attribute {key}=")
    raw = attrs[key].strip()
    try:
        vals = [int(x) for x in raw.split(",")] if raw else []
    except ValueError:
        raise ValueError(f"{where}: attribute {key}={raw!r} is not a list of integers") from None
    if n is not None and len(vals) != n:
        raise ValueError(f"{where}: attribute {key}= has {len(vals)} values, expected {n}")
    return vals


def _tile(v: int, where: str) -> int:
    if not 0 <= v < 136:
        raise ValueError(f"{where}: tile id {v} is not a Riichi tile (0..135)")
    return v


def parse(text: str) -> tuple[dict, list[list[tuple[str, dict]]]]:
    """Split a Tenhou mjlog into the game's ``GO`` attributes and its hands.

    Returns:
        ``(go_attrs, hands)``; each hand is a list of ``(tag, attrs)`` starting with its ``INIT``.

    Raises:
        ValueError: too large, DOCTYPE/ENTITY, broken XML, not an mjlog, another rule set.
    """
    if not isinstance(text, str):
        raise ValueError(f"an mjlog is XML text (str), got {type(text).__name__}")
    if len(text) > MAX_LOG_CHARS:
        raise ValueError(f"log too large: {len(text)} characters (at most {MAX_LOG_CHARS})")
    if _FORBIDDEN.search(text):
        raise ValueError("log refused: it declares a DOCTYPE or ENTITY (no entity expansion is allowed)")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise ValueError(f"broken XML: {e}") from None
    if root.tag != "mjloggm":
        raise ValueError(f"not a Tenhou mjlog: root tag <{root.tag}>, expected <mjloggm>")
    go: dict = {}
    hands: list[list[tuple[str, dict]]] = []
    for i, el in enumerate(root):
        if el.tag == "GO":
            go = dict(el.attrib)
            t = _int(go, "type", f"tag {i} <GO>")
            if t & 0x10:
                raise ValueError(f"tag {i} <GO type={t}>: a three-player log (only four-player Riichi is supported)")
            if t & 0x02:
                raise ValueError(f"tag {i} <GO type={t}>: a log without red fives (Tenhou ranked rules have them)")
            if t & 0x04:
                raise ValueError(f"tag {i} <GO type={t}>: a log without open tanyao (Tenhou ranked rules allow it)")
        elif el.tag == "INIT":
            hands.append([(el.tag, dict(el.attrib))])
        elif el.tag in ("SHUFFLE", "UN", "TAIKYOKU", "BYE"):
            continue
        elif hands:
            hands[-1].append((el.tag, dict(el.attrib)))
        else:
            raise ValueError(f"tag {i} <{el.tag}> comes before the first <INIT>")
    if not hands:
        raise ValueError("the log has no hand (<INIT> tag)")
    return go, hands


def decode_meld(who: int, m: int, where: str) -> dict:
    """Decode Tenhou's meld code ``m=``: kind, tiles (136-ids), called tile, from seat."""
    if not 0 <= m < 1 << 16:
        raise ValueError(f"{where}: meld code m={m} out of range")
    kui = m & 3
    if m & 0x4:  # chi
        t = m >> 10
        r = t % 3
        t //= 3
        if t >= 21:
            raise ValueError(f"{where}: meld code m={m} is no chi")
        base = (t // 7) * 9 + t % 7
        tiles = [4 * (base + k) + ((m >> (3 + 2 * k)) & 3) for k in range(3)]
        return {"kind": "chi", "tiles": tiles, "called": tiles[r], "from": (who + 3) % 4}
    if m & 0x18:  # pon (0x8) or added kan (0x10)
        unused = (m >> 5) & 3
        t = m >> 9
        r = t % 3
        t //= 3
        if t >= 34 or kui == 0:
            raise ValueError(f"{where}: meld code m={m} is no pon")
        pon = [4 * t + k for k in range(4) if k != unused]
        called = pon[r]
        if m & 0x8:
            return {"kind": "pon", "tiles": pon, "called": called, "from": (who + kui) % 4}
        return {
            "kind": "kakan",
            "tiles": pon + [4 * t + unused],
            "called": called,
            "added": 4 * t + unused,
            "from": (who + kui) % 4,
        }
    if m & 0x20:
        raise ValueError(f"{where}: a north-wind extraction (three-player rules)")
    hai0 = m >> 8
    t = hai0 // 4
    if t >= 34:
        raise ValueError(f"{where}: meld code m={m} is no kan")
    tiles = [4 * t + k for k in range(4)]
    if kui == 0:
        return {"kind": "ankan", "tiles": tiles, "called": None, "from": None}
    return {"kind": "minkan", "tiles": tiles, "called": hai0, "from": (who + kui) % 4}


def _hand_wall(hand: list[tuple[str, dict]], where: str) -> Wall:
    init = hand[0][1]
    seed = _ints(init, "seed", f"{where} <INIT>", 6)
    oya = _int(init, "oya", f"{where} <INIT>")
    if not 0 <= oya < 4:
        raise ValueError(f"{where} <INIT>: oya={oya} is no seat")
    hais = []
    for s in range(4):
        h = [_tile(t, f"{where} <INIT hai{s}>") for t in _ints(init, f"hai{s}", f"{where} <INIT>", 13)]
        hais.append(h)
    dora = [_tile(seed[5], f"{where} <INIT seed>")]
    live: list[int] = []
    rinshan: list[int] = []
    ura: list[int] = []
    after_kan = False
    for i, (tag, attrs) in enumerate(hand[1:], start=1):
        mv = _MOVE.match(tag)
        if mv and mv.group(1) in _DRAW:
            t = _tile(int(mv.group(2)), f"{where}, tag {i} <{tag}>")
            (rinshan if after_kan else live).append(t)
            after_kan = False
        elif tag == "N":
            who = _int(attrs, "who", f"{where}, tag {i} <N>")
            meld = decode_meld(who, _int(attrs, "m", f"{where}, tag {i} <N>"), f"{where}, tag {i} <N>")
            after_kan = meld["kind"] in ("ankan", "minkan", "kakan")
        elif tag == "DORA":
            dora.append(_tile(_int(attrs, "hai", f"{where}, tag {i} <DORA>"), f"{where}, tag {i} <DORA>"))
        else:
            after_kan = False
            if tag == "AGARI" and "doraHaiUra" in attrs and not ura:
                here = f"{where}, tag {i} <AGARI>"
                ura = [_tile(t, here) for t in _ints(attrs, "doraHaiUra", here)]
    try:
        return Wall.from_parts([hais[(oya + k) % 4] for k in range(4)], live, rinshan, dora, ura)
    except ValueError as e:
        raise ValueError(f"{where}: the hand does not add up: {e}") from None


def replay(text: str) -> RiichiGame:
    """Play a Tenhou log through :class:`RiichiGame` and return the game (``results``, ``events``,
    ``final_scores``, ``final_points``).

    Raises:
        ValueError: bad input (see the module docstring) or an action mjenv finds illegal, naming
            the hand (number and round) and the tag.
    """
    return replay_with_walls(text)[0]


def replay_with_walls(text: str, on_step=None) -> tuple[RiichiGame, list[Wall]]:
    """As :func:`replay`, with each hand's rebuilt :class:`Wall` (the deal of each hand, e.g. for mjai).

    ``on_step(game, actions)``, when given, is called before each step the replay applies, with the game as it is
    then and the actions (seat -> action id) of the step (every seat that acts: its own choice as the log shows it,
    or a pass)."""
    go, hands = parse(text)
    t = int(go.get("type", "9"))
    length = "hanchan" if t & 0x08 else "east"
    walls = []
    for k, hand in enumerate(hands):
        walls.append(_hand_wall(hand, f"hand {k + 1}"))
    queue = iter(walls)
    game = RiichiGame(length=length, wall_factory=lambda g: next(queue))
    if on_step is not None:  # every step of the replay goes through game.step
        apply = game.step

        def step(actions, tiles=None):
            on_step(game, actions)
            apply(actions, tiles)

        game.step = step
    for k, hand in enumerate(hands):
        where = f"hand {k + 1} ({ROUND_NAMES[min(game.round_index, 15)]}, honba {game.honba})"
        if k > 0:
            if game.phase == "game_over":
                raise ValueError(f"{where}, tag 0 <INIT>: the game is already over by mjenv's rules")
            game.next_hand()
        seed = _ints(hand[0][1], "seed", f"{where} <INIT>", 6)
        if seed[:3] != [game.round_index, game.honba, game.sticks] or _int(hand[0][1], "oya", where) != game.dealer:
            raise ValueError(
                f"{where}, tag 0 <INIT>: the log starts round {seed[0]} honba {seed[1]} sticks {seed[2]} "
                f"dealer {hand[0][1].get('oya')}, mjenv's rules give round {game.round_index} honba "
                f"{game.honba} sticks {game.sticks} dealer {game.dealer}: the hands do not add up"
            )
        _play_hand(game, hand, where)
        if game.phase not in ("hand_over", "game_over"):
            raise ValueError(f"{where}: the log ends the hand but mjenv's hand goes on (phase {game.phase})")
    return game, walls


def decisions(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The players' decisions in a Tenhou log, observed as the env observes them (``observation="default"``): for
    imitation learning (``mjenv train bc --rules riichi --logs``).

    The log is replayed (:func:`replay_with_walls`); before each step, every seat that acts with more than one
    legal action gives a row: its observation, its action mask and the action the log shows it took. A seat's pass
    in a window that another seat's call or win took is left out (the log does not say what that seat chose: a
    call of lower priority is not shown); in a window everyone passed, each pass is a row.

    Returns:
        ``(obs float32[M, 1535], masks int8[M, 85], actions int64[M], hands int64[M])``: ``hands`` numbers the
        log's hands from 0.

    Raises:
        ValueError: as :func:`replay` (a bad log, or one that mjenv's rules do not replay).
    """
    from mjenv.rulesets.riichi.observation import spec

    observe = spec().observe
    rows: list[tuple[np.ndarray, np.ndarray, int, int]] = []

    def on_step(game: RiichiGame, actions: dict) -> None:
        chose = {s: int(actions[s]) for s in game.to_act() if s in actions}
        if game.phase in ("claim", "chankan") and any(a != A.PASS for a in chose.values()):
            chose = {s: a for s, a in chose.items() if a != A.PASS}  # the others' choices are not in the log
        chose = {s: a for s, a in chose.items() if int(game.legal_actions(s).sum()) > 1}
        if chose:
            obs, masks, _ = observe(game)
            for s, a in sorted(chose.items()):
                rows.append((obs[s], masks[s], a, len(game.results)))

    replay_with_walls(text, on_step)
    if not rows:
        return (np.zeros((0, spec().size), np.float32), np.zeros((0, A.N_ACTIONS), np.int8), np.zeros(0, np.int64),
                np.zeros(0, np.int64))
    return (np.stack([r[0] for r in rows]).astype(np.float32), np.stack([r[1] for r in rows]).astype(np.int8),
            np.array([r[2] for r in rows], np.int64), np.array([r[3] for r in rows], np.int64))


def _pass_all(game: RiichiGame, keep: dict | None = None, tiles: dict | None = None) -> None:
    acts = {s: A.PASS for s in game.to_act()}
    if keep:
        acts.update(keep)
    game.step(acts, tiles)


def _play_hand(game: RiichiGame, hand: list[tuple[str, dict]], where: str) -> None:
    i = 1
    n = len(hand)
    ended = False
    while i < n:
        tag, attrs = hand[i]
        shown = "" if tag == "AGARI" else "".join(f" {k}={v}" for k, v in attrs.items())
        here = f"{where}, tag {i} <{tag}{shown}>"
        try:
            if ended and tag not in ("AGARI", "RYUUKYOKU"):
                raise ValueError("the hand is over by mjenv's rules")
            mv = _MOVE.match(tag)
            if mv:
                seat = _DRAW.find(mv.group(1)) if mv.group(1) in _DRAW else _DISCARD.find(mv.group(1))
                tile = int(mv.group(2))
                if mv.group(1) in _DRAW:
                    if game.phase in ("claim", "chankan"):
                        _pass_all(game)
                    last = next(e for e in reversed(game.events) if e["type"] == "draw")
                    if game.phase != "act" or game.turn != seat or last["tile"] != tile:
                        raise ValueError(f"mjenv expects {game.phase} by seat {game.turn}, not this draw")
                else:
                    if game.phase in ("claim", "chankan"):
                        _pass_all(game)
                    game.step({seat: A.discard_action(tile)}, {seat: (tile,)})
            elif tag == "N":
                who = _int(attrs, "who", here)
                meld = decode_meld(who, _int(attrs, "m", here), here)
                kind = meld["kind"]
                if kind in ("ankan", "kakan"):
                    if game.phase in ("claim", "chankan"):
                        _pass_all(game)
                    tt = meld["tiles"][0] >> 2
                    used = tuple(meld["tiles"]) if kind == "ankan" else (meld["added"],)
                    game.step({who: A.kan_action(tt)}, {who: used})
                else:
                    if game.phase != "claim" or game.claim_from != meld["from"] or game.claim_tile != meld["called"]:
                        raise ValueError(f"no discard of tile {meld['called']} by seat {meld['from']} to call")
                    used = [t for t in meld["tiles"] if t != meld["called"]]
                    red = any(A.is_red(t) for t in used)
                    if kind == "pon":
                        act = A.PON_RED if red else A.PON
                    elif kind == "minkan":
                        act = A.MINKAN
                    else:
                        pos = sorted(t >> 2 for t in meld["tiles"]).index(meld["called"] >> 2)
                        act = (A.CHI_RED if red else A.CHI) + pos
                    if who not in game.to_act():
                        raise ValueError(f"seat {who} may not call this discard by mjenv's rules")
                    _pass_all(game, {who: act}, {who: tuple(used)})
            elif tag == "REACH":
                who = _int(attrs, "who", here)
                if _int(attrs, "step", here) == 1:
                    game.step({who: A.RIICHI})
            elif tag == "DORA":
                _int(attrs, "hai", here)
            elif tag == "AGARI":
                who = _int(attrs, "who", here)
                frm = _int(attrs, "fromWho", here)
                if not (0 <= who < 4 and 0 <= frm < 4):
                    raise ValueError("who/fromWho is no seat")
                if not ended:
                    if who == frm:
                        game.step({who: A.TSUMO})
                    else:
                        winners = [who]
                        j = i + 1
                        while j < n and hand[j][0] == "AGARI":
                            winners.append(_int(hand[j][1], "who", here))
                            j += 1
                        if game.phase not in ("claim", "chankan"):
                            raise ValueError("no discard or added kan to win on")
                        _pass_all(game, {w: A.RON for w in winners})
                    ended = True
                dora = _ints(attrs, "doraHai", here)
                won = [e for e in game.events if e["type"] == "win" and e["seat"] == who]
                if not won:
                    raise ValueError(f"seat {who} does not win by mjenv's rules")
                if sorted(dora) != sorted(won[-1]["dora"]):
                    raise ValueError(f"dora indicators {won[-1]['dora']} by mjenv's rules, {dora} in the log")
            elif tag == "RYUUKYOKU":
                kind = attrs.get("type", "exhaustive")
                if not ended:
                    if kind == "yao9":
                        game.step({game.turn: A.KYUUSHU})
                    elif kind == "ron3":
                        rons = {s: A.RON for s in game.to_act() if game.legal_actions(s)[A.RON]}
                        _pass_all(game, rons)
                    elif game.phase in ("claim", "chankan"):
                        _pass_all(game)
                    ended = True
                got = game.results[-1]["result"] if game.phase in ("hand_over", "game_over") else None
                if got != kind:
                    raise ValueError(f"the log draws the hand ({kind}); mjenv's rules give {got or 'no end'}")
            elif tag in ("BYE", "UN"):
                pass
            else:
                raise ValueError("unknown tag")
        except ValueError as e:
            raise ValueError(f"{here}: {e}") from None
        except StopIteration:
            raise ValueError(f"{here}: the wall runs out") from None
        i += 1
    if not ended:
        raise ValueError(f"{where}: the hand ends without <AGARI> or <RYUUKYOKU> (truncated log)")
