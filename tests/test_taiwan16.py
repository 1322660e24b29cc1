"""taiwan16 as SIMCAT Sec. 2.1 plays it: 144 tiles with 8 flowers, flowers set aside with a
replacement draw from the wall's end, and the hand drawn with 16 tiles left."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.game import Game
from mjenv.game.log import replay
from mjenv.rules import FLOWER_BASE, NUM_FLOWERS, get_rules


def _base_wall() -> np.ndarray:
    """A valid taiwan16 wall: tiles 0..33 four times each, then the 8 flowers at the end."""
    return np.concatenate([np.repeat(np.arange(34), 4), np.arange(FLOWER_BASE, FLOWER_BASE + NUM_FLOWERS)])


def _swap(w: np.ndarray, i: int, j: int) -> np.ndarray:
    w = w.copy()
    w[i], w[j] = w[j], w[i]
    return w


def test_preset_has_144_tiles_and_draws_at_16() -> None:
    r = get_rules("taiwan16")
    assert (r.num_tiles, r.hand_size, r.melds, r.flowers, r.draw_at) == (144, 16, 5, 8, 16)


def test_flower_in_the_deal_is_set_aside_and_replaced_from_the_end() -> None:
    # Put flower 0 at deal position 20 (seat 1's 5th tile, dealer 0); the end of the wall holds
    # flower 7 (last), then flower 6, ...: a replacement run skips flowers 7..1 into seat 1's set.
    w = _swap(_base_wall(), 20, 143 - 7)  # flower 0 sits at index 136; tile 5 goes there
    g = Game("taiwan16", wall=w)
    assert g.flowers[1].tolist() == [1] * 8  # flower 0 dealt, 7..1 drawn as replacements
    assert g.flowers[[0, 2, 3]].sum() == 0
    # The replacement is the first non-flower from the end: the tile 5 swapped to index 136, joining
    # the three 5s dealt at indices 21-23.
    assert g.hands[1].sum() == 16
    assert g.hands[1, 5] == 4
    assert g.wall_tail == 136


def test_flower_as_front_draw_and_as_replacement() -> None:
    # Dealer's first draw (index 64) is flower 0; its replacement from the end is flower 7, whose
    # replacement is flower 6, ... until the first non-flower: tile 16, swapped to index 136.
    w = _swap(_base_wall(), 64, 136)
    g = Game("taiwan16", wall=w)
    assert g.flowers[0].tolist() == [1] * 8
    assert g.last_drawn == 16
    assert g.hands[0].sum() == 17
    assert g.wall_remaining == 136 - 65


def test_flower_wall_is_validated() -> None:
    w = _base_wall()
    w[-1] = 0  # a fifth tile 0 and no flower 7
    with pytest.raises(ValueError, match="flower id"):
        Game("taiwan16", wall=w)


def _play_random(n: int) -> None:
    rng = np.random.default_rng(12)
    for seed in range(n):
        g = Game("taiwan16", seed=seed)
        while not g.is_over:
            acts = {}
            for s in g.acting_seats():
                legal = np.flatnonzero(g.legal_action_mask(s))
                assert legal.size > 0
                acts[s] = int(rng.choice(legal))
            g.step(acts)
        assert g.scores.sum() == 0
        # Tile conservation with flowers: hands + melds + flowers + undrawn + discards not claimed.
        undrawn = g.wall[g.wall_head : g.wall_tail]
        assert g.flowers.sum() + (undrawn >= FLOWER_BASE).sum() == NUM_FLOWERS
        drawn = np.bincount(g.wall[: g.wall_head].tolist() + g.wall[g.wall_tail :].tolist(), minlength=42)
        assert drawn[FLOWER_BASE:].tolist() == [int(x) for x in g.flowers.max(axis=0)]
        if g.end_reason == "exhaustive_draw":
            assert g.wall_remaining == 16
        assert g.wall_remaining >= 16
        r = replay(g.log)
        assert np.array_equal(r.flowers, g.flowers) and np.array_equal(r.scores, g.scores)


def test_random_hands_invariants() -> None:
    _play_random(200)


@pytest.mark.slow
def test_random_hands_invariants_10k() -> None:
    _play_random(10_000)


def test_flowers_view_is_public_seat_relative_and_equal_on_both_writers() -> None:
    from mjenv.deficiency.seat_features import DeficiencyFeatures
    from mjenv.observation import ObservationSpec

    fast = ObservationSpec("taiwan16")
    ref = ObservationSpec("taiwan16")
    ref.__dict__["features"] = DeficiencyFeatures(34, 5, backend="numpy")
    w = _swap(_base_wall(), 64, 136)  # seat 0 sets aside all 8 flowers on its first draw
    g = Game("taiwan16", wall=w)
    a, _ = fast.observe_many([g])
    b, _ = ref.observe_many([g])
    np.testing.assert_array_equal(a, b)
    for s in range(4):
        fl = fast.decode(a[0, s])["flowers"]
        assert fl.shape == (4, 8)
        assert fl[(4 - s) % 4].tolist() == [1] * 8  # seat 0 seen from seat s
        assert fl.sum() == 8
    assert "flowers" not in ObservationSpec("basic").slices


def test_render_shows_flowers_to_every_seat() -> None:
    from mjenv.render import render_text

    g = Game("taiwan16", wall=_swap(_base_wall(), 64, 136))  # seat 0 holds all 8 flowers
    for seat in (None, 0, 2):
        text = render_text(g, seat=seat)
        assert text.count("spring") == 1 and "bamboo" in text


def test_rules_round_trip_and_old_logs_without_flowers() -> None:
    from mjenv.game.log import log_rules

    for r in (get_rules("taiwan16"), get_rules({"name": "taiwan16", "flowers": 0, "draw_at": 0})):
        assert get_rules(r.to_dict()) == r
    assert "flowers" not in get_rules("basic").to_dict()  # the other presets' logs read as before
    old = {"format": "mjenv-hand", "version": 2, "rules": {"name": "taiwan16", "hand_size": 16}}
    assert get_rules(log_rules(old)).flowers == 0  # a log from before flowers replays without them


def test_the_flowers_are_the_engines_set_aside_tiles_under_the_rooms_name() -> None:
    from mjenv import rulesets
    from mjenv.game.engine import SET_ASIDE_BASE, SET_ASIDE_IDS
    from mjenv.rulesets.taiwan16.wall import WALL

    assert FLOWER_BASE == SET_ASIDE_BASE and NUM_FLOWERS <= SET_ASIDE_IDS
    assert rulesets.extra_tiles(get_rules("taiwan16")) == tuple(range(FLOWER_BASE, FLOWER_BASE + NUM_FLOWERS))
    assert rulesets.extra_tiles(get_rules("basic")) == () and rulesets.wall_parts(get_rules("basic")) is None
    assert rulesets.wall_parts(get_rules("taiwan16")) is WALL and "flowers" in rulesets.set_aside_names()
    g = Game("taiwan16", seed=3)
    assert g.flowers is g.set_aside and g.clone().flowers.tolist() == g.flowers.tolist()
    assert Game("basic", seed=0).flowers.sum() == 0  # every game shows it, all zero without flowers
    with pytest.raises(AttributeError, match="no attribute 'petals'"):
        _ = g.petals
