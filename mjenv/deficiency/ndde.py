"""NDDE: the novel discrete differential evolution of Yan and Li (2023) for the deficiency number.

Paper: X. Yan and Y. Li, "A Novel Discrete Differential Evolution with Varying Variables for the
Deficiency Number of Mahjong Hand", Mathematics 11 (2023) 2135; the algorithm is its Sec. 3, the
experiments its Sec. 4.

What it computes
----------------
The *minimum of the paper's cost estimate* (Eq. 8) over the predecompositions that a seeded
evolutionary search visits. It is a heuristic: nothing guarantees that the optimum is found, and the
paper reports 93.3% / 99.1% / 99.8% accuracy on one-, two- and three-suit hands with its default
``NP = 20``, ``G_max = 50`` (Table 3, ``NDDE_1``).

How it relates to mjenv's definition (``mjenv.deficiency``)
-----------------------------------------------------------
The paper is **not knowledge-aware**: ``kbs`` is ignored. Its only notion of availability is
"fewer than four copies in the hand" (the checks of Cases 1-2 below and the second special case of
Eq. 8), i.e. the implicit knowledge base ``KB = 4 - H``. Its target is therefore
``dfncy(H, 4 - H)``, the ordinary deficiency (shanten + 1), not ``dfncy(H, KB)``; with a smaller KB
the knowledge-aware truth can be larger (or ``INCOMPLETABLE``), and NDDE never reports
``INCOMPLETABLE``. ``research/paper_tables.py`` reports its accuracy against both targets.

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
* **The index order of S** (option ``s_order``). Sec. 3.1 defines S as a *set* ("we first search all its
  possible melds and pmelds and denote them by S") and Eq. 7 maps ``x_j`` to "the x_j-th element of S"
  without fixing an order, yet the order matters: Eq. 9 does arithmetic on indices, so neighbouring
  indices should hold similar elements. **The authors' order is inferred.** ``"case"`` (default): Case 1
  over all tiles, then Case 2, ..., Case 5 (all adjacent pseudochows, then the gapped ones, the chows, the
  pairs, the pongs, each by tile); the paper itself groups S by kind when it sums up ("Cases 1, 2, and 4
  can provide all the possible pmelds, and Cases 3 and 5 can give all the possible melds"; Sec. 3.2.4:
  "previously finding all possible melds, pmelds, and pairs"). ``"tile"``: tile by tile, Cases 1..5
  within each (mjenv's order before the tile-order fix). On the paper's one-suit set the case order scores
  about 2.5 points higher at the default budget and 3 to 5 points higher at ``G_max = 10``, which is what
  closes most of the gap to the paper's Tables 1 and 3 (``research/ndde_tables.py``, ablation in
  ``research/notes/bench/paper_tables.md``; found by bisecting against ``research/ndde_independent.py``, a
  second implementation written from the paper's text).
* Sec. 3.2.1, encoding and mapping (Eqs. 6-7): an individual is ``M + 1`` integer slots (five for the
  paper's 14-tile hands), each ``1..N_S`` (the 1-based index of an element of S) or ``0`` = empty.
  Initialisation draws every slot uniformly from ``1..N_S``.
* Sec. 3.2.2, repair (paragraph 2): for each distinct tile ``X_i`` of the mapped
  predecomposition in ascending order, while it uses more copies than H holds, "we gradually remove one
  meld or pmeld containing X_i" and empty its slot. **Which one is not said; the authors' rule is
  inferred.** Option ``repair``:

  - ``"pmeld_first"`` (default): a pseudomeld (pair or pseudochow) before a meld, the later slot first
    within each kind. It comes far closer to the paper's Tables 1 and 3 than the alternatives
    (removing a meld first, or the last slot, costs many points; ablation in
    ``research/notes/bench/paper_tables.md``); with the tile-by-tile order of S it still fell short of the paper
    (one suit, NP = 20, G_max = 50: 91.6% [91.4, 91.8] against 93.3%), the gap the ``s_order`` option
    above closes;
  - ``"meld_first"``: a meld before a pseudomeld (the later slot first within each kind);
  - ``"last_slot"``: the later slot first whatever it holds (mjenv's rule before the paper's order was read).

  Each has a closed form per tile: order the slots that hold the tile so that the first to go comes
  last; a slot goes exactly when the running count of the tile up to it, in that order, exceeds
  ``H[tile]``.
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
  and different from ``i``. With ``F = 0.5`` ties are frequent, so the tie rule of "round" (option
  ``rounding``; **inferred**) matters: ``"half_even"`` (default) is Python's and numpy's ``round``, the
  language the authors used (Sec. 4: "implemented in Python 3.0"); ``"half_up"`` rounds ties upwards
  (mjenv's rule before the tile-order fix, which scored higher with the tile order of S). With the case
  order and clipping, ties to even scored 93.3% [92.5, 94.0] and ties upwards 94.1% [93.4, 94.8] on
  4,000 one-suit hands at the default budget (the paper: 93.3%); the two are within the noise of each
  other, so the language's own rule is the default.
  Eq. 9 does not say what to do when the result leaves ``1..N_S`` (Sec. 3.2.4 defines only ``round``
  and the ``randint`` fallback for an empty donor slot); **the rule is inferred.** Option
  ``out_of_range``: ``"clip"`` (default) takes the nearest of 1 and N_S, the usual DE bound handling;
  ``"redraw"`` draws a uniform index, the only fallback the paper's text defines (mjenv's rule before
  the tile-order fix). With the case order of S, clipping scores about 2 points higher at ``G_max = 10``,
  closer to the paper's small-budget cells of Table 1 (a few of which stay a few points above ours).
  Crossover (Eq. 10, ``Cr = 0.5``): ``u_j = x_j``
  when ``x_j`` is non-empty and ``rand <= Cr``, else ``v_j``. Selection (Eq. 4): ``u`` replaces ``x``
  when ``f(u) <= f(x)``; the target is kept in its repaired form.
* Algorithm 1: ``while g <= G_max`` runs ``G_max + 1`` generations; the output is the best (minimal)
  fitness in the final population (selection is elitist, so it is the best ever seen).

Everything is vectorized over the batch and the population (one numpy array ``[B, NP, M + 1]``);
the generations are the only Python loop, plus a few rounds inside the repair (as many as the worst
row has over-used tiles). The paper stopped a run as soon as the known true deficiency was found
(Sec. 4.1: "when the actual deficiency number for a hand is found, the proposed NDDE algorithm
will be terminated"); a caller who knows a target passes it as ``stop_at`` and a hand leaves the batch
once its best fitness reaches it (selection is elitist, so that changes no answer). By default the
target is 0, which nothing can beat.

Limits: ``melds_needed`` may be 0..5 (the cost formula is the paper's argument for any ``M``; the
paper itself only treats 14-tile hands, and ``tests/test_ndde.py`` checks 13-tile and exposed-meld
hands against the exact ``dp``). Results depend on the seed *and on the whole batch* (one generator
draws for all rows): the same batch with the same seed always gives the same answer.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "DEFAULT_GENERATIONS",
    "DEFAULT_POPULATION",
    "OUT_OF_RANGE_RULES",
    "REPAIR_ORDERS",
    "ROUNDINGS",
    "S_ORDERS",
    "deficiency_batch",
    "element_set",
    "predecomposition_cost",
    "repair_slots",
]

#: Paper defaults (Sec. 4.1: "we let NP = 20 and G_max = 50 in the following experiments").
DEFAULT_POPULATION = 20
DEFAULT_GENERATIONS = 50
#: Scaling factor F and crossover rate Cr (Sec. 3.2.4: "we set F = 0.5", "we set Cr = 0.5").
DEFAULT_F = 0.5
DEFAULT_CR = 0.5
#: Orders in which the repair (Sec. 3.2.2) removes the elements that contain an over-used tile.
REPAIR_ORDERS = ("pmeld_first", "meld_first", "last_slot")
DEFAULT_REPAIR = "pmeld_first"
#: What the mutation (Eq. 9) does with a mutant outside 1..N_S.
OUT_OF_RANGE_RULES = ("redraw", "clip")
DEFAULT_OUT_OF_RANGE = "clip"
#: How S is indexed (Sec. 3.1): Cases 1..5 within each tile ("tile"), or each Case over all tiles ("case").
S_ORDERS = ("tile", "case")
DEFAULT_S_ORDER = "case"
#: Eq. 9's round: ties to even (Python's and numpy's round) or ties upwards.
ROUNDINGS = ("half_even", "half_up")
DEFAULT_ROUNDING = "half_even"

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


def element_set(hand, s_order: str = DEFAULT_S_ORDER) -> list[tuple[str, tuple[int, ...]]]:
    """The paper's set S for one hand (Sec. 3.1), in the order NDDE indexes it.

    Args:
        hand: int[T] tile counts (T = 27 or 34).
        s_order: ``"tile"`` or ``"case"`` (see :func:`deficiency_batch`).

    Returns:
        ``[(kind, tile ids), ...]`` with kind in ``pchow | chow | pair | pong``; index ``k`` of this
        list is encoded as ``k + 1`` in an individual.
    """
    h = np.asarray(hand).astype(np.int64).reshape(1, -1)
    counts, kinds, _ = _universe(h.shape[1])
    mem = _membership(h)[0]
    out = []
    for c in _s_index(mem[None], _check_choice("s_order", s_order, S_ORDERS))[0, :int(mem.sum())]:
        tiles = tuple(int(t) for t in np.repeat(np.arange(h.shape[1]), counts[c]))
        out.append((_KIND_NAMES[kinds[c]], tiles))
    return out


def _s_index(mem: np.ndarray, s_order: str) -> np.ndarray:
    """int[B, 5T]: per hand the candidates of :func:`_universe` in S's index order, members first.

    ``"tile"``: tile ascending, then Case 1..5 (the universe's own order); ``"case"``: Case 1..5, then
    tile ascending. Non-members follow the members (callers cut at N_S).
    """
    n = mem.shape[1]
    key = np.arange(n)
    if s_order == "case":
        key = (key % 5) * (n // 5) + key // 5  # universe index 5 t + case -> case-major rank
    return np.argsort(np.where(mem, key, n + key), axis=1, kind="stable")


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


def _is_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(repr(a) for a in allowed)}, got {value!r}")
    return value


def _check_options(population, generations, mutation_factor, crossover_rate, seed) -> np.random.Generator:
    if not _is_int(population) or population < 4:
        raise ValueError(
            f"population (NP) must be an int >= 4 (DE/rand/1 needs three other individuals), got {population!r}"
        )
    if not _is_int(generations) or generations < 0:
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
    if seed is None or not _is_int(seed) or seed < 0:
        raise ValueError(f"seed must be a non-negative int or a numpy.random.Generator, got {seed!r}")
    return np.random.default_rng(int(seed))


def _check_stop_at(stop_at, n: int) -> np.ndarray:
    """``stop_at`` as int64[n]; None means 0 (a complete hand: nothing can beat it)."""
    if stop_at is None:
        return np.zeros(n, dtype=np.int64)
    if _is_int(stop_at):
        return np.full(n, int(stop_at), dtype=np.int64)
    arr = np.asarray(stop_at)
    if arr.dtype.kind not in "iu" or arr.shape != (n,):
        raise ValueError(
            f"stop_at must be None, an int or an int array of shape ({n},) (one per hand), got "
            f"{arr.dtype} array of shape {arr.shape}"
        )
    return arr.astype(np.int64)


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
    repair: str = DEFAULT_REPAIR,
    out_of_range: str = DEFAULT_OUT_OF_RANGE,
    s_order: str = DEFAULT_S_ORDER,
    rounding: str = DEFAULT_ROUNDING,
    stop_at: int | np.ndarray | None = None,
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
        repair: which element the repair of Sec. 3.2.2 removes first from an over-used tile:
            ``"pmeld_first"`` (default; a pseudomeld before a meld, the later slot first within each),
            ``"meld_first"`` or ``"last_slot"`` (the later slot first whatever its kind; mjenv's rule
            before the paper's order was read).
        out_of_range: what Eq. 9 does with a mutant outside ``1..N_S``: ``"clip"`` (default; the nearest
            of 1 and N_S) or ``"redraw"`` (a uniform index, Eq. 9's own fallback for empty donors).
        s_order: the index order of S (Sec. 3.1 leaves it open; Eq. 9 does arithmetic on indices):
            ``"case"`` (default; Case 1 over all tiles, then Case 2, ...) or ``"tile"`` (Cases 1..5 per tile).
        rounding: Eq. 9's ``round``: ``"half_even"`` (default; ties to even, Python's ``round``) or
            ``"half_up"`` (ties upwards).

            All four rules are left open by the paper; the defaults are inferred (they reproduce its
            Tables 1 and 3, see the module docstring).
        stop_at: None, an int or int[B]: a hand's search stops as soon as its best fitness is at most
            this (the paper's experiments stop at the known true deficiency, Sec. 4.1). None stops only
            at 0, which nothing can beat; the paper-table benchmark passes the exact deficiency.

    Returns:
        int32[B]: the best Eq. 8 fitness found per hand.

    Raises:
        ValueError: an option out of range (names the option and what is allowed).
    """
    del kbs  # not knowledge-aware (paper Sec. 3): availability is "fewer than four copies in H"
    rng = _check_options(population, generations, mutation_factor, crossover_rate, seed)
    order = _check_choice("repair", repair, REPAIR_ORDERS)
    clip = _check_choice("out_of_range", out_of_range, OUT_OF_RANGE_RULES) == "clip"
    s_order = _check_choice("s_order", s_order, S_ORDERS)
    half_even = _check_choice("rounding", rounding, ROUNDINGS) == "half_even"
    hands = np.asarray(hands)
    melds_needed = np.asarray(melds_needed, dtype=np.int64)
    stop = _check_stop_at(stop_at, len(hands))
    out = np.zeros(len(hands), dtype=np.int32)
    # rows with different M have different slot counts: run each M as its own vectorized group
    for m_val in np.unique(melds_needed):
        rows = np.flatnonzero(melds_needed == m_val)
        # chunks bound the memory of the [rows, NP, NP] and [rows, NP, M + 1, T] work arrays
        for lo in range(0, len(rows), _CHUNK):
            part = rows[lo:lo + _CHUNK]
            out[part] = _run(_Search(hands[part], int(m_val), s_order), rng, int(population), int(generations),
                             float(mutation_factor), float(crossover_rate), order, clip, half_even, stop[part])
    return out


def repair_slots(hand, slots, melds_needed: int = 4, *, repair: str = DEFAULT_REPAIR,
                 s_order: str = DEFAULT_S_ORDER) -> np.ndarray:
    """The repair of Sec. 3.2.2 applied to individuals of one hand, exactly as the search applies it.

    Args:
        hand: int[T] tile counts (T = 27 or 34).
        slots: int[M + 1] or int[P, M + 1] individuals: 1-based indices into :func:`element_set`
            (``k + 1`` for element ``k``), 0 = empty slot.
        melds_needed: M (4 for the paper's hands).
        repair: ``"pmeld_first"``, ``"meld_first"`` or ``"last_slot"`` (see :func:`deficiency_batch`).
        s_order: the index order of S, ``"tile"`` or ``"case"`` (as in :func:`element_set`).

    Returns:
        int64 array of the shape of ``slots``: the feasible individuals, removed elements set to 0.

    Raises:
        ValueError: a bad ``repair``, a slot count other than M + 1 or a slot outside ``0..N_S``.
    """
    order = _check_choice("repair", repair, REPAIR_ORDERS)
    search = _Search(np.asarray(hand).astype(np.int8).reshape(1, -1), int(melds_needed),
                     _check_choice("s_order", s_order, S_ORDERS))
    x = np.array(slots, dtype=np.int64)
    if x.ndim not in (1, 2) or x.shape[-1] != melds_needed + 1:
        raise ValueError(f"slots must be int[{melds_needed + 1}] or int[P, {melds_needed + 1}], got shape "
                         f"{x.shape}")
    n_s = int(search.n_s[0])
    if x.size and (x.min() < 0 or x.max() > n_s):
        raise ValueError(f"slot values must be 0 (empty) or 1..N_S = 1..{n_s}, got {x.tolist()}")
    single = x.ndim == 1
    x = x.reshape(1, -1, melds_needed + 1)
    search.repair(x, order)
    return x[0, 0] if single else x[0]


class _Search:
    """Per-hand arrays of one vectorized search (leading axis: hand), so finished hands can be dropped.

    ``s_*`` describe each hand's S padded to the largest N_S, with row 0 the empty slot so that a slot
    value ``x`` indexes ``s_counts[b, x]`` directly.
    """

    _FIELDS = ("h", "n_s", "s_counts", "s_meld", "s_pmeld", "s_pair")

    def __init__(self, hands: np.ndarray, melds_needed: int, s_order: str = DEFAULT_S_ORDER) -> None:
        b, n_types = hands.shape
        self.melds_needed = melds_needed
        self.h = hands.astype(np.int16)
        u_counts, u_kinds, _ = _universe(n_types)
        mem = _membership(hands)
        self.n_s = mem.sum(axis=1)  # N_S per hand
        ns_max = int(self.n_s.max()) if b else 0
        order = _s_index(mem, s_order)[:, :ns_max]
        valid = np.arange(ns_max)[None, :] < self.n_s[:, None]
        self.s_counts = np.zeros((b, ns_max + 1, n_types), dtype=np.int16)
        self.s_counts[:, 1:] = np.where(valid[:, :, None], u_counts[order], 0)
        kinds = u_kinds[order]
        self.s_meld = np.zeros((b, ns_max + 1), dtype=bool)
        self.s_pmeld = np.zeros((b, ns_max + 1), dtype=bool)
        self.s_pair = np.zeros((b, ns_max + 1), dtype=bool)
        self.s_meld[:, 1:] = valid & ((kinds == _CHOW) | (kinds == _PONG))
        self.s_pmeld[:, 1:] = valid & ((kinds == _PCHOW1) | (kinds == _PCHOW2) | (kinds == _PAIR))
        self.s_pair[:, 1:] = valid & (kinds == _PAIR)

    def take(self, rows: np.ndarray) -> _Search:
        """The search restricted to ``rows`` (a bool mask or indices over the hands)."""
        sub = object.__new__(_Search)
        sub.melds_needed = self.melds_needed
        for name in self._FIELDS:
            setattr(sub, name, getattr(self, name)[rows])
        return sub

    def randint(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        """Uniform ``1..N_S`` per hand (Eq. 6) of ``shape`` = (b, ...); 0 (empty) where S is empty."""
        n_s = self.n_s.reshape((-1,) + (1,) * (len(shape) - 1))
        return np.where(n_s > 0, 1 + np.floor(rng.random(shape) * n_s).astype(np.int64), 0)

    def over_used_tile(self, over: np.ndarray) -> np.ndarray:
        """The tile the repair handles next per row: the lowest over-used one (Sec. 3.2.2, ascending).

        A separate method so that ``research/ndde_more_readings.py`` can screen other tile orders.
        """
        return over.argmax(axis=2)

    def repair(self, x: np.ndarray, order: str) -> np.ndarray:
        """Sec. 3.2.2 on x int64[b, NP, k] (in place); returns the mapped counts int16[b, NP, k, T]."""
        k = x.shape[2]
        bi = np.arange(len(x))[:, None, None]
        c = self.s_counts[bi, x]
        hb = self.h[:, None, :]
        perm = None
        if order != "last_slot":
            # removal order = descending key: the kind removed first gets the higher keys, and within a
            # kind the later slot goes first (as in last_slot); a removed slot holds no tile any more,
            # so the keys of the slots at entry stay valid for the whole repair
            first = self.s_pmeld if order == "pmeld_first" else self.s_meld
            perm = np.argsort(first[bi, x] * k + np.arange(k), axis=2, kind="stable")
        # Each round handles, in every row at once, the lowest tile that row still over-uses; the tiles
        # below it are settled for good (removals only lower counts), so the rounds visit a row's tiles
        # in ascending order exactly like the paper's per-tile loop, with as many rounds as the worst
        # row has over-used tiles rather than one per tile over-used anywhere in the batch. Removing
        # elements one by one in removal order until the tile fits keeps exactly the elements whose
        # running count in keep order (the reverse) stays within the hand's count: a closed form.
        while True:
            over = c.sum(axis=2) > hb
            rows = over.any(axis=2)
            if not rows.any():
                return c
            t = self.over_used_tile(over)  # rows without one are masked below
            ct = np.take_along_axis(c, t[:, :, None, None], axis=3)[..., 0]
            limit = self.h[bi[:, :, 0], t][:, :, None]  # [b, NP, 1]: the hand's count of that tile
            if perm is None:
                drop = (ct > 0) & (np.cumsum(ct, axis=2) > limit)
            else:
                cs = np.take_along_axis(ct, perm, axis=2)
                drop = np.zeros(ct.shape, dtype=bool)
                np.put_along_axis(drop, perm, (cs > 0) & (np.cumsum(cs, axis=2) > limit), axis=2)
            drop &= rows[:, :, None]
            x[drop] = 0
            c[drop] = 0

    def fitness(self, x: np.ndarray, c: np.ndarray) -> np.ndarray:
        """Eq. 8 with its special cases for x int64[b, NP, k] and its counts c; returns int[b, NP]."""
        k = x.shape[2]
        bi = np.arange(len(x))[:, None, None]
        m = self.s_meld[bi, x].sum(axis=2)
        nn = self.s_pmeld[bi, x].sum(axis=2)
        pair = self.s_pair[bi, x]
        same = (x[:, :, :, None] == x[:, :, None, :]) & pair[:, :, :, None] & pair[:, :, None, :]
        twin_pairs = (same & np.triu(np.ones((k, k), dtype=bool), 1)).any(axis=(2, 3))
        left = self.h[:, None, :] - c.sum(axis=2)
        unpairable = (left > 0).any(axis=2) & ~((left > 0) & (self.h[:, None, :] < 4)).any(axis=2)
        return _fitness_formula(m, nn, pair.any(axis=2), twin_pairs, unpairable, self.melds_needed)


def _run(search: _Search, rng, pop, gens, f_scale, cr, order, clip, half_even, stop) -> np.ndarray:
    b = len(search.h)
    k = search.melds_needed + 1  # slots
    out = np.zeros(b, dtype=np.int32)
    live = np.arange(b)  # hands still searching, in batch order
    x = search.randint(rng, (b, pop, k))
    fit = search.fitness(x, search.repair(x, order))
    others = np.ones((pop, pop), dtype=bool)
    np.fill_diagonal(others, False)
    for _ in range(gens + 1):
        done = fit.min(axis=1) <= stop
        if done.any():
            # a finished hand leaves the batch (selection is elitist, so its best cannot change)
            out[live[done]] = fit[done].min(axis=1)
            keep = ~done
            if not keep.any():
                return out
            live, x, fit, stop, search = live[keep], x[keep], fit[keep], stop[keep], search.take(keep)
        n = len(live)
        bi = np.arange(n)[:, None, None]
        # r1, r2, r3: distinct and different from i (Eq. 9)
        keys = rng.random((n, pop, pop))
        keys[:, ~others] = np.inf
        r = np.argsort(keys, axis=2)[:, :, :3]
        xr = x[bi, r]  # [n, pop, 3, k]
        x1, x2, x3 = xr[:, :, 0], xr[:, :, 1], xr[:, :, 2]
        raw = x1 + f_scale * (x2 - x3)
        # F = 0.5 makes ties frequent, so the tie rule matters (module docstring)
        mutant = (np.round(raw) if half_even else np.floor(raw + 0.5)).astype(np.int64)
        ok = (x1 > 0) & (x2 > 0) & (x3 > 0)
        n_s = search.n_s[:, None, None]
        if clip:
            mutant = np.clip(mutant, 1, np.maximum(n_s, 1))
        else:
            ok &= (mutant >= 1) & (mutant <= n_s)
        v = np.where(ok, mutant, search.randint(rng, (n, pop, k)))
        keep_x = (x > 0) & (rng.random((n, pop, k)) <= cr)  # Eq. 10
        u = np.where(keep_x, x, v)
        fu = search.fitness(u, search.repair(u, order))
        better = fu <= fit  # Eq. 4
        x = np.where(better[:, :, None], u, x)
        fit = np.where(better, fu, fit)
    out[live] = fit.min(axis=1)
    return out
