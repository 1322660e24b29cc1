"""``step_async`` / ``step_wait``: a learner's inference overlapped with the vector env's step, against the same
loop done in turn, in the same run.

The tables are split into two vector envs of ``--num-envs / 2`` tables each, A and B, and a torch policy (an MLP
of ``--hidden`` units, one torch thread, masked sampling with a seeded generator) picks every seat's action from
its own half's latest observations. Two loops do the same work in the same order (infer A, step A, infer B, step B):

* **in turn**: ``act = policy(obs_A); obs_A = A.step(act); act = policy(obs_B); obs_B = B.step(act)``;
* **overlapped**: ``A.step_async(act_A)``, then the policy on B's observations while A steps (the compiled engine
  steps with the GIL released; torch's kernels release it too), ``step_wait``, and the same with the halves
  swapped: the double buffering of envpool's async mode, with gymnasium's pair.

Both loops draw the same actions and see the same observations (checked: a hash of every action and of every
16th observation, equal in the two loops, or the run stops). Printed per repeat: table-steps per wall-second of each
loop and their ratio; the ratio's ceiling is (step + inference) / max(step, inference) when each has a core of its
own. The two loops are timed in alternating turns (``--chunks``) so that a drift in a shared machine's speed falls on
both.

Run: ``python -m benchmarks.async_overlap --rules riichi --num-envs 64 --steps 300 --repeats 3``
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time

import numpy as np


class Loop:
    """Two vector envs (A, B) of ``half`` tables and the policy; :meth:`run` plays more steps of each half."""

    def __init__(self, rules: str, half: int, hidden: int, seed: int, overlapped: bool, num_threads: int = 1):
        import torch

        import mjenv

        self.torch, self.overlapped = torch, overlapped
        self.envs = [mjenv.vector_env(half, rules=rules, num_threads=num_threads) for _ in range(2)]
        self.obs = [env.reset(seed=seed + 1000 * k)[0] for k, env in enumerate(self.envs)]
        first = self.envs[0]
        size, actions = first.single_observation_space["observation"].shape[0], first.single_action_space.n
        torch.manual_seed(seed)  # the same weights in both loops
        self.net = torch.nn.Sequential(torch.nn.Linear(size, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, hidden),
                                       torch.nn.ReLU(), torch.nn.Linear(hidden, actions))
        self.gen = torch.Generator().manual_seed(seed)
        self.digest = hashlib.sha256()
        self.calls = 0
        self.act = self.policy(0)

    def policy(self, k: int) -> np.ndarray:
        """Every seat's action of half k: a sample of the masked softmax of the MLP's logits (int64[half, 4])."""
        torch, obs = self.torch, self.obs[k]
        with torch.no_grad():
            logits = self.net(torch.from_numpy(obs["observation"]))
            logits = logits.masked_fill(torch.from_numpy(obs["action_mask"]) == 0, float("-inf"))
            act = torch.multinomial(torch.softmax(logits.reshape(-1, logits.shape[-1]), -1), 1, generator=self.gen)
        act = act.reshape(logits.shape[:-1]).numpy()
        self.digest.update(act.tobytes())
        self.calls += 1
        if self.calls % 16 == 0:  # and now and then the observations (hashing every one would cost as much as a step)
            self.digest.update(obs["observation"].tobytes())
        return act

    def run(self, steps: int) -> int:
        """``steps`` more steps of each half; the table-steps."""
        a, b = self.envs
        for _ in range(steps):
            if self.overlapped:
                a.step_async(self.act)
                act_b = self.policy(1)
                self.obs[0] = a.step_wait()[0]
                b.step_async(act_b)
                self.act = self.policy(0)
                self.obs[1] = b.step_wait()[0]
            else:
                self.obs[0] = a.step(self.act)[0]
                act_b = self.policy(1)
                self.obs[1] = b.step(act_b)[0]
                self.act = self.policy(0)
        return 2 * steps * a.num_envs

    def close(self) -> None:
        for env in self.envs:
            env.close()


def measure(rules: str, num_envs: int, hidden: int, steps: int, chunks: int, seed: int,
            num_threads: int = 1) -> dict[str, float]:
    """Table-steps per wall-second of the two loops (timed in alternating turns) and the ratio."""
    loops = {name: Loop(rules, num_envs // 2, hidden, seed, name == "overlapped", num_threads)
             for name in ("in turn", "overlapped")}
    for loop in loops.values():
        loop.run(10)  # warm-up: tables, memos, the worker thread
    wall = dict.fromkeys(loops, 0.0)
    done = dict.fromkeys(loops, 0)
    for c in range(chunks):
        share = steps // chunks + (1 if c < steps % chunks else 0)
        for name, loop in loops.items():
            t0 = time.perf_counter()
            done[name] += loop.run(share)
            wall[name] += time.perf_counter() - t0
    digests = {loop.digest.hexdigest() for loop in loops.values()}
    if len(digests) != 1:
        raise AssertionError("the two loops saw different observations or drew different actions")
    for loop in loops.values():
        loop.close()
    rates = {name: done[name] / wall[name] for name in loops}
    return {**rates, "ratio": rates["overlapped"] / rates["in turn"]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="riichi")
    ap.add_argument("--num-envs", type=int, default=64, help="tables in all (two vector envs of half as many)")
    ap.add_argument("--hidden", type=int, default=128, help="units of each of the MLP's two hidden layers")
    ap.add_argument("--steps", type=int, default=300, help="steps of each half per loop")
    ap.add_argument("--chunks", type=int, default=6, help="alternating turns of the two loops")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--num-threads", type=int, default=1, help="each vector env's num_threads")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.num_envs < 2 or a.num_envs % 2:
        raise SystemExit("--num-envs must be an even number >= 2")
    import torch

    torch.set_num_threads(1)  # inference on one core; the env's step on the other
    print(f"{a.rules}: {a.num_envs} tables as two vector envs of {a.num_envs // 2}, an MLP of 2 x {a.hidden} units "
          f"(torch {torch.__version__}, 1 thread), {a.steps} steps a half per loop; {os.cpu_count()} CPUs")
    print(f"{'repeat':>6} {'in turn':>14} {'overlapped':>14} {'ratio':>7}   (table-steps per wall-second)")
    ratios = []
    for r in range(a.repeats):
        m = measure(a.rules, a.num_envs, a.hidden, a.steps, a.chunks, a.seed + r, a.num_threads)
        ratios.append(m["ratio"])
        print(f"{r + 1:>6} {m['in turn']:>14,.0f} {m['overlapped']:>14,.0f} {m['ratio']:>6.2f}x")
    print(f"overlapped / in turn: {min(ratios):.2f}-{max(ratios):.2f}x (the same observations and actions in both)")


if __name__ == "__main__":
    main()
