"""Baseline agents: legality over thousands of decisions, seeding, observation-only play, hand-checked
greedy choices, the flat Monte Carlo core (SP/FP models, pruning, Eq. (1) block counts), the human agent."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import numpy as np
import pytest
from mjenv.baselines import FlatMCAgent, GreedyAgent, HumanAgent, RandomAgent
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DISCARD, Situation
from mjenv.baselines.evaluate import play_hand
from mjenv.baselines.flatmc import block_counts, flat_monte_carlo, sample_draws, simulate
from mjenv.baselines.greedy import best_discard

from mjenv import tiles
from mjenv.game import Game
from mjenv.game.actions import ActionLayout
from mjenv.observation import ObservationSpec

LAYOUT = ActionLayout(27)
BASELINES = Path(__file__).resolve().parents[1] / "baselines"


class Checked:
    """Wraps an agent: asserts every action is legal under the mask it was given, counts decisions."""

    def __init__(self, agent):
        self.agent = agent
        self.decisions = 0

    def act(self, obs):
        a = self.agent.act(obs)
        assert isinstance(a, int)
        assert obs["action_mask"][a] == 1, f"{self.agent!r} chose illegal action {a}"
        if obs["action_mask"].sum() > 1:
            self.decisions += 1
        return a


def _situation(hand: str, *, phase=PHASE_DISCARD, kb=None, melds_needed=4, last_discard=-1, legal=(), wall=40):
    h = tiles.parse(hand, 27).astype(np.int16)
    k = (4 - h if kb is None else np.asarray(kb)).astype(np.int16)
    if last_discard >= 0 and kb is None:
        k[last_discard] -= 1
    mask = np.zeros(LAYOUT.size, dtype=bool)
    if phase == PHASE_DISCARD:
        mask[:27] = h > 0
    for a in legal:
        mask[a] = True
    return Situation(h, k, melds_needed, phase, last_discard, wall, mask, LAYOUT)


# ------------------------------------------------------------------------------------------ legality


def test_fast_agents_never_choose_an_illegal_action_over_thousands_of_decisions():
    spec = ObservationSpec()
    randoms = [Checked(RandomAgent(seed=i)) for i in range(4)]
    greedies = [Checked(GreedyAgent(seed=i)) for i in range(4)]
    mixed = [greedies[0], randoms[0], greedies[1], randoms[1]]
    for hand in range(8):
        play_hand(randoms, game_seed=1000 + hand, spec=spec)
        play_hand(greedies, game_seed=2000 + hand, spec=spec)
        play_hand(mixed, game_seed=3000 + hand, spec=spec)
    n_random = sum(a.decisions for a in randoms)
    n_greedy = sum(a.decisions for a in greedies)
    assert n_random >= 600 and n_greedy >= 300 and n_random + n_greedy >= 1000


def test_flatmc_with_a_tiny_budget_stays_legal_in_both_models():
    paper_sp = FlatMCAgent(seed=1, simulations=40, model="sp", pruning=False, discard_twice="h1", prefilter=False)
    seats = [Checked(FlatMCAgent(seed=0, simulations=40, max_rounds=3)), Checked(GreedyAgent()), Checked(paper_sp),
             Checked(RandomAgent(seed=3))]  # fmt: skip
    spec = ObservationSpec()
    for hand in range(3):
        play_hand(seats, game_seed=77 + hand, spec=spec)
    assert seats[0].decisions >= 20 and seats[2].decisions >= 20


# ------------------------------------------------------------------------------------------ seeding


@pytest.mark.parametrize(
    "make",
    [
        lambda s: RandomAgent(seed=s),
        lambda s: FlatMCAgent(seed=s, simulations=60, max_rounds=3),
    ],
)
def test_agents_are_reproducible_under_a_seed(make):
    def run(seed):
        g = []
        play_hand([make(seed), make(seed + 1), make(seed + 2), make(seed + 3)], game_seed=5, keep_game=g)
        return g[0].log["steps"]

    assert run(10) == run(10)


def test_random_agent_seed_changes_its_choices():
    def run(seed):
        g = []
        play_hand([RandomAgent(seed=seed + i) for i in range(4)], game_seed=5, keep_game=g)
        return g[0].log["steps"]

    assert run(10) != run(20)


# ------------------------------------------------------------------------------------------ honesty


def _walls_with_same_view_for_seat0():
    """Two walls: seat 0's hand and first draw identical, the other seats' hands swapped."""
    rng = np.random.default_rng(3)
    w1 = rng.permutation(np.repeat(np.arange(27), 4))
    w2 = w1.copy()
    w2[13:26], w2[26:39] = w1[26:39], w1[13:26]  # seat 1 and seat 2 (dealer 0 draws 13 each, in order)
    return w1, w2


@pytest.mark.parametrize(
    "agent",
    [RandomAgent(seed=4), GreedyAgent(seed=4), FlatMCAgent(seed=4, simulations=200, max_rounds=4)],
    ids=["random", "greedy", "flatmc"],
)
def test_agents_act_only_on_their_observation_not_on_hidden_state(agent):
    w1, w2 = _walls_with_same_view_for_seat0()
    g1, g2 = Game(seed=0, wall=w1), Game(seed=0, wall=w2)
    spec, oracle = ObservationSpec(), ObservationSpec(oracle=True)
    # the hidden state differs (the oracle views see it), seat 0's own observation does not
    assert not np.array_equal(oracle.encode(g1, 0), oracle.encode(g2, 0))
    o1 = {"observation": spec.encode(g1, 0), "action_mask": g1.legal_action_mask(0)}
    o2 = {"observation": spec.encode(g2, 0), "action_mask": g2.legal_action_mask(0)}
    assert np.array_equal(o1["observation"], o2["observation"])
    agent.reset(9)
    a1 = agent.act(o1)
    agent.reset(9)
    a2 = agent.act(o2)
    assert a1 == a2


def test_agents_refuse_anything_but_an_observation_dict():
    with pytest.raises(ValueError, match="observation"):
        GreedyAgent().act(Game(seed=0))


AGENT_MODULES = ("_common.py", "random_agent.py", "greedy.py", "flatmc.py", "human.py")
ALLOWED_MJENV = {"mjenv.baselines._common", "mjenv.deficiency", "mjenv.deficiency.dp", "mjenv.deficiency.features",
                 "mjenv.deficiency.forms",  # without_suit: the hand without its missing suit
                 "mjenv.rulesets",  # the registry: a rule set's own agent parts (its phase's decisions)
                 "mjenv.deficiency.seven_pairs",  # the rule set's seven pairs
                 "mjenv.baselines.greedy",  # flatmc: the greedy order under the rule set
                 "mjenv.baselines",  # flatmc: its compiled simulation, mjenv.baselines._flatmc
                 "mjenv.deficiency.contains", "mjenv.deficiency.kernel",  # flatmc's win check, MJENV_NO_KERNEL
                 "mjenv.game.actions", "mjenv.rules", "mjenv.tiles", "mjenv.observation"}  # fmt: skip


@pytest.mark.parametrize("module", AGENT_MODULES)
def test_agent_code_never_imports_game_state(module):
    tree = ast.parse((BASELINES / module).read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        # no attribute access of game internals (hands of others, the wall) by name either
        if isinstance(node, ast.Attribute):
            assert node.attr not in {"wall", "hands", "oracle_hands", "oracle_wall"}, f"{module} reads .{node.attr}"
    ours = {m for m in imported if m.startswith("mjenv")}
    assert ours <= ALLOWED_MJENV, f"{module} imports {sorted(ours - ALLOWED_MJENV)}"
    assert "mjenv.game" not in ours and "mjenv.knowledge" not in ours and "mjenv.env" not in ours


# ------------------------------------------------------------------------------------------ greedy


def test_greedy_discard_breaks_the_weak_pchow_side_by_effective_tiles():
    # 123456789m 12p 55p: every discard of 1p, 2p, 5p (or a meld tile) leaves deficiency 2; after 1p
    # the tiles 1p(3 left) 2p(3) 3p(4) 4p(4) 5p(2) = 16 lower it, more than after any other discard
    s = _situation("123456789m1255p")
    assert GreedyAgent().decide(s) == LAYOUT.discard(tiles.parse("1p", 27).argmax())


def test_greedy_discard_keeps_a_ready_hand():
    # 123456789m 11p 23s + 9p: discarding the lone 9p leaves a ready hand (1s/4s), anything else does not
    s = _situation("123456789m11p23s9p")
    assert GreedyAgent().decide(s) == LAYOUT.discard(tiles.parse("9p", 27).argmax())
    tile, d = best_discard(s.hand, s.kb, 4)
    assert (tile, d) == (int(tiles.parse("9p", 27).argmax()), 1)


def test_greedy_wins_whenever_it_can():
    s = _situation("123456789m11p123s", legal=[LAYOUT.win])
    assert GreedyAgent().decide(s) == LAYOUT.win


def test_greedy_pongs_when_it_lowers_the_deficiency():
    # 123456789m 11p 5s 9s needs a meld (deficiency 2); pong 1p leaves 3 melds + 5s 9s (deficiency 1)
    p1 = int(tiles.parse("1p", 27).argmax())
    s = _situation("123456789m11p5s9s", phase=PHASE_CLAIM, last_discard=p1, legal=[LAYOUT.pong, LAYOUT.pass_])
    assert GreedyAgent().decide(s) == LAYOUT.pong


def test_greedy_prefers_the_kong_when_pong_and_kong_tie():
    # 111p 234567m 789m 5s is ready on 5s (deficiency 1); pong and exposed kong of 1p both leave 1
    p1 = int(tiles.parse("1p", 27).argmax())
    legal = [LAYOUT.pong, LAYOUT.exposed_kong, LAYOUT.pass_]
    s = _situation("111p234567789m5s", phase=PHASE_CLAIM, last_discard=p1, legal=legal)
    assert GreedyAgent().decide(s) == LAYOUT.exposed_kong


def test_greedy_chows_when_it_lowers_the_deficiency():
    # 12345678m 11p 789s is ready on 6m/9m (deficiency 1); chowing 9m with 7m8m leaves 123456m 11p 789s,
    # three melds and a pair: deficiency 0
    m9 = int(tiles.parse("9m", 27).argmax())
    s = _situation("12345678m11p789s", phase=PHASE_CLAIM, last_discard=m9, legal=[LAYOUT.chow_high, LAYOUT.pass_])
    assert GreedyAgent().decide(s) == LAYOUT.chow_high


def test_greedy_passes_when_only_pass_helps():
    # a claim window where the only claim would need tiles the seat does not hold: PASS
    p1 = int(tiles.parse("1p", 27).argmax())
    s = _situation("123456789m11p5s9s", phase=PHASE_CLAIM, last_discard=p1, legal=[LAYOUT.pass_, LAYOUT.win])
    s = Situation(s.hand, s.kb, 4, PHASE_CLAIM, p1, 40, np.eye(LAYOUT.size, dtype=bool)[LAYOUT.pass_]
                  | np.eye(LAYOUT.size, dtype=bool)[LAYOUT.chow_low], LAYOUT)  # fmt: skip
    assert GreedyAgent().decide(s) == LAYOUT.pass_


# ------------------------------------------------------------------------------------------ flat MC core


def test_block_counts_match_the_paper_example():
    # SIMCAT Sec. 4.2: 445w1267t1144s has five blocks; discarding 1t leaves four, discarding 4w five;
    # the tatsu-breaking set is 1267t1144s and the non-tatsu-breaking set 445w (w = m, t = p, s = s)
    h = tiles.parse("445m1267p1144s", 27)
    assert block_counts(h[None], 4 - h)[0] == 5
    after = {}
    for t in np.flatnonzero(h):
        x = h.copy()
        x[t] -= 1
        after[tiles.tile_name(int(t))] = int(block_counts(x[None], 4 - h)[0])
    assert {k for k, v in after.items() if v < 5} == {"1p", "2p", "6p", "7p", "1s", "4s"}
    assert {k for k, v in after.items() if v == 5} == {"4m", "5m"}


def _draws(rows):
    return np.array(rows, dtype=np.int16)


def test_simulate_sp_wins_exactly_when_the_own_picks_complete_the_hand():
    hand = tiles.parse("123456789m11p23s", 27)[None]  # ready on 1s or 4s
    s1, s4, m5 = (int(tiles.parse(x, 27).argmax()) for x in ("1s", "4s", "5m"))
    # one round: lower, opposite, upper, own pick; last column is a kong's replacement tile
    draws = _draws([[s1, s1, s1, m5, m5], [m5, m5, m5, s4, m5], [m5, m5, m5, s1, m5]])
    w = simulate(hand, [4], [0], draws, model="sp")
    assert w.tolist() == [[False, True, True]]


def test_simulate_fp_wins_through_a_steal_that_sp_misses():
    # 123456789m 55p 1s 9s: a pong of 5p from the lower seat, then picking 1s, makes 4 melds + 11s pair
    hand = tiles.parse("123456789m55p1s9s", 27)[None]
    p5, s1, m1 = (int(tiles.parse(x, 27).argmax()) for x in ("5p", "1s", "1m"))
    draws = _draws([[p5, m1, m1, m1, m1, m1, m1, s1, m1]])  # two rounds
    assert simulate(hand, [4], [0], draws, model="fp").tolist() == [[True]]
    assert simulate(hand, [4], [0], draws, model="sp").tolist() == [[False]]


def test_simulate_fp_chows_only_from_the_upper_seat():
    # 123456789m 11p 13s 9s: a chow of 2s makes 123s; only the upper seat's (third) discard can be chowed
    hand = tiles.parse("123456789m11p13s9s", 27)[None]
    s2, m1 = (int(tiles.parse(x, 27).argmax()) for x in ("2s", "1m"))
    from_upper = _draws([[m1, m1, s2, m1, m1]])
    from_lower = _draws([[s2, m1, m1, m1, m1]])
    assert simulate(hand, [4], [0], from_upper, model="fp").tolist() == [[True]]
    assert simulate(hand, [4], [0], from_lower, model="fp").tolist() == [[False]]


def test_sample_draws_respects_the_knowledge_base():
    kb = np.zeros(27, dtype=np.int64)
    kb[[0, 5, 9]] = [1, 2, 4]
    d = sample_draws(kb, 500, 7, np.random.default_rng(0))
    assert d.shape == (500, 7)
    counts = np.stack([np.bincount(r, minlength=27) for r in d])
    assert (counts <= kb).all() and (counts.sum(1) == 7).all()


def test_progressive_pruning_drops_a_hopeless_action_and_saves_simulations():
    ready = tiles.parse("123456789m11p23s", 27)
    hopeless = tiles.parse("1479m258p369s159m", 27)
    hands = np.stack([ready, hopeless])
    kb = 4 - ready
    kb = np.minimum(kb, 4 - hopeless)
    res = flat_monte_carlo(hands, np.array([4, 4]), np.array([0, 0]), kb, 4, 2000, np.random.default_rng(0))
    assert res.alive.tolist() == [True, False]
    # 300 each in the first iteration; one action left ends the search (paper Sec. 5.2)
    assert res.sims.tolist() == [300, 300] and res.total == 600
    flat = flat_monte_carlo(hands, np.array([4, 4]), np.array([0, 0]), kb, 4, 2000, np.random.default_rng(0),
                            pruning=False)  # fmt: skip
    assert flat.sims.tolist() == [1000, 1000]


def test_flatmc_discards_the_tile_that_keeps_the_hand_ready():
    s = _situation("123456789m11p23s9p", wall=30)
    agent = FlatMCAgent(seed=0, simulations=400)
    assert agent.decide(s) == LAYOUT.discard(tiles.parse("9p", 27).argmax())


def test_flatmc_prefilter_simulates_only_least_deficiency_afterstates():
    # 125m 44p with one meld to go: discarding 1m or 2m leaves deficiency 2, discarding 5m leaves 1 (12m
    # waits on 3m); with the pre-filter that is the only afterstate, so no simulation runs at all
    s = _situation("125m44p", melds_needed=1, wall=40)
    agent = FlatMCAgent(seed=0, simulations=500)
    assert agent.decide(s) == LAYOUT.discard(tiles.parse("5m", 27).argmax())
    assert agent.last_result is None
    paper = FlatMCAgent(seed=0, simulations=500, prefilter=False)
    paper.decide(s)
    assert paper.last_result is not None and len(paper.last_result.sims) == 4  # 1m, 2m, 5m, 4p


def test_flatmc_validates_its_options():
    with pytest.raises(ValueError, match="model"):
        FlatMCAgent(model="xp")
    with pytest.raises(ValueError, match="discard_twice"):
        FlatMCAgent(discard_twice="h3")
    with pytest.raises(ValueError, match="simulations"):
        FlatMCAgent(simulations=0)


# ------------------------------------------------------------------------------------------ human


def test_human_agent_reprompts_on_bad_input_and_accepts_a_tile():
    s = _situation("123456789m11p23s9p")
    out = io.StringIO()
    agent = HumanAgent(input=io.StringIO("\nfoo\n99\n4s\n9p\n"), output=out)
    assert agent.decide(s) == LAYOUT.discard(tiles.parse("9p", 27).argmax())
    text = out.getvalue()
    assert "empty answer" in text
    assert "did not understand 'foo'" in text
    assert "99 is not a listed move" in text
    assert "cannot discard 4s: it is not in your hand" in text


def test_human_agent_takes_numbers_and_move_names():
    p1 = int(tiles.parse("1p", 27).argmax())
    s = _situation("123456789m11p5s9s", phase=PHASE_CLAIM, last_discard=p1, legal=[LAYOUT.pong, LAYOUT.pass_])
    assert HumanAgent(input=io.StringIO("pong\n"), output=io.StringIO()).decide(s) == LAYOUT.pong
    assert HumanAgent(input=io.StringIO("1\n"), output=io.StringIO()).decide(s) == LAYOUT.pass_
    with pytest.raises(EOFError):
        HumanAgent(input=io.StringIO(""), output=io.StringIO()).decide(s)


def test_progressive_pruning_keeps_close_actions_and_spends_the_budget_on_them():
    ready_a = tiles.parse("123456789m11p23s", 27)  # waits on 1s/4s
    ready_b = tiles.parse("123456789m11p24s", 27)  # waits on 3s only: worse, but not hopeless
    hopeless = tiles.parse("1479m258p369s159m", 27)
    hands = np.stack([ready_a, ready_b, hopeless])
    kb = np.minimum(np.minimum(4 - ready_a, 4 - ready_b), 4 - hopeless)
    res = flat_monte_carlo(hands, np.array([4, 4, 4]), np.zeros(3, np.int64), kb, 1, 1500, np.random.default_rng(1))
    assert not res.alive[2] and res.sims[2] == 300
    assert res.sims[0] > 300 and res.total <= 1500


def test_simulate_fp_ron_wins_on_any_dummy_discard():
    # 123456789m 123p 5s waits on 5s alone (a pair wait): a pong needs two 5s and a chow cannot make a
    # pair, so only a win on the discard itself (ron=True) takes the lower seat's 5s
    hand = tiles.parse("123456789m123p5s", 27)[None]
    s5, m1 = (int(tiles.parse(x, 27).argmax()) for x in ("5s", "1m"))
    draws = _draws([[s5, m1, m1, m1, m1]])
    assert simulate(hand, [4], [0], draws, model="fp").tolist() == [[False]]
    assert simulate(hand, [4], [0], draws, model="fp", ron=True).tolist() == [[True]]
    assert simulate(hand, [4], [0], draws, model="sp", ron=True).tolist() == [[False]]


def test_flatmc_claim_takes_the_place_of_the_next_pick():
    # 123456789m 55p 1s3s is ready on 2s; the upper seat discards 5p. Passing keeps the next pick (2s
    # wins with one KB copy in four); a pong takes 5p instead of that pick and, with fewer than 4 wall
    # tiles (no full round), cannot win. Without the fix every line got 0 picks, all rates tied at 0 and
    # the tie-break (more effective KB tiles: 3 copies of 3s for the 3s pair wait) chose the pong.
    p5, s1, s2, s3 = (int(tiles.parse(x, 27).argmax()) for x in ("5p", "1s", "2s", "3s"))
    kb = np.zeros(27, dtype=np.int16)
    kb[s2], kb[s3] = 1, 3
    s = _situation("123456789m55p1s3s", phase=PHASE_CLAIM, kb=kb, last_discard=p5, wall=3,
                   legal=[LAYOUT.pass_, LAYOUT.pong])  # fmt: skip
    fixed = FlatMCAgent(seed=0, simulations=400, model="sp")
    assert [a.extra for a in fixed._claim_afterstates(s) if a.action == LAYOUT.pass_] == [1]
    assert fixed.decide(s) == LAYOUT.pass_
    old = FlatMCAgent(seed=0, simulations=400, model="sp", claim_turn=False)
    assert old.decide(s) == LAYOUT.pong


@pytest.mark.parametrize("rules", ["basic", "sichuan"])
def test_a_seat_with_one_legal_action_is_answered_at_once_and_bad_input_still_refused(rules):
    """Random, greedy and flat MC answer a seat with one legal action without decoding its observation (what decide()
    would answer, with no draw from the generator); a malformed observation or mask is still refused."""
    import mjenv

    env = mjenv.parallel_env(rules=rules)
    obs, _ = env.reset(seed=5)
    while not any(o["action_mask"].sum() == 1 for o in obs.values()):  # a seat with only one legal action
        obs = env.step({a: int(np.flatnonzero(o["action_mask"])[-1]) for a, o in obs.items()})[0]
    waiting = next(a for a, o in obs.items() if o["action_mask"].sum() == 1)
    size = obs[waiting]["observation"].shape[0]
    one = obs[waiting]["action_mask"]
    assert one.sum() == 1
    for agent in (RandomAgent(seed=1, rules=rules), GreedyAgent(rules=rules), FlatMCAgent(seed=0, rules=rules,
                                                                                           simulations=5)):
        assert agent.answers_forced_at_once
        state = agent.rng.bit_generator.state
        assert agent.decide(agent.situation(obs[waiting])) == int(np.flatnonzero(one)[0])
        assert agent.rng.bit_generator.state == state  # decide() draws nothing for it ...
        assert agent.act(obs[waiting]) == int(np.flatnonzero(one)[0])  # ... nor does act()
        assert agent.act({"observation": np.zeros(size, np.float32), "action_mask": one}) == int(np.argmax(one))
        assert agent.rng.bit_generator.state == state
        with pytest.raises(ValueError, match="observation"):
            agent.act({"observation": np.zeros(size + 1, np.float32), "action_mask": one})
        with pytest.raises(ValueError, match="action_mask has"):
            agent.act({"observation": obs[waiting]["observation"], "action_mask": one[:-1]})
        with pytest.raises(ValueError, match="no legal action"):
            agent.act({"observation": obs[waiting]["observation"], "action_mask": np.zeros_like(one)})
        with pytest.raises(ValueError, match="a dict with keys"):
            agent.act(obs[waiting]["observation"])
