"""The Riichi game: one object holds a whole game (scores, round, honba, sticks) and the hand in play.

State (all small lists of ints, so :meth:`RiichiGame.clone` is cheap):

===================  ===========================================================================
field                meaning
===================  ===========================================================================
scores               list of 4 ints, points (start 25,000)
round_index          0 = East 1 ... 3 = East 4, 4 = South 1, ..., 8 = West 1 (dealer = index % 4)
honba, sticks        honba count; riichi sticks on the table
wall                 :class:`~mjenv.rulesets.riichi.wall.Wall` (live/rinshan positions)
hands                4 lists of Tenhou 136-ids (concealed tiles; the drawn tile included)
melds                4 lists of :class:`CalledMeld`
discards             4 lists of 136-ids; ``discard_flags`` the same shape: bit 1 tsumogiri, 2 the
                     riichi tile, 4 called away
riichi               per seat 0 none, 1 riichi, 2 double riichi; ``ippatsu`` per seat bool
same_turn_furiten,   per seat bool (see :mod:`~mjenv.rulesets.riichi.furiten`)
riichi_furiten
n_dora               dora indicators shown; ``pending_dora`` open/added kans not yet revealed
phase, turn          what is being decided (``PHASES``) and by whom; ``drawn`` the last drawn tile
===================  ===========================================================================

Stepping: :meth:`RiichiGame.to_act` names the seats that must choose;
:meth:`RiichiGame.legal_actions` gives a seat's mask over the 85 action ids of
:mod:`~mjenv.rulesets.riichi.actions` (only PASS for a seat with nothing to decide);
:meth:`RiichiGame.step` takes ``{seat: action}`` for those seats (claims on a discard are
simultaneous: ron > pon/kan > chi). When a hand ends the phase is ``"hand_over"`` and
:meth:`RiichiGame.next_hand` deals the next one (or the game is ``"game_over"``). Everything that
happens is appended to :attr:`RiichiGame.events` as dicts; ``results`` holds one dict per finished
hand (``round``, ``honba``, ``sticks`` at its start, ``result``, ``deltas``, ``scores``) and
``final_scores`` / ``final_points`` the game's end.

Events (``"type"`` and the other keys; tiles are 136-ids; a ``draw`` tile is hidden from the other
seats, everything else is public):

=================  ==============================================================================
type               keys
=================  ==============================================================================
start_hand         round, honba, sticks, dealer, scores, dora (the first indicator, in a list)
draw               seat, tile, rinshan (a kan's replacement tile)
discard            seat, tile, tsumogiri, riichi (the declaration tile)
riichi             seat (declared; the deposit follows when the discard passes)
riichi_accepted    seat, scores (1000 paid, stick on the table)
call               seat, kind (chi/pon/minkan/ankan/kakan), tiles, called (the taken or added
                   tile; None for ankan), from (the discarder; None for ankan/kakan)
dora               indicator (a newly revealed indicator)
win                seat, from (None on tsumo), tile, han, fu, yaku, yakuman, deltas, dora, ura
draw_game          reason (exhaustive, nm, yao9, kaze4, reach4, kan4, ron3), tenpai (4 bools or
                   None), deltas
end_game           scores (leftover sticks to the first), points (uma and oka)
=================  ==============================================================================
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import settlement
from mjenv.rulesets.riichi.furiten import discard_furiten, type_counts, wait_types
from mjenv.rulesets.riichi.hand import is_winning_shape
from mjenv.rulesets.riichi.scoring import Meld, WinContext, score_hand
from mjenv.rulesets.riichi.wall import Wall

PHASES = ("act", "after_call", "riichi_discard", "claim", "chankan", "hand_over", "game_over")
EVENT_TYPES = (
    "start_hand",
    "draw",
    "discard",
    "riichi",
    "riichi_accepted",
    "call",
    "dora",
    "win",
    "draw_game",
    "end_game",
)
LENGTHS = ("hanchan", "east", "hand")
CLAIM_WINDOWS = ("when_possible", "always")
TERMINAL_HONOUR = frozenset([0, 8, 9, 17, 18, 26] + list(range(27, 34)))
WIND_TYPES = frozenset(range(27, 31))
DRAGON_TYPES = frozenset(range(31, 34))


class CalledMeld:
    """A meld: ``kind`` in chi/pon/minkan/ankan/kakan, ``tiles`` (sorted 136-ids), ``called`` (the
    taken 136-id, None for ankan) and ``from_seat`` (None for ankan)."""

    __slots__ = ("kind", "tiles", "called", "from_seat")

    def __init__(self, kind: str, tiles: Sequence[int], called: int | None, from_seat: int | None) -> None:
        self.kind, self.tiles, self.called, self.from_seat = kind, tuple(sorted(tiles)), called, from_seat

    @property
    def type(self) -> int:
        """Tenhou type of the meld's lowest tile."""
        return self.tiles[0] >> 2

    def to_scoring(self) -> Meld:
        return Meld(self.kind, self.tiles, self.called)

    def __repr__(self) -> str:
        return f"CalledMeld({self.kind}, {self.tiles}, called={self.called}, from={self.from_seat})"


_is_red = A.is_red


def _five(tt: int) -> bool:
    return tt < 27 and tt % 9 == 4


class RiichiGame:
    """A Tenhou-rules Riichi game (see the module docstring for fields and stepping).

    Args:
        seed: seeds the walls when ``wall_factory`` is None.
        length: ``"hanchan"`` (East-South, the default), ``"east"`` or ``"hand"`` (one hand).
        wall_factory: ``f(game) -> Wall`` called at each deal (the replay gives each hand's wall).
        scores, round_index, honba, sticks: where the game starts (default: 25,000 each, East 1,
            no honba, no sticks), e.g. to play an all-last hand.
        kokushi_robs_ankan: whether thirteen orphans may rob a closed kan (True, as the project's
            rule list says; Tenhou itself does not allow it, so False plays Tenhou's rule).
        claim_window: ``"when_possible"`` (the default): a claim (or kan-robbing) window opens only when
            some seat can claim; ``"always"``: one opens after every discard and every kan, with
            nobody acting when nobody can claim (``to_act() == ()``; ``step({})`` closes it), so the
            sequence of phases tells a seat nothing about the other hands (the env plays this).
    """

    def __init__(
        self,
        seed: int | None = None,
        length: str = "hanchan",
        wall_factory: Callable[[RiichiGame], Wall] | None = None,
        *,
        scores: Sequence[int] | None = None,
        round_index: int = 0,
        honba: int = 0,
        sticks: int = 0,
        kokushi_robs_ankan: bool = True,
        claim_window: str = "when_possible",
    ) -> None:
        if length not in LENGTHS:
            raise ValueError(f"length must be one of {LENGTHS}, got {length!r}")
        if scores is not None and (len(scores) != 4 or any(int(x) != x for x in scores)):
            raise ValueError(f"scores must be 4 integers (points), got {scores!r}")
        if not 0 <= round_index <= settlement.LAST_ROUND_INDEX or honba < 0 or sticks < 0:
            raise ValueError(
                f"round_index must be 0..{settlement.LAST_ROUND_INDEX} and honba, sticks >= 0; "
                f"got {round_index}, {honba}, {sticks}"
            )
        if claim_window not in CLAIM_WINDOWS:
            raise ValueError(f"claim_window must be one of {CLAIM_WINDOWS}, got {claim_window!r}")
        self.claim_window = claim_window
        self.rng = np.random.default_rng(seed)
        self.length = length
        self.wall_factory = wall_factory
        self.scores = [int(x) for x in scores] if scores is not None else [settlement.START_SCORE] * 4
        self.round_index = int(round_index)
        self.honba = int(honba)
        self.sticks = int(sticks)
        self.kokushi_robs_ankan = bool(kokushi_robs_ankan)
        self.events: list[dict] = []
        self.results: list[dict] = []
        self.final_scores: list[int] | None = None
        self.final_points: list[float] | None = None
        self._deal()

    # ------------------------------------------------------------------ setup and copies
    @property
    def dealer(self) -> int:
        return self.round_index % 4

    def clone(self) -> RiichiGame:
        """An independent copy: the same state and the same future walls (lists copied; events up to now
        shared, later ones separate)."""
        g = RiichiGame.__new__(RiichiGame)
        for k, v in self.__dict__.items():
            if isinstance(v, list):
                if v and isinstance(v[0], list):
                    v = [list(x) for x in v]
                else:
                    v = list(v)
            elif isinstance(v, Wall):
                v = v.copy()
            elif isinstance(v, dict):
                v = {s: dict(o) for s, o in v.items()}
            setattr(g, k, v)
        g.rng = copy.deepcopy(self.rng)  # the same future walls; the original's generator is not advanced
        return g

    def _deal(self) -> None:
        wall = self.wall_factory(self) if self.wall_factory else Wall.shuffled(self.rng)
        self.wall = wall
        d = self.dealer
        self.hands = [list(wall.deal((s - d) % 4)) for s in range(4)]
        self.melds: list[list[CalledMeld]] = [[], [], [], []]
        self.discards: list[list[int]] = [[], [], [], []]
        self.discard_flags: list[list[int]] = [[], [], [], []]
        self.riichi = [0, 0, 0, 0]
        self.ippatsu = [False] * 4
        self.same_turn_furiten = [False] * 4
        self.riichi_furiten = [False] * 4
        self.kans = [0, 0, 0, 0]
        self.pao: list[int | None] = [None] * 4
        self.n_dora = 1
        self.pending_dora = 0
        self.uninterrupted = True  # no call yet (first go-around rules)
        self.n_discards = 0
        self.riichi_pending: int | None = None
        self.riichi_pending_double = False
        self.pending_kan: tuple[int, str] | None = None
        self.kuikae: frozenset[int] = frozenset()
        self.claims: dict[int, dict[int, tuple]] = {}
        self.claim_tile: int | None = None
        self.claim_from: int | None = None
        self.hand_start_scores = list(self.scores)
        self.hand_start = (self.round_index, self.honba, self.sticks)
        self.drawn: int | None = None
        self.drawn_rinshan = False
        self.phase = "act"
        self.turn = d
        self.events.append(
            {
                "type": "start_hand",
                "round": self.round_index,
                "honba": self.honba,
                "sticks": self.sticks,
                "dealer": d,
                "scores": list(self.scores),
                "dora": wall.dora_indicators(1),
            }
        )
        self._draw(d)

    # ------------------------------------------------------------------ queries
    @property
    def dora_indicators(self) -> list[int]:
        """The dora indicators shown so far (136-ids, in reveal order)."""
        return self.wall.dora_indicators(self.n_dora)

    @property
    def live_remaining(self) -> int:
        """Live tiles left to draw (the wall count a player sees)."""
        return self.wall.remaining

    def to_act(self) -> tuple[int, ...]:
        """Seats that must choose an action now (empty when the hand or game is over)."""
        if self.phase in ("act", "after_call", "riichi_discard"):
            return (self.turn,)
        if self.phase in ("claim", "chankan"):
            return tuple(sorted(self.claims))
        return ()

    def legal_actions(self, seat: int) -> np.ndarray:
        """Mask over the 85 action ids (int8, shape (85,)); only PASS for a seat with nothing to do."""
        mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
        opts = self._options(seat)
        if not opts or self.phase in ("claim", "chankan"):
            mask[A.PASS] = 1
        for a in opts:
            mask[a] = 1
        return mask

    def _options(self, seat: int) -> dict[int, tuple]:
        """Legal actions of ``seat``: action id -> the exact tiles it uses."""
        if seat not in self.to_act():
            return {}
        if self.phase == "act":
            return self._act_options(seat)
        if self.phase == "after_call":
            return self._discard_options(seat, forbid=self.kuikae)
        if self.phase == "riichi_discard":
            return self._discard_options(seat, keep_tenpai=True)
        return self.claims[seat]

    def concealed_waits(self, seat: int, hand: Sequence[int] | None = None) -> frozenset[int]:
        """Tenhou types ``seat`` waits on (its 3k+1 concealed tiles, or ``hand``)."""
        melded = [t for m in self.melds[seat] for t in m.tiles]
        return wait_types(self.hands[seat] if hand is None else hand, melded)

    def is_furiten(self, seat: int) -> bool:
        """Whether ``seat`` may not ron now: same-turn or riichi furiten, or (between its turns, with
        3k+1 tiles) a wait among its own discards. On its own turn (3k+2 tiles) only the first two count."""
        if self.same_turn_furiten[seat] or self.riichi_furiten[seat]:
            return True
        if len(self.hands[seat]) % 3 != 1:
            return False
        return discard_furiten(self.concealed_waits(seat), self.discards[seat])

    def _ctx(self, seat: int, tsumo: bool, **flags) -> WinContext:
        r = self.riichi[seat]
        return WinContext(
            is_tsumo=tsumo,
            is_riichi=r == 1,
            is_double_riichi=r == 2,
            is_ippatsu=self.ippatsu[seat],
            seat_wind=(seat - self.dealer) % 4,
            round_wind=min(self.round_index // 4, 3),
            dora_indicators=tuple(self.wall.dora_indicators(self.n_dora)),
            ura_indicators=tuple(self.wall.ura_indicators(self.n_dora)) if r else (),
            honba=self.honba,
            **flags,
        )

    def _score(self, seat: int, concealed: list[int], win_tile: int, ctx: WinContext):
        return score_hand(concealed, [m.to_scoring() for m in self.melds[seat]], win_tile, ctx)

    def _first_turn(self, seat: int) -> bool:
        return self.uninterrupted and not self.discards[seat]

    def _tsumo_result(self, seat: int):
        hand = self.hands[seat]
        if not is_winning_shape(type_counts(hand)):
            return None
        first = self._first_turn(seat)
        ctx = self._ctx(
            seat,
            True,
            is_rinshan=self.drawn_rinshan,
            is_haitei=self.wall.remaining == 0 and not self.drawn_rinshan,
            is_tenhou=first and seat == self.dealer,
            is_chiihou=first and seat != self.dealer,
        )
        return self._score(seat, hand, self.drawn, ctx)

    def _ron_result(self, seat: int, tile: int, chankan: bool):
        hand = self.hands[seat] + [tile]
        if not is_winning_shape(type_counts(hand)):
            return None
        ctx = self._ctx(seat, False, is_chankan=chankan, is_houtei=self.wall.remaining == 0 and not chankan)
        return self._score(seat, hand, tile, ctx)

    # ------------------------------------------------------------------ option builders
    def _discard_options(self, seat: int, forbid=frozenset(), keep_tenpai: bool = False) -> dict[int, tuple]:
        hand = self.hands[seat]
        opts: dict[int, tuple] = {}
        for t in sorted(hand, key=lambda x: (x != self.drawn, x)):
            if (t >> 2) in forbid:
                continue
            a = A.discard_action(t)
            if a in opts:
                continue
            if keep_tenpai:
                rest = list(hand)
                rest.remove(t)
                if not wait_types(rest):
                    continue
            opts[a] = (t,)
        return opts

    def _can_kan(self) -> bool:
        return self.wall.remaining > 0 and sum(self.kans) < 4

    def _act_options(self, seat: int) -> dict[int, tuple]:
        hand = self.hands[seat]
        opts: dict[int, tuple] = {}
        if self._tsumo_result(seat) is not None:
            opts[A.TSUMO] = ()
        c = type_counts(hand)
        if self._can_kan():
            for tt in range(34):
                if c[tt] == 4:
                    if self.riichi[seat] and not self._riichi_kan_ok(seat, tt):
                        continue
                    opts[A.kan_action(tt)] = tuple(t for t in hand if t >> 2 == tt)
            if not self.riichi[seat]:
                for m in self.melds[seat]:
                    if m.kind == "pon" and c[m.type]:
                        opts[A.kan_action(m.type)] = tuple(t for t in hand if t >> 2 == m.type)
        if (
            not self.riichi[seat]
            and all(m.kind == "ankan" for m in self.melds[seat])
            and self.scores[seat] >= 1000
            and self.wall.remaining >= 4
            and self._discard_options(seat, keep_tenpai=True)
        ):
            opts[A.RIICHI] = ()
        if self._first_turn(seat) and sum(1 for tt in TERMINAL_HONOUR if c[tt]) >= 9:
            opts[A.KYUUSHU] = ()
        if self.riichi[seat]:
            opts[A.discard_action(self.drawn)] = (self.drawn,)
        else:
            opts.update(self._discard_options(seat))
        return opts

    def _riichi_kan_ok(self, seat: int, tt: int) -> bool:
        """Tenhou: after riichi, a closed kan only of the drawn tile and only if the waits stay."""
        if self.drawn is None or self.drawn >> 2 != tt:
            return False
        before = list(self.hands[seat])
        before.remove(self.drawn)
        after = [t for t in self.hands[seat] if t >> 2 != tt]
        return wait_types(before) == wait_types(after)

    def _call_options(self, seat: int, tile: int, discarder: int) -> dict[int, tuple]:
        opts: dict[int, tuple] = {}
        if seat == discarder:
            return opts
        tt = tile >> 2
        hand = self.hands[seat]
        if not self.is_furiten(seat) and self._ron_result(seat, tile, False) is not None:
            opts[A.RON] = ()
        if self.riichi[seat] or self.wall.remaining == 0:
            return opts
        same = [t for t in hand if t >> 2 == tt]
        plain = sorted(t for t in same if not _is_red(t))
        red = [t for t in same if _is_red(t)]
        if len(same) >= 2:
            if len(plain) >= 2:
                self._add_call(opts, seat, A.PON, (plain[0], plain[1]), tile, "pon")
            if red and plain:
                self._add_call(opts, seat, A.PON_RED, (red[0], plain[0]), tile, "pon")
        if len(same) == 3 and self._can_kan():
            opts[A.MINKAN] = tuple(same)
        if seat == (discarder + 1) % 4 and tt < 27:
            n = tt % 9
            for pos, need in ((0, (1, 2)), (1, (-1, 1)), (2, (-2, -1))):
                if not 0 <= n + need[0] <= 8 or not 0 <= n + need[1] <= 8:
                    continue
                types = [tt + k for k in need]
                for use_red in (False, True):
                    picked = []
                    for nt in types:
                        cands = [t for t in hand if t >> 2 == nt]
                        if use_red and _five(nt):
                            cands = [t for t in cands if _is_red(t)]
                        else:
                            cands = sorted(t for t in cands if not _is_red(t))
                        if not cands:
                            break
                        picked.append(cands[0])
                    if len(picked) != 2 or (use_red and not any(_five(nt) for nt in types)):
                        continue
                    self._add_call(opts, seat, (A.CHI_RED if use_red else A.CHI) + pos, tuple(picked), tile, "chi")
        return opts

    def _add_call(self, opts, seat, action, used, tile, kind) -> None:
        """Add a chi/pon option unless kuikae would leave no legal discard."""
        forbid = self._kuikae_types(kind, used, tile)
        rest = list(self.hands[seat])
        for t in used:
            rest.remove(t)
        if any((t >> 2) not in forbid for t in rest):
            opts[action] = tuple(used)

    @staticmethod
    def _kuikae_types(kind: str, used: Sequence[int], tile: int) -> frozenset[int]:
        """Tile types that may not be discarded right after the call (same tile and the suji swap)."""
        tt = tile >> 2
        forbid = {tt}
        if kind == "chi":
            lo = min(t >> 2 for t in used)
            hi = max(t >> 2 for t in used)
            if tt < lo and hi % 9 != 8:
                forbid.add(hi + 1)
            elif tt > hi and lo % 9 != 0:
                forbid.add(lo - 1)
        return frozenset(forbid)

    # ------------------------------------------------------------------ stepping
    def step(self, actions: Mapping[int, int], tiles: Mapping[int, Sequence[int]] | None = None) -> None:
        """Apply the choices of the seats in :meth:`to_act` (other seats' entries are ignored).

        Args:
            actions: seat -> action id.
            tiles: optional seat -> the exact tiles the action uses (a discard's tile, a call's tiles
                from the hand); they must be of the types and redness the action names.

        Raises:
            ValueError: a seat that must act is missing, or an action is illegal for it.
        """
        seats = self.to_act()
        if not seats and self.phase in ("claim", "chankan"):  # an always-open window nobody can use
            self._resolve_claims({})
            return
        if not seats:
            raise ValueError(f"no seat acts in phase {self.phase!r}")
        chosen: dict[int, tuple[int, tuple]] = {}
        for s in seats:
            if s not in actions:
                raise ValueError(f"seat {s} must act in phase {self.phase!r}")
            a = int(actions[s])
            opts = self._options(s)
            if a == A.PASS and (self.phase in ("claim", "chankan") or not opts):
                chosen[s] = (a, ())
                continue
            if a not in opts:
                legal = [A.describe(x) for x in sorted(opts)] + (["pass"] if self.phase in ("claim", "chankan") else [])
                name = A.describe(a) if 0 <= a < A.N_ACTIONS else str(a)
                raise ValueError(f"seat {s}: action {a} ({name}) is not legal in phase {self.phase!r}; legal: {legal}")
            payload = opts[a]
            if tiles is not None and s in tiles and payload:
                payload = self._exact(s, a, payload, tuple(tiles[s]))
            chosen[s] = (a, payload)
        if self.phase in ("claim", "chankan"):
            self._resolve_claims(chosen)
            return
        s = self.turn
        a, payload = chosen[s]
        if a == A.TSUMO:
            self._win_tsumo(s)
        elif a == A.KYUUSHU:
            self._end_draw("yao9", abortive=True)
        elif a == A.RIICHI:
            self.events.append({"type": "riichi", "seat": s})
            self.riichi_pending = s
            self.phase = "riichi_discard"
        elif A.KAN <= a < A.KAN + 34:
            self._self_kan(s, payload)
        else:
            self._discard(s, payload[0])

    def _exact(self, seat: int, action: int, payload: tuple, want: tuple) -> tuple:
        """Check that the exact tiles ``want`` match the resolved option, then use them."""
        key = sorted((t >> 2, _is_red(t)) for t in payload)
        if sorted((t >> 2, _is_red(t)) for t in want) != key or any(
            want.count(t) > self.hands[seat].count(t) for t in want
        ):
            raise ValueError(
                f"seat {seat}: tiles {list(want)} do not fit {A.describe(action)} (hand {sorted(self.hands[seat])})"
            )
        return want

    def _draw(self, seat: int, rinshan: bool = False) -> None:
        t = self.wall.draw_rinshan() if rinshan else self.wall.draw()
        self.hands[seat].append(t)
        self.drawn, self.drawn_rinshan = t, rinshan
        self.turn, self.phase = seat, "act"
        self.events.append({"type": "draw", "seat": seat, "tile": t, "rinshan": rinshan})

    def _reveal_pending(self) -> None:
        while self.pending_dora:
            self.pending_dora -= 1
            self._reveal()

    def _reveal(self) -> None:
        self.n_dora += 1
        self.events.append({"type": "dora", "indicator": self.wall.dora_indicators(self.n_dora)[-1]})

    def _discard(self, seat: int, tile: int) -> None:
        self._reveal_pending()
        self.hands[seat].remove(tile)
        declared = self.riichi_pending == seat
        flags = (1 if tile == self.drawn else 0) | (2 if declared else 0)
        if declared and not self.discards[seat] and self.uninterrupted:
            self.riichi_pending_double = True
        elif declared:
            self.riichi_pending_double = False
        self.discards[seat].append(tile)
        self.discard_flags[seat].append(flags)
        self.n_discards += 1
        self.same_turn_furiten[seat] = False
        if self.riichi[seat]:
            self.ippatsu[seat] = False
        self.drawn = None
        self.kuikae = frozenset()
        self.events.append(
            {"type": "discard", "seat": seat, "tile": tile, "tsumogiri": bool(flags & 1), "riichi": declared}
        )
        self.claims = {}
        for s in range(4):
            o = self._call_options(s, tile, seat)
            if o:
                self.claims[s] = o
        self.claim_tile, self.claim_from = tile, seat
        self.phase = "claim"
        if not self.claims and self.claim_window == "when_possible":
            self._resolve_claims({})

    def _pass_furiten(self, tile: int, winners: Sequence[int], exclude: int) -> None:
        for s in range(4):
            if s == exclude or s in winners:
                continue
            if (tile >> 2) in self.concealed_waits(s):
                self.same_turn_furiten[s] = True
                if self.riichi[s]:
                    self.riichi_furiten[s] = True

    def _resolve_claims(self, chosen: Mapping[int, tuple[int, tuple]]) -> None:
        tile, frm = self.claim_tile, self.claim_from
        chankan = self.phase == "chankan"
        self.claims = {}
        rons = [s for s in ((frm + k) % 4 for k in (1, 2, 3)) if chosen.get(s, (A.PASS,))[0] == A.RON]
        if len(rons) == 3:
            self._end_draw("ron3", abortive=True)
            return
        if rons:
            self._win_ron(rons, frm, tile, chankan)
            return
        self._pass_furiten(tile, (), frm)
        if chankan:
            self._complete_kan()
            return
        if self.riichi_pending == frm:
            self._accept_riichi(frm)
            if all(self.riichi):
                self._end_draw("reach4", abortive=True)
                return
        if self.n_discards == 4 and self.uninterrupted:
            first = [self.discards[s][0] >> 2 for s in range(4)]
            if first[0] in WIND_TYPES and len(set(first)) == 1:
                self._end_draw("kaze4", abortive=True)
                return
        if sum(self.kans) == 4 and max(self.kans) < 4:
            self._end_draw("kan4", abortive=True)
            return
        caller = None
        for s, (a, payload) in chosen.items():
            if a in (A.PON, A.PON_RED, A.MINKAN):
                caller = (s, a, payload)
        if caller is None:
            for s, (a, payload) in chosen.items():
                if A.CHI <= a < A.CHI + 6:
                    caller = (s, a, payload)
        if caller is not None:
            self._call(frm, tile, *caller)
            return
        if self.wall.remaining == 0:
            self._exhaustive_draw()
            return
        self._draw((frm + 1) % 4)

    def _accept_riichi(self, seat: int) -> None:
        self.riichi[seat] = 2 if self.riichi_pending_double else 1
        self.riichi_pending = None
        self.ippatsu[seat] = True
        self.scores[seat] -= 1000
        self.sticks += 1
        self.events.append({"type": "riichi_accepted", "seat": seat, "scores": list(self.scores)})

    def _break_ippatsu(self) -> None:
        self.ippatsu = [False] * 4
        self.uninterrupted = False

    def _call(self, frm: int, tile: int, seat: int, action: int, used: tuple) -> None:
        self._break_ippatsu()
        self.discard_flags[frm][-1] |= 4
        for t in used:
            self.hands[seat].remove(t)
        kind = "minkan" if action == A.MINKAN else ("pon" if action in (A.PON, A.PON_RED) else "chi")
        meld = CalledMeld(kind, (*used, tile), tile, frm)
        self.melds[seat].append(meld)
        self.events.append(
            {"type": "call", "seat": seat, "kind": kind, "tiles": list(meld.tiles), "called": tile, "from": frm}
        )
        self._check_pao(seat, meld, frm)
        if kind == "minkan":
            self.kans[seat] += 1
            self.pending_dora += 1
            self._draw(seat, rinshan=True)
            return
        self.kuikae = self._kuikae_types(kind, used, tile)
        self.turn, self.phase = seat, "after_call"
        self.drawn, self.drawn_rinshan = None, False

    def _check_pao(self, seat: int, meld: CalledMeld, frm: int) -> None:
        if meld.kind not in ("pon", "minkan"):
            return
        for group in (DRAGON_TYPES, WIND_TYPES):
            if meld.type in group:
                n = sum(1 for m in self.melds[seat] if m.kind != "chi" and m.type in group)
                if n == len(group):
                    self.pao[seat] = frm

    def _self_kan(self, seat: int, used: tuple) -> None:
        self._reveal_pending()
        tt = used[0] >> 2
        for t in used:
            self.hands[seat].remove(t)
        pon = next((m for m in self.melds[seat] if m.kind == "pon" and m.type == tt), None)
        if pon is not None:
            i = self.melds[seat].index(pon)
            meld = CalledMeld("kakan", (*pon.tiles, *used), pon.called, pon.from_seat)
            self.melds[seat][i] = meld
            added = used[0]
        else:
            meld = CalledMeld("ankan", used, None, None)
            self.melds[seat].append(meld)
            added = None
        self.events.append(
            {"type": "call", "seat": seat, "kind": meld.kind, "tiles": list(meld.tiles), "called": added, "from": None}
        )
        self.kans[seat] += 1
        self.pending_kan = (seat, meld.kind)
        # robbing the kan: any win on an added kan; only thirteen orphans on a closed kan
        self.claims = {}
        rob = added if added is not None else used[0]
        for s in range(4):
            if s == seat or self.is_furiten(s):
                continue
            if meld.kind == "ankan" and not (self.kokushi_robs_ankan and self._kokushi_wait(s, tt)):
                continue
            if self._ron_result(s, rob, True) is not None:
                self.claims[s] = {A.RON: ()}
        self.claim_tile, self.claim_from = rob, seat
        self.phase = "chankan"
        if not self.claims and self.claim_window == "when_possible":
            self._resolve_claims({})

    def _kokushi_wait(self, seat: int, tt: int) -> bool:
        c = type_counts(self.hands[seat])
        return (
            tt in TERMINAL_HONOUR
            and all(c[x] for x in TERMINAL_HONOUR if x != tt)
            and all(c[x] == 0 for x in range(34) if x not in TERMINAL_HONOUR)
        )

    def _complete_kan(self) -> None:
        seat, kind = self.pending_kan
        self._break_ippatsu()
        if kind == "ankan":
            self._reveal()
        else:
            self.pending_dora += 1
        self._draw(seat, rinshan=True)

    # ------------------------------------------------------------------ hand ends
    def _win_tsumo(self, seat: int) -> None:
        res = self._tsumo_result(seat)
        d = settlement.win_deltas(seat, None, self.dealer, res.cost, self.honba, self.sticks, self.pao[seat])
        self._record_win(seat, None, self.drawn, res, d)
        self.sticks = 0
        self._end_hand(d, dealer_kept=seat == self.dealer, abortive=False, result="agari")

    def _win_ron(self, winners: Sequence[int], frm: int, tile: int, chankan: bool) -> None:
        total = [0, 0, 0, 0]
        for k, w in enumerate(winners):
            res = self._ron_result(w, tile, chankan)
            d = settlement.win_deltas(w, frm, self.dealer, res.cost, self.honba, self.sticks, self.pao[w], bonus=k == 0)
            self._record_win(w, frm, tile, res, d)
            total = [x + y for x, y in zip(total, d)]
        self.sticks = 0
        self._end_hand(total, dealer_kept=self.dealer in winners, abortive=False, result="agari")

    def _record_win(self, seat, frm, tile, res, d) -> None:
        self.events.append(
            {
                "type": "win",
                "seat": seat,
                "from": frm,
                "tile": tile,
                "han": res.han,
                "fu": res.fu,
                "yaku": list(res.yaku),
                "yakuman": res.yakuman,
                "deltas": list(d),
                "dora": self.wall.dora_indicators(self.n_dora),
                "ura": self.wall.ura_indicators(self.n_dora) if self.riichi[seat] else [],
            }
        )

    def tenpai(self, seat: int) -> bool:
        """Whether ``seat`` is tenpai (between its turns: 3k+1 concealed tiles)."""
        if len(self.hands[seat]) % 3 != 1:
            raise ValueError(f"tenpai is for a hand between turns; seat {seat} holds {len(self.hands[seat])} tiles")
        return bool(self.concealed_waits(seat))

    def _exhaustive_draw(self) -> None:
        tenpai = [self.tenpai(s) for s in range(4)]
        nagashi = [
            s
            for s in range(4)
            if self.discards[s]
            and all((t >> 2) in TERMINAL_HONOUR for t in self.discards[s])
            and not any(f & 4 for f in self.discard_flags[s])
        ]
        if nagashi:
            d = settlement.nagashi_deltas(nagashi, self.dealer)
            reason = "nm"
        else:
            d = settlement.tenpai_deltas(tenpai)
            reason = "exhaustive"
        self.events.append({"type": "draw_game", "reason": reason, "tenpai": tenpai, "deltas": list(d)})
        self._end_hand(d, dealer_kept=tenpai[self.dealer], abortive=False, result=reason)

    def _end_draw(self, reason: str, abortive: bool) -> None:
        self.riichi_pending = None
        self.events.append({"type": "draw_game", "reason": reason, "tenpai": None, "deltas": [0, 0, 0, 0]})
        self._end_hand([0, 0, 0, 0], dealer_kept=True, abortive=abortive, result=reason)

    def _end_hand(self, deltas: Sequence[int], dealer_kept: bool, abortive: bool, result: str) -> None:
        for s in range(4):
            self.scores[s] += deltas[s]
        start_round, start_honba, start_sticks = self.hand_start
        over = self.length == "hand" or settlement.game_over(
            self.round_index, self.scores, dealer_kept, abortive, self.length
        )
        self.results.append(
            {
                "round": start_round,
                "honba": start_honba,
                "sticks": start_sticks,
                "result": result,
                "deltas": [self.scores[s] - self.hand_start_scores[s] for s in range(4)],
                "scores": list(self.scores),
            }
        )
        if result == "agari":
            self.honba = self.honba + 1 if dealer_kept else 0
        else:
            self.honba += 1
        if not dealer_kept:
            self.round_index += 1
        self.claims = {}
        if over:
            self.final_scores, self.final_points = settlement.final_result(self.scores, self.sticks)
            self.events.append(
                {"type": "end_game", "scores": list(self.final_scores), "points": list(self.final_points)}
            )
            self.phase = "game_over"
        else:
            self.phase = "hand_over"

    def next_hand(self) -> None:
        """Deal the next hand (only in phase ``"hand_over"``)."""
        if self.phase != "hand_over":
            raise ValueError(f"next_hand needs phase 'hand_over', not {self.phase!r}")
        self._deal()
