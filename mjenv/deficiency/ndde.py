"""NDDE: the novel discrete differential evolution of Yan and Li (2023) for the deficiency number.

Paper: ``../shared/papers/ndde-differential-evolution.txt`` (Mathematics 11, 2135), Sec. 3.

What it computes
----------------
The *minimum of the paper's cost estimate* (Eq. 8) over the predecompositions that a seeded
evolutionary search visits. It is a heuristic: nothing guarantees that the optimum is found, and the
paper reports 93.3% / 99.1% / 99.8% accuracy on one-, two- and three-suit hands with its default
``NP = 20``, ``G_max = 50`` (Table 3, ``NDDE_1``).

How it relates to mjenv's definition (``../shared/DESIGN.md``)
---------------------------------------------------------------
The paper is **not knowledge-aware**: ``kbs`` is ignored. Its only notion of availability is
"fewer than four copies in the hand" (the checks of Cases 1-2 below and the second special case of
Eq. 8), i.e. the implicit knowledge base ``KB = 4 - H``. Its target is therefore
``dfncy(H, 4 - H)``, the ordinary deficiency (shanten + 1), not ``dfncy(H, KB)``; with a smaller KB
the knowledge-aware truth can be larger (or ``INCOMPLETABLE``), and NDDE never reports
``INCOMPLETABLE``. ``benchmarks/paper_tables.py`` reports its accuracy against both targets.

Eq. 8 is a closed-form count that does not check whether the tiles it charges for are available: it
charges one tile for an eye made from a leftover single even when every leftover tile already has all
four copies in the hand (the paper's second special case only covers ``m = 4, n = 0``), and one tile
per pseudochow even when two of them wait on the same last copy. So a predecomposition's fitness can
undercount its true cost and NDDE is **not** an upper bound of ``dfncy(H, 4 - H)``: for
``55558888m4444p12s`` the predecomposition ``(555m)(888m)(444p)(12s)`` has fitness 2 (m = 3, n = 1,
``9 - 2m - n``), the leftovers 5m, 8m, 4p cannot become the eye, the true deficiency is 3, and NDDE
answers 2 with any budget. Such hands need several four-of-a-kinds and are rare in random play (none
in the default benchmark run; ``tests/test_ndde.py`` pins this example).

The algorithm (paper section -> code)
-------------------------------------
* Sec. 3.1, set S: for each distinct tile ``X_i`` of H in ascending order, the five cases are checked
  in turn and the melds/pseudomelds they produce are appended: Case 1 pseudochow ``(X_i X_i+1)`` when
  ``X_i+1`` is held and ``X_i-1`` or ``X_i+2`` has fewer than four copies in H; Case 2 pseudochow
  ``(X_i X_i+2)`` when ``X_i+2`` is held and ``X_i+1`` has fewer than four copies; Case 3 chow when
  ``X_i+1`` and ``X_i+2`` are held; Case 4 pair; Case 5 pong. The paper's text says "more than two"
  (Case 4) and "more than three" (Case 5); its own examples use a pair from two copies and the pong
  ``(B8B8B8)`` from three, so we read them as "at least two" and "at least three". Honours only get
  Cases 4 and 5.
* Sec. 3.2.1, encoding and mapping (Eqs. 6-7): an individual is ``M + 1`` integer slots (five for the
  paper's 14-tile hands), each ``1..N_S`` (the 1-based index of an element of S) or ``0`` = empty.
  Initialisation draws every slot uniformly from ``1..N_S``.
* Sec. 3.2.2, repair: for each distinct tile of the mapped predecomposition in ascending order, while
  it uses more copies than H holds, remove one element containing it and empty its slot. The paper
  does not say which element; we remove the last slot (highest index) first. That rule has a closed
  form per tile: slot ``j`` goes exactly when it contains the tile and the running count of that
  tile over slots ``1..j`` exceeds ``H[tile]``.
* Sec. 3.2.3, fitness (Eq. 8) with ``m`` melds, ``n`` pseudomelds (pairs included), ``p`` = "some
  pair present", generalised from four melds to ``M`` (``melds_needed``) exactly as the paper's
  counting argument goes (each pseudomeld needs one tile, each missing meld two, a missing eye one):
  ``M - m`` if ``m + n = M + 1`` and ``p``; ``M + 1 - m`` if ``m + n = M + 1`` and not ``p``;
  ``2M + 1 - 2m - n`` if ``m + n < M + 1`` (``4-m``, ``5-m``, ``9-2m-n`` for ``M = 4``).
  Special case 1: ``m + n = M + 1`` with two identical pairs costs one more. Special case 2:
  ``m = M``, ``n = 0`` and no tile left outside the melds can be paired (the paper: the remaining
  tiles "have formed a pong", i.e. every one of them already has all four copies in H) costs 2.
* Sec. 3.2.4, mutation (Eq. 9, discrete DE/rand/1, ``F = 0.5``): ``v_j = round(x_r1,j + F (x_r2,j -
  x_r3,j))`` when all three slots are non-empty, else a uniform ``1..N_S``; ``r1, r2, r3`` distinct
  and different from ``i``. "round" is taken as the nearest integer with ties upwards: with
  ``F = 0.5`` ties are frequent, and Python's half-to-even ``round`` would pull mutants towards even
  indices of S; on the NDDE paper's one-suit dataset ties-upwards scores about 3 points higher with the
  paper's default budget (closer to its Table 3). The paper does not say what to do when the result
  leaves ``1..N_S``; we draw a uniform index there (the same fallback as its empty-slot branch).
  Crossover (Eq. 10, ``Cr = 0.5``): ``u_j = x_j``
  when ``x_j`` is non-empty and ``rand <= Cr``, else ``v_j``. Selection (Eq. 4): ``u`` replaces ``x``
  when ``f(u) <= f(x)``; the target is kept in its repaired form.
* Algorithm 1: ``while g <= G_max`` runs ``G_max + 1`` generations; the output is the best (minimal)
  fitness in the final population (selection is elitist, so it is the best ever seen).

Everything is vectorized over the batch and the population (one numpy array ``[B, NP, M + 1]``);
the generations are the only Python loop, plus a few rounds inside the repair (as many as the worst
row has over-used tiles). The paper stopped a run as soon as the known true deficiency was found (to
time it); we do not know the truth here, so a batch stops early only when every hand has reached
fitness 0, which cannot change a result.

Limits: ``melds_needed`` may be 0..5 (the cost formula is the paper's argument for any ``M``; the
paper itself only treats 14-tile hands, and ``tests/test_ndde.py`` checks 13-tile and exposed-meld
hands against the exact ``dp``). Results depend on the seed *and on the whole batch* (one generator
draws for all rows): the same batch with the same seed always gives the same answer.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["DEFAULT_GENERATIONS", "DEFAULT_POPULATION", "deficiency_batch", "element_set", "predecomposition_cost"]

#: Paper defaults (Sec. 4.1: "we let NP = 20 and G_max = 50 in the following experiments").
DEFAULT_POPULATION = 20
DEFAULT_GENERATIONS = 50
#: Scaling factor F and crossover rate Cr (Sec. 3.2.4: "we set F = 0.5", "we set Cr = 0.5").
DEFAULT_F = 0.5
DEFAULT_CR = 0.5

# Element kinds, in the paper's case order for one tile (Cases 1..5).
_PCHOW1, _PCHOW2, _CHOW, _PAIR, _PONG = range(5)
_KIND_NAMES = ("pchow", "pchow", "chow", "pair", "pong")
_CHUNK = 512


def _universe(num_tile_types: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every candidate element of S, in the paper's order (tile ascending, then Case 1..5).

    Returns:
        counts: int8[5T, T] tile counts of each candidate; kinds: int8[5T]; tiles: int64[5T] (X_i).
        Candidates that can never exist (a chow past rank 9, honour chows) have all-zero counts.
    """
    n = 5 * num_tile_types
    counts = np.zeros((n, num_tile_types), dtype=np.int8)
    kinds = np.tile(np.arange(5, dtype=np.int8), num_tile_types)
    tiles = np.repeat(np.arange(num_tile_types), 5)
    for t in range(num_tile_types):
        r = t % 9 if t < 27 else -1
        base = 5 * t
        if 0 <= r <= 7:
            counts[base + _PCHOW1, [t, t + 1]] = 1
        if 0 <= r <= 6:
            counts[base + _PCHOW2, [t, t + 2]] = 1
            counts[base + _CHOW, [t, t + 1, t + 2]] = 1
        counts[base + _PAIR, t] = 2
        counts[base + _PONG, t] = 3
    return counts, kinds, tiles


def _membership(hands: np.ndarray) -> np.ndarray:
    """bool[B, 5T]: which candidates of :func:`_universe` belong to each hand's S (Sec. 3.1)."""
    b, n = hands.shape
    h = hands.astype(np.int16)
    # pad by two on both sides so X_i-1 .. X_i+2 exist for every tile; padding is "not held" and
    # "four copies" (unusable to complete anything).
    held = np.zeros((b, n + 4), dtype=bool)
    held[:, 2:-2] = h > 0
    few = np.zeros((b, n + 4), dtype=bool)  # fewer than four copies in H
    few[:, 2:-2] = h < 4
    rank = np.array([t % 9 if t < 27 else -1 for t in range(n)])
    valid_p1 = (rank >= 0) & (rank <= 7)
    valid_p2 = (rank >= 0) & (rank <= 6)
    # X_i-1 exists only for rank >= 1 and X_i+2 only for rank <= 6, within the same suit
    has_prev = rank >= 1
    has_next2 = (rank >= 0) & (rank <= 6)
    t_idx = np.arange(n) + 2
    me = held[:, t_idx]
    nxt1 = held[:, t_idx + 1]
    nxt2 = held[:, t_idx + 2]
    few_prev = few[:, t_idx - 1] & has_prev
    few_next2 = few[:, t_idx + 2] & has_next2
    few_next1 = few[:, t_idx + 1]
    mem = np.zeros((b, n, 5), dtype=bool)
    mem[:, :, _PCHOW1] = me & valid_p1 & nxt1 & (few_prev | few_next2)
    mem[:, :, _PCHOW2] = me & valid_p2 & nxt2 & few_next1
    mem[:, :, _CHOW] = me & valid_p2 & nxt1 & nxt2
    mem[:, :, _PAIR] = h >= 2
    mem[:, :, _PONG] = h >= 3
    return mem.reshape(b, 5 * n)


def element_set(hand) -> list[tuple[str, tuple[int, ...]]]:
    """The paper's set S for one hand (Sec. 3.1), in the order NDDE indexes it.

    Args:
        hand: int[T] tile counts (T = 27 or 34).

    Returns:
        ``[(kind, tile ids), ...]`` with kind in ``pchow | chow | pair | pong``; index ``k`` of this
        list is encoded as ``k + 1`` in an individual.
    """
    h = np.asarray(hand).astype(np.int64).reshape(1, -1)
    counts, kinds, _ = _universe(h.shape[1])
    mem = _membership(h)[0]
    out = []
    for c in np.flatnonzero(mem):
        tiles = tuple(int(t) for t in np.repeat(np.arange(h.shape[1]), counts[c]))
        out.append((_KIND_NAMES[kinds[c]], tiles))
    return out


def predecomposition_cost(hand, elements, melds_needed: int = 4) -> int:
    """Eq. 8 with its two special cases for one (already feasible) predecomposition.

    Args:
        hand: int[T] tile counts.
        elements: the predecomposition's melds and pseudomelds as tile-id tuples, e.g.
            ``[(0, 1, 2), (2, 3), (2, 2)]``; empty slots are simply left out.
        melds_needed: M, the melds a complete hand still needs (4 for the paper's hands).

    Returns:
        The paper's cost estimate of completing the predecomposition.

    Raises:
        ValueError: an element that is not a meld or pseudomeld, more than M + 1 elements, or more
            copies of a tile than the hand holds.
    """
    h = np.asarray(hand).astype(np.int64)
    used = np.zeros_like(h)
    m = n = 0
    pairs: list[int] = []
    for e in elements:
        e = tuple(sorted(int(t) for t in e))
        same_suit = all(t < 27 for t in e) and len({t // 9 for t in e}) == 1
        if len(e) == 3 and (e[0] == e[1] == e[2] or (same_suit and e[1] == e[0] + 1 and e[2] == e[0] + 2)):
            m += 1
        elif len(e) == 2 and (e[0] == e[1] or (same_suit and 1 <= e[1] - e[0] <= 2)):
            n += 1
            if e[0] == e[1]:
                pairs.append(e[0])
        else:
            raise ValueError(f"element {e} is not a meld (pong/chow) or pseudomeld (pair/pseudochow)")
        for t in e:
            used[t] += 1
    if m + n > melds_needed + 1:
        raise ValueError(f"a predecomposition has at most {melds_needed + 1} elements, got {m + n}")
    if (used > h).any():
        raise ValueError("the predecomposition uses more copies of a tile than the hand holds")
    return int(
        _fitness_formula(
            np.array([m]), np.array([n]), np.array([bool(pairs)]), np.array([len(pairs) != len(set(pairs))]),
            np.array([_leftover_unpairable(h, used)]), melds_needed,
        )[0]
    )


def _leftover_unpairable(h: np.ndarray, used: np.ndarray) -> bool:
    left = h - used
    return bool((left > 0).any() and (h[left > 0] >= 4).all())


def _fitness_formula(m, n, p, twin_pairs, unpairable, melds_needed):
    """Eq. 8 generalised to M melds, plus the two special cases of Sec. 3.2.3 (arrays broadcast)."""
    big = 2 * melds_needed + 1 - 2 * m - n
    full = m + n == melds_needed + 1
    f = np.where(full, np.where(p, melds_needed - m, melds_needed + 1 - m), big)
    # special case 1: two identical pairs; one of them would need a fifth copy to become a pong
    f = f + (full & twin_pairs)
    # special case 2: M melds, no pseudomeld, and no leftover tile can be paired
    f = np.where((m == melds_needed) & (n == 0) & unpairable, 2, f)
    return f


def _check_options(population, generations, mutation_factor, crossover_rate, seed) -> np.random.Generator:
    def is_int(v) -> bool:
        return isinstance(v, numbers.Integral) and not isinstance(v, bool)

    if not is_int(population) or population < 4:
        raise ValueError(
            f"population (NP) must be an int >= 4 (DE/rand/1 needs three other individuals), got {population!r}"
        )
    if not is_int(generations) or generations < 0:
        raise ValueError(f"generations (G_max) must be an int >= 0, got {generations!r}")
    if not isinstance(mutation_factor, numbers.Real) or isinstance(mutation_factor, bool) or not (
        0.0 < float(mutation_factor) <= 2.0
    ):
        raise ValueError(f"mutation_factor (F) must be a number in (0, 2], got {mutation_factor!r}")
    if not isinstance(crossover_rate, numbers.Real) or isinstance(crossover_rate, bool) or not (
        0.0 <= float(crossover_rate) <= 1.0
    ):
        raise ValueError(f"crossover_rate (Cr) must be a number in [0, 1], got {crossover_rate!r}")
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or not is_int(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or a numpy.random.Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def deficiency_batch(
    hands: np.ndarray,
    kbs: np.ndarray,
    melds_needed: np.ndarray,
    *,
    seed: int | np.random.Generator = 0,
    population: int = DEFAULT_POPULATION,
    generations: int = DEFAULT_GENERATIONS,
    mutation_factor: float = DEFAULT_F,
    crossover_rate: float = DEFAULT_CR,
) -> np.ndarray:
    """NDDE estimate of the (non knowledge-aware) deficiency of a validated batch.

    Args:
        hands: int8[B, T] tile counts (T = 27 or 34).
        kbs: int8[B, T] knowledge bases; **ignored** (the paper is not knowledge-aware, see the module
            docstring); accepted so the backend has the common signature.
        melds_needed: int64[B] melds still needed (M; 4 for the paper's hands).
        seed: int >= 0 or a ``numpy.random.Generator``; the same batch and seed give the same result.
        population: NP, individuals per hand (paper default 20; at least 4).
        generations: G_max (paper default 50); Algorithm 1 runs ``G_max + 1`` generations.
        mutation_factor: F of Eq. 9 (paper: 0.5).
        crossover_rate: Cr of Eq. 10 (paper: 0.5).

    Returns:
        int32[B]: the best Eq. 8 fitness found per hand.

    Raises:
        ValueError: an option out of range (names the option and what is allowed).
    """
    del kbs  # not knowledge-aware (paper Sec. 3): availability is "fewer than four copies in H"
    rng = _check_options(population, generations, mutation_factor, crossover_rate, seed)
    hands = np.asarray(hands)
    melds_needed = np.asarray(melds_needed, dtype=np.int64)
    out = np.zeros(len(hands), dtype=np.int32)
    # rows with different M have different slot counts: run each M as its own vectorized group
    for m_val in np.unique(melds_needed):
        rows = np.flatnonzero(melds_needed == m_val)
        # chunks bound the memory of the [rows, NP, NP] and [rows, NP, M + 1, T] work arrays
        for lo in range(0, len(rows), _CHUNK):
            part = rows[lo:lo + _CHUNK]
            out[part] = _run(hands[part], int(m_val), rng, int(population), int(generations),
                             float(mutation_factor), float(crossover_rate))
    return out


def _run(hands, melds_needed, rng, pop, gens, f_scale, cr) -> np.ndarray:
    b, n_types = hands.shape
    k = melds_needed + 1  # slots
    h = hands.astype(np.int16)
    u_counts, u_kinds, _ = _universe(n_types)
    mem = _membership(hands)
    n_s = mem.sum(axis=1)  # N_S per hand
    ns_max = int(n_s.max()) if b else 0
    # S per hand, padded; row 0 is the empty slot so that slot value x indexes S_pad[b, x] directly
    order = np.argsort(~mem, axis=1, kind="stable")[:, :ns_max]
    s_counts = np.zeros((b, ns_max + 1, n_types), dtype=np.int16)
    s_meld = np.zeros((b, ns_max + 1), dtype=bool)
    s_pmeld = np.zeros((b, ns_max + 1), dtype=bool)
    s_pair = np.zeros((b, ns_max + 1), dtype=bool)
    valid = np.arange(ns_max)[None, :] < n_s[:, None]
    s_counts[:, 1:] = np.where(valid[:, :, None], u_counts[order], 0)
    kinds = u_kinds[order]
    s_meld[:, 1:] = valid & ((kinds == _CHOW) | (kinds == _PONG))
    s_pmeld[:, 1:] = valid & ((kinds == _PCHOW1) | (kinds == _PCHOW2) | (kinds == _PAIR))
    s_pair[:, 1:] = valid & (kinds == _PAIR)
    bi = np.arange(b)[:, None, None]
    n_s3 = n_s[:, None, None]

    def randint(shape) -> np.ndarray:
        # uniform 1..N_S per hand (Eq. 6); 0 (empty) for a hand whose S is empty
        return np.where(n_s3 > 0, 1 + np.floor(rng.random(shape) * n_s3).astype(np.int64), 0)

    def repair(x: np.ndarray) -> np.ndarray:
        """Sec. 3.2.2 on x int64[b, NP, k] (in place); returns the mapped counts int16[b, NP, k, T]."""
        c = s_counts[bi, x]
        hb = h[:, None, :]
        # Each round handles, in every row at once, the lowest tile that row still over-uses; the tiles
        # below it are settled for good (removals only lower counts), so the rounds visit a row's tiles
        # in ascending order exactly like the paper's per-tile loop, with as many rounds as the worst
        # row has over-used tiles rather than one per tile over-used anywhere in the batch.
        while True:
            over = c.sum(axis=2) > hb
            rows = over.any(axis=2)
            if not rows.any():
                return c
            t = over.argmax(axis=2)  # lowest over-used tile per row (rows without one are masked below)
            ct = np.take_along_axis(c, t[:, :, None, None], axis=3)[..., 0]
            limit = h[bi[:, :, 0], t]  # [b, NP]: the hand's count of that tile
            drop = rows[:, :, None] & (ct > 0) & (np.cumsum(ct, axis=2) > limit[:, :, None])
            x[drop] = 0
            c[drop] = 0

    def fitness(x: np.ndarray, c: np.ndarray) -> np.ndarray:
        m = s_meld[bi, x].sum(axis=2)
        nn = s_pmeld[bi, x].sum(axis=2)
        pair = s_pair[bi, x]
        same = (x[:, :, :, None] == x[:, :, None, :]) & pair[:, :, :, None] & pair[:, :, None, :]
        twin = np.triu(np.ones((k, k), dtype=bool), 1)
        twin_pairs = (same & twin).any(axis=(2, 3))
        left = h[:, None, :] - c.sum(axis=2)
        unpairable = (left > 0).any(axis=2) & ~((left > 0) & (h[:, None, :] < 4)).any(axis=2)
        return _fitness_formula(m, nn, pair.any(axis=2), twin_pairs, unpairable, melds_needed)

    x = randint((b, pop, k))
    fit = fitness(x, repair(x))
    others = np.ones((pop, pop), dtype=bool)
    np.fill_diagonal(others, False)
    for _ in range(gens + 1):
        if (fit.min(axis=1) == 0).all():
            break  # nothing can beat 0; stopping cannot change a result
        # r1, r2, r3: distinct and different from i (Eq. 9)
        keys = rng.random((b, pop, pop))
        keys[:, ~others] = np.inf
        r = np.argsort(keys, axis=2)[:, :, :3]
        xr = x[bi, r]  # [b, pop, 3, k]
        x1, x2, x3 = xr[:, :, 0], xr[:, :, 1], xr[:, :, 2]
        # nearest integer, ties upwards (see the module docstring on why not Python's half-to-even)
        mutant = np.floor(x1 + f_scale * (x2 - x3) + 0.5).astype(np.int64)
        ok = (x1 > 0) & (x2 > 0) & (x3 > 0) & (mutant >= 1) & (mutant <= n_s3)
        v = np.where(ok, mutant, randint((b, pop, k)))
        keep = (x > 0) & (rng.random((b, pop, k)) <= cr)  # Eq. 10
        u = np.where(keep, x, v)
        cu = repair(u)
        fu = fitness(u, cu)
        better = fu <= fit  # Eq. 4
        x = np.where(better[:, :, None], u, x)
        fit = np.where(better, fu, fit)
    return fit.min(axis=1).astype(np.int32)
