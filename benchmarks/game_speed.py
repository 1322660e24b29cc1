"""Speed of the pure game engine (``mjenv.game``), each figure against a peer measured in the same run.

1. Full hands per second, random legal play (Python ``random.choice`` over ``legal_actions``; no
   observations), with the game's memoised win check against the same engine whose win check calls
   ``mjenv.deficiency.is_complete`` directly (the peer).
2. ``Game.clone()`` against ``copy.deepcopy(game)`` and against rebuilding the state by
   ``mjenv.game.replay(game.log, steps=k)``, on mid-hand states.
3. The win check alone on the hands met in play: ``mjenv.game.is_winning`` (memoised per suit
   pattern, what the engine uses) against ``mjenv.deficiency.is_complete``.

Times are CPU seconds of this process (``time.process_time``), so other load on a shared machine
inflates them less than wall time would. The hands benchmark starts from a fresh process (cold
memo) after 20 warm-up hands.

Usage::

    .venv/bin/python -m benchmarks.game_speed            # about a minute on 2 shared cores
    .venv/bin/python -m benchmarks.game_speed --quick
"""

from __future__ import annotations

import argparse
import copy
import random
import time

import numpy as np

from mjenv.deficiency import is_complete
from mjenv.game import Game, is_winning, replay
from mjenv.game import engine as engine_module


def play(n: int, rules: str, seed: int) -> int:
    """Play ``n`` random hands; returns the number of steps."""
    rnd = random.Random(seed)
    steps = 0
    for h in range(n):
        g = Game(rules, seed=seed + h)
        while not g.is_over:
            g.step({s: rnd.choice(g.legal_actions(s)) for s in g.acting_seats()})
            steps += 1
    return steps


def timed(fn, *args) -> tuple[float, object]:
    # CPU time of this process: on a shared machine, wall time mostly measures the neighbours
    t = time.process_time()
    out = fn(*args)
    return time.process_time() - t, out


def bench_hands(n: int, rules: str) -> None:
    play(20, rules, 999)  # warm the memo as a long-running process would be
    dt, steps = timed(play, n, rules, 0)
    fast = n / dt

    def slow_check(counts: bytes, seven_pairs: bool = False) -> bool:
        hand = np.frombuffer(counts, dtype=np.int8)
        n_tiles = int(hand.sum())
        return n_tiles % 3 == 2 and bool(is_complete(hand))

    original = engine_module.is_winning_bytes
    engine_module.is_winning_bytes = slow_check
    try:
        m = max(n // 10, 5)
        dt_slow, _ = timed(play, m, rules, 0)
    finally:
        engine_module.is_winning_bytes = original
    slow = m / dt_slow
    print(f"[hands] {rules}: {fast:8.1f} hands/s ({steps / n:.0f} steps/hand, {dt / steps * 1e6:.1f} us/step)")
    print(f"[hands] {rules}: peer (win check = is_complete): {slow:8.1f} hands/s  ratio {fast / slow:.1f}x")


def mid_states(n: int, rules: str) -> list[Game]:
    rnd = random.Random(5)
    out = []
    for h in range(n):
        g = Game(rules, seed=h)
        stop = rnd.randrange(10, 60)
        for _ in range(stop):
            if g.is_over:
                break
            g.step({s: rnd.choice(g.legal_actions(s)) for s in g.acting_seats()})
        out.append(g)
    return out


def bench_clone(n: int, rules: str) -> None:
    states = mid_states(n, rules)
    reps = 20
    dt_clone, _ = timed(lambda: [g.clone() for _ in range(reps) for g in states])
    dt_deep, _ = timed(lambda: [copy.deepcopy(g) for _ in range(2) for g in states])
    logs = [(g.log, len(g.log["steps"])) for g in states]
    dt_replay, _ = timed(lambda: [replay(log, steps=k) for log, k in logs])
    per_clone = dt_clone / (reps * n) * 1e6
    per_deep = dt_deep / (2 * n) * 1e6
    per_replay = dt_replay / n * 1e6
    print(f"[clone] {rules}: clone() {per_clone:.1f} us")
    print(f"[clone] {rules}: peer copy.deepcopy {per_deep:.1f} us  ratio {per_deep / per_clone:.1f}x")
    print(f"[clone] {rules}: peer replay(log, steps=k) {per_replay:.1f} us  ratio {per_replay / per_clone:.1f}x")


def bench_win_check(n: int) -> None:
    rng = np.random.default_rng(0)
    hands = []
    for h in range(n):
        g = Game("basic", seed=h)
        while not g.is_over:
            hands.append(g.hands[g.current_player].copy())
            g.step({s: int(rng.choice(g.legal_actions(s))) for s in g.acting_seats()})
    hands = [x for x in hands if x.sum() % 3 == 2]
    for x in hands:  # warm the memo once
        is_winning(x)
    dt_fast, fast = timed(lambda: [is_winning(x) for x in hands])
    sub = hands[: max(len(hands) // 10, 1)]
    dt_slow, slow = timed(lambda: [bool(is_complete(x)) for x in sub])
    assert fast[: len(sub)] == slow, "win checks disagree"
    per_fast = dt_fast / len(hands) * 1e6
    per_slow = dt_slow / len(sub) * 1e6
    print(f"[win] is_winning {per_fast:.2f} us/hand over {len(hands)} hands met in play")
    print(f"[win] peer is_complete {per_slow:.1f} us/hand  ratio {per_slow / per_fast:.1f}x (answers agree)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (smoke run)")
    args = ap.parse_args()
    n = 30 if args.quick else 300
    for rules in ("basic", "honours"):
        bench_hands(n, rules)
    bench_clone(20 if args.quick else 100, "basic")
    bench_win_check(5 if args.quick else 40)


if __name__ == "__main__":
    main()
