"""Game steps per CPU-second of the compiled batched step against the Python engine, same run.

Engine only (no observations, no env): ``mjenv.game.batch.BatchGames(N)`` advances N tables per C
call; the peer is a loop over N Python ``Game``s. Both play the same deals (dealt by the Python
engine, table seeds seed, seed + 1, ...) with the same actions: a uniformly random legal action per
acting seat, drawn once per step for all tables (argmax of i.i.d. uniforms over the legal mask), so the
action draw costs the same for both and is timed with them. Rates are per CPU-second of this process.

This measures the batched step; RiichiEnv, pymahjong and RLCard are not in
this comparison because they cannot be run without their observation encoders: the env-level
comparison with them is ``benchmarks/vector_speed.py`` / ``benchmarks/env_speed.py``, whose envs do not
run on this step yet.

Run: ``python -m benchmarks.batch_step_speed --steps 300``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mjenv.game import batch
from mjenv.game.engine import Game


def _actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """int64[N, 4]: a random legal action per seat of masks int8[N, 4, A]."""
    return np.argmax(np.where(masks > 0, rng.random(masks.shape), -1.0), axis=-1)


def run(num_tables: int, steps: int, seed: int, rules: str, compiled: bool) -> tuple[float, int, int]:
    """(CPU seconds, table-steps, hands finished) over ``steps`` steps of N tables."""
    games = [Game(rules, seed=seed + i) for i in range(num_tables)]
    bg = batch.BatchGames(rules, num_tables) if compiled else None
    if bg is not None:
        for i, g in enumerate(games):
            bg.load(i, g)
    rng = np.random.default_rng(seed)
    next_seed = seed + num_tables
    hands = 0
    t0 = time.process_time()
    for _ in range(steps):
        if bg is not None:
            acts = _actions(bg.masks, rng)
            bg.step(acts)
            over = np.flatnonzero(bg.scalars[:, 0] == 3)
            for i in over:  # resets are rare: deal in Python, as the env would
                bg.load(int(i), Game(rules, seed=next_seed))
                next_seed += 1
            hands += over.size
        else:
            acts = _actions(np.stack([g.legal_action_masks() for g in games]), rng)
            for i, g in enumerate(games):
                g.step(acts[i].tolist())
                if g.is_over:
                    games[i] = Game(rules, seed=next_seed)
                    next_seed += 1
                    hands += 1
    return time.process_time() - t0, steps * num_tables, hands


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300, help="steps per table count")
    p.add_argument("--tables", type=int, nargs="+", default=[1, 16, 64, 256])
    p.add_argument("--rules", default="basic")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    print(f"rules={a.rules} steps={a.steps} (CPU time of this process)")
    print(f"{'N':>5} {'python steps/s':>15} {'compiled steps/s':>17} {'ratio':>6} {'compiled hands/s':>17}")
    for n in a.tables:
        tp, sp, _ = run(n, a.steps, a.seed, a.rules, compiled=False)
        tc, sc, hc = run(n, a.steps, a.seed, a.rules, compiled=True)
        print(f"{n:>5} {sp / tp:>15,.0f} {sc / tc:>17,.0f} {tp / sp / (tc / sc):>5.1f}x {hc / tc:>17,.0f}")


if __name__ == "__main__":
    main()
