"""``vector_env(N, num_threads=k)``: table-steps per wall-second at k = 1 and k = 2 in the same run.

Each repeat builds ``vector_env(N, num_threads=k)`` for k = 1 and then k = 2 (the same seed: the same games,
the same outputs; ``tests/test_vector_threads.py`` compares every array), warms it up, and times ``--steps``
steps with random legal actions (argmax of the masks times a pre-drawn bank of random bytes 1..255: a few
microseconds a step, so the rate is the env's). Printed per k: table-steps per wall-second, per CPU-second of
the process, and per second of the **critical path**: the process's CPU time outside the threaded C runs
plus, for each run, the CPU time of its slowest thread (what the wall time would be with a core per thread
and nothing else running); the threads' spinning while they wait (for the next run, or the caller for the
threads' end) is off that path. On a machine shared with other jobs the wall-second ratio says how much of the
shared cores each process got; the critical-path ratio says what the threads give on cores of their own.

``--rules riichi`` times ``vector_env(N, rules="riichi", num_threads=k)`` instead (its engine keeps no thread
statistics: the critical-path and share columns read n/a). ``--threads 1 2 4 8 16`` measures a many-core machine.

Run: ``python -m benchmarks.vector_threads --num-envs 64 --steps 3000 --repeats 3``
(many cores: ``python -m benchmarks.vector_threads --rules riichi --num-envs 256 --steps 500 --threads 1 2 4 8 16``)
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from tqdm import tqdm


def run(num_envs: int, threads: int, steps: int, seed: int, rules: str = "basic") -> dict[str, float]:
    """Rates of ``steps`` steps of ``vector_env(num_envs, rules=rules, num_threads=threads)`` after a warm-up."""
    import mjenv

    venv = mjenv.vector_env(num_envs, rules=rules, num_threads=threads)
    assert venv.engine == "compiled", "the threads are the compiled engine's"
    batch = getattr(venv, "_batch", None)  # the shared engine's batch keeps thread statistics; Riichi's does not
    rng = np.random.default_rng(seed)
    bank = rng.integers(1, 256, (16, num_envs, 4, venv.single_action_space.n), dtype=np.uint8)
    obs, _ = venv.reset(seed=seed)
    for k in range(20):  # warm-up: lookup tables, memos, the threads' first runs
        obs = venv.step(np.argmax(obs["action_mask"] * bank[k % 16], axis=-1))[0]
    stats0 = batch.thread_stats() if batch is not None else None
    w0, c0 = time.perf_counter(), time.process_time()
    for k in range(steps):
        obs = venv.step(np.argmax(obs["action_mask"] * bank[k % 16], axis=-1))[0]
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    stats = batch.thread_stats() if batch is not None else None
    venv.close()
    table_steps = steps * num_envs
    rates = {"wall": table_steps / wall, "cpu": table_steps / cpu}
    if stats is None:  # not measured
        return {**rates, "critical": float("nan"), "threaded share": float("nan")}
    work, crit, spun = (x - y for x, y in zip(stats, stats0))
    critical = cpu - work - spun + crit  # the serial part, plus each threaded run's slowest thread
    return {**rates, "critical": table_steps / critical, "threaded share": work / cpu}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rules", choices=["basic", "riichi"], default="basic")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    print(f"vector_env({a.num_envs}, rules={a.rules!r}), {a.steps} steps a run, {a.repeats} repeats; "
          f"{os.cpu_count()} cores; "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    rows: dict[int, list[dict[str, float]]] = {k: [] for k in a.threads}
    for _ in tqdm(range(a.repeats), desc="repeats"):
        for k in a.threads:
            rows[k].append(run(a.num_envs, k, a.steps, a.seed, a.rules))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    print("| threads | table-steps / wall-s | / CPU-s | / critical-path s | share of CPU in threaded C runs |")
    print("|---|---|---|---|---|")
    def cell(r: list[dict[str, float]], key: str, form: str = ",.0f") -> str:
        if any(x[key] != x[key] for x in r):  # NaN: not measured
            return "n/a"
        return f"{min(x[key] for x in r):{form}}-{max(x[key] for x in r):{form}}"

    for k in a.threads:
        r = rows[k]
        print(f"| {k} | {cell(r, 'wall')} | {cell(r, 'cpu')} | {cell(r, 'critical')} | "
              f"{cell(r, 'threaded share', '.2f')} |")
    base = a.threads[0]
    for k in a.threads[1:]:
        for key in ("wall",) if a.rules == "riichi" else ("wall", "critical"):
            ratios = [x[key] / y[key] for x, y in zip(rows[k], rows[base])]
            best = max(x[key] for x in rows[k]) / max(y[key] for y in rows[base])
            print(f"k={k} / k={base}, table-steps per {key}-second: per repeat "
                  f"{', '.join(f'{q:.2f}x' for q in ratios)}; best of each {best:.2f}x (target: >= 1.6x at 2 "
                  f"threads on 2 cores, >= 12x at 16 threads on 16 cores)")


if __name__ == "__main__":
    main()
