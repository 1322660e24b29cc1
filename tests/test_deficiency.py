"""Every exact method equals the slow reference (which enumerates the complete patterns W)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjenv.deficiency import INCOMPLETABLE, deficiency
from mjenv.deficiency.reference import reference_deficiency

from .conftest import KB_MODES, random_case

EXACT_METHODS = ("auto", "dp", "hbba")  # auto: the default, compiled when installed

SUIT_SETS = [(0,), (1,), (2,), (0, 1), (1, 2), (0, 2), (0, 1, 2), (2, 3), (0, 1, 2, 3)]


@st.composite
def cases(draw):
    suits = draw(st.sampled_from(SUIT_SETS))
    num_tile_types = 34 if 3 in suits else draw(st.sampled_from([27, 34]))
    exposed = draw(st.integers(0, 3))
    extra = draw(st.sampled_from([1, 2]))
    kb_mode = draw(st.sampled_from(KB_MODES))
    four = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    hand, kb = random_case(rng, suits=suits, num_tile_types=num_tile_types, exposed=exposed, extra=extra,
                           kb_mode=kb_mode, four_copies=four)
    return hand, kb, exposed


@settings(max_examples=1200)
@given(cases())
def test_exact_methods_equal_reference(case):
    hand, kb, exposed = case
    expected = reference_deficiency(hand, kb, exposed_melds=exposed)
    for method in EXACT_METHODS:
        assert deficiency(hand, kb, method=method, exposed_melds=exposed) == expected, method


@settings(max_examples=150)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 2]), st.integers(0, 2))
def test_sixteen_tile_rules_equal_reference(seed, extra, exposed):
    rng = np.random.default_rng(seed)
    hand, kb = random_case(rng, exposed=exposed, extra=extra, melds=5, kb_mode="random")
    expected = reference_deficiency(hand, kb, exposed_melds=exposed, melds=5)
    for method in EXACT_METHODS:
        assert deficiency(hand, kb, method=method, exposed_melds=exposed, melds=5) == expected, method


def test_incompletable_cases_occur_and_agree():
    rng = np.random.default_rng(7)
    seen = 0
    for _ in range(300):
        hand, kb = random_case(rng, kb_mode="tiny", extra=int(rng.integers(1, 3)))
        expected = reference_deficiency(hand, kb)
        seen += expected == INCOMPLETABLE
        for method in EXACT_METHODS:
            assert deficiency(hand, kb, method=method) == expected
    assert seen > 20  # the sample really exercises incompletable hands
    assert INCOMPLETABLE > 14


@pytest.mark.parametrize("method", EXACT_METHODS)
def test_batch_equals_single(method):
    rng = np.random.default_rng(3)
    hands, kbs, exposed = [], [], []
    for _ in range(60):
        e = int(rng.integers(0, 4))
        h, k = random_case(rng, exposed=e, extra=int(rng.integers(1, 3)), kb_mode=str(rng.choice(KB_MODES)))
        hands.append(h)
        kbs.append(k)
        exposed.append(e)
    batch = deficiency(np.array(hands), np.array(kbs), method=method, exposed_melds=np.array(exposed))
    assert isinstance(batch, np.ndarray) and batch.shape == (60,)
    single = [deficiency(h, k, method=method, exposed_melds=e) for h, k, e in zip(hands, kbs, exposed)]
    assert isinstance(single[0], int)
    assert batch.tolist() == single


@pytest.mark.parametrize("method", EXACT_METHODS)
def test_removing_kb_tiles_never_lowers_deficiency(method):
    rng = np.random.default_rng(11)
    for _ in range(150):
        hand, kb = random_case(rng, kb_mode="random", extra=int(rng.integers(1, 3)))
        before = deficiency(hand, kb, method=method)
        held = np.flatnonzero(kb)
        if len(held) == 0:
            continue
        smaller = kb.copy()
        smaller[rng.choice(held, size=min(len(held), int(rng.integers(1, 4))), replace=False)] -= 1
        assert deficiency(hand, smaller, method=method) >= before


# The papers' examples (KB = 4 - H unless given).
PAPER_EXAMPLES = [
    ("(B3B5B6B9)(C2C2C3C6C9)(D1D1D2D5D8)", None, 6),  # HBBA/BDA running example
    ("()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)", "(001100121)(010000030)(032242321)", 4),  # BDA Example 4
    ("(B1B2B2B3B3B4B7B7B7)(C1C1)(D4D5D6)", None, 0),  # a complete hand
]


@pytest.mark.parametrize("method", EXACT_METHODS)
@pytest.mark.parametrize("hand,kb,expected", PAPER_EXAMPLES)
def test_paper_examples(method, hand, kb, expected):
    assert reference_deficiency(hand, kb) == expected
    assert deficiency(hand, kb, method=method) == expected


@pytest.mark.parametrize("method", EXACT_METHODS)
def test_only_kb_meld_needs_the_tile_that_completes_a_pmeld(method):
    # HBBA paper Sec. 3.2 Example 1: qDCMP (B1B1B1)(C1C1C1)(C6C7)(B6B6) with a remainder that cannot
    # grow. The KB holds three C8 and nothing else: its only meld (C8C8C8) needs the C8 that completes
    # the pchow (C6C7), so at most three melds can be built. Attribute flags (km = 1) would give a
    # finite cost; the true deficiency is incompletable.
    hand = "(B1B1B1B6B6B9)(C1C1C1C6C7)(D1D4D7)"
    kb = "(000000000)(000000030)(000000000)"
    assert reference_deficiency(hand, kb) == INCOMPLETABLE
    assert deficiency(hand, kb, method=method) == INCOMPLETABLE
    # With a fourth C8 available both become possible: C6C7C8 and C8C8C8 -> 1 + 3 = 4 draws.
    assert reference_deficiency(hand, "(000000000)(000000040)(000000000)") == 4
    assert deficiency(hand, "(000000000)(000000040)(000000000)", method=method) == 4


def _to_mahjong_lib_34(counts: np.ndarray) -> list[int]:
    # ours: 0-8 s (bamboo), 9-17 m, 18-26 p, 27-33 honours; the mahjong library: m, p, s, honours
    c = np.zeros(34, dtype=int)
    c[: len(counts)] = counts
    return list(c[9:18]) + list(c[18:27]) + list(c[0:9]) + list(c[27:34])


def test_agrees_with_mahjong_library_shanten_plus_one():
    from mahjong.shanten import Shanten

    shanten = Shanten()
    rng = np.random.default_rng(5)
    compared = 0
    for _ in range(400):
        suits = (0, 1, 2, 3) if rng.random() < 0.5 else (0, 1, 2)
        hand, _ = random_case(rng, suits=suits, num_tile_types=34, extra=int(rng.integers(1, 3)), kb_mode="full")
        ours = deficiency(hand, method="dp")
        theirs = shanten.calculate_shanten_for_regular_hand(_to_mahjong_lib_34(hand)) + 1
        # The library ignores the four-copy limit (it may plan on a fifth copy of a tile held four
        # times), so it can only be more optimistic than the definition, never less.
        assert theirs <= ours
        if not (hand == 4).any():
            assert ours == theirs
            compared += 1
        assert deficiency(hand, method="hbba") == ours
    assert compared > 300


def test_import_is_light():
    code = (
        "import sys, mjenv.deficiency; "
        "bad = [m for m in ('pettingzoo', 'gymnasium', 'torch') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
