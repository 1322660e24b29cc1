"""The C Riichi scorer (``_score.h`` through the extension ``mjenv.rulesets.riichi._score``) against the
Python scorer it ports: the same ``ScoreResult`` (han, fu, yaku names and order, payments, limit) on random
winning hands and on hands that do not win, the same waits, win test and tenpai-with-yaku flags, and the
292 real Tenhou wins through the C path.

The Python side is the same functions with the extension switched off (``scoring._ext`` and ``hand._ext``
set to ``None``); the Python scorer itself equals the ``mahjong`` library and Tenhou (``tests/test_riichi_scoring.py``).
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest

from mjenv.rulesets.riichi import _score, hand, scoring
from mjenv.rulesets.riichi.hand import is_winning_shape, waits
from mjenv.rulesets.riichi.scoring import Meld, WinContext, score_hand
from mjenv.rulesets.riichi.tiles136 import TYPE34
from mjenv.rulesets.riichi.yaku import YAKU_HAN
from tests.riichi_hands import random_deal

MJLOG_DIR = Path(__file__).parent / "data" / "mjlog"


@pytest.fixture
def python_only(monkeypatch):
    """A function that runs ``fn(*args)`` with the C scorer switched off."""

    def run(fn, *args, **kw):
        with monkeypatch.context() as m:
            m.setattr(scoring, "_ext", None)
            m.setattr(hand, "_ext", None)
            return fn(*args, **kw)

    return run


def _counts(types) -> list[int]:
    c = [0] * 34
    for t in types:
        c[t] += 1
    return c


def _no_win_variant(deal, rng: random.Random) -> list[int]:
    """The deal's concealed tiles with the winning tile swapped for another free copy (mostly no win)."""
    used = set(deal.concealed) | {t for m in deal.melds for t in m.tiles}
    free = [t for t in range(136) if t not in used]
    swap = rng.choice(free)
    return [swap if t == deal.win_tile else t for t in deal.concealed], swap


def _agree(n: int, seed: int, python_only) -> Counter:
    rng = random.Random(seed)
    seen: Counter = Counter()
    nones = 0
    for i in range(n):
        deal = random_deal(rng)
        args = (deal.concealed, deal.melds, deal.win_tile, deal.ctx)
        got = scoring._score_compiled(*args)
        assert got is not False, f"hand {i}: the C scorer refused {deal}"
        want = python_only(score_hand, *args)
        assert got == want, f"hand {i} (seed {seed}): C {got} != Python {want}\n{deal}"
        assert score_hand(*args) == want and score_hand(*args, validate=False) == want
        if got is not None:
            seen.update(name for name, _ in got.yaku)
        if i % 4 == 0:  # the same tiles with another winning tile: mostly no win, sometimes another win
            concealed, win = _no_win_variant(deal, rng)
            got = scoring._score_compiled(concealed, deal.melds, win, deal.ctx)
            assert got == python_only(score_hand, concealed, deal.melds, win, deal.ctx, validate=False), deal
            nones += got is None
    assert nones > n // 8  # the variants did test the "no win" answer
    return seen


def test_c_scorer_equals_python_on_20000_random_hands(python_only):
    seen = _agree(20_000, seed=2026, python_only=python_only)
    missing = sorted(set(YAKU_HAN) - set(seen))
    assert not missing, f"the random hands never produced {missing}"


@pytest.mark.slow
def test_c_scorer_equals_python_on_200000_random_hands(python_only):
    seen = _agree(200_000, seed=7, python_only=python_only)
    assert set(YAKU_HAN) <= set(seen)


@pytest.mark.skipif(
    not MJLOG_DIR.is_dir(), reason="the Tenhou logs (tests/data/mjlog) arrive with the Riichi engine's branch"
)
def test_every_tenhou_win_scores_through_the_c_path_as_tenhou_scored_it(python_only):
    from tests.tenhou_agari import wins

    n = 0
    for path in sorted(MJLOG_DIR.glob("*.mjlog")):
        for w in wins(path):
            n += 1
            r = scoring._score_compiled(w.concealed, w.melds, w.win_tile, w.ctx)
            assert r not in (None, False), w.where
            assert dict(r.yaku) == w.yaku, w.where
            assert r.cost["total"] == w.points, w.where
            assert r.fu == w.fu, w.where
            assert r == python_only(score_hand, w.concealed, w.melds, w.win_tile, w.ctx), w.where
    assert n >= 290


def test_yaku_names_are_score_hands_names():
    names = _score.yaku_names()
    assert len(set(names)) == len(names)
    assert set(names) == set(YAKU_HAN) - {"dora", "ura dora", "aka dora"}


def test_group_bounds_hold_for_every_count_vector():
    # every suit (9 counts) and honour group (7) of at most 14 tiles whose size allows sets (and a pair):
    # the C enumeration never passes its bound (-1) and finds at most 5 set lists with a pair, 4 without
    most = Counter()
    for honour, n in ((False, 9), (True, 7)):
        for key in itertools.product(range(5), repeat=n):
            size = sum(key)
            if size > 14 or size % 3 == 1:
                continue
            with_pair = size % 3 == 2
            k = _score.group_options(bytes(key), honour, with_pair)
            assert k >= 0, key
            most[with_pair] = max(most[with_pair], k)
    assert most[True] == 5 and most[False] == 4


def _random_concealed(rng: random.Random, size: int) -> list[int]:
    """``size`` tile types: from a random winning hand's concealed tiles, or random tiles."""
    if rng.random() < 0.6:
        while True:
            deal = random_deal(rng)
            if len(deal.concealed) >= size:
                types = [TYPE34[t] for t in deal.concealed]
                rng.shuffle(types)
                return types[:size]
    return [TYPE34[t] for t in rng.sample(range(136), size)]


def test_waits_and_win_test_equal_python(python_only):
    rng = random.Random(11)
    tenpai = 0
    for k in range(6000):
        size = (14, 11, 8, 5, 2)[k % 5]
        tiles = _random_concealed(rng, size)
        c = _counts(tiles)
        assert _score.is_winning(bytes(c)) == is_winning_shape(c), c
        c[tiles[rng.randrange(size)]] -= 1
        got = _score.waits(bytes(c))
        assert got == python_only(waits, c), c
        assert waits(c) == got  # hand.waits runs the C path
        tenpai += bool(got)
    assert tenpai > 1000
    # a fifth copy is no wait: 123456789m + 5555p
    c = _counts([*range(9, 18), 22, 22, 22, 22])
    assert _score.waits(bytes(c)) == []
    # thirteen orphans: 13 types wait on all 13; 12 (one doubled) on the missing one; 11 on none
    orphans = [0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33]
    for hand13, want in ((orphans, orphans), (orphans[:12] + [0], [33]), (orphans[:11] + [0, 8], [])):
        c = _counts(hand13)
        assert _score.waits(bytes(c)) == python_only(waits, c) == want


def test_tenpai_has_yaku_and_discard_flags_equal_python(python_only):
    rng = random.Random(3)
    some = 0
    for k in range(1500):
        deal = random_deal(rng)
        ctx = WinContext(is_tsumo=False, seat_wind=k % 4, round_wind=(k // 4) % 2)
        concealed = list(deal.concealed)
        if k % 2:  # a random tile instead of one of the hand's: near-tenpai hands
            used = set(concealed) | {t for m in deal.melds for t in m.tiles}
            concealed[rng.randrange(len(concealed))] = rng.choice([t for t in range(136) if t not in used])
        flags = scoring.discards_tenpai_yaku(concealed, deal.melds, ctx)
        assert flags == python_only(scoring.discards_tenpai_yaku, concealed, deal.melds, ctx), deal
        some += any(flags)
        rest = concealed[1:]
        assert scoring.tenpai_has_yaku(rest, deal.melds, ctx) == python_only(
            scoring.tenpai_has_yaku, rest, deal.melds, ctx
        ), deal
    assert some > 300


def test_a_wait_whose_copies_are_all_in_hand_and_melds_is_none(python_only):
    from tests.test_riichi_scoring import tiles

    ctx = WinContext(is_tsumo=False, seat_wind=1)
    # 234m234p + a 6s tanki, with a chi of 456m: tanyao on the 6s wait
    used: dict[int, int] = {}
    concealed = tiles("234m234p6s", used)
    chi = tuple(tiles("456m", used))
    other = tuple(tiles("678s", used))
    melds = [Meld("chi", chi, chi[0]), Meld("chi", other, other[0])]
    assert scoring.tenpai_has_yaku(concealed, melds, ctx)
    assert python_only(scoring.tenpai_has_yaku, concealed, melds, ctx)
    # a pon of 6s instead: the other three 6s are in the pon, so no 6s is left to win on
    used = {}
    concealed = tiles("234m234p6s", used)
    chi = tuple(tiles("456m", used))
    pon = tuple(tiles("666s", used))
    melds = [Meld("chi", chi, chi[0]), Meld("pon", pon, pon[0])]
    assert not scoring.tenpai_has_yaku(concealed, melds, ctx)
    assert not python_only(scoring.tenpai_has_yaku, concealed, melds, ctx)


def test_switch_and_bad_input():
    import os
    import subprocess
    import sys

    assert hand.compiled()
    code = "from mjenv.rulesets.riichi import hand, scoring; print(hand.compiled(), scoring._ext)"
    for value, want in (("1", "False None"), ("0", "True <module")):
        env = {**os.environ, "MJENV_NO_KERNEL": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.startswith(want), out
    with pytest.raises(ValueError, match="34 bytes"):
        _score.waits(bytes(33))
    with pytest.raises(ValueError, match="3n \\+ 1"):
        _score.waits(bytes(34))
    with pytest.raises(ValueError, match="malformed"):
        _score.score(bytes([0] * 5), 0, 0, b"", 0, 0, 0, b"", b"")
    with pytest.raises(ValueError, match="kind is 0..4"):
        _score.tenpai_has_yaku(bytes(34), bytes([7, 0, 0, 0]), 0, 0)


def test_numpy_ids_and_unchecked_odd_ids_behave_as_on_the_python_path(python_only):
    import numpy as np

    deal = random_deal(random.Random(5))
    args = (np.array(deal.concealed), deal.melds, np.int64(deal.win_tile), deal.ctx)
    assert score_hand(*args) == python_only(score_hand, *args) is not None
    # an id over 135 without the checks: the C scorer refuses it and the Python path answers (here: raises)
    bad = [200, *deal.concealed[1:]]
    with pytest.raises(IndexError):
        python_only(score_hand, bad, deal.melds, deal.win_tile, deal.ctx, validate=False)
    assert scoring._score_compiled(bad, deal.melds, deal.win_tile, deal.ctx) is False
    with pytest.raises(IndexError):
        score_hand(bad, deal.melds, deal.win_tile, deal.ctx, validate=False)


def test_the_header_compiles_alone_and_scores_fixed_hands(tmp_path):
    """``_score.h`` as the compiled step includes it: no warnings, and fixed hands' values from the rules."""
    import shutil
    import subprocess

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    src = Path(__file__).parent / "riichi_score_header.c"
    exe = tmp_path / "score_header"
    flags = ["-std=c99", "-O1", "-Wall", "-Wextra", "-pedantic", "-Werror"]
    subprocess.run([cc, *flags, str(src), "-o", str(exe)], check=True, capture_output=True, text=True)
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stdout
