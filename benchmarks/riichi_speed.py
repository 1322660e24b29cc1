"""Riichi on mjenv's compiled engine against RiichiEnv (Rust), in one run: hands and games per CPU-second.

Every env plays with uniformly random legal actions and builds its observations:

* ``riichienv hand``: ``RiichiEnv("4p-red-single", skip_mjai_logging=True)``, one hand per episode; every
  observation it returns is encoded (``obs.encode()``) and a random legal action is picked for every seat
  that has one. ``riichienv hanchan``: the same on ``"4p-red-half"`` (an East-South game per episode).
* ``mjenv parallel``: ``mjenv.parallel_env(rules="riichi", episode=...)`` with a lean loop (actions only for
  the seats whose ``infos[agent]["needs_action"]`` is true; the others pass when left out); all four
  observations are built every step.
* ``mjenv vector N``: ``mjenv.vector_env(N, rules="riichi", episode=...)`` stepped with one random legal
  action per seat (drawn in the timed loop from the masks: ``benchmarks._timing.uniform_legal``).
  Its hands (games) per second are its table-steps per second divided by the parallel env's steps per hand (game)
  in the same run (the episodes that end inside a vector run are biased toward short ones).
* ``engine=python`` rows: the same on the Python engine (the reference), with fewer steps.
* rows of the NON-DEFAULT options, each with its own steps per hand: ``[when_possible]``
  (``claim_window="when_possible"``: a claim window only when some seat can claim: fewer steps, but a seat learns
  when an opponent can claim), ``[acting]`` (``observers="acting"``: only the seats that must act are observed, as
  RiichiEnv builds only the acting players' observations), ``[raw]`` (``observation="raw"``: no deficiency features
  or per-discard facts; RiichiEnv's ``encode()`` has neither) and their combinations (``[when_possible+acting]`` is
  RiichiEnv's semantics). The targets are the defaults'; these ratios are printed apart (``--no-options`` leaves
  the rows out).

Rates are per CPU-second of this process (``time.process_time``). The machine is shared: run it a few times
and read the ratios, which compare envs timed in the same run.

Run: ``python -m benchmarks.riichi_speed`` (``--repeat 3`` repeats every row and prints each ratio's range;
``--threads 2`` adds ``vector_env(64, num_threads=k)`` rows timed per wall-second, hands of one hand each, and the
ratio to one thread; ``--plot FILE.png`` draws every ratio's range against its target).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from benchmarks._timing import lean_loop, uniform_legal


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


def run_parallel(episode: str, episodes: int, seed: int, engine: str = "auto", **options) -> tuple[int, int]:
    """(episodes, steps) of ``parallel_env(rules="riichi", **options)`` with the lean loop."""
    import mjenv

    env = mjenv.parallel_env(rules="riichi", episode=episode, engine=engine, **options)
    return lean_loop(env, episodes, seed)


def run_vector(n: int, episode: str, table_steps: int, seed: int, engine: str = "auto",
               num_threads: int = 1, clock=time.process_time, **options) -> tuple[float, int]:
    """(seconds of ``clock``: CPU by default, table-steps) of ``vector_env(n, rules="riichi", **options)`` after a
    warm-up."""
    import mjenv

    env = mjenv.vector_env(n, rules="riichi", episode=episode, engine=engine, num_threads=num_threads, **options)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = max(1, table_steps // n)
    for _ in range(steps // 10 + 1):  # warm-up (the kernel's tables, the first hands)
        obs = env.step(uniform_legal(obs["action_mask"], rng))[0]
    t0 = clock()
    for _ in range(steps):  # a uniform legal action of each seat
        obs = env.step(uniform_legal(obs["action_mask"], rng))[0]
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
        for label, options in OPTIONS if a.options else ():  # the non-default options, per their own steps
            name = f"mjenv parallel {ep} {label}"
            single(name, lambda k, s, ep=ep, o=options: run_parallel(ep, k, s, **o), count)
            per = rows[name][1]
            for n in a.tables:
                dt, ts = run_vector(n, ep, a.table_steps, a.seed, **options)
                rows[f"mjenv vector {n} {ep} {label}"] = (ts / dt / per, per)
    for k in sorted({1, *a.threads}) if a.threads else ():  # table-steps per wall-second, by threads
        dt, ts = run_vector(64, "hand", a.table_steps, a.seed, num_threads=k, clock=time.perf_counter)
        rows[f"wall: vector 64 hand, {k} threads"] = (ts / dt / rows["mjenv parallel hand"][1], 0.0)
    return rows


TARGETS = (("mjenv parallel hand", "riichienv hand", 1.0), ("mjenv vector 64 hand", "riichienv hand", 2.0),
           ("mjenv parallel hanchan", "riichienv hanchan", 1.0), ("mjenv vector 64 hanchan", "riichienv hanchan", 1.0))
#: the rows' labels and arguments of the non-default options (see the docstring)
OPTIONS = (("[when_possible]", {"claim_window": "when_possible"}), ("[acting]", {"observers": "acting"}),
           ("[when_possible+acting]", {"claim_window": "when_possible", "observers": "acting"}),
           ("[raw]", {"observation": "raw"}), ("[acting+raw]", {"observers": "acting", "observation": "raw"}),
           ("[when_possible+acting+raw]",
            {"claim_window": "when_possible", "observers": "acting", "observation": "raw"}))


def ratio_ranges(passes: list[dict]) -> dict[str, list[tuple[float, float] | None]]:
    """Per configuration (``"defaults"`` and each option's label), each target's (min, max) ratio to RiichiEnv over
    the passes (None where a row is missing)."""
    out = {}
    for label in ("defaults", *(lb for lb, _ in OPTIONS)):
        row = []
        for ours, peer, _ in TARGETS:
            name = ours if label == "defaults" else f"{ours} {label}"
            r = [p[name][0] / p[peer][0] for p in passes if name in p and peer in p]
            row.append((min(r), max(r)) if r else None)
        out[label] = row
    return out


def plot(passes: list[dict], path: str) -> None:
    """One panel per target: each configuration's ratio range (a bar from min to max over the passes) and the
    target's line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ranges = ratio_ranges(passes)
    labels = [lb for lb in ranges if any(ranges[lb])]
    fig, axes = plt.subplots(1, len(TARGETS), figsize=(13, 0.45 * len(labels) + 1.6), sharey=True)
    for k, (ax, (ours, _, want)) in enumerate(zip(axes, TARGETS)):
        for i, lb in enumerate(labels):
            r = ranges[lb][k]
            if r is None:
                continue
            lo, hi = r
            color = "tab:green" if lo >= want else "tab:orange" if hi >= want else "tab:red"
            ax.barh(i, max(hi - lo, 0.02), left=lo, height=0.6, color=color)
        ax.axvline(want, color="black", linestyle="--", linewidth=1)
        ax.axvline(1.0, color="grey", linewidth=0.5)
        ax.set_title(f"{ours.removeprefix('mjenv ')}\n(target {want}x)", fontsize=9)
        ax.set_xlabel("x RiichiEnv, same pass")
        ax.set_xlim(0, max(5.0, max(r[1] for lb in labels for r in ranges[lb] if r) * 1.05))
    axes[0].set_yticks(range(len(labels)), [lb.strip("[]") for lb in labels], fontsize=8)
    axes[0].invert_yaxis()
    fig.suptitle(f"mjenv Riichi against RiichiEnv: ratio ranges over {len(passes)} passes "
                 "(green: every pass meets the target, orange: some, red: none)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"plot: {path}")


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
    ap.add_argument("--no-options", dest="options", action="store_false",
                    help="leave out the rows of the non-default options (claim_window, observers)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--plot", default=None, help="a PNG of every ratio's range against its target")
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
    ranges = ratio_ranges(passes)
    print("must show (ratio in the same pass; min-max over passes):")
    for (ours, peer, want), r in zip(TARGETS, ranges["defaults"]):
        if r:
            print(f"  {ours:<26} / {peer:<18} = {r[0]:.2f}-{r[1]:.2f}x (target >= {want}x)")
    for label, options in OPTIONS if a.options else ():
        print(f"NOT the default: {label} = {options} (the targets above are the defaults'):")
        for (ours, peer, _), r in zip(TARGETS, ranges[label]):
            if r:
                print(f"  {f'{ours} {label}':<50} / {peer:<18} = {r[0]:.2f}-{r[1]:.2f}x")
    if a.plot:
        plot(passes, a.plot)
    one = "wall: vector 64 hand, 1 threads"
    for k in sorted(a.threads):
        if k != 1:
            ratios = [p[f"wall: vector 64 hand, {k} threads"][0] / p[one][0] for p in passes]
            print(f"  wall-seconds, num_threads={k} / num_threads=1 = {min(ratios):.2f}-{max(ratios):.2f}x "
                  f"(target for 2 threads on 2 cores >= 1.6x)")


if __name__ == "__main__":
    main()
