"""Environment speed: mjenv vs pymahjong and RLCard's mahjong env, measured in the same run.

Each env plays whole hands in one process with uniformly random legal actions (masked random), and
builds its own observation for the deciding seat at every decision:

* ``mjenv``: ``mjenv.parallel_env()`` with the default observation (deficiency features on); every
  step builds all four seats' observations (the parallel API gives every live agent one). Actions
  are picked for the seats whose ``infos[agent]["needs_action"]`` is true (the others pass when left
  out), as the peers' loops pick for their deciding seat only.
* ``mjenv-aec``: ``mjenv.env()`` (AEC); the same observations are built for every step.
* ``game-only``: ``mjenv.game.Game`` alone (no observations): what the env costs on top of its game.
* ``pymahjong``: ``pymahjong.MahjongEnv`` (C++ riichi engine); ``get_obs`` of the deciding seat and
  ``get_valid_actions`` at every decision.
* ``rlcard``: ``rlcard.make("mahjong")``; the env extracts the acting player's state every step.

A "step" is one call of the env's step function. Hands differ between the games (riichi has more
rules, RLCard's game has no chow claims by others), so compare hands/s first.

Every env picks its actions with the same masked random sampler (``--sampler``). mjenv builds its
observations with the compiled kernel when it is installed (``MJENV_NO_KERNEL=1`` selects the numpy
path, for comparison).

Usage::

    python benchmarks/env_speed.py --hands 300            # all envs
    python benchmarks/env_speed.py --hands 300 --profile  # plus a cProfile of mjenv's loop
    python benchmarks/env_speed.py --hands 300 --sampler choice  # the Generator.choice harness
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import time

import numpy as np

FEATURE_STATS: dict = {}


class MaskedRandom:
    """Uniform choice among the legal actions, the same sampler for every env.

    ``--sampler fast`` (default): a Python ``random.Random`` draw over ``np.flatnonzero``, about 2 us.
    ``--sampler choice``: ``np.random.Generator.choice`` (the harness of earlier runs), about 15 us a
    call, which weighs on the parallel env four times a step (every live agent acts) and on the other
    envs once per decision.
    """

    kind = "fast"

    def __init__(self, seed: int):
        self._random = random.Random(seed).random
        self._rng = np.random.default_rng(seed)
        self._choice = self.kind == "choice"

    def __call__(self, mask) -> int:
        legal = np.flatnonzero(mask)
        if self._choice:
            return int(self._rng.choice(legal))
        return int(legal[int(self._random() * len(legal))])

    def index(self, n: int) -> int:
        if self._choice:
            return int(self._rng.integers(n))
        return int(self._random() * n)


def run_mjenv(hands: int, seed: int) -> tuple[int, int]:
    import mjenv

    env = mjenv.parallel_env()
    FEATURE_STATS["features"] = env.spec.features  # for the cache statistics printed at the end
    pick = MaskedRandom(seed)
    steps = 0
    for h in range(hands):
        obs, infos = env.reset(seed=seed + h)
        while env.agents:
            # the seats with a decision (infos[a]["needs_action"]); the others may be left out (they pass),
            # as the peers ask only their deciding seat
            acts = {a: pick(obs[a]["action_mask"]) for a in env.agents if infos[a]["needs_action"]}
            obs, _, _, _, infos = env.step(acts)
            steps += 1
    return hands, steps


def run_mjenv_aec(hands: int, seed: int) -> tuple[int, int]:
    import mjenv

    env = mjenv.env()
    pick = MaskedRandom(seed)
    steps = 0
    for h in range(hands):
        env.reset(seed=seed + h)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else pick(obs["action_mask"]))
            steps += 1
    return hands, steps


def run_game_only(hands: int, seed: int) -> tuple[int, int]:
    """The pure game under the env (no observations, no features): the floor of mjenv's step cost."""
    from mjenv.game import Game

    pick = MaskedRandom(seed)
    steps = 0
    for h in range(hands):
        g = Game("basic", seed=seed + h)
        while not g.is_over:
            g.step({s: pick(g.legal_action_mask(s)) for s in g.acting_seats()})
            steps += 1
    return hands, steps


def run_pymahjong(hands: int, seed: int) -> tuple[int, int]:
    import pymahjong

    env = pymahjong.MahjongEnv()
    pick = MaskedRandom(seed)
    steps = 0
    for h in range(hands):
        # reset(seed=...) fails in pymahjong 1.1.2 (Table has no attribute "seed"): its deals are unseeded
        env.reset(oya=h % 4, game_wind="east")
        while not env.is_over():
            p = env.get_curr_player_id()
            mask = env.get_valid_actions(nhot=True)
            env.get_obs(p)
            env.step(p, pick(mask))
            steps += 1
    return hands, steps


def run_rlcard(hands: int, seed: int) -> tuple[int, int]:
    import rlcard

    env = rlcard.make("mahjong", config={"seed": seed})
    pick = MaskedRandom(seed)
    steps = 0
    for _ in range(hands):
        state, _ = env.reset()
        while not env.is_over():
            legal = list(state["legal_actions"].keys())
            state, _ = env.step(int(legal[pick.index(len(legal))]))
            steps += 1
    return hands, steps


RUNNERS = {
    "mjenv": run_mjenv,
    "mjenv-aec": run_mjenv_aec,
    "game-only": run_game_only,
    "pymahjong": run_pymahjong,
    "rlcard": run_rlcard,
}


def measure(name: str, hands: int, seed: int) -> dict | None:
    runner = RUNNERS[name]
    try:
        t0 = time.perf_counter()
        runner(2, seed + 10_000)  # warm-up: imports, lookup tables, caches of first use
        warm = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        n, steps = runner(hands, seed)
        wall = time.perf_counter() - t0
        # CPU time of this process: on a shared machine the neighbours' load inflates it less than
        # wall time (every env here runs in this one thread)
        dt = time.process_time() - c0
    except ImportError as e:
        print(f"{name}: not installed ({e})")
        return None
    return {"name": name, "hands": n, "steps": steps, "seconds": dt, "wall": wall, "warmup": warm,
            "hands_per_s": n / dt, "steps_per_s": steps / dt}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=40, help="hands per env (after 2 warm-up hands)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--envs", default=",".join(RUNNERS), help=f"comma-separated subset of {list(RUNNERS)}")
    ap.add_argument("--profile", action="store_true", help="cProfile mjenv's loop and print the top entries")
    ap.add_argument("--sampler", choices=("fast", "choice"), default="fast",
                    help="masked random sampler of every env: random.Random (fast) or Generator.choice (choice)")
    args = ap.parse_args(argv)
    MaskedRandom.kind = args.sampler
    names = [n.strip() for n in args.envs.split(",") if n.strip()]
    for n in names:
        if n not in RUNNERS:
            raise ValueError(f"unknown env {n!r}; allowed {list(RUNNERS)}")
    rows = [r for r in (measure(n, args.hands, args.seed) for n in names) if r is not None]
    print(f"\n{'env':<10} {'hands':>6} {'steps':>7} {'CPU s':>7} {'wall s':>7} {'warm-up s':>9} {'hands/s':>8} "
          f"{'steps/s':>8} {'steps/hand':>10}")
    for r in rows:
        print(f"{r['name']:<10} {r['hands']:>6} {r['steps']:>7} {r['seconds']:>7.2f} {r['wall']:>7.2f} "
              f"{r['warmup']:>9.2f} {r['hands_per_s']:>8.1f} {r['steps_per_s']:>8.0f} {r['steps'] / r['hands']:>10.1f}")
    print("(hands/s and steps/s per CPU second of this process; warm-up = 2 hands incl. imports and tables; "
          f"sampler {args.sampler})")
    eng = FEATURE_STATS.get("features")
    if eng is not None:
        if eng.backend == "c":
            print("mjenv feature backend: c (the compiled kernel builds all four observations in one call per step)")
        else:
            st = eng.stats
            looked = st["part_hits"] + st["part_misses"]
            print(f"mjenv feature backend: numpy; {st['part_hits']}/{looked} part cache hits, "
                  f"{st['rows'] / max(st['calls'], 1):.0f} parts per evaluating pass, {st['calls']} passes")
    ours = next((r for r in rows if r["name"] == "mjenv"), None)
    if ours is not None:
        print("\nratios (mjenv / peer):")
        for r in rows:
            if r["name"] != "mjenv":
                print(f"  vs {r['name']:<10} hands/s x{ours['hands_per_s'] / r['hands_per_s']:.2f}   "
                      f"steps/s x{ours['steps_per_s'] / r['steps_per_s']:.2f}")
    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        run_mjenv(max(5, args.hands // 4), args.seed)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
        print("\ncProfile of mjenv (parallel_env, masked random), top 15 by own time:")
        print(buf.getvalue())


if __name__ == "__main__":
    main()
