"""research/paper_tables.py at a tiny size, so the suite cannot rot; and its data generators."""

from __future__ import annotations

import json

import numpy as np
import pytest

from research import paper_tables as pt


def test_random_hands_have_exactly_the_requested_suits():
    rng = np.random.default_rng(0)
    for suits in (1, 2, 3):
        hands = pt.random_hands(rng, suits, 20)
        assert hands.shape == (20, 27) and (hands.sum(axis=1) == 14).all() and hands.max() <= 4
        for h in hands:
            assert len({int(t) // 9 for t in np.flatnonzero(h)}) == suits


def test_kbs_are_compatible_sized_and_in_the_hands_suits():
    rng = np.random.default_rng(1)
    for suits in (1, 2, 3):
        hand = pt.random_hands(rng, suits, 1)[0]
        sizes = pt.kb_sizes(rng, pt.K_MAX[suits], 200)
        assert sizes.min() >= 0 and sizes.max() <= pt.K_MAX[suits]
        # normal around the middle of the range: the middle half holds most of the draws
        mid = (sizes >= pt.K_MAX[suits] / 4) & (sizes <= 3 * pt.K_MAX[suits] / 4)
        assert 0.55 < mid.mean() < 0.85
        kbs = pt.random_kbs(rng, hand, sizes)
        np.testing.assert_array_equal(kbs.sum(axis=1), sizes)
        assert ((kbs + hand) <= 4).all()
        held_suits = {int(t) // 9 for t in np.flatnonzero(hand)}
        outside = [t for t in range(27) if t // 9 not in held_suits]
        assert not kbs[:, outside].any()
    # the largest KB is every unseen tile of the hand's suits
    hand = pt.random_hands(rng, 1, 1)[0]
    full = pt.random_kbs(rng, hand, np.array([22]))[0]
    suit = int(np.flatnonzero(hand)[0]) // 9
    np.testing.assert_array_equal(full[9 * suit:9 * suit + 9], 4 - hand[9 * suit:9 * suit + 9])


def test_bins_cover_the_range_like_the_papers():
    for suits, k_max in pt.K_MAX.items():
        idx = pt.bin_index(suits, np.arange(k_max + 1))
        assert (idx >= 0).all() and idx[0] == 0 and idx[-1] == len(pt.BINS[suits]) - 1
        assert (np.diff(idx) >= 0).all()
        assert pt.bin_index(suits, np.array([k_max + 1]))[0] == -1


def test_distinct_one_suit_hands_is_the_ndde_papers_dataset_size():
    # the NDDE paper tests 118,800 one-type hands: exactly the distinct one-suit 14-tile hands
    hands = pt.distinct_one_suit_hands()
    assert len(hands) == 118800 and (hands.sum(axis=1) == 14).all() and hands.max() == 4
    assert len({h.tobytes() for h in hands}) == len(hands)


def test_paper_figures_are_transcribed_consistently():
    for suits in (1, 2, 3):
        n = len(pt.BINS[suits]) + 1
        t9 = pt.HBBA_T9[suits]
        assert all(len(t9[k]) == n for k in ("pairs", "QSA", "BDA", "WRA", "HBBA"))
        assert sum(t9["pairs"][:-1]) == t9["pairs"][-1]
        assert len(pt.HBBA_T8[suits]) == n and len(pt.BDA_T123[suits]) == n
        assert sum(r[0] for r in pt.BDA_T123[suits][:-1]) == pt.BDA_T123[suits][-1][0]
        assert pt.HBBA_T9[suits]["pairs"][-1] == 1000 * pt.PAPER_KBS_PER_HAND[suits]


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("paper_tables")
    argv = ["--hands", "2", "--kbs", "3", "--reference", "3", "--ndde-paper-hands", "10", "--ndde-settings", "ndde1",
            "--out", str(out), "--figures", str(out / "figures"), "--no-progress", "--seed", "5"]
    rc = pt.main(argv)
    return rc, out


def test_tiny_run_writes_consistent_outputs(tiny_run):
    rc, out = tiny_run
    assert rc == 0
    report = json.loads((out / "paper_tables.json").read_text())
    md = (out / "paper_tables.md").read_text()
    assert set(report["classes"]) == {"1", "2", "3"}
    assert "dp" in report["methods_run"]
    for key, cls in report["classes"].items():
        suits = int(key)
        assert cls["pairs"] == 2 * 3 and cls["hands"] == 2
        assert len(cls["bins"]) == len(pt.BINS[suits]) + 1
        assert sum(b["pairs"] for b in cls["bins"][:-1]) == cls["bins"][-1]["pairs"] == cls["pairs"]
        assert cls["reference_checked"] == 3 and cls["reference_mismatches"] == []
        overall = cls["bins"][-1]
        # exact methods: 100% against the exact truth
        for method in pt.EXACT:
            if method in report["methods_run"]:
                assert overall["accuracy"][method] == 1.0, (key, method)
        if "bda" in report["methods_run"]:
            assert overall["bda_accuracy_truth_le_4"] in (None, 1.0)  # BDA paper Theorem 3
        for name, t in overall["time_ms"].items():
            assert t["mean"] > 0, name
        assert overall["paper_accuracy"]["HBBA"] == 1.0
        assert f"## {suits}-suit hands" in md
        if "ndde" in report["methods_run"]:
            r = cls["ndde"]["ndde1"]
            assert 0.0 <= r["accuracy_ordinary"] <= 1.0 and r["population"] == 20 and r["generations"] == 50
    assert "### Accuracy" in md and "### Time per pair (ms)" in md
    for f in report["figures"]:
        data = (out / "figures" / f.split("/")[-1]).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


def test_bad_arguments_exit_with_an_error():
    with pytest.raises(SystemExit):
        pt.parse_args(["--hands", "0"])
    with pytest.raises(SystemExit):
        pt.parse_args(["--kbs", "1", "2"])
    with pytest.raises(SystemExit):
        pt.parse_args(["--methods", "qsa"])
