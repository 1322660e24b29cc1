"""The per-action views (``effective_count_after_discard``, ``deficiency_after_kong``) equal
the deficiency core's public functions, on played hands of every preset and on random seats, on the
compiled kernel and on the numpy path."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mjenv.deficiency import deficiency, deficiency_after_discard, kernel, sichuan_deficiency
from mjenv.deficiency.features import NOT_APPLICABLE, effective_count_after_discard_rows
from mjenv.deficiency.seat_features import DeficiencyFeatures
from mjenv.game import Phase
from mjenv.knowledge import knowledge_base
from mjenv.observation import ObservationSpec
from mjenv.rulesets import shared_names

from .test_kernel import _random_seats
from .test_observation import _states

NEW_VIEWS = ("effective_count_after_discard", "deficiency_after_kong")


@pytest.fixture(params=["kernel", "numpy"])
def path(request, monkeypatch):
    if request.param == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    return request.param


def _reference(hand: np.ndarray, kb: np.ndarray, melds_needed: int, missing: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """The two views of a seat on its discard turn, from the core's public functions (hbba deficiency):
    the effective count of the hand minus t, and the deficiency after a kong of t (concealed when four
    are held: the hand minus 4t with one meld less to build; else added: the hand minus t). With
    ``missing`` (Sichuan) the core's Sichuan deficiency (no tile of the missing suit; seven
    pairs, a four of a kind as two pairs, while no meld is declared) of every row instead."""
    if missing is not None:
        return _sichuan_reference(hand, kb, melds_needed, missing)
    count = effective_count_after_discard_rows(hand[None], kb[None], np.array([melds_needed]))[0]
    exposed = 5 - melds_needed  # any melds count works: only melds - exposed_melds matters
    after = deficiency_after_discard(hand, kb, exposed_melds=exposed, melds=5)
    kong = np.where(hand > 0, after, NOT_APPLICABLE)
    for t in np.flatnonzero(hand >= 4):
        if melds_needed >= 1:
            rest = hand.copy()
            rest[t] -= 4
            kong[t] = deficiency(rest, kb, method="hbba", exposed_melds=exposed + 1, melds=5)
    return count, kong


def _sichuan_reference(hand, kb, melds_needed, missing):
    """:func:`_reference` by :func:`mjenv.deficiency.sichuan_deficiency` of each row (H - t, and
    H - t + u with KB - u for every u the KB holds), in one batch."""
    exposed, unit = 4 - melds_needed, np.eye(len(hand), dtype=hand.dtype)
    rows, kbs, where = [], [], []
    for t in np.flatnonzero(hand > 0):
        rows.append(hand - unit[t])
        kbs.append(kb)
        where.append((t, -1))
        for u in np.flatnonzero(kb > 0):
            rows.append(hand - unit[t] + unit[u])
            kbs.append(kb - unit[u])
            where.append((t, u))
    value = sichuan_deficiency(np.array(rows), np.array(kbs), missing_suit=[missing] * len(rows),
                               exposed_melds=exposed)
    after = {t: v for (t, u), v in zip(where, value) if u < 0}
    count = np.full(len(hand), NOT_APPLICABLE)
    kong = np.full(len(hand), NOT_APPLICABLE)
    for t, d in after.items():
        count[t] = sum(int(kb[u]) for (t2, u), v in zip(where, value) if t2 == t and u >= 0 and v < d)
        kong[t] = d
        if hand[t] >= 4 and melds_needed >= 1:  # a concealed kong declares a meld: no seven pairs after it
            kong[t] = sichuan_deficiency(hand - 4 * unit[t], kb, missing_suit=missing, exposed_melds=exposed + 1)
    return count, kong


@pytest.mark.parametrize("rules", sorted(shared_names()))
def test_action_views_equal_the_core_on_played_hands(rules, path):
    spec = ObservationSpec(rules)
    assert spec.compiled == (path == "kernel")
    turns = 0
    for seed in (31, 32):
        games = _states(seed, 400, rules=rules)
        obs, _ = spec.observe_many(games, [spec.new_memo() for _ in games])
        for g, rows in zip(games, obs):
            for s in range(4):
                v = spec.decode(rows[s])
                if g.phase == Phase.DISCARD and g.current_player == s:
                    turns += 1
                    hand, kb = g.hands[s].astype(np.int64), knowledge_base(g, s).astype(np.int64)
                    gone = np.zeros_like(hand, dtype=bool)
                    if spec.rules.missing_suit:  # Sichuan: the features of the hand without
                        m = int(g.missing[s])  # its missing suit, whose tiles cost their discard only
                        gone[9 * m : 9 * m + 9] = hand[9 * m : 9 * m + 9] > 0
                        hand[9 * m : 9 * m + 9] = kb[9 * m : 9 * m + 9] = 0
                    if gone.any():
                        # still holding it: only those tiles may go, and discarding one leaves the
                        # hand without them (its features' input) as it is
                        assert (v["deficiency_after_discard"][gone] == v["deficiency"][0]).all()
                        assert (v["effective_count_after_discard"][gone] == v["effective_count"][0]).all()
                        assert (v["deficiency_after_kong"][gone] == NOT_APPLICABLE).all()
                        continue
                    count, kong = _reference(hand, kb, spec.rules.melds - g.num_melds(s),
                                             int(g.missing[s]) if spec.rules.missing_suit else None)
                    np.testing.assert_array_equal(v["effective_count_after_discard"], count)
                    np.testing.assert_array_equal(v["deficiency_after_kong"], kong)
                    # the added-kong entries are the discard's deficiency: one fact, one value
                    held = hand > 0
                    np.testing.assert_array_equal(v["deficiency_after_kong"][held & (hand < 4)],
                                                  v["deficiency_after_discard"][held & (hand < 4)])
                else:
                    for name in NEW_VIEWS:
                        assert (v[name] == NOT_APPLICABLE).all(), (name, int(g.phase), s)
    assert turns > 40


@pytest.mark.parametrize("num_tile_types", [27, 34])
def test_action_features_of_random_seats_equal_the_core(num_tile_types):
    rng = np.random.default_rng(100 + num_tile_types)
    numpy_path = DeficiencyFeatures(num_tile_types, backend="numpy")
    checked = quads = 0
    for _ in range(150):
        hands, kbs, needed, turn, claim, chow = _random_seats(rng, num_tile_types, 4)
        turn = turn | (hands.sum(axis=1) == 3 * needed + 2)  # every full hand discards
        for got in (kernel.features(hands, kbs, needed, turn, claim, chow),
                    numpy_path.compute(hands, kbs, needed, turn, claim, chow)):
            for s in range(len(hands)):
                if not turn[s] or hands[s].sum() != 3 * needed[s] + 2:
                    if not turn[s]:
                        for name in NEW_VIEWS:
                            assert (got[name][s] == NOT_APPLICABLE).all()
                    continue
                count, kong = _reference(hands[s].astype(np.int64), kbs[s].astype(np.int64), int(needed[s]))
                np.testing.assert_array_equal(got["effective_count_after_discard"][s], count)
                np.testing.assert_array_equal(got["deficiency_after_kong"][s], kong)
                checked += 1
                quads += int((hands[s] >= 4).any() and needed[s] >= 1)
    assert checked > 200 and quads > 20  # concealed kongs were really exercised


def test_the_views_are_in_the_spec_table_and_decode():
    spec = ObservationSpec("honours")
    t = spec.num_tile_types
    for name in NEW_VIEWS:
        assert spec.views[name] == (t,)
        assert f"`{name}`" in spec.markdown_table()
        sl = spec.slices[name]
        assert (spec.low[sl] == NOT_APPLICABLE).all()
    assert spec.high[spec.slices["effective_count_after_discard"]].max() == 4 * t
    x = np.arange(spec.size, dtype=np.float32)
    sl = spec.slices["deficiency_after_kong"]
    np.testing.assert_array_equal(spec.decode(x)["deficiency_after_kong"], x[sl])


def test_the_new_views_are_the_only_change_to_what_the_env_shows(monkeypatch):
    # the digests of the first hands per preset recorded before the views existed (commit cc1c965):
    # with the two views dropped from the spec, every observation, mask, reward, info and log is the same
    from .behaviour_digest import PRESETS, digests

    before = json.loads((Path(__file__).parent / "golden" / "behaviour_digest_before_action_views.json").read_text())
    views = ObservationSpec._view_list
    monkeypatch.setattr(ObservationSpec, "_view_list", lambda self: [v for v in views(self) if v.name not in NEW_VIEWS])
    assert "deficiency_after_kong" not in ObservationSpec("basic").views
    for preset in PRESETS:
        if preset in ("taiwan16", "sichuan"):  # their games changed since
            continue
        assert digests(preset, before["hands"]) == before["presets"][preset], preset
