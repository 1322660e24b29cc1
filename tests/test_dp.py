"""The ``dp`` backend: table paths equal the slow reference and the plain forward DP."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from mjenv.deficiency import INCOMPLETABLE, deficiency, dp
from mjenv.deficiency import _dp_tables as tables
from mjenv.deficiency.reference import reference_one

from .conftest import KB_MODES, random_case

SUIT_SETS = [(0,), (1,), (2,), (0, 1), (1, 2), (0, 1, 2), (3,), (0, 3), (1, 2, 3), (0, 1, 2, 3)]


def _batch(rng, n, *, kb_modes=KB_MODES, melds=4, honours=True, extra=(1, 2)):
    """n random cases of every shape: (hands int8[n, T], kbs int8[n, T], melds_needed int64[n])."""
    num_t = 34 if honours else 27
    hands, kbs, needed = [], [], []
    for i in range(n):
        suits = SUIT_SETS[i % len(SUIT_SETS)] if honours else SUIT_SETS[i % 6]
        exposed = int(rng.integers(0, 4))
        h, k = random_case(
            rng,
            suits=suits,
            num_tile_types=num_t,
            exposed=exposed,
            extra=int(rng.choice(extra)),
            kb_mode=kb_modes[i % len(kb_modes)],
            four_copies=bool(i % 5 == 0),
            melds=melds,
        )
        hands.append(h)
        kbs.append(k)
        needed.append(melds - exposed)
    return np.array(hands, np.int8), np.array(kbs, np.int8), np.array(needed, np.int64)


def test_dp_equals_reference_on_random_cases():
    rng = np.random.default_rng(20)
    hands, kbs, needed = _batch(rng, 300)
    expected = np.array([reference_one(h, k, int(m)) for h, k, m in zip(hands, kbs, needed)])
    got = dp.deficiency_batch(hands, kbs, needed)
    assert (got == expected).all(), np.flatnonzero(got != expected)[:5]
    # the sample covers what it claims: incompletable cases, KB = 4 - H rows and others
    assert (expected == INCOMPLETABLE).any() and (expected <= 3).any()
    full = (hands + kbs == 4).all(axis=1)
    assert full.any() and (~full).any()


def test_dp_equals_reference_with_five_melds_and_tiny_kbs():
    rng = np.random.default_rng(21)
    hands, kbs, needed = _batch(rng, 120, kb_modes=("tiny", "random", "full"), melds=5, honours=False)
    expected = np.array([reference_one(h, k, int(m)) for h, k, m in zip(hands, kbs, needed)])
    assert (dp.deficiency_batch(hands, kbs, needed) == expected).all()
    assert needed.max() == 5


@pytest.mark.parametrize("honours", [False, True])
@pytest.mark.parametrize("kb_mode", ["full", "random"])
def test_table_paths_equal_plain_dp_on_thousands(honours, kb_mode):
    rng = np.random.default_rng(22)
    hands, kbs, needed = _batch(rng, 2500, kb_modes=(kb_mode,), honours=honours)
    assert (dp.deficiency_batch(hands, kbs, needed) == dp.plain_deficiency_batch(hands, kbs, needed)).all()


def test_mixed_large_batch_crosses_blocks_and_both_paths():
    # More hands than one block and than the small-batch threshold, KB = 4 - H rows mixed with others.
    rng = np.random.default_rng(23)
    n = dp._BLOCK + dp._SMALL + 7
    hands, kbs, needed = _batch(rng, 600, kb_modes=("full", "random", "empty", "suit"), honours=True)
    pick = rng.integers(0, len(hands), n)
    hands, kbs, needed = hands[pick], kbs[pick], needed[pick]
    got = dp.deficiency_batch(hands, kbs, needed)
    assert (got == dp.plain_deficiency_batch(hands, kbs, needed)).all()
    full_only = (hands + kbs == 4).all(axis=1)
    assert (dp.deficiency_batch(hands[full_only], kbs[full_only], needed[full_only]) == got[full_only]).all()


def test_any_hand_size_three_m_plus_three_and_zero_melds():
    # features evaluate 3m+3-tile hands (draw, then best discard): min over discards of the 3m+2 hands
    rng = np.random.default_rng(24)
    hands, kbs, needed = _batch(rng, 200, extra=(2,), honours=False, kb_modes=("random", "full"))
    bigger_h, bigger_k, rows = [], [], []
    for i, (h, k) in enumerate(zip(hands, kbs)):
        t = np.flatnonzero(k > 0)
        if len(t):
            h2, k2 = h.copy(), k.copy()
            h2[t[0]] += 1
            k2[t[0]] -= 1
            bigger_h.append(h2)
            bigger_k.append(k2)
            rows.append(i)
    bigger_h, bigger_k, m = np.array(bigger_h), np.array(bigger_k), needed[rows]
    got = dp.deficiency_batch(bigger_h, bigger_k, m)
    for h, k, mm, g in zip(bigger_h, bigger_k, m, got):
        best = min(reference_one(h - np.eye(27, dtype=np.int8)[d], k, int(mm)) for d in np.flatnonzero(h))
        assert g == best
    # m = 0: only a pair is needed
    h = np.zeros((3, 27), np.int8)
    h[0, 4] = 2
    h[1, [4, 5]] = 1
    h[2, 9] = 1
    k = np.zeros((3, 27), np.int8)
    k[1, 5] = 1
    assert dp.deficiency_batch(h, k, np.zeros(3, np.int64)).tolist() == [0, 1, INCOMPLETABLE]


@pytest.mark.parametrize(
    "hand, kb, exposed, expected",
    [
        ("(B3B5B6B9)(C2C2C3C6C9)(D1D1D2D5D8)", None, 0, 6),
        ("()(C1C4C6C7C8C9)(D1D2D3D6D6D7D8)", "(001100121)(010000030)(032242321)", 0, 4),
        ("(B1B2B2B3B3B4B7B7B7)(C1C1)(D4D5D6)", None, 0, 0),
        ("123456789m11123p", None, 0, 0),
        ("11122233344455s", None, 0, 0),
        ("1222333444s", None, 1, 1),  # 234 234 234 (or three pongs) + a pair of 1s still missing
        ("111z222z333z444z55z", None, 0, 0),
        ("1z2z3z4z5z6z7z1m9m1p9p1s9s", None, 0, 9),  # thirteen orphans: no regular form
        ("1m", None, 4, 1),
    ],
)
def test_known_values(hand, kb, exposed, expected):
    assert deficiency(hand, kb, method="dp", exposed_melds=exposed) == expected


def test_incompletable_when_the_only_meld_needs_a_missing_tile():
    # 13 tiles, KB holds one tile: no W fits unless that tile completes the hand
    hand = "123m456m789m123p5s"
    kb = np.zeros(27, np.int8)
    kb[2] = 1  # 3s: drawing it leaves 5s3s, no pair possible
    assert deficiency(hand, kb, method="dp") == INCOMPLETABLE
    kb = np.zeros(27, np.int8)
    kb[4] = 1  # 5s: pairs the 5s
    assert deficiency(hand, kb, method="dp") == 1


def test_suit_tables_hold_hand_checked_values():
    suit = tables.full_suit_table()
    assert suit.shape == (5**9, tables.KMAX + 1, 2)
    empty = suit[0]
    # an empty suit: k melds and p pairs cost 3k + 2p tiles
    assert [[int(empty[k, p]) for p in (0, 1)] for k in range(6)] == [[3 * k, 3 * k + 2] for k in range(6)]

    def row(counts):
        return sum(int(c) * 5 ** (8 - r) for r, c in enumerate(counts))

    nine = suit[row([1] * 9)]  # 123456789
    assert nine[3, 0] == 0 and nine[3, 1] == 2 and nine[4, 0] == 3 and nine[1, 0] == 0
    assert suit[row([4, 0, 0, 0, 0, 0, 0, 0, 0])][1, 1] == 2  # 1111: pong + pair needs 5, so 11 + 234
    honours = tables.full_honour_table()
    assert honours[0][1, 0] == 3 and honours[0][5, 1] == 17
    left, right = tables.half_tables()
    assert left.shape == (15**5, tables.KMAX + 1, 2, 9) and right.shape == (15**4, tables.KMAX + 1, 2, 9)
    # all-zero options (h = a = 0): only the empty pattern, and only with no crossing chow
    assert left[0][0, 0, 0] == 0 and (left[0][1:] == tables.INF).all() and (left[0][0, 0, 1:] == tables.INF).all()


def test_tables_are_lazy_and_import_is_light():
    code = (
        "import sys, mjenv.deficiency as d\n"
        "from mjenv.deficiency import _dp_tables as t\n"
        "assert t.full_suit_table.cache_info().currsize == 0\n"
        "assert t.half_tables.cache_info().currsize == 0\n"
        "assert not {'torch', 'pettingzoo', 'gymnasium'} & set(sys.modules)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_empty_and_single_batches():
    assert dp.deficiency_batch(np.zeros((0, 27), np.int8), np.zeros((0, 27), np.int8), np.zeros(0, np.int64)).shape == (
        0,
    )
    assert deficiency("123m456m789m1p2p3p5s", method="dp") == 1


def test_speed_benchmark_runs_at_a_tiny_size(capsys):
    # keeps benchmarks/deficiency_speed.py from rotting; figures are not checked (no timed assertions)
    from benchmarks import deficiency_speed

    deficiency_speed.main(["--quick", "--kb-sizes", "100", "--torch-sizes", "100", "--slow-peer-hands", "20"])
    out = capsys.readouterr().out
    assert "dp backend (deficiency_batch)" in out and "random knowledge bases" in out
    assert "small batches" in out


@pytest.mark.parametrize("variant", ["padded", "shifted", "pairs"])
@pytest.mark.parametrize("boundary", [False, True])
def test_minplus_variants_equal_brute_force(variant, boundary, monkeypatch):
    # the three ways of combining (k, p) vectors must all give the plain definition of min-plus
    monkeypatch.setattr(dp, "_SMALL", 10**9 if variant == "padded" else 0)
    monkeypatch.setattr(dp, "_MEDIUM", 10**9 if variant == "shifted" else 0)
    rng = np.random.default_rng(25)
    shape = (12, 40, 9) if boundary else (12, 40)
    a = rng.integers(0, tables.INF + 1, shape).astype(np.uint8)
    b = rng.integers(0, tables.INF + 1, shape).astype(np.uint8)
    for kmax in range(6):
        for final in (False, True):
            got = dp._minplus(a, b, kmax, final)
            want = []
            for k in range(kmax + 1):
                for p in (1,) if final else (0, 1):
                    sums = [
                        a[2 * k1 + p1].astype(int) + b[2 * (k - k1) + p - p1]
                        for k1 in range(k + 1)
                        for p1 in range(p + 1)
                    ]
                    best = np.min(sums, axis=0)
                    want.append(np.minimum(best.min(axis=-1) if boundary else best, tables.INF))
            assert (got == np.array(want)).all(), (kmax, final)


@pytest.mark.parametrize("compiled", [True, False])
def test_deficiency_rows_of_any_hand_size_equal_the_reference(compiled, monkeypatch):
    """deficiency_rows (parts of hands, such as a hand's simples: any size, no validation), on the compiled loop and
    on numpy dp, equals the slow reference, with empty hands, tiny KBs and four copies among them."""
    from mjenv.deficiency import _run

    if not compiled:
        monkeypatch.setattr(_run, "_fast_ready", lambda: False)
    elif not _run._fast_ready():
        pytest.skip("the compiled dp (mjenv.deficiency._fast) is not built")
    rng = np.random.default_rng(31)
    total = rng.integers(0, 5, (300, 34))
    hands = np.minimum(rng.integers(0, 5, (300, 34)), total)
    hands[rng.random((300, 34)) < 0.7] = 0  # hand sizes 0 to about 20
    kbs = total - hands
    kbs[rng.random((300, 34)) < 0.5] = 0
    needed = rng.integers(0, 5, 300)
    got = _run.deficiency_rows(hands, kbs, needed)
    assert got.dtype == np.int32 and len(set(hands.sum(axis=1) % 3)) == 3
    for h, k, m, g in zip(hands, kbs, needed, got):
        assert g == min(reference_one(h, k, int(m)), INCOMPLETABLE), (h.tolist(), k.tolist(), m)
