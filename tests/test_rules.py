"""Rules presets, options and validation; each preset played through its own scripted hand."""

from __future__ import annotations

import dataclasses

import pytest

from mjenv.game import Game, Phase
from mjenv.observation import ObservationSpec
from mjenv.rules import PRESET_NAMES, Rules, get_rules
from mjenv.rulesets import shared_names
from tests.game_helpers import script, tid


@pytest.mark.parametrize(
    ("name", "tiles", "hand", "melds", "chow"),
    [
        ("basic", 27, 13, 4, True),
        ("honours", 34, 13, 4, True),
        ("sichuan", 27, 13, 4, False),
        ("taiwan16", 34, 16, 5, True),
    ],
)
def test_presets(name, tiles, hand, melds, chow):
    r = get_rules(name)
    assert (r.name, r.num_tile_types, r.hand_size, r.melds, r.allow_chow) == (name, tiles, hand, melds, chow)
    sichuan = name == "sichuan"  # seven pairs and several winners on one discard are Sichuan rules
    assert r.seven_pairs == r.multiple_winners == r.missing_suit == r.bloody == sichuan
    assert r.scoring == ("sichuan" if sichuan else "points")
    assert r.claim_window == "always"  # a window after every discard: no leak through the phases
    assert (r.discard_win_points, r.self_draw_points) == (3, 1)
    assert r.num_tiles == 4 * tiles + (8 if name == "taiwan16" else 0)  # taiwan16 adds 8 flowers


def test_preset_names_and_default():
    assert PRESET_NAMES == ("basic", "honours", "sichuan", "taiwan16", "riichi")
    assert get_rules() == get_rules("basic") == get_rules(None) == Rules()
    r = Rules()
    assert get_rules(r) is r


def test_dict_overrides_and_round_trip():
    r = get_rules({"name": "sichuan", "seven_pairs": True, "multiple_winners": True})
    assert r.name == "sichuan" and not r.allow_chow and r.seven_pairs and r.multiple_winners
    assert get_rules(r.to_dict()) == r
    r2 = dataclasses.replace(get_rules("basic"), discard_win_points=8, self_draw_points=2)
    assert get_rules(r2.to_dict()) == r2
    r3 = get_rules({"name": "taiwan16", "claim_window": "when_possible"})
    assert r3.to_dict()["claim_window"] == "when_possible" and get_rules(r3.to_dict()) == r3
    assert r3.hand_size == 16 and get_rules("taiwan16").to_dict()["claim_window"] == "always"


def test_rules_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        get_rules("basic").hand_size = 16  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_tile_types": 30}, r"num_tile_types must be 27 or 34, got 30"),
        ({"hand_size": 14}, r"hand_size must be 13 or 16, got 14"),
        ({"melds": 3}, r"melds must be 4 or 5, got 3"),
        ({"hand_size": 16}, r"hand_size=16 does not fit Rules.melds=4.*allowed pairs"),
        ({"allow_chow": 1}, r"allow_chow must be True or False"),
        ({"seven_pairs": "yes"}, r"seven_pairs must be True or False"),
        ({"multiple_winners": None}, r"multiple_winners must be True or False"),
        ({"discard_win_points": -1}, r"discard_win_points must be an int >= 0, got -1"),
        ({"self_draw_points": 1.5}, r"self_draw_points must be an int >= 0"),
        ({"hand_size": 16, "melds": 5, "seven_pairs": True}, r"seven_pairs=True needs hand_size=13"),
        ({"claim_window": "never"}, r"claim_window must be one of \('always', 'when_possible'\), got 'never'"),
        ({"claim_window": True}, r"claim_window must be one of"),
    ],
)
def test_bad_values_name_the_field_and_the_allowed_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Rules(**kwargs)


def test_unknown_preset_and_fields():
    with pytest.raises(ValueError, match=r"unknown rules 'mahjong'; allowed presets: basic, honours, sichuan, "
                       "taiwan16, riichi"):
        get_rules("mahjong")
    with pytest.raises(ValueError, match=r"unknown Rules fields \['furiten'\]"):
        get_rules({"furiten": True})
    with pytest.raises(ValueError, match=r"must be a preset name"):
        get_rules(3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"unknown rules"):
        Game("nope")


def test_the_shared_engine_refuses_a_room_with_its_own_engine():
    assert "riichi" not in shared_names() and "riichi" in PRESET_NAMES
    for make in (Game, ObservationSpec):
        with pytest.raises(ValueError, match=r"rules 'riichi' are played by their room's own engine: use "
                           r"mjenv.parallel_env.*; .* plays basic, honours, sichuan, taiwan16"):
            make("riichi")


@pytest.mark.parametrize("preset", shared_names())
def test_deal_sizes(preset):
    r = get_rules(preset)
    for dealer in range(4):
        g = Game(preset, seed=dealer, dealer=dealer)
        sizes = g.hands.sum(axis=1).tolist()
        assert sizes == [r.hand_size + (s == dealer) for s in range(4)]
        assert g.hands.shape == (4, r.num_tile_types)
        # the three declaration ids of Sichuan come after PASS; no other preset has them
        assert g.layout.size == 2 * r.num_tile_types + 7 + 3 * r.missing_suit
        # flowers (taiwan16) set aside in the deal or the first draw were replaced from the wall
        assert g.wall_remaining == r.num_tiles - 4 * r.hand_size - 1 - int(g.flowers.sum())
        assert g.current_player == dealer == g.dealer
        if r.missing_suit:  # Sichuan: every seat declares its missing suit first, all at once
            assert g.phase == Phase.DECLARE and g.acting_seats() == [0, 1, 2, 3]
        else:
            assert g.phase == Phase.DISCARD and g.acting_seats() == [dealer]


# ---------------------------------------------------------------- each preset's winning form
def test_honours_win_with_winds_and_dragons():
    hands = [
        "1z1z1z 2z2z2z 3z3z3z 4z4z4z 5z",
        "123s 456s 789s 123m 4m",
        "123p 456p 789p 456m 7m",
        "9s9s9s 9p9p9p 9m9m9m 7z7z7z 1s",
    ]
    g = script(hands, draws="5z", rules="honours")
    assert g.layout.win in g.legal_actions(0)
    g.step({0: g.layout.win})
    assert g.winners == [0] and g.winning_tile == tid("5z") and g.scores.tolist() == [3, -1, -1, -1]


def test_taiwan16_needs_five_melds_and_a_pair():
    hands = [
        "123s 456s 789s 123p 1z1z1z 5z",
        "123m 456m 789m 456p 2z2z2z 6z",
        "1s2s3s 4s5s6s 7s8s9s 7p8p9p 3z3z3z 7z",
        "1m2m3m 4m5m6m 7m8m9m 1p2p3p 4z4z4z 5z",
    ]
    g = script(hands, draws="5z", rules="taiwan16")
    assert g.hands[0].sum() == 17
    assert g.layout.win in g.legal_actions(0)
    # the same 17 tiles but one meld broken: not complete
    hands[0] = "123s 456s 789s 124p 1z1z1z 5z"
    g = script(hands, draws="5z", rules="taiwan16")
    assert g.layout.win not in g.legal_actions(0)


SEVEN_PAIRS = [
    "1s1s 3s3s 5s5s 7s7s 1p1p 3p3p 5p",
    "2s4s6s8s 2p4p6p8p 2m4m6m8m 9s",
    "1m1m 3m3m 5m5m 7m7m 9m9m 6s 7p 9p",
    "2m4m6m8m 2s4s6s8s 2p4p6p8p 9p",
]


def test_seven_pairs_only_with_the_option():
    g = script(SEVEN_PAIRS, draws="5p")
    assert g.layout.win not in g.legal_actions(0)
    rules = dataclasses.replace(get_rules("basic"), seven_pairs=True)
    g = script(SEVEN_PAIRS, draws="5p", rules=rules)
    assert g.layout.win in g.legal_actions(0)
    g.step({0: g.layout.win})
    assert g.winners == [0] and g.end_reason == "self_draw"


def test_four_of_a_kind_is_not_two_pairs():
    rules = dataclasses.replace(get_rules("basic"), seven_pairs=True)
    hands = list(SEVEN_PAIRS)
    hands[0] = "1s1s1s1s 5s5s 7s7s 1p1p 3p3p 5p"
    hands[2] = "1m1m 3m3m 5m5m 7m7m 9m9m 6s 7p 3s"
    g = script(hands, draws="5p", rules=rules)
    assert g.layout.win not in g.legal_actions(0)


def test_scoring_values_are_configurable():
    rules = dataclasses.replace(get_rules("basic"), self_draw_points=2)
    hands = [
        "123s 456s 789s 123p 5p",
        "2s4s6s8s 2p4p6p8p 2m4m6m8m 9s",
        "1m1m 3m3m 5m5m 7m7m 9m9m 6s 7p 9p",
        "2m4m6m8m 2s4s6s8s 3m 4m 5m 9p 1p",
    ]
    g = script(hands, draws="5p", rules=rules)
    g.step({0: g.layout.win})
    assert g.scores.tolist() == [6, -2, -2, -2]
