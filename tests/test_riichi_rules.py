"""Fixed Riichi rule tests: one situation per rule area, built with chosen hands and draws."""

from __future__ import annotations

import pytest

from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi import settlement
from mjenv.rulesets.riichi.game import CalledMeld
from tests.riichi_game_helpers import Tiles, discard, legal, make_game, pass_all, t136


# ---------------------------------------------------------------- calls and kuikae
def test_kuikae_forbids_the_called_tile_and_its_suji_swap():
    game, _ = make_game(["1m999p111s555z777z", "234m678p2345s666z", "", ""], draws="2z")
    discard(game, 0, "1m")
    assert {A.CHI, A.PON, A.MINKAN} & legal(game, 1) == {A.CHI}
    four_m = t136(game, 1, "4m")
    game.step({1: A.CHI, 2: A.PASS, 3: A.PASS})
    assert game.phase == "after_call" and game.turn == 1
    ok = legal(game, 1)
    assert A.discard_action(four_m) not in ok  # the suji swap 1m-4m
    assert A.discard_action(t136(game, 1, "6p")) in ok
    with pytest.raises(ValueError, match="not legal"):
        game.step({1: A.discard_action(four_m)})


def test_call_refused_when_kuikae_leaves_no_discard():
    game, tiles = make_game(["1m999p111s555z777z", "234m678p2345s666z", "", ""], draws="2z")
    # seat 1 has three melds and 2m3m4m4m: a chi of 1m would leave only 4m4m, both forbidden
    game.hands[1] = [t136(game, 1, "2m"), t136(game, 1, "3m"), t136(game, 1, "4m"), 4 * 3 + 3]
    game.melds[1] = [CalledMeld("pon", (4 * tt, 4 * tt + 1, 4 * tt + 2), 4 * tt, 0) for tt in (31, 32, 33)]
    discard(game, 0, "1m")
    assert A.CHI not in legal(game, 1)


def test_red_five_is_its_own_choice_in_pon_and_discard():
    game, _ = make_game(["5p999p222s567z77z1m", "055p678m2345s66z1m", "", ""], draws="3z")
    discard(game, 0, "5p")
    opts = legal(game, 1)
    assert A.PON in opts and A.PON_RED in opts
    game.step({s: (A.PON_RED if s == 1 else A.PASS) for s in game.to_act()})
    meld = game.melds[1][-1]
    assert 52 in meld.tiles  # the red 5p went into the pon
    assert A.DISCARD_RED + 2 not in legal(game, 1)  # no red 5p left to discard


# ---------------------------------------------------------------- riichi
TENPAI = "123m456p789s11z22z"  # waits on 1z / 2z


def test_riichi_needs_tenpai():
    game, _ = make_game(["13579m13579p135s", "", "", ""], draws="7s")
    assert A.RIICHI not in legal(game, 0)
    with pytest.raises(ValueError, match="riichi"):
        game.step({0: A.RIICHI})


def test_riichi_discard_must_keep_tenpai_and_pays_the_deposit_on_pass():
    game, _ = make_game([TENPAI, "", "", ""], draws="9m")
    assert A.RIICHI in legal(game, 0)
    game.step({0: A.RIICHI})
    assert game.phase == "riichi_discard"
    nine_m = t136(game, 0, "9m")
    assert legal(game, 0) == {A.discard_action(nine_m)}
    game.step({0: A.discard_action(nine_m)})
    if game.phase == "claim":
        pass_all(game)
    assert game.scores[0] == 24000 and game.sticks == 1
    assert game.riichi[0] == 2  # declared on the first uninterrupted turn: double riichi
    assert game.ippatsu[0]


@pytest.mark.parametrize("what", ["points", "wall"])
def test_riichi_needs_1000_points_and_4_live_tiles(what):
    game, _ = make_game([TENPAI, "", "", ""], draws="9m")
    if what == "points":
        game.scores[0] = 900
    else:
        game.wall.live_pos = game.wall.live_end - 3
    assert A.RIICHI not in legal(game, 0)
    if what == "wall":
        game.wall.live_pos = game.wall.live_end - 4
        assert A.RIICHI in legal(game, 0)


def test_riichi_on_a_ronned_discard_pays_no_deposit():
    # seat 1 waits on 9m with haku; seat 0 declares riichi and discards 9m
    game, _ = make_game([TENPAI, "78m123p555z234s55s", "", ""], draws="9m")
    game.step({0: A.RIICHI})
    discard(game, 0, "9m")
    game.step({s: (A.RON if s == 1 else A.PASS) for s in game.to_act()})
    assert game.results[-1]["deltas"] == [-1300, 1300, 0, 0]
    assert game.sticks == 0


# ---------------------------------------------------------------- furiten
WAIT_36M = "45m456p789s111z22z"  # waits on 3m / 6m, East triplet


def _furiten_game():
    return make_game(["3m999p111s555z12m7z", "6m", WAIT_36M, "3m"], draws="1z9s9p1p")


def test_same_turn_furiten_until_the_own_discard():
    game, _ = _furiten_game()
    discard(game, 0, "3m")
    assert A.RON in legal(game, 2)
    pass_all(game)
    assert game.same_turn_furiten[2]
    discard(game, 1, "6m")  # another winning tile before seat 2's own discard
    assert 2 not in game.to_act() or A.RON not in legal(game, 2)
    if game.phase == "claim":
        pass_all(game)
    discard(game, 2, "9p")
    assert not game.same_turn_furiten[2]
    if game.phase == "claim":
        pass_all(game)
    discard(game, 3, "3m")  # seat 2 may ron again
    assert A.RON in legal(game, 2)


def test_riichi_furiten_lasts():
    game, _ = _furiten_game()
    game.riichi[2] = 1
    discard(game, 0, "3m")
    pass_all(game)
    assert game.riichi_furiten[2]
    discard(game, 1, "6m")
    if game.phase == "claim":
        pass_all(game)
    discard(game, 2, "9p")
    if game.phase == "claim":
        pass_all(game)
    discard(game, 3, "3m")
    assert 2 not in game.to_act() or A.RON not in legal(game, 2)


def test_permanent_furiten_from_own_discards():
    game, tiles = _furiten_game()
    game.discards[2].append(tiles.take("6m")[0])  # seat 2 once threw a winning tile
    discard(game, 0, "3m")
    assert 2 not in game.to_act() or A.RON not in legal(game, 2)


# ---------------------------------------------------------------- kans and dora timing
def test_closed_kan_reveals_dora_at_once():
    game, _ = make_game(["1111p999m555z77z2s", "", "", ""], draws="9s", rinshan="1s")
    game.step({0: A.kan_action(9)})  # 1p is Tenhou type 9
    kinds = [e["type"] for e in game.events[-3:]]
    assert kinds == ["call", "dora", "draw"] and game.n_dora == 2
    assert game.events[-1]["rinshan"]


def test_open_kan_reveals_dora_after_the_replacement_draw_before_the_discard():
    game, _ = make_game(["0s", "555s", "", ""], draws="2z", rinshan="8m")
    discard(game, 0, "0s")
    game.step({s: (A.MINKAN if s == 1 else A.PASS) for s in game.to_act()})
    assert game.events[-1]["type"] == "draw" and game.events[-1]["rinshan"]
    assert game.n_dora == 1
    discard(game, 1, "8m")
    kinds = [e["type"] for e in game.events if e["type"] in ("dora", "discard")]
    assert kinds[-2:] == ["dora", "discard"] and game.n_dora == 2


def test_four_kans_by_two_players_abort_after_the_next_discard():
    game, _ = make_game(["1111p2222p3333p4z", "4444s", "", ""], draws="9m1m", rinshan="1s5s9s8m")
    for tt in (9, 10, 11):  # 1p 2p 3p
        game.step({0: A.kan_action(tt)})
    discard(game, 0, "9m")
    if game.phase == "claim":
        pass_all(game)
    game.step({1: A.kan_action(21)})  # 4s
    assert not any(A.KAN <= a < A.KAN + 34 for a in legal(game, 1))
    discard(game, 1, "8m")
    if game.phase == "claim":
        pass_all(game)
    assert game.results[-1]["result"] == "kan4"


# ---------------------------------------------------------------- abortive draws
def test_nine_terminals_is_an_action():
    game, _ = make_game(["19m19p19s12345z23m", "", "", ""], draws="4m", length="hanchan")
    assert A.KYUUSHU in legal(game, 0)
    game.step({0: A.KYUUSHU})
    assert game.results[-1]["result"] == "yao9" and game.results[-1]["deltas"] == [0, 0, 0, 0]
    game.next_hand()
    assert (game.round_index, game.honba) == (0, 1)  # dealer stays, honba + 1


def test_four_winds():
    hands = ["1z", "1z", "1z", "1z"]
    game, _ = make_game(hands, draws="9m9p9s1m")
    for s in range(4):
        discard(game, s, "1z")
        if game.phase == "claim":
            pass_all(game)
    assert game.results[-1]["result"] == "kaze4"


def test_four_riichi():
    hands = ["123m456m789m123p5z", "123s456s789s234p6z", "234m567m345s678s7z", "456p789p345m678m7z"]
    game, _ = make_game(hands, draws="9s9s9s1z")
    for s in range(4):
        game.step({s: A.RIICHI})
        discard(game, s, "1z" if s == 3 else "9s")
        if game.phase == "claim":
            pass_all(game)
    assert game.results[-1]["result"] == "reach4"
    assert game.results[-1]["deltas"] == [-1000] * 4 and game.sticks == 4


TRIPLE = ["9m999p222s567z12m3s", "78m123p555z234s55s", "78m456p666z567s99s", "78m789p777z678s11s"]


def test_triple_ron_aborts():
    game, _ = make_game(TRIPLE, draws="1z")
    discard(game, 0, "9m")
    assert all(A.RON in legal(game, s) for s in (1, 2, 3))
    game.step({0: A.PASS, 1: A.RON, 2: A.RON, 3: A.RON})
    assert game.results[-1]["result"] == "ron3" and game.results[-1]["deltas"] == [0, 0, 0, 0]


def test_double_ron_head_bump():
    game, _ = make_game(TRIPLE, draws="1z")
    game.honba, game.sticks = 2, 1
    game.scores[0] -= 1000  # the stick on the table came from seat 0
    discard(game, 0, "9m")
    game.step({1: A.PASS, 2: A.RON, 3: A.RON})  # seat 2 is nearer the discarder's right than seat 3
    d = [x - y for x, y in zip(game.scores, [24000, 25000, 25000, 25000])]
    # haku / hatsu 1 han 40 fu = 1300 each; honba (600) and the stick go to seat 2 only
    assert d == [-3200, 0, 1300 + 600 + 1000, 1300]


# ---------------------------------------------------------------- pao
def test_pao_set_on_the_third_dragon_pon():
    game, tiles = make_game(["7z", "77z123m456p", "", ""], draws="8m")
    game.melds[1] = [CalledMeld("pon", tiles.take("555z"), None, 3), CalledMeld("pon", tiles.take("666z"), None, 2)]
    game.hands[1] = game.hands[1][:7]
    discard(game, 0, "7z")
    game.step({s: (A.PON if s == 1 else A.PASS) for s in game.to_act()})
    assert game.pao[1] == 0


def test_pao_payments():
    cost_tsumo = {"ron": 0, "tsumo_dealer": 16000, "tsumo_nondealer": 8000}
    assert settlement.win_deltas(1, None, 0, cost_tsumo, honba=1, sticks=0, pao=2) == [0, 32300, -32300, 0]
    cost_ron = {"ron": 32000, "tsumo_dealer": 0, "tsumo_nondealer": 0}
    assert settlement.win_deltas(1, 3, 0, cost_ron, honba=1, sticks=1, pao=2) == [0, 33300, -16300, -16000]
    assert settlement.win_deltas(1, 2, 0, cost_ron, honba=1, sticks=0, pao=2) == [0, 32300, -32300, 0]


# ---------------------------------------------------------------- the game's flow
def test_agari_yame_and_west_extension():
    # South 4, dealer seat 3
    assert settlement.game_over(7, [20000, 20000, 20000, 40000], dealer_kept=True, abortive=False)
    assert not settlement.game_over(7, [40000, 20000, 20000, 20000], dealer_kept=True, abortive=False)
    assert settlement.game_over(7, [40000, 20000, 20000, 20000], dealer_kept=False, abortive=False)
    # nobody at 30,000: into West, which ends as soon as someone has it
    assert not settlement.game_over(7, [29000, 27000, 22000, 22000], dealer_kept=False, abortive=False)
    assert not settlement.game_over(8, [29000, 27000, 22000, 22000], dealer_kept=False, abortive=False)
    assert settlement.game_over(8, [30000, 27000, 21000, 22000], dealer_kept=False, abortive=False)
    assert settlement.game_over(11, [29000, 27000, 22000, 22000], dealer_kept=False, abortive=False)
    assert not settlement.game_over(6, [40000, 20000, 20000, 20000], dealer_kept=False, abortive=False)
    assert settlement.game_over(3, [40000, 20000, 20000, 20000], dealer_kept=False, abortive=False, length="east")
    assert not settlement.game_over(3, [29000, 27000, 22000, 22000], dealer_kept=False, abortive=False, length="east")
    assert settlement.game_over(7, [29000, 27000, 22000, 22000], dealer_kept=False, abortive=False, length="east")


def test_bust_ends_the_game_and_abortive_draws_never_do():
    assert settlement.game_over(0, [51000, 25000, 25000, -1000], dealer_kept=False, abortive=False)
    assert not settlement.game_over(0, [50000, 25000, 25000, 0], dealer_kept=False, abortive=False)
    assert not settlement.game_over(7, [50000, 25000, 25000, 0], dealer_kept=True, abortive=True)


def test_final_scores_uma_oka_and_ties():
    # a real game's owari= (20100, 35800, 5200, 38900 -> -20, +16, -45, +49)
    assert settlement.final_result([20100, 35800, 5200, 38900], 0) == (
        [20100, 35800, 5200, 38900],
        [-20.0, 16.0, -45.0, 49.0],
    )
    final, points = settlement.final_result([25000, 25000, 24000, 24000], 2)
    assert final == [27000, 25000, 24000, 24000]  # leftover sticks to the first; a tie goes to seat 0
    assert points[1] == -5.0 + 10 and sum(points) == 0


def test_tenpai_payments():
    assert settlement.tenpai_deltas([True, False, False, False]) == [3000, -1000, -1000, -1000]
    assert settlement.tenpai_deltas([True, True, False, False]) == [1500, 1500, -1500, -1500]
    assert settlement.tenpai_deltas([True, True, True, False]) == [1000, 1000, 1000, -3000]
    assert settlement.tenpai_deltas([False] * 4) == [0] * 4
    assert settlement.nagashi_deltas([1], dealer=0) == [-4000, 8000, -2000, -2000]


def test_tiles_helper_gives_distinct_ids():
    t = Tiles()
    ids = t.take("555m") + t.take("0m0p")
    assert len(set(ids)) == 5 and {16, 52} <= set(ids)


def test_a_wait_on_the_seats_own_fourth_copy_is_noten():
    game, _ = make_game(["", "", "", ""])
    pons = [CalledMeld("pon", (4 * tt + 1, 4 * tt + 2, 4 * tt + 3), 4 * tt + 1, 0) for tt in (4, 31, 32, 33)]
    game.melds[1] = pons  # a pon of 5m among them
    game.hands[1] = [16]  # the red 5m: waiting on 5m, whose four copies are all the seat's own
    assert not game.tenpai(1)
    game.hands[1] = [4 * 5]  # 6m tanki
    assert game.tenpai(1)


# ---------------------------------------------------------------- the game's flow, played
WAITS_9M = "78m123p555z234s55s"  # waits on 6m / 9m with white dragons: 1 han 40 fu


def _all_last(scores, dealer_wins):
    """South 4 (dealer seat 3): the dealer (or seat 0) rons seat 0's (or the dealer's) 9m."""
    if dealer_wins:
        hands, draws = [WAITS_9M, "9m", "", ""], "1z2z"
    else:
        hands, draws = ["9m", WAITS_9M, "", ""], "1z"
    game, _ = make_game(hands, draws=draws, length="hanchan", round_index=7, scores=scores)
    discard(game, 3, "1z" if dealer_wins else "9m")
    if dealer_wins:
        if game.phase == "claim":
            pass_all(game)
        discard(game, 0, "9m")
    winner = 3 if dealer_wins else 0
    game.step({s: (A.RON if s == winner else A.PASS) for s in game.to_act()})
    return game


def test_agari_yame_played():
    game = _all_last([20000, 20000, 20000, 40000], dealer_wins=True)
    assert game.phase == "game_over" and game.final_scores == [18000, 20000, 20000, 42000]
    game = _all_last([40000, 20000, 20000, 20000], dealer_wins=True)  # the dealer is not first: go on
    assert game.phase == "hand_over"
    game.next_hand()
    assert (game.round_index, game.honba, game.dealer) == (7, 1, 3)


def test_west_extension_played():
    game = _all_last([28000, 26000, 23000, 23000], dealer_wins=False)
    assert game.scores == [29300, 26000, 23000, 21700] and game.phase == "hand_over"
    game.next_hand()
    assert (game.round_index, game.dealer) == (8, 0)  # West 1


def test_bust_played():
    game = _all_last([37000, 25000, 37000, 1000], dealer_wins=False)
    assert game.scores[3] == -300 and game.phase == "game_over"
    assert sum(game.final_scores) == 100_000


# ---------------------------------------------------------------- chankan, haitei, houtei
def test_only_thirteen_orphans_robs_a_closed_kan():
    kokushi = "99m19p19s1234567z"  # waits on 1m
    ryanmen = "23m456p789s555z99s"[:-3] + "66s"  # waits on 1m / 4m (white dragons)
    game, _ = make_game(["1111m", kokushi, ryanmen, ""], draws="8p")
    game.step({0: A.kan_action(0)})  # closed kan of 1m
    assert game.phase == "chankan" and game.to_act() == (1,)
    game.step({1: A.RON})
    win = next(e for e in game.events if e["type"] == "win")
    assert win["yakuman"] >= 1 and game.results[-1]["deltas"] == [-32000, 32000, 0, 0]
    # the option off (Tenhou's own rule): nobody may rob the closed kan
    game, _ = make_game(["1111m", kokushi, ryanmen, ""], draws="8p")
    game.kokushi_robs_ankan = False
    game.step({0: A.kan_action(0)})
    assert game.phase == "act" and game.events[-1]["rinshan"]


def test_added_kan_is_robbed_by_any_win():
    game, _ = make_game(["", "3333p", "45p789s555z11m678m", ""], draws="1z2z")
    threes = [t for t in game.hands[1] if t >> 2 == 11]
    game.melds[1] = [CalledMeld("pon", threes[:3], threes[0], 0)]
    game.hands[1] = [t for t in game.hands[1] if t not in threes[:3]][:10]
    discard(game, 0, "1z")
    if game.phase == "claim":
        pass_all(game)
    game.step({1: A.kan_action(11)})  # add the fourth 3p to the pon
    assert game.phase == "chankan" and game.to_act() == (2,)
    game.step({2: A.RON})
    win = next(e for e in game.events if e["type"] == "win")
    assert "chankan" in [y[0] for y in win["yaku"]]
    d = game.results[-1]["deltas"]
    assert d[1] < 0 < d[2] and d[0] == d[3] == 0


def test_haitei_and_houtei():
    game, _ = make_game(["", WAITS_9M, "", ""], draws="1z9m")
    game.wall.live_end = game.wall.live_pos + 1  # seat 1's next draw is the last live tile
    game.uninterrupted = False  # (as after a call: no first-turn win)
    discard(game, 0, "1z")
    if game.phase == "claim":
        pass_all(game)
    assert game.wall.remaining == 0 and A.TSUMO in legal(game, 1)
    game.step({1: A.TSUMO})
    assert "haitei" in [y[0] for y in next(e for e in game.events if e["type"] == "win")["yaku"]]

    game, _ = make_game(["9m", WAITS_9M, "", ""], draws="1z")
    game.wall.live_end = game.wall.live_pos  # the dealer's draw was the last live tile
    discard(game, 0, "9m")
    game.step({s: (A.RON if s == 1 else A.PASS) for s in game.to_act()})
    assert "houtei" in [y[0] for y in next(e for e in game.events if e["type"] == "win")["yaku"]]


def test_exhaustive_draw_pays_tenpai():
    game, _ = make_game(["5p", WAITS_9M, "", ""], draws="2z")
    game.wall.live_end = game.wall.live_pos
    discard(game, 0, "5p")  # a simple: no nagashi mangan
    if game.phase == "claim":
        pass_all(game)
    assert game.results[-1]["result"] == "exhaustive"
    assert game.results[-1]["deltas"] == [-1000, 3000, -1000, -1000]


def test_nagashi_mangan():
    game, _ = make_game(["1z", WAITS_9M, "", ""], draws="2z")
    game.wall.live_end = game.wall.live_pos
    discard(game, 0, "1z")  # the dealer's only discard is an honour, never called
    if game.phase == "claim":
        pass_all(game)
    assert game.results[-1]["result"] == "nm"
    assert game.results[-1]["deltas"] == [12000, -4000, -4000, -4000]


def test_any_call_breaks_ippatsu():
    game, _ = make_game([TENPAI, "7p", "77p", ""], draws="9m1z")
    game.step({0: A.RIICHI})
    discard(game, 0, "9m")
    if game.phase == "claim":
        pass_all(game)
    assert game.ippatsu[0] and game.dora_indicators == game.wall.tiles[126:127]
    discard(game, 1, "7p")
    game.step({s: (A.PON if s == 2 else A.PASS) for s in game.to_act()})
    assert not game.ippatsu[0]
