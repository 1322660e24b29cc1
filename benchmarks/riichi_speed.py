"""Riichi on mjenv's compiled engine against RiichiEnv (Rust), in one run: hands and games per CPU-second.

Every env plays with uniformly random legal actions and builds its observations:

* ``riichienv hand``: ``RiichiEnv("4p-red-single", skip_mjai_logging=True)``, one hand per episode; every
  observation it returns is encoded (``obs.encode()``) and a random legal action is picked for every seat
  that has one. ``riichienv hanchan``: the same on ``"4p-red-half"`` (an East-South game per episode).
* ``mjenv parallel``: ``mjenv.parallel_env(rules="riichi", episode=...)`` with a lean loop (actions only for
  the seats whose ``infos[agent]["needs_action"]`` is true; the others pass when left out); all four
  observations are built every step.
* ``mjenv vector N``: ``mjenv.vector_env(N, rules="riichi", episode=...)`` stepped with one random legal
  action per seat (drawn in the timed loop from the masks). Its hands (games) per second are its
  table-steps per second divided by the parallel env's steps per hand (game) in the same run (the episodes
  that end inside a vector run are biased toward short ones).
* ``engine=python`` rows: the same on the Python engine (the reference), with fewer steps.
* ``[when_possible]`` rows: the parallel and vector rows with ``claim_window="when_possible"``, the NON-DEFAULT
  option (a claim window only when some seat can claim: fewer steps, but a seat learns when an opponent can
  claim); their hands per second divide by their own steps per hand. The targets are the default's
  (``claim_window="always"``); these ratios are printed apart (``--no-when-possible`` leaves the rows out).

Rates are per CPU-second of this process (``time.process_time``). The machine is shared: run it a few times
and read the ratios, which compare envs timed in the same run.

Run: ``python -m benchmarks.riichi_speed`` (``--repeat 3`` repeats every row and prints each ratio's range;
``--threads 2`` adds ``vector_env(64, num_threads=k)`` rows timed per wall-second, hands of one hand each, and the
ratio to one thread).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from benchmarks._timing import lean_loop


def run_riichienv(mode: str, episodes: int, seed: int) -> tuple[int, int]:
    """(episodes, steps) of RiichiEnv in game mode ``mode``."""
    from riichienv import RiichiEnv

    env = RiichiEnv(game_mode=mode, skip_mjai_logging=True, seed=seed)
    rnd = random.Random(seed).random
    steps = 0
    for _ in range(episodes):
        obs = env.reset()
        while not env.done():
            acts = {}
            for pid, o in obs.items():
                o.encode()
                legal = o.legal_actions()
                if legal:
                    acts[pid] = legal[int(rnd() * len(legal))]
            obs = env.step(acts)
            steps += 1
    return episodes, steps


def run_parallel(episode: str, episodes: int, seed: int, engine: str = "auto",
                 claim_window: str = "always") -> tuple[int, int]:
    """(episodes, steps) of ``parallel_env(rules="riichi")`` with the lean loop."""
    import mjenv

    env = mjenv.parallel_env(rules="riichi", episode=episode, engine=engine, claim_window=claim_window)
    return lean_loop(env, episodes, seed)


def run_vector(n: int, episode: str, table_steps: int, seed: int, engine: str = "auto",
               num_threads: int = 1, clock=time.process_time, claim_window: str = "always") -> tuple[float, int]:
    """(seconds of ``clock``: CPU by default, table-steps) of ``vector_env(n, rules="riichi")`` after a warm-up."""
    import mjenv

    env = mjenv.vector_env(n, rules="riichi", episode=episode, engine=engine, num_threads=num_threads,
                           claim_window=claim_window)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = max(1, table_steps // n)
    for _ in range(steps // 10 + 1):  # warm-up (the kernel's tables, the first hands)
        masks = obs["action_mask"]
        acts = (np.cumsum(masks, axis=2) <= rng.random((n, 4, 1)) * masks.sum(axis=2, keepdims=True)).sum(axis=2)
        obs = env.step(acts)[0]
    t0 = clock()
    for _ in range(steps):
        masks = obs["action_mask"]
        acts = (np.cumsum(masks, axis=2) <= rng.random((n, 4, 1)) * masks.sum(axis=2, keepdims=True)).sum(axis=2)
        obs = env.step(acts)[0]
    return clock() - t0, steps * n


def measure(a) -> dict[str, tuple[float, float]]:
    """name -> (episodes per CPU-second, steps per episode) of one pass over every row."""
    rows: dict[str, tuple[float, float]] = {}

    def single(name, fn, count):
        fn(1, a.seed + 10_000)  # warm-up
        t0 = time.process_time()
        eps, steps = fn(count, a.seed)
        dt = time.process_time() - t0
        rows[name] = (eps / dt, steps / eps)

    for ep, mode, count in (("hand", "4p-red-single", a.hands), ("hanchan", "4p-red-half", a.games)):
        single(f"riichienv {ep}", lambda k, s, mode=mode: run_riichienv(mode, k, s), count)
        single(f"mjenv parallel {ep}", lambda k, s, ep=ep: run_parallel(ep, k, s), count)
        per = rows[f"mjenv parallel {ep}"][1]
        for n in a.tables:
            dt, ts = run_vector(n, ep, a.table_steps, a.seed)
            rows[f"mjenv vector {n} {ep}"] = (ts / dt / per, per)
        if a.python:
            dt, ts = run_vector(16, ep, a.table_steps // 40, a.seed, engine="python")
            rows[f"engine=python vector 16 {ep}"] = (ts / dt / per, per)
        if a.when_possible:  # the non-default option, per its own steps per episode
            name = f"mjenv parallel {ep} {WP}"
            single(name, lambda k, s, ep=ep: run_parallel(ep, k, s, claim_window="when_possible"), count)
            per = rows[name][1]
            for n in a.tables:
                dt, ts = run_vector(n, ep, a.table_steps, a.seed, claim_window="when_possible")
                rows[f"mjenv vector {n} {ep} {WP}"] = (ts / dt / per, per)
    for k in sorted({1, *a.threads}) if a.threads else ():  # table-steps per wall-second, by threads
        dt, ts = run_vector(64, "hand", a.table_steps, a.seed, num_threads=k, clock=time.perf_counter)
        rows[f"wall: vector 64 hand, {k} threads"] = (ts / dt / rows["mjenv parallel hand"][1], 0.0)
    return rows


TARGETS = (("mjenv parallel hand", "riichienv hand", 1.0), ("mjenv vector 64 hand", "riichienv hand", 2.0),
           ("mjenv parallel hanchan", "riichienv hanchan", 1.0), ("mjenv vector 64 hanchan", "riichienv hanchan", 1.0))
#: the label of the rows with ``claim_window="when_possible"`` (not the default; it leaks, see the docstring)
WP = "[when_possible]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200, help="hands per one-hand run (RiichiEnv and parallel_env)")
    ap.add_argument("--games", type=int, default=6, help="games per hanchan run (RiichiEnv and parallel_env)")
    ap.add_argument("--table-steps", type=int, default=64_000, help="table-steps per vector-env run")
    ap.add_argument("--tables", type=int, nargs="+", default=[64])
    ap.add_argument("--repeat", type=int, default=1, help="passes over every row (ranges of the ratios)")
    ap.add_argument("--python", action="store_true", help="also time the Python engine's vector env")
    ap.add_argument("--threads", type=int, nargs="*", default=[],
                    help="also time vector_env(64, num_threads=k) per wall-second for these k (and 1)")
    ap.add_argument("--no-when-possible", dest="when_possible", action="store_false",
                    help="leave out the rows of the non-default claim_window='when_possible'")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    passes = []
    for r in range(a.repeat):
        rows = measure(a)
        passes.append(rows)
        print(f"pass {r + 1}: {'env':<42} {'episodes/s':>10} {'steps/episode':>13}")
        for name, (eps, per) in rows.items():
            print(f"        {name:<42} {eps:>10,.1f} {per:>13.1f}")
    print("\n(episodes per CPU-second: hands for 'hand', games for 'hanchan'; vector rows: table-steps/s divided by "
          "the parallel env's steps per episode)")
    print("must show (ratio in the same pass; min-max over passes):")
    for ours, peer, want in TARGETS:
        ratios = [p[ours][0] / p[peer][0] for p in passes if ours in p and peer in p]
        if ratios:
            print(f"  {ours:<26} / {peer:<18} = {min(ratios):.2f}-{max(ratios):.2f}x (target >= {want}x)")
    if a.when_possible:
        print("NOT the default: claim_window='when_possible' (a window only when some seat can claim: fewer steps, "
              "but it leaks that an opponent can claim; the targets above are the default's):")
        for ours, peer, _ in TARGETS:
            ratios = [p[f"{ours} {WP}"][0] / p[peer][0] for p in passes if f"{ours} {WP}" in p and peer in p]
            if ratios:
                print(f"  {ours + ' ' + WP:<42} / {peer:<18} = {min(ratios):.2f}-{max(ratios):.2f}x")
    one = "wall: vector 64 hand, 1 threads"
    for k in sorted(a.threads):
        if k != 1:
            ratios = [p[f"wall: vector 64 hand, {k} threads"][0] / p[one][0] for p in passes]
            print(f"  wall-seconds, num_threads={k} / num_threads=1 = {min(ratios):.2f}-{max(ratios):.2f}x "
                  f"(target for 2 threads on 2 cores >= 1.6x)")


if __name__ == "__main__":
    main()
