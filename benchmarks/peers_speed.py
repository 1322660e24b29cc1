"""mjenv against RiichiEnv, pymahjong and RLCard in one run: hands and steps per CPU-second.

Every env plays whole hands with uniformly random legal actions and builds its observations:

* ``riichienv``: ``riichienv.RiichiEnv("4p-red-single", skip_mjai_logging=True)`` (Rust); every
  observation it returns is encoded (``obs.encode()``, a (74, 34) float32 tensor) and a random legal
  action is picked for every seat that has one.
* ``pymahjong`` (C++) and ``rlcard`` (Python): the loops of ``benchmarks/env_speed.py``.
* ``mjenv single``: ``mjenv.parallel_env()`` with a lean loop (actions only for the seats whose
  ``infos[agent]["needs_action"]`` is true; the others pass when left out); all four observations
  are built every step.
* ``mjenv vector N``: ``mjenv.vector_env(N)`` (the compiled batch step, ``engine="auto"``) stepped with
  one random legal action per seat (argmax of uniforms over the masks, drawn in the timed loop);
  ``python`` rows: the same on ``engine="python"``, the vector env before the batch step.

Rates are per CPU-second of this process. A vector env's hands/s is its table-steps/s divided by the
single env's steps per hand in the same run (the same game under the same random policy; the hands that
end inside a short vector run would be biased toward short ones). A mjenv hand is about 125 steps
(a claim window follows every discard, so the step pattern leaks nothing), RiichiEnv's about 88.
"shaped" rows use ``shaping="deficiency"``. The memory row is the resident set of a fresh process
that imports mjenv, builds ``vector_env(1024)`` and plays 200 steps (peak RSS, ``ru_maxrss``).

Run: ``nice -n 10 python -m benchmarks.peers_speed``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import numpy as np

from benchmarks import riichi_speed
from benchmarks._timing import lean_loop
from benchmarks.env_speed import run_pymahjong, run_rlcard


def run_riichienv(hands: int, seed: int) -> tuple[int, int]:
    """(hands, steps) of RiichiEnv's one-hand mode, ``4p-red-single``."""
    return riichi_speed.run_riichienv("4p-red-single", hands, seed)


def run_single(hands: int, seed: int, shaping: str | None = None, rules: str = "basic", engine: str = "auto"
               ) -> tuple[int, int]:
    import mjenv

    return lean_loop(mjenv.parallel_env(shaping=shaping, rules=rules, engine=engine), hands, seed)


def run_vector(num_envs: int, table_steps: int, seed: int, shaping: str | None, engine: str
               ) -> tuple[float, float, int, str]:
    """(CPU seconds, table-steps, hands ended, engine) of ``table_steps`` table-steps after a warm-up."""
    import mjenv

    venv = mjenv.vector_env(num_envs, shaping=shaping, engine=engine)
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)

    def step(obs):
        m = obs["action_mask"]
        out = venv.step(np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1))
        return out[0], int(out[2].sum())

    for _ in range(5):  # warm-up: lookup tables and memos of first use
        obs, _ = step(obs)
    steps = max(1, table_steps // num_envs)
    hands = 0
    t0 = time.process_time()
    for _ in range(steps):
        obs, ended = step(obs)
        hands += ended
    return time.process_time() - t0, steps * num_envs, hands, venv.engine


_MEMORY = """
import resource, numpy as np, mjenv
venv = mjenv.vector_env({n})
obs, _ = venv.reset(seed=0)
rng = np.random.default_rng(0)
for _ in range(200):
    m = obs["action_mask"]
    obs = venv.step(np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=-1))[0]
print(venv.engine, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def memory(num_envs: int) -> tuple[str, float]:
    """(engine, peak resident MB) of a fresh process running ``vector_env(num_envs)`` for 200 steps."""
    out = subprocess.run([sys.executable, "-c", _MEMORY.format(n=num_envs)], capture_output=True, text=True,
                         check=True)
    engine, mb = out.stdout.split()[-2:]
    return engine, float(mb)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=150, help="hands per single-env run (peers and parallel_env)")
    ap.add_argument("--table-steps", type=int, default=60_000, help="table-steps per vector-env run")
    ap.add_argument("--tables", type=int, nargs="+", default=[1, 16, 64, 256])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--memory-tables", type=int, default=1024)
    a = ap.parse_args(argv)
    rows = []  # (name, hands/s, steps/s, steps per hand, CPU us per table-step)

    def single(name, fn, **kw):
        fn(2, a.seed + 10_000, **kw)  # warm-up
        t0 = time.process_time()
        hands, steps = fn(a.hands, a.seed, **kw)
        dt = time.process_time() - t0
        rows.append((name, hands / dt, steps / dt, steps / hands, 1e6 * dt / steps))

    for name, fn in (("riichienv", run_riichienv), ("pymahjong", run_pymahjong), ("rlcard", run_rlcard)):
        try:
            single(name, fn)
        except ImportError as e:
            print(f"{name}: not installed ({e})")
    def vector(n, table_steps, shaping, asked):
        dt, ts, _, engine = run_vector(n, table_steps, a.seed, shaping, asked)
        # the single env's steps per hand (same game, same random policy over many whole hands): the
        # hands that end inside a short vector run are biased toward short hands
        per_hand = next(r[3] for r in rows if r[0] == "mjenv single")
        name = f"mjenv vector {n}{' shaped' if shaping else ''} ({engine})"
        rows.append((name if asked == "auto" else f"engine={asked}: {name}", ts / dt / per_hand, ts / dt, per_hand,
                     1e6 * dt / ts))

    for shaping in (None, "deficiency"):
        single("mjenv single" + (" shaped" if shaping else ""), run_single, shaping=shaping)
        for n in a.tables:
            vector(n, a.table_steps, shaping, "auto")
    vector(64, a.table_steps // 3, None, "python")
    print(f"{'env':<44} {'hands/s':>8} {'steps/s':>9} {'steps/hand':>10} {'us/step':>8}")
    for name, hs, ss, sph, us in rows:
        print(f"{name:<44} {hs:>8,.0f} {ss:>9,.0f} {sph:>10.1f} {us:>8.1f}")
    print("(per CPU-second of this process; vector rows: table-steps/s, hands/s = table-steps/s / the single env's "
          "steps per hand)")
    by = {r[0].split(" (")[0]: r for r in rows}
    riichi = by.get("riichienv")
    print("\nmust show:")
    if riichi is not None:
        for key, want in (("mjenv vector 64", 1.5), ("mjenv single", 1.0)):
            if key in by:
                print(f"  {key:<20} hands/s / riichienv = {by[key][1] / riichi[1]:.2f}x (target >= {want}x)")
    for n in (16, 256):
        if f"mjenv vector {n}" not in by:
            break
    else:
        r = by["mjenv vector 256"][4] / by["mjenv vector 16"][4]
        print(f"  CPU per table-step, N = 256 / N = 16 = {r:.2f} (target <= 1.0)")
    engine, mb = memory(a.memory_tables)
    print(f"  vector_env({a.memory_tables}) peak resident {mb:,.0f} MB ({engine}; target < 1024 MB)")


if __name__ == "__main__":
    main()
