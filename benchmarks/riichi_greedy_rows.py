"""The Riichi greedy agent deciding many seats in one call (``act_rows``) against one seat at a time (``act``).

Rows: every seat's observation and mask at each step of ``--tables`` Riichi tables (east games), played 70% by the
greedy and 30% at random (so wins, riichi, kans and calls come up), as a training loop's opponents would see them.
On the same rows, in interleaved chunks (alternating which goes first, so both see the same machine load), it times
``RiichiGreedyAgent.act_rows`` over each step's rows (the batch, in numpy), ``act`` row by row (the peer; a seat
with one legal action is answered without decoding its observation) and ``act`` as it was before that shortcut
(every seat's observation decoded), checks that all chose the same actions, and prints CPU microseconds per row
(``time.process_time``: the machine is shared) and each one's ratio to ``act``.

    python -m benchmarks.riichi_greedy_rows --tables 16 --steps 600 --repeats 3
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def collect(tables: int, steps: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each step's (float32[4 * tables, size] observations, int8[4 * tables, 85] masks)."""
    import mjenv
    from mjenv.rulesets.riichi.agents import RiichiGreedyAgent

    venv = mjenv.vector_env(tables, rules="riichi", episode="east")
    obs, _ = venv.reset(seed=seed)
    n = 4 * tables
    agents = [RiichiGreedyAgent() for _ in range(n)]
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        o, m = obs["observation"].reshape(n, -1).copy(), obs["action_mask"].reshape(n, -1).copy()
        out.append((o, m))
        chosen = RiichiGreedyAgent.act_rows(agents, o, m)
        uniform = np.argmax(np.where(m > 0, rng.random(m.shape), -1.0), axis=1)
        obs = venv.step(np.where(rng.random(n) < 0.7, chosen, uniform).reshape(tables, 4))[0]
    return out


def measure(steps: list, repeats: int, chunks: int = 8) -> dict[str, float]:
    """CPU seconds of each way over ``repeats`` passes of ``steps`` (interleaved chunks); raises if they differ."""
    from mjenv.rulesets.riichi.agents import RiichiGreedyAgent, Seat

    agents = [RiichiGreedyAgent() for _ in range(len(steps[0][0]))]

    def decoded(agent, o, m) -> int:  # act as it was: every seat's observation decoded, forced or not
        seat = Seat({"observation": o, "action_mask": m})
        return int(seat.legal[0]) if len(seat.legal) == 1 else int(agent.decide_seat(seat))

    ways = {
        "act_rows": lambda o, m: RiichiGreedyAgent.act_rows(agents, o, m),
        "act, one seat at a time": lambda o, m: np.array(
            [a.act({"observation": x, "action_mask": y}) for a, x, y in zip(agents, o, m)]),
        "act, every seat decoded": lambda o, m: np.array([decoded(a, x, y) for a, x, y in zip(agents, o, m)]),
    }
    cpu = dict.fromkeys(ways, 0.0)
    size = -(-len(steps) // chunks)
    for r in range(repeats):
        for c in range(chunks):
            part = steps[c * size:(c + 1) * size]
            picked = {}
            for name in (list(ways) if (r + c) % 2 == 0 else list(ways)[::-1]):  # alternating who goes first
                t = time.process_time()
                picked[name] = [ways[name](o, m) for o, m in part]
                cpu[name] += time.process_time() - t
            for chosen in zip(*picked.values()):
                if not all(np.array_equal(chosen[0], b) for b in chosen[1:]):
                    raise AssertionError("the ways chose different actions")
    return cpu


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=16)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    steps = collect(a.tables, a.steps, a.seed)
    rows = sum(len(o) for o, _ in steps) * a.repeats
    choice = sum(int((m.sum(axis=1) > 1).sum()) for _, m in steps) * a.repeats
    cpu = measure(steps, a.repeats)
    base = cpu["act, one seat at a time"]
    print(f"{rows:,} rows ({choice:,} with a choice), {a.tables} tables x {a.steps} steps x {a.repeats} repeats")
    print("| way | us per row (CPU) | ratio to one seat at a time |")
    print("|---|---|---|")
    for name, sec in cpu.items():
        print(f"| {name} | {sec / rows * 1e6:.2f} | {base / sec:.2f}x |")


if __name__ == "__main__":
    main()
