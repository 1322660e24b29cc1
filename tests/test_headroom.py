"""research/headroom.py: the perfect guard's choice, that guarded seats stop dealing in, and that the
learned variant follows its danger network."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from research.headroom import Table, format_result, guarded_discard, learned_discard, main, run, variant_name

T = 27


def _game_with_a_wait():
    """Seat 1 holds 2m3m + 111p 222p 111s + 99s: it wins on 1m (id 0) or 4m (id 3)."""
    hands = np.zeros((4, T), dtype=np.int8)
    for tile, n in {1: 1, 2: 1, 9: 3, 10: 3, 18: 3, 26: 2}.items():
        hands[1, tile] = n
    return SimpleNamespace(hands=hands, won=np.zeros(4, dtype=bool))


def _mask(*tiles):
    m = np.zeros(2 * T + 7, dtype=np.int8)
    m[list(tiles)] = 1
    return m


def test_the_guard_switches_a_dealing_in_discard_to_the_most_probable_safe_one():
    g = _game_with_a_wait()
    probs = np.zeros(2 * T + 7)
    probs[[0, 3, 5, 7]] = [0.5, 0.3, 0.15, 0.05]
    assert guarded_discard(g, 0, probs, _mask(0, 3, 5, 7), [1, 2, 3], T) == (5, "switched")
    # no safe tile: the policy's choice stays
    assert guarded_discard(g, 0, probs, _mask(0, 3), [1, 2, 3], T) == (0, "no_safe")
    # a safe choice is kept
    probs[5] = 0.9
    assert guarded_discard(g, 0, probs, _mask(0, 3, 5, 7), [1, 2, 3], T) == (5, "safe")


def test_the_guard_ignores_seats_that_are_not_opponents_or_have_left():
    g = _game_with_a_wait()
    probs = np.zeros(2 * T + 7)
    probs[[0, 5]] = [0.6, 0.4]
    assert guarded_discard(g, 0, probs, _mask(0, 5), [2, 3], T) == (0, "safe")  # seat 1 a teammate
    g.won[1] = True
    assert guarded_discard(g, 0, probs, _mask(0, 5), [1, 2, 3], T) == (0, "safe")


def test_the_guard_needs_a_discard():
    g = _game_with_a_wait()
    probs = np.zeros(2 * T + 7)
    probs[2 * T + 6] = 1.0  # PASS
    with pytest.raises(ValueError, match="not a discard"):
        guarded_discard(g, 0, probs, _mask(0, 2 * T + 6), [1, 2, 3], T)


@pytest.mark.parametrize("teams", [False, True])
def test_guarded_seats_never_deal_in_when_a_safe_tile_exists(teams):
    table = Table("bc", "greedy", teams=teams)
    res = run(table, deals=6, seed=31, variants=["defence"], progress=False)
    c = res["counts"]
    assert res["variants"] == ["plain", "defence"]
    assert c["discards"] > 0
    assert c["switched"] + c["no_safe"] == c["would_deal_in"]
    # the plain policy deals in on these deals; the guard removes every deal-in it can
    assert res["dealt_in"]["plain"][0] > 0
    if c["no_safe"] == 0:
        assert res["dealt_in"]["defence"][0] == 0.0
    assert table.policy_seats(1) == ([1, 3] if teams else [1])


class _Danger(torch.nn.Module):
    """A stand-in danger network: every tile safe except ``tile``, certain to deal in."""

    def __init__(self, tile):
        super().__init__()
        self.tile = tile

    def danger(self, obs):
        d = torch.zeros(obs.shape[0], T)
        d[:, self.tile] = 1.0
        return d


def test_the_learned_variant_avoids_what_its_network_calls_dangerous():
    table = Table("bc", "greedy")
    plain = run(table, deals=2, seed=41, variants=[], progress=False)
    assert plain["variants"] == ["plain"]
    # weight 0: the policy's own choice everywhere
    table.danger = _Danger(0)
    res = run(table, deals=2, seed=41, variants=[variant_name("learned", 0.0)], progress=False)
    assert res["learned_changes"].get("learned:0", 0) == 0
    assert res["diff"]["learned:0"] == plain["diff"]["plain"]
    # a large weight moves games off the policy's own choices
    table.learned_changes = {}
    table.danger = _Danger(5)
    changed = run(table, deals=3, seed=41, variants=["learned:1000"], progress=False)
    assert changed["learned_changes"]["learned:1000"] > 0


def test_the_learned_choice_trades_policy_probability_against_danger():
    logp = np.log(np.array([0.5, 0.3, 0.2] + [1e-9] * (T - 3)))
    danger = np.zeros(T)
    danger[0] = 0.1
    mask = np.zeros(2 * T + 7, dtype=np.int8)
    mask[[0, 1, 2, 2 * T + 6]] = 1
    assert learned_discard(logp, danger, mask, 0.0, T) == 0
    assert learned_discard(logp, danger, mask, 1.0, T) == 0  # log 0.5 - 0.1 > log 0.3
    assert learned_discard(logp, danger, mask, 10.0, T) == 1  # log 0.5 - 1 < log 0.3
    danger[1] = 0.2
    assert learned_discard(logp, danger, mask, 10.0, T) == 2
    mask[:T] = 0
    with pytest.raises(ValueError, match="legal discard"):
        learned_discard(logp, danger, mask, 1.0, T)


def test_unknown_variants_and_a_bad_min_deficiency_are_refused():
    table = Table("bc", "greedy")
    for bad in ("telepathy", "public", "learned:x", "public:-1", "defence:2"):
        with pytest.raises(ValueError, match="variant must be"):
            run(table, deals=2, seed=1, variants=[bad], progress=False)
    with pytest.raises(ValueError, match="variant must be"):
        table.play(1, 0, "learned")
    with pytest.raises(ValueError, match="needs a danger network"):
        table.play(1, 0, "learned:3")
    with pytest.raises(ValueError, match="min_deficiency"):
        Table("bc", "greedy", min_deficiency=0)


def test_the_script_prints_its_table(capsys):
    res = main(["--deals", "2", "--seed", "3", "--no-progress"])
    out = capsys.readouterr().out
    assert "gain over plain (paired)" in out and "policy:bc against greedy" in out
    assert res["variants"] == ["plain", "defence"]
    assert res["hands"] == 2 * 4 * 2
    args = SimpleNamespace(policy="bc", opponent="greedy", teams=False, seed=3, min_deficiency=1)
    assert format_result(res, args).splitlines()[0] == out.splitlines()[0]


def test_the_script_writes_json_and_draws_it(tmp_path, capsys):
    import json

    js = tmp_path / "r.json"
    main(["--deals", "2", "--seed", "4", "--no-progress", "--json", str(js)])
    saved = json.loads(js.read_text())
    assert saved["args"]["seed"] == 4 and saved["result"]["variants"] == ["plain", "defence"]
    png = tmp_path / "h.png"
    main(["--plot", str(png), "--plot-from", str(js), str(js)])
    assert png.stat().st_size > 1000
    with pytest.raises(SystemExit):
        main(["--plot", str(png)])


def test_passed_tiles_never_include_a_tile_the_seat_now_wins_on():
    """Every tile the tracker lists for a seat fails to complete that seat's current concealed hand
    (the greedy agent declares every win it can, which the inference assumes)."""
    from mjenv.baselines.registry import make_agent

    from mjenv.game import Game, Phase
    from mjenv.game._win import is_winning_with
    from research.headroom import PassedTiles

    spec = Table("bc", "greedy").spec
    checked = grew = 0
    for seed in range(12):
        g = Game(rules=spec.rules, seed=seed)
        agents = [make_agent("greedy", seed=s) for s in range(4)]
        tracker = PassedTiles(g)
        while not g.is_over:
            actions = {s: int(agents[s].act({"observation": spec.encode(g, s), "action_mask": g.legal_action_mask(s)}))
                       for s in g.acting_seats()}
            tracker.before(g)
            g.step(actions)
            tracker.after(g)
            if g.is_over:
                break
            for s in range(4):
                h = g.hands[s].copy()
                if int(g.phase) == Phase.DISCARD and int(g.current_player) == s:
                    if g.last_drawn < 0:
                        assert not tracker.passed[s]
                        continue
                    h[g.last_drawn] -= 1
                for x in tracker.passed[s]:
                    assert not is_winning_with(h, x), (seed, s, x)
                    checked += 1
                grew = max(grew, len(tracker.passed[s]))
    assert checked > 200 and grew >= 5


def test_the_public_guard_picks_the_most_probable_tile_every_standing_threat_passed():
    from types import SimpleNamespace

    from research.headroom import public_discard

    logp = np.log(np.array([0.4, 0.3, 0.2, 0.1] + [1e-9] * (T - 4)))
    mask = np.zeros(2 * T + 7, dtype=np.int8)
    mask[[0, 1, 2, 3]] = 1
    tracker = SimpleNamespace(passed=[set(), {2, 3}, {1, 2, 3}, {0}], streak=[0, 2, 2, 0])
    won = np.zeros(4, dtype=bool)
    # seats 1 and 2 stand (streak 2); tiles both passed: 2 and 3; the more probable is 2
    assert public_discard(logp, mask, tracker, [1, 2, 3], won, 2, T) == 2
    # with streak 3 required nobody is a threat: keep the policy's choice
    assert public_discard(logp, mask, tracker, [1, 2, 3], won, 3, T) is None
    # seat 3 a threat too: no tile passed by all three
    tracker.streak[3] = 5
    assert public_discard(logp, mask, tracker, [1, 2, 3], won, 2, T) is None
    won[3] = True  # a seat that has left the hand is no threat
    assert public_discard(logp, mask, tracker, [1, 2, 3], won, 2, T) == 2
