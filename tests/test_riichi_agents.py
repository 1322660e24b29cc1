"""The Riichi baselines (random, greedy, flat MC) and Riichi games in the evaluation harness."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from mjenv.baselines.evaluate import evaluate, mean_ci
from mjenv.baselines.flatmc import FlatMCAgent
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.random_agent import RandomAgent
from mjenv.baselines.registry import make_agent

import mjenv
from mjenv.deficiency import deficiency, effective_tiles
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.agents import RiichiFlatMCAgent, RiichiGreedyAgent, RiichiRandomAgent, Seat
from mjenv.rulesets.riichi.evaluation import play_game
from mjenv.rulesets.riichi.observation import decode, spec
from mjenv.rulesets.riichi.tiles136 import TYPE34
from tests.riichi_game_helpers import discard, make_game, unseen_swap_walls


def observation(game, seat: int) -> dict:
    obs, masks, _ = spec().observe(game)
    return {"observation": obs[seat], "action_mask": masks[seat]}


# ------------------------------------------------------------------ the room's agents
def test_shared_agents_build_the_rooms_agents():
    assert type(GreedyAgent(rules="riichi")) is RiichiGreedyAgent
    assert type(FlatMCAgent(rules="riichi", simulations=10)) is RiichiFlatMCAgent
    assert type(RandomAgent(seed=1, rules="riichi")) is RiichiRandomAgent
    assert type(make_agent("flatmc:sims=30", rules="riichi")) is RiichiFlatMCAgent
    assert make_agent("flatmc:sims=30", rules="riichi").simulations == 30
    assert type(GreedyAgent(rules="basic")) is GreedyAgent  # the shared rule sets keep the shared agent
    assert type(pickle.loads(pickle.dumps(GreedyAgent(rules="riichi")))) is RiichiGreedyAgent
    assert type(make_agent("flatmc:sp,sims=30", rules="riichi")) is RiichiFlatMCAgent  # the model it plays
    with pytest.raises(ValueError, match="single-player model only"):
        make_agent("flatmc:model=fp", rules="riichi")
    with pytest.raises(ValueError, match="not Riichi flat MC's"):
        make_agent("flatmc:pruning=off", rules="riichi")
    with pytest.raises(ValueError, match="simulations must be a positive int"):
        FlatMCAgent(rules="riichi", simulations=0)
    with pytest.raises(ValueError, match="85 entries"):
        GreedyAgent(rules="riichi").act({"observation": np.zeros(spec().size, np.float32),
                                         "action_mask": np.zeros(85, np.int8)})


def test_the_rooms_agents_never_import_game_state():
    """The agents' module reads observations only: no engine, env or wall import, no ``.hands``/``.wall``."""
    import ast
    from pathlib import Path

    import mjenv.rulesets.riichi.agents as module

    tree = ast.parse(Path(module.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    banned = {"mjenv.rulesets.riichi.game", "mjenv.rulesets.riichi.env", "mjenv.rulesets.riichi.wall",
              "mjenv.rulesets.riichi.settlement", "mjenv.game", "mjenv.knowledge", "mjenv.env"}
    assert not imported & banned, sorted(imported & banned)
    attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    assert not attrs & {"wall", "hands", "game", "oracle_hands", "oracle_wall"}, sorted(attrs)


def _kb(game, seat: int) -> np.ndarray:
    """The seat's knowledge base from the game: 4 minus its hand, every meld, every discard left on the
    table and the dora indicators (computed here, not from the observation)."""
    seen = np.zeros(34, dtype=np.int64)
    for t in game.hands[seat]:
        seen[TYPE34[t]] += 1
    for s in range(4):
        for m in game.melds[s]:
            for t in m.tiles:
                seen[TYPE34[t]] += 1
        for t, f in zip(game.discards[s], game.discard_flags[s]):
            if not f & 4:
                seen[TYPE34[t]] += 1
    for t in game.dora_indicators:
        seen[TYPE34[t]] += 1
    return 4 - seen


def test_greedy_discards_to_the_least_deficiency():
    """On the own turns of self-play hands, the greedy's discard leaves the least knowledge-aware deficiency
    over the three forms among the legal discards, and the most unseen effective tiles among those."""
    agent = GreedyAgent(rules="riichi")
    checked = 0
    for seed in range(3):
        env = mjenv.parallel_env(rules="riichi", episode="hand")
        obs, _ = env.reset(seed=seed)
        while env.agents:
            g = env.game
            acts = {}
            for s, a in enumerate(env.agents):
                acts[a] = agent.act(obs[a])
                mask = obs[a]["action_mask"]
                if acts[a] >= A.KAN or g.phase not in ("act", "after_call") or s != g.turn:
                    continue
                hand = np.zeros(34, dtype=np.int64)
                for t in g.hands[s]:
                    hand[TYPE34[t]] += 1
                kb, exposed = _kb(g, s), len(g.melds[s])
                legal = sorted({a if a < 34 else (4, 13, 22)[a - 34] for a in np.flatnonzero(mask[: A.KAN])})
                scores = {}
                for t in legal:
                    h = hand.copy()
                    h[t] -= 1
                    d = deficiency(h, kb, exposed_melds=exposed, rules="riichi")
                    scores[t] = (d, effective_tiles(h, kb, exposed_melds=exposed, rules="riichi")[1])
                chosen = acts[a] if acts[a] < 34 else (4, 13, 22)[acts[a] - 34]
                least = min(d for d, _ in scores.values())
                assert scores[chosen][0] == least, (seed, g.hands[s], scores, chosen)
                if not g.melds[s]:  # the yaku rule only reorders open hands
                    assert scores[chosen][1] == max(e for d, e in scores.values() if d == least)
                checked += 1
            obs, *_ = env.step(acts)
    assert checked > 30


def test_greedy_wins_when_it_can():
    # tsumo: the dealer's first draw completes its hand
    game, _ = make_game(["123m456p789s234s5z", "", "", ""], draws="5z")
    o = observation(game, 0)
    assert o["action_mask"][A.TSUMO]
    assert GreedyAgent(rules="riichi").act(o) == A.TSUMO
    # ron: seat 1 waits on 5p (tanyao) and the dealer discards it
    game, _ = make_game(["5p", "234m456p678s345s5p", "", ""], draws="9m")
    discard(game, 0, "5p")
    o = observation(game, 1)
    assert o["action_mask"][A.RON]
    assert GreedyAgent(rules="riichi").act(o) == A.RON


def test_greedy_declares_riichi_when_tenpai_and_keeps_tenpai():
    game, _ = make_game(["123m456p789s234s1z", "", "", ""], draws="7z")
    agent = GreedyAgent(rules="riichi")
    o = observation(game, 0)
    assert o["action_mask"][A.RIICHI]
    assert agent.act(o) == A.RIICHI
    game.step({0: A.RIICHI})
    o = observation(game, 0)
    a = agent.act(o)
    assert o["action_mask"][a] and a < A.KAN
    assert decode(o["observation"])["tenpai_after_discard"][a] == 1


def test_greedy_nine_terminals():
    agent = GreedyAgent(rules="riichi")
    game, _ = make_game(["19m19p19s123z234m5p", "", "", ""], draws="6p")  # nine distinct terminal/honour types
    o = observation(game, 0)
    assert o["action_mask"][A.KYUUSHU] and agent.act(o) == A.KYUUSHU
    game, _ = make_game(["19m19p19s12345z23m", "", "", ""], draws="6p")  # eleven: on towards thirteen orphans
    o2 = observation(game, 0)
    assert o2["action_mask"][A.KYUUSHU] and agent.act(o2) != A.KYUUSHU
    # the batched decisions (a loop's opponents) make the same two
    rows = np.stack([o["observation"], o2["observation"]]), np.stack([o["action_mask"], o2["action_mask"]])
    assert RiichiGreedyAgent.act_rows([agent, agent], *rows).tolist() == [A.KYUUSHU, agent.act(o2)]


def _chi_game():
    """Seat 0 may chi 3m (234m, all simples) from the dealer on its left (seat 3); after it the hand is
    456p 678s 345s 2m 9m: discarding 9m waits on 2m with tanyao, discarding 2m on 9m with no yaku."""
    game, _ = make_game(["3m", "224m456p678s345s9m", "", ""], draws="1z", round_index=3)
    discard(game, 3, "3m")
    return game


def test_greedy_calls_for_tanyao_and_never_takes_a_yakuless_open_tenpai():
    agent = GreedyAgent(rules="riichi")
    game = _chi_game()
    o = observation(game, 0)
    a = agent.act(o)
    assert a in (A.CHI + 1, A.CHI_RED + 1), A.describe(a)  # chi with 3m in the middle
    assert RiichiGreedyAgent.act_rows([agent], o["observation"][None], o["action_mask"][None]).tolist() == [a]
    game.step({s: (a if s == 0 else A.PASS) for s in game.to_act()})
    o = observation(game, 0)
    v = decode(o["observation"])
    assert v["tenpai_after_discard"][10] == 1 and v["yaku_after_discard"][10] == 0  # 2m: yakuless
    assert v["tenpai_after_discard"][17] == 1 and v["yaku_after_discard"][17] == 1  # 9m: tanyao
    # discarding 2m leaves more unseen winning tiles (three 9m against two 2m): only the yaku rule says 9m
    assert v["effective_count_after_discard"][10] > v["effective_count_after_discard"][17]
    assert agent.act(o) == 17


def test_flatmc_scores_a_yakuless_completion_as_no_win_and_honours_simulations():
    game = _chi_game()
    game.step({s: (A.CHI + 1 if s == 0 else A.PASS) for s in game.to_act()})
    o = observation(game, 0)
    agent = FlatMCAgent(seed=3, rules="riichi", simulations=300)
    values = agent.afterstate_values(Seat(o), [10, 17], rounds=8)
    assert agent.last_simulations == 300
    assert values[10] == 0  # every 9m completes the shape, none wins: no yaku
    assert values[17] > 0  # a 2m wins with tanyao
    # every legal discard an afterstate: the simulations split evenly over the distinct tile types
    types = {a if a < 34 else (4, 13, 22)[a - 34] for a in np.flatnonzero(o["action_mask"][: A.KAN])}
    agent = FlatMCAgent(seed=3, rules="riichi", simulations=40, prefilter=False)
    assert agent.act(o) == 17  # the yakuless wait is worth nothing
    assert len(types) == 11 and agent.last_simulations == (40 // 11) * 11


def test_agents_read_only_their_observation():
    """Two deals that differ only in tiles seat 0 never sees (a tile swapped between seats 1 and 2's
    starting hands, and a replacement tile swapped with an ura-dora indicator) give seat 0's greedy and
    flat MC agents the same decisions; the other seats discard what they draw."""
    base, other = unseen_swap_walls(21)
    for make in (lambda: GreedyAgent(rules="riichi"), lambda: FlatMCAgent(seed=5, rules="riichi", simulations=40)):
        runs = []
        for wall in (base, other):
            agent = make()
            env = mjenv.parallel_env(rules="riichi", episode="hand")
            obs, _ = env.reset(options={"wall": wall})
            decisions, hands = [], []
            while env.agents:
                acts = {}
                for a, o in obs.items():
                    m = o["action_mask"]
                    if a == "player_0":
                        acts[a] = agent.act(o)
                        decisions.append(acts[a])
                        continue
                    v = decode(o)
                    t = int(np.argmax(v["drawn"]))
                    own = A.DISCARD_RED + t // 9 if v["drawn_red"][0] else t  # tsumogiri
                    acts[a] = own if v["drawn"].any() and m[own] else (
                        A.PASS if m[A.PASS] else int(np.flatnonzero(m[:37])[0]))
                hands.append(sorted(env.game.hands[1]))
                obs, *_ = env.step(acts)
            runs.append((decisions, hands))
        (da, ha), (db, hb) = runs
        assert len(da) > 20 and da == db
        assert ha != hb  # the deals do differ, for seat 1


def test_whole_games_are_legal():
    """An east game of greedy, flat MC and random seats: every action is legal (the table raises on an
    illegal one) and the ranks and points add up."""
    agents = [GreedyAgent(rules="riichi"), FlatMCAgent(seed=1, rules="riichi", simulations=60),
              RandomAgent(seed=2, rules="riichi"), RandomAgent(seed=3, rules="riichi")]
    rec = play_game(agents, 11, "east")
    m = rec["metrics"]
    assert sorted(m["rank"]) == [1, 2, 3, 4]
    assert sum(m["points"]) == pytest.approx(0)
    assert rec["hands_played"] >= 4 and all(d > 0 for d in rec["decisions"])


def _events_metrics(agents, seed: int, episode: str) -> dict:
    """The metrics of one game played on the Python engine's table, counted from the game's own events (the
    wins, the seat each ron was on, the drawn hands) rather than from the table's hand results."""
    from mjenv.rulesets.riichi.env import RiichiTable

    table = RiichiTable(episode=episode, illegal_action="raise")
    table.reset(seed=seed)
    while not table.over:
        acts = {}
        for s in sorted(table.acting):
            legal = np.flatnonzero(table.masks[s])
            acts[s] = int(legal[0]) if len(legal) == 1 else int(agents[s].act(table.observation(s)))
        table.step(acts)
    g = table.game
    hands, wins, deal_ins = len(g.results), [0] * 4, [0] * 4
    draws = sum(e["type"] == "draw_game" for e in g.events)
    for k, e in enumerate(g.events):
        if e["type"] == "win":
            wins[e["seat"]] += 1
            if e["from"] is not None and g.events[k - 1]["type"] != "win":  # a double ron: one deal-in
                deal_ins[e["from"]] += 1
    return {"final_scores": list(g.final_scores), "points": list(g.final_points),
            "win_rate": [w / hands for w in wins], "deal_in_rate": [d / hands for d in deal_ins],
            "draw_rate": [draws / hands] * 4, "hands": hands}


@pytest.mark.parametrize("episode,seeds", [("east", (3, 4)), ("hand", tuple(range(20, 32)))])
def test_games_on_the_compiled_engine_equal_the_python_engine_and_its_events(episode, seeds):
    """``play_game`` on the compiled engine (what the harness plays where it is built) gives, game for game, the
    record it gives on the Python engine, and its win, deal-in and draw rates are those counted from the Python
    game's events. Random and greedy seats, so that rons, tsumos and draws all occur."""
    def lineup(seed):
        return [GreedyAgent(rules="riichi"), RandomAgent(seed=seed, rules="riichi"), GreedyAgent(rules="riichi"),
                RandomAgent(seed=seed + 1, rules="riichi")]

    seen = {"ron": 0, "tsumo": 0, "draw": 0}
    for seed in seeds:
        fast = play_game(lineup(seed), seed, episode, engine="compiled")
        slow = play_game(lineup(seed), seed, episode, engine="python")
        for rec in (fast, slow):
            rec.pop("think_s")
        assert fast == slow
        ref = _events_metrics(lineup(seed), seed, episode)
        m = fast["metrics"]
        assert fast["final_scores"] == ref["final_scores"] and m["points"] == ref["points"]
        assert fast["hands_played"] == ref["hands"]
        for key in ("win_rate", "deal_in_rate", "draw_rate"):
            assert m[key] == pytest.approx(ref[key]), key
        seen["ron"] += round(sum(m["deal_in_rate"]) * ref["hands"])
        seen["tsumo"] += round((sum(m["win_rate"]) - sum(m["deal_in_rate"])) * ref["hands"])
        seen["draw"] += round(m["draw_rate"][0] * ref["hands"])
    assert all(seen.values()), seen


# ------------------------------------------------------------------ the harness
def test_harness_rank_and_points_by_hand():
    """The harness's per-agent rank and points with their CIs equal a by-hand computation from the games'
    final scores: rank by score (ties to the lower seat), Tenhou points (uma 20/10/-10/-20, the first
    takes minus the others' sum), averaged per deal over the seats an agent played, t-interval over deals."""
    report = evaluate(["greedy", "random"], 3, seed=5, rules="riichi", episode="hand", progress=False)
    assert report.config["episode"] == "hand" and len(report.hands) == 6  # teams: two rotations
    per_deal: dict[str, dict[int, list]] = {"greedy": {}, "random": {}}
    for h in report.hands:
        fs = h["final_scores"]
        order = sorted(range(4), key=lambda s: (-fs[s], s))
        pts = [0.0] * 4
        for r, s in enumerate(order[1:], start=1):
            x = fs[s] - 30000
            pts[s] = math.copysign((abs(x) + 400) // 1000, x) + (10, -10, -20)[r - 1]
        pts[order[0]] = -sum(pts[s] for s in order[1:])
        for s, lab in enumerate(h["seats"]):
            per_deal[lab].setdefault(h["deal"], []).append((order.index(s) + 1, pts[s]))
    for lab, deals in per_deal.items():
        ranks = [np.mean([r for r, _ in v]) for _, v in sorted(deals.items())]
        points = [np.mean([p for _, p in v]) for _, v in sorted(deals.items())]
        n = len(ranks)
        half = 4.303 * np.std(ranks, ddof=1) / math.sqrt(n)  # t(0.975, 2)
        assert report.stats[lab]["rank"][0] == pytest.approx(np.mean(ranks))
        assert report.stats[lab]["rank"][1] == pytest.approx(half)
        assert report.stats[lab]["points"] == pytest.approx(mean_ci(points))
    diff = report.difference("greedy", "random", metric="points")
    assert diff[0] == pytest.approx(report.stats["greedy"]["points"][0] - report.stats["random"]["points"][0])
    table = report.table()
    assert "avg rank" in table and "points/game" in table and "greedy" in table
    with pytest.raises(ValueError, match="episode must be one of"):
        evaluate(["greedy", "random"], 1, rules="riichi", episode="south", progress=False)
    with pytest.raises(ValueError, match="evaluated hand by hand"):
        evaluate(["greedy", "random"], 1, rules="basic", episode="east", progress=False)


def test_agents_refuse_malformed_observations_even_with_one_legal_action():
    """A seat with one legal action is answered without decoding its observation; a malformed one is still refused
    with a clear error, by every Riichi agent that reads observations."""
    size = spec().size
    one = np.zeros(A.N_ACTIONS, dtype=np.int8)
    one[A.PASS] = 1
    for agent in (GreedyAgent(rules="riichi"), FlatMCAgent(seed=0, rules="riichi", simulations=5)):
        assert agent.act({"observation": np.zeros(size, np.float32), "action_mask": one}) == A.PASS
        with pytest.raises(ValueError, match="observation"):
            agent.act({"observation": np.zeros(size - 1, np.float32), "action_mask": one})
        with pytest.raises(ValueError, match=f"{A.N_ACTIONS} entries"):
            agent.act({"observation": np.zeros(size, np.float32), "action_mask": one[:-1]})
        with pytest.raises(ValueError, match="at least one legal"):
            agent.act({"observation": np.zeros(size, np.float32), "action_mask": np.zeros(A.N_ACTIONS, np.int8)})
        with pytest.raises(ValueError, match="dict with keys"):
            agent.act(np.zeros(size, np.float32))
