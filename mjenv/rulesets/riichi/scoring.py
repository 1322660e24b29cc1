"""Han, fu and points of a winning Riichi hand under Tenhou's ranked four-player rules.

``score_hand(concealed, melds, win_tile, ctx)`` takes 136-ids (see ``tiles136``) and returns a
``ScoreResult`` or ``None`` (not a winning hand, or no yaku: dora alone is not a yaku).

Rules (Tenhou, riichi.wiki): open tanyao; red fives count one dora each; ura dora only with riichi;
kazoe yakuman at 13 han or more; no kiriage mangan (4 han 30 fu and 3 han 60 fu are 7,700 for a
non-dealer ron); no double yakuman for a single yakuman; different yakuman add up; no renhou.
Among the readings of a hand (decompositions, which set the winning tile completed, seven pairs) the one
paying most is scored (ties: more han, then more fu).

Points: basic points ``fu * 2 ** (han + 2)``, capped at mangan (2,000) from 5 han or above 2,000;
haneman 3,000 (6-7 han), baiman 4,000 (8-10), sanbaiman 6,000 (11-12), kazoe yakuman 8,000 (13+),
yakuman 8,000 per yakuman. A ron pays 4x basic (dealer 6x); a tsumo 1x from each non-dealer and 2x from
the dealer (dealer tsumo: 2x from each); every payment rounds up to 100. ``cost`` never includes honba
or riichi sticks (the engine adds them).

The same scorer in C (``_score.h``, built as the optional extension ``_score``) runs ``score_hand``,
``tenpai_has_yaku`` and ``discards_tenpai_yaku`` when it is installed, with the same results (its tests
compare the two on hundreds of thousands of hands); without it, or with ``MJENV_NO_KERNEL=1`` set before
the import, the Python code below runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral

from . import fu as _fu
from . import yaku as _yaku
from .hand import _ext, decompose, is_thirteen_orphans, may_leave_tenpai, waits
from .tiles136 import FIRST136, RED_FIVES, TYPE34, dora_of_indicator

# _ext (from hand): the C scorer, or None (see hand.compiled)

MELD_KINDS = ("chi", "pon", "minkan", "ankan", "kakan")
#: The dora type shown by an indicator of each type.
DORA_OF = tuple(dora_of_indicator(t) for t in range(34))


@dataclass(frozen=True)
class Meld:
    """A called or declared set.

    Attributes:
        kind: ``"chi"``, ``"pon"``, ``"minkan"`` (open kan), ``"ankan"`` (closed kan) or ``"kakan"``
            (added kan).
        tiles: its 136-ids (3 for chi and pon, 4 for kans).
        called: the 136-id taken from another seat (``None`` for ``ankan``).
    """

    kind: str
    tiles: tuple[int, ...]
    called: int | None = None


@dataclass(frozen=True)
class WinContext:
    """The situation of a win. Winds are 0..3 = East, South, West, North; indicators are 136-ids."""

    is_tsumo: bool
    is_riichi: bool = False
    is_double_riichi: bool = False
    is_ippatsu: bool = False
    is_rinshan: bool = False
    is_chankan: bool = False
    is_haitei: bool = False
    is_houtei: bool = False
    is_tenhou: bool = False
    is_chiihou: bool = False
    seat_wind: int = 0
    round_wind: int = 0
    dora_indicators: tuple[int, ...] = ()
    ura_indicators: tuple[int, ...] = ()
    honba: int = 0


@dataclass
class ScoreResult:
    """The value of a winning hand.

    Attributes:
        han: total han (dora included; a yakuman hand: 13 per yakuman).
        fu: fu of the scored reading (seven pairs 25).
        yaku: ``[(name, han), ...]``; dora, ura dora and aka dora appear with their counts when non-zero;
            a yakuman hand lists only its yakuman (13 each).
        yakuman: number of yakuman (0 when none; kazoe yakuman counts 0 here).
        dealer: the winner is the dealer (seat wind East).
        cost: ``"ron"`` (what the discarder pays), ``"tsumo_dealer"`` (what the dealer pays on a
            non-dealer's tsumo), ``"tsumo_nondealer"`` (what each non-dealer pays on a tsumo), ``"total"``
            (what the winner receives), ``"limit"`` (as below); fields of the other win type are 0.
            No honba, no riichi sticks.
        limit: ``"mangan"``, ``"haneman"``, ``"baiman"``, ``"sanbaiman"``, ``"yakuman"``,
            ``"kazoe yakuman"`` or ``None``.
    """

    han: int
    fu: int
    yaku: list[tuple[str, int]]
    yakuman: int
    dealer: bool
    cost: dict = field(default_factory=dict)
    limit: str | None = None


def _ceil100(x: int) -> int:
    return -(-x // 100) * 100


def basic_points(han: int, fu: int, yakuman: int = 0) -> tuple[int, str | None]:
    """Basic points and the limit name (no kiriage; kazoe yakuman at 13+ han)."""
    if yakuman:
        return 8000 * yakuman, "yakuman"
    if han >= 13:
        return 8000, "kazoe yakuman"
    if han >= 11:
        return 6000, "sanbaiman"
    if han >= 8:
        return 4000, "baiman"
    if han >= 6:
        return 3000, "haneman"
    base = fu * (1 << (han + 2))
    if han >= 5 or base > 2000:
        return 2000, "mangan"
    return base, None


def payments(base: int, dealer: bool, tsumo: bool) -> dict:
    """What each payer pays for basic points ``base`` (no honba, no sticks)."""
    if tsumo:
        if dealer:
            each = _ceil100(2 * base)
            return {"ron": 0, "tsumo_dealer": 0, "tsumo_nondealer": each, "total": 3 * each}
        d = _ceil100(2 * base)
        n = _ceil100(base)
        return {"ron": 0, "tsumo_dealer": d, "tsumo_nondealer": n, "total": d + 2 * n}
    r = _ceil100((6 if dealer else 4) * base)
    return {"ron": r, "tsumo_dealer": 0, "tsumo_nondealer": 0, "total": r}


_RED = frozenset(RED_FIVES)
_IDS = frozenset(range(136))
_INT = {int}
_KANS = ("minkan", "ankan", "kakan")
_KIND_INDEX = {k: i for i, k in enumerate(MELD_KINDS)}
#: The limit names by the C scorer's limit code (0: none).
_LIMITS = (None, "mangan", "haneman", "baiman", "sanbaiman", "yakuman", "kazoe yakuman")
#: 136-id -> 34-type as a ``bytes.translate`` table, and the red fives as bytes to delete.
_TYPE34_BYTES = bytes(TYPE34) + b"\xff" * 120  # ids over 135 give 255, which the C scorer refuses
_RED_BYTES = bytes(RED_FIVES)
_LISTS = (list, tuple)
#: The most indicators the C scorer takes (``RS_MAX_INDICATORS``); more go to the Python path.
_C_MAX_INDICATORS = 8


def _meld_bytes(melds: Sequence[Meld]) -> bytes:
    """The melds as the C scorer takes them: per meld its kind, lowest type, red fives, called type."""
    out = []
    for m in melds:
        t0 = 34
        red = 0
        for t in m.tiles:
            x = TYPE34[t]
            if x < t0:
                t0 = x
            if t in _RED:
                red += 1
        out += (_KIND_INDEX[m.kind], t0, red, 255 if m.called is None else TYPE34[m.called])
    return bytes(out)


def _score_compiled(concealed, melds, win_tile, ctx):
    """``score_hand`` through the C scorer; ``False`` when it cannot take these inputs (Python decides)."""
    dora = ctx.dora_indicators
    ura = ctx.ura_indicators
    if len(dora) > _C_MAX_INDICATORS or len(ura) > _C_MAX_INDICATORS:
        return False
    flags = (
        ctx.is_tsumo
        | ctx.is_riichi << 1
        | ctx.is_double_riichi << 2
        | ctx.is_ippatsu << 3
        | ctx.is_rinshan << 4
        | ctx.is_chankan << 5
        | ctx.is_haitei << 6
        | ctx.is_houtei << 7
        | ctx.is_tenhou << 8
        | ctx.is_chiihou << 9
    )
    try:
        # bytes() of a list or tuple of ints 0..135 (an array's buffer would be its raw memory)
        ids = bytes(concealed if type(concealed) in _LISTS else list(concealed))
        got = _ext.score(
            ids.translate(_TYPE34_BYTES),
            len(ids) - len(ids.translate(None, _RED_BYTES)),
            TYPE34[win_tile],
            _meld_bytes(melds) if melds else b"",
            flags,
            ctx.seat_wind,
            ctx.round_wind,
            bytes(dora).translate(_TYPE34_BYTES) if dora else b"",
            bytes(ura).translate(_TYPE34_BYTES) if ura else b"",
        )
    except (ValueError, TypeError, OverflowError, IndexError):  # unchecked odd inputs: the Python path decides
        return False
    if got is None:
        return None
    han, fu, yk, yakuman, ron, tsumo_dealer, tsumo_nondealer, total, limit = got
    limit = _LIMITS[limit]
    cost = {"ron": ron, "tsumo_dealer": tsumo_dealer, "tsumo_nondealer": tsumo_nondealer, "total": total}
    cost["limit"] = limit
    return ScoreResult(han, fu, yk, yakuman, ctx.seat_wind == 0, cost, limit)


def _check_inputs(concealed, melds, win_tile, ctx) -> None:
    ids = list(concealed)
    for m in melds:
        if not isinstance(m, Meld):
            raise ValueError(f"melds must be Meld instances; got {type(m).__name__}")
        if m.kind not in MELD_KINDS:
            raise ValueError(f"meld kind {m.kind!r} is unknown; allowed {MELD_KINDS}")
        want = 4 if m.kind in _KANS else 3
        if len(m.tiles) != want:
            raise ValueError(f"a {m.kind} has {want} tiles; got {len(m.tiles)}: {m.tiles}")
        if m.kind == "ankan":
            if m.called is not None:
                raise ValueError(f"an ankan has no called tile; got called={m.called}")
        elif m.called not in m.tiles:
            raise ValueError(f"a {m.kind}'s called tile must be one of its tiles; got {m.called} for {m.tiles}")
        ids.extend(m.tiles)
    everything = (*ids, win_tile, *ctx.dora_indicators, *ctx.ura_indicators)
    types = set(map(type, everything))
    if not _IDS.issuperset(everything) or not (types <= _INT or all(issubclass(k, Integral) for k in types)):
        bad = [t for t in everything if t not in _IDS or not isinstance(t, Integral)]
        raise ValueError(f"136-tile ids are integers 0..135; got {bad[0]!r}")
    if len(set(ids)) != len(ids):
        raise ValueError("a 136-tile id appears twice in the hand and melds")
    if len(melds) > 4:
        raise ValueError(f"a hand has at most 4 melds; got {len(melds)}")
    if len(concealed) != 14 - 3 * len(melds):
        raise ValueError(
            f"with {len(melds)} melds the concealed tiles (winning tile included) are {14 - 3 * len(melds)}; "
            f"got {len(concealed)}"
        )
    if win_tile not in concealed:
        raise ValueError(f"the winning tile {win_tile} must be among the concealed tiles")
    for m in melds:
        ts = sorted(TYPE34[t] for t in m.tiles)
        if m.kind == "chi":
            if not (ts[0] < 27 and ts[1] == ts[0] + 1 and ts[2] == ts[0] + 2 and ts[0] % 9 <= 6):
                raise ValueError(f"a chi is three consecutive tiles of one suit; got {m.tiles}")
        elif ts[0] != ts[-1]:
            raise ValueError(f"a {m.kind} is tiles of one type; got {m.tiles}")
    if not (0 <= ctx.seat_wind <= 3 and 0 <= ctx.round_wind <= 3):
        raise ValueError(f"winds are 0..3 (E, S, W, N); got seat {ctx.seat_wind}, round {ctx.round_wind}")
    if ctx.is_tsumo:
        if ctx.is_chankan or ctx.is_houtei:
            raise ValueError("chankan and houtei are ron wins; got is_tsumo=True")
    elif ctx.is_rinshan or ctx.is_haitei or ctx.is_tenhou or ctx.is_chiihou:
        raise ValueError("rinshan, haitei, tenhou and chiihou are tsumo wins; got is_tsumo=False")
    if ctx.is_ippatsu and not (ctx.is_riichi or ctx.is_double_riichi):
        raise ValueError("ippatsu needs riichi (is_riichi or is_double_riichi)")
    if ctx.is_tenhou and ctx.seat_wind != 0:
        raise ValueError("tenhou is the dealer's win (seat_wind 0); a non-dealer's first-draw win is chiihou")
    if ctx.is_chiihou and ctx.seat_wind == 0:
        raise ValueError("chiihou is a non-dealer's win; the dealer's first-draw win is tenhou")
    if (ctx.is_riichi or ctx.is_double_riichi or ctx.is_tenhou or ctx.is_chiihou) and any(
        m.kind != "ankan" for m in melds
    ):
        raise ValueError("riichi, tenhou and chiihou need a closed hand")


def score_hand(
    concealed: Sequence[int], melds: Sequence[Meld], win_tile: int, ctx: WinContext, validate: bool = True
) -> ScoreResult | None:
    """Score a winning hand under Tenhou's rules.

    Args:
        concealed: the 136-ids of the concealed tiles, winning tile included (``14 - 3 * len(melds)``).
        melds: the called and declared sets.
        win_tile: the 136-id of the winning tile (one of ``concealed``).
        ctx: the win's situation.
        validate: check the inputs (``False`` skips the checks for trusted callers such as the engine).

    Returns:
        The best reading's ``ScoreResult``, or ``None`` when the tiles do not win or have no yaku.
        For a yakuman hand ``fu`` is the largest fu of its regular readings (25 for seven pairs, 0 for
        thirteen orphans); it does not change the points.

    Raises:
        ValueError: malformed tiles, melds or context (see ``WinContext``).
    """
    if validate:
        _check_inputs(concealed, melds, win_tile, ctx)
    if _ext is not None:
        got = _score_compiled(concealed, melds, win_tile, ctx)
        if got is not False:
            return got
    cc = [0] * 34
    aka = 0
    for t in concealed:
        cc[TYPE34[t]] += 1
        if t in _RED:
            aka += 1
    win34 = TYPE34[win_tile]
    tsumo = ctx.is_tsumo
    seat = ctx.seat_wind
    meld_sets = []  # (code, concealed, kan)
    kans = ankans = 0
    menzen = True
    chiitoi = kokushi = False
    if melds:
        ac = cc[:]
        for m in melds:
            k = m.kind
            tl = m.tiles
            t0 = 34
            for t in tl:
                x = TYPE34[t]
                ac[x] += 1
                if x < t0:
                    t0 = x
                if t in _RED:
                    aka += 1
            if k == "chi":
                meld_sets.append((34 + t0, False, False))
                menzen = False
            elif k == "pon":
                meld_sets.append((t0, False, False))
                menzen = False
            elif k == "ankan":
                kans += 1
                ankans += 1
                meld_sets.append((t0, True, True))
            else:
                kans += 1
                meld_sets.append((t0, False, True))
                menzen = False
        decomps = decompose(cc)
        if not decomps:
            return None
    else:
        ac = cc
        decomps = decompose(cc)
        chiitoi = cc.count(2) == 7
        if not (decomps or chiitoi):
            kokushi = is_thirteen_orphans(cc)
            if not kokushi:
                return None
    dealer = seat == 0

    # --- yakuman
    ym: list[tuple[str, int]] = []
    if ctx.is_tenhou:
        ym.append(("tenhou", 13))
    if ctx.is_chiihou:
        ym.append(("chiihou", 13))
    tyk: list[tuple[str, int]] = []
    if kokushi:
        thirteen = cc[win34] == 2
        ym.append(("kokushi musou 13-wait" if thirteen else "kokushi musou", 13))
    else:
        tym, tyk = _yaku.tile_yaku(ac, menzen, kans, seat, ctx.round_wind)
        ym.extend(tym)
        if not melds:
            ym.extend(_yaku.chuuren(cc, win34))
        if menzen and decomps:
            for pair, sets in decomps:
                if ankans + sum(1 for s in sets if s < 34) == 4:
                    if pair == win34:
                        ym.append(("suuankou tanki", 13))
                        break
                    if tsumo:
                        ym.append(("suuankou", 13))
                        break
    if ym:
        n = len(ym)
        best_fu = _fu.CHIITOITSU_FU if chiitoi else 0
        for pair, sets in decomps:
            for fu, _, _ in _fu.readings(pair, sets, meld_sets, win34, tsumo, menzen, seat, ctx.round_wind):
                if fu > best_fu:
                    best_fu = fu
        base, limit = basic_points(0, 0, n)
        cost = payments(base, dealer, tsumo)
        cost["limit"] = limit
        return ScoreResult(13 * n, best_fu, ym, n, dealer, cost, limit)

    # --- ordinary yaku
    common = _yaku.situational(ctx, menzen) + tyk
    common_han = 0
    for _, h in common:
        common_han += h
    dora = 0
    for ind in ctx.dora_indicators:
        dora += ac[DORA_OF[TYPE34[ind]]]
    ura = 0
    if ctx.is_riichi or ctx.is_double_riichi:
        for ind in ctx.ura_indicators:
            ura += ac[DORA_OF[TYPE34[ind]]]
    nbonus = dora + ura + aka

    best = None  # (base points, han, fu, yaku list without bonus)
    if chiitoi:  # chiitoitsu is itself a yaku
        han = common_han + 2 + nbonus
        best = (basic_points(han, _fu.CHIITOITSU_FU)[0], han, _fu.CHIITOITSU_FU, common + [("chiitoitsu", 2)])
    all_melds = [code for code, _, _ in meld_sets]
    for pair, sets in decomps:
        dy = _yaku.set_yaku(pair, list(sets) + all_melds, menzen, kans)
        dy_han = common_han
        for _, h in dy:
            dy_han += h
        trips = ankans
        for s in sets:
            if s < 34:
                trips += 1
        for fu, pinfu, ron_trip in _fu.readings(pair, sets, meld_sets, win34, tsumo, menzen, seat, ctx.round_wind):
            han = dy_han
            if pinfu:
                han += 1
            ankou = trips - ron_trip
            if ankou == 3:
                han += 2
            if han == 0:
                continue
            han += nbonus
            base = basic_points(han, fu)[0]
            if best is None or (base, han, fu) > best[:3]:
                yk = common + dy
                if pinfu:
                    yk = yk + [("pinfu", 1)]
                if ankou == 3:
                    yk = yk + [("sanankou", 2)]
                best = (base, han, fu, yk)
    if best is None:
        return None
    base, han, fu, yk = best
    if dora:
        yk = yk + [("dora", dora)]
    if ura:
        yk = yk + [("ura dora", ura)]
    if aka:
        yk = yk + [("aka dora", aka)]
    base, limit = basic_points(han, fu)
    cost = payments(base, dealer, tsumo)
    cost["limit"] = limit
    return ScoreResult(han, fu, yk, 0, dealer, cost, limit)


def has_yaku(concealed: Sequence[int], melds: Sequence[Meld], win_tile: int, ctx: WinContext) -> bool:
    """Whether the tiles win with at least one yaku (no input checks: for trusted callers)."""
    return score_hand(concealed, melds, win_tile, ctx, validate=False) is not None


def _ron_context(ctx: WinContext) -> WinContext:
    return WinContext(is_tsumo=False, seat_wind=ctx.seat_wind, round_wind=ctx.round_wind)


def tenpai_has_yaku(concealed: Sequence[int], melds: Sequence[Meld], ctx: WinContext) -> bool:
    """Whether some wait of a tenpai hand wins by ron with a yaku, riichi off.

    Only the seat and round winds of ``ctx`` are read (the other yaku of the situation, riichi, ippatsu,
    haitei and the rest, are left out). A wait whose four copies are all in the hand and melds cannot be
    won on and gives no yaku.

    Args:
        concealed: the ``13 - 3 * len(melds)`` concealed 136-ids.
        melds: the seat's melds.
        ctx: the seat's situation (winds).

    Returns:
        False when the hand is not tenpai or no wait has a yaku.
    """
    if len(concealed) != 13 - 3 * len(melds):
        raise ValueError(
            f"a tenpai hand with {len(melds)} melds has {13 - 3 * len(melds)} concealed tiles; got {len(concealed)}"
        )
    cc = [0] * 34
    for t in concealed:
        cc[TYPE34[t]] += 1
    if _ext is not None:
        return _ext.tenpai_has_yaku(bytes(cc), _meld_bytes(melds), ctx.seat_wind, ctx.round_wind)
    used = set(concealed)
    for m in melds:
        used.update(m.tiles)
    rctx = _ron_context(ctx)
    hand = list(concealed)
    for w in waits(cc):
        start = FIRST136[w]
        for tile in range(start, start + 4):
            if tile not in used:
                if score_hand(hand + [tile], melds, tile, rctx, validate=False) is not None:
                    return True
                break
    return False


def discards_tenpai_yaku(concealed: Sequence[int], melds: Sequence[Meld], ctx: WinContext) -> list[bool]:
    """For each tile type, whether discarding it leaves a tenpai with a yaku (``tenpai_has_yaku``).

    Args:
        concealed: the ``14 - 3 * len(melds)`` concealed 136-ids (after the draw or call).
        melds: the seat's melds.
        ctx: the seat's situation (winds).

    Returns:
        34 booleans in mjenv's type order; False for types not in the hand.
    """
    if len(concealed) != 14 - 3 * len(melds):
        raise ValueError(
            f"before a discard a hand with {len(melds)} melds has {14 - 3 * len(melds)} concealed tiles; "
            f"got {len(concealed)}"
        )
    out = [False] * 34
    cc = [0] * 34
    for t in concealed:
        cc[TYPE34[t]] += 1
    if _ext is not None:
        return _ext.discards_tenpai_yaku(bytes(cc), _meld_bytes(melds), ctx.seat_wind, ctx.round_wind)
    if not may_leave_tenpai(cc):
        return out
    done = set()
    for i, t in enumerate(concealed):
        t34 = TYPE34[t]
        if t34 in done:
            continue
        done.add(t34)
        out[t34] = tenpai_has_yaku(list(concealed[:i]) + list(concealed[i + 1 :]), melds, ctx)
    return out
