"""Cost of ``Rules.claim_window="always"`` (the default) against ``"when_possible"``, in one run.

``"always"`` follows every discard and every added kong with a claim window, also when nobody can
claim, so that the steps a seat sees reveal nothing about other hands; ``"when_possible"`` skips those
empty windows (fewer steps, but it leaks). Both modes play the same deals (seeds) with seeded
masked-random play (the play itself differs: the extra steps draw from the policy's generator too),
alternating round by round so that the neighbours' load hits both alike:

* ``game``: ``mjenv.game.Game`` alone (no observations).
* ``env``: ``mjenv.parallel_env()`` with the default observation (all four seats observed per step).

Figures are per CPU second of this process (``time.process_time``). The printed ratio is
always / when_possible (below 1: the default is slower).

Usage::

    python -m benchmarks.claim_window_speed --hands 30
"""

from __future__ import annotations

import argparse
import time

import numpy as np

MODES = ("always", "when_possible")


def play_game(mode: str, hands: int, seed: int) -> int:
    """Whole hands of the pure game under ``mode``; returns the steps taken."""
    from mjenv.game import Game

    rules = {"name": "basic", "claim_window": mode}
    rng = np.random.default_rng(seed)
    steps = 0
    for h in range(hands):
        g = Game(rules, seed=seed + h)
        while not g.is_over:
            g.step({s: int(rng.choice(g.legal_actions(s))) for s in g.acting_seats()})
            steps += 1
    return steps


def play_env(mode: str, hands: int, seed: int) -> int:
    """Whole hands of the parallel env under ``mode``; returns the steps taken."""
    import mjenv

    env = mjenv.parallel_env(rules={"name": "basic", "claim_window": mode})
    rng = np.random.default_rng(seed)
    steps = 0
    for h in range(hands):
        obs, _ = env.reset(seed=seed + h)
        while env.agents:
            obs, *_ = env.step({a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents})
            steps += 1
    return steps


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=30, help="hands per mode and layer (game: 20x as many)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds the hands are split into")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.hands < 1 or args.rounds < 1:
        raise ValueError(f"--hands and --rounds must be >= 1, got {args.hands}, {args.rounds}")
    layers = {"game": (play_game, 20 * args.hands), "env": (play_env, args.hands)}
    for fn, _ in layers.values():  # warm-up: imports, tables, the win-check memo
        for mode in MODES:
            fn(mode, 2, 10_000)
    print(f"{'layer':6} {'claim_window':14} {'hands':>6} {'steps':>7} {'CPU s':>7} {'hands/s':>9} {'steps/hand':>10}")
    for layer, (fn, hands) in layers.items():
        per = max(1, hands // args.rounds)
        cpu = dict.fromkeys(MODES, 0.0)
        steps = dict.fromkeys(MODES, 0)
        done = 0
        for r in range(args.rounds):
            for mode in MODES if r % 2 == 0 else MODES[::-1]:
                t0 = time.process_time()
                steps[mode] += fn(mode, per, args.seed + r * per)
                cpu[mode] += time.process_time() - t0
            done += per
        rate = {m: done / cpu[m] for m in MODES}
        for m in MODES:
            print(f"{layer:6} {m:14} {done:6d} {steps[m]:7d} {cpu[m]:7.2f} {rate[m]:9.1f} {steps[m] / done:10.1f}")
        print(f"{layer:6} ratio always / when_possible: hands/s x{rate['always'] / rate['when_possible']:.2f}, "
              f"steps/hand x{steps['always'] / steps['when_possible']:.2f}")


if __name__ == "__main__":
    main()
