"""Tile ids, notation parsing and formatting, count-vector helpers.

Tile ids follow the papers' knowledge base order (BDA paper, Definition 8):

======  =========================  ==========  ==============
ids     tiles                      papers      mps notation
======  =========================  ==========  ==============
0-8     bamboo 1-9                 ``B1-B9``   ``1s-9s``
9-17    characters 1-9             ``C1-C9``   ``1m-9m``
18-26   dots 1-9                   ``D1-D9``   ``1p-9p``
27-33   E S W N white green red    ``Z1-Z7``   ``1z-7z``
======  =========================  ==========  ==============

A hand or knowledge base is a count vector of length 27 (suited tiles only, the papers' game) or
34 (with honours); every entry is in 0..4.

Accepted text forms (everywhere a hand is accepted):

* mps: ``"123m456p789s11z"`` (digits followed by their suit letter; ``0`` is not a tile);
* the papers' form: ``"B1B2B3C5"``, grouped ``"(B1B5)(C2)(D1D1)"``; ``()`` or ``(·)`` is an empty
  group; honours are written ``Z1``-``Z7``;
* count digits (knowledge bases in the papers): ``"(001100121)(010000030)(032242321)"``: three groups
  of nine digits for B, C, D, optionally a fourth group of seven digits for the honours.

Whitespace is ignored. Ranks and counts are the ASCII digits ``0``-``9`` only: full-width or other
Unicode digits (``"１２３s"``) are rejected, not read as their ASCII values. Anything else raises a
``ValueError`` naming the character and its position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

NUM_SUITED = 27
NUM_TILES = 34
NUM_HONOURS = 7
COPIES = 4
SUIT_LETTERS_PAPER = ("B", "C", "D")
#: mps suit letter -> first tile id of that suit.
MPS_OFFSET = {"s": 0, "m": 9, "p": 18, "z": 27}
PAPER_OFFSET = {"B": 0, "C": 9, "D": 18, "Z": 27}
HONOUR_NAMES = ("East", "South", "West", "North", "White", "Green", "Red")
#: Unicode mahjong tiles for rendering, indexed by tile id.
UNICODE_TILES = (
    [chr(0x1F010 + i) for i in range(9)]  # bamboo
    + [chr(0x1F007 + i) for i in range(9)]  # characters
    + [chr(0x1F019 + i) for i in range(9)]  # dots
    + [chr(c) for c in (0x1F000, 0x1F001, 0x1F002, 0x1F003, 0x1F006, 0x1F005, 0x1F004)]
)

_VALID_LENGTHS = (NUM_SUITED, NUM_TILES)
#: The only characters read as ranks (``str.isdigit`` would also take full-width and other digits).
_ASCII_DIGITS = frozenset("0123456789")


def suit_of(tile: int) -> int:
    """Suit index of a tile id: 0 bamboo, 1 characters, 2 dots, 3 honours."""
    return min(tile // 9, 3)


def rank_of(tile: int) -> int:
    """Rank 1..9 of a suited tile, 1..7 of an honour."""
    return tile - 27 + 1 if tile >= 27 else tile % 9 + 1


def is_honour(tile: int) -> bool:
    return tile >= NUM_SUITED


def tile_name(tile: int, style: str = "mps") -> str:
    """Name of one tile id, e.g. ``tile_name(0) == "1s"``, ``tile_name(0, "paper") == "B1"``."""
    if not 0 <= tile < NUM_TILES:
        raise ValueError(f"tile id {tile} is out of range; allowed 0..{NUM_TILES - 1}")
    if style == "mps":
        return f"{rank_of(tile)}{'smpz'[suit_of(tile)]}"
    if style == "paper":
        return f"{'BCDZ'[suit_of(tile)]}{rank_of(tile)}"
    if style == "unicode":
        return UNICODE_TILES[tile]
    raise ValueError(f"unknown style {style!r}; allowed 'mps', 'paper', 'unicode'")


def _err(text: str, pos: int, what: str) -> ValueError:
    ch = text[pos] if pos < len(text) else "end of text"
    return ValueError(f"cannot parse {text!r}: {what} at position {pos} (character {ch!r})")


def _parse_digit_groups(text: str) -> np.ndarray:
    groups = re.findall(r"\(([^()]*)\)", text)
    expected = [9, 9, 9, 7]
    if len(groups) not in (3, 4):
        raise ValueError(
            f"cannot parse {text!r}: count-digit form needs 3 groups of 9 digits (B, C, D) "
            f"and optionally a 4th of 7 (honours), got {len(groups)} groups"
        )
    counts: list[int] = []
    pos = 0
    for gi, g in enumerate(groups):
        pos = text.index("(" + g + ")", pos) + 1
        digits = g.replace(" ", "")
        if len(digits) != expected[gi]:
            raise ValueError(
                f"cannot parse {text!r}: group {gi + 1} has {len(digits)} digits, expected {expected[gi]}"
            )
        for j, ch in enumerate(g):
            if ch == " ":
                continue
            if ch not in "01234":
                raise _err(text, pos + j, "a count digit must be 0..4")
        counts.extend(int(c) for c in digits)
        pos += len(g)
    return np.array(counts, dtype=np.int8)


def parse(text: str, num_tile_types: int | None = None) -> np.ndarray:
    """Parse a hand or knowledge base written in any accepted notation.

    Args:
        text: mps (``"123m11z"``), papers' (``"(B1B5)(C2)"``) or count-digit
            (``"(001100121)(010000030)(032242321)"``) notation.
        num_tile_types: 27 or 34 to force the vector length; None gives 27 unless honours appear.

    Returns:
        int8[27] or int8[34] tile counts.

    Raises:
        ValueError: unparseable text (naming the character and position), a count above 4, honours
            with ``num_tile_types=27``.
    """
    if not isinstance(text, str):
        raise ValueError(f"expected a str in mps or papers' notation, got {type(text).__name__}")
    if num_tile_types not in (None, *_VALID_LENGTHS):
        raise ValueError(f"num_tile_types must be 27, 34 or None, got {num_tile_types!r}")
    stripped = re.sub(r"\s+", "", text)
    if re.fullmatch(r"(\([0-4]*\))+", stripped) and any(len(g) >= 7 for g in re.findall(r"\(([0-9]*)\)", stripped)):
        counts = _parse_digit_groups(stripped)
    else:
        # Python ints while counting: a fixed-width counter would wrap ("1s" 65,538 times as 2)
        tally = [0] * NUM_TILES
        if re.search(r"[BCDZ]", text):
            _parse_paper(text, tally)
        else:
            _parse_mps(text, tally)
        counts = np.array(tally, dtype=np.int64)  # at most len(text): no wrap
    if num_tile_types is None:
        num_tile_types = NUM_TILES if counts[NUM_SUITED:].any() else NUM_SUITED
    if len(counts) < num_tile_types:
        counts = np.concatenate([counts, np.zeros(num_tile_types - len(counts), dtype=counts.dtype)])
    if counts[num_tile_types:].any():
        raise ValueError(
            f"{text!r} holds honours (ids 27-33) but a 27-tile vector was asked for; use num_tile_types=34"
        )
    counts = counts[:num_tile_types]
    over = np.flatnonzero(counts > COPIES)
    if len(over):
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise ValueError(
            f"{shown!r} holds {int(counts[over[0]])} copies of {tile_name(over[0])}; at most 4 are allowed"
        )
    return counts.astype(np.int8)


def _parse_mps(text: str, counts: list[int]) -> None:
    pending: list[tuple[int, int]] = []  # (rank, position)
    for pos, ch in enumerate(text):
        if ch.isspace():
            continue
        if ch in _ASCII_DIGITS:
            if ch == "0":
                raise _err(text, pos, "rank 0 is not a tile (ranks are 1..9)")
            pending.append((int(ch), pos))
        elif ch in MPS_OFFSET:
            if not pending:
                raise _err(text, pos, "a suit letter must follow at least one digit")
            for rank, rpos in pending:
                if ch == "z" and rank > NUM_HONOURS:
                    raise _err(text, rpos, "honours are 1z..7z")
                counts[MPS_OFFSET[ch] + rank - 1] += 1
            pending = []
        else:
            raise _err(text, pos, "unexpected character; allowed ASCII digits 1-9 and suit letters m p s z")
    if pending:
        raise _err(text, len(text), "digits without a suit letter (m, p, s or z)")


def _parse_paper(text: str, counts: list[int]) -> None:
    pos = 0
    depth = 0
    while pos < len(text):
        ch = text[pos]
        if ch.isspace() or ch in "·.":
            pos += 1
        elif ch == "(":
            if depth:
                raise _err(text, pos, "nested group")
            depth = 1
            pos += 1
        elif ch == ")":
            if not depth:
                raise _err(text, pos, "')' without '('")
            depth = 0
            pos += 1
        elif ch in PAPER_OFFSET:
            if pos + 1 >= len(text) or text[pos + 1] not in _ASCII_DIGITS:
                raise _err(text, pos + 1, f"tile letter {ch!r} must be followed by an ASCII rank digit")
            rank = int(text[pos + 1])
            limit = NUM_HONOURS if ch == "Z" else 9
            if not 1 <= rank <= limit:
                raise _err(text, pos + 1, f"rank of {ch} must be 1..{limit}")
            counts[PAPER_OFFSET[ch] + rank - 1] += 1
            pos += 2
        else:
            raise _err(text, pos, "unexpected character; allowed B1-B9, C1-C9, D1-D9, Z1-Z7 and ( )")
    if depth:
        raise _err(text, len(text), "unclosed '('")


def format_hand(counts: Sequence[int] | np.ndarray, style: str = "mps") -> str:
    """Format a count vector: ``"mps"`` (``123m456p789s11z``), ``"paper"`` (``(B1B2)(C3)(D4)``),
    ``"unicode"`` (mahjong tile characters) or ``"digits"`` (``(001100121)(...)(...)``)."""
    c = np.asarray(counts)
    if c.ndim != 1 or len(c) not in _VALID_LENGTHS:
        raise ValueError(f"expected a count vector of length 27 or 34, got shape {c.shape}")
    if style == "mps":
        out = []
        for letter in "mpsz":
            off = MPS_OFFSET[letter]
            n = NUM_HONOURS if letter == "z" else 9
            if off >= len(c):
                continue
            digits = "".join(str(r + 1) * int(c[off + r]) for r in range(n))
            if digits:
                out.append(digits + letter)
        return "".join(out)
    if style == "paper":
        groups = []
        for s, letter in enumerate("BCDZ"):
            if 9 * s >= len(c):
                break
            n = NUM_HONOURS if letter == "Z" else 9
            groups.append("(" + "".join(f"{letter}{r + 1}" * int(c[9 * s + r]) for r in range(n)) + ")")
        return "".join(groups)
    if style == "digits":
        groups = ["".join(str(int(v)) for v in c[9 * s : 9 * s + 9]) for s in range(3)]
        if len(c) == NUM_TILES:
            groups.append("".join(str(int(v)) for v in c[27:]))
        return "".join(f"({g})" for g in groups)
    if style == "unicode":
        return "".join(UNICODE_TILES[t] * int(c[t]) for t in range(len(c)))
    raise ValueError(f"unknown style {style!r}; allowed 'mps', 'paper', 'digits', 'unicode'")


def to_counts(tiles: Sequence[int], num_tile_types: int = NUM_SUITED) -> np.ndarray:
    """Count vector (int8[num_tile_types]) of a list of tile ids."""
    out = np.zeros(num_tile_types, dtype=np.int8)
    for t in tiles:
        if not 0 <= int(t) < num_tile_types:
            raise ValueError(f"tile id {t} is out of range; allowed 0..{num_tile_types - 1}")
        out[int(t)] += 1
    return out


def to_tiles(counts: Sequence[int] | np.ndarray) -> list[int]:
    """Sorted list of tile ids held in a count vector."""
    c = np.asarray(counts)
    return [int(t) for t in np.repeat(np.arange(len(c)), np.maximum(c, 0).astype(np.int64))]


def full_wall(num_tile_types: int = NUM_SUITED) -> np.ndarray:
    """int8[num_tile_types] with 4 copies of every tile: the initial knowledge base."""
    if num_tile_types not in _VALID_LENGTHS:
        raise ValueError(f"num_tile_types must be 27 or 34, got {num_tile_types}")
    return np.full(num_tile_types, COPIES, dtype=np.int8)
