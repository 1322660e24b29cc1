"""The game state and its transitions (see :mod:`mjenv.game` for the rules of each phase).

The state is a few fixed-shape numpy arrays plus integer scalars, so :meth:`Game.clone` is a handful
of array copies (and N games could be stacked into ``[N, ...]`` arrays):

* ``_tiles``: int8[9, T]; rows 0-3 are the concealed hands (``hands``), rows 4-7 the tiles in each
  seat's declared melds (``meld_counts``), row 8 the tiles every seat has seen (``public_counts``:
  discards, meld tiles, the claimed discard counted once, concealed kongs included).
* ``discards``: int16[4, max_discards] ordered discard history, -1 padded; ``num_discards`` int16[4].
* ``meld_table``: int8[4, rules.melds, 4], row i of seat s her i-th declared meld as (kind code
  :class:`MeldKind`, lowest tile, from_seat, claimed tile), -1 padded; ``melds_declared`` int8[4].
  :attr:`Game.melds` derives :class:`Meld` tuples from it for display and logs.
* ``set_aside``: int8[4, 8] a room's own tiles each seat has set aside face up (1: holds the tile of
  wall id ``SET_ASIDE_BASE + f``, :class:`~mjenv.rulesets.protocol.WallParts`); all zero unless the
  rules put a room's tiles in the wall. The room may name it too (``WallParts.state_name``).
* ``won``: bool[4] the winners; ``scores``: int64[4]; ``end_code``: :class:`EndReason`.
* Rooms' state (:mod:`mjenv.rulesets`; a room's hooks fill them): ``missing`` int8[4] each
  seat's declared missing suit (-1 before the declaration, and always where no room declares one);
  ``wins`` the list of the hand's wins in order (several per hand where play goes on after a win);
  ``after_kong`` whether the current player's last draw was a replacement draw.
* ``wall``: int8[N] tile ids in draw order, shared read-only between clones; draws come from the
  front (``_head``), replacement draws after a kong from the end (``_tail``).
* ``_masks``: int8[4, A] legal actions of the current decision, rebuilt (never mutated) at each
  transition, so clones share it (and every state in which nobody decides shares one read-only
  PASS-only array); ``_acting``: the deciding seats as a 4-bit mask (bit s: seat s).
* scalars: ``phase``, ``current_player``, ``last_discard``, ``last_discarder``, ``last_drawn``,
  ``deal_in``, ``winning_tile``, ``_claimed_turn``, ``_kong_tile``.

Nothing is stored twice: ``hands``, ``meld_counts``, ``public_counts``, ``melds``, ``winners`` and
``end_reason`` are derived on access. A stored view or derived copy would drift from its source, and
``copy.deepcopy`` and pickle would split a stored view from the array it shows.

The step log is not part of the state it records: ``_steps`` is a list of ``[[seat, action], ...]``
records that a game shares with its clones, of which the first ``_num_steps`` are this game's. A game
appends to it while no clone has gone further, and takes a private copy of its part otherwise, so a
clone costs nothing for the log and every game's log stays its own.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Mapping, Sequence
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from mjenv import rulesets
from mjenv.game._win import is_winning_bytes
from mjenv.game.actions import ActionLayout, Phase
from mjenv.game.jsonl import LOG_FORMAT, LOG_VERSION, write_log_lines
from mjenv.rules import Rules, get_rules
from mjenv.tiles import COPIES, NUM_SUITED, NUM_TILES

NUM_SEATS = 4
#: Wall ids a room may give tiles of its own (:class:`~mjenv.rulesets.protocol.WallParts`): ``SET_ASIDE_BASE``
#: .. ``SET_ASIDE_BASE + SET_ASIDE_IDS - 1``, after the 34 ids of the deficiency core. A seat sets them aside.
SET_ASIDE_BASE = NUM_TILES
SET_ASIDE_IDS = 8
# rows of Game._tiles: 0-3 the concealed hands, _MELD_ROW + s seat s's meld tiles, _PUBLIC_ROW the public counts
_MELD_ROW = 4
_PUBLIC_ROW = 8
# the seats of each 4-bit acting mask, ascending (Game._acting)
_SEATS_OF_MASK = tuple(tuple(s for s in range(NUM_SEATS) if m >> s & 1) for m in range(1 << NUM_SEATS))


class MeldKind(IntEnum):
    """Kind code of a meld in :attr:`Game.meld_table` (its name, lower case, is :attr:`Meld.kind`)."""

    CHOW = 0
    PONG = 1
    EXPOSED_KONG = 2
    CONCEALED_KONG = 3
    ADDED_KONG = 4


#: Meld kind names, indexed by :class:`MeldKind`.
MELD_KINDS = tuple(k.name.lower() for k in MeldKind)


class EndReason(IntEnum):
    """How a hand ended (:attr:`Game.end_code`); its name, lower case, is :attr:`Game.end_reason`
    (``""`` for ``NONE``, the hand is not over)."""

    NONE = 0
    SELF_DRAW = 1
    DISCARD = 2
    ROBBED_KONG = 3
    EXHAUSTIVE_DRAW = 4


_PONG = int(MeldKind.PONG)  # a plain int: the turn masks compare it often, enum attributes cost more
_END_NAMES = tuple("" if r is EndReason.NONE else r.name.lower() for r in EndReason)


class Meld(NamedTuple):
    """A declared meld (derived from :attr:`Game.meld_table` for display and logs).

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

    @classmethod
    def from_row(cls, kind: int, tile: int, from_seat: int, claimed: int) -> Meld:
        """The meld of one :attr:`Game.meld_table` row (kind code, lowest tile, from_seat, claimed)."""
        if kind == MeldKind.CHOW:
            tiles: tuple[int, ...] = (tile, tile + 1, tile + 2)
        else:
            tiles = (tile,) * (3 if kind == MeldKind.PONG else 4)
        return cls(MELD_KINDS[kind], tiles, from_seat, claimed)


def _wins_with(hand: np.ndarray, t: int, seven_pairs: bool) -> bool:
    """Whether ``hand`` (int8[T] concealed tiles) plus one tile ``t`` is complete."""
    b = bytearray(hand.tobytes())
    b[t] += 1
    return is_winning_bytes(bytes(b), seven_pairs)


@functools.cache
def _pass_only(layout: ActionLayout) -> np.ndarray:
    """int8[4, A] (read-only) the masks when nobody decides: PASS only, for every seat."""
    m = np.zeros((NUM_SEATS, layout.size), dtype=np.int8)
    m[:, layout.pass_] = 1
    m.flags.writeable = False
    return m


def tile_set(rules: Rules) -> np.ndarray:
    """int8[rules.num_tiles]: every tile of the rules in id order, COPIES of each, then each of a room's
    own tiles once (:func:`mjenv.rulesets.extra_tiles`): the tiles a wall shuffles."""
    full = np.repeat(np.arange(rules.num_tile_types, dtype=np.int8), COPIES)
    extra = rulesets.extra_tiles(rules)
    if extra:  # a room's own tiles, set aside when drawn
        full = np.concatenate([full, np.array(extra, dtype=np.int8)])
    return full


def seeded_wall(tiles: np.ndarray, seed: int) -> np.ndarray:
    """The wall ``Game(rules, seed=seed)`` deals from: ``tiles`` (:func:`tile_set`) in the order of a
    permutation by numpy's ``default_rng(seed)``. The batch step deals the same walls (``BatchGames.walls``)."""
    return np.random.default_rng(seed).permutation(tiles)


class Game:
    """One hand of four-player Mahjong: state, legal actions and transitions (numpy only).

    Args:
        rules: preset name, :class:`~mjenv.rules.Rules` or dict (see :func:`~mjenv.rules.get_rules`).
        seed: seeds the wall shuffle (``np.random.default_rng(seed)``); None draws a fresh seed,
            recorded in :attr:`log` so the hand can be replayed.
        dealer: seat 0..3 that starts with the extra tile.
        wall: int[N] tile ids in draw order (a permutation of the full set; see
            :func:`mjenv.game.make_wall`). Overrides ``seed``'s shuffle.

    Raises:
        ValueError: bad rules, dealer, seed or wall.

    Attributes (read them; change state only through :meth:`step`):
        rules, layout (:class:`ActionLayout`), num_tile_types (T), seed, dealer.
        phase: :class:`Phase`; current_player: the seat whose turn it is (the discarder during a
            claim window, the kong declarer while a kong may be robbed).
        tile_counts: int8[9, T] the tile counts; hands (int8[4, T] concealed tiles, the drawn tile
            included), meld_counts (int8[4, T] tiles in each seat's declared melds) and
            public_counts (int8[T] tiles every seat has seen: discards, meld tiles with a claimed
            discard counted once, concealed kongs) are views of it; a seat's knowledge base is
            ``4 - hands[seat] - public_counts``.
        meld_table: int8[4, rules.melds, 4] declared melds (kind code, lowest tile, from_seat,
            claimed), -1 padded; melds_declared: int8[4]; melds: per seat list[Meld] (derived).
        discards: int16[4, rules.max_discards] ordered discard history, -1 padded (claimed discards
            stay in it); num_discards: int16[4].
        last_discard, last_discarder: the tile awaiting claims and its seat (-1 when none): the
            discard during ``CLAIM``, the added kong's tile and its declarer during ``ROB_KONG``.
        last_drawn: the tile the current player just drew (-1 after a chow/pong, or none).
        wall: int8[N] the wall in draw order (read-only); wall_remaining, wall_head, wall_tail.
        won: bool[4] the winners; winners: list[int] their seats, ascending (derived).
        end_code: :class:`EndReason`; end_reason: its name (derived).
        deal_in (-1: none), winning_tile, scores (int64[4]).
    """

    __slots__ = (
        "rules", "layout", "num_tile_types", "seed", "dealer", "wall", "_seven", "_pass_only",
        "_tiles", "discards", "num_discards", "meld_table", "melds_declared", "won", "scores", "_masks",
        "phase", "current_player", "last_discard", "last_discarder", "last_drawn", "deal_in",
        "winning_tile", "end_code", "_head", "_tail", "_acting", "_claimed_turn", "_kong_tile",
        "_steps", "_num_steps", "set_aside", "missing", "wins", "_after_kong", "_hooks", "_restricts", "_plays_on",
        "_pays_kongs", "_settles",
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
        rulesets.check_shared(self.rules, "mjenv.game.Game")
        t_count = self.rules.num_tile_types
        self.num_tile_types = t_count
        self.layout = ActionLayout.for_rules(self.rules)
        self._seven = self.rules.seven_pairs
        self._pass_only = _pass_only(self.layout)
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < NUM_SEATS:
            raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
        self.dealer = int(dealer)
        if seed is None:
            seed = secrets.randbits(63)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an int >= 0 or None, got {seed!r}")
        self.seed = int(seed)
        if wall is None:
            w = seeded_wall(tile_set(self.rules), self.seed)
        else:
            w = np.asarray(wall)
            if w.shape != (self.rules.num_tiles,) or not np.issubdtype(w.dtype, np.integer):
                raise ValueError(
                    f"wall must be {self.rules.num_tiles} integer tile ids, got shape {w.shape}, dtype {w.dtype}"
                )
            want = np.bincount(tile_set(self.rules), minlength=t_count)  # a room's own tiles once each
            if w.min() < 0 or w.max() >= len(want) or (np.bincount(w, minlength=len(want)) != want).any():
                parts = rulesets.wall_parts(self.rules)
                extra = rulesets.extra_tiles(self.rules)
                fl = f" and each {parts.noun} id {extra[0]}..{extra[-1]} once" if extra else ""
                raise ValueError(f"wall must hold each tile id 0..{t_count - 1} exactly {COPIES} times{fl}")
            w = w.astype(np.int8)
        w.flags.writeable = False
        self.wall = w
        self._tiles = np.zeros((9, t_count), dtype=np.int8)
        self.discards = np.full((NUM_SEATS, self.rules.max_discards), -1, dtype=np.int16)
        self.num_discards = np.zeros(NUM_SEATS, dtype=np.int16)
        self.meld_table = np.full((NUM_SEATS, self.rules.melds, 4), -1, dtype=np.int8)
        self.melds_declared = np.zeros(NUM_SEATS, dtype=np.int8)
        self.won = np.zeros(NUM_SEATS, dtype=bool)
        self.set_aside = np.zeros((NUM_SEATS, SET_ASIDE_IDS), dtype=np.int8)
        self.scores = np.zeros(NUM_SEATS, dtype=np.int64)
        self.missing = np.full(NUM_SEATS, -1, dtype=np.int8)  # -1: not declared (a room's state)
        self.wins: list[dict[str, Any]] = []
        self._after_kong = False
        self._set_hooks(rulesets.game_hooks(self.rules))
        self.deal_in = -1
        self.winning_tile = -1
        self.end_code = EndReason.NONE
        self.last_discard = -1
        self.last_discarder = -1
        self.last_drawn = -1
        self._claimed_turn = False
        self._kong_tile = -1
        self._steps: list[list[list[int]]] = []
        self._num_steps = 0
        hs = self.rules.hand_size
        self._head = NUM_SEATS * hs
        self._tail = self.rules.num_tiles
        for k in range(NUM_SEATS):
            seat = (self.dealer + k) % NUM_SEATS
            dealt = w[k * hs : (k + 1) * hs].astype(np.intp)
            np.add.at(self._tiles[seat], dealt[dealt < t_count], 1)
        if self.rules.num_tiles > COPIES * t_count:  # a room's own tiles dealt: set aside, replaced from the end
            for k in range(NUM_SEATS):
                seat = (self.dealer + k) % NUM_SEATS
                for t in w[k * hs : (k + 1) * hs].tolist():
                    if t >= SET_ASIDE_BASE:
                        self.set_aside[seat, t - SET_ASIDE_BASE] = 1
                        self._tiles[seat, self._replacement_tile(seat)] += 1
        self.phase = Phase.DISCARD
        self._draw(self.dealer, replacement=False)
        if self._hooks is not None:  # a room may open a phase of its own here
            self._hooks.start(self)

    def _set_hooks(self, hooks) -> None:
        """Take a room's :class:`~mjenv.rulesets.protocol.GameHooks` (None: the plain game) and its flags."""
        self._hooks = hooks
        self._restricts = hooks is not None and hooks.restricts
        self._plays_on = hooks is not None and hooks.plays_on
        self._pays_kongs = hooks is not None and hooks.pays_kongs
        self._settles = hooks is not None and hooks.settles

    # ------------------------------------------------------------------ what a room's hooks may call
    def draw(self, seat: int) -> None:
        """``seat`` draws from the wall's front and takes its turn (or the hand ends when the wall is dry)."""
        self._draw(seat, replacement=False)

    def finish(self, winners: list[int], deal_in: int, tile: int, reason: EndReason) -> None:
        """End the hand: ``winners``, the discarder ``deal_in`` (-1: none), the winning ``tile``, ``reason``."""
        self._finish(winners, deal_in=deal_in, tile=tile, reason=reason)

    def set_turn_masks(self, seat: int) -> None:
        """Make it ``seat``'s own turn decision (its discard, kong and win entries from its hand)."""
        self._set_turn_masks(seat)

    def set_decision(self, masks: np.ndarray, acting: int) -> None:
        """Open a decision: ``masks`` int8[4, A] (read-only, kept), ``acting`` the deciding seats (bit s: seat s)."""
        self._masks = masks
        self._acting = acting

    @property
    def claimed_turn(self) -> bool:
        """Whether the current turn follows a chow or pong (no draw: discard only)."""
        return self._claimed_turn

    @property
    def after_kong(self) -> bool:
        """Whether the current player's last draw was a replacement draw (after a kong)."""
        return self._after_kong

    # ------------------------------------------------------------------ derived views of the state
    @property
    def tile_counts(self) -> np.ndarray:
        """int8[9, T], read it only: rows 0-3 the concealed hands, 4-7 the meld counts, 8 the public
        counts (``hands``, ``meld_counts`` and ``public_counts`` are views of it)."""
        return self._tiles

    @property
    def hands(self) -> np.ndarray:
        """int8[4, T] concealed tiles of each seat (a view of :attr:`tile_counts`; read it only)."""
        return self._tiles[0:4]

    @property
    def meld_counts(self) -> np.ndarray:
        """int8[4, T] tiles in each seat's declared melds (a view of :attr:`tile_counts`; read it only)."""
        return self._tiles[_MELD_ROW:_PUBLIC_ROW]

    @property
    def public_counts(self) -> np.ndarray:
        """int8[T] tiles every seat has seen (a view of :attr:`tile_counts`; read it only)."""
        return self._tiles[_PUBLIC_ROW]

    @property
    def melds(self) -> list[list[Meld]]:
        """Per seat the declared melds in declaration order (a new list of :class:`Meld`, derived from
        :attr:`meld_table`; an added kong takes the place of its pong)."""
        counts = self.melds_declared.tolist()
        if not any(counts):
            return [[], [], [], []]
        table = self.meld_table
        return [[Meld.from_row(*row) for row in table[s, :n].tolist()] if n else [] for s, n in enumerate(counts)]

    def num_melds(self, seat: int) -> int:
        """Declared melds of ``seat`` (concealed kongs included)."""
        return int(self.melds_declared[seat])

    @property
    def winners(self) -> list[int]:
        """Seats that won, ascending (``[]`` before the end and after an exhaustive draw)."""
        return np.flatnonzero(self.won).tolist()

    @property
    def end_reason(self) -> str:
        """``"self_draw"``, ``"discard"``, ``"robbed_kong"`` or ``"exhaustive_draw"``; ``""`` before the end."""
        return _END_NAMES[self.end_code]

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

    # ------------------------------------------------------------------ legal actions
    def acting_seats(self) -> list[int]:
        """Seats that must decide now, ascending. Empty when the hand is over, and during a ``CLAIM`` /
        ``ROB_KONG`` window in which nobody can claim (``rules.claim_window == "always"``): then
        :meth:`step` takes ``{}`` (or all PASS) and the hand goes on as if everyone passed."""
        return list(_SEATS_OF_MASK[self._acting])

    def legal_action_mask(self, seat: int) -> np.ndarray:
        """int8[A] 1 where the action is legal for ``seat`` now; a seat with nothing to decide has
        only PASS (also every seat once the hand is over)."""
        if not 0 <= seat < NUM_SEATS:
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        return self._masks[seat].copy()

    def legal_action_masks(self) -> np.ndarray:
        """int8[4, A]: :meth:`legal_action_mask` of every seat (a fresh array)."""
        return self._masks.copy()

    def legal_actions(self, seat: int) -> list[int]:
        """Legal action ids of ``seat`` now, ascending."""
        return np.flatnonzero(self._masks[seat]).tolist()

    # ------------------------------------------------------------------ log and copies
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
            "steps": [[list(p) for p in s] for s in self._steps[: self._num_steps]],
        }
        if self.is_over:
            out["result"] = self.result()
        return out

    def result(self) -> dict[str, Any]:
        """Summary: phase, end_reason, winners, deal_in, winning_tile, scores, wall_remaining, steps;
        with a room's hooks also the keys its ``GameHooks.result`` adds (e.g. the declared suits and
        each win in order)."""
        if self._hooks is not None:
            return {**self._result(), **self._hooks.result(self)}
        return self._result()

    def _result(self) -> dict[str, Any]:
        return {
            "phase": self.phase.name,
            "end_reason": self.end_reason,
            "winners": self.winners,
            "deal_in": self.deal_in,
            "winning_tile": self.winning_tile,
            "scores": self.scores.tolist(),
            "wall_remaining": self.wall_remaining,
            "steps": self._num_steps,
        }

    def to_jsonl(self, path: str, append: bool = False) -> None:
        """Write this hand as JSON lines (header, one line per step, result); see :mod:`mjenv.game.log`."""
        write_log_lines(self.log, path, append=append)

    def __getattr__(self, name: str) -> Any:
        # only for names that are not attributes: a room's own name for ``set_aside`` (WallParts.state_name)
        if name in rulesets.set_aside_names():
            return self.set_aside
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def clone(self) -> Game:
        """An independent copy: the state arrays copied, the rest (scalars, the read-only wall and
        masks, the shared step log) assigned."""
        g = object.__new__(Game)
        g.rules = self.rules
        g.layout = self.layout
        g.num_tile_types = self.num_tile_types
        g.seed = self.seed
        g.dealer = self.dealer
        g.wall = self.wall
        g._seven = self._seven
        g._pass_only = self._pass_only
        g._tiles = self._tiles.copy()
        g.discards = self.discards.copy()
        g.num_discards = self.num_discards.copy()
        g.meld_table = self.meld_table.copy()
        g.melds_declared = self.melds_declared.copy()
        g.won = self.won.copy()
        g.set_aside = self.set_aside.copy()
        g.scores = self.scores.copy()
        g.missing = self.missing.copy()
        g.wins = list(self.wins)
        g._after_kong = self._after_kong
        g._set_hooks(self._hooks)
        g._masks = self._masks
        g.phase = self.phase
        g.current_player = self.current_player
        g.last_discard = self.last_discard
        g.last_discarder = self.last_discarder
        g.last_drawn = self.last_drawn
        g.deal_in = self.deal_in
        g.winning_tile = self.winning_tile
        g.end_code = self.end_code
        g._head = self._head
        g._tail = self._tail
        g._acting = self._acting
        g._claimed_turn = self._claimed_turn
        g._kong_tile = self._kong_tile
        g._steps = self._steps
        g._num_steps = self._num_steps
        return g

    def redeal_unseen(self, seat: int, rng: np.random.Generator) -> Game:
        """A copy with the tiles ``seat`` has not seen dealt anew (a determinization, for rollouts).

        The multiset of the opponents' concealed tiles and the undrawn wall (``wall[head:tail]``) is
        shuffled and dealt back: each opponent gets as many concealed tiles as before, the undrawn wall
        the rest in a new order. Everything ``seat`` observes (its hand, every meld and discard, the
        counts) is unchanged. In a claim window the opponents' claim masks are rebuilt for their new
        hands. The copy's ``seed`` and step log still describe the original deal: it is a state to play
        on, not a hand to replay.

        Args:
            seat: the seat whose information is kept (0..3).
            rng: the generator of the new deal.

        Returns:
            A new :class:`Game` (this one is not changed).

        Raises:
            ValueError: a bad seat, a phase other than ``DISCARD`` or ``CLAIM``, rules with a room's own
                tiles in the wall or its restrictions (their hidden state is more than the concealed tiles
                and the wall), or
                (``claim_window="when_possible"``) a claim window that the new deal would close.
        """
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= int(seat) < NUM_SEATS:
            raise ValueError(f"seat must be an int 0..3, got {seat!r}")
        parts = rulesets.wall_parts(self.rules)
        if parts is not None or self._restricts:
            what = f"{parts.noun}s in the wall" if parts is not None else "a room's restrictions"
            raise ValueError(f"redeal_unseen handles rules without a room's own tiles in the wall and without "
                             f"its restrictions, got {self.rules.name!r} ({what})")
        if self.phase not in (Phase.DISCARD, Phase.CLAIM):
            raise ValueError(f"redeal_unseen needs a DISCARD or CLAIM state, got phase {Phase(self.phase).name}")
        g = self.clone()
        others = [s for s in range(NUM_SEATS) if s != int(seat)]
        types = np.arange(g.num_tile_types, dtype=np.int8)
        hidden = [np.repeat(types, g._tiles[s].astype(np.intp)) for s in others]
        pool = np.concatenate(hidden + [np.asarray(g.wall[g._head : g._tail], dtype=np.int8)])
        rng.shuffle(pool)
        pos = 0
        for s, h in zip(others, hidden):
            g._tiles[s] = np.bincount(pool[pos : pos + len(h)], minlength=g.num_tile_types).astype(np.int8)
            pos += len(h)
        wall = np.array(g.wall, dtype=np.int8)
        wall[g._head : g._tail] = pool[pos:]
        wall.flags.writeable = False
        g.wall = wall
        if g.phase == Phase.CLAIM and not g._claim_masks(g.last_discarder, g.last_discard):
            raise ValueError(
                "redeal_unseen: the claim window would close after the new deal (claim_window='when_possible')"
            )
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
        steps = self._steps
        if len(steps) != self._num_steps:  # a clone has logged past this game's steps: log apart from it
            steps = self._steps = steps[: self._num_steps]
        steps.append([[s, chosen[s]] for s in _SEATS_OF_MASK[self._acting]])
        self._num_steps += 1
        if self.phase == Phase.DISCARD:
            self._on_turn(self.current_player, chosen[self.current_player])
        elif self.phase == Phase.CLAIM:
            self._on_claims(chosen)
        elif self.phase == Phase.ROB_KONG:
            self._on_rob(chosen)
        else:  # a phase of a room's own
            self._hooks.on_phase(self, chosen)

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
        pass_, size = self.layout.pass_, self.layout.size
        out = [pass_] * NUM_SEATS
        masks = self._masks
        for seat in range(NUM_SEATS):
            a = given[seat]
            if a is None:
                if masks[seat, pass_]:
                    continue
                raise ValueError(
                    f"seat {seat} must act in phase {self.phase.name}; legal actions: {self._describe_legal(seat)}"
                )
            if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
                raise ValueError(f"seat {seat}: action must be an int id 0..{size - 1}, got {a!r}")
            a = int(a)
            if not 0 <= a < size:
                raise ValueError(f"seat {seat}: action {a} is out of range; allowed ids 0..{size - 1}")
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
        lay = self.layout
        if a < lay.discards.stop:
            self._discard(p, a - lay.discards.start)
        elif a < lay.kongs.stop:
            self._kong(p, a - lay.kongs.start)
        elif self._plays_on:  # the winner leaves, the others play on
            self._hooks.win(self, [p], deal_in=-1, tile=self.last_drawn, reason=EndReason.SELF_DRAW)
        else:  # the only other legal own-turn action is a self-drawn win
            self._finish([p], deal_in=-1, tile=self.last_drawn, reason=EndReason.SELF_DRAW)

    def _discard(self, p: int, t: int) -> None:
        self._tiles[p, t] -= 1
        self.discards[p, self.num_discards[p]] = t
        self.num_discards[p] += 1
        self._tiles[_PUBLIC_ROW, t] += 1
        self.last_discard = t
        self.last_discarder = p
        self.last_drawn = -1
        self._claimed_turn = False
        if self._claim_masks(p, t):
            self.phase = Phase.CLAIM
        else:
            self._draw((p + 1) % NUM_SEATS, replacement=False)

    def _claim_masks(self, p: int, t: int) -> bool:
        """Set the masks of the claim window on discard ``t`` by ``p``; False (nothing set, no window)
        when nobody can claim and ``rules.claim_window == "when_possible"``."""
        lay = self.layout
        masks = None
        acting = 0
        can_kong = self._tail - self._head > self.rules.draw_at
        chow_seat = (p + 1) % NUM_SEATS if self.rules.allow_chow and t < NUM_SUITED else -1
        restricts = self._restricts
        hooks = self._hooks
        for k in (1, 2, 3):
            s = (p + k) % NUM_SEATS
            if restricts and self.won[s]:  # a winner has left the hand
                continue
            h = self._tiles[s]
            row = None
            c = h[t]
            if c >= 2 and (not restricts or hooks.may_meld(self, s, t)):
                row = np.zeros(lay.size, dtype=np.int8)
                row[lay.pong] = 1
                if c >= 3 and can_kong:
                    row[lay.exposed_kong] = 1
            if s == chow_seat:
                r = t % 9
                lo = r <= 6 and h[t + 1] > 0 and h[t + 2] > 0
                mid = 1 <= r <= 7 and h[t - 1] > 0 and h[t + 1] > 0
                hi = r >= 2 and h[t - 2] > 0 and h[t - 1] > 0
                if lo or mid or hi:
                    if row is None:
                        row = np.zeros(lay.size, dtype=np.int8)
                    row[lay.chow_low] = lo
                    row[lay.chow_mid] = mid
                    row[lay.chow_high] = hi
            if hooks.wins_with(self, s, t) if restricts else _wins_with(h, t, self._seven):
                if row is None:
                    row = np.zeros(lay.size, dtype=np.int8)
                row[lay.win] = 1
            if row is not None:
                if masks is None:
                    masks = self._pass_only.copy()
                masks[s] = row
                masks[s, lay.pass_] = 1
                acting |= 1 << s
        if masks is None and self.rules.claim_window == "always":
            masks = self._pass_only  # an empty window: everyone passes, nothing leaks
        if masks is None:
            return False
        self._masks = masks
        self._acting = acting
        return True

    def _on_claims(self, chosen: list[int]) -> None:
        p = self.last_discarder
        t = self.last_discard
        lay = self.layout
        order = [(p + k) % NUM_SEATS for k in (1, 2, 3)]
        winners = [s for s in order if chosen[s] == lay.win]
        if winners:
            if not self.rules.multiple_winners:
                winners = winners[:1]
            # the won discard stays in the discarder's history (several seats may win on it)
            if self._plays_on:
                self._hooks.win(self, winners, deal_in=p, tile=t, reason=EndReason.DISCARD)
                return
            self._finish(winners, deal_in=p, tile=t, reason=EndReason.DISCARD)
            return
        for s in order:
            a = chosen[s]
            if a == lay.pong or a == lay.exposed_kong:
                kong = a == lay.exposed_kong
                n = 3 if kong else 2
                self._tiles[s, t] -= n
                self._tiles[_MELD_ROW + s, t] += n + 1
                self._tiles[_PUBLIC_ROW, t] += n
                self._add_meld(s, MeldKind.EXPOSED_KONG if kong else MeldKind.PONG, t, p, t)
                if kong and self._pays_kongs:
                    self._hooks.pay_kong(self, s, "exposed", discarder=p)
                self._after_claim(s, kong)
                return
        for s in order:
            a = chosen[s]
            if lay.chow_low <= a <= lay.chow_high:
                low = t - (a - lay.chow_low)  # the discard is the lowest, middle or highest tile
                for u in (low, low + 1, low + 2):
                    if u != t:
                        self._tiles[s, u] -= 1
                        self._tiles[_PUBLIC_ROW, u] += 1
                    self._tiles[_MELD_ROW + s, u] += 1
                self._add_meld(s, MeldKind.CHOW, low, p, t)
                self._after_claim(s, False)
                return
        self._draw(self._hooks.next_seat(self, p) if self._plays_on else (p + 1) % NUM_SEATS, replacement=False)

    def _add_meld(self, s: int, kind: MeldKind, tile: int, from_seat: int, claimed: int) -> None:
        self.meld_table[s, self.melds_declared[s]] = (kind, tile, from_seat, claimed)
        self.melds_declared[s] += 1

    def _pong_row(self, s: int, t: int, kind: MeldKind) -> int:
        """Row in ``meld_table[s]`` of seat ``s``'s meld of tile ``t`` of ``kind`` (a pong or added kong)."""
        rows = self.meld_table[s, : self.melds_declared[s]]
        return int(np.flatnonzero((rows[:, 0] == kind) & (rows[:, 1] == t))[0])

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
            self._add_meld(p, MeldKind.CONCEALED_KONG, t, -1, -1)
            if self._pays_kongs:
                self._hooks.pay_kong(self, p, "concealed")
            self._draw(p, replacement=True)
            return
        h[t] -= 1
        self.meld_table[p, self._pong_row(p, t, MeldKind.PONG), 0] = MeldKind.ADDED_KONG
        self._tiles[_MELD_ROW + p, t] += 1
        self._tiles[_PUBLIC_ROW, t] += 1
        lay = self.layout
        masks = None
        acting = 0
        for k in (1, 2, 3):
            s = (p + k) % NUM_SEATS
            if (
                (not self.won[s] and self._hooks.wins_with(self, s, t))
                if self._restricts
                else _wins_with(self._tiles[s], t, self._seven)
            ):  # under a room's restrictions only a seat still in the hand
                if masks is None:
                    masks = self._pass_only.copy()
                masks[s, lay.win] = 1
                acting |= 1 << s
        if masks is None and self.rules.claim_window == "always":
            masks = self._pass_only  # an empty rob window: everyone passes, nothing leaks
        if masks is None:
            self._added_kong_stands(p)
            return
        self.phase = Phase.ROB_KONG
        self._kong_tile = t
        # the kong's tile awaits claims (a win only), as a discard would
        self.last_discard = t
        self.last_discarder = p
        self.last_drawn = -1
        self._masks = masks
        self._acting = acting

    def _on_rob(self, chosen: list[int]) -> None:
        p = self.current_player
        t = self._kong_tile
        order = [(p + k) % NUM_SEATS for k in (1, 2, 3)]
        winners = [s for s in order if chosen[s] == self.layout.win]
        self._kong_tile = -1
        if not winners:
            self._added_kong_stands(p)
            return
        if not self.rules.multiple_winners:
            winners = winners[:1]
        # the robbed kong falls back to a pong; the robbed tile counts as the declarer's discard
        # (public, in her history), as a won discard does
        self.meld_table[p, self._pong_row(p, t, MeldKind.ADDED_KONG), 0] = MeldKind.PONG
        self._tiles[_MELD_ROW + p, t] -= 1
        self.discards[p, self.num_discards[p]] = t
        self.num_discards[p] += 1
        if self._plays_on:
            self._hooks.win(self, winners, deal_in=p, tile=t, reason=EndReason.ROBBED_KONG)
            return
        self._finish(winners, deal_in=p, tile=t, reason=EndReason.ROBBED_KONG)

    def _added_kong_stands(self, p: int) -> None:
        """Nobody robbed ``p``'s added kong: it is paid (where kongs pay) and ``p`` draws its replacement."""
        if self._pays_kongs:
            self._hooks.pay_kong(self, p, "added")
        self._draw(p, replacement=True)

    def _draw(self, p: int, replacement: bool) -> None:
        if self._tail - self._head <= self.rules.draw_at:
            self._finish([], deal_in=-1, tile=-1, reason=EndReason.EXHAUSTIVE_DRAW)
            return
        if replacement:
            self._tail -= 1
            t = int(self.wall[self._tail])
        else:
            t = int(self.wall[self._head])
            self._head += 1
        if t >= SET_ASIDE_BASE:  # a room's own tile: set aside, replaced from the end
            self.set_aside[p, t - SET_ASIDE_BASE] = 1
            self._draw(p, replacement=True)
            return
        self._tiles[p, t] += 1
        self.last_drawn = t
        self._after_kong = replacement
        self.last_discard = -1
        self.last_discarder = -1
        self.current_player = p
        self.phase = Phase.DISCARD
        self._claimed_turn = False
        self._set_turn_masks(p)

    def _replacement_tile(self, p: int) -> int:
        """Take tiles from the wall's end until one is not a room's own tile (those go to ``p``'s
        ``set_aside``); used for them in the deal, where the wall always has enough tiles."""
        while True:
            self._tail -= 1
            t = int(self.wall[self._tail])
            if t < SET_ASIDE_BASE:
                return t
            self.set_aside[p, t - SET_ASIDE_BASE] = 1

    def _set_turn_masks(self, p: int) -> None:
        lay = self.layout
        masks = self._pass_only.copy()
        row = masks[p]
        row[lay.pass_] = 0
        h = self._tiles[p]
        row[lay.discards] = h > 0
        if not self._claimed_turn:
            if self._tail - self._head > self.rules.draw_at:
                row[lay.kongs] = h == 4
                if self.melds_declared[p]:
                    for kind, t, _, _ in self.meld_table[p].tolist():  # -1 rows never match
                        if kind == _PONG and h[t] > 0:  # an added kong
                            row[lay.kong(t)] = 1
            if is_winning_bytes(h.tobytes(), self._seven):
                row[lay.win] = 1
        if self._restricts:
            self._hooks.restrict_turn(self, p, row)
        self._masks = masks
        self._acting = 1 << p

    def _finish(self, winners: list[int], deal_in: int, tile: int, reason: EndReason) -> None:
        self.phase = Phase.END
        self.end_code = reason
        self.won[winners] = True
        self.deal_in = deal_in
        self.winning_tile = tile
        self.last_discard = -1
        self.last_discarder = -1
        self._masks = self._pass_only
        self._acting = 0
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
        if self._settles:  # the room scores the hand (its own table, or payments made during the hand)
            scores = self._hooks.settle(self, winners, deal_in, reason, scores)
        self.scores = scores

    def __repr__(self) -> str:
        return (
            f"Game(rules={self.rules.name!r}, seed={self.seed}, phase={self.phase.name}, "
            f"current_player={self.current_player}, wall_remaining={self.wall_remaining})"
        )
