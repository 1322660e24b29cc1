"""Where a Riichi ``parallel_env`` step's time goes: the engine's C call by the state it leads to, with the default
observation and with ``observation="raw"``, then the Python around it and the lean loop.

``riichi_speed.py`` compares whole loops with RiichiEnv; this script splits mjenv's own step so that the reasons a
ratio is what it is can be read off (and rechecked after a change):

* **by state**: each step's C call (``mjenv.rulesets.riichi._engine.step_observe``, the parallel env's one call, or
  ``run`` where a step takes the checked road; timed by wrapping them) grouped by the
  phase of the state it leads to (``act``: a discard turn; ``claim``: a claim window after a discard; ...), with
  each state's share of the steps. The difference between the default and the raw observation is what the
  deficiency features and the per-discard facts cost there (the kernel's work and its rows).
* **per step**: the whole ``env.step`` call, its C call, the Python in it (the difference), and the lean loop's own
  work around it (reading ``needs_action``, ``np.flatnonzero`` of the acting masks, the random pick).

Times are medians (by state) and means (per step) of ``time.perf_counter`` around each call, on one process: run it
on a quiet machine. Steps per hand are the defaults' (claim_window="always": a step for every window).

Run: ``python -m benchmarks.riichi_breakdown`` (``--hands 200``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np


def measure(hands: int, seed: int, observation: str = "default") -> dict:
    """One observation mode over ``hands`` one-hand episodes of the lean loop (after one warm-up hand):
    ``{"steps": n, "by_state": {phase: [C seconds of each step that led to it]}, "step": [env.step seconds],
    "c": [C seconds per step], "loop": [the loop's own seconds per step]}``."""
    import mjenv
    from mjenv.rulesets.riichi import compiled

    env = mjenv.parallel_env(rules="riichi", episode="hand", observation=observation)
    real = {name: getattr(compiled._ext, name) for name in ("run", "step_observe")}
    spent = [0.0]

    def timed(fn):
        def call(*args):
            t0 = time.perf_counter()
            out = fn(*args)
            spent[0] += time.perf_counter() - t0
            return out

        return call

    out: dict = {"steps": 0, "by_state": {}, "step": [], "c": [], "loop": []}
    rnd = random.Random(seed).random
    for name, fn in real.items():
        setattr(compiled._ext, name, timed(fn))
    try:
        for k in range(hands + 1):
            obs, infos = env.reset(seed=seed + k)
            while env.agents:
                t0 = time.perf_counter()
                acts = {}
                for a in env.agents:
                    if infos[a]["needs_action"]:
                        legal = np.flatnonzero(obs[a]["action_mask"])
                        acts[a] = int(legal[int(rnd() * len(legal))])
                t1 = time.perf_counter()
                spent[0] = 0.0
                obs, _, _, _, infos = env.step(acts)
                t2 = time.perf_counter()
                if k == 0:  # the warm-up hand
                    continue
                out["steps"] += 1
                out["by_state"].setdefault(env._table.phase, []).append(spent[0])
                out["step"].append(t2 - t1)
                out["c"].append(spent[0])
                out["loop"].append(t1 - t0)
    finally:
        for name, fn in real.items():
            setattr(compiled._ext, name, fn)
    return out


def report(runs: dict[str, dict], hands: int) -> list[str]:
    """The two tables as text lines (``runs``: observation mode -> :func:`measure`'s result)."""
    base = runs["default"]
    n = base["steps"]
    lines = [f"steps per hand: {n / hands:.1f} (default claim window: a step for every window)", "",
             f"{'state the step leads to':<26} {'share':>6} {'C default us':>13} {'C raw us':>9} {'features us':>12}"]
    for phase, times in sorted(base["by_state"].items(), key=lambda kv: -len(kv[1])):
        raw = runs.get("raw", {}).get("by_state", {}).get(phase)
        d = statistics.median(times) * 1e6
        r = statistics.median(raw) * 1e6 if raw else float("nan")
        lines.append(f"{phase:<26} {len(times) / n:>6.1%} {d:>13.2f} {r:>9.2f} {d - r:>12.2f}")
    lines += ["", f"{'per step (mean us)':<26} {'env.step':>9} {'its C':>7} {'its Python':>11} {'lean loop':>10} "
              f"{'total':>7}"]
    for mode, r in runs.items():
        step, c, loop = (statistics.fmean(r[k]) * 1e6 for k in ("step", "c", "loop"))
        lines.append(f"{mode:<26} {step:>9.2f} {c:>7.2f} {step - c:>11.2f} {loop:>10.2f} {step + loop:>7.2f}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=200, help="one-hand episodes per observation mode")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    runs = {mode: measure(a.hands, a.seed, mode) for mode in ("default", "raw")}
    print("\n".join(report(runs, a.hands)))


if __name__ == "__main__":
    main()
