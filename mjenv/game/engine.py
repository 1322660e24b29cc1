"""The game state and its transitions (see :mod:`mjenv.game` for the rules of each phase).

State is a few small numpy arrays plus scalars, so :meth:`Game.clone` is a handful of array copies:

* ``_tiles``: int8[9, T]; rows 0-3 are the concealed hands (``hands``), rows 4-7 the tiles in each
  seat's declared melds (``meld_counts``), row 8 the tiles every seat has seen (``public_counts``:
  discards, meld tiles, the claimed discard counted once, concealed kongs included).
* ``discards``: int16[4, max_discards] ordered discard history, -1 padded; ``num_discards`` int16[4].
* ``wall``: int8[N] tile ids in draw order, shared read-only between clones; draws come from the
  front (``_head``), replacement draws after a kong from the end (``_tail``).
* ``melds``: per seat a list of immutable :class:`Meld` tuples.
* ``_masks``: int8[4, A] legal actions of the current decision, rebuilt (never mutated) at each
  transition, so clones share it.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from mjenv.game._win import is_winning_bytes
from mjenv.game.actions import ActionLayout
from mjenv.rules import Rules, get_rules
from mjenv.tiles import COPIES, NUM_SUITED

NUM_SEATS = 4
MELD_KINDS = ("chow", "pong", "exposed_kong", "concealed_kong", "added_kong")
LOG_FORMAT = "mjenv-hand"
# rows of Game._tiles: 0-3 the concealed hands, _MELD_ROW + s seat s's meld tiles, _PUBLIC_ROW the public counts
_MELD_ROW = 4
_PUBLIC_ROW = 8
#: 2: ``rules`` carries ``claim_window``. A version-1 log has no such field and was played with the
#: window opened only when some seat could claim, so :func:`mjenv.game.replay` reads it as
#: ``claim_window="when_possible"``.
LOG_VERSION = 2


class Phase(IntEnum):
    """Phase of a hand. ``DISCARD``: the current player acts on her own turn; ``CLAIM``: seats answer
    a discard; ``ROB_KONG``: seats may win on the tile of an added kong; ``END``: the hand is over."""

    DISCARD = 0
    CLAIM = 1
    ROB_KONG = 2
    END = 3


class Meld(NamedTuple):
    """A declared meld.

    Attributes:
        kind: ``"chow"``, ``"pong"``, ``"exposed_kong"``, ``"concealed_kong"`` or ``"added_kong"``.
        tiles: tile ids, sorted (3 for chow/pong, 4 for kongs).
        from_seat: seat whose discard was claimed; -1 for a concealed kong.
        claimed: the claimed discard's tile id; -1 for a concealed kong.
    """

    kind: str
    tiles: tuple[int, ...]
    from_seat: int
    claimed: int


def make_wall(
    rules: str | Rules = "basic",
    hands: Sequence[Sequence[int] | str] = (),
    draws: Sequence[int] | str = (),
    replacements: Sequence[int] | str = (),
    dealer: int = 0,
) -> np.ndarray:
    """Build a wall that deals chosen hands and draws: the way to script a hand for tests and demos.

    The deal gives ``hand_size`` tiles to each seat in turn from the front of the wall, starting with
    the dealer; then the dealer draws her extra tile, and every later draw comes from the front too.
    Replacement draws after a kong come from the end of the wall.

    Args:
        rules: the rule set (its tile count and hand size).
        hands: up to 4 hands (tile id lists or mps strings) for seats 0..3 (absolute seats, not
            relative to the dealer); missing or short hands are filled from the leftover tiles.
        draws: the tiles drawn from the front after the deal, in order (the dealer's first). A str
            in mps notation keeps the written order (``"9s7p1s"``); other notations are sorted.
        replacements: the replacement draws, in order (taken from the wall's end).
        dealer: the dealer seat of the game this wall is for.

    Returns:
        int8[N] the wall: a permutation of the full tile set. Pass it as ``Game(rules, wall=...)``.

    Raises:
        ValueError: a hand longer than ``hand_size``, or more copies of a tile than the set holds.
    """
    from mjenv.tiles import MPS_OFFSET, parse, to_tiles

    r = get_rules(rules)
    t_count = r.num_tile_types

    def as_tiles(x: Sequence[int] | str) -> list[int]:
        if isinstance(x, str):
            text = re.sub(r"\s+", "", x)
            if re.fullmatch(r"(?:[1-9]+[mpsz])*", text):
                # mps in the written order (draw order matters; parse() would sort)
                out = []
                for digits, suit in re.findall(r"([1-9]+)([mpsz])", text):
                    out += [MPS_OFFSET[suit] + int(d) - 1 for d in digits]
                return out
            return to_tiles(parse(x, t_count))
        return [int(v) for v in x]

    left = np.full(t_count, COPIES, dtype=np.int64)

    def take(tiles: list[int], what: str) -> list[int]:
        for t in tiles:
            if not 0 <= t < t_count:
                raise ValueError(f"{what}: tile id {t} is out of range 0..{t_count - 1}")
            left[t] -= 1
            if left[t] < 0:
                raise ValueError(f"{what}: more than {COPIES} copies of tile {t} in the scripted wall")
        return tiles

    if len(hands) > NUM_SEATS:
        raise ValueError(f"hands: at most {NUM_SEATS} hands, got {len(hands)}")
    chosen = [take(as_tiles(h), f"hands[{i}]") for i, h in enumerate(hands)]
    chosen += [[] for _ in range(NUM_SEATS - len(chosen))]
    for i, h in enumerate(chosen):
        if len(h) > r.hand_size:
            raise ValueError(f"hands[{i}] has {len(h)} tiles; at most hand_size={r.hand_size}")
    front = take(as_tiles(draws), "draws")
    back = take(as_tiles(replacements), "replacements")
    filler = [t for t in range(t_count) for _ in range(int(left[t]))]
    fill = iter(filler)
    deal: list[int] = []
    for k in range(NUM_SEATS):
        h = chosen[(dealer + k) % NUM_SEATS]
        deal += h + [next(fill) for _ in range(r.hand_size - len(h))]
    middle = list(fill)
    if len(deal) + len(front) + len(back) + len(middle) != r.num_tiles or len(front) + len(back) > r.dead_wall_start:
        raise ValueError(
            f"draws ({len(front)}) + replacements ({len(back)}) exceed the "
            f"{r.dead_wall_start} tiles left after the deal"
        )
    wall = deal + front + middle + back[::-1]
    return np.array(wall, dtype=np.int8)


class Game:
    """One hand of four-player Mahjong: state, legal actions and transitions (numpy only).

    Args:
        rules: preset name, :class:`~mjenv.rules.Rules` or dict (see :func:`~mjenv.rules.get_rules`).
        seed: seeds the wall shuffle (``np.random.default_rng(seed)``); None draws a fresh seed,
            recorded in :attr:`log` so the hand can be replayed.
        dealer: seat 0..3 that starts with the extra tile.
        wall: int[N] tile ids in draw order (a permutation of the full set; see :func:`make_wall`).
            Overrides ``seed``'s shuffle.

    Raises:
        ValueError: bad rules, dealer, seed or wall.

    Attributes (read them; change state only through :meth:`step`):
        rules, layout (:class:`ActionLayout`), num_tile_types (T), seed, dealer.
        phase: :class:`Phase`; current_player: the seat whose turn it is (the discarder during a
            claim window, the kong declarer while a kong may be robbed).
        hands: int8[4, T] concealed tiles (the drawn tile included).
        meld_counts: int8[4, T] tiles in each seat's declared melds; melds: per seat list[Meld].
        public_counts: int8[T] tiles every seat has seen (discards, meld tiles with a claimed
            discard counted once, concealed kongs); a seat's knowledge base is
            ``4 - hands[seat] - public_counts``.
        discards: int16[4, rules.max_discards] ordered discard history, -1 padded (claimed discards
            stay in it); num_discards: int16[4].
        last_discard, last_discarder: the tile awaiting claims and its seat (-1 when none): the
            discard during ``CLAIM``, the added kong's tile and its declarer during ``ROB_KONG``.
        last_drawn: the tile the current player just drew (-1 after a chow/pong, or none).
        wall: int8[N] the wall in draw order (read-only); wall_remaining, wall_head, wall_tail.
        winners (list[int], sorted), deal_in (-1: none), winning_tile, end_reason, scores (int64[4]).
    """

    __slots__ = (
        "rules", "layout", "num_tile_types", "seed", "dealer", "wall", "_head", "_tail", "_tiles",
        "melds", "discards", "num_discards", "phase",
        "current_player", "last_discard", "last_discarder", "last_drawn", "winners", "deal_in",
        "winning_tile", "end_reason", "scores", "_masks", "_acting", "_claimed_turn", "_kong_tile", "_steps",
        "_A", "_win", "_pass", "_seven",
    )  # fmt: skip

    def __init__(
        self,
        rules: str | Rules | dict[str, Any] | None = "basic",
        seed: int | None = None,
        *,
        dealer: int = 0,
        wall: Sequence[int] | np.ndarray | None = None,
    ) -> None:
        self.rules: Rules = get_rules(rules)
        t_count = self.rules.num_tile_types
        self.num_tile_types = t_count
        self.layout = ActionLayout(t_count)
        self._A = self.layout.size
        self._win = self.layout.win
        self._pass = self.layout.pass_
        self._seven = self.rules.seven_pairs
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < NUM_SEATS:
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        self.dealer = int(dealer)
        if seed is None:
            seed = secrets.randbits(63)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an int >= 0 or None, got {seed!r}")
        self.seed = int(seed)
        if wall is None:
            full = np.repeat(np.arange(t_count, dtype=np.int8), COPIES)
            w = np.random.default_rng(self.seed).permutation(full)
        else:
            w = np.asarray(wall)
            if w.shape != (self.rules.num_tiles,) or not np.issubdtype(w.dtype, np.integer):
                raise ValueError(
                    f"wall must be {self.rules.num_tiles} integer tile ids, got shape {w.shape}, dtype {w.dtype}"
                )
            if w.min() < 0 or w.max() >= t_count or (np.bincount(w, minlength=t_count) != COPIES).any():
                raise ValueError(f"wall must hold each tile id 0..{t_count - 1} exactly {COPIES} times")
            w = w.astype(np.int8)
        w.flags.writeable = False
        self.wall = w
        self._tiles = np.zeros((9, t_count), dtype=np.int8)
        self.melds: list[list[Meld]] = [[] for _ in range(NUM_SEATS)]
        self.discards = np.full((NUM_SEATS, self.rules.max_discards), -1, dtype=np.int16)
        self.num_discards = np.zeros(NUM_SEATS, dtype=np.int16)
        self.winners: list[int] = []
        self.deal_in = -1
        self.winning_tile = -1
        self.end_reason = ""
        self.scores = np.zeros(NUM_SEATS, dtype=np.int64)
        self.last_discard = -1
        self.last_discarder = -1
        self.last_drawn = -1
        self._claimed_turn = False
        self._kong_tile = -1
        self._steps: list[list[list[int]]] = []
        hs = self.rules.hand_size
        for k in range(NUM_SEATS):
            seat = (self.dealer + k) % NUM_SEATS
            np.add.at(self._tiles[seat], w[k * hs : (k + 1) * hs].astype(np.intp), 1)
        self._head = NUM_SEATS * hs
        self._tail = self.rules.num_tiles
        self.phase = Phase.DISCARD
        self._draw(self.dealer, replacement=False)

    # The tile counts live in ONE array, ``_tiles``; ``hands``, ``meld_counts`` and ``public_counts``
    # are views of it made on each access, never stored: a stored view would be split from ``_tiles``
    # by ``copy.deepcopy`` or pickle, and the copy's kernel (which reads ``tile_table``) would see a
    # table its transitions no longer write.
    @property
    def tile_table(self) -> np.ndarray:
        """int8[9, T], read it only: rows 0-3 the concealed hands, 4-7 the meld counts, 8 the public
        counts (``hands``, ``meld_counts`` and ``public_counts`` are views of it)."""
        return self._tiles

    @property
    def hands(self) -> np.ndarray:
        """int8[4, T] concealed tiles of each seat (a view of :attr:`tile_table`; read it only)."""
        return self._tiles[0:4]

    @property
    def meld_counts(self) -> np.ndarray:
        """int8[4, T] tiles in each seat's declared melds (a view of :attr:`tile_table`; read it only)."""
        return self._tiles[4:8]

    @property
    def public_counts(self) -> np.ndarray:
        """int8[T] tiles every seat has seen (a view of :attr:`tile_table`; read it only)."""
        return self._tiles[8]

    def legal_action_masks(self) -> np.ndarray:
        """int8[4, A]: :meth:`legal_action_mask` of every seat (a fresh array)."""
        return self._masks.copy()

    # ------------------------------------------------------------------ queries
    @property
    def wall_remaining(self) -> int:
        """Tiles left to draw (front and replacement draws share them)."""
        return self._tail - self._head

    @property
    def wall_head(self) -> int:
        """Index in :attr:`wall` of the next front draw (``wall[wall_head:wall_tail]`` is undrawn)."""
        return self._head

    @property
    def wall_tail(self) -> int:
        """One past the index in :attr:`wall` of the next replacement draw (taken from the end)."""
        return self._tail

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.END

    def num_melds(self, seat: int) -> int:
        """Declared melds of ``seat`` (concealed kongs included)."""
        return len(self.melds[seat])

    def acting_seats(self) -> list[int]:
        """Seats that must decide now, ascending. Empty when the hand is over, and during a ``CLAIM`` /
        ``ROB_KONG`` window in which nobody can claim (``rules.claim_window == "always"``): then
        :meth:`step` takes ``{}`` (or all PASS) and the hand goes on as if everyone passed."""
        return list(self._acting)

    def legal_action_mask(self, seat: int) -> np.ndarray:
        """int8[A] 1 where the action is legal for ``seat`` now; a seat with nothing to decide has
        only PASS (also every seat once the hand is over)."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        return self._masks[seat].copy()

    def legal_actions(self, seat: int) -> list[int]:
        """Legal action ids of ``seat`` now, ascending."""
        return np.flatnonzero(self._masks[seat]).tolist()

    @property
    def log(self) -> dict[str, Any]:
        """JSON-able record of this hand: rules, seed, dealer, wall and every step's actions.

        ``steps[i]`` lists ``[seat, action]`` for the acting seats of step i (seat order); ``[]`` for a
        window in which nobody could claim. ``rules`` holds every field (``claim_window`` included),
        so :func:`~mjenv.game.replay` rebuilds the same hand step for step.
        ``result`` is present once the hand is over.
        """
        out: dict[str, Any] = {
            "format": LOG_FORMAT,
            "version": LOG_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dealer": self.dealer,
            "wall": self.wall.tolist(),
            "steps": [[list(p) for p in s] for s in self._steps],
        }
        if self.is_over:
            out["result"] = self.result()
        return out

    def result(self) -> dict[str, Any]:
        """Summary: phase, end_reason, winners, deal_in, winning_tile, scores, wall_remaining, steps."""
        return {
            "phase": self.phase.name,
            "end_reason": self.end_reason,
            "winners": list(self.winners),
            "deal_in": self.deal_in,
            "winning_tile": self.winning_tile,
            "scores": self.scores.tolist(),
            "wall_remaining": self.wall_remaining,
            "steps": len(self._steps),
        }

    def to_jsonl(self, path: str, append: bool = False) -> None:
        """Write this hand as JSON lines (header, one line per step, result); see :mod:`mjenv.game.log`."""
        from mjenv.game.log import write_jsonl

        write_jsonl(self, path, append=append)

    def clone(self) -> Game:
        """An independent copy (arrays copied; the wall and the current masks are shared read-only)."""
        g = object.__new__(Game)
        g.rules = self.rules
        g.layout = self.layout
        g.num_tile_types = self.num_tile_types
        g.seed = self.seed
        g.dealer = self.dealer
        g.wall = self.wall
        g._head = self._head
        g._tail = self._tail
        g._tiles = self._tiles.copy()
        g.melds = [list(m) for m in self.melds]
        g.discards = self.discards.copy()
        g.num_discards = self.num_discards.copy()
        g.phase = self.phase
        g.current_player = self.current_player
        g.last_discard = self.last_discard
        g.last_discarder = self.last_discarder
        g.last_drawn = self.last_drawn
        g.winners = list(self.winners)
        g.deal_in = self.deal_in
        g.winning_tile = self.winning_tile
        g.end_reason = self.end_reason
        g.scores = self.scores.copy()
        g._masks = self._masks
        g._acting = self._acting
        g._claimed_turn = self._claimed_turn
        g._kong_tile = self._kong_tile
        g._steps = list(self._steps)
        g._A = self._A
        g._win = self._win
        g._pass = self._pass
        g._seven = self._seven
        return g

    # ------------------------------------------------------------------ step
    def step(self, actions: Mapping[int, int] | Sequence[int]) -> None:
        """Apply one decision: one action per acting seat.

        Args:
            actions: ``{seat: action}`` or a length-4 sequence indexed by seat. Non-acting seats may be
                omitted or given PASS. An acting seat may be omitted only when PASS is legal for it
                (in a claim window, omitting means passing).

        Raises:
            ValueError: the hand is over, a bad seat or action id, or an illegal action (the message
                names the seat, the action and the legal ones).
        """
        if self.phase == Phase.END:
            raise ValueError("the hand is over; no more actions are accepted")
        self._advance(self._parse_actions(actions))

    def _advance(self, chosen: list[int]) -> None:
        """:meth:`step` after its checks: ``chosen[s]`` is a legal action id of every seat (PASS for the
        seats not acting). Callers that have checked the actions against the masks themselves (the
        env does) call it directly."""
        record = [[s, chosen[s]] for s in self._acting]
        if self.phase == Phase.DISCARD:
            self._steps.append(record)
            self._on_turn(self.current_player, chosen[self.current_player])
        elif self.phase == Phase.CLAIM:
            self._steps.append(record)
            self._on_claims(chosen)
        else:
            self._steps.append(record)
            self._on_rob(chosen)

    def _parse_actions(self, actions: Mapping[int, int] | Sequence[int]) -> list[int]:
        given: list[Any] = [None] * NUM_SEATS
        if isinstance(actions, Mapping):
            for seat, a in actions.items():
                if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < NUM_SEATS:
                    raise ValueError(f"seat keys must be ints 0..3, got {seat!r}")
                given[int(seat)] = a
        else:
            if isinstance(actions, (str, bytes)) or len(actions) != NUM_SEATS:
                raise ValueError(f"actions must be a dict {{seat: action}} or a sequence of 4 actions, got {actions!r}")
            given = list(actions)
        out = [self._pass] * NUM_SEATS
        masks = self._masks
        for seat in range(NUM_SEATS):
            a = given[seat]
            if a is None:
                if masks[seat, self._pass]:
                    continue
                raise ValueError(
                    f"seat {seat} must act in phase {self.phase.name}; legal actions: {self._describe_legal(seat)}"
                )
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
                raise ValueError(f"seat {seat}: action must be an int id 0..{self._A - 1}, got {a!r}")
            a = int(a)
            if not 0 <= a < self._A:
                raise ValueError(f"seat {seat}: action {a} is out of range; allowed ids 0..{self._A - 1}")
            if not masks[seat, a]:
                raise ValueError(
                    f"seat {seat}: action {a} ({self.layout.describe(a)}) is illegal in phase {self.phase.name}; "
                    f"legal actions: {self._describe_legal(seat)}"
                )
            out[seat] = a
        return out

    def _describe_legal(self, seat: int) -> str:
        return ", ".join(f"{a} ({self.layout.describe(a)})" for a in np.flatnonzero(self._masks[seat]))

    # ------------------------------------------------------------------ transitions
    def _on_turn(self, p: int, a: int) -> None:
        t_count = self.num_tile_types
        if a < t_count:
            self._discard(p, a)
        elif a < 2 * t_count:
            self._kong(p, a - t_count)
        else:  # the only other legal own-turn action is a self-drawn win
            self._finish([p], deal_in=-1, tile=self.last_drawn, win_type="self_draw")

    def _discard(self, p: int, t: int) -> None:
        self._tiles[p, t] -= 1
        self.discards[p, self.num_discards[p]] = t
        self.num_discards[p] += 1
        self._tiles[_PUBLIC_ROW, t] += 1
        self.last_discard = t
        self.last_discarder = p
        self.last_drawn = -1
        self._claimed_turn = False
        masks = self._claim_masks(p, t)
        if masks is None:
            self._draw((p + 1) % NUM_SEATS, replacement=False)
        else:
            self.phase = Phase.CLAIM

    def _claim_masks(self, p: int, t: int) -> np.ndarray | None:
        """Masks of the claim window on discard ``t`` by ``p`` (sets ``_masks`` / ``_acting``); None (no
        window) when nobody can claim and ``rules.claim_window == "when_possible"``."""
        t_count = self.num_tile_types
        lay = self.layout
        masks = None
        acting = []
        can_kong = self._tail - self._head > 0
        chow_seat = (p + 1) % NUM_SEATS if self.rules.allow_chow and t < NUM_SUITED else -1
        for k in (1, 2, 3):
            s = (p + k) % NUM_SEATS
            h = self._tiles[s]
            row = None
            c = h[t]
            if c >= 2:
                row = np.zeros(self._A, dtype=np.int8)
                row[2 * t_count + 3] = 1
                if c >= 3 and can_kong:
                    row[2 * t_count + 4] = 1
            if s == chow_seat:
                r = t % 9
                lo = r <= 6 and h[t + 1] > 0 and h[t + 2] > 0
                mid = 1 <= r <= 7 and h[t - 1] > 0 and h[t + 1] > 0
                hi = r >= 2 and h[t - 2] > 0 and h[t - 1] > 0
                if lo or mid or hi:
                    if row is None:
                        row = np.zeros(self._A, dtype=np.int8)
                    row[lay.chow_low] = lo
                    row[lay.chow_mid] = mid
                    row[lay.chow_high] = hi
            b = bytearray(h.tobytes())
            b[t] += 1
            if is_winning_bytes(bytes(b), self._seven):
                if row is None:
                    row = np.zeros(self._A, dtype=np.int8)
                row[self._win] = 1
            if row is not None:
                if masks is None:
                    masks = self._pass_masks()
                masks[s] = row
                masks[s, self._pass] = 1
                acting.append(s)
        if masks is None and self.rules.claim_window == "always":
            masks = self._pass_masks()  # an empty window: everyone passes, nothing leaks
        if masks is not None:
            acting.sort()
            self._masks = masks
            self._acting = acting
        return masks

    def _pass_masks(self) -> np.ndarray:
        m = np.zeros((NUM_SEATS, self._A), dtype=np.int8)
        m[:, self._pass] = 1
        return m

    def _on_claims(self, chosen: list[int]) -> None:
        p = self.last_discarder
        t = self.last_discard
        order = [(p + k) % NUM_SEATS for k in (1, 2, 3)]
        t_count = self.num_tile_types
        winners = [s for s in order if chosen[s] == self._win]
        if winners:
            if not self.rules.multiple_winners:
                winners = winners[:1]
            # the won discard stays in the discarder's history (several seats may win on it)
            self._finish(winners, deal_in=p, tile=t, win_type="discard")
            return
        for s in order:
            a = chosen[s]
            if a == 2 * t_count + 3 or a == 2 * t_count + 4:
                kong = a == 2 * t_count + 4
                n = 3 if kong else 2
                self._tiles[s, t] -= n
                self._tiles[_MELD_ROW + s, t] += n + 1
                self._tiles[_PUBLIC_ROW, t] += n
                kind = "exposed_kong" if kong else "pong"
                self.melds[s].append(Meld(kind, (t,) * (n + 1), p, t))
                self._after_claim(s, kong)
                return
        for s in order:
            a = chosen[s]
            if 2 * t_count <= a <= 2 * t_count + 2:
                low = t - (a - 2 * t_count)
                tiles = (low, low + 1, low + 2)
                for u in tiles:
                    if u != t:
                        self._tiles[s, u] -= 1
                        self._tiles[_PUBLIC_ROW, u] += 1
                    self._tiles[_MELD_ROW + s, u] += 1
                self.melds[s].append(Meld("chow", tiles, p, t))
                self._after_claim(s, False)
                return
        self._draw((p + 1) % NUM_SEATS, replacement=False)

    def _after_claim(self, s: int, kong: bool) -> None:
        self.last_discard = -1
        self.last_discarder = -1
        if kong:
            self._draw(s, replacement=True)
            return
        # after a chow or pong the claimant discards at once: no draw, no win, no kong
        self.current_player = s
        self.phase = Phase.DISCARD
        self._claimed_turn = True
        self.last_drawn = -1
        self._set_turn_masks(s)

    def _kong(self, p: int, t: int) -> None:
        h = self._tiles[p]
        if h[t] == 4:
            h[t] = 0
            self._tiles[_MELD_ROW + p, t] += 4
            # concealed kongs are treated as revealed to everyone (see mjenv.knowledge)
            self._tiles[_PUBLIC_ROW, t] += 4
            self.melds[p].append(Meld("concealed_kong", (t,) * 4, -1, -1))
            self._draw(p, replacement=True)
            return
        h[t] -= 1
        melds = self.melds[p]
        for i, m in enumerate(melds):
            if m.kind == "pong" and m.tiles[0] == t:
                melds[i] = Meld("added_kong", (t,) * 4, m.from_seat, m.claimed)
                break
        self._tiles[_MELD_ROW + p, t] += 1
        self._tiles[_PUBLIC_ROW, t] += 1
        masks = None
        acting = []
        for k in (1, 2, 3):
            s = (p + k) % NUM_SEATS
            b = bytearray(self._tiles[s].tobytes())
            b[t] += 1
            if is_winning_bytes(bytes(b), self._seven):
                if masks is None:
                    masks = self._pass_masks()
                masks[s, self._win] = 1
                acting.append(s)
        if masks is None and self.rules.claim_window == "always":
            masks = self._pass_masks()  # an empty rob window: everyone passes, nothing leaks
        if masks is None:
            self._draw(p, replacement=True)
            return
        self.phase = Phase.ROB_KONG
        self._kong_tile = t
        # the kong's tile awaits claims (a win only), as a discard would
        self.last_discard = t
        self.last_discarder = p
        self.last_drawn = -1
        acting.sort()
        self._masks = masks
        self._acting = acting

    def _on_rob(self, chosen: list[int]) -> None:
        p = self.current_player
        t = self._kong_tile
        order = [(p + k) % NUM_SEATS for k in (1, 2, 3)]
        winners = [s for s in order if chosen[s] == self._win]
        self._kong_tile = -1
        if not winners:
            self._draw(p, replacement=True)
            return
        if not self.rules.multiple_winners:
            winners = winners[:1]
        # the robbed kong falls back to a pong; the robbed tile counts as the declarer's discard
        # (public, in her history), as a won discard does
        melds = self.melds[p]
        for i, m in enumerate(melds):
            if m.kind == "added_kong" and m.tiles[0] == t:
                melds[i] = Meld("pong", (t,) * 3, m.from_seat, m.claimed)
                break
        self._tiles[_MELD_ROW + p, t] -= 1
        self.discards[p, self.num_discards[p]] = t
        self.num_discards[p] += 1
        self._finish(winners, deal_in=p, tile=t, win_type="robbed_kong")

    def _draw(self, p: int, replacement: bool) -> None:
        if self._tail == self._head:
            self._finish([], deal_in=-1, tile=-1, win_type="exhaustive_draw")
            return
        if replacement:
            self._tail -= 1
            t = int(self.wall[self._tail])
        else:
            t = int(self.wall[self._head])
            self._head += 1
        self._tiles[p, t] += 1
        self.last_drawn = t
        self.last_discard = -1
        self.last_discarder = -1
        self.current_player = p
        self.phase = Phase.DISCARD
        self._claimed_turn = False
        self._set_turn_masks(p)

    def _set_turn_masks(self, p: int) -> None:
        t_count = self.num_tile_types
        masks = self._pass_masks()
        row = masks[p]
        row[self._pass] = 0
        h = self._tiles[p]
        row[:t_count] = h > 0
        if not self._claimed_turn:
            if self._tail > self._head:
                row[t_count : 2 * t_count] = h == 4
                for m in self.melds[p]:
                    if m.kind == "pong" and h[m.tiles[0]] > 0:
                        row[t_count + m.tiles[0]] = 1
            if is_winning_bytes(h.tobytes(), self._seven):
                row[self._win] = 1
        self._masks = masks
        self._acting = [p]

    def _finish(self, winners: list[int], deal_in: int, tile: int, win_type: str) -> None:
        self.phase = Phase.END
        self.end_reason = win_type
        self.winners = sorted(winners)
        self.deal_in = deal_in
        self.winning_tile = tile
        self.last_discard = -1
        self.last_discarder = -1
        scores = np.zeros(NUM_SEATS, dtype=np.int64)
        if winners and deal_in >= 0:
            pts = self.rules.discard_win_points
            for w in winners:
                scores[w] += pts
                scores[deal_in] -= pts
        elif winners:
            pts = self.rules.self_draw_points
            w = winners[0]
            scores -= pts
            scores[w] += NUM_SEATS * pts
        self.scores = scores
        self._masks = self._pass_masks()
        self._acting = []

    def __repr__(self) -> str:
        return (
            f"Game(rules={self.rules.name!r}, seed={self.seed}, phase={self.phase.name}, "
            f"current_player={self.current_player}, wall_remaining={self.wall_remaining})"
        )
