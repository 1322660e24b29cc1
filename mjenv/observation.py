"""The observation of one seat: one spec of named views -> one flat float32 array, one writer.

Everything about the observation is derived from :meth:`ObservationSpec` 's list of views (one place
per fact): the offsets of each view in the flat array, the gymnasium ``Box`` space with per-entry
bounds, the markdown table in the env's documentation (:meth:`ObservationSpec.markdown_table`),
:meth:`ObservationSpec.decode`, which returns named, shaped views into the array (OpenSpiel style),
and what each view shows: a :class:`View` names its ``source`` (a field of the state record, a
deficiency feature, or a function of the game) and ``how`` it is laid out for each seat.

Seat-relative order everywhere: index 0 = the observing seat (self), 1 = right (the next seat to act
after it), 2 = across, 3 = left.

The one writer (game state -> state record -> plan -> observations):

1. :meth:`ObservationSpec.state` reads a game once into an int16 state record: hands, meld counts,
   the knowledge bases (from :mod:`mjenv.knowledge`, their one definition), discards, the scalars,
   and the inputs of the deficiency features (melds needed, whose discard turn, which discard each
   seat may claim, who may chow).
2. The spec compiles its views into a plan (:class:`WriterPlan`): a gather index (every entry of the
   four seats' observations is one entry of the state record: own rows, seat-relative rows, shared
   values), the one-hot views, where the features' inputs lie and where their outputs go.
3. The plan is executed for N states at once, by the compiled kernel (:mod:`mjenv.deficiency.kernel`,
   one C call; it knows no view by name) or by numpy (a gather, one batched feature call of
   :class:`mjenv.deficiency.seat_features.DeficiencyFeatures`, the one-hots); both give the same
   arrays (tests compare them). Views computed from the game itself (``how="game"``, the oracle
   wall) are written last, by numpy, on both paths.

Adding a view is one edit here (a :class:`View` naming its source and layout) when it shows a field
the state record has; a new fact is one more field in :data:`STATE_FIELDS` and one line in
:meth:`ObservationSpec.state`; a new kind of computed feature is one edit in each feature backend.

INCOMPLETABLE (``mjenv.deficiency.INCOMPLETABLE`` = 99) appears as is in the deficiency views.

A rule set's own public facts come from its room (:class:`mjenv.rulesets.protocol.ObservationViews`):
state-record fields before the record's last entry, and the views that show them after the shared ones.

The rule set's complete hands: the plan carries the seven-pairs form the features also
count (:func:`seven_pairs_form`: a seat with no declared meld shows min(melds-and-pair, seven pairs))
and, where a room names one, the state field of each seat's excluded suit (one-hots; the features
leave that suit out). Both writers apply them inside the feature evaluation; nothing is rewritten after.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from mjenv import rulesets
from mjenv.deficiency import INCOMPLETABLE
from mjenv.deficiency import kernel as _kernel
from mjenv.deficiency.features import CLAIM_KINDS, NOT_APPLICABLE
from mjenv.deficiency.seat_features import FEATURE_INPUTS, FEATURE_NAMES, DeficiencyFeatures
from mjenv.deficiency.seven_pairs import check_seven_pairs
from mjenv.game import Phase
from mjenv.game.actions import ActionLayout
from mjenv.knowledge import knowledge_bases_many, unseen
from mjenv.rules import Rules, get_rules

__all__ = [
    "HOWS",
    "STATE_FIELDS",
    "ObservationSpec",
    "View",
    "ViewLayout",
    "WriterPlan",
    "decode",
    "relative_order",
]

#: How a view lays out its source for seat s (T tile types):
#: ``own``: the source's row s (a per-seat field); ``relative``: rows s, s+1, s+2, s+3 (mod 4) of a
#: per-seat field; ``shared``: the same field for every seat; ``onehot``: 1 at the field's value (none
#: when it is -1); ``onehot_relative``: 1 at (value - s) mod 4; ``feature``: the seat's deficiency
#: feature of that name; ``game``: a function of the game (numpy only, written last).
HOWS = ("own", "relative", "shared", "onehot", "onehot_relative", "feature", "game")

#: The state record's fields, in order: (name, shape, add), shapes with T tile types and D discards
#: per seat; per-seat fields have a leading 4 (absolute seats). The first four are the game's (and
#: :mod:`mjenv.knowledge`'s) arrays, copied with ``add`` added; the rest are ints
#: (:meth:`ObservationSpec.sources`). ``zero`` is the 0 of the entries no field fills.
STATE_FIELDS = (
    ("hands", ("4", "T"), 0),
    ("meld_counts", ("4", "T"), 0),
    ("knowledge_base", ("4", "T"), 0),
    ("discards", ("4", "D"), 1),  # tile id + 1, 0 = none
    ("num_melds", ("4",), 0),
    ("melds_needed", ("4",), 0),
    ("discard_turn", ("4",), 0),  # 1 for the seat that must discard now
    ("claim_tile", ("4",), 0),  # the discard each seat may claim now, -1 for none
    ("chow_ok", ("4",), 0),  # 1 for the seat that may chow it
    ("last_discard", (), 0),  # -1 for none
    ("last_discarder", (), 0),  # -1 when there is no discard awaiting claims
    ("wall_count", (), 0),
    ("dealer", (), 0),
    ("phase", (), 0),
    # a rule set's own fields go here (its room's ObservationViews.state_fields)
    ("zero", (), 0),
)
#: How many of :data:`STATE_FIELDS` come from arrays (the rest are ints).
NUM_ARRAY_FIELDS = 4
#: ``claim_tile`` of the four seats when nobody may claim.
_NO_CLAIM = (-1, -1, -1, -1)
_DISCARD, _CLAIM = int(Phase.DISCARD), int(Phase.CLAIM)


def relative_order(seat: int) -> np.ndarray:
    """Absolute seats in the seat-relative order of ``seat``: (self, right, across, left).

    Returns:
        int64[4] with ``order[i] = (seat + i) % 4``.
    """
    return (seat + np.arange(4)) % 4


# ----------------------------------------------------------------------------------------------
# The spec
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """One named view of the observation.

    Attributes:
        name: the key :meth:`ObservationSpec.decode` returns it under.
        shape: its shape inside the flat array (row-major).
        low, high: bounds of every entry (the ``Box`` space's).
        description: one line for the documentation table.
        source: the state field (:data:`STATE_FIELDS`), feature name
            (:data:`mjenv.deficiency.seat_features.FEATURE_NAMES`) or game function it shows.
        how: its layout for each seat, one of :data:`HOWS`.
    """

    name: str
    shape: tuple[int, ...]
    low: float
    high: float
    description: str
    source: str
    how: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))


@dataclass(frozen=True)
class WriterPlan:
    """A spec's views compiled for the writers (see the module docstring).

    Attributes:
        num_tile_types: T.
        state_size: L, the length of the state record.
        fields: int32[F, 3] rows (offset, length, add) of the array sources in the state record.
        scalar_start: where the int sources start in the state record.
        copies: int32[R, 4] rows (seat, offset, state offset, length): runs of the state record each
            seat's observation shows as they are.
        gather: int32[4, size]: the same as one index per entry (``zero`` for the entries no copy fills).
        onehots: int32[K, 4] rows (offset, state index, seat-relative 0/1, view length).
        feature_inputs: int32[6]: state offsets of the features' inputs (``FEATURE_INPUTS`` order).
        feature_outputs: int32[7]: observation offsets of the features (``FEATURE_NAMES`` order), -1
            for a feature no view shows.
        seven_pairs: the seven-pairs form the features also count (0 none, 1 distinct pairs, 2 a four
            of a kind as two pairs: :func:`seven_pairs_form`).
        melds: melds of a complete hand (seven pairs needs none declared).
        excluded_suit: state offset of the seats' excluded-suit one-hots (int[4, 3], a room's field; the
            features leave that suit out: ``DeficiencyFeatures.compute``'s suit argument), -1 for none.
    """

    num_tile_types: int
    state_size: int
    fields: np.ndarray
    scalar_start: int
    copies: np.ndarray
    gather: np.ndarray
    onehots: np.ndarray
    feature_inputs: np.ndarray
    feature_outputs: np.ndarray
    seven_pairs: int = 0
    melds: int = 4
    excluded_suit: int = -1


class ViewLayout:
    """A list of named :class:`View` s laid out in one flat float32 array: offsets, bounds, the gymnasium
    space, the documentation table and :meth:`decode`. Every observation spec is one (the shared
    :class:`ObservationSpec`, and a room's own).

    Attributes:
        views: ``dict[str, tuple[int, ...]]`` ordered name -> shape.
        slices: name -> slice of the flat array.
        size: length of the flat array.
    """

    def _lay_out(self, views: list[View]) -> None:
        self._views = views
        self.views: dict[str, tuple[int, ...]] = {x.name: x.shape for x in views}
        self.slices: dict[str, slice] = {}
        pos = 0
        for x in views:
            self.slices[x.name] = slice(pos, pos + x.size)
            pos += x.size
        self.size = pos

    def _mismatch(self, shape: tuple[int, ...]) -> str:
        return f"observation has shape {shape}; this spec needs ({self.size},) or (B, {self.size})"

    def view(self, name: str) -> View:
        """The :class:`View` called ``name``."""
        for x in self._views:
            if x.name == name:
                return x
        raise ValueError(f"no view {name!r}; views: {', '.join(self.views)}")

    @cached_property
    def low(self) -> np.ndarray:
        """float32[size] lower bound of each entry."""
        return np.concatenate([np.full(x.size, x.low, np.float32) for x in self._views])

    @cached_property
    def high(self) -> np.ndarray:
        """float32[size] upper bound of each entry."""
        return np.concatenate([np.full(x.size, x.high, np.float32) for x in self._views])

    @cached_property
    def space(self):
        """``gymnasium.spaces.Box(low, high, (size,), float32)``; gymnasium is imported lazily."""
        from gymnasium import spaces

        return spaces.Box(self.low, self.high, (self.size,), np.float32)

    def markdown_table(self) -> str:
        """The documentation table of the views (name, shape, offset, range, content)."""
        rows = ["| view | shape | offset | range | content |", "|---|---|---|---|---|"]
        for x in self._views:
            sl = self.slices[x.name]
            rows.append(
                f"| `{x.name}` | {x.shape} | {sl.start} | {x.low:g}..{x.high:g} | {x.description} |"
            )
        rows.append(f"| total | ({self.size},) | | | float32 |")
        return "\n".join(rows)

    def decode(self, observation) -> dict[str, np.ndarray]:
        """Named views of an observation.

        Args:
            observation: float32[size], or the env's dict ``{"observation": ..., "action_mask": ...}``,
                or a batch float32[B, size].

        Returns:
            ``dict[name, np.ndarray]``: views (no copy) of shape ``views[name]`` (or ``(B, *shape)``).

        Raises:
            ValueError: the array's last dimension is not ``size`` (another rule set or spec).
        """
        if isinstance(observation, dict):
            if "observation" not in observation:
                raise ValueError("a dict observation must have the key 'observation'")
            observation = observation["observation"]
        arr = np.asarray(observation)
        if arr.ndim not in (1, 2) or arr.shape[-1] != self.size:
            raise ValueError(self._mismatch(arr.shape))
        lead = arr.shape[:-1]
        return {x.name: arr[..., self.slices[x.name]].reshape(*lead, *x.shape) for x in self._views}


class ObservationSpec(ViewLayout):
    """The ordered named views of a seat's observation for one rule set, and their one writer.

    Args:
        rules: a preset name, a :class:`mjenv.rules.Rules` or a dict (see ``get_rules``).
        oracle: append the hidden views ``oracle_hands`` and ``oracle_wall`` (for oracle-guided
            training; never use them as a playing agent's input).

    Attributes:
        views: ``dict[str, tuple[int, ...]]`` ordered name -> shape.
        size: length of the flat array.
        space: ``gymnasium.spaces.Box`` of float32[size] with each view's bounds.
        plan: the :class:`WriterPlan` both writers execute.
    """

    def __init__(self, rules: str | Rules | dict | None = "basic", oracle: bool = False):
        if not isinstance(oracle, bool):
            raise ValueError(f"oracle must be True or False, got {oracle!r}")
        self.rules = get_rules(rules)
        rulesets.check_shared(self.rules, "ObservationSpec")
        self.oracle = oracle
        self.num_tile_types = self.rules.num_tile_types
        self.max_discards = self.rules.max_discards
        self._allow_chow = self.rules.allow_chow
        self._room_views = rulesets.observation_views(self.rules)
        excluded = [room.excluded_suit(self.rules) for room in self._room_views]
        self._excluded_suit = next((name for name in excluded if name), None)
        self._lay_out(self._view_list())
        self._fields, self.state_size = self._state_layout()
        self.plan = self._compile()
        self._kb_scratch = np.empty((4, self.num_tile_types), dtype=np.int8)
        self._rows_of, self._rows = None, ()  # see _game_rows

    def _view_list(self) -> list[View]:
        """The views in order: THE definition of the observation (a new view is one more line here)."""
        r, t = self.rules, self.num_tile_types
        defi = float(INCOMPLETABLE)
        # the shared phases, and a rule set's own after END (only where its layout has their actions)
        own_phase = ActionLayout.for_rules(r).declares.stop > ActionLayout.for_rules(r).declares.start
        phases = [p.name.lower().replace("_", " ") for p in Phase if p <= Phase.END or own_phase]
        v = [
            View("hand", (t,), 0, 4, "own concealed tile counts (the drawn tile included)", "hands", "own"),
            View("melds", (4, t), 0, 4, "tiles in each seat's declared melds", "meld_counts", "relative"),
            View("num_melds", (4,), 0, r.melds, "declared melds per seat (concealed kongs included)", "num_melds",
                 "relative"),
            View("discards", (4, r.max_discards), 0, t, "ordered discards per seat, tile id + 1 (0 = none)",
                 "discards", "relative"),
            View("last_discard", (t,), 0, 1, "one-hot of the discard awaiting claims (all 0 when none)",
                 "last_discard", "onehot"),
            View("last_discarder", (4,), 0, 1, "one-hot seat of that discard", "last_discarder", "onehot_relative"),
            View("knowledge_base", (t,), 0, 4, "copies of each tile the seat has not seen", "knowledge_base", "own"),
            View("wall_count", (1,), 0, r.num_tiles, "tiles left in the wall", "wall_count", "shared"),
            View("dealer", (4,), 0, 1, "one-hot seat of the dealer", "dealer", "onehot_relative"),
            View("phase", (len(phases),), 0, 1, "one-hot of the game phase: " + ", ".join(phases), "phase", "onehot"),
            View("deficiency", (1,), 0, defi, f"knowledge-aware deficiency of the own hand ({INCOMPLETABLE} = "
                 "incompletable)", "deficiency", "feature"),
            View("deficiency_after_discard", (t,), NOT_APPLICABLE, defi,
                 "deficiency after discarding t; -1 where t is not held or it is not the seat's discard turn",
                 "deficiency_after_discard", "feature"),
            View("effective_tiles", (t,), 0, 1, "1 where drawing t (KB > 0) lowers the deficiency",
                 "effective_tiles", "feature"),
            View("effective_count", (1,), 0, 4 * t, "KB copies of the effective tiles", "effective_count", "feature"),
            View("deficiency_after_claim", (len(CLAIM_KINDS),), NOT_APPLICABLE, defi,
                 "after chow low/mid/high, pong, kong of last_discard by this seat; -1 without the tiles, "
                 "outside a claim window, or a chow not from the left seat", "deficiency_after_claim", "feature"),
            View("effective_count_after_discard", (t,), NOT_APPLICABLE, 4 * t,
                 "KB copies of the effective tiles of the hand minus t; -1 where t is not held or it is not the "
                 "seat's discard turn", "effective_count_after_discard", "feature"),
            View("deficiency_after_kong", (t,), NOT_APPLICABLE, defi,
                 "after a kong of t: concealed (4 held) or added (the hand minus t); -1 where t is not held or it "
                 "is not the seat's discard turn", "deficiency_after_kong", "feature"),
        ]
        for room in self._room_views:  # the rule set's own public facts
            v += room.views(r)
        if self.oracle:
            v += [
                View("oracle_hands", (4, t), 0, 4, "HIDDEN: every seat's concealed tiles (seat-relative)", "hands",
                     "relative"),
                View("oracle_wall", (r.dead_wall_start,), 0, t,
                     "HIDDEN: the undrawn wall, tile id + 1, zero padded; front draws come from its start, "
                     "kong replacement draws from its last entry backwards", "oracle_wall", "game"),
            ]
        return v

    def _mismatch(self, shape: tuple[int, ...]) -> str:
        return (f"observation has shape {shape}; this spec (rules={self.rules.name!r}, oracle={self.oracle}) "
                f"needs ({self.size},) or (B, {self.size}); decode with the rules and oracle flag it was made with")

    # ------------------------------------------------------------------------------------------
    # The writer
    # ------------------------------------------------------------------------------------------

    def _state_layout(self) -> tuple[dict[str, tuple[int, tuple[int, ...], int]], int]:
        """Each state field's (start, shape, add) in the state record, and the record's length."""
        dims = {"4": 4, "T": self.num_tile_types, "D": self.max_discards}
        own = [f for room in self._room_views for f in room.state_fields(self.rules)]
        fields, pos = {}, 0
        for name, shape, add in STATE_FIELDS[:-1]:
            shape = tuple(dims[d] for d in shape)
            fields[name] = (pos, shape, add)
            pos += int(np.prod(shape))
        for name, shape, add in [*own, STATE_FIELDS[-1]]:  # the rule set's fields, then the last entry
            fields[name] = (pos, tuple(shape), add)
            pos += int(np.prod(shape))
        return fields, pos

    def _compile(self) -> WriterPlan:
        """The views as a :class:`WriterPlan` (the only place that turns a view's layout into indices)."""
        fields = self._fields
        copies, onehots = [], []
        outputs = np.full(len(FEATURE_NAMES), -1, dtype=np.int32)
        self._game_views = []
        for v in self._views:
            sl = self.slices[v.name]
            if v.how not in HOWS:
                raise ValueError(f"view {v.name!r}: how must be one of {HOWS}, got {v.how!r}")
            if v.how == "feature":
                outputs[FEATURE_NAMES.index(v.source)] = sl.start
                continue
            if v.how == "game":
                self._game_views.append(v)
                continue
            start, shape, _ = fields[v.source]
            if v.how in ("onehot", "onehot_relative"):
                onehots.append((sl.start, start, int(v.how == "onehot_relative"), v.size))
                continue
            if v.size > int(np.prod(shape)):
                raise ValueError(f"view {v.name!r} is larger than its source {v.source!r} {shape}")
            for s in range(4):
                if v.how == "own":  # row s of a per-seat field
                    copies.append((s, sl.start, start + s * v.size, v.size))
                elif v.how == "relative":  # rows s, s+1, s+2, s+3 of a per-seat field
                    k = v.size // 4
                    copies += [(s, sl.start + i * k, start + ((s + i) % 4) * k, k) for i in range(4)]
                else:  # shared
                    copies.append((s, sl.start, start, v.size))
        gather = np.full((4, self.size), fields["zero"][0], dtype=np.int32)
        for s, off, src, n in copies:
            gather[s, off : off + n] = np.arange(src, src + n)
        inputs = {"hands": "hands", "knowledge_bases": "knowledge_base"}
        array_fields = [fields[name] for name, _, _ in STATE_FIELDS[:NUM_ARRAY_FIELDS]]
        return WriterPlan(
            num_tile_types=self.num_tile_types,
            state_size=self.state_size,
            fields=np.array([(a, int(np.prod(shape)), add) for a, shape, add in array_fields], dtype=np.int32),
            scalar_start=fields[STATE_FIELDS[NUM_ARRAY_FIELDS][0]][0],
            copies=np.array(copies, dtype=np.int32).reshape(-1, 4),
            gather=gather,
            onehots=np.array(onehots, dtype=np.int32).reshape(-1, 4),
            feature_inputs=np.array([fields[inputs.get(n, n)][0] for n in FEATURE_INPUTS], dtype=np.int32),
            feature_outputs=outputs,
            seven_pairs=check_seven_pairs(seven_pairs_form(self.rules)),
            melds=self.rules.melds,
            excluded_suit=fields[self._excluded_suit][0] if self._excluded_suit else -1,
        )

    def sources(self, game, knowledge_bases: np.ndarray | None = None) -> tuple:
        """What the writers read from a game (the one place that reads it): the array fields of
        :data:`STATE_FIELDS` (the game's arrays and the knowledge bases of :mod:`mjenv.knowledge`,
        ``knowledge_bases`` when the caller has them) and a tuple of the int fields, in order."""
        return self._sources(game, knowledge_bases, None)

    def _sources(self, game, knowledge_bases: np.ndarray | None, kb_out: np.ndarray | None) -> tuple:
        """:meth:`sources`; KBs not given are computed into ``kb_out`` (None: a fresh array)."""
        # plain Python ints throughout (numpy scalars in this arithmetic would cost a few us a step)
        phase, last, who = int(game.phase), int(game.last_discard), int(game.last_discarder)
        n0, n1, n2, n3 = game.melds_declared.tolist()  # ``game.num_melds(s)`` of the four seats
        m = self.rules.melds
        turn = int(game.current_player) if phase == _DISCARD else -1
        if phase == _CLAIM and last >= 0:  # every seat but the discarder may claim it
            c = [last, last, last, last]
            c[who] = -1
            chow = (who + 1) % 4 if self._allow_chow else -1
        else:
            c, chow = _NO_CLAIM, -1
        ints = (
            n0, n1, n2, n3, m - n0, m - n1, m - n2, m - n3, turn == 0, turn == 1, turn == 2, turn == 3,
            *c, chow == 0, chow == 1, chow == 2, chow == 3,
            last, who if last >= 0 else -1, game.wall_remaining, game.dealer, phase,
            *(self._room_ints(game) if self._room_views else ()), 0,
        )  # fmt: skip
        hands, meld_counts, public_counts = self._game_rows(game)
        kbs = unseen(hands, public_counts, kb_out) if knowledge_bases is None else knowledge_bases
        return hands, meld_counts, kbs, game.discards, ints

    def _room_ints(self, game) -> list[int]:
        """The values of the rule set's own state fields (its rooms' ``state_ints``), in field order."""
        r = self.rules
        return [x for room in self._room_views for x in room.state_ints(r, game)]

    def _game_rows(self, game) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The game's ``hands``, ``meld_counts`` and ``public_counts``, the same view objects while its
        ``tile_counts`` array is the same (a hand of the single env): numpy works out a fresh view's buffer
        format at each export to C, about 0.5 us a view, three or four views every step."""
        counts = game.tile_counts
        if counts is not self._rows_of:
            self._rows_of, self._rows = counts, (game.hands, game.meld_counts, game.public_counts)
        return self._rows

    def state(self, game) -> np.ndarray:
        """The state record of a game (int16[state_size], the fields of :data:`STATE_FIELDS`)."""
        return self._states([self.sources(game)])[0]

    def _states(self, sources: list[tuple]) -> np.ndarray:
        """int16[N, state_size]: the state records of N games' sources (what the kernel fills in C)."""
        plan, n = self.plan, len(sources)
        out = np.empty((n, self.state_size), dtype=np.int16)
        for f, (off, size, add) in enumerate(plan.fields.tolist()):
            block = out[:, off : off + size]
            block[:] = (sources[0][f] if n == 1 else np.stack([src[f] for src in sources])).reshape(n, size)
            if add:
                block += add
        out[:, plan.scalar_start :] = [src[-1] for src in sources]
        return out

    @cached_property
    def features(self) -> DeficiencyFeatures:
        """The deficiency-feature evaluator the numpy writer uses (its backend picks the writer)."""
        return DeficiencyFeatures(self.num_tile_types, self.rules.melds, seven_pairs=seven_pairs_form(self.rules))

    @property
    def compiled(self) -> bool:
        """Whether the compiled kernel writes the observations (else numpy)."""
        return self.features.backend == "c"

    def new_memo(self) -> np.ndarray | None:
        """A fresh per-table seat memo for the compiled writer (None on the numpy path)."""
        return _kernel.new_memo() if self.compiled else None

    def observe(self, game, memo: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The four seats' observations and deficiencies of a state: what the env needs each step.

        Args:
            game: a ``mjenv.game.Game``.
            memo: the table's seat memo (:meth:`new_memo`), or None.

        Returns:
            (float32[4, size] observations, row s seat s's; int32[4] each seat's deficiency).
        """
        if self._one_call:  # the env's step: the kernel writes the one state's arrays, nothing to index away
            obs, deficiency = np.empty((4, self.size), dtype=np.float32), np.empty(4, dtype=np.int32)
            # the KBs into the spec's scratch: the kernel copies them into its state record at once
            self._kernel_observe([self._sources(game, None, self._kb_scratch)], [memo], obs, deficiency)
            return obs, deficiency
        obs, deficiency = self.observe_many([game], [memo])
        return obs[0], deficiency[0]

    @cached_property
    def _one_call(self) -> bool:
        """Whether :meth:`observe` is one kernel call (compiled, and no view computed from the game)."""
        return self.compiled and not self._game_views

    @cached_property
    def _kernel_observe(self):
        """The kernel's ``observe`` with this spec's plan bound: ``f(states, memos, out, deficiency)``."""
        return _kernel.bound_observe(self.plan)

    def __getstate__(self) -> dict:
        # the bound plan is a C handle: copies and pickles bind their own on first use
        state = self.__dict__.copy()
        state.pop("_kernel_observe", None)
        state.pop("_kernel_observe_records", None)  # the compiled step's bound plan, also a C handle
        state.pop("_records_plan", None)
        state["_rows_of"], state["_rows"] = None, ()  # the last game's views (_game_rows), not the spec's
        return state

    def observe_many(self, games: list, memos: list | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The observations of N states in one writer call (one C call, or one batched feature call).

        Args:
            games: N ``mjenv.game.Game`` objects.
            memos: None, or N seat memos (:meth:`new_memo`, None each allowed); a table's own memo.

        Returns:
            (float32[N, 4, size], int32[N, 4]): ``[i, s]`` is seat s's observation (deficiency) of game i.
        """
        n = len(games)
        if n > 1:  # the KBs of all games in one pass
            sources = [self.sources(g, k) for g, k in zip(games, knowledge_bases_many(games))]
        else:  # the KBs into the spec's scratch: the writer copies them into its state record at once
            sources = [self._sources(games[0], None, self._kb_scratch)] if n else []
        deficiency = np.empty((n, 4), dtype=np.int32)
        if self.compiled:
            out = np.empty((n, 4, self.size), dtype=np.float32)
            self._kernel_observe(sources, memos, out, deficiency)
        else:
            out = self._write_numpy(self._states(sources), deficiency)
        for v in self._game_views:
            sl = self.slices[v.name]
            for i, g in enumerate(games):
                out[i, :, sl] = _GAME_VIEWS[v.source](g, v.size)[None, :]
        return out, deficiency

    # --- the same writer on state records (the compiled batch step's tables) ------------
    @cached_property
    def _records_plan(self):
        """The kernel's bound plan whose one source is the whole state record (a C handle; ``mjenv.game._step``
        observes its records with it)."""
        whole = replace(self.plan, fields=np.array([[0, self.state_size, 0]], dtype=np.int32),
                        scalar_start=self.state_size)
        return _kernel.bind_plan(whole)

    @cached_property
    def _kernel_observe_records(self):
        """The kernel's ``observe`` with :attr:`_records_plan`."""
        return functools.partial(_kernel._require().observe, self._records_plan)

    def observe_records(self, records: np.ndarray, memos: list | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The observations of N states given as state records (the plan of :meth:`observe_many`, one call).

        For callers that keep games as arrays (``mjenv.vector_batch`` over
        :class:`mjenv.game.batch.BatchGames`): they fill the records themselves, :meth:`state`'s layout.

        Args:
            records: int16[N, state_size] C-contiguous state records.
            memos: None, or N seat memos (:meth:`new_memo`, None each allowed).

        Returns:
            (float32[N, 4, size], int32[N, 4]) as :meth:`observe_many`.

        Raises:
            ValueError: a spec with views computed from the game itself (``how="game"``: the oracle
                wall), which a record does not hold; a record of the wrong shape.
        """
        if self._game_views:
            raise ValueError("observe_records: this spec has views computed from the game (oracle); use observe_many")
        if records.ndim != 2 or records.shape[1] != self.state_size or records.dtype != np.int16:
            raise ValueError(f"records must be int16[N, {self.state_size}], got {records.dtype}{list(records.shape)}")
        n = records.shape[0]
        deficiency = np.empty((n, 4), dtype=np.int32)
        if not self.compiled:
            return self._write_numpy(records, deficiency), deficiency
        out = np.empty((n, 4, self.size), dtype=np.float32)
        self._kernel_observe_records(np.ascontiguousarray(records), memos, out, deficiency)  # the array as it is
        return out, deficiency

    # --- end of the state-record writer ----------------------------------------------------------

    def _write_numpy(self, states: np.ndarray, deficiency: np.ndarray) -> np.ndarray:
        """The plan executed with numpy (what the kernel's ``observe`` does in C)."""
        plan, n, t = self.plan, len(states), self.num_tile_types
        out = np.take(states.astype(np.float32), plan.gather, axis=1)  # (N, 4, size)
        inputs = []
        for name, start in zip(FEATURE_INPUTS, plan.feature_inputs.tolist()):
            width = t if name in ("hands", "knowledge_bases") else 1
            inputs.append(states[:, start : start + 4 * width].reshape(4 * n, width).squeeze(-1 if width == 1 else ()))
        extra = {}
        if plan.excluded_suit >= 0:  # each seat's excluded suit from its one-hot, -1 for none
            onehot = states[:, plan.excluded_suit : plan.excluded_suit + 12].reshape(4 * n, 3)
            extra["excluded_suit"] = np.where(onehot.any(axis=1), onehot.argmax(axis=1), -1)
        feats = self.features.compute(*inputs, **extra)  # all N states' seats in one call
        for name, off in zip(FEATURE_NAMES, plan.feature_outputs.tolist()):
            if off >= 0:
                f = feats[name].reshape(n, 4, -1)
                out[:, :, off : off + f.shape[2]] = f
        deficiency[:] = feats["deficiency"].reshape(n, 4)
        if len(plan.onehots):  # all one-hot views of all states at once
            off, idx, relative = (plan.onehots[:, k] for k in range(3))
            value = states[:, idx].astype(np.int64)[:, None, :]  # (N, 1, K)
            pos = np.where(relative == 1, (value - np.arange(4)[:, None]) % 4, value)  # (N, 4, K)
            rows, seats, k = np.nonzero(np.broadcast_to(value >= 0, pos.shape))
            out[rows, seats, off[k] + pos[rows, seats, k]] = 1.0
        return out

    def encode(self, game, seat: int) -> np.ndarray:
        """The observation of one seat. Shape float32[size]."""
        if seat not in (0, 1, 2, 3):
            raise ValueError(f"seat must be 0..3, got {seat!r}")
        return self.observe(game)[0][seat]

    def encode_all(self, game) -> np.ndarray:
        """The observations of all four seats: float32[4, size], row s seat s's."""
        return self.observe(game)[0]


def seven_pairs_form(rules: Rules) -> str | None:
    """The seven-pairs hand ``rules`` lets win, as the deficiency features count it.

    Returns:
        None (``seven_pairs`` off); else the rule set's form (``GameHooks.seven_pairs_form`` of its room:
        ``"fours"``, a four of a kind is two pairs) or ``"distinct"`` (``mjenv.game.is_winning``).
    """
    if not rules.seven_pairs:
        return None
    hooks = rulesets.game_hooks(rules)
    return "distinct" if hooks is None else hooks.seven_pairs_form


def oracle_wall(game, length: int) -> np.ndarray:
    """The tiles left in the wall in drawing order as tile id + 1, zero padded (float32[length]).

    Front draws take ``game.wall`` from ``game.wall_head``, replacement draws (after kongs) from the
    tail, so ``game.wall[wall_head:wall_tail]`` is the undrawn rest (``wall_remaining`` tiles).
    """
    out = np.zeros(length, dtype=np.float32)
    rest = np.asarray(game.wall)[int(game.wall_head) : int(game.wall_tail)][:length]
    out[: len(rest)] = rest.astype(np.float32) + 1.0
    return out


#: The views written from the game itself (``how="game"``): name -> f(game, length) -> float32[length].
_GAME_VIEWS = {"oracle_wall": oracle_wall}


def decode(observation, rules: str | Rules | dict | None = "basic", oracle: bool = False) -> dict[str, np.ndarray]:
    """Named views of an observation made under ``rules`` (see :meth:`ObservationSpec.decode`)."""
    return _spec(get_rules(rules), oracle).decode(observation)


_SPECS: dict[tuple, ObservationSpec] = {}


def _spec(rules: Rules, oracle: bool) -> ObservationSpec:
    key = (rules, oracle)
    if key not in _SPECS:
        _SPECS[key] = ObservationSpec(rules, oracle)
    return _SPECS[key]
