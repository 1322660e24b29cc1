"""One-tile feature rows: ``dp.deficiency_one_tile_rows`` against building the rows for ``dp.deficiency_batch``.

The feature rows "draw t" (H + t, KB - t) and "discard t" (H - t) of a hand differ from it in one
tile. Both contenders compute, for the same random 13/14-tile hands with random knowledge bases,
the deficiency now, after every draw the KB allows and after every discard, and must agree exactly
(checked before timing). Rates are rows per CPU-second of this process (best of the repeats) and
the ratio of the one-tile path to the row-by-row path.

Run: ``python benchmarks/one_tile_rows_speed.py --sizes 4 64 1000``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mjenv.deficiency import dp


def _hands(n: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """n random hands (13 or 14 tiles of the 27 suit tiles) with KBs after 10-60 seen tiles."""
    rng = np.random.default_rng(seed)
    hands, kbs = [], []
    for i in range(n):
        wall = rng.permutation(np.repeat(np.arange(27), 4))
        size = 13 + i % 2
        h = np.bincount(wall[:size], minlength=27)
        seen = np.bincount(wall[size : size + int(rng.integers(10, 61))], minlength=27)
        hands.append(h)
        kbs.append(4 - h - seen)
    return np.array(hands, np.int8), np.array(kbs, np.int8), np.full(n, 4, np.int64)


def row_by_row(hands, kbs, needed):
    """The modified hands built explicitly and evaluated in one ``deficiency_batch`` call."""
    n, t = hands.shape
    db, dt = np.nonzero(kbs > 0)
    xb, xt = np.nonzero(hands > 0)
    hh = np.concatenate([hands, hands[db], hands[xb]]).astype(np.int16)
    kk = np.concatenate([kbs, kbs[db], kbs[xb]]).astype(np.int16)
    r = n + np.arange(len(db))
    hh[r, dt] += 1
    kk[r, dt] -= 1
    hh[n + len(db) + np.arange(len(xb)), xt] -= 1
    vals = dp.deficiency_batch(hh.astype(np.int8), kk.astype(np.int8), np.concatenate([needed, needed[db], needed[xb]]))
    draw = np.full((n, t), -1, np.int32)
    disc = np.full((n, t), -1, np.int32)
    draw[db, dt] = vals[n : n + len(db)]
    disc[xb, xt] = vals[n + len(db) :]
    return vals[:n], draw, disc


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", type=int, nargs="+", default=[4, 64, 1000], help="hands per call")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    warm = _hands(8, a.seed)
    row_by_row(*warm)
    dp.deficiency_one_tile_rows(*warm)  # tables built before timing
    print("| hands per call | rows per call | row-by-row rows/s (CPU) | one-tile rows/s (CPU) | ratio |")
    print("|---|---|---|---|---|")
    for n in a.sizes:
        args = _hands(n, a.seed + n)
        ref = row_by_row(*args)
        got = dp.deficiency_one_tile_rows(*args)
        assert all((x == y).all() for x, y in zip(ref, got)), "the two paths disagree"
        rows = n + int((args[1] > 0).sum()) + int((args[0] > 0).sum())
        loops = max(1, 3000 // n)
        rates = []
        for fn in (row_by_row, dp.deficiency_one_tile_rows):
            best = float("inf")
            for _ in range(a.repeats):
                t0 = time.process_time()
                for _ in range(loops):
                    fn(*args)
                best = min(best, (time.process_time() - t0) / loops)
            rates.append(rows / best)
        print(f"| {n} | {rows} | {rates[0]:,.0f} | {rates[1]:,.0f} | {rates[1] / rates[0]:.2f}x |")


if __name__ == "__main__":
    main()
