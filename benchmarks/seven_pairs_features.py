"""What counting seven pairs costs the observation writer, against the same writer without it.

Plays ``--hands`` Sichuan hands with seeded random legal actions, keeps every state, and times
``ObservationSpec.observe`` (the env's per-step call, no memo) on all of them with the ``sichuan``
rules (seven pairs counted in the features) and with the same rules with ``seven_pairs=False`` (the
peer: melds-and-pair only, missing suit as before), alternating the two in each repeat. CPU time of
this process; the best repeat of each is kept. ``--numpy`` times the numpy writer instead of the
compiled one.

    python -m benchmarks.seven_pairs_features --hands 40 --repeats 5
    MJENV_NO_KERNEL=1 python -m benchmarks.seven_pairs_features --hands 10 --repeats 3
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from mjenv.game import Game
from mjenv.observation import ObservationSpec
from mjenv.rules import get_rules


def states(hands: int) -> list:
    """Every state of ``hands`` Sichuan hands played with seeded random legal actions."""
    out = []
    for seed in range(hands):
        g = Game("sichuan", seed=seed)
        rng = np.random.default_rng(seed)
        out.append(g.clone())
        while not g.is_over:
            g.step({s: int(rng.choice(g.legal_actions(s))) for s in g.acting_seats()})
            out.append(g.clone())
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=40)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    games = states(args.hands)
    with_pairs = ObservationSpec("sichuan")
    without = ObservationSpec(dataclasses.replace(get_rules("sichuan"), seven_pairs=False))
    best = {"with seven pairs": float("inf"), "without (peer)": float("inf")}
    for _ in range(args.repeats):
        for name, spec in (("with seven pairs", with_pairs), ("without (peer)", without)):
            t0 = time.process_time()
            for g in games:
                spec.observe(g)
            best[name] = min(best[name], time.process_time() - t0)
    path = "kernel" if with_pairs.compiled else "numpy"
    print(f"path={path} states={len(games)} hands={args.hands} repeats={args.repeats} (best repeat, CPU time)")
    print("| writer | us per observe (4 seats) | ratio to the peer |")
    print("|---|---|---|")
    for name, t in best.items():
        print(f"| {name} | {1e6 * t / len(games):.1f} | {t / best['without (peer)']:.2f}x |")


if __name__ == "__main__":
    main()
