"""Rule sets of the game: a frozen :class:`Rules` dataclass and named presets.

=============  ======  ==========  =====  =======  ===========================================
preset         tiles   hand size   melds  chow     notes
=============  ======  ==========  =====  =======  ===========================================
``basic``      108     13          4      yes      the papers' game (suited tiles only); default
``honours``    136     13          4      yes      adds winds and dragons (tile ids 27-33)
``sichuan``    108     13          4      no       Sichuan bloody battle (血战到底): missing suit
                                                   declared (定缺), play on after a win, fan scoring
``taiwan16``   144     16          5      yes      SIMCAT Sec. 2.1: 8 flowers, 16-tile hands,
                                                   5 melds + 1 pair, drawn with 16 tiles left
=============  ======  ==========  =====  =======  ===========================================

Flowers (``flowers=8``, ``taiwan16`` only by default) are not tiles of the deficiency core: they get
ids ``FLOWER_BASE..FLOWER_BASE+7`` (34..41) in the wall and the game log only. A flower dealt or drawn
is set aside face up (``Game.flowers``, public) and replaced by a draw from the wall's end.

Every preset: four players, the dealer starts with one more tile, chow only from the previous
player's discard, pong and exposed kong from anyone, concealed and added kongs with a replacement
draw from the wall's end, win by self-draw or on a discard, robbing an added kong, exhaustive draw
when the wall is empty. Options (any preset): ``seven_pairs`` (an extra winning form for 14-tile
hands), ``multiple_winners`` (every seat that declares a win on one discard wins, instead of only the
first in turn order from the discarder).

Sichuan (``missing_suit``, ``bloody``, ``scoring="sichuan"``, all on in the ``sichuan``
preset, with ``seven_pairs`` and ``multiple_winners``). The rule set, one common variant of the
Sichuan "bloody battle" tables (source and our choices where tables differ: :mod:`mjenv.rulesets.sichuan.scoring`
and docs/DESIGN.md, "Sichuan"):

* 定缺: after the deal (the dealer holding 14 tiles) every seat declares a missing suit, all four
  at once (one step; no seat sees another's choice before making its own); the declarations are
  public from then on. A seat holding tiles of its missing suit must discard one of them on its turn
  (a kong of another suit is still allowed), may not pong or kong a tile of that suit, and cannot win
  while its hand holds one.
* 血战到底: a win does not end the hand. The winner leaves (its hand is frozen, it pays and receives
  nothing more); several seats may win on one discard (一炮多响). Play goes on with the first seat still
  in the hand after the (last) winner, until three seats have won or the wall is empty.
* Seven pairs wins, a four of a kind counting as two pairs (龙七对).
* Scoring (:mod:`mjenv.rulesets.sichuan.scoring`): fan per win (``2 ** min(fan, 4)`` points), kong
  payments when the kong is made (刮风下雨: an exposed kong 2 from the discarder; an added kong 1,
  a concealed kong 2 from each other seat still in the hand; an added kong pays only once it is not
  robbed), and at an exhaustive draw 查花猪 and 查大叫 among the seats still in the hand. Scores are
  paid as they happen; the env rewards each step's score changes.

Scoring is zero-sum by default: a win on a discard (or on a robbed kong) takes
``discard_win_points`` from the discarder (the kong declarer when robbed) per winner; a self-draw
takes ``self_draw_points`` from each of the three opponents; an exhaustive draw scores 0.

Example::

    rules = get_rules("basic")
    rules = dataclasses.replace(get_rules("basic"), seven_pairs=True)
    rules = get_rules({"name": "basic", "multiple_winners": True})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mjenv import rulesets
from mjenv.tiles import COPIES, NUM_SUITED, NUM_TILES

#: The preset names: one per room of :mod:`mjenv.rulesets` (its registry order).
PRESET_NAMES = rulesets.names()

#: Tile id of the first flower in a wall (flowers sit outside the 34 ids of the deficiency core).
FLOWER_BASE = NUM_TILES
#: Flower tiles in a set that has them (one of each: 4 seasons, 4 plants).
NUM_FLOWERS = 8


#: Allowed values of ``Rules.scoring``.
SCORINGS = ("points", "tai", "sichuan")

#: Allowed values of ``Rules.claim_window``.
CLAIM_WINDOWS = ("always", "when_possible")


@dataclass(frozen=True)
class Rules:
    """One rule set. Validated on construction; bad values raise ``ValueError``.

    Attributes:
        name: preset this rule set started from (informational; the fields decide).
        num_tile_types: 27 (suited tiles only, 108 tiles) or 34 (with honours, 136 tiles).
        hand_size: tiles in a hand between turns: 13 or 16.
        melds: melds in a complete hand (plus one pair): 4 for 13-tile hands, 5 for 16-tile hands.
        allow_chow: whether the next player may chow a discard.
        seven_pairs: whether seven distinct pairs (14 concealed tiles, no declared melds) also win.
        multiple_winners: True: every seat declaring a win on one discard / robbed kong wins.
            False: only the first of them in turn order from the discarder.
        discard_win_points: points each winner on a discard or robbed kong takes from the discarder.
        self_draw_points: points a self-drawing winner takes from each opponent.
        claim_window: ``"always"`` (default): every discard (and every added kong) is followed by a
            window in which the other seats answer, with only PASS legal for a seat that cannot claim,
            so the sequence of phases a seat observes reveals nothing about others' hands.
            ``"when_possible"``: a window opens only when some seat can claim or rob; fewer steps, but
            a seat that sees a claim window it cannot use learns that an opponent could claim.
        flowers: 0 or 8 flower tiles in the set (ids ``FLOWER_BASE``..``FLOWER_BASE+7``), each set
            aside face up with a replacement draw from the wall's end when dealt or drawn.
        draw_at: the hand is an exhaustive draw when this many tiles are left in the wall (SIMCAT
            Sec. 2.1: 16); kongs need more than this many left.
        scoring: ``"points"`` (default: the fixed points above; who won is what SIMCAT counts) or
            ``"tai"`` (Taiwanese tai table of :mod:`mjenv.rulesets.taiwan16.tai`; needs 34 tile types) or
            ``"sichuan"`` (fan, kong payments and draw settlement of :mod:`mjenv.rulesets.sichuan.scoring`;
            needs ``missing_suit``, ``bloody`` and no chow).
        missing_suit: every seat declares a missing suit (定缺) in a first step of the hand; needs 27
            tile types and 13-tile hands.
        bloody: bloody battle (血战到底): a winner leaves, the others play on until three have won or
            the wall is empty; needs ``scoring="sichuan"``.
    """

    name: str = "basic"
    num_tile_types: int = NUM_SUITED
    hand_size: int = 13
    melds: int = 4
    allow_chow: bool = True
    seven_pairs: bool = False
    multiple_winners: bool = False
    discard_win_points: int = 3
    self_draw_points: int = 1
    claim_window: str = "always"
    flowers: int = 0
    draw_at: int = 0
    scoring: str = "points"
    missing_suit: bool = False
    bloody: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise ValueError(f"Rules.name must be a str, got {self.name!r}")
        if self.num_tile_types not in (NUM_SUITED, NUM_TILES):
            raise ValueError(f"Rules.num_tile_types must be 27 or 34, got {self.num_tile_types!r}")
        if self.hand_size not in (13, 16):
            raise ValueError(f"Rules.hand_size must be 13 or 16, got {self.hand_size!r}")
        if self.melds not in (4, 5):
            raise ValueError(f"Rules.melds must be 4 or 5, got {self.melds!r}")
        if self.hand_size != 3 * self.melds + 1:
            raise ValueError(
                f"Rules.hand_size={self.hand_size} does not fit Rules.melds={self.melds}; "
                "allowed pairs: (hand_size=13, melds=4), (hand_size=16, melds=5)"
            )
        for field in ("allow_chow", "seven_pairs", "multiple_winners", "missing_suit", "bloody"):
            if not isinstance(getattr(self, field), bool):
                raise ValueError(f"Rules.{field} must be True or False, got {getattr(self, field)!r}")
        for field in ("discard_win_points", "self_draw_points"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"Rules.{field} must be an int >= 0, got {v!r}")
        if self.claim_window not in CLAIM_WINDOWS:
            raise ValueError(f"Rules.claim_window must be one of {CLAIM_WINDOWS}, got {self.claim_window!r}")
        if self.flowers not in (0, NUM_FLOWERS) or isinstance(self.flowers, bool):
            raise ValueError(f"Rules.flowers must be 0 or {NUM_FLOWERS}, got {self.flowers!r}")
        if isinstance(self.draw_at, bool) or not isinstance(self.draw_at, int) or not 0 <= self.draw_at <= 32:
            raise ValueError(
                f"Rules.draw_at must be an int in 0..32 (tiles left when the hand is drawn), got {self.draw_at!r}"
            )
        if self.scoring not in SCORINGS:
            raise ValueError(f"Rules.scoring must be one of {SCORINGS}, got {self.scoring!r}")
        if self.scoring == "tai" and self.num_tile_types != NUM_TILES:
            raise ValueError("Rules.scoring='tai' needs num_tile_types=34 (the table scores winds and dragons)")
        # --- Sichuan: the three Sichuan fields go together as documented above
        if self.missing_suit and (self.num_tile_types != NUM_SUITED or self.hand_size != 13):
            raise ValueError("Rules.missing_suit=True needs num_tile_types=27 and hand_size=13 (three suits)")
        if self.scoring == "sichuan" and (not self.missing_suit or not self.bloody or self.allow_chow):
            raise ValueError("Rules.scoring='sichuan' needs missing_suit=True, bloody=True and allow_chow=False")
        if self.bloody and self.scoring != "sichuan":
            raise ValueError(f"Rules.bloody=True needs scoring='sichuan', got scoring={self.scoring!r}")
        # --- end Sichuan
        if self.seven_pairs and self.hand_size != 13:
            raise ValueError(
                f"Rules.seven_pairs=True needs hand_size=13 (14-tile winning hands), got hand_size={self.hand_size}"
            )

    @property
    def num_tiles(self) -> int:
        """Tiles in the full set: 108 or 136, plus ``flowers``."""
        return COPIES * self.num_tile_types + self.flowers

    @property
    def dead_wall_start(self) -> int:
        """Tiles left in the wall after the deal (the dealer's extra tile not yet drawn)."""
        return self.num_tiles - 4 * self.hand_size

    @property
    def max_discards(self) -> int:
        """Upper bound on one seat's discards in a hand: the padded length of discard histories.

        A seat's turns are its draw turns plus its chow/pong claims; draw turns are at most the
        tiles left after the deal and claims at most ``melds``; a robbed kong's tile is entered as the
        declarer's last discard (one more).
        """
        return self.dead_wall_start + self.melds + 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-able dict of every field (``get_rules`` accepts it back). The newer fields
        (``flowers``, ``draw_at``, ``scoring``, ``missing_suit``, ``bloody``) are left out at their
        defaults (0, 0, ``"points"``, False, False) unless the preset differs, so the logs and
        digests of the other rule sets read as before."""
        d = dataclasses.asdict(self)
        # get_rules fills a missing field from this preset
        base = rulesets.room(self.name).preset if self.name in rulesets.ROOMS else Rules()
        for field, default in QUIET_DEFAULTS.items():
            if d[field] == default == getattr(base, field):
                del d[field]
        return d


#: Fields that :meth:`Rules.to_dict` leaves out at these values (when the preset has them too), and
#: that a rule dict read from a log takes at these values when it lacks them (a log written before a
#: field existed played with this value): :func:`mjenv.game.log_rules`.
QUIET_DEFAULTS = {"flowers": 0, "draw_at": 0, "scoring": "points", "missing_suit": False, "bloody": False}

class _Presets(Mapping):
    """Preset name -> :class:`Rules`, read from the rooms of :mod:`mjenv.rulesets` on first use."""

    def __getitem__(self, name: str) -> Rules:
        if not isinstance(name, str) or name not in rulesets.ROOMS:
            raise KeyError(name)
        return rulesets.room(name).preset

    def __iter__(self):
        return iter(rulesets.names())

    def __len__(self) -> int:
        return len(rulesets.ROOMS)


_PRESETS = _Presets()


def get_rules(name_or_rules: str | Rules | dict[str, Any] | None = "basic") -> Rules:
    """Resolve a preset name, a :class:`Rules`, or a dict of fields into a :class:`Rules`.

    Args:
        name_or_rules: ``"basic"`` (default), ``"honours"``, ``"sichuan"``, ``"taiwan16"``; a
            ``Rules`` (returned as is); or a dict whose ``"name"`` (default ``"basic"``) picks the
            preset and whose other keys override its fields (as written by ``Rules.to_dict``).
            None means ``"basic"``.

    Returns:
        The rule set.

    Raises:
        ValueError: an unknown preset name or field, or a bad field value.
    """
    if name_or_rules is None:
        return rulesets.room("basic").preset
    if isinstance(name_or_rules, Rules):
        return name_or_rules
    if isinstance(name_or_rules, str):
        return rulesets.room(name_or_rules).preset  # ValueError naming the presets for an unknown name
    if isinstance(name_or_rules, dict):
        fields = dict(name_or_rules)
        base = get_rules(fields.pop("name", "basic"))
        allowed = {f.name for f in dataclasses.fields(Rules)}
        unknown = sorted(set(fields) - allowed)
        if unknown:
            raise ValueError(f"unknown Rules fields {unknown}; allowed: {sorted(allowed)}")
        return dataclasses.replace(base, **fields)
    raise ValueError(
        f"rules must be a preset name ({', '.join(rulesets.names())}), a Rules or a dict, "
        f"got {type(name_or_rules).__name__}"
    )
