"""Seven pairs in the deficiency features against the enumerating reference.

Where a rule set lets seven pairs win, every feature of a seat with no declared meld is the minimum of
melds-and-pair and seven pairs (``mjenv.deficiency.seven_pairs``); the effective tiles are the draws
that lower that minimum. Every expected value here comes from :mod:`mjenv.deficiency.reference`
(``reference_one`` with ``exclude_suit``, ``reference_seven_pairs``) applied to the rows the
definition names (the hand after each draw, discard, discard then draw, claim, kong), never from the
code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.deficiency import kernel
from mjenv.deficiency.features import CLAIM_KINDS, NOT_APPLICABLE
from mjenv.deficiency.reference import (
    INCOMPLETABLE,
    reference_one,
    reference_seven_pairs,
    reference_thirteen_orphans,
)
from mjenv.deficiency.seat_features import DeficiencyFeatures, PartCache
from mjenv.deficiency.seven_pairs import check_seven_pairs, seven_pairs_deficiency, variants

BACKENDS = ["numpy", pytest.param("c", marks=pytest.mark.skipif(not kernel.available(), reason="no kernel"))]


class Reference:
    """The definition's deficiency with seven pairs (``form`` "distinct" or "fours") or Riichi's closed
    forms ("riichi": seven distinct pairs, thirteen orphans), by enumeration, remembered per row."""

    def __init__(self, form: str | None, exclude_suit: int | None = None, melds: int = 4):
        self.form, self.exclude, self.melds, self.seen = form, exclude_suit, melds, {}

    def __call__(self, hand: np.ndarray, kb: np.ndarray, m: int) -> int:
        key = (hand.tobytes(), kb.tobytes(), m)
        if key not in self.seen:
            v = reference_one(hand, kb, m, self.exclude)
            if self.form is not None and m == self.melds:
                v = min(v, reference_seven_pairs(hand, kb, self.exclude, fours=self.form == "fours"))
            if self.form == "riichi" and m == self.melds:
                v = min(v, reference_thirteen_orphans(hand, kb))
            self.seen[key] = v
        return self.seen[key]

    def features(self, hand, kb, m, turn, claim, chow) -> dict[str, np.ndarray]:
        """Every feature of one seat from the definition (the contract of ``DeficiencyFeatures.compute``)."""
        t_n = len(hand)
        unit = np.eye(t_n, dtype=hand.dtype)
        now = self(hand, kb, m)
        eff = np.array([kb[u] > 0 and self(hand + unit[u], kb - unit[u], m) < now for u in range(t_n)])
        out = {
            "deficiency": now,
            "effective_tiles": eff,
            "effective_count": int((eff * kb).sum()),
            "deficiency_after_discard": np.full(t_n, NOT_APPLICABLE),
            "effective_count_after_discard": np.full(t_n, NOT_APPLICABLE),
            "deficiency_after_kong": np.full(t_n, NOT_APPLICABLE),
            "deficiency_after_claim": np.full(len(CLAIM_KINDS), NOT_APPLICABLE),
        }
        for t in np.flatnonzero(hand > 0) if turn else ():
            rest = hand - unit[t]  # the discarded copy does not return to the KB
            d = self(rest, kb, m)
            out["deficiency_after_discard"][t] = d
            out["effective_count_after_discard"][t] = sum(
                int(kb[u]) for u in range(t_n) if kb[u] > 0 and self(rest + unit[u], kb - unit[u], m) < d
            )
            if hand[t] >= 4 and m >= 1:  # a concealed kong: one meld declared
                out["deficiency_after_kong"][t] = self(hand - 4 * unit[t], kb, m - 1)
            else:  # an added kong leaves the hand minus t, as a discard does
                out["deficiency_after_kong"][t] = d
        if claim >= 0 and m >= 1:
            suited, rank = claim < 27, claim % 9
            uses = [(1, 2) if chow and suited and rank <= 6 else None,
                    (-1, 1) if chow and suited and 1 <= rank <= 7 else None,
                    (-2, -1) if chow and suited and rank >= 2 else None, (0, 0), (0, 0, 0)]  # fmt: skip
            for col, offsets in enumerate(uses):
                if offsets is None:
                    continue
                rest = hand.copy()
                for off in offsets:
                    rest[claim + off] -= 1
                if (rest >= 0).all():
                    out["deficiency_after_claim"][col] = self(rest, kb, m - 1)
        return out


def _random_seats(rng, n: int, num_tile_types: int, missing: bool, zeroed: bool = True):
    """Rows like the observation's: 13 or 14 tiles, some with a declared meld, some near seven pairs
    or holding four copies, tiny KBs (so the reference stays fast and many rows are incompletable); with
    ``missing`` a missing suit per row, zeroed in hand and KB (the features' inputs in Sichuan) when
    ``zeroed``, else left in the hand (a seat still holding tiles it must discard)."""
    t_n = num_tile_types
    wall = np.repeat(np.arange(t_n), 4)
    for i in range(n):
        exposed = int(i % 3 == 0)
        turn = bool(i % 2)
        size = 13 + turn - 3 * exposed
        if i % 4 in (1, 2):  # pairs, one of them a four of a kind
            h = np.zeros(t_n, np.int64)
            h[rng.choice(t_n, 6, replace=False)] = 2
            h[np.flatnonzero(h == 0)[rng.integers(t_n - 6)]] = 4
            while h.sum() > size:
                h[rng.choice(np.flatnonzero(h))] -= 1
        else:
            h = np.bincount(wall[rng.choice(4 * t_n, size, replace=False)], minlength=t_n)
        kb = np.minimum(4 - h, rng.integers(0, 2, t_n) * rng.integers(1, 3, t_n)).astype(np.int64)
        suit = int(rng.integers(0, 3)) if missing else None
        if suit is not None and zeroed:
            h[9 * suit : 9 * suit + 9] = 0
            kb[9 * suit : 9 * suit + 9] = 0
        claim, chow = -1, False
        if not turn and i % 5 == 0:
            open_ = h + kb < 4
            if suit is not None:  # no claim of a missing-suit tile is legal (mjenv.rulesets.sichuan.game.may_pong)
                open_[9 * suit : 9 * suit + 9] = False
            d = int(rng.choice(np.flatnonzero(open_)))
            claim, chow = d, bool(rng.integers(0, 2))
        yield h, kb, 4 - exposed, turn, claim, chow, suit


@pytest.mark.parametrize("form", ["distinct", "fours"])
def test_closed_form_and_its_variants_match_the_reference(form):
    rng = np.random.default_rng(3)
    wall = np.repeat(np.arange(27), 4)
    fours = form == "fours"
    for i in range(8):
        h = np.bincount(wall[rng.choice(108, 13 + i % 3, replace=False)], minlength=27)
        if i % 2:
            h[:6] = (2, 2, 4, 1, 3, 0)[: 6]  # pairs, a four and a three
        h = np.minimum(h, 4)
        kb = np.minimum(4 - h, rng.integers(0, 5, 27))
        assert seven_pairs_deficiency(h[None], kb[None], form)[0] == reference_seven_pairs(h, kb, fours=fours)
        v = variants(h[None], kb[None], check_seven_pairs(form), discard_draw=True)
        unit = np.eye(27, dtype=h.dtype)
        for t in range(27):
            if kb[t] > 0:
                assert v["draw"][0, t] == reference_seven_pairs(h + unit[t], kb - unit[t], fours=fours)
            if h[t] == 0:
                continue
            assert v["discard"][0, t] == reference_seven_pairs(h - unit[t], kb, fours=fours)
            for u in np.flatnonzero(kb > 0):
                want = reference_seven_pairs(h - unit[t] + unit[u], kb - unit[u], fours=fours)
                assert v["discard_draw"][0, t, u] == want, (t, u)


def test_fixed_hands():
    # one pair short of seven pairs: 1 to go; far from melds-and-pair (no two tiles in sequence)
    h = np.zeros(27, np.int64)
    h[[0, 3, 6, 9, 12, 15]] = 2
    h[18] = 1
    kb = 4 - h
    assert seven_pairs_deficiency(h[None], kb[None], "distinct")[0] == 1
    assert reference_one(h, kb, 4) > 1
    # a four of a kind counts as two pairs only in the "fours" form (Sichuan's dragon seven pairs)
    four = h.copy()
    four[[0, 18]] = (4, 0)
    assert seven_pairs_deficiency(four[None], (4 - four)[None], "fours")[0] == 0
    assert seven_pairs_deficiency(four[None], (4 - four)[None], "distinct")[0] == 2
    # too few tiles left to pair: incompletable
    assert seven_pairs_deficiency(h[None], np.zeros((1, 27), np.int64), "fours")[0] == INCOMPLETABLE
    with pytest.raises(ValueError, match="seven_pairs must be one of"):
        check_seven_pairs("six")
    with pytest.raises(ValueError, match="seven_pairs must be one of"):
        DeficiencyFeatures(27, seven_pairs="six")
    with pytest.raises(ValueError, match="seven_pairs needs melds=4"):
        DeficiencyFeatures(34, 5, seven_pairs="distinct")
    if kernel.available():  # the kernel checks the form it is given
        with pytest.raises(ValueError, match="closed-hand form 4 outside 0..3"):
            kernel.features(h[None], kb[None], [4], [False], [-1], [False], seven_pairs=4)


_WANT: dict[tuple, tuple] = {}


def _rows_and_reference(form: str, num_tile_types: int, missing: bool) -> tuple[list, list]:
    """The random rows of one case and their reference features (computed once for both backends)."""
    key = (form, num_tile_types, missing)
    if key not in _WANT:
        rng = np.random.default_rng(5 if missing else 6)
        rows = list(_random_seats(rng, 24 if missing else 16, num_tile_types, missing))
        refs = [Reference(form, suit) for *_, suit in rows]
        _WANT[key] = rows, [ref.features(*row[:-1]) for ref, row in zip(refs, rows)]
        # the case must exercise seven pairs: rows where it is strictly below melds-and-pair
        below = sum(w["deficiency"] < reference_one(r[0], r[1], r[2], r[-1]) for r, w in zip(rows, _WANT[key][1]))
        assert below >= 3, below
    return _WANT[key]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("form", "num_tile_types", "missing"), [("fours", 27, True), ("distinct", 34, False)])
def test_features_match_the_reference(backend, form, num_tile_types, missing):
    # Sichuan (fours, the missing suit zeroed as the observation's inputs) and basic + seven_pairs
    rows, want = _rows_and_reference(form, num_tile_types, missing)
    hands, kbs, needed, turn, claim, chow, _ = (np.array(x) for x in zip(*rows))
    engine = DeficiencyFeatures(num_tile_types, backend=backend, seven_pairs=form, cache=PartCache())
    memo = kernel.new_memo() if backend == "c" else None
    got = engine.compute(hands, kbs, needed, turn, claim, chow, memo=memo)
    for i, w in enumerate(want):
        for name, value in w.items():
            np.testing.assert_array_equal(got[name][i], value, err_msg=f"row {i} {name}")


# ---------------------------------------------------------------- through the observation


def _records(spec, rows) -> np.ndarray:
    """State records of ``spec`` holding the given seats, four per record (the other fields as a real
    Sichuan or basic state has them: only the features' inputs and the missing suits are set)."""
    from mjenv.game import Game

    f = {name: start for name, (start, _, _) in spec._fields.items()}
    t_n = spec.num_tile_types
    base = spec.state(Game(spec.rules, seed=0))
    out = np.repeat(base[None], len(rows) // 4, axis=0)
    for i, (h, kb, m, turn, claim, chow, suit) in enumerate(rows):
        rec, s = out[i // 4], i % 4
        rec[f["hands"] + s * t_n : f["hands"] + (s + 1) * t_n] = h
        rec[f["knowledge_base"] + s * t_n : f["knowledge_base"] + (s + 1) * t_n] = kb
        rec[f["melds_needed"] + s], rec[f["num_melds"] + s] = m, 4 - m
        rec[f["discard_turn"] + s], rec[f["claim_tile"] + s], rec[f["chow_ok"] + s] = turn, claim, chow
        if spec.rules.missing_suit:
            rec[f["missing_suit"] + 3 * s : f["missing_suit"] + 3 * s + 3] = np.arange(3) == suit
    return out


@pytest.mark.parametrize("path", ["kernel", "numpy"])
@pytest.mark.parametrize("rules", ["sichuan", "basic+seven_pairs"])
def test_observation_features_match_the_reference(rules, path, monkeypatch):
    # random seats (13 and 14 tiles, with and without a declared meld, four copies, tiny KBs; Sichuan
    # seats still holding their missing suit) written into state records: every deficiency view of
    # the observation equals the reference of the rule set's complete hands
    _check_observation(rules, path, monkeypatch, 16, 9 if rules == "sichuan" else 10)


@pytest.mark.slow
@pytest.mark.parametrize("path", ["kernel", "numpy"])
@pytest.mark.parametrize("rules", ["sichuan", "basic+seven_pairs"])
def test_many_observation_rows_match_the_reference(rules, path, monkeypatch):
    _check_observation(rules, path, monkeypatch, 120, 90 if rules == "sichuan" else 91)


def _check_observation(rules: str, path: str, monkeypatch, n: int, seed: int) -> None:
    import dataclasses

    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules

    if path == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    elif not kernel.available():
        pytest.skip("no kernel")
    sichuan = rules == "sichuan"
    spec = ObservationSpec("sichuan" if sichuan else dataclasses.replace(get_rules("basic"), seven_pairs=True))
    assert spec.compiled == (path == "kernel")
    rng = np.random.default_rng(seed)
    rows = list(_random_seats(rng, n, 27, sichuan, zeroed=False))
    obs, deficiency = spec.observe_records(_records(spec, rows))
    checked_missing = 0
    for i, (h, kb, m, turn, claim, chow, suit) in enumerate(rows):
        view = spec.decode(obs[i // 4, i % 4])
        want = Reference("fours" if sichuan else "distinct", suit).features(h, kb, m, turn, claim, chow)
        if suit is not None:  # a kong of the missing suit is never legal: no value
            gone = np.zeros(27, bool)
            gone[9 * suit : 9 * suit + 9] = True
            want["deficiency_after_kong"][gone] = NOT_APPLICABLE
            checked_missing += int(turn and h[gone].any())
        assert deficiency[i // 4, i % 4] == want["deficiency"]
        for name, value in want.items():
            np.testing.assert_array_equal(view[name].reshape(np.shape(value)), value, err_msg=f"row {i} {name}")
    assert checked_missing >= 2 or not sichuan


@pytest.mark.parametrize("path", ["kernel", "numpy"])
def test_a_hand_one_tile_from_seven_pairs_shows_it(path, monkeypatch):
    # seat 0 (dealer, dots missing) holds six pairs, 9s and 3m: seven pairs is one exchange away
    # (3m out, a second 9s in); melds and a pair need four (no two tiles are in sequence)
    import dataclasses

    from mjenv.game import Game
    from mjenv.observation import ObservationSpec
    from mjenv.rules import get_rules
    from mjenv.shaping import Potential
    from tests.game_helpers import script, tid

    if path == "numpy":
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    elif not kernel.available():
        pytest.skip("no kernel")
    hands = ["1s1s 4s4s 7s7s 9s 1m1m 4m4m 7m7m", "2s2s3s3s5s5s6s 2m2m3m3m5m5m",
             "6s8s8s 6m8m8m9m 2p3p4p5p6p7p", "1p1p1p 2p2p 3p3p 4p4p 5p5p 6p6p"]  # fmt: skip
    hand = np.zeros(27, np.int64)
    for name in ("1s", "1s", "4s", "4s", "7s", "7s", "9s", "1m", "1m", "4m", "4m", "7m", "7m", "3m"):
        hand[tid(name)] += 1
    assert reference_one(hand, 4 - hand, 4) == 4  # the definition without seven pairs
    for rules, declare in (("sichuan", True), (dataclasses.replace(get_rules("basic"), seven_pairs=True), False),
                           ("basic", False)):
        g = script(hands, draws="3m", rules=rules)
        if declare:
            g.step({s: g.layout.declare(m) for s, m in enumerate((2, 2, 0, 0))})
        assert isinstance(g, Game) and g.current_player == 0 and g.hands[0].tolist() == hand.tolist()
        spec = ObservationSpec(rules)
        assert spec.compiled == (path == "kernel")
        obs, deficiency = spec.observe(g)
        view = spec.decode(obs[0])
        sp = get_rules(rules).seven_pairs if isinstance(rules, str) else True
        want = 1 if sp else 4
        assert deficiency[0] == view["deficiency"][0] == want
        assert view["deficiency_after_discard"][tid("3m")] == want  # 3m is the tile to drop
        if sp:  # a 9s or a 3m pairs the last single (then the other goes): 3 unseen copies each
            assert view["effective_tiles"].nonzero()[0].tolist() == [tid("9s"), tid("3m")]
            assert view["effective_count"][0] == 6
            assert view["deficiency_after_discard"][tid("1s")] == 2  # breaking a pair costs one more
            assert view["effective_count_after_discard"][tid("3m")] == 3
        assert Potential("deficiency", rules=spec.rules)(obs[0]) == -want
