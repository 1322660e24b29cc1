"""The observation spec: view names and shapes, decode back to the game state, features, no leaks."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.deficiency import deficiency, deficiency_after_claim, deficiency_after_discard, effective_tiles
from mjenv.deficiency.seat_features import DeficiencyFeatures, PartCache
from mjenv.game import Game, Phase
from mjenv.knowledge import knowledge_base
from mjenv.observation import ObservationSpec, decode
from tests.conftest import random_case

# docs/ARCHITECTURE.md, written out by hand: the contract agents decode against
T = 27
MAX_DISCARDS = 61  # rules.max_discards for "basic": 108 - 4 * 13 draws + 4 claims + 1 robbed-kong tile
EXPECTED_VIEWS = {
    "hand": (T,),
    "melds": (4, T),
    "num_melds": (4,),
    "discards": (4, MAX_DISCARDS),
    "last_discard": (T,),
    "last_discarder": (4,),
    "knowledge_base": (T,),
    "wall_count": (1,),
    "dealer": (4,),
    "phase": (4,),
    "deficiency": (1,),
    "deficiency_after_discard": (T,),
    "effective_tiles": (T,),
    "effective_count": (1,),
    "deficiency_after_claim": (5,),
    "effective_count_after_discard": (T,),
    "deficiency_after_kong": (T,),
}


def _states(seed: int, n: int = 200, claim_first: bool = True, rules: str = "basic"):
    """Game states along one hand played with seeded random legal actions (claims preferred)."""
    g = Game(rules, seed=seed)
    rng = np.random.default_rng(seed)
    out = [g.clone()]
    for _ in range(n):
        if g.is_over:
            break
        acts = {}
        for s in g.acting_seats():
            legal = g.legal_actions(s)
            claims = [a for a in legal if g.layout.chow_low <= a <= g.layout.chow_low + 4]
            acts[s] = int(claims[0]) if claim_first and claims and rng.random() < 0.7 else int(rng.choice(legal))
        g.step(acts)
        out.append(g.clone())
    return out


def test_views_are_the_contract():
    spec = ObservationSpec("basic")
    assert spec.views == EXPECTED_VIEWS
    assert spec.size == sum(int(np.prod(s)) for s in EXPECTED_VIEWS.values())
    oracle = ObservationSpec("basic", oracle=True)
    assert list(oracle.views)[: len(EXPECTED_VIEWS)] == list(EXPECTED_VIEWS)
    assert oracle.views["oracle_hands"] == (4, T)
    assert oracle.views["oracle_wall"] == (108 - 4 * 13,)
    honours = ObservationSpec("honours")
    assert honours.views["hand"] == (34,) and honours.views["melds"] == (4, 34)


def test_space_and_docs_table_come_from_the_spec():
    spec = ObservationSpec("basic")
    assert spec.space.shape == (spec.size,) and spec.space.dtype == np.float32
    table = spec.markdown_table()
    for name in EXPECTED_VIEWS:
        assert f"`{name}`" in table
    for g in _states(1, 60)[::10]:
        for s in range(4):
            assert spec.space.contains(spec.encode(g, s))


@pytest.mark.parametrize("seed", [0, 7])
def test_every_view_decodes_back_to_the_game_state(seed):
    spec = ObservationSpec("basic")
    checked_claims = 0
    for g in _states(seed):
        obs = spec.encode_all(g)
        for s in range(4):
            v = decode(obs[s])
            order = [(s + i) % 4 for i in range(4)]
            kb = knowledge_base(g, s)
            np.testing.assert_array_equal(v["hand"], g.hands[s])
            np.testing.assert_array_equal(v["melds"], g.meld_counts[order])
            np.testing.assert_array_equal(v["num_melds"], [len(g.melds[o]) for o in order])
            np.testing.assert_array_equal(v["discards"], g.discards[order] + 1)
            np.testing.assert_array_equal(v["knowledge_base"], kb)
            assert v["wall_count"][0] == g.wall_remaining
            assert order[int(np.argmax(v["dealer"]))] == g.dealer and v["dealer"].sum() == 1
            assert int(np.argmax(v["phase"])) == int(g.phase) and v["phase"].sum() == 1
            if g.last_discard >= 0:
                assert int(np.argmax(v["last_discard"])) == g.last_discard and v["last_discard"].sum() == 1
                assert order[int(np.argmax(v["last_discarder"]))] == g.last_discarder
            else:
                assert v["last_discard"].sum() == 0 and v["last_discarder"].sum() == 0
            exposed = len(g.melds[s])
            assert v["deficiency"][0] == deficiency(g.hands[s], kb, method="hbba", exposed_melds=exposed)
            mask, count = effective_tiles(g.hands[s], kb, exposed_melds=exposed)
            np.testing.assert_array_equal(v["effective_tiles"], mask)
            assert v["effective_count"][0] == count
            if g.phase == Phase.DISCARD and s == g.current_player:
                ref = deficiency_after_discard(g.hands[s], kb, exposed_melds=exposed)
                np.testing.assert_array_equal(v["deficiency_after_discard"], ref)
            else:
                assert (v["deficiency_after_discard"] == -1).all()
            if g.phase == Phase.CLAIM and s != g.last_discarder:
                ref = deficiency_after_claim(g.hands[s], kb, g.last_discard, exposed_melds=exposed).copy()
                if s != (g.last_discarder + 1) % 4:
                    ref[:3] = -1  # chow only from the left seat's discard
                np.testing.assert_array_equal(v["deficiency_after_claim"], ref)
                checked_claims += 1
            else:
                assert (v["deficiency_after_claim"] == -1).all()
    assert checked_claims > 0


def test_oracle_views_decode_to_hidden_state():
    spec = ObservationSpec("basic", oracle=True)
    for g in _states(3, 80)[::7]:
        obs = spec.encode_all(g)
        for s in range(4):
            v = spec.decode(obs[s])
            order = [(s + i) % 4 for i in range(4)]
            np.testing.assert_array_equal(v["oracle_hands"], g.hands[order])
            rest = v["oracle_wall"][v["oracle_wall"] > 0] - 1
            assert len(rest) == g.wall_remaining
            # the remaining wall plus everything else is the whole tile set
            total = np.bincount(rest.astype(int), minlength=T) + g.hands.sum(0) + g.public_counts
            np.testing.assert_array_equal(total, 4)


def test_decode_rejects_another_spec_and_accepts_dicts_and_batches():
    spec = ObservationSpec("basic")
    obs = spec.encode(Game("basic", seed=0), 0)
    with pytest.raises(ValueError, match="rules"):
        decode(obs, rules="honours")
    with pytest.raises(ValueError, match="oracle"):
        decode(obs, oracle=True)
    np.testing.assert_array_equal(decode({"observation": obs, "action_mask": None})["hand"], decode(obs)["hand"])
    batch = decode(np.stack([obs, obs]))
    assert batch["melds"].shape == (2, 4, T)


def _hide(g: Game, seat: int, rng: np.random.Generator) -> Game:
    """The same position for ``seat`` with the tiles it cannot see dealt differently.

    The tiles hidden from ``seat`` (opponents' concealed hands and the undrawn wall) are shuffled among
    the same places: every opponent keeps its hand size, the wall keeps its length.
    """
    h = g.clone()
    opponents = [o for o in range(4) if o != seat]
    rest = np.asarray(g.wall)[g._head : g._tail].astype(np.int64)
    pool = np.concatenate([np.repeat(np.arange(T), g.hands[o]) for o in opponents] + [rest])
    pool = rng.permutation(pool)
    pos = 0
    for o in opponents:
        n = int(g.hands[o].sum())
        h.hands[o] = np.bincount(pool[pos : pos + n], minlength=T)
        pos += n
    wall = np.asarray(g.wall).copy()
    wall[g._head : g._tail] = pool[pos:]
    h.wall = wall
    return h


def test_nothing_hidden_leaks_into_the_default_observation():
    default = ObservationSpec("basic")
    oracle = ObservationSpec("basic", oracle=True)
    rng = np.random.default_rng(0)
    oracle_changed = 0
    for g in _states(11, 120)[::6]:
        for seat in range(4):
            other = _hide(g, seat, rng)
            assert not np.array_equal(other.hands, g.hands) or g.wall_remaining == 0
            np.testing.assert_array_equal(default.encode(other, seat), default.encode(g, seat))
            oracle_changed += not np.array_equal(oracle.encode(other, seat), oracle.encode(g, seat))
    assert oracle_changed > 0


@pytest.mark.parametrize("backend", ["c", "numpy"])
@pytest.mark.parametrize("num_tile_types", [27, 34])
def test_feature_evaluator_equals_the_deficiency_features(num_tile_types, backend):
    rng = np.random.default_rng(num_tile_types)
    suits = (0, 1, 2) if num_tile_types == 27 else (0, 1, 2, 3)
    eng = DeficiencyFeatures(num_tile_types, backend=backend)
    for i in range(60):
        exposed = int(rng.integers(0, 3))
        extra = int(rng.integers(1, 3))
        kb_mode = ("full", "random", "tiny", "suit", "empty")[i % 5]
        hand, kb = random_case(rng, suits=suits, num_tile_types=num_tile_types, exposed=exposed, extra=extra,
                               kb_mode=kb_mode)
        claim = -1
        if extra == 1:
            unseen = np.flatnonzero(4 - hand - kb > 0)
            claim = int(rng.choice(unseen)) if len(unseen) else -1
        f = eng.compute(hand[None], kb[None], np.array([4 - exposed]), np.array([extra == 2]), np.array([claim]),
                        np.array([True]))
        assert f["deficiency"][0] == deficiency(hand, kb, method="hbba", exposed_melds=exposed)
        mask, count = effective_tiles(hand, kb, exposed_melds=exposed)
        np.testing.assert_array_equal(f["effective_tiles"][0], mask)
        assert f["effective_count"][0] == count
        if extra == 2:
            np.testing.assert_array_equal(f["deficiency_after_discard"][0],
                                          deficiency_after_discard(hand, kb, exposed_melds=exposed))
        if claim >= 0:
            np.testing.assert_array_equal(f["deficiency_after_claim"][0],
                                          deficiency_after_claim(hand, kb, claim, exposed_melds=exposed))


def test_repeated_positions_hit_the_part_cache_with_equal_results():
    eng = DeficiencyFeatures(27, backend="numpy", cache=PartCache())
    g = _states(5, 30)[-1]
    kbs = np.stack([knowledge_base(g, s) for s in range(4)])
    args = (g.hands, kbs, np.full(4, 4) - [g.num_melds(s) for s in range(4)], np.array([True, False, False, False]),
            np.full(4, -1), np.zeros(4, bool))
    first = eng.compute(*args)
    calls, misses = eng.stats["calls"], eng.stats["part_misses"]
    again = eng.compute(*args)
    assert eng.stats["calls"] == calls and eng.stats["part_misses"] == misses  # nothing evaluated again
    for k in first:
        np.testing.assert_array_equal(first[k], again[k])



def _first_legal_step(g: Game) -> None:
    g.step({s: int(np.flatnonzero(g.legal_action_mask(s))[0]) for s in g.acting_seats()})


def test_one_spec_over_several_games_matches_fresh_specs():
    """The spec keeps the last game's array views (``_game_rows``); they must follow the game it is given:
    games alternated, a game stepped on, and a clone (a copied tile table) observe as with a fresh spec."""
    spec = ObservationSpec("basic")
    a, b = Game("basic", seed=11), Game("basic", seed=12)
    order = [a, b, a]
    for _ in range(6):  # a moves on between the spec's looks at it
        _first_legal_step(a)
        order += [a, b]
    c = a.clone()
    _first_legal_step(c)
    order += [c, a, c]
    for g in order:
        obs, deficiency = spec.observe(g)
        fresh_obs, fresh_deficiency = ObservationSpec("basic").observe(g)
        np.testing.assert_array_equal(obs, fresh_obs)
        np.testing.assert_array_equal(deficiency, fresh_deficiency)
        np.testing.assert_array_equal(spec.sources(g)[2], ObservationSpec("basic").sources(g)[2])
    assert not np.array_equal(spec.observe(a)[0], spec.observe(b)[0])  # the games differ, so the check can fail
