"""The compiled batched win check (``mjenv.game._step``) equals the Python engine's check."""

from __future__ import annotations

import numpy as np
import pytest

from mjenv.game import batch
from mjenv.game._win import is_winning_bytes
from mjenv.game.actions import ActionLayout, Phase
from mjenv.game.engine import Game, MeldKind

try:
    from mjenv.game import _step
except ImportError:
    _step = None

pytestmark = pytest.mark.skipif(not batch.available(), reason="mjenv.game._step not built (no C compiler)")


def _random_hands(rng: np.random.Generator, m: int, t: int, size: int) -> np.ndarray:
    """int8[m, t]: hands of ``size`` tiles drawn without replacement from 4 copies of t tile types."""
    wall = np.repeat(np.arange(t), 4)
    hands = np.zeros((m, t), dtype=np.int8)
    for i in range(m):
        np.add.at(hands[i], rng.choice(wall, size, replace=False), 1)
    return hands


def _complete_hands(rng: np.random.Generator, m: int, t: int) -> np.ndarray:
    """int8[m, t]: 4 random melds + a pair (counts may exceed 4 and are then dropped), many complete."""
    out = []
    while len(out) < m:
        h = np.zeros(t, dtype=np.int8)
        for _ in range(4):
            if rng.random() < 0.5:
                s, r = rng.integers(3), rng.integers(7)
                h[9 * s + r : 9 * s + r + 3] += 1
            else:
                h[rng.integers(t)] += 3
        h[rng.integers(t)] += 2
        if h.max() <= 4:
            out.append(h)
    return np.stack(out)


@pytest.mark.parametrize("t", [27, 34])
@pytest.mark.parametrize("seven", [False, True])
def test_batch_equals_python(t: int, seven: bool) -> None:
    rng = np.random.default_rng(16)
    hands = np.concatenate(
        [
            _random_hands(rng, 3000, t, 14),
            _random_hands(rng, 500, t, 11),
            _random_hands(rng, 300, t, 13),
            _complete_hands(rng, 3000, t),
        ]
    )
    # perturb half of the complete ones by moving one tile, so near-misses are covered
    for i in range(3800, hands.shape[0], 2):
        src = np.flatnonzero(hands[i])
        dst = np.flatnonzero(hands[i] < 4)
        hands[i, rng.choice(src)] -= 1
        hands[i, rng.choice(dst)] += 1
    pairs = np.zeros((20, t), dtype=np.int8)
    for i in range(20):
        pairs[i, rng.choice(t, 7, replace=False)] = 2
    pairs[10:, 0] = 4  # four of a kind is not two pairs
    hands = np.concatenate([hands, pairs])
    expected = np.array([is_winning_bytes(h.tobytes(), seven) for h in hands])
    got = batch.is_winning_batch(hands, seven)
    assert expected.sum() > 500, "the sample must hold many complete hands"
    np.testing.assert_array_equal(got, expected)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="shape"):
        batch.is_winning_batch(np.zeros((3, 30), dtype=np.int8))
    with pytest.raises(ValueError, match="0..4"):
        batch.is_winning_batch(np.full((1, 34), 5, dtype=np.int8))


def test_fallback_equals_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    hands = np.concatenate([_complete_hands(rng, 300, 34), _random_hands(rng, 300, 34, 14)])
    compiled = batch.is_winning_batch(hands, True)
    monkeypatch.setattr(batch, "_step", None)
    assert not batch.available()
    np.testing.assert_array_equal(batch.is_winning_batch(hands, True), compiled)


def _expected_from_c(g: Game) -> np.ndarray:
    """int8[4, A]: the masks of ``g`` rebuilt from the compiled rows and the game's arrays alone."""
    t_count, lay = g.num_tile_types, g.layout
    masks = np.zeros((4, lay.size), dtype=np.int8)
    masks[:, lay.pass_] = 1
    hands = np.ascontiguousarray(g.hands, dtype=np.int8)
    can_kong = np.full(4, g.wall_remaining > 0, dtype=np.uint8)
    if g.phase == Phase.DISCARD:
        p = g.current_player
        pongs = np.zeros((1, t_count), dtype=np.int8)
        for kind, t, _, _ in g.meld_table[p, : g.melds_declared[p]].tolist():
            if kind == MeldKind.PONG:
                pongs[0, t] = 1
        row = np.zeros((1, lay.size), dtype=np.int8)
        claimed = np.array([g._claimed_turn], dtype=np.uint8)  # engine state the game does not expose
        _step.turn_rows(hands[p : p + 1].copy(), pongs, claimed, can_kong[:1], t_count, g.rules.seven_pairs, row)
        masks[p] = row[0]
    elif g.phase in (Phase.CLAIM, Phase.ROB_KONG):
        p, t = g.last_discarder, g.last_discard
        chow_ok = np.array([g.rules.allow_chow and s == (p + 1) % 4 for s in range(4)], dtype=np.uint8)
        rob = np.full(4, g.phase == Phase.ROB_KONG, dtype=np.uint8)
        rows = np.zeros((4, lay.size), dtype=np.int8)
        tiles = np.full(4, t, dtype=np.int64)
        _step.claim_rows(hands, tiles, chow_ok, can_kong, rob, t_count, g.rules.seven_pairs, rows)
        for s in range(4):
            if s != p and rows[s].any():
                masks[s] = rows[s]
    return masks


def _play_and_compare(preset: str, hands: int, seed0: int) -> int:
    """Plays ``hands`` random hands of ``preset``; at every state the compiled rows must give the
    engine's masks. Returns the number of states compared."""
    states = 0
    for seed in range(seed0, seed0 + hands):
        g = Game(preset, seed=seed, dealer=seed % 4)
        rng = np.random.default_rng(seed)
        while not g.is_over:
            np.testing.assert_array_equal(_expected_from_c(g), g.legal_action_masks(), err_msg=f"{preset} seed {seed}")
            states += 1
            g.step({s: int(rng.choice(g.legal_actions(s))) for s in g.acting_seats()})
    return states


# taiwan16 (flowers through its room's hooks, 16-tile hands, draw at 16 left) and sichuan (its room's hooks:
# declaration, restrictions, bloody battle, fan scoring and payments) run on the compiled step too.
PRESETS = ["basic", "honours", {"name": "basic", "allow_chow": False}, "taiwan16", "sichuan"]
#: the rooms' own rules, played with a policy that wins often (random play almost never wins a Sichuan hand, so
#: the fan table, the play-on and the draw settlement would go untested)
ROOM_PRESETS = ["taiwan16", "sichuan", {"name": "basic", "flowers": 8, "seven_pairs": True},
                {"name": "sichuan", "multiple_winners": False, "draw_at": 8}]


@pytest.mark.parametrize("rules", [{"name": "taiwan16", "scoring": "tai"}, {"name": "honours", "scoring": "tai"},
                                   {"name": "basic", "missing_suit": True}])
def test_batch_refuses_rules_its_rooms_do_not_cover(rules):
    with pytest.raises(ValueError, match="does not support rules"):
        batch.BatchGames(rules, 2)


# slow only: the batched step's default test below compares the masks these rows build at every
# state too.
@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS[:3])  # the rows know no room's rules (no draw_at, no restrictions)
def test_rows_equal_engine_masks_slow(preset: str) -> None:
    assert _play_and_compare(preset, 5000, 10_000) > 5000 * 40


def _winning_choice(g: Game, s: int, rng: np.random.Generator) -> int:
    """A legal action of seat ``s`` that plays for a win: a win when offered, kongs and pongs often, else the
    discard of its least connected tile (the missing suit's tiles are the only legal ones while held)."""
    lay, legal = g.layout, g.legal_actions(s)
    if lay.win in legal and rng.random() < 0.95:
        return lay.win
    kongs = [a for a in legal if lay.kongs.start <= a < lay.kongs.stop or a == lay.exposed_kong]
    if kongs and rng.random() < 0.7:
        return int(rng.choice(kongs))
    if lay.pong in legal and rng.random() < 0.5:
        return lay.pong
    discards = [a for a in legal if a < lay.discards.stop]
    if not discards:
        return int(rng.choice(legal))
    h = g.hands[s].astype(int)

    def connected(t: int) -> float:
        near = sum(h[t + d] * (3 - abs(d)) for d in (-2, -1, 1, 2)
                   if t < 27 and 0 <= t + d < 27 and (t + d) // 9 == t // 9)
        return 3 * (h[t] - 1) + near + rng.random()

    return min(discards, key=connected)


def _compare_batch(preset, hands: int, num_tables: int, seed0: int, winning: bool = False) -> int:
    """Plays ``hands`` random hands (``winning``: of :func:`_winning_choice`) of ``preset`` on N tables at once, in
    the Python engine and in the compiled step side by side; after every step every array of every table must
    equal the engine's. Returns the number of table-steps compared."""
    bg = batch.BatchGames(preset, num_tables, log=True)
    games: list[Game | None] = [None] * num_tables
    rngs = [np.random.default_rng(seed0 + i) for i in range(num_tables)]
    next_seed, done, compared = seed0, 0, 0
    while done < hands:
        acts = np.full((num_tables, 4), ActionLayout.for_rules(bg.rules).pass_, dtype=np.int64)
        for i in range(num_tables):
            g = games[i]
            if g is None or g.is_over:
                if g is not None:
                    done += 1
                g = games[i] = Game(preset, seed=next_seed, dealer=next_seed % 4)
                next_seed += 1
                bg.load(i, g)
            for s in g.acting_seats():
                acts[i, s] = _winning_choice(g, s, rngs[i]) if winning else rngs[i].choice(g.legal_actions(s))
        bg.step(acts)
        for i, g in enumerate(games):
            g.step(acts[i].tolist())
            ours = [arr[i] for arr in bg._arrays()]
            theirs = [getattr(g, name) for name in batch.ARRAYS]
            scal = batch.scalars_of(g, bg.room)
            if not (all(map(np.array_equal, ours, theirs)) and bg.scalars[i].tolist() == scal):
                for name, a, b in zip(batch.ARRAYS, ours, theirs):
                    np.testing.assert_array_equal(a, b, err_msg=f"{preset} seed {g.seed}: {name}")
                np.testing.assert_array_equal(bg.scalars[i], scal, err_msg=f"{preset} seed {g.seed}: scalars")
            if g.is_over:  # the step log replays exactly: the engine's own log
                assert bg.steps[i] == g.log["steps"], f"{preset} seed {g.seed}: step log"
            compared += 1
    return compared


# 300 hands per preset (the behaviour digest has 2,000): the Python reference and the per-step comparison
# cost ~5 ms a hand, and four presets must stay within ~15 s of the shared 2-core machine's default
# suite; the slow test plays 5,000 per preset on 64 tables.
@pytest.mark.parametrize("preset", PRESETS)
def test_batch_step_equals_engine(preset: str) -> None:
    assert _compare_batch(preset, 300, 16, 0) > 300 * 40


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_batch_step_equals_engine_slow(preset: str) -> None:
    assert _compare_batch(preset, 5000, 64, 100_000) > 5000 * 40


# 200 hands each, about 1.3 wins a Sichuan hand (its draws settle the ready seats: the fan of every wait)
@pytest.mark.parametrize("preset", ROOM_PRESETS)
def test_batch_step_equals_engine_playing_to_win(preset) -> None:
    assert _compare_batch(preset, 200, 16, 7, winning=True) > 200 * 30


@pytest.mark.slow
@pytest.mark.parametrize("preset", ROOM_PRESETS)
def test_batch_step_equals_engine_playing_to_win_slow(preset) -> None:
    assert _compare_batch(preset, 4000, 64, 300_000, winning=True) > 4000 * 30


def test_winning_play_reaches_the_rooms_rules() -> None:
    """The policy above reaches what it is there to test: Sichuan wins on discards and self-draws, several
    winners in a hand, exhaustive draws with seats still in; flowers in taiwan16."""
    rng = np.random.default_rng(0)
    reasons, multi = set(), 0
    for seed in range(60):
        g = Game("sichuan", seed=seed)
        while not g.is_over:
            g.step([_winning_choice(g, s, rng) if s in g.acting_seats() else g.layout.pass_ for s in range(4)])
        reasons |= {w["reason"] for w in g.wins} | {int(g.end_code)}
        multi += len(g.wins) >= 2
    assert {1, 2, 4} <= reasons and multi >= 5
    assert sum(Game("taiwan16", seed=s).flowers.sum() for s in range(20)) > 20


def test_batch_step_refuses_illegal() -> None:
    bg = batch.BatchGames("basic", 2)
    for i in range(2):
        bg.load(i, Game("basic", seed=i))
    before = bg.tiles.copy()
    acts = np.full((2, 4), bg.masks.shape[2] - 1)  # PASS: illegal for the player on turn
    with pytest.raises(ValueError, match="legal masks"):
        bg.step(acts)
    with pytest.raises(ValueError, match="shape"):
        bg.step(acts[:1])
    np.testing.assert_array_equal(bg.tiles, before)


@pytest.mark.parametrize("preset", ["basic", "honours", "taiwan16", "sichuan"])
def test_batch_deal_equals_loading_the_games_deal(preset: str) -> None:
    """``BatchGames.deal`` (the vector env's deal, no ``Game`` built) gives every array ``load`` gives
    from ``Game(rules, seed=s)``: walls, hands, the dealer's drawn tile, masks and scalars."""
    seeds = list(range(1500)) + [2**63 - 2]
    rows = list(range(len(seeds)))
    loaded = batch.BatchGames(preset, len(seeds))
    for i, s in enumerate(seeds):
        loaded.load(i, Game(preset, seed=s))
    dealt = batch.BatchGames(preset, len(seeds))
    dealt.scalars[:] = 7  # a table's old state must be overwritten everywhere
    dealt.deal(rows[::-1], seeds[::-1])  # rows in any order
    for name, want, got in zip(batch.ARRAYS, loaded._arrays(), dealt._arrays()):
        np.testing.assert_array_equal(got, want, err_msg=name)
    np.testing.assert_array_equal(dealt.scalars, loaded.scalars)
    np.testing.assert_array_equal(dealt.dealer, loaded.dealer)
    # the seeds reach a dealer's turn with a concealed kong offered (the turn row is not PASS-only)
    kongs = Game(preset, seed=0).layout.kongs
    assert loaded.masks[:, 0, kongs].any() or preset == "sichuan"  # (sichuan opens with the declaration)
