"""The compiled feature kernel (``mjenv.deficiency._kernel``) equals the numpy feature path exactly.

The numpy path is itself checked against the hbba feature functions (tests/test_observation.py) and
the slow reference (tests/test_reference.py); here the C kernel is compared with it on random seats
(many hand sizes, KB modes, claims) and on every state of played hands under every rule preset.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import mjenv
from mjenv.deficiency import kernel
from mjenv.deficiency.seat_features import DeficiencyFeatures
from mjenv.game import Game
from mjenv.observation import ObservationSpec, seven_pairs_form
from mjenv.rulesets import shared_names
from tests.test_observation import _states


def test_the_kernel_is_built_and_used_by_default():
    # CI has a C compiler: a missing kernel there is a packaging bug, not a fallback to accept
    assert kernel.available()
    assert mjenv.parallel_env().spec.features.backend == "c"
    assert DeficiencyFeatures(34).backend == "c"


def test_mjenv_no_kernel_selects_the_numpy_path(monkeypatch):
    monkeypatch.setenv("MJENV_NO_KERNEL", "1")
    assert not kernel.available()
    assert DeficiencyFeatures(27).backend == "numpy"
    with pytest.raises(ValueError, match="compiled kernel"):
        DeficiencyFeatures(27, backend="c")


def test_a_missing_kernel_warns_once_and_falls_back(monkeypatch):
    monkeypatch.setattr(kernel, "_ext", None)
    monkeypatch.setattr(kernel, "_warned", False)
    with pytest.warns(RuntimeWarning, match="not installed"):
        assert DeficiencyFeatures(27).backend == "numpy"
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DeficiencyFeatures(27)  # once per process
        monkeypatch.setattr(kernel, "_warned", False)
        monkeypatch.setenv("MJENV_NO_KERNEL", "1")
        DeficiencyFeatures(27)  # chosen on purpose: no warning


def test_bad_backend_is_a_clear_error():
    with pytest.raises(ValueError, match="backend must be"):
        DeficiencyFeatures(27, backend="gpu")


def _random_seats(rng, t: int, s_n: int):
    hands = np.zeros((s_n, t), np.int8)
    kbs = np.zeros((s_n, t), np.int8)
    needed = rng.integers(0, 5, s_n)
    for s in range(s_n):
        n = 3 * int(needed[s]) + int(rng.integers(1, 3))  # 3m+1 or 3m+2 tiles
        allowed = np.arange(t)
        mode = rng.integers(0, 4)
        if mode == 1:  # one suit
            allowed = allowed[allowed // 9 == rng.integers(0, 3)]
        elif mode == 2:  # two suits
            allowed = allowed[np.isin(allowed // 9, rng.choice(t // 9 + (t == 34), 2, replace=False))]
        if mode == 3:  # four copies of some tiles
            quads = rng.choice(t, size=min(n // 4, 3), replace=False)
            hands[s, quads] = 4
        pool = np.repeat(allowed, 4 - hands[s, allowed])
        pick = rng.choice(pool, size=min(n - int(hands[s].sum()), len(pool)), replace=False)
        np.add.at(hands[s], pick, 1)
        rest = 4 - hands[s]
        kb_mode = rng.integers(0, 4)
        kbs[s] = rest if kb_mode == 0 else rng.integers(0, rest + 1)
        if kb_mode == 2:  # tiny KB
            kbs[s] = np.minimum(kbs[s], rng.integers(0, 2, t))
        elif kb_mode == 3:  # empty KB
            kbs[s] = 0
    discard_turn = rng.random(s_n) < 0.4
    claim = np.where(rng.random(s_n) < 0.5, rng.integers(0, t, s_n), -1)
    chow_ok = rng.random(s_n) < 0.5
    return hands, kbs, needed, discard_turn, claim, chow_ok


@pytest.mark.parametrize("num_tile_types", [27, 34])
def test_kernel_features_equal_the_numpy_evaluator(num_tile_types):
    rng = np.random.default_rng(num_tile_types)
    ref = DeficiencyFeatures(num_tile_types, backend="numpy")
    seen_claims = seen_discards = 0
    for _ in range(400):
        args = _random_seats(rng, num_tile_types, int(rng.integers(1, 6)))
        want = ref.compute(*args)
        got = kernel.features(*args)
        for key in want:
            assert got[key].dtype == want[key].dtype, key
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        seen_claims += int((want["deficiency_after_claim"] >= 0).sum())
        seen_discards += int((want["deficiency_after_discard"] >= 0).sum())
    assert seen_claims > 50 and seen_discards > 1000  # the rows were really exercised


def _check_memo_call(args, memo, ref=None) -> dict:
    """The features of ``args`` through ``memo`` equal those without a memo (and ``ref``'s, if
    given); returns the latter."""
    want = kernel.features(*args)
    got = kernel.features(*args, memo=memo)
    for key in want:
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    if ref is not None:
        exact = ref.compute(*args)
        for key in want:
            np.testing.assert_array_equal(got[key], exact[key], err_msg=key)
    return want


@pytest.mark.parametrize("num_tile_types", [27, 34])
def test_the_part_cache_of_a_memo_gives_the_values_computed_without_it(num_tile_types):
    # the memo also keeps each part's vectors (a suit or the honours, keyed on its option
    # codes and melds needed) across calls. Seats that change one tile at a time (as from step to
    # step) reuse most parts; many seats through one small cache also evict parts, including the
    # parts of the seat being computed. Every value must be what a call without a memo gives, and
    # the numpy evaluator's; a copy of the memo, used on other seats, must serve nothing stale. A
    # seat whose KB only shrank since its last state evaluates only the draws effective then (its
    # deficiency unchanged): the others are not effective either.
    rng = np.random.default_rng(16 + num_tile_types)
    ref = DeficiencyFeatures(num_tile_types, backend="numpy")
    memo = kernel.new_memo()
    twin = None
    for step in range(150):
        hands, kbs, needed, discard_turn, claim, chow_ok = _random_seats(rng, num_tile_types, 4)
        for _ in range(4):  # the same seats, one KB copy fewer each time (one part changes)
            args = (hands, kbs, needed, discard_turn, claim, chow_ok)
            want = _check_memo_call(args, memo, ref if step % 10 == 0 else None)
            if twin is not None:  # the copy taken earlier, now on seats it never saw
                for key, value in kernel.features(*args, memo=twin).items():
                    np.testing.assert_array_equal(value, want[key], err_msg=key)
            s, t = np.nonzero(kbs)
            if len(s):
                i = int(rng.integers(len(s)))
                kbs = kbs.copy()
                kbs[s[i], t[i]] -= 1
        if step == 75:
            twin = memo.copy()
    stats = kernel.memo_stats(memo)
    assert stats["part_hits"] > stats["part_misses"] > 0  # the parts were really reused (and replaced)
    # a seat with one KB copy fewer than its last state evaluated only the draws effective then
    assert stats["prior_hits"] > 150

@pytest.mark.parametrize("num_tile_types", [27, 34])
def test_the_discarders_next_state_is_served_from_its_discard_turn(num_tile_types):
    # after a seat's discard turn (hand H) the memo keeps, per held tile t, the features of
    # H - t with the same KB, no discard turn and no claim (the discarder in the next claim window);
    # such a seat is served from them. Every value must be what a call without a memo gives, and
    # the numpy evaluator's; a seat that differs in its KB, its melds or by more than one tile, or
    # that has a claim tile, is computed.
    rng = np.random.default_rng(160 + num_tile_types)
    ref = DeficiencyFeatures(num_tile_types, backend="numpy")
    memo = kernel.new_memo()
    served = expected = 0
    for trial in range(60):
        hands, kbs, needed, _, _, chow_ok = _random_seats(rng, num_tile_types, 1)
        kernel.features(hands, kbs, needed, [True], [-1], chow_ok, memo=memo)
        variants = []
        expected += np.count_nonzero(hands[0])
        for t in np.flatnonzero(hands[0]):
            h = hands.copy()
            h[0, t] -= 1
            variants.append((h, kbs, needed, [False], [-1], chow_ok))  # served
        k = kbs.copy()
        k[0, int(rng.integers(num_tile_types))] = 0
        variants.append((hands - (hands > 0) * (np.arange(num_tile_types) == np.argmax(hands[0])), k, needed, [False],
                         [-1], chow_ok))  # a KB copy fewer (or the same KB: then served)
        variants.append((hands, kbs, needed, [False], [-1], chow_ok))  # H itself, no tile fewer
        t = int(np.argmax(hands[0]))
        h = hands.copy()
        h[0, t] -= 1
        variants.append((h, kbs, needed, [False], [t], chow_ok))  # a claim tile
        variants.append((h, kbs, np.maximum(needed - 1, 0), [False], [-1], chow_ok))  # other melds needed
        for args in variants:
            before = kernel.memo_stats(memo)["after_discard_hits"]
            _check_memo_call(args, memo, ref if trial % 6 == 0 else None)
            served += kernel.memo_stats(memo)["after_discard_hits"] - before
    assert served >= expected > 60  # H - t for every held t of every trial at least


@pytest.mark.parametrize("rules", sorted(shared_names()))
def test_kernel_observations_equal_the_numpy_encoder_on_played_hands(rules):
    fast = ObservationSpec(rules, oracle=True)
    ref = ObservationSpec(rules, oracle=True)
    ref.__dict__["features"] = DeficiencyFeatures(ref.num_tile_types, ref.rules.melds, backend="numpy",
                                                   seven_pairs=seven_pairs_form(ref.rules))
    assert fast.features.backend == "c" and not ref.compiled
    memo = fast.new_memo()
    phases = set()
    for h in range(4):
        for g in _states(100 + h, 400, rules=rules):  # every state of a hand, claims preferred
            got, got_def = fast.observe(g, memo)
            want, want_def = ref.observe(g)
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(got_def, want_def)
            phases.add(int(g.phase))
    assert len(phases) >= 3
    # the seat memo served part of these states (the seats that did not draw after a window)
    stats = kernel.memo_stats(memo)
    assert stats["hits"] > 0.15 * (stats["hits"] + stats["misses"])


def test_kernel_rejects_bad_counts():
    hands = np.zeros((1, 27), np.int8)
    kbs = np.full((1, 27), 4, np.int8)
    hands[0, 0] = 2  # 2 in hand + 4 unseen > 4 copies
    with pytest.raises(ValueError, match="hand \\+ KB <= 4"):
        kernel.features(hands, kbs, [4], [False], [-1], [False])
    with pytest.raises(ValueError, match="melds_needed"):
        kernel.features(np.zeros((1, 27), np.int8), kbs, [7], [False], [-1], [False])
    with pytest.raises(ValueError, match="shape"):
        kernel.features(np.zeros((1, 30), np.int8), np.zeros((1, 30), np.int8), [4], [False], [-1], [False])


def test_observe_rejects_states_and_plans_out_of_range():
    g = Game(rules="basic", seed=1)
    spec = ObservationSpec("basic")
    out, d = np.empty((1, 4, spec.size), np.float32), np.empty((1, 4), np.int32)
    hands, melds, kbs, discards, ints = spec.sources(g)

    def with_int(name, value):
        x = list(ints)
        x[spec._fields[name][0] - spec.plan.scalar_start] = value
        return [(hands, melds, kbs, discards, tuple(x))]

    for state, word in [
        (with_int("phase", 7), "one-hot value 7"),
        (with_int("claim_tile", 27), "claim tile"),
        (with_int("melds_needed", 9), "melds needed"),
        (with_int("wall_count", 1 << 20), "int16"),
        ([(hands, melds, kbs + 1, discards, ints)], "hand \\+ KB <= 4"),
        ([(hands, melds, kbs, discards, ints[:-1])], "scalars"),
        ([(hands, melds, kbs[:2], discards, ints)], "source 2"),
        ([(hands, melds, kbs, ints)], "sources"),
    ]:
        with pytest.raises(ValueError, match=word):
            kernel.observe(spec.plan, state, None, out, d)
    bad = dataclasses.replace(spec.plan, copies=spec.plan.copies + np.array([0, spec.size, 0, 0], np.int32))
    with pytest.raises(ValueError, match="does not fit"):
        kernel.observe(bad, [spec.sources(g)], None, out, d)
    with pytest.raises(ValueError, match="memo"):
        kernel.observe(spec.plan, [spec.sources(g)], [np.zeros(3, np.uint8)], out, d)
    kernel.observe(spec.plan, [spec.sources(g)], None, out, d)
    np.testing.assert_array_equal(out[0], spec.observe(g)[0])


def test_observe_takes_the_records_as_one_array_for_a_whole_record_plan():
    # the batch step's tables pass their int16[N, L] records as they are (no per-record
    # sequence); only a plan whose one source is the whole record may take them
    games = [Game(rules="basic", seed=s) for s in (4, 5)]
    spec = ObservationSpec("basic")
    records = np.stack([spec.state(g) for g in games])
    want, want_def = spec.observe_many(games)
    got, got_def = spec.observe_records(records)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_def, want_def)
    out, d = np.empty((2, 4, spec.size), np.float32), np.empty((2, 4), np.int32)
    with pytest.raises(ValueError, match="state array"):
        kernel.observe(spec.plan, records, None, out, d)  # this plan's sources are the game's arrays
    with pytest.raises(ValueError, match="state array"):
        spec._kernel_observe_records(np.ascontiguousarray(records[:, :-1]), None, out, d)
    with pytest.raises(ValueError, match="state array"):
        spec._kernel_observe_records(records.astype(np.int32), None, out, d)


def test_each_table_owns_its_memo_and_copies_keep_it():
    import copy
    import pickle

    env = mjenv.parallel_env()
    other = mjenv.parallel_env()
    env.reset(seed=2)
    other.reset(seed=3)
    assert not np.shares_memory(env._table.memo, other._table.memo)
    for _ in range(20):
        env.step({})  if not env._table.acting else env.step(
            {f"player_{s}": int(np.flatnonzero(env._table.masks[s])[0]) for s in env._table.acting})
    stats = kernel.memo_stats(env._table.memo)
    assert stats["hits"] > 0 and kernel.memo_stats(other._table.memo)["hits"] < stats["hits"]
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert kernel.memo_stats(twin._table.memo) == stats
        assert not np.shares_memory(twin._table.memo, env._table.memo)
