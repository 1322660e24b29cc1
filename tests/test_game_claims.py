"""Scripted hands: claim priority, kongs and replacement draws, robbing a kong, exhaustive draw.

Each hand is dealt from a chosen wall (``make_wall``): seat 0 deals unless said otherwise. Tile ids:
1s-9s = 0-8, 1m-9m = 9-17, 1p-9p = 18-26.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mjenv.game import EndReason, Game, Meld, MeldKind, Phase
from mjenv.rules import get_rules
from tests.game_helpers import script, tid

BASIC = get_rules("basic")
WHEN_POSSIBLE = dataclasses.replace(BASIC, claim_window="when_possible")
WINDOWS = pytest.mark.parametrize("rules", [BASIC, WHEN_POSSIBLE], ids=["always", "when_possible"])
L = Game("basic", seed=0).layout
M5 = tid("5m")  # 13

# Seat 0 discards 5m first. Seat 1 (next) can chow it (4m 6m), seat 2 can pong it.
CHOW_VS_PONG = [
    "5m 123s 456s 789s 123p",
    "4m6m 1s4s7s 1p4p7p 2m 2p5p8p9p",
    "5m5m 2s5s8s 3p6p9p 1m3m7m 8p 9s",
    "3s6s9s 4p6p8p 1m4m8m8m 2p5p7p",
]
# Seat 0 discards 5m first. Seat 1 can chow (3m 4m) and win (waits 2m/5m), seat 2 can pong,
# seat 3 can win (4m 6m).
TWO_WINNERS = [
    "5m 1s2s3s 2p3p 2m2m 7m7m 8m8m 6s",
    "123p 456p 789p 9m9m 3m4m",
    "5m5m 1m1m 4s5s 7s8s9s 5p6p7p8p",
    "123s 456s 789s 1p1p 4m6m",
]


def acting_legal(g: Game) -> dict[int, set[str]]:
    return {s: {L.describe(a) for a in g.legal_actions(s)} for s in g.acting_seats()}


def only_pass(g: Game, seat: int) -> bool:
    return g.legal_actions(seat) == [L.pass_]


# ---------------------------------------------------------------- claim window and priority
def test_claim_window_lists_every_claimant_and_their_options():
    g = script(CHOW_VS_PONG, draws="9m")
    g.step({0: M5})
    assert g.phase == Phase.CLAIM
    assert g.last_discard == M5 and g.last_discarder == 0
    assert g.acting_seats() == [1, 2]
    assert acting_legal(g) == {1: {"chow mid", "pass"}, 2: {"pong", "pass"}}
    assert only_pass(g, 0) and only_pass(g, 3)


def test_chow_loses_to_pong():
    g = script(CHOW_VS_PONG, draws="9m")
    wall_before = None
    g.step({0: M5})
    wall_before = g.wall_remaining
    hand1 = g.hands[1].copy()
    g.step({1: L.chow_mid, 2: L.pong})
    assert g.melds[2] == [Meld("pong", (M5, M5, M5), 0, M5)]
    assert g.melds[1] == []
    # the stored form: one row (kind code, lowest tile, from seat, claimed tile) per meld, -1 padded
    assert g.meld_table[2].tolist() == [[MeldKind.PONG, M5, 0, M5]] + [[-1] * 4] * 3
    assert g.melds_declared.tolist() == [0, 0, 1, 0] and (g.meld_table[[0, 1, 3]] == -1).all()
    assert (g.hands[1] == hand1).all()
    assert g.hands[2, M5] == 0 and g.meld_counts[2, M5] == 3
    # the claimant discards at once: no draw, no kong, no win
    assert g.phase == Phase.DISCARD and g.current_player == 2 and g.acting_seats() == [2]
    assert g.wall_remaining == wall_before
    legal = g.legal_actions(2)
    assert all(a < g.num_tile_types for a in legal)
    assert legal == np.flatnonzero(g.hands[2]).tolist()
    assert g.last_discard == -1 and g.last_discarder == -1


def test_chow_taken_when_pong_passes():
    g = script(CHOW_VS_PONG, draws="9m")
    g.step({0: M5})
    g.step({1: L.chow_mid, 2: L.pass_})
    assert g.melds[1] == [Meld("chow", (M5 - 1, M5, M5 + 1), 0, M5)]
    assert g.meld_table[1, 0].tolist() == [MeldKind.CHOW, M5 - 1, 0, M5]  # a chow row holds its lowest tile
    assert g.hands[1, M5 - 1] == 0 and g.hands[1, M5 + 1] == 0
    assert g.phase == Phase.DISCARD and g.current_player == 1
    assert g.hands[1].sum() == 11  # 13 - 2 shown: 3 melds + pair shape (3*3 + 2)


def test_all_pass_gives_the_next_seat_a_draw():
    g = script(CHOW_VS_PONG, draws="9m 7m")
    g.step({0: M5})
    g.step({1: L.pass_})  # seat 2 omitted: omitting a claim means passing
    assert g.phase == Phase.DISCARD and g.current_player == 1
    assert g.last_drawn == tid("7m") and g.hands[1].sum() == 14
    assert g.melds == [[], [], [], []]


def test_chow_only_from_the_previous_player():
    # seat 3 holds 4m 6m but discards come from seat 2 only at its turn; here seat 0 discards 5m
    # and seat 3 (not next) must not be offered a chow even with the tiles for it
    hands = list(CHOW_VS_PONG)
    hands[1], hands[3] = "3s6s9s 4p6p8p 1m4m8m8m 2p5p7p", "4m6m 1s4s7s 1p4p7p 2m 2p5p8p9p"
    g = script(hands, draws="9m")
    g.step({0: M5})
    assert acting_legal(g) == {2: {"pong", "pass"}}
    assert only_pass(g, 3)


def test_sichuan_has_no_chow():
    g = script(CHOW_VS_PONG, draws="9m", rules="sichuan")
    lay = g.layout
    # 定缺 first: seat 0 drops characters (so 5m may go), seat 2 keeps them (so it may pong 5m)
    g.step({0: lay.declare(1), 1: lay.declare(0), 2: lay.declare(2), 3: lay.declare(0)})
    g.step({0: M5})
    assert acting_legal(g) == {2: {"pong", "pass"}}
    with pytest.raises(ValueError, match="seat 1"):
        g.step({1: L.chow_mid, 2: L.pass_})


def test_claim_of_another_seat_option_is_refused():
    g = script(CHOW_VS_PONG, draws="9m")
    g.step({0: M5})
    with pytest.raises(ValueError, match=r"seat 2: action 55 \(chow mid\) is illegal.*legal actions: 57 \(pong\)"):
        g.step({1: L.pass_, 2: L.chow_mid})
    with pytest.raises(ValueError, match="seat 0"):
        g.step({0: L.pong, 1: L.pass_, 2: L.pass_})
    assert g.phase == Phase.CLAIM  # a refused step changes nothing


def test_pong_and_chow_lose_to_a_win():
    g = script(TWO_WINNERS, draws="9s")
    g.step({0: M5})
    assert acting_legal(g) == {1: {"chow high", "win", "pass"}, 2: {"pong", "pass"}, 3: {"win", "pass"}}
    g.step({1: L.chow_high, 2: L.pong, 3: L.win})
    assert g.is_over and g.phase == Phase.END and g.acting_seats() == []
    assert g.winners == [3] and g.deal_in == 0 and g.winning_tile == M5 and g.end_reason == "discard"
    assert g.scores.tolist() == [-3, 0, 0, 3]
    assert g.melds == [[], [], [], []]
    assert all(only_pass(g, s) for s in range(4))


def test_two_winners_first_in_turn_order_by_default():
    g = script(TWO_WINNERS, draws="9s")
    g.step({0: M5})
    g.step({1: L.win, 2: L.pong, 3: L.win})
    assert g.winners == [1]
    assert g.scores.tolist() == [-3, 3, 0, 0]


def test_two_winners_both_win_with_multiple_winners():
    rules = dataclasses.replace(BASIC, multiple_winners=True)
    g = script(TWO_WINNERS, draws="9s", rules=rules)
    g.step({0: M5})
    g.step({1: L.win, 2: L.pong, 3: L.win})
    assert g.winners == [1, 3] and g.deal_in == 0
    assert g.won.tolist() == [False, True, False, True] and g.won.dtype == bool
    assert g.end_code == EndReason.DISCARD and g.end_reason == "discard"
    assert g.scores.tolist() == [-6, 3, 0, 3]
    # the won discard stays in the discarder's history: hands of both winners + it are complete
    assert g.discards[0, 0] == M5 and g.hands[1].sum() == 13 and g.hands[3].sum() == 13


def test_tie_goes_by_turn_order_from_the_discarder_not_by_seat_number():
    # the same hands turned so that seat 2 deals and discards 5m: the order is 3, 0, 1
    hands = [TWO_WINNERS[2], TWO_WINNERS[1], TWO_WINNERS[0], TWO_WINNERS[3]]
    g = script(hands, draws="9s", dealer=2)
    assert g.current_player == 2 and g.hands[2].sum() == 14
    g.step({2: M5})
    # seat 3 is next after the discarder: its 4m 6m now make a chow too
    assert acting_legal(g) == {0: {"pong", "pass"}, 1: {"win", "pass"}, 3: {"chow mid", "win", "pass"}}
    g.step({0: L.pong, 1: L.win, 3: L.win})
    assert g.winners == [3] and g.deal_in == 2
    assert g.scores.tolist() == [0, 0, -3, 3]
    rules = dataclasses.replace(BASIC, multiple_winners=True)
    g = script(hands, draws="9s", dealer=2, rules=rules)
    g.step({2: M5})
    g.step({0: L.pong, 1: L.win, 3: L.win})
    assert g.winners == [1, 3] and g.scores.tolist() == [0, 3, -6, 3]


def test_a_winner_may_pass_and_the_pong_goes_ahead():
    g = script(TWO_WINNERS, draws="9s")
    g.step({0: M5})
    g.step({1: L.pass_, 2: L.pong, 3: L.pass_})
    assert not g.is_over and g.current_player == 2 and g.melds[2][0].kind == "pong"


# ---------------------------------------------------------------- kongs
KONGS_EXPOSED = [
    "5m 123s 456s 789s 123p",
    "4m6m 1s4s7s 1p4p7p 2m 2p5p8p9p",
    "5m5m5m 2s5s8s 3p6p9p 1m3m 8p 9s",
    "3s6s9s 4p6p8p 1m4m8m8m 2p5p7p",
]


def test_exposed_kong_beats_chow_and_draws_a_replacement_from_the_end():
    g = script(KONGS_EXPOSED, draws="9m", replacements="7m")
    assert g.wall_remaining == 55  # 108 - 52 dealt - the dealer's extra tile
    g.step({0: M5})
    assert acting_legal(g) == {1: {"chow mid", "pass"}, 2: {"pong", "exposed kong", "pass"}}
    g.step({1: L.chow_mid, 2: L.exposed_kong})
    assert g.melds[2] == [Meld("exposed_kong", (M5,) * 4, 0, M5)]
    assert g.hands[2, M5] == 0 and g.meld_counts[2, M5] == 4 and g.public_counts[M5] == 4
    assert g.wall_remaining == 54
    assert g.last_drawn == tid("7m") and g.wall[-1] == tid("7m")
    assert g.phase == Phase.DISCARD and g.current_player == 2
    assert g.hands[2].sum() == 3 * 3 + 2
    assert g.num_melds(2) == 1


def test_concealed_kong_replacement_and_a_win_on_it():
    hands = [
        "1s1s1s1s 2p3p4p 5p6p7p 9m9m 2m",
        "4m6m 2s4s7s 1p4p7p 2m 2p5p8p9p",
        "5m5m5m 2s5s8s 3p6p9p 1m3m 8p 9s",
        "3s6s9s 4p6p8p 1m4m8m8m 2p5p7p",
    ]
    g = script(hands, draws="3m", replacements="4m")
    assert L.kong(0) in g.legal_actions(0) and L.win not in g.legal_actions(0)
    g.step({0: L.kong(0)})
    assert g.melds[0] == [Meld("concealed_kong", (0, 0, 0, 0), -1, -1)]
    assert g.meld_table[0, 0].tolist() == [MeldKind.CONCEALED_KONG, 0, -1, -1]
    assert g.hands[0, 0] == 0 and g.meld_counts[0, 0] == 4
    assert g.public_counts[0] == 4  # concealed kongs are treated as revealed
    assert g.last_drawn == tid("4m") and g.wall_remaining == 54
    assert g.phase == Phase.DISCARD and g.current_player == 0
    assert L.win in g.legal_actions(0)  # 2m3m4m 234p 567p 9m9m + the kong
    g.step({0: L.win})
    assert g.winners == [0] and g.end_reason == "self_draw" and g.winning_tile == tid("4m")
    assert g.end_code == EndReason.SELF_DRAW and g.won.tolist() == [True, False, False, False]
    assert g.scores.tolist() == [3, -1, -1, -1]


# seat 0 discards 5m, seat 1 pongs it, later draws the 4th 5m and adds it to the pong.
# Seat 3 waits on 5m (4m 6m) and may rob the kong.
ADDED = [
    "5m 1s2s3s 2p3p 2m2m 7m7m 8m8m 6s",
    "5m5m 1m1m 4s5s 7s8s9s 5p6p7p8p",
    "1p4p7p 2s5s8s 3m6m9m 9p3p6p9s",
    "123s 456s 789s 1p1p 4m6m",
]


def _to_added_kong(hands: list[str], rules=BASIC) -> Game:
    g = script(hands, draws="9s 7p 9p 1s 5m", replacements="9m", rules=rules)
    g.step({0: M5})
    g.step({1: L.pong})

    def discard_unclaimable(seat: int, tile: str) -> None:
        g.step({seat: tid(tile)})
        if rules.claim_window == "always":  # nobody can claim it: an empty window, then the draw
            assert g.phase == Phase.CLAIM and g.acting_seats() == []
            g.step({})

    discard_unclaimable(1, "1m")
    for seat, tile in ((2, "7p"), (3, "9p"), (0, "1s")):
        assert g.phase == Phase.DISCARD and g.current_player == seat and g.last_drawn == tid(tile)
        discard_unclaimable(seat, tile)
    assert g.current_player == 1 and g.last_drawn == M5
    assert L.kong(M5) in g.legal_actions(1)
    return g


@WINDOWS
def test_robbing_an_added_kong(rules):
    g = _to_added_kong(ADDED, rules)
    g.step({1: L.kong(M5)})
    assert g.phase == Phase.ROB_KONG and g.acting_seats() == [3]
    assert g.current_player == 1 and g.last_discard == M5 and g.last_discarder == 1
    assert acting_legal(g) == {3: {"win", "pass"}}
    assert g.melds[1][0].kind == "added_kong"  # shown while the window is open
    assert g.meld_table[1, 0].tolist() == [MeldKind.ADDED_KONG, M5, 0, M5] and g.num_melds(1) == 1
    g.step({3: L.win})
    assert g.winners == [3] and g.deal_in == 1 and g.end_reason == "robbed_kong" and g.winning_tile == M5
    assert g.scores.tolist() == [0, -3, 0, 3]
    assert g.melds[1] == [Meld("pong", (M5,) * 3, 0, M5)]  # the robbed kong falls back to a pong
    assert g.meld_table[1, 0].tolist() == [MeldKind.PONG, M5, 0, M5] and g.end_code == EndReason.ROBBED_KONG
    assert g.meld_counts[1, M5] == 3 and g.hands[1, M5] == 0
    assert g.discards[1, g.num_discards[1] - 1] == M5  # the robbed tile is entered as a discard


@WINDOWS
def test_added_kong_not_robbed_gets_its_replacement(rules):
    g = _to_added_kong(ADDED, rules)
    wall = g.wall_remaining
    g.step({1: L.kong(M5)})
    g.step({3: L.pass_})
    assert g.melds[1] == [Meld("added_kong", (M5,) * 4, 0, M5)]
    assert g.meld_counts[1, M5] == 4 and g.public_counts[M5] == 4
    assert g.phase == Phase.DISCARD and g.current_player == 1
    assert g.last_drawn == tid("9m") and g.wall_remaining == wall - 1


NO_ROBBER = [*ADDED[:3], "123s 456s 789s 1p1p 4m 8m"]  # seat 3 no longer waits on 5m


def test_added_kong_without_possible_robber_opens_no_window_when_possible():
    g = _to_added_kong(NO_ROBBER, WHEN_POSSIBLE)
    g.step({1: L.kong(M5)})
    assert g.phase == Phase.DISCARD and g.current_player == 1 and g.last_drawn == tid("9m")
    assert g.melds[1][0].kind == "added_kong"


def test_added_kong_without_possible_robber_opens_an_empty_window_always():
    g = _to_added_kong(NO_ROBBER, BASIC)
    wall = g.wall_remaining
    g.step({1: L.kong(M5)})
    # the window opens although nobody can rob: nobody acts, every seat has only PASS
    assert g.phase == Phase.ROB_KONG and g.acting_seats() == [] and g.current_player == 1
    assert g.last_discard == M5 and g.last_discarder == 1 and g.last_drawn == -1
    assert all(only_pass(g, s) for s in range(4))
    assert g.melds[1][0].kind == "added_kong" and g.wall_remaining == wall
    with pytest.raises(ValueError, match=r"seat 3: action .* \(win\) is illegal in phase ROB_KONG"):
        g.step({3: L.win})
    g.step({})  # everyone passes
    assert g.phase == Phase.DISCARD and g.current_player == 1 and g.last_drawn == tid("9m")
    assert g.wall_remaining == wall - 1 and g.log["steps"][-1] == []


def test_kong_needs_a_tile_to_replace_it():
    # replay a tsumogiri game to the last tile: no kong is legal once the wall is empty
    g = Game("basic", seed=3)
    seen_empty = False
    while not g.is_over:
        seat = g.acting_seats()[0] if g.phase == Phase.DISCARD else None
        if g.wall_remaining == 0:
            seen_empty = True
            for s in range(4):
                legal = g.legal_actions(s)
                assert not any(g.num_tile_types <= a < 2 * g.num_tile_types for a in legal)
                assert L.exposed_kong not in legal
        if seat is None:
            g.step({})
        else:
            g.step({seat: g.last_drawn if g.last_drawn >= 0 else g.legal_actions(seat)[0]})
    assert seen_empty


# ---------------------------------------------------------------- exhaustive draw
# Sichuan's draw (declarations first, settlement at the end) is tested in tests/test_sichuan_game.py
@pytest.mark.parametrize("preset", ["basic", "honours", {"name": "basic", "allow_chow": False}, "taiwan16"])
def test_exhaustive_draw_after_the_last_discard(preset):
    """Every seat discards what it draws and passes every claim: the hand ends when a seat must draw
    from the empty wall, after every wall tile was drawn and discarded."""
    g = Game(preset, seed=11)
    r = g.rules
    while not g.is_over:
        if g.phase == Phase.DISCARD:
            g.step({g.current_player: g.last_drawn})
        else:
            g.step({})  # every claimant passes
    assert g.end_reason == "exhaustive_draw" and g.winners == [] and g.deal_in == -1
    assert g.end_code == EndReason.EXHAUSTIVE_DRAW and not g.won.any()
    assert g.scores.tolist() == [0, 0, 0, 0]
    assert g.wall_remaining == r.draw_at  # taiwan16: drawn with 16 tiles left (SIMCAT Sec. 2.1)
    assert int(g.num_discards.sum()) == r.num_tiles - 4 * r.hand_size - r.draw_at - int(g.flowers.sum())
    with pytest.raises(ValueError, match="over"):
        g.step({0: L.pass_})
