from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mjenv import tiles


def test_tile_ids_follow_the_papers_kb_order():
    assert tiles.tile_name(0, "paper") == "B1" and tiles.tile_name(0) == "1s"
    assert tiles.tile_name(9, "paper") == "C1" and tiles.tile_name(9) == "1m"
    assert tiles.tile_name(18, "paper") == "D1" and tiles.tile_name(18) == "1p"
    assert tiles.tile_name(27) == "1z" and tiles.tile_name(33) == "7z"


def test_mps_and_paper_forms_agree():
    a = tiles.parse("123m456p789s11z")
    b = tiles.parse("(B7B8B9)(C1C2C3)(D4D5D6)(Z1Z1)")
    c = tiles.parse("B7B8B9C1C2C3D4D5D6Z1Z1")
    assert len(a) == 34 and (a == b).all() and (a == c).all()
    assert a[9] == a[10] == a[11] == 1 and a[27] == 2


def test_27_entries_unless_honours():
    assert tiles.parse("123m").shape == (27,)
    assert tiles.parse("123m", 34).shape == (34,)
    with pytest.raises(ValueError, match="honours"):
        tiles.parse("11z", 27)


def test_digit_groups_are_counts():
    kb = tiles.parse("(001100121)(010000030)(032242321)")
    assert kb.tolist()[:9] == [0, 0, 1, 1, 0, 0, 1, 2, 1]
    assert kb[9 + 1] == 1 and kb[9 + 7] == 3 and kb.sum() == 6 + 4 + 19


def test_empty_groups():
    h = tiles.parse("()(C1C4)(·)")
    assert h.sum() == 2 and h[9] == 1 and h[12] == 1


@pytest.mark.parametrize(
    "text,where",
    [("123x", "position 3"), ("12m0p", "position 3"), ("123", "digits without a suit"), ("B0", "position 1"),
     ("(B1(B2))", "nested"), ("11111m", "5 copies")],
)
def test_bad_notation_names_the_problem(text, where):
    with pytest.raises(ValueError) as err:
        tiles.parse(text)
    assert where in str(err.value) or "copies" in str(err.value)


@given(st.lists(st.integers(0, 4), min_size=34, max_size=34), st.sampled_from(["mps", "paper", "digits"]))
def test_format_parse_round_trip(counts, style):
    c = np.array(counts, dtype=np.int8)
    assert (tiles.parse(tiles.format_hand(c, style), 34) == c).all()


def test_to_counts_and_back():
    c = tiles.to_counts([0, 0, 5, 26])
    assert tiles.to_tiles(c) == [0, 0, 5, 26]
    with pytest.raises(ValueError, match="out of range"):
        tiles.to_counts([27])
