"""The Sichuan game: 定缺 declaration, its constraints, bloody battle, kong payments, draw
settlement, and random play with every invariant. Expected scores are worked out by hand from the
rule set in mjenv.rules / mjenv.rulesets.sichuan.scoring (2 ** fan per win; kongs 2 / 1 / 2)."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.game import Game, Phase, make_wall
from mjenv.rules import get_rules
from tests.game_helpers import script, tid, tile_totals

S, M, P = 0, 1, 2  # suit indices: bamboo, characters, dots
LAY = Game("sichuan", seed=0).layout


def declare(g: Game, *suits: int) -> None:
    g.step({s: g.layout.declare(m) for s, m in enumerate(suits)})


def names(g: Game, seat: int) -> set[str]:
    return {g.layout.describe(a) for a in g.legal_actions(seat)}


# ---------------------------------------------------------------- the declaration
def test_every_seat_declares_at_once_first():
    g = Game("sichuan", seed=5, dealer=2)
    assert g.phase == Phase.DECLARE and g.acting_seats() == [0, 1, 2, 3]
    for s in range(4):  # the three declarations and nothing else, the dealer's 14 tiles included
        assert g.legal_actions(s) == [LAY.size - 3, LAY.size - 2, LAY.size - 1]
    assert g.missing.tolist() == [-1, -1, -1, -1]
    with pytest.raises(ValueError, match="seat 3 must act in phase DECLARE"):
        g.step({0: LAY.declare(0), 1: LAY.declare(0), 2: LAY.declare(0)})
    with pytest.raises(ValueError, match=r"seat 2: action 0 \(discard 1s\) is illegal in phase DECLARE"):
        g.step({0: LAY.declare(0), 1: LAY.declare(0), 2: 0, 3: LAY.declare(0)})
    declare(g, P, S, M, S)
    assert g.missing.tolist() == [P, S, M, S]
    assert g.phase == Phase.DISCARD and g.acting_seats() == [2] and g.current_player == 2
    assert g.log["steps"][0] == [[0, LAY.size - 1], [1, LAY.size - 3], [2, LAY.size - 2], [3, LAY.size - 3]]
    assert g.result()["missing"] == [P, S, M, S]


def test_other_presets_have_no_declaration_ids():
    for preset in ("basic", "honours", "taiwan16"):
        g = Game(preset, seed=0)
        assert g.layout.size == 2 * g.num_tile_types + 7 and g.layout.declares.start == g.layout.declares.stop
        with pytest.raises(ValueError, match="no declaration actions"):
            g.layout.declare(0)


DISCARD_FIRST = ["1m5m 123s 456s 789s 1p2p", "123s456s789s 1p2p3p 4p", "2m3m4m5m6m7m 2p3p4p5p6p7p 9p", "1112345678999m"]


def test_missing_suit_tiles_must_be_discarded_first():
    g = script(DISCARD_FIRST, draws="8m", rules="sichuan")
    declare(g, M, M, S, S)
    assert names(g, 0) == {"discard 1m", "discard 5m", "discard 8m"}  # nothing else, though 1s..2p are held
    g2 = script(DISCARD_FIRST, draws="8m", rules="sichuan")
    declare(g2, P, M, S, S)  # seat 0 holds two dots
    assert names(g2, 0) == {"discard 1p", "discard 2p"}
    g3 = script(DISCARD_FIRST, draws="8m", rules="sichuan")
    declare(g3, S, M, S, S)  # seat 0 holds nine bamboo: those first
    assert names(g3, 0) == {f"discard {r}s" for r in range(1, 10)}
    with pytest.raises(ValueError, match=r"seat 0: action 0 \(discard 1s\) is illegal in phase DISCARD"):
        g.step({0: 0})


def test_a_seat_free_of_its_missing_suit_discards_anything():
    g = script(DISCARD_FIRST, draws="8m 9m", rules="sichuan")
    declare(g, M, S, S, S)
    g.step({0: tid("1m")})
    # seat 3 (bamboo missing, nine gates in characters) may pong, kong or win on 1m; it passes
    assert names(g, 3) == {"win", "pong", "exposed kong", "pass"}
    g.step({})
    # seat 1 declared bamboo and holds nine of it: only those may go, not the drawn 9m nor 4p
    assert g.current_player == 1 and g.last_drawn == tid("9m")
    assert names(g, 1) == {f"discard {r}s" for r in range(1, 10)}
    with pytest.raises(ValueError, match=r"seat 1: action .* \(discard 4p\) is illegal"):
        g.step({1: tid("4p")})
    # seat 0 (characters missing) still holds 5m 8m; seat 2 (bamboo missing) holds none: anything goes
    g = script(DISCARD_FIRST, draws="8m 9m 1p", rules="sichuan")
    declare(g, M, M, S, S)
    g.step({0: tid("8m")})
    g.step({})
    g.step({1: tid("9m")})
    g.step({})
    assert g.current_player == 2 and names(g, 2) == {"discard " + n for n in
                                                     "2m 3m 4m 5m 6m 7m 1p 2p 3p 4p 5p 6p 7p 9p".split()}


NO_PONG = ["5m 123s 456s 789s 1p2p3p", "5m5m5m 1s4s7s 1p4p7p 2p5p8p 9m", "9m 2s3s4s5s6s7s 2p3p4p5p6p 9p",
           "1s1s 2s2s 8s8s 9s9s 6p6p 8p8p 3m"]


def test_no_pong_or_kong_of_the_missing_suit():
    g = script(NO_PONG, draws="9s", rules="sichuan")
    declare(g, M, M, S, S)
    g.step({0: tid("5m")})
    # seat 1 holds three 5m but declared characters missing: neither pong nor kong is offered
    assert g.phase == Phase.CLAIM and g.acting_seats() == []
    g = script(NO_PONG, draws="9s", rules="sichuan")
    declare(g, M, P, S, S)
    g.step({0: tid("5m")})
    assert names(g, 1) == {"pong", "exposed kong", "pass"}
    h = ["5m5m5m5m 1s4s7s 1p4p7p 2p5p8p", "1m2m3m 1s4s7s 1p4p7p 2p5p8p 3p", *NO_PONG[2:]]
    g = script(h, draws="9s", rules="sichuan")
    declare(g, M, P, S, S)
    assert names(g, 0) == {"discard 5m"}  # four 5m of the missing suit: no concealed kong
    g = script(h, draws="9s", rules="sichuan")
    declare(g, P, P, S, S)  # dots missing: the dots go first, but the kong of 5m may be made
    assert names(g, 0) == {"kong 5m"} | {f"discard {r}p" for r in (1, 2, 4, 5, 7, 8)}


NEARLY = ["123s 456s 789s 123m 5m", "1p1p 2p2p 3p3p 4p4p 6p6p 7p7p 9p", "2m3m4m 6m7m8m 2p3p5p 6p8p8p9p",
          "4s4s 5s5s 6s6s 7s7s 8s8s 1m1m 9m"]


def test_a_hand_holding_its_missing_suit_cannot_win():
    # seat 0 (dealer) draws a complete 14-tile hand of bamboo and characters
    for missing, can in ((P, True), (S, False), (M, False)):
        g = script(NEARLY, draws="5m", rules="sichuan")
        declare(g, missing, S, S, P)
        assert ("win" in names(g, 0)) == can, missing
    # on a discard: seat 1 waits on 9p (seven pairs); declared dots missing, it cannot win on it
    for missing, can in ((M, True), (P, False)):
        g = script(NEARLY, draws="9p", rules="sichuan")
        declare(g, P, missing, S, P)
        g.step({0: tid("9p")})
        assert ("win" in names(g, 1)) == can, missing


def test_seven_pairs_with_a_four_of_a_kind_wins():
    # 龙七对: 1s1s1s1s counts as two pairs (the hand is no melds-and-a-pair hand)
    hands = ["1s1s1s1s 3s3s 5s5s 7s7s 9s9s 2s", NEARLY[1], NEARLY[2], "4m4m 5m5m 6m 7s7s 8s8s 9s9s 1m1m"]
    g = script(hands, draws="2s", rules="sichuan")
    declare(g, P, S, S, P)
    assert "win" in names(g, 0)
    g.step({0: LAY.win})
    w = g.wins[0]
    # seven pairs 2 + pure suit 2 + one gen (1s) + self-draw 1 = 6 fan, capped at 4: 16 points from each
    assert w["fan"] == {"plain": 0, "seven_pairs": 2, "pure_suit": 2, "gen": 1, "self_draw": 1}
    assert w["points"] == 16 and g.scores.tolist() == [48, -16, -16, -16]
    assert not g.is_over and g.current_player == 1


# ---------------------------------------------------------------- bloody battle
THREE_WINS = [
    "5p 1m2m3m 4m5m6m 7m8m9m 1m1m 2s",  # seat 0 (dealer): dots missing; must discard 5p first
    "123s 456s 789s 1s1s 4p6p",  # seat 1: characters missing; waits on 5p
    "2m3m4m 5m6m7m 2p3p4p 5p6p7p 9p",  # seat 2: bamboo missing; waits on 9p
    "4s 1p1p 2p2p 3p3p 7p7p 8p8p 6m 9m",  # seat 3: bamboo missing; must discard 4s
]


def test_second_and_third_winners_in_one_hand():
    g = script(THREE_WINS, draws="3s 9p 5m", rules="sichuan")
    declare(g, P, M, S, S)
    assert names(g, 0) == {"discard 5p"}
    g.step({0: tid("5p")})
    assert g.acting_seats() == [1] and names(g, 1) == {"win", "pass"}
    g.step({1: LAY.win})
    # seat 1 has left; the hand goes on with the seat after it
    assert not g.is_over and g.won.tolist() == [False, True, False, False] and g.winners == [1]
    assert g.scores.tolist() == [-1, 1, 0, 0]  # plain win on a discard: 2 ** 0 from the discarder
    assert g.phase == Phase.DISCARD and g.current_player == 2 and g.last_drawn == tid("9p")
    assert g.legal_actions(1) == [LAY.pass_]
    assert "win" in names(g, 2)
    g.step({2: LAY.win})  # self-draw: 2 ** 1 from each seat still in the hand (0 and 3, not 1)
    assert not g.is_over and g.winners == [1, 2]
    assert g.scores.tolist() == [-3, 1, 4, -2]
    assert g.current_player == 3 and g.last_drawn == tid("5m")
    assert names(g, 3) == {"discard 4s"}
    g.step({3: tid("4s")})
    # only seat 0 is left to answer: seats 1 and 2 are out
    assert g.acting_seats() == [0] and g.legal_actions(1) == g.legal_actions(2) == [LAY.pass_]
    g.step({0: LAY.win})
    assert g.is_over and g.end_reason == "discard" and g.winners == [0, 1, 2]
    assert g.scores.tolist() == [-2, 1, 4, -3] and g.scores.sum() == 0
    assert [(w["seat"], w["deal_in"], w["points"]) for w in g.wins] == [(1, 0, 1), (2, -1, 2), (0, 3, 1)]
    assert g.result()["wins"][1]["fan"] == {"plain": 0, "self_draw": 1}
    assert (tile_totals(g) == 4).all()


def test_two_winners_on_one_discard_then_play_goes_on_after_the_last():
    hands = list(THREE_WINS)
    hands[3] = "1p1p 2p2p 3p3p 7p7p 8p8p 6m6m 5p"  # seat 3 also waits on 5p (seven pairs)
    g = script(hands, draws="3s 9s", rules="sichuan")
    declare(g, P, M, S, M)  # seat 3 holds 6m 6m of its missing suit: it cannot win
    g.step({0: tid("5p")})
    assert g.acting_seats() == [1] and "win" not in names(g, 3)
    g = script(hands, draws="3s 9s", rules="sichuan")
    declare(g, P, M, S, S)
    g.step({0: tid("5p")})
    assert g.acting_seats() == [1, 3] and "win" in names(g, 3)
    g.step({1: LAY.win, 3: LAY.win})
    # 一炮多响: the discarder pays each (plain 1; seven pairs 2 fan = 4); seat 0 draws next (after seat 3)
    assert g.winners == [1, 3] and g.scores.tolist() == [-5, 1, 0, 4]
    assert not g.is_over and g.current_player == 0 and g.last_drawn == tid("9s")


# ---------------------------------------------------------------- kong payments
KONGS = [
    "1111m 2m3m4m 5m6m7m 9s 1s 2s",  # seat 0: dots missing; concealed kong of 1m, then discards 9s
    "999s 123p 456p 789p 3s",  # seat 1: characters missing; exposed kong of 9s, then discards 3s
    "3s3s 2m3m4m 5m6m7m 8m8m 9m9m 9p",  # seat 2: dots missing; pongs 3s, sheds 9p, adds the drawn 3s
    "1p1p 2p2p 5p5p 6p6p 7p7p 8p8p 4m",  # seat 3: bamboo missing; sheds the 4s it draws
]


def test_kong_payments_wind_and_rain():
    g = script(KONGS, draws="8m 4s 9p 6m 3s", replacements="9m 5s 7s", rules="sichuan")
    declare(g, P, M, P, S)
    g.step({0: LAY.kong(tid("1m"))})  # concealed kong (下雨): 2 from each other seat
    assert g.scores.tolist() == [6, -2, -2, -2]
    assert g.current_player == 0 and g.last_drawn == tid("9m")
    g.step({0: tid("9s")})
    assert names(g, 1) == {"pong", "exposed kong", "pass"}
    g.step({1: LAY.exposed_kong})  # exposed kong (刮风): 2 from the discarder
    assert g.scores.tolist() == [4, 0, -2, -2]
    assert g.current_player == 1 and g.last_drawn == tid("5s")
    g.step({1: tid("3s")})
    g.step({2: LAY.pong})
    assert names(g, 2) == {"discard 9p"}  # dots missing: its one dot goes first
    g.step({2: tid("9p")})
    g.step({})
    assert g.current_player == 3 and names(g, 3) == {"discard 4s"}
    g.step({3: tid("4s")})
    g.step({})
    assert g.current_player == 0 and names(g, 0) == {"discard 9p"}
    g.step({0: tid("9p")})
    g.step({})
    assert g.current_player == 1 and names(g, 1) == {"discard 6m"}
    g.step({1: tid("6m")})
    g.step({})
    assert g.current_player == 2 and "kong 3s" in names(g, 2)
    g.step({2: LAY.kong(tid("3s"))})
    assert g.phase == Phase.ROB_KONG and g.scores.tolist() == [4, 0, -2, -2]  # not paid while it may be robbed
    g.step({})
    assert g.scores.tolist() == [3, -1, 1, -3]  # added kong: 1 from each other seat
    assert g.current_player == 2 and g.last_drawn == tid("7s")
    assert (tile_totals(g) == 4).all()


def test_a_robbed_added_kong_is_not_paid_and_its_robber_wins():
    # seat 3 waits on 3s (111p 222p 555p 88p 2s4s), characters missing
    hands = list(KONGS)
    hands[3] = "1p1p1p 2p2p2p 5p5p5p 8p8p 2s4s"
    g = script(hands, draws="8m 4s 9p 6m 3s", replacements="9m 5s 7s", rules="sichuan")
    declare(g, P, M, P, M)
    g.step({0: LAY.kong(tid("1m"))})
    g.step({0: tid("9s")})
    g.step({1: LAY.exposed_kong})
    assert g.scores.tolist() == [4, 0, -2, -2]
    g.step({1: tid("3s")})
    assert names(g, 3) == {"win", "pass"}  # seat 3 could win on 3s here; it lets seat 2 pong it
    g.step({2: LAY.pong, 3: LAY.pass_})
    g.step({2: tid("9p")})
    g.step({})
    assert g.current_player == 3 and g.last_drawn == tid("4s")
    g.step({3: tid("4s")})
    g.step({})
    g.step({0: tid("9p")})
    g.step({})
    g.step({1: tid("6m")})
    g.step({})
    g.step({2: LAY.kong(tid("3s"))})
    assert g.acting_seats() == [3] and names(g, 3) == {"win", "pass"}
    g.step({3: LAY.win})
    # robbing a kong: plain 0 + robbing 1 = 1 fan = 2 from the kong's declarer; no kong payment
    assert g.wins[-1]["fan"] == {"plain": 0, "robbing_kong": 1}
    assert g.scores.tolist() == [4, 0, -2 - 2, -2 + 2] and g.winners == [3]
    assert ("pong", (tid("3s"),) * 3) in [(m.kind, m.tiles) for m in g.melds[2]]
    assert not g.is_over and g.current_player == 0  # play goes on after the robber


# ---------------------------------------------------------------- the exhaustive draw
SETTLE = [
    "1m1m 4m4m 7m7m 9m9m 3s5s 7s7s 2m",  # seat 0: dots missing, not ready
    "1112345678999s",  # seat 1: characters missing, ready (pure bamboo nine gates)
    "1m3m5m7m9m 2m4m6m8m 2s4s6s8s",  # seat 2: dots missing, not ready
    "1112345678999p",  # seat 3: dots missing, all thirteen tiles of it: still holds some at the end
]


def test_draw_settlement_pig_and_ready_checks():
    g = script(SETTLE, rules="sichuan")
    declare(g, P, M, P, P)
    while not g.is_over:  # every seat throws what it draws when it may, passes every claim
        if g.phase == Phase.DISCARD:
            legal = g.legal_actions(g.current_player)
            g.step({g.current_player: g.last_drawn if g.last_drawn in legal else legal[0]})
        else:
            g.step({})
    assert g.end_reason == "exhaustive_draw" and g.winners == [] and g.wall_remaining == 0
    assert g.hands[3, 18:27].sum() > 0  # seat 3 is a 花猪 (still holds its missing suit)
    # 查花猪: seat 3 pays 16 to each of the others. 查大叫: seat 1 is ready, its best wait (1s or 9s:
    # pure suit 2 + one gen 1 = 3 fan) is worth 8, paid by each non-ready seat but the pig (0 and 2)
    assert g.scores.tolist() == [16 - 8, 16 + 16, 16 - 8, -48]
    assert (tile_totals(g) == 4).all()


def test_draw_settlement_leaves_out_the_winners():
    g = script(SETTLE, rules="sichuan", draws="")
    declare(g, P, M, P, P)
    n_turns = 0
    while not g.is_over:
        if g.phase == Phase.DISCARD:
            p = g.current_player
            legal = g.legal_actions(p)
            if LAY.win in legal:  # seat 1 wins on its own draw once; it is then out of the settlement
                g.step({p: LAY.win})
                continue
            g.step({p: g.last_drawn if g.last_drawn in legal else legal[0]})
            n_turns += 1
        else:
            g.step({})
    assert g.winners == [1] and g.end_reason == "exhaustive_draw"
    w = g.wins[0]
    paid = w["points"]
    # the self-draw is paid by the three others; at the draw only 0, 2 (not ready, no pig) and the
    # pig 3 are left: 3 pays 16 to 0 and to 2; nobody is ready, so 查大叫 moves nothing
    assert g.scores.tolist() == [16 - paid, 3 * paid, 16 - paid, -32 - paid]


# ---------------------------------------------------------------- random play
def greedyish(g: Game, s: int, rng: np.random.Generator) -> int:
    """Wins always, kongs and pongs often, declares the suit it holds least of, else random legal."""
    legal = g.legal_actions(s)
    lay = g.layout
    if g.phase == Phase.DECLARE:
        return lay.declare(int(np.argmin(g.hands[s].reshape(3, 9).sum(axis=1))))
    for a, p in ((lay.win, 1.0), (lay.exposed_kong, 0.7), (lay.pong, 0.7)):
        if a in legal and rng.random() < p:
            return a
    kongs = [a for a in legal if lay.kongs.start <= a < lay.kongs.stop]
    if kongs and rng.random() < 0.7:
        return kongs[0]
    return int(rng.choice(legal))


def check_sichuan_invariants(g: Game) -> None:
    assert g.scores.sum() == 0 and (tile_totals(g) == 4).all()
    masks = g.legal_action_masks()
    assert (masks.sum(axis=1) >= 1).all()
    acting = g.acting_seats()
    for s in range(4):
        if s not in acting:
            assert masks[s].tolist() == [0] * LAY.pass_ + [1, 0, 0, 0]
        elif g.phase != Phase.DECLARE:
            assert not masks[s, LAY.declares].any()
    for s in np.flatnonzero(g.won):
        assert s not in acting  # a winner has left the hand
    if g.phase == Phase.DISCARD:
        p = g.current_player
        m = int(g.missing[p])
        if g.hands[p, 9 * m : 9 * m + 9].any():  # 定缺: only the missing suit may go
            discards = np.flatnonzero(masks[p, : LAY.discards.stop])
            assert all(t // 9 == m for t in discards), (discards, m)
            assert not masks[p, LAY.win]


def play(seed: int, rng: np.random.Generator) -> Game:
    g = Game("sichuan", seed=seed, dealer=seed % 4)
    while not g.is_over:
        check_sichuan_invariants(g)
        g.step({s: greedyish(g, s, rng) for s in g.acting_seats()})
    check_sichuan_invariants(g)
    return g


def _random_hands(n: int, seed0: int) -> dict:
    rng = np.random.default_rng(seed0)
    seen = {"winners": set(), "reasons": set(), "fans": set()}
    for seed in range(seed0, seed0 + n):
        g = play(seed, rng)
        seen["winners"].add(len(g.winners))
        seen["reasons"].add(g.end_reason)
        for w in g.wins:
            seen["fans"] |= set(w["fan"])
            assert w["points"] == 2 ** min(sum(w["fan"].values()), 4)
        assert len(g.wins) == len(g.winners) and sorted(w["seat"] for w in g.wins) == g.winners
        if g.end_reason != "exhaustive_draw":
            assert len(g.winners) == 3
    return seen


def test_random_hands_keep_every_invariant():
    seen = _random_hands(300, 0)
    assert {0, 1, 2} <= seen["winners"]
    assert {"exhaustive_draw"} <= seen["reasons"]


@pytest.mark.slow
def test_random_hands_keep_every_invariant_10k():
    seen = _random_hands(10_000, 1_000_000)
    assert seen["winners"] == {0, 1, 2, 3}
    assert {"self_draw", "discard", "exhaustive_draw"} <= seen["reasons"]
    assert {"self_draw", "after_kong", "all_pongs", "pure_suit", "gen"} <= seen["fans"]


def test_rules_validation():
    with pytest.raises(ValueError, match="missing_suit=True needs num_tile_types=27"):
        get_rules({"name": "honours", "missing_suit": True})
    with pytest.raises(ValueError, match="scoring='sichuan' needs missing_suit=True, bloody=True and allow_chow"):
        get_rules({"name": "sichuan", "allow_chow": True})
    with pytest.raises(ValueError, match="bloody=True needs scoring='sichuan'"):
        get_rules({"name": "basic", "bloody": True})
    r = get_rules("sichuan")
    assert get_rules(r.to_dict()) == r and get_rules("basic").to_dict().keys().isdisjoint({"missing_suit", "bloody"})
    assert make_wall(r).shape == (108,)
