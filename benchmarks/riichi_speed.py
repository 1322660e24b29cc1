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

Rates are per CPU-second of this process (``time.process_time``). Every row of a pass is kept alive and timed in
``--chunks`` turns (each row runs its share of episodes or table-steps in each turn), so a drift in the machine's
speed during the pass falls on RiichiEnv and mjenv alike. The machine is shared: run it a few times and read the
ratios, which compare envs timed in the same pass.

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


class RiichiEnvRow:
    """RiichiEnv in game mode ``mode``, kept over a pass's chunks: :meth:`run` plays more episodes."""

    def __init__(self, mode: str, seed: int):
        from riichienv import RiichiEnv

        self.env = RiichiEnv(game_mode=mode, skip_mjai_logging=True, seed=seed)
        self.rnd = random.Random(seed).random
        self.run(1)  # warm-up

    def run(self, episodes: int) -> tuple[int, int]:
        """(episodes, steps) of ``episodes`` more episodes, every observation encoded."""
        env, rnd, steps = self.env, self.rnd, 0
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


class ParallelRow:
    """``parallel_env(rules="riichi", episode=..., **options)`` with the lean loop, kept over a pass's chunks."""

    def __init__(self, episode: str, seed: int, engine: str = "auto", **options):
        import mjenv

        self.env = mjenv.parallel_env(rules="riichi", episode=episode, engine=engine, **options)
        self.seed = seed
        lean_loop(self.env, 1, seed + 10_000)  # warm-up

    def run(self, episodes: int) -> tuple[int, int]:
        """(episodes, steps) of ``episodes`` more episodes (each chunk's seeds new)."""
        out = lean_loop(self.env, episodes, self.seed)
        self.seed += episodes
        return out


class VectorRow:
    """``vector_env(n, rules="riichi", episode=..., **options)`` stepped with one random legal action per seat (drawn
    in the timed loop from the masks), kept over a pass's chunks."""

    def __init__(self, n: int, episode: str, seed: int, engine: str = "auto", num_threads: int = 1, **options):
        import mjenv

        self.n = n
        self.env = mjenv.vector_env(n, rules="riichi", episode=episode, engine=engine, num_threads=num_threads,
                                    **options)
        self.obs, _ = self.env.reset(seed=seed)
        self.rng = np.random.default_rng(seed)
        self.run(20 * n)  # warm-up: 20 steps (the kernel's tables, the first hands)

    def run(self, table_steps: int) -> tuple[int, int]:
        """(0, table-steps) of about ``table_steps`` more table-steps (whole vector steps, at least one)."""
        env, rng, obs = self.env, self.rng, self.obs
        steps = max(1, table_steps // self.n)
        for _ in range(steps):  # a uniform legal action of each seat
            obs = env.step(uniform_legal(obs["action_mask"], rng))[0]
        self.obs = obs
        return 0, steps * self.n


def interleave(rows: dict, counts: dict, chunks: int, clocks: dict | None = None) -> dict[str, tuple[int, int, float]]:
    """Time every row in ``chunks`` turns: each turn runs each row once for its share of ``counts[name]`` (episodes,
    or table-steps for a vector row), so a drift in the machine's speed over the pass falls on every row alike.

    Returns:
        name -> (episodes, steps, seconds) summed over the turns; seconds of ``clocks[name]`` (CPU by default).
    """
    clocks = clocks or {}
    total = {name: [0, 0, 0.0] for name in rows}
    for c in range(chunks):
        for name, row in rows.items():
            share = counts[name] // chunks + (1 if c < counts[name] % chunks else 0)
            if share <= 0:
                continue
            clock = clocks.get(name, time.process_time)
            t0 = clock()
            eps, steps = row.run(share)
            total[name][2] += clock() - t0
            total[name][0] += eps
            total[name][1] += steps
    return {name: (e, s, dt) for name, (e, s, dt) in total.items()}


def measure(a) -> dict[str, tuple[float, float]]:
    """name -> (episodes per CPU-second, steps per episode) of one pass over every row, the rows' chunks
    interleaved (:func:`interleave`); a vector row's episodes are its table-steps divided by the steps per episode
    of the parallel env with the same options in the same pass."""
    rows, counts, clocks = {}, {}, {}
    parallel_of = {}  # vector row -> the parallel row whose steps per episode it divides by
    for ep, mode, count in (("hand", "4p-red-single", a.hands), ("hanchan", "4p-red-half", a.games)):
        rows[f"riichienv {ep}"], counts[f"riichienv {ep}"] = RiichiEnvRow(mode, a.seed), count
        for label, options in (("", {}), *(OPTIONS if a.options else ())):
            par = f"mjenv parallel {ep}" + (f" {label}" if label else "")
            rows[par], counts[par] = ParallelRow(ep, a.seed, **options), count
            for n in a.tables:
                name = f"mjenv vector {n} {ep}" + (f" {label}" if label else "")
                rows[name], counts[name], parallel_of[name] = VectorRow(n, ep, a.seed, **options), a.table_steps, par
        if a.python:
            name = f"engine=python vector 16 {ep}"
            rows[name], counts[name] = VectorRow(16, ep, a.seed, engine="python"), a.table_steps // 40
            parallel_of[name] = f"mjenv parallel {ep}"
    for k in sorted({1, *a.threads}) if a.threads else ():  # table-steps per wall-second, by threads
        name = f"wall: vector 64 hand, {k} threads"
        rows[name], counts[name] = VectorRow(64, "hand", a.seed, num_threads=k), a.table_steps
        clocks[name], parallel_of[name] = time.perf_counter, "mjenv parallel hand"
    timed = interleave(rows, counts, a.chunks, clocks)
    per = {name: steps / eps for name, (eps, steps, _) in timed.items() if name not in parallel_of}
    out = {}
    for name, (eps, steps, dt) in timed.items():  # in the rows' order
        if name not in parallel_of:
            out[name] = (eps / dt, per[name])
        else:
            p = per[parallel_of[name]]
            out[name] = (steps / dt / p, 0.0 if name.startswith("wall") else p)
    return out


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
    ap.add_argument("--chunks", type=int, default=8,
                    help="turns a pass takes over its rows (each row runs its count in this many interleaved parts)")
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
