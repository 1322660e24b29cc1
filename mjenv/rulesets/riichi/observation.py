"""The Riichi observation of one seat: one spec of named views -> one flat float32 array.

:class:`RiichiObservationSpec` is the one definition: its list of :class:`~mjenv.observation.View` gives
every view's name, shape, offset, bounds and description; the gymnasium space, the documentation table
(:meth:`RiichiObservationSpec.markdown_table`) and :meth:`RiichiObservationSpec.decode` (named, shaped
views into the array) are derived from it, as for the other rule sets (:class:`mjenv.observation.ObservationSpec`).

Conventions (for agents reading it):

* Seat-relative rows everywhere: row 0 = the observing seat, 1 = right (the next to act after it),
  2 = across, 3 = left. ``*_from`` and ``last_discarder`` one-hots use the same order.
* Tile ids are mjenv's (0-8 bamboo 1-9, 9-17 characters, 18-26 dots, 27-33 E S W N white green red);
  views that list tiles store ``id + 1`` with 0 for an empty slot. Red fives are their own flags
  (``hand_red`` in the order bamboo, characters, dots, as the red-five discard actions 34-36).
* ``-1`` in a per-tile feature means "does not apply" (a tile not held, or not the seat's discard turn);
  ``99`` in a deficiency view means incompletable.
* Nothing hidden: every entry is the observing seat's own hand or public (the tests play two deals that
  differ only in tiles the seat has not seen and compare its observations exactly). Ura dora, the wall
  and the other concealed hands are never shown.

The deficiency features are :class:`mjenv.deficiency.seat_features.DeficiencyFeatures` with
``rules="riichi"`` (the least of four melds and a pair, seven distinct pairs and thirteen orphans for a
seat with no meld) under the seat's knowledge base: 4 copies minus what it has seen (its hand, every
meld, every discard, the dora indicators).
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import INCOMPLETABLE
from mjenv.deficiency.features import CLAIM_KINDS, NOT_APPLICABLE
from mjenv.deficiency.seat_features import DeficiencyFeatures
from mjenv.observation import View, ViewLayout
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.furiten import wait_types
from mjenv.rulesets.riichi.game import PHASES
from mjenv.rulesets.riichi.scoring import WinContext, discards_tenpai_yaku
from mjenv.rulesets.riichi.tiles136 import TYPE34, is_red

__all__ = ["DERIVED", "MAX_DISCARDS", "MELD_KINDS", "OBS_PHASES", "RiichiObservationSpec", "decode"]

T = 34
#: Discard slots per seat (no real hand reaches it; later discards are left out).
MAX_DISCARDS = 32
#: Meld slots per seat and the meld kinds of ``meld_kind``.
MAX_MELDS = 4
MELD_KINDS = ("chi", "pon", "minkan", "ankan", "kakan")
#: The phases of ``phase`` (``over``: the hand or the game has ended).
OBS_PHASES = ("act", "after_call", "riichi_discard", "claim", "chankan", "over")
_PHASE_INDEX = {p: min(i, len(OBS_PHASES) - 1) for i, p in enumerate(PHASES)}
_DISCARD_PHASES = ("act", "after_call", "riichi_discard")
_DEFI = float(INCOMPLETABLE)


def _views() -> list[View]:
    """THE definition of the Riichi observation (a new view is one more line here)."""
    d, m = MAX_DISCARDS, MAX_MELDS

    def v(name, shape, low, high, text, source="game", how="game"):
        return View(name, shape, low, high, text, source, how)

    return [
        # own hand
        v("hand", (T,), 0, 4, "own concealed tile counts (the drawn tile included)", "hands", "own"),
        v("hand_red", (3,), 0, 1, "own red fives held, bamboo / characters / dots (they count in `hand` too)"),
        v("drawn", (T,), 0, 1, "one-hot of the tile the seat just drew (on its turn after a draw, riichi declared "
          "or not; else all 0)"),
        v("drawn_red", (1,), 0, 1, "1 when that drawn tile is a red five"),
        # every seat's melds, seat-relative
        v("meld_counts", (4, T), 0, 4, "tiles in each seat's melds (closed kans included)"),
        v("meld_kind", (4, m, len(MELD_KINDS)), 0, 1, "each meld slot's kind, one-hot chi / pon / open kan / "
          "closed kan / added kan (in call order; all 0 for an empty slot)"),
        v("meld_tile", (4, m), 0, T, "the meld's lowest tile id + 1 (0 = empty slot)"),
        v("meld_called", (4, m), 0, T, "the called tile id + 1 (0 for a closed kan or an empty slot)"),
        v("meld_from", (4, m, 4), 0, 1, "one-hot seat (relative to the observer) the called tile came from; "
          "all 0 for a closed kan"),
        v("meld_red", (4, m), 0, 1, "1 when the meld holds a red five"),
        # every seat's discards, seat-relative, in its own order
        v("discards", (4, d), 0, T, "each seat's discards in order, tile id + 1 (0 = none)"),
        v("discard_red", (4, d), 0, 1, "1 where that discard is a red five"),
        v("discard_tsumogiri", (4, d), 0, 1, "1 where it was the tile just drawn (tsumogiri)"),
        v("discard_riichi", (4, d), 0, 1, "1 on the discard that declared riichi"),
        v("discard_called", (4, d), 0, 1, "1 where another seat called the discard away (it is in a meld)"),
        v("discard_order", (4, d), 0, 4 * d, "the discard's place in the hand's global order, 1-based (0 = none): "
          "sort by it to interleave the four rows"),
        # the claim on offer
        v("last_discard", (T,), 0, 1, "one-hot of the tile on offer: the discard in a claim window, the kan "
          "tile in a kan-robbing window (all 0 otherwise)"),
        v("last_discard_red", (1,), 0, 1, "1 when that tile is a red five"),
        v("last_discarder", (4,), 0, 1, "one-hot seat that offered it"),
        # table state
        v("dora_indicators", (5,), 0, T, "dora indicators shown, in reveal order, tile id + 1 (0 = not shown)"),
        v("dora_indicator_red", (5,), 0, 1, "1 where that indicator is a red five"),
        v("dora", (T,), 0, 5, "dora count of each tile type from the indicators (red fives add one each, "
          "not shown here)"),
        v("scores", (4,), -500, 500, "each seat's score in thousands of points"),
        v("dealer", (4,), 0, 1, "one-hot seat of the dealer"),
        v("seat_wind", (4,), 0, 1, "own seat wind, one-hot E S W N"),
        v("round_wind", (4,), 0, 1, "round wind, one-hot E S W N"),
        v("round", (1,), 0, 11, "round index: 0 = East 1 .. 3 = East 4, 4 = South 1, .., 8 = West 1"),
        v("honba", (1,), 0, 99, "honba count (counters)"),
        v("riichi_sticks", (1,), 0, 99, "riichi sticks on the table"),
        v("riichi", (4,), 0, 1, "1 for a seat in riichi (its deposit accepted)"),
        v("double_riichi", (4,), 0, 1, "1 for a seat in double riichi"),
        v("ippatsu", (4,), 0, 1, "1 while a seat's ippatsu chance is alive"),
        v("furiten", (1,), 0, 1, "own furiten (permanent, same-turn or riichi): no ron now"),
        v("wall_count", (1,), 0, 70, "live tiles left to draw"),
        v("phase", (len(OBS_PHASES),), 0, 1, "one-hot phase: act (own draw), after_call (discard after a call), "
          "riichi_discard, claim, chankan (rob a kan), over"),
        v("knowledge_base", (T,), 0, 4, "copies of each tile the seat has not seen (4 minus its hand, every "
          "meld, every discard and the dora indicators)"),
        # deficiency features (rules="riichi", under knowledge_base)
        v("deficiency", (1,), 0, _DEFI, f"knowledge-aware deficiency of the own hand, the least over four melds "
          f"and a pair, seven pairs, thirteen orphans ({INCOMPLETABLE} = incompletable)", "deficiency", "feature"),
        v("deficiency_after_discard", (T,), NOT_APPLICABLE, _DEFI, "deficiency after discarding t; -1 where t is "
          "not held or it is not the seat's discard turn", "deficiency_after_discard", "feature"),
        v("effective_tiles", (T,), 0, 1, "1 where drawing t (knowledge_base > 0) lowers the deficiency",
          "effective_tiles", "feature"),
        v("effective_count", (1,), 0, 4 * T, "unseen copies of the effective tiles", "effective_count", "feature"),
        v("deficiency_after_claim", (len(CLAIM_KINDS),), NOT_APPLICABLE, _DEFI, "after chi low / mid / high, pon, "
          "open kan of last_discard; -1 without the tiles, outside a claim window, or a chi not from the left "
          "seat", "deficiency_after_claim", "feature"),
        v("effective_count_after_discard", (T,), NOT_APPLICABLE, 4 * T, "unseen copies of the effective tiles of "
          "the hand minus t; -1 as deficiency_after_discard", "effective_count_after_discard", "feature"),
        v("deficiency_after_kan", (T,), NOT_APPLICABLE, _DEFI, "after a closed kan of t (4 held) or an added kan "
          "(the hand minus t); -1 as deficiency_after_discard", "deficiency_after_kong", "feature"),
        # Riichi's own per-discard facts
        v("tenpai_after_discard", (T,), NOT_APPLICABLE, 1, "1 where discarding t leaves a tenpai hand (a wait "
          "not all in the seat's own tiles), 0 where not; -1 as deficiency_after_discard"),
        v("yaku_after_discard", (T,), NOT_APPLICABLE, 1, "1 where discarding t leaves a tenpai with a yaku "
          "on some wait by ron without riichi (so a win needs no riichi), 0 where not; -1 as "
          "deficiency_after_discard"),
    ]


#: the views ``observation="raw"`` leaves out: the ones derived per tile from the own hand (the deficiency features
#: and the per-discard tenpai and yaku facts)
DERIVED = ("deficiency", "deficiency_after_discard", "effective_tiles", "effective_count", "deficiency_after_claim",
           "effective_count_after_discard", "deficiency_after_kan", "tenpai_after_discard", "yaku_after_discard")


class RiichiObservationSpec(ViewLayout):
    """The ordered named views of a Riichi seat's observation (:func:`_views`), and their writer.

    Laid out as every spec (:class:`~mjenv.observation.ViewLayout`): ``views``, ``slices``, ``size``,
    ``low``/``high``, ``space``, :meth:`markdown_table`, :meth:`decode`.

    Args:
        raw: the views without :data:`DERIVED` (``observation="raw"``): the same entries as the full observation's
            other views, in the same order.
    """

    rules_name = "riichi"
    num_tile_types = T
    #: how the views that are not tile rows or scalars become tile planes (:mod:`mjenv.planes`): the tile
    #: ids of the melds and the indicators counted per row, each discard's facts per seat and tile, the
    #: meld slots' kinds, sources and red fives summed per seat
    plane_kinds = {"meld_kind": "slot_sums", "meld_tile": "tile_ids", "meld_called": "tile_ids",
                   "meld_from": "slot_sums", "meld_red": "slot_sums", "discard_red": "per_discard",
                   "discard_tsumogiri": "per_discard", "discard_riichi": "per_discard",
                   "discard_called": "per_discard", "discard_order": "per_discard", "dora_indicators": "tile_ids"}

    def __init__(self, raw: bool = False) -> None:
        self.raw = raw
        self._lay_out([x for x in _views() if not (raw and x.name in DERIVED)])
        self.features = DeficiencyFeatures(T, rules="riichi")
        self._plan()
        if raw:  # the full observation's columns this one keeps
            full = spec()
            self._kept = np.concatenate([np.arange(full.slices[x].start, full.slices[x].stop)
                                         for x in self.views])

    def _mismatch(self, shape: tuple[int, ...]) -> str:
        return f"observation has shape {shape}; the Riichi spec needs ({self.size},) or (B, {self.size})"

    # ------------------------------------------------------------------------------------------
    # The writer
    # ------------------------------------------------------------------------------------------

    def _plan(self) -> None:
        """Where each seat's public entries come from: the public views are written once by absolute seat
        (:func:`_public`, a block P), and every seat's observation gathers them rolled to its own order."""
        pos, gather, self._pub_slices = [], [[], [], [], []], {}
        p = 0
        for name in _PUBLIC:
            x = self.view(name)
            self._pub_slices[name] = (slice(p, p + x.size), x.shape)
            idx = np.arange(x.size).reshape(x.shape)
            for s in range(4):
                rel = (s + np.arange(4)) % 4
                g = idx if name in _SHARED else idx[rel]
                if name == "meld_from":  # the one-hot seat relative too
                    g = g[..., rel]
                gather[s].append(p + g.ravel())
            pos.append(self.slices[name].start + np.arange(x.size))
            p += x.size
        self._pub_size = p
        self._pub_pos = np.concatenate(pos)
        self._pub_gather = np.stack([np.concatenate(g) for g in gather])

    def observe(self, game, order: list[list[int]] | None = None) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """The four seats' observations, action masks and deficiencies of a :class:`RiichiGame`.

        Args:
            game: the game.
            order: each seat's discards' global order (``discard_order(game)``; computed when None).

        Returns:
            ``(obs float32[4, size], masks int8[4, 85], deficiency list of 4 ints)``; row s = seat s.
        """
        if self.raw:  # the full observation without the derived views
            obs, masks, defs = spec().observe(game, order)
            return np.ascontiguousarray(obs[:, self._kept]), masks, defs
        sl = self.slices
        obs = np.zeros((4, self.size), dtype=np.float32)
        if order is None:
            order = discard_order(game)
        over = game.phase in ("hand_over", "game_over")
        block = np.zeros(self._pub_size, dtype=np.float32)
        seen = _public(game, order, {n: block[a].reshape(shape) for n, (a, shape) in self._pub_slices.items()})
        obs[:, self._pub_pos] = block[self._pub_gather]
        hands = np.zeros((4, T), dtype=np.int8)
        for s in range(4):
            ids = game.hands[s]
            hands[s] = np.bincount(_TYPE34[ids], minlength=T)
            red = [t for t in ids if t in _RED_IDS]
            for t in red:
                obs[s, sl["hand_red"].start + TYPE34[t] // 9] = 1
            obs[s, sl["seat_wind"].start + (s - game.dealer) % 4] = 1
            obs[s, sl["furiten"].start] = not over and game.is_furiten(s)
        kbs = (4 - seen[None, :] - hands).astype(np.int8)
        turn = game.turn if game.phase in _DISCARD_PHASES else -1
        claim = -1 if game.phase not in ("claim", "chankan") else TYPE34[game.claim_tile]
        needed = np.array([MAX_MELDS - len(game.melds[s]) for s in range(4)], dtype=np.int64)
        claim_tiles = np.array([claim if s != game.claim_from and claim >= 0 else -1 for s in range(4)],
                               dtype=np.int64)
        chow_ok = np.array([claim >= 0 and game.phase == "claim" and s == (game.claim_from + 1) % 4
                            for s in range(4)], dtype=bool)  # fmt: skip
        discard_turn = np.arange(4) == turn
        feats = self.features.compute(hands, kbs, needed, discard_turn, claim_tiles, chow_ok)
        obs[:, sl["hand"]] = hands
        obs[:, sl["knowledge_base"]] = kbs
        obs[:, sl["phase"].start + _PHASE_INDEX[game.phase]] = 1
        for name, feature in _FEATURE_VIEWS:
            obs[:, sl[name]] = feats[feature].reshape(4, -1)
        obs[:, sl["tenpai_after_discard"]] = NOT_APPLICABLE
        obs[:, sl["yaku_after_discard"]] = NOT_APPLICABLE
        if claim >= 0:
            for s in range(4):
                obs[s, sl["last_discarder"].start + (game.claim_from - s) % 4] = 1
        if discard_turn.any():
            if game.drawn is not None and game.phase in ("act", "riichi_discard"):
                obs[turn, sl["drawn"].start + TYPE34[game.drawn]] = 1
                obs[turn, sl["drawn_red"]] = is_red(game.drawn)
            _discard_facts(game, turn, obs[turn, sl["tenpai_after_discard"]], obs[turn, sl["yaku_after_discard"]])
        masks = np.zeros((4, A.N_ACTIONS), dtype=np.int8)
        for s in range(4):
            if over:
                masks[s, A.PASS] = 1
            else:
                masks[s] = game.legal_actions(s)
        return obs, masks, [int(x) for x in feats["deficiency"]]

    def encode_all(self, game) -> np.ndarray:
        """float32[4, size]: every seat's observation (row s = seat s)."""
        return self.observe(game)[0]


#: the public views (:func:`_public` writes them by absolute seat; each seat sees them rolled to its order)
_PUBLIC = ("meld_counts", "meld_kind", "meld_tile", "meld_called", "meld_from", "meld_red", "discards", "discard_red",
           "discard_tsumogiri", "discard_riichi", "discard_called", "discard_order", "last_discard", "last_discard_red",
           "dora_indicators", "dora_indicator_red", "dora", "scores", "dealer", "round_wind", "round", "honba",
           "riichi_sticks", "riichi", "double_riichi", "ippatsu", "wall_count")  # fmt: skip
#: the deficiency feature each feature view shows (``DeficiencyFeatures.compute``'s names)
_FEATURE_VIEWS = (("deficiency", "deficiency"), ("deficiency_after_discard", "deficiency_after_discard"),
                  ("effective_tiles", "effective_tiles"), ("effective_count", "effective_count"),
                  ("deficiency_after_claim", "deficiency_after_claim"),
                  ("effective_count_after_discard", "effective_count_after_discard"),
                  ("deficiency_after_kan", "deficiency_after_kong"))  # fmt: skip
_TYPE34 = np.array(TYPE34, dtype=np.int64)
_IS_RED = np.array([is_red(t) for t in range(136)], dtype=np.float32)
_RED_IDS = frozenset(t for t in range(136) if is_red(t))
#: public views that are the same for every seat (not rolled to the observer)
_SHARED = frozenset({"last_discard", "last_discard_red", "dora_indicators", "dora_indicator_red", "dora",
                     "round_wind", "round", "honba", "riichi_sticks", "wall_count"})  # fmt: skip


def hand_start(events: list[dict]) -> int:
    """Index of the last ``start_hand`` event (where the hand in play begins)."""
    for i in range(len(events) - 1, -1, -1):
        if events[i]["type"] == "start_hand":
            return i
    raise ValueError("no hand has started")


def discard_order(game) -> list[list[int]]:
    """Each seat's discards' places in the hand's global discard order (0-based), read from the events."""
    start = hand_start(game.events)
    out: list[list[int]] = [[], [], [], []]
    k = 0
    for e in game.events[start:]:
        if e["type"] == "discard":
            out[e["seat"]].append(k)
            k += 1
    return out


def _public(game, order, out: dict[str, np.ndarray]) -> np.ndarray:
    """Write the public views by absolute seat (rows 0..3 = seats 0..3) into ``out`` (zeroed views of
    :data:`_PUBLIC`); returns int[34] the public tile counts (melds, discards not called, indicators)."""
    d, m = MAX_DISCARDS, MAX_MELDS
    seen: list[int] = []  # tile types shown
    for s in range(4):
        counts = out["meld_counts"][s]
        for j, meld in enumerate(game.melds[s][:m]):
            types = [TYPE34[t] for t in meld.tiles]
            for t in types:
                counts[t] += 1
            seen += types
            out["meld_kind"][s, j, MELD_KINDS.index(meld.kind)] = 1
            out["meld_tile"][s, j] = min(types) + 1
            if meld.called is not None and meld.kind != "ankan":
                out["meld_called"][s, j] = TYPE34[meld.called] + 1
            if meld.from_seat is not None:
                out["meld_from"][s, j, meld.from_seat] = 1  # absolute here; the plan rolls it per observer
            out["meld_red"][s, j] = any(t in _RED_IDS for t in meld.tiles)
        tiles = game.discards[s]
        if tiles:
            ids = np.array(tiles)
            flags = np.array(game.discard_flags[s])
            n = min(len(tiles), d)
            types = _TYPE34[ids]
            out["discards"][s, :n] = types[:n] + 1
            out["discard_red"][s, :n] = _IS_RED[ids[:n]]
            out["discard_tsumogiri"][s, :n] = flags[:n] & 1
            out["discard_riichi"][s, :n] = (flags[:n] >> 1) & 1
            out["discard_called"][s, :n] = (flags[:n] >> 2) & 1
            out["discard_order"][s, :n] = np.array(order[s][:n]) + 1
            seen += types[(flags & 4) == 0].tolist()  # a called discard is counted in the caller's meld
        out["scores"][s] = game.scores[s] / 1000
        out["riichi"][s] = game.riichi[s] > 0
        out["double_riichi"][s] = game.riichi[s] == 2
        out["ippatsu"][s] = game.ippatsu[s]
    if game.phase in ("claim", "chankan"):
        out["last_discard"][TYPE34[game.claim_tile]] = 1
        out["last_discard_red"][0] = is_red(game.claim_tile)
    for j, t in enumerate(game.dora_indicators[:5]):
        out["dora_indicators"][j] = TYPE34[t] + 1
        out["dora_indicator_red"][j] = is_red(t)
        out["dora"][_DORA_OF[TYPE34[t]]] += 1
        seen.append(TYPE34[t])
    out["dealer"][game.dealer] = 1
    out["round_wind"][min(game.round_index // 4, 3)] = 1
    out["round"][0] = game.round_index
    out["honba"][0] = game.honba
    out["riichi_sticks"][0] = game.sticks
    out["wall_count"][0] = game.live_remaining
    return np.bincount(seen, minlength=T)


def _dora_table() -> tuple[int, ...]:
    from mjenv.rulesets.riichi.tiles136 import dora_of_indicator

    return tuple(dora_of_indicator(t) for t in range(T))


_DORA_OF = _dora_table()


def _discard_facts(game, seat: int, tenpai_out: np.ndarray, yaku_out: np.ndarray) -> None:
    """Write ``tenpai_after_discard`` and ``yaku_after_discard`` of the seat on its discard turn."""
    hand = game.hands[seat]
    if len(hand) % 3 != 2:
        return
    melded = [t for mm in game.melds[seat] for t in mm.tiles]
    first: dict[int, int] = {}  # each held type -> where its first copy is
    for i, t in enumerate(hand):
        first.setdefault(TYPE34[t], i)
    ctx = WinContext(is_tsumo=False, seat_wind=(seat - game.dealer) % 4, round_wind=min(game.round_index // 4, 3))
    yaku = discards_tenpai_yaku(hand, [mm.to_scoring() for mm in game.melds[seat]], ctx)
    for t34, i in first.items():
        tenpai = bool(wait_types(hand[:i] + hand[i + 1:], melded))
        tenpai_out[t34] = tenpai
        yaku_out[t34] = tenpai and yaku[t34]


_SPECS: dict[bool, RiichiObservationSpec] = {}


def spec(raw: bool = False) -> RiichiObservationSpec:
    """The one Riichi observation spec (built on first use); ``raw``: its views without :data:`DERIVED`."""
    if raw not in _SPECS:
        _SPECS[raw] = RiichiObservationSpec(raw)
    return _SPECS[raw]


def decode(observation) -> dict[str, np.ndarray]:
    """Named views of a Riichi observation (see :meth:`RiichiObservationSpec.decode`)."""
    return spec().decode(observation)
