"""The kernel's ``observe`` alone, replayed on recorded states: A/B of kernel builds in one process.

``benchmarks/kernel_memo.py`` times whole table-steps (game, Python loop and kernel together), whose
noise on a shared machine (+-0.5 us a step) hides kernel changes of a few percent. This records the
state records that ``mjenv.vector_env(N, rules=...)`` leaves after each step while it plays masked
random actions (on the compiled batch step: a table whose hand ended holds its next hand's first
state), then replays them on fresh memos with each given build of ``mjenv.deficiency._kernel`` (paths
of its ``.so`` files; default: the installed one), the builds taking turns, and prints the CPU
microseconds of ``observe`` per table-step and whether every build wrote the same bytes (observations
and deficiencies), per rule set. Build a variant with ``pip install --no-deps -e .`` and copy its
``.so`` aside before the next build.

Run: ``python -m benchmarks.kernel_replay --steps 2000 --repeats 4 --rules basic,taiwan16 /tmp/a.so /tmp/b.so``
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import time
from dataclasses import replace

import numpy as np

import mjenv
from mjenv.deficiency import _kernel, kernel


def record(
    num_envs: int, steps: int, seed: int, rules: str = "basic"
) -> tuple[object, list[tuple[np.ndarray, list[int]]]]:
    """(the env's observation spec, [(int16[n, L] state records, memo index of each record)] per step) of
    ``steps`` steps of ``vector_env(num_envs, rules=rules)`` after its reset: the records its batch step
    left (and observed) in each step."""
    venv = mjenv.vector_env(num_envs, rules=rules)
    batch = venv._batch
    if batch is None:
        raise SystemExit(f"rules {rules!r}: the vector env does not run on the compiled batch step here")
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    calls, tables = [], list(range(num_envs))
    for _ in range(steps):
        u = rng.random(obs["action_mask"].shape)
        obs, *_ = venv.step(np.argmax(np.where(obs["action_mask"] > 0, u, -1.0), axis=-1))
        calls.append((batch._step_records.copy(), tables))
    return batch.spec, calls


def replay(module, spec, calls, num_envs: int) -> tuple[float, bytes]:
    """(CPU microseconds of ``observe`` per table-step, SHA-256 of every output's bytes) of ``calls`` on
    a kernel build, with fresh memos."""
    # one source, the whole record (as observe_records)
    plan = replace(spec.plan, fields=np.array([[0, spec.state_size, 0]], dtype=np.int32), scalar_start=spec.state_size)
    t = plan.num_tile_types
    bound = module.bind(*kernel._table_buffers(t), plan.copies, plan.onehots, plan.feature_inputs,
                        plan.feature_outputs, plan.fields, plan.scalar_start, plan.state_size, t,
                        plan.gather.shape[1], plan.seven_pairs, plan.melds, plan.excluded_suit)  # fmt: skip
    memos = [np.zeros(module.memo_bytes(), dtype=np.uint8) for _ in range(num_envs)]
    seconds, rows, written = 0.0, 0, hashlib.sha256()
    for records, which in calls:
        out = np.empty((records.shape[0], 4, spec.size), dtype=np.float32)
        deficiency = np.empty((records.shape[0], 4), dtype=np.int32)
        chosen = [memos[i] for i in which]
        t0 = time.process_time()
        module.observe(bound, records, chosen, out, deficiency)
        seconds += time.process_time() - t0
        rows += records.shape[0]
        written.update(out.tobytes())
        written.update(deficiency.tobytes())
    return seconds / rows * 1e6, written.digest()


def load(path: str):
    """A kernel build from its ``.so`` file, as its own module object."""
    spec = importlib.util.spec_from_file_location("_kernel", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("builds", nargs="*", help="kernel .so files (default: the installed kernel)")
    p.add_argument("--tables", type=int, default=64)
    p.add_argument("--steps", type=int, default=2000, help="vector steps recorded")
    p.add_argument("--repeats", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rules", default="basic", help="rule sets, comma-separated: each recorded and replayed")
    a = p.parse_args()
    if not kernel.available():
        raise SystemExit("the compiled kernel is not installed (or MJENV_NO_KERNEL is set)")
    builds = a.builds or [_kernel.__file__]
    modules = [load(b) for b in builds]
    for rules in a.rules.split(","):
        spec, calls = record(a.tables, a.steps, a.seed, rules)
        print(f"{rules}: {len(calls)} observe calls, {sum(r.shape[0] for r, _ in calls)} table-steps, N = {a.tables}")
        times: list[list[float]] = [[] for _ in modules]
        first = None
        same = True
        for _ in range(a.repeats):
            for i, module in enumerate(modules):
                us, written = replay(module, spec, calls, a.tables)
                times[i].append(us)
                first = written if first is None else first
                same &= written == first
        print("every build wrote the same bytes:", same)
        print("| rules | build | median us per table-step | min | runs |")
        print("|---|---|---|---|---|")
        for b, ts in zip(builds, times):
            print(f"| {rules} | {b} | {np.median(ts):.2f} | {min(ts):.2f} | {' '.join(f'{x:.2f}' for x in ts)} |")


if __name__ == "__main__":
    main()
