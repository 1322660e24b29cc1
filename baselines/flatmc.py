"""``FlatMCAgent``: SIMCAT's flat Monte Carlo (Chen, Tang & Wu, "Monte-Carlo Simulation for Mahjong").

Paper sections implemented here:

- **Sec. 3 / Fig. 3, FlatMCMJ**: the afterstates of a decision are its legal actions; each is simulated
  and the action with the highest win rate is played. A claim is followed by the discard it forces,
  so a pong/chow afterstate is a (claim, discard) pair and the claim is played when its best pair wins.
- **Sec. 3 (optimistic strategy)**: a simulation draws, from the hidden tiles (the seat's KB, what it
  has not seen), the tiles the four players will pick in the next ``rounds`` rounds. Nobody discards
  from the simulated hand: it wins when some 3m+2 tiles among everything it holds at the end form m
  melds and a pair. Other players never win; a simulation is a win or a draw.
- **Sec. 3.1, single-player model (SP)**: the seat only picks.
- **Sec. 2.1 (a steal replaces the pick)**: "after a player picks or steals a tile ... he/she has to
  discard a tile". In a claim decision the PASS afterstate therefore gets the pick the seat is about to
  make (one extra pick before the rounds, like a kong's replacement tile), while a pong/chow afterstate
  has taken the discard in its place and discarded. Before this fix (``claim_turn=False``) both lines
  got the same picks, so every claim was simulated with one free extra tile and was overrated in both
  models (in 68 recorded claim decisions the SP model claimed 46 times, 34 after the fix; FP 39 -> 21).
- **Sec. 3.2-3.3, four-player model (FP), OneSim**: the three dummy opponents pick a tile and discard
  it; each round every reachable hand branches into the pick, a pong of any opponent's discard, and
  the up-to-three chows of the upper (previous) seat's discard. Every reachable hand is kept and at
  the end each is checked for a complete pattern (deficiency 0 with an empty KB). Two engines give
  the same wins bit for bit (:func:`simulate`): the compiled simulation (``baselines/_flatmc.c``, one
  simulation at a time, the per-suit completeness table of ``mjenv/deficiency/_contains.h``; the
  default when installed, about 8x faster with 16-tile hands, ``research/notes/bench/flatmc_speed.md``) and the
  numpy path (all simulations and afterstates as arrays, checked in ONE call of the batched core).
- **Sec. 5.2, progressive pruning**: 300 simulations per action first, then 100 per iteration; action
  a is pruned when ``mean_a + r_d sigma_a < max_b (mean_b - r_d sigma_b)`` with r_d = 3 and sigma the
  standard error of the win rate; it stops when one action is left or the budget is spent.
- **Sec. 4, discard-twice method**: block count of a hand by Eq. (1) (the largest c with
  ``MTW(c) - MTW(c-1) <= 1``; ``MTW(c)`` = tiles to add to form c-1 melds and a pair, which is the
  knowledge-aware ``dp`` cost with c-1 melds), the tatsu-breaking / non-tatsu-breaking split, and the
  versions ``original``, ``H1`` and ``H2+H1`` of Sec. 4.2 (C).

Choices the paper leaves open (ours, documented):

- Rounds foreseen: ``min(wall_count // 4, max_rounds)``, the seat's remaining draws (it draws every
  4th tile), capped for cost.
- All afterstates of one iteration share the same sampled tile sequences (common random numbers):
  the comparison between actions is paired, which lowers its variance at our small budgets.
- A kong's afterstate draws its replacement tile (one extra pick) before the rounds.
- ``ron=True`` (ours, off by default): in the FP model a reachable hand also wins when one of the three
  dummy discards of a round completes it. Fig. 3 only branches on pongs and the upper seat's chows, so
  a pair wait (tanki) or a sequence wait on the lower/opposite seat's discard cannot win on a discard,
  although the rules (Sec. 2.1) allow a win on any discard.
- Deficiency pre-filter (``prefilter=True``, default; ours, not the paper's): only the afterstates
  of least knowledge-aware deficiency are simulated. The optimistic simulation keeps every drawn
  tile, so it overrates flexible hands that are further from a win (e.g. keeping 25m over 12m with
  one meld to go); in our game, where speed is everything, that cost it against the greedy agent.
  ``prefilter=False`` gives the paper's version (every legal action is an afterstate).
- Ties in win rate (e.g. all zero when few rounds are foreseen) go to the greedy order: lower
  knowledge-aware deficiency, then more effective tiles in the KB, then the action order. The
  pre-filter and this order use the rule set's deficiency, as the greedy agent does:
  seven pairs counted for an afterstate with no declared meld where the rules allow it, the missing
  suit out of every completion. The simulations' own win check follows the same rules
  (:func:`simulate`'s ``seven_pairs`` and ``excluded_suit``): seven pairs completes a reachable hand
  whose afterstate declared no meld and which stole nothing since, and a completion never uses a tile
  of the missing suit (nor does the simulated hand steal one).
- Discard-twice runs only on own-turn discards when the hand has excessive blocks (more than m + 1
  blocks, Sec. 4: "more than six blocks" for five melds), with half of ``simulations`` extra split over
  the second-discard afterstates. H1 compares t1 in {t_1tb} united with the good {t_1ntb} (the
  candidates of Table 1) rather than every tile.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DISCARD, PHASE_END, Agent, Situation
from mjenv.baselines.greedy import rule_deficiency_rows, seven_pairs_code

from mjenv.deficiency import dp
from mjenv.deficiency.contains import contains_complete
from mjenv.deficiency.forms import without_suit
from mjenv.deficiency.kernel import disabled as kernel_disabled
from mjenv.deficiency.seven_pairs import SEVEN_PAIRS, form_rows, seven_pairs_deficiency
from mjenv.rules import Rules

try:  # built by setup.py (optional extension): the compiled simulation
    from mjenv.baselines import _flatmc
except ImportError:  # pragma: no cover - depends on the install
    _flatmc = None

#: Ratio r_d of progressive pruning (paper Sec. 5.2: r_d = 3 keeps almost every best action).
R_D = 3.0
#: Simulations per action in the first pruning iteration and in each later one (paper Sec. 5.2).
FIRST_BATCH, NEXT_BATCH = 300, 100
#: Default total simulations per decision: keeps the average decision within 0.5 s on one core here
#: (``benchmarks/baselines_timing.py``; see ``research/notes/bench/baselines.md``).
DEFAULT_SIMULATIONS = 5000
#: Default cap on the rounds foreseen in one simulation.
DEFAULT_MAX_ROUNDS = 6
#: Hard cap on reachable hands per simulation in the FP model; beyond it the extra branches of a
#: round are dropped (the pick branch is always kept). Rarely reached with ``max_rounds`` <= 8.
MAX_STATES_PER_SIM = 64

#: Largest block count Eq. (1) is evaluated to (MTW(c) needs c - 1 <= 5 melds in the dp core).
MAX_BLOCKS = 6

DISCARD_TWICE_MODES = ("original", "h1", "h2+h1")
MODELS = ("fp", "sp")
#: Engines of :func:`simulate`: the compiled simulation when installed, or the numpy path.
SIMULATE_ENGINES = ("auto", "numpy")


# ---------------------------------------------------------------------------------------------------
# simulation core on pure arrays
# ---------------------------------------------------------------------------------------------------


def sample_draws(kb: np.ndarray, n: int, length: int, rng: np.random.Generator) -> np.ndarray:
    """Sample ``n`` sequences of ``length`` hidden tiles without replacement from the KB.

    Args:
        kb: int[T] copies of each tile the seat has not seen (wall and opponents' hands).
        n: number of sequences.
        length: tiles per sequence (at most ``kb.sum()``).
        rng: generator.

    Returns:
        int16[n, length] tile ids.
    """
    pool = np.repeat(np.arange(len(kb), dtype=np.int16), np.asarray(kb, dtype=np.int64))
    if length > len(pool):
        raise ValueError(f"cannot draw {length} tiles from a KB of {len(pool)}")
    if length == 0 or n == 0:
        return np.zeros((n, length), dtype=np.int16)
    keys = rng.random((n, len(pool)))
    idx = np.argpartition(keys, length - 1, axis=1)[:, :length] if length < len(pool) else np.argsort(keys, axis=1)
    return pool[idx]


def _one_hot_counts(tiles: np.ndarray, n_t: int) -> np.ndarray:
    """int16[n, k] tile ids -> int16[n, T] counts."""
    out = np.zeros((tiles.shape[0], n_t), dtype=np.int16)
    rows = np.repeat(np.arange(tiles.shape[0]), tiles.shape[1])
    np.add.at(out, (rows, tiles.reshape(-1).astype(np.int64)), 1)
    return out


def _cap_per_group(group: np.ndarray, is_pick: np.ndarray, cap: int) -> np.ndarray:
    """bool mask keeping every pick-child and at most ``cap`` rows per group (stable order)."""
    order = np.lexsort((~is_pick, group))
    g_sorted = group[order]
    starts = np.flatnonzero(np.r_[True, g_sorted[1:] != g_sorted[:-1]])
    rank = np.arange(len(order)) - np.repeat(starts, np.diff(np.r_[starts, len(order)]))
    keep = np.zeros(len(group), dtype=bool)
    keep[order] = (rank < cap) | is_pick[order]
    return keep


def complete_rows(
    hands: np.ndarray,
    needed: np.ndarray,
    seven_pairs: np.ndarray | None = None,
    excluded_suit: int = -1,
    engine: str = "auto",
) -> np.ndarray:
    """Which hands contain a complete pattern: ONE call of the batched core for all rows.

    With an empty KB the deficiency is 0 exactly when the hand contains m melds and a pair (any hand
    size: the tiles outside the pattern are simply not used): :func:`mjenv.deficiency.contains.contains_complete`.

    Args:
        hands: int[B, T] counts (0..4).
        needed: int[B] melds still needed.
        seven_pairs: None, or int[B] per row the seven-pairs form that also completes it (0 none,
            1 distinct pairs, 2 a four of a kind as two pairs).
        excluded_suit: 0..2: that suit's tiles are no part of any pattern (a declared missing suit); -1 none.
        engine: of :func:`~mjenv.deficiency.contains.contains_complete` (``"numpy"``: the ``dp`` core).

    Returns:
        bool[B].
    """
    hands = without_suit(np.asarray(hands, dtype=np.int8), excluded_suit)
    # the compiled per-suit table when installed, else the dp core: the same answers (test_contains.py)
    complete = contains_complete(hands, needed, engine)
    zero_kb = np.zeros_like(hands)
    for form, rows in form_rows(seven_pairs):
        complete[rows] |= seven_pairs_deficiency(hands[rows], zero_kb[rows], SEVEN_PAIRS[form]) == 0
    return complete


def simulate(
    hands: np.ndarray,
    needed: np.ndarray,
    extra: np.ndarray,
    draws: np.ndarray,
    model: str = "fp",
    allow_chow: bool = True,
    ron: bool = False,
    *,
    seven_pairs: np.ndarray | None = None,
    excluded_suit: int = -1,
    engine: str = "auto",
) -> np.ndarray:
    """Run one batch of simulations for every afterstate; return which are wins.

    Args:
        hands: int[A, T] concealed hands of the afterstates (3m+1 tiles, or 3m after two discards).
        needed: int[A] melds still needed by each afterstate.
        extra: int[A] extra picks before the rounds (1 for a kong's replacement tile, else 0).
        draws: int[n, 4 * rounds + 1] sampled hidden tiles, shared by all afterstates: in round i the
            lower, opposite, upper and own seats pick ``draws[:, 4i : 4i + 4]``; the last column is the
            replacement tile of a kong.
        model: ``"fp"`` (four-player: steals from the dummy opponents' discards) or ``"sp"`` (picks only).
        allow_chow: whether the rules allow chows (FP steals from the upper seat).
        ron: FP only (ours, not the paper's Fig. 3): each round a reachable hand also wins when one of
            the three dummy discards completes it (a win on a discard from any seat, Sec. 2.1's rules),
            not only through a pong or the upper seat's chow; such a hand is terminal (not kept).
        seven_pairs: None (default: melds and a pair only), or int[A] per afterstate the seven-pairs
            form that also completes it (:func:`mjenv.baselines.greedy.seven_pairs_code`: 0 none,
            1 distinct pairs, 2 a four of a kind as two pairs). It applies to a reachable hand that
            stole nothing in the simulation (a steal declares a meld).
        excluded_suit: the seat's declared missing suit (0..2), -1 (default) for none. The
            simulated hand never steals a tile of that suit (no pong of it in the rules; no chow of
            it either), and its tiles are no part of any completion: a hand whose only completion
            uses one is no win (the seat discards them first, and the optimistic simulation keeps
            every pick instead of discarding).
        engine: ``"auto"`` (default): the compiled simulation (``baselines/_flatmc.c``) when it is
            installed and ``MJENV_NO_KERNEL`` is not set, else the numpy path; ``"numpy"``: the numpy
            path (the arrays of all simulations at once, the ``dp`` core for the win check). Both give
            the same wins bit for bit (``tests/test_flatmc_speed.py``).

    Returns:
        bool[A, n]: simulation s of afterstate a is a win.

    Raises:
        ValueError: an unknown engine.
    """
    if engine not in SIMULATE_ENGINES:
        raise ValueError(f"engine must be one of {SIMULATE_ENGINES}, got {engine!r}")
    hands = np.asarray(hands)
    n_s = draws.shape[0]
    rounds = (draws.shape[1] - 1) // 4
    if engine == "auto" and _flatmc is not None and not kernel_disabled() and draws.shape[1] == 4 * rounds + 1:
        n_a = len(hands)
        forms = np.zeros(n_a, np.int64) if seven_pairs is None else np.asarray(seven_pairs, dtype=np.int64)
        out = np.zeros(n_a * n_s, dtype=np.uint8)
        done = _flatmc.simulate(
            np.ascontiguousarray(hands, dtype=np.int8), np.ascontiguousarray(needed, dtype=np.int64),
            np.ascontiguousarray(extra, dtype=np.int64), np.ascontiguousarray(forms),
            np.ascontiguousarray(draws, dtype=np.int16), n_s, rounds, int(model != "sp"), int(allow_chow),
            int(ron), int(excluded_suit), MAX_STATES_PER_SIM, out,
        )  # fmt: skip
        if done:  # False: a count outside 0..4, answered by the numpy path as before
            return out.view(bool).reshape(n_a, n_s)
    return _simulate_numpy(hands, needed, extra, draws, model, allow_chow, ron, seven_pairs, excluded_suit)


def _simulate_numpy(
    hands: np.ndarray,
    needed: np.ndarray,
    extra: np.ndarray,
    draws: np.ndarray,
    model: str,
    allow_chow: bool,
    ron: bool,
    seven_pairs: np.ndarray | None,
    excluded_suit: int,
) -> np.ndarray:
    """:func:`simulate` on arrays: every reachable hand of every simulation at once, then ONE win
    check of them all (:func:`complete_rows`); the reference of the compiled path."""
    hands = np.asarray(hands, dtype=np.int16)
    n_a, n_t = hands.shape
    n_s = draws.shape[0]
    rounds = (draws.shape[1] - 1) // 4
    needed = np.asarray(needed, dtype=np.int64)
    extra = np.asarray(extra, dtype=np.int64)
    if n_a == 0 or n_s == 0:
        return np.zeros((n_a, n_s), dtype=bool)
    # states: one row per (afterstate, simulation); group = a * n_s + s
    group = np.arange(n_a * n_s, dtype=np.int64)
    st_hands = np.repeat(hands, n_s, axis=0)
    st_needed = np.repeat(needed, n_s)
    sim = group % n_s
    rep = np.repeat(extra > 0, n_s)
    st_hands[rep, draws[sim[rep], -1].astype(np.int64)] += 1
    if model == "sp" or rounds == 0:
        own = draws[:, 3 : 4 * rounds : 4] if rounds else np.zeros((n_s, 0), np.int16)
        st_hands = st_hands + _one_hot_counts(own, n_t)[sim]
    else:
        st_group, st_sim = group, sim
        ron_h, ron_n, ron_g = [], [], []
        for i in range(rounds):
            t_l, t_o, t_u, t_c = (draws[st_sim, 4 * i + k].astype(np.int64) for k in range(4))
            rows = np.arange(len(st_group))
            if ron:
                # a win on a dummy's discard: checked with every other reachable hand in the final call
                for t, same in ((t_l, None), (t_o, t_o == t_l), (t_u, (t_u == t_l) | (t_u == t_o))):
                    idx = rows if same is None else np.flatnonzero(~same)
                    h = st_hands[idx].copy()
                    h[np.arange(len(idx)), t[idx]] += 1
                    ron_h.append(h)
                    ron_n.append(st_needed[idx])
                    ron_g.append(st_group[idx])
            kids_h, kids_n, kids_g, kids_pick = [], [], [], []
            pick = st_hands.copy()
            pick[rows, t_c] += 1
            kids_h.append(pick)
            kids_n.append(st_needed)
            kids_g.append(st_group)
            kids_pick.append(np.ones(len(rows), dtype=bool))
            can_meld = st_needed >= 1
            # one pong child per distinct discarded tile (two seats discarding the same tile give the
            # same hand), so no duplicate rows arise within a round
            for t, same in ((t_l, None), (t_o, t_o == t_l), (t_u, (t_u == t_l) | (t_u == t_o))):
                ok = can_meld & (st_hands[rows, t] >= 2)
                if excluded_suit >= 0:  # no pong of the excluded suit
                    ok &= t // 9 != excluded_suit
                if same is not None:
                    ok &= ~same
                idx = np.flatnonzero(ok)
                if len(idx):
                    h = st_hands[idx].copy()
                    h[np.arange(len(idx)), t[idx]] -= 2
                    kids_h.append(h)
                    kids_n.append(st_needed[idx] - 1)
                    kids_g.append(st_group[idx])
                    kids_pick.append(np.zeros(len(idx), dtype=bool))
            if allow_chow:
                suited = (t_u < 27) & (t_u // 9 != excluded_suit)
                rank = t_u % 9
                for lo_off, hi_off, rank_ok in (
                    (1, 2, rank <= 6),
                    (-1, 1, (rank >= 1) & (rank <= 7)),
                    (-2, -1, rank >= 2),
                ):
                    ok = can_meld & suited & rank_ok
                    a = np.clip(t_u + lo_off, 0, n_t - 1)
                    b = np.clip(t_u + hi_off, 0, n_t - 1)
                    ok &= (st_hands[rows, a] >= 1) & (st_hands[rows, b] >= 1)
                    idx = np.flatnonzero(ok)
                    if len(idx):
                        h = st_hands[idx].copy()
                        h[np.arange(len(idx)), a[idx]] -= 1
                        h[np.arange(len(idx)), b[idx]] -= 1
                        kids_h.append(h)
                        kids_n.append(st_needed[idx] - 1)
                        kids_g.append(st_group[idx])
                        kids_pick.append(np.zeros(len(idx), dtype=bool))
            st_hands = np.concatenate(kids_h)
            st_needed = np.concatenate(kids_n)
            st_group = np.concatenate(kids_g)
            is_pick = np.concatenate(kids_pick)
            if len(kids_h) > 1 and np.bincount(st_group).max() > MAX_STATES_PER_SIM:
                keep = _cap_per_group(st_group, is_pick, MAX_STATES_PER_SIM)
                st_group, st_needed, st_hands = st_group[keep], st_needed[keep], st_hands[keep]
            st_sim = st_group % n_s
        group, st_needed = st_group, st_needed
        if ron_h:
            st_hands = np.concatenate([st_hands, *ron_h])
            st_needed = np.concatenate([st_needed, *ron_n])
            group = np.concatenate([group, *ron_g])
    forms = None
    if seven_pairs is not None and np.any(seven_pairs):
        # seven pairs completes a reachable hand that declared no meld since its afterstate
        a = group // n_s
        forms = np.where(st_needed == needed[a], np.asarray(seven_pairs, dtype=np.int64)[a], 0)
    complete = complete_rows(st_hands, st_needed, forms, excluded_suit, engine="numpy")
    wins = np.zeros(n_a * n_s, dtype=bool)
    wins[group[complete]] = True
    return wins.reshape(n_a, n_s)


def block_counts(hands: np.ndarray, kb: np.ndarray) -> np.ndarray:
    """Number of blocks of each hand by SIMCAT Eq. (1), knowledge-aware.

    ``MTW(c)`` is the least number of tiles to add (never discarding) to form c-1 melds and a pair,
    i.e. the ``dp`` cost with c-1 melds; the block count is the largest c with
    ``MTW(c) - MTW(c-1) <= 1`` (``MTW(0) = 0``), or 0 when there is none.

    Args:
        hands: int[B, T] hands (any size).
        kb: int[T] knowledge base shared by the batch.

    Returns:
        int64[B].
    """
    hands = np.atleast_2d(np.asarray(hands, dtype=np.int16))
    n_b = len(hands)
    # the dp core handles up to 5 melds, so c <= 6: enough to tell "more than m + 1 blocks" for m <= 4
    c_max = min(int(hands.sum(axis=1).max()) // 2 + 1, MAX_BLOCKS)
    cs = np.arange(1, c_max + 1)
    rep_h = np.repeat(hands, len(cs), axis=0).astype(np.int8)
    rep_k = np.broadcast_to(np.asarray(kb, dtype=np.int8), rep_h.shape).copy()
    melds = np.tile(cs - 1, n_b).astype(np.int64)
    mtw = dp.deficiency_batch(rep_h, rep_k, melds).reshape(n_b, len(cs)).astype(np.int64)
    prev = np.concatenate([np.zeros((n_b, 1), np.int64), mtw[:, :-1]], axis=1)
    ok = (mtw - prev <= 1) & (mtw < dp.INCOMPLETABLE)
    return np.where(ok.any(axis=1), c_max - np.argmax(ok[:, ::-1], axis=1), 0)


@dataclass
class MCResult:
    """Win counts of the afterstates of one decision.

    Attributes:
        wins: int64[A] simulated wins per afterstate.
        sims: int64[A] simulations per afterstate.
        alive: bool[A] not pruned.
        total: simulations run in all.
    """

    wins: np.ndarray
    sims: np.ndarray
    alive: np.ndarray
    total: int = 0
    iterations: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def rate(self) -> np.ndarray:
        return self.wins / np.maximum(self.sims, 1)

    @property
    def sigma(self) -> np.ndarray:
        """Standard error of each win rate."""
        p = self.rate
        return np.sqrt(p * (1 - p) / np.maximum(self.sims, 1))

    def bounds(self, r_d: float = R_D) -> tuple[np.ndarray, np.ndarray]:
        return self.rate - r_d * self.sigma, self.rate + r_d * self.sigma


def flat_monte_carlo(
    hands: np.ndarray,
    needed: np.ndarray,
    extra: np.ndarray,
    kb: np.ndarray,
    rounds: int,
    simulations: int,
    rng: np.random.Generator,
    *,
    model: str = "fp",
    pruning: bool = True,
    allow_chow: bool = True,
    deadline: float | None = None,
    ron: bool = False,
    seven_pairs: np.ndarray | None = None,
    excluded_suit: int = -1,
    engine: str = "auto",
) -> MCResult:
    """FlatMCMJ (paper Fig. 3) over the given afterstates, with optional progressive pruning.

    Args:
        hands: int[A, T] afterstate hands; needed: int[A]; extra: int[A] (see :func:`simulate`).
        kb: int[T] hidden tiles to sample from.
        rounds: rounds foreseen per simulation.
        simulations: total simulation budget n_t over all afterstates.
        rng: generator.
        model: ``"fp"`` or ``"sp"``.
        pruning: progressive pruning (Sec. 5.2); without it n_t is split evenly (Fig. 3).
        allow_chow: rules allow chows.
        deadline: ``time.perf_counter()`` value after which no new iteration starts (anytime).
        ron: FP wins on any dummy discard too (see :func:`simulate`).
        seven_pairs: None or int[A], the seven-pairs form of each afterstate (see :func:`simulate`).
        excluded_suit: the seat's missing suit, -1 for none (see :func:`simulate`).
        engine: :func:`simulate`'s engine (same wins either way).

    Returns:
        :class:`MCResult`.
    """
    n_a = len(hands)
    res = MCResult(np.zeros(n_a, np.int64), np.zeros(n_a, np.int64), np.ones(n_a, bool))
    if n_a == 0:
        return res
    rounds = max(0, min(rounds, (int(np.sum(kb)) - 1) // 4))
    if pruning:
        first = max(1, min(FIRST_BATCH, simulations // n_a))
    else:
        first = max(1, simulations // n_a)
    batch = first
    while True:
        idx = np.flatnonzero(res.alive)
        draws = sample_draws(kb, batch, 4 * rounds + 1, rng)
        w = simulate(
            hands[idx], needed[idx], extra[idx], draws, model=model, allow_chow=allow_chow, ron=ron,
            seven_pairs=None if seven_pairs is None else np.asarray(seven_pairs)[idx], excluded_suit=excluded_suit,
            engine=engine,
        )  # fmt: skip
        res.wins[idx] += w.sum(axis=1)
        res.sims[idx] += batch
        res.total += batch * len(idx)
        res.iterations += 1
        if not pruning:
            break
        lo, hi = res.bounds()
        best_lo = lo[res.alive].max()
        res.alive &= hi >= best_lo
        n_alive = int(res.alive.sum())
        batch = NEXT_BATCH
        if n_alive <= 1 or res.total + batch * n_alive > simulations:
            break
        if deadline is not None and time.perf_counter() > deadline:
            break
    return res


# ---------------------------------------------------------------------------------------------------
# the agent
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Afterstate:
    action: int
    hand: np.ndarray
    needed: int
    extra: int
    discard: int  # the discard played with it (own discard, or after a claim); -1 when none


class FlatMCAgent(Agent):
    """SIMCAT flat Monte Carlo agent (see the module docstring).

    Args:
        seed: seed of its generator.
        simulations: total simulations per decision (the paper's n_t), spread over the afterstates.
        model: ``"fp"`` (four-player model, default) or ``"sp"`` (single-player).
        pruning: progressive pruning with r_d = 3 (300 then 100 simulations per action).
        discard_twice: ``True`` / ``"h2+h1"`` (final version), ``"h1"``, or ``False`` / ``"original"``.
        time_limit: seconds per decision (anytime: no new iteration starts after it); None = budget only.
        max_rounds: cap on the rounds foreseen per simulation.
        prefilter: simulate only the afterstates of least knowledge-aware deficiency (our addition; False
            simulates every legal action as in the paper).
        claim_turn: in a claim decision, PASS keeps the pick the seat is about to make (one extra pick
            before the rounds), since a pong/chow takes the stolen tile in place of that pick (Sec. 2.1);
            False reproduces the earlier version, where a claim also got every pick of the pass line.
        ron: FP simulations also win on any dummy discard that completes a hand (ours; see
            :func:`simulate`).
        rules: preset name or :class:`~mjenv.rules.Rules` the observations are encoded with.
        engine: :func:`simulate`'s engine, ``"auto"`` (compiled when installed) or ``"numpy"``; the
            decisions are the same bit for bit, only the time differs.

    Raises:
        ValueError: an unknown model, discard-twice mode or engine, a non-positive budget.
    """

    name = "flatmc"
    answers_forced_at_once = True  # decide() returns the one legal action first

    def __init__(
        self,
        seed: int | None = 0,
        simulations: int = DEFAULT_SIMULATIONS,
        model: str = "fp",
        pruning: bool = True,
        discard_twice: bool | str = True,
        time_limit: float | None = None,
        max_rounds: int = DEFAULT_MAX_ROUNDS,
        prefilter: bool = True,
        claim_turn: bool = True,
        ron: bool = False,
        rules: str | Rules = "basic",
        engine: str = "auto",
    ) -> None:
        if model not in MODELS:
            raise ValueError(f"model must be one of {MODELS}, got {model!r}")
        if discard_twice is True:
            discard_twice = "h2+h1"
        elif discard_twice is False:
            discard_twice = "original"
        if discard_twice not in DISCARD_TWICE_MODES:
            raise ValueError(
                f"discard_twice must be True, False or one of {DISCARD_TWICE_MODES}, got {discard_twice!r}"
            )
        if not isinstance(simulations, (int, np.integer)) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be a positive number of seconds or None, got {time_limit!r}")
        if not isinstance(max_rounds, (int, np.integer)) or max_rounds < 0:
            raise ValueError(f"max_rounds must be a non-negative int, got {max_rounds!r}")
        if engine not in SIMULATE_ENGINES:
            raise ValueError(f"engine must be one of {SIMULATE_ENGINES}, got {engine!r}")
        self.engine = engine
        self.simulations = int(simulations)
        self.model = model
        self.pruning = bool(pruning)
        self.discard_twice = discard_twice
        self.time_limit = time_limit
        self.max_rounds = int(max_rounds)
        self.prefilter = bool(prefilter)
        self.claim_turn = bool(claim_turn)
        self.ron = bool(ron)
        super().__init__(seed=seed, rules=rules)
        self.last_result: MCResult | None = None

    def __repr__(self) -> str:
        return (
            f"FlatMCAgent(seed={self.seed!r}, simulations={self.simulations}, model={self.model!r}, "
            f"pruning={self.pruning}, discard_twice={self.discard_twice!r}, time_limit={self.time_limit!r}, "
            f"max_rounds={self.max_rounds}, prefilter={self.prefilter}, claim_turn={self.claim_turn}, "
            f"ron={self.ron}, rules={self.rules.name!r})"
        )

    # -- decision ---------------------------------------------------------------------------------

    def decide(self, s: Situation) -> int:
        legal = s.legal
        lay = s.layout
        if len(legal) == 1:
            return int(legal[0])
        if s.phase > PHASE_END:  # a phase of the rule set's own
            return self.own_phase(s)
        if s.mask[lay.win]:
            return lay.win
        if s.phase == PHASE_DISCARD and s.mask[: lay.num_tile_types].any():
            after = self._own_turn_afterstates(s)
        elif s.phase == PHASE_CLAIM and s.last_discard >= 0:
            after = self._claim_afterstates(s)
        else:
            return lay.pass_ if s.mask[lay.pass_] else int(legal[0])
        if len(after) == 1:
            return after[0].action
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        rounds = min(s.wall_count // 4, self.max_rounds)
        hands = np.stack([a.hand for a in after])
        needed = np.array([a.needed for a in after], dtype=np.int64)
        # the greedy order under the rule set: seven pairs for a seat with no declared meld,
        # no tile of the missing suit in any completion, as the greedy agent scores its discards
        forms = np.array([seven_pairs_code(self.rules, int(n)) for n in needed], dtype=np.int64)
        key_hands = without_suit(hands, s.excluded_suit)
        tie = self._greedy_key(key_hands, needed, s.kb, forms)
        if self.prefilter:
            # our addition: simulate only the afterstates of least knowledge-aware deficiency; the
            # optimistic simulation (no discards) otherwise overrates hands that are further from a win
            keep = np.flatnonzero(tie // 1000 == (tie // 1000).min())
            if len(keep) == 1:
                return after[int(keep[0])].action
            after = [after[i] for i in keep]
            hands, needed, tie, forms = hands[keep], needed[keep], tie[keep], forms[keep]
        extra = np.array([a.extra for a in after], dtype=np.int64)
        # the simulations' win check under the same rule set: seven pairs, the missing suit
        res = flat_monte_carlo(
            hands, needed, extra, s.kb, rounds, self.simulations, self.rng,
            model=self.model, pruning=self.pruning, allow_chow=self.rules.allow_chow, deadline=deadline,
            ron=self.ron, seven_pairs=forms if forms.any() else None, excluded_suit=s.excluded_suit,
            engine=self.engine,
        )  # fmt: skip
        self.last_result = res
        best = self._best(res, tie)
        if s.phase == PHASE_DISCARD and self.discard_twice != "original":
            choice = self._discard_twice(s, after, res, tie, best, rounds, deadline)
            if choice is not None:
                return choice
        return after[best].action

    @staticmethod
    def _greedy_key(
        hands: np.ndarray, needed: np.ndarray, kb: np.ndarray, forms: np.ndarray | None = None
    ) -> np.ndarray:
        """int64[A] tie-break key, lower is better: ``deficiency * 1000 + (999 - effective KB copies)``.

        ``forms``: int[A] per afterstate the seven-pairs form that also completes it
        (:func:`mjenv.baselines.greedy.seven_pairs_code`, 0 none); the deficiency is then
        ``min(melds-and-pair, seven pairs)``, before and after each draw.
        """
        n_a, n_t = hands.shape
        kbs = np.broadcast_to(kb.astype(np.int8), hands.shape).copy()
        d = rule_deficiency_rows(hands, kbs, needed, forms).astype(np.int64)
        # effective tiles of every afterstate in one batched call: draw t from the KB, compare
        draws = np.flatnonzero(kb > 0)
        rows = np.repeat(np.arange(n_a), len(draws))
        cols = np.tile(draws, n_a)
        drawn = hands[rows].astype(np.int8)
        drawn[np.arange(len(rows)), cols] += 1
        kb_rows = kbs[rows]
        kb_rows[np.arange(len(rows)), cols] -= 1
        if len(rows) == 0:
            return d * 1000 + 999
        d_drawn = rule_deficiency_rows(drawn, kb_rows, needed[rows], None if forms is None else forms[rows])
        lowers = d_drawn < d[rows]
        eff = np.zeros(n_a, dtype=np.int64)
        np.add.at(eff, rows[lowers], kb[cols[lowers]].astype(np.int64))
        # eff <= 136 < 1000 (copies of all tiles), so key // 1000 == d and the order is (d, -eff)
        return d * 1000 + (999 - eff)

    @staticmethod
    def _best(res: MCResult, tie: np.ndarray, among: np.ndarray | None = None) -> int:
        cand = np.flatnonzero(res.alive if among is None else among)
        if len(cand) == 0:
            cand = np.arange(len(tie))
        order = np.lexsort((cand, tie[cand], -res.rate[cand]))
        return int(cand[order[0]])

    def _own_turn_afterstates(self, s: Situation) -> list[_Afterstate]:
        lay, n_t, m = s.layout, s.layout.num_tile_types, s.melds_needed
        out = []
        for t in np.flatnonzero(s.mask[:n_t]):
            h = s.hand.copy()
            h[t] -= 1
            out.append(_Afterstate(lay.discard(int(t)), h, m, 0, int(t)))
        for t in np.flatnonzero(s.mask[n_t : 2 * n_t]):
            h = s.hand.copy()
            if h[t] >= 4:  # concealed kong: one more meld declared, a replacement tile drawn
                h[t] -= 4
                out.append(_Afterstate(lay.kong(int(t)), h, m - 1, 1, -1))
            else:  # added kong onto an exposed pong: the meld count is unchanged
                h[t] -= 1
                out.append(_Afterstate(lay.kong(int(t)), h, m, 1, -1))
        return out

    def _claim_afterstates(self, s: Situation) -> list[_Afterstate]:
        lay, d, m = s.layout, s.last_discard, s.melds_needed
        out = []
        if s.mask[lay.pass_]:
            # passing keeps the seat's next pick; a claim takes the discard in its place (Sec. 2.1)
            out.append(_Afterstate(lay.pass_, s.hand.copy(), m, int(self.claim_turn), -1))
        uses = {
            lay.chow_low: (d + 1, d + 2),
            lay.chow_mid: (d - 1, d + 1),
            lay.chow_high: (d - 2, d - 1),
            lay.pong: (d, d),
        }
        for action, used in uses.items():
            if not s.mask[action]:
                continue
            h = s.hand.copy()
            for t in used:
                h[t] -= 1
            if (h < 0).any():
                continue
            # the claim forces a discard: each (claim, discard) pair is an afterstate
            for t in np.flatnonzero(h > 0):
                h2 = h.copy()
                h2[t] -= 1
                out.append(_Afterstate(action, h2, m - 1, 0, int(t)))
        if s.mask[lay.exposed_kong] and s.hand[d] >= 3:
            h = s.hand.copy()
            h[d] -= 3
            out.append(_Afterstate(lay.exposed_kong, h, m - 1, 1, -1))
        return out

    # -- discard-twice (Sec. 4.2) -----------------------------------------------------------------

    def _discard_twice(
        self,
        s: Situation,
        after: list[_Afterstate],
        res: MCResult,
        tie: np.ndarray,
        best: int,
        rounds: int,
        deadline: float | None,
    ) -> int | None:
        """Apply H1 or H2+H1; None means "keep the flat MC choice"."""
        lay, m = s.layout, s.melds_needed
        disc = [i for i, a in enumerate(after) if a.action < lay.num_tile_types]
        if after[best].action >= lay.num_tile_types or len(disc) < 2:
            return None
        blocks_now = int(block_counts(s.hand[None], s.kb)[0])
        if blocks_now <= m + 1:  # no excessive blocks: nothing to break (Sec. 4)
            return None
        disc = np.array(disc)
        blocks_after = block_counts(np.stack([after[i].hand for i in disc]), s.kb)
        tb = disc[blocks_after < blocks_now]
        ntb = disc[blocks_after >= blocks_now]
        if len(tb) == 0 or len(ntb) == 0:
            return None
        rate = res.rate
        lo, hi = res.bounds()
        t1tb = int(tb[np.lexsort((tb, tie[tb], -rate[tb]))[0]])
        best_ntb = int(ntb[np.lexsort((ntb, tie[ntb], -rate[ntb]))[0]])
        if rate[t1tb] >= rate[best_ntb]:
            return after[t1tb].action
        good_ntb = ntb[hi[ntb] >= lo[best_ntb]]
        budget = max(1, self.simulations // 2)

        def second_stage(firsts: list[int]) -> dict[int, tuple[MCResult, list[int]]]:
            # afterstates after discarding t1 then t2 (3m tiles), t2 over the distinct tiles left
            rows, owners, seconds = [], [], []
            for i in firsts:
                h1 = after[i].hand
                for t2 in np.flatnonzero(h1 > 0):
                    h2 = h1.copy()
                    h2[t2] -= 1
                    rows.append(h2)
                    owners.append(i)
                    seconds.append(int(t2))
            hands = np.stack(rows)
            n2 = max(1, budget // len(rows))
            form = seven_pairs_code(self.rules, m)
            r = flat_monte_carlo(
                hands, np.full(len(rows), m), np.zeros(len(rows), np.int64), s.kb, rounds, n2 * len(rows),
                self.rng, model=self.model, pruning=False, allow_chow=self.rules.allow_chow, deadline=deadline,
                ron=self.ron, seven_pairs=np.full(len(rows), form) if form else None, excluded_suit=s.excluded_suit,
                engine=self.engine,
            )  # fmt: skip
            out = {}
            owners_a = np.array(owners)
            for i in firsts:
                sel = np.flatnonzero(owners_a == i)
                sub = MCResult(r.wins[sel], r.sims[sel], np.ones(len(sel), bool), int(r.sims[sel].sum()))
                out[i] = (sub, [seconds[j] for j in sel])
            return out

        stage = second_stage([t1tb])
        sub, seconds = stage[t1tb]
        if self.discard_twice == "h2+h1":
            # H2: a good non-breaking t1 that is also a good second discard after t_1tb
            lo2, hi2 = sub.bounds()
            good_second = {seconds[j] for j in np.flatnonzero(hi2 >= lo2[int(np.argmax(sub.rate))])}
            both = [int(i) for i in good_ntb if after[i].discard in good_second]
            if both:
                pick = max(both, key=lambda i: (rate[i], -tie[i], -i))
                return after[pick].action
        # H1: the t1 whose best second discard has the best win rate
        others = [int(i) for i in good_ntb if int(i) != t1tb]
        if others:
            stage.update(second_stage(others))
        best_t1 = max(stage, key=lambda i: (stage[i][0].rate.max(), rate[i], -tie[i], -i))
        return after[best_t1].action
