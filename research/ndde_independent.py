"""A second, minimal NDDE written straight from the paper's text, to bisect against ``mjenv.deficiency.ndde``.

Plain Python, one hand and one individual at a time, no code shared with
``ndde.py`` except the hand sets and the exact truth (``research.ndde_tables``). Every rule the paper
leaves open is a switch of :class:`Opts`, so two readings can be compared on the same hands and seeds.

Paper: Yan and Li (2023), Mathematics 11, 2135. Sec. 3.1 (set S, Cases 1-5), Sec. 3.2.1 (Eqs. 6-7),
Sec. 3.2.2 (repair), Sec. 3.2.3 (Eq. 8 and its two special cases), Sec. 3.2.4 (Eqs. 9-10, Eq. 4),
Algorithm 1 (``while g <= G_max``), Sec. 4.1 (a run stops at the known true deficiency).

What it showed (2,000 uniform one-suit hands, one run each; ``research/notes/bench/paper_tables.md``, "How the gap
was found"): set to ``ndde``'s rules before the tile-order fix it scores what ``ndde`` scored, so the gap to
the paper's Tables 1 and 3 was a reading of the paper, not a bug; of the readings in :data:`READINGS`
only building S Case by Case (Sec. 3.1 leaves S's index order open) lifts every one-suit cell to the
paper's level, which made it ``ndde``'s default (with ties to even and clipping).

Usage: ``python -m research.ndde_independent [hands] [reading ...]`` (readings by their name in
:data:`READINGS`; default all).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass

import numpy as np

PCHOW, CHOW, PAIR, PONG = "pchow", "chow", "pair", "pong"


@dataclass(frozen=True)
class Opts:
    """The open rules; the defaults are ``mjenv.deficiency.ndde``'s defaults before the tile-order fix."""

    repair: str = "pmeld_first"  # pmeld_first | meld_first | last_slot | first_slot
    within: str = "last"  # within a kind: later slot first ("last") or earlier ("first")
    oor: str = "redraw"  # out-of-range mutant: redraw | clip
    rnd: str = "up"  # Eq. 9 round: up (ties upwards) | even (Python round)
    edge_few: bool = False  # Case 1: a missing neighbour (rank 0 or 10) counts as "fewer than four"
    sc2: str = "all"  # special case 2: all leftovers unpairable | any | none
    # Eq. 4 between x and u ("xu"); Algorithm 1 line 12 literally: v and u ("vu"); best of x, v, u ("xvu")
    select: str = "xu"
    donors: str = "individual"  # r1, r2, r3 once per individual, or afresh for every slot ("slot")
    s_order: str = "tile"  # S built tile by tile (Cases 1..5 per tile) or case by case ("case": tiles inside)


def element_set(h: list[int], o: Opts) -> list[tuple[str, tuple[int, ...]]]:
    """Sec. 3.1: for each distinct tile X_i ascending, Cases 1..5 in turn (suited tiles only)."""
    s = []
    tiles = [t for t in range(27) if h[t]]
    if o.s_order == "case":
        per_case = [[] for _ in range(5)]
        for t in tiles:
            for c, e in enumerate(_cases(h, t, o)):
                if e is not None:
                    per_case[c].append(e)
        return [e for block in per_case for e in block]
    for t in tiles:
        s.extend(e for e in _cases(h, t, o) if e is not None)
    return s


def _cases(h: list[int], t: int, o: Opts) -> list:
    """Cases 1..5 of Sec. 3.1 for tile t: the element each adds, or None."""
    out = [None] * 5

    def cnt(suit: int, r: int) -> int | None:
        return h[9 * suit + r] if 0 <= r <= 8 else None

    suit, r = divmod(t, 9)
    nxt1, nxt2, prv = cnt(suit, r + 1), cnt(suit, r + 2), cnt(suit, r - 1)

    def few(c):
        return (c is None and o.edge_few) or (c is not None and c < 4)

    if nxt1 and (few(prv) or few(nxt2)):  # Case 1
        out[0] = (PCHOW, (t, t + 1))
    if nxt2 and few(nxt1):  # Case 2
        out[1] = (PCHOW, (t, t + 2))
    if nxt1 and nxt2:  # Case 3
        out[2] = (CHOW, (t, t + 1, t + 2))
    if h[t] >= 2:  # Case 4 ("more than two" read as at least two, as the paper's examples use it)
        out[3] = (PAIR, (t, t))
    if h[t] >= 3:  # Case 5
        out[4] = (PONG, (t, t, t))
    return out


def repair(x: list[int], s, h, o: Opts) -> list[int]:
    """Sec. 3.2.2 on a copy of x (1-based indices, 0 empty)."""
    x = list(x)
    used = [0] * 27
    for v in x:
        if v:
            for t in s[v - 1][1]:
                used[t] += 1
    sp = sorted({t for v in x if v for t in s[v - 1][1]})
    for t in sp:
        while used[t] > h[t]:
            cand = [j for j, v in enumerate(x) if v and t in s[v - 1][1]]
            if o.repair == "last_slot":
                j = cand[-1]
            elif o.repair == "first_slot":
                j = cand[0]
            else:
                want_meld = o.repair == "meld_first"
                pref = [j for j in cand if (s[x[j] - 1][0] in (CHOW, PONG)) == want_meld] or cand
                j = pref[-1] if o.within == "last" else pref[0]
            for tt in s[x[j] - 1][1]:
                used[tt] -= 1
            x[j] = 0
    return x


def fitness(x: list[int], s, h, o: Opts) -> int:
    """Eq. 8 with the two special cases (Sec. 3.2.3)."""
    els = [s[v - 1] for v in x if v]
    m = sum(k in (CHOW, PONG) for k, _ in els)
    n = len(els) - m
    pairs = [e for k, e in els if k == PAIR]
    if m + n == 5:
        f = 4 - m if pairs else 5 - m
        if len(pairs) != len(set(pairs)):
            f += 1
    else:
        f = 9 - 2 * m - n
    if m == 4 and n == 0 and o.sc2 != "none":
        used = [0] * 27
        for _, e in els:
            for t in e:
                used[t] += 1
        left = [t for t in range(27) if h[t] - used[t] > 0]
        bad = [h[t] >= 4 for t in left]
        if left and (all(bad) if o.sc2 == "all" else any(bad)):
            f = 2
    return f


def ndde_run(h: list[int], truth: int, pop: int, gmax: int, rng: random.Random, o: Opts) -> int:
    """One run of Algorithm 1; returns the best fitness (stopped once it reaches ``truth``)."""
    s = element_set(h, o)
    ns = len(s)
    if ns == 0:
        return fitness([0] * 5, s, h, o)

    def evaluate(x):
        xr = repair(x, s, h, o)
        return xr, fitness(xr, s, h, o)

    popn, fit = [], []
    for _ in range(pop):
        xr, f = evaluate([rng.randint(1, ns) for _ in range(5)])  # Eq. 6
        popn.append(xr)
        fit.append(f)
    best = min(fit)
    g = 0
    while g <= gmax:
        if best <= truth:
            break
        for i in range(pop):
            others = [k for k in range(pop) if k != i]
            r1, r2, r3 = rng.sample(others, 3)
            a, b, c = popn[r1], popn[r2], popn[r3]
            v = []
            for j in range(5):
                if o.donors == "slot" and j:
                    r1, r2, r3 = rng.sample(others, 3)
                    a, b, c = popn[r1], popn[r2], popn[r3]
                if a[j] and b[j] and c[j]:
                    raw = a[j] + 0.5 * (b[j] - c[j])
                    if o.rnd == "up":
                        mv = int(np.floor(raw + 0.5))
                    elif o.rnd == "down":
                        mv = int(np.ceil(raw - 0.5))
                    elif o.rnd == "odd":  # Python's round on 0-based indices
                        mv = round(raw - 1) + 1
                    else:
                        mv = round(raw)
                    if not 1 <= mv <= ns:
                        mv = min(max(mv, 1), ns) if o.oor == "clip" else rng.randint(1, ns)
                    v.append(mv)
                else:
                    v.append(rng.randint(1, ns))
            x = popn[i]
            u = [x[j] if x[j] and rng.random() <= 0.5 else v[j] for j in range(5)]  # Eq. 10
            ur, fu = evaluate(u)
            if o.select == "xu":
                if fu <= fit[i]:  # Eq. 4, in place (the screen of ndde_tables found in-place = synchronous)
                    popn[i], fit[i] = ur, fu
            else:
                vr, fv = evaluate(v)
                best = min(best, fv)
                cands = [(fu, ur), (fv, vr)] + ([(fit[i], x)] if o.select == "xvu" else [])
                fit[i], popn[i] = min(cands, key=lambda c: c[0])
            best = min(best, fu)
        g += 1
    return best


READINGS = {
    "mirror of ndde.py before ndde4": Opts(),
    "select v vs u": Opts(select="vu"),
    "select best of x, v, u": Opts(select="xvu"),
    "donors per slot": Opts(donors="slot"),
    "S case by case": Opts(s_order="case"),
    "round ties down": Opts(rnd="down"),
    "round 0-based half-even": Opts(rnd="odd"),
    "S case by case + clip + half-even (ndde.py now)": Opts(s_order="case", oor="clip", rnd="even"),
    "edge counts as few": Opts(edge_few=True),
    "sc2 any": Opts(sc2="any"),
    "sc2 none": Opts(sc2="none"),
    "round half-even": Opts(rnd="even"),
}


def main(argv: list[str] | None = None) -> int:
    from research import ndde_tables as nt

    argv = sys.argv[1:] if argv is None else argv
    n = int(argv[0]) if argv else 1000
    names = argv[1:] or list(READINGS)
    hands = nt.one_suit_sample(np.random.default_rng(5), n)
    truth = nt._truth(hands)
    cells = ((20, 10), (10, 10), (20, 50))
    print(f"{n} uniform one-suit hands, one run each; cells {cells}; paper 56.24 / 40.25 / 93.33")
    for name in names:
        o = READINGS[name]
        row = []
        for pop, g in cells:
            rng = random.Random(1)
            ok = np.array([ndde_run(hands[i].tolist(), int(truth[i]), pop, g, rng, o) == truth[i] for i in range(n)])
            p = ok.mean()
            row.append(f"{100 * p:.2f} ± {196 * (p * (1 - p) / n) ** 0.5:.2f}")
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
