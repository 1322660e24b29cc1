"""One policy decision against one GreedyAgent decision: batch of one, one CPU thread, same run.

Positions: every decision with more than one legal action in seeded greedy self-play hands
(``baselines_timing.collect_positions``). On the same positions, in interleaved chunks (so all see the
same machine load, and in alternating order), it times ``act(observation)`` of:

* ``greedy``: ``GreedyAgent`` (the peer);
* ``policy``: the shipped policy as ``PolicyAgent`` (``threads=1``), reading the per-action views
  ``effective_count_after_discard`` and ``deficiency_after_kong`` from the observation;
* ``policy, recomputed`` (unless ``--no-before``): the same weights fed the observation without those
  views, so the network recomputes them with the numpy deficiency core, as every decision did before
  the views existed.

It prints CPU ms per decision (``time.process_time``: the machine is shared) and wall ms, and each
one's ratio to greedy. Target: policy at most 1.5x greedy.

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.decision_time --hands 8
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.policy import PolicyAgent, PolicyNet, load_pretrained, pretrained_path

from benchmarks.baselines_timing import collect_positions
from mjenv.observation import ObservationSpec


def _before(spec: ObservationSpec) -> tuple[PolicyAgent, np.ndarray]:
    """The shipped weights on the layout without the per-action views, and the entries it keeps."""
    ckpt = torch.load(pretrained_path(), weights_only=True)
    cfg = ckpt["config"]
    net = PolicyNet(cfg["views"], cfg["num_tile_types"], cfg["hidden"], cfg.get("discard_effective", False))
    net.load_state_dict(ckpt["state_dict"])
    keep = np.concatenate([np.arange(spec.slices[k].start, spec.slices[k].stop) for k in net.views])
    return PolicyAgent(net, threads=1), keep


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=8, help="greedy self-play hands to take positions from")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rounds", type=int, default=3, help="passes over the positions")
    p.add_argument("--chunk", type=int, default=25, help="positions per interleaved chunk")
    p.add_argument("--no-before", action="store_true", help="skip the recomputing (pre-views) policy")
    args = p.parse_args(argv)
    if args.hands < 1 or args.rounds < 1 or args.chunk < 1:
        raise ValueError("--hands, --rounds and --chunk must be positive")
    torch.set_num_threads(1)
    spec = ObservationSpec("basic")
    positions = collect_positions(args.hands, args.seed)
    greedy = GreedyAgent(seed=0)
    policy = load_pretrained(threads=1)
    agents = {"greedy": greedy.act, "policy": policy.act}
    if not args.no_before:
        old, keep = _before(spec)
        # the same position in the old layout, found by its array (built outside the timed region)
        old_positions = {id(o["observation"]): {"observation": o["observation"][keep], "action_mask": o["action_mask"]}
                         for o in positions}
        agents["policy, recomputed"] = lambda o, _old=old: _old.act(old_positions[id(o["observation"])])
    for act in agents.values():  # warm-up: lookup tables, imports, torch's first call
        for o in positions[:20]:
            act(o)
    cpu = dict.fromkeys(agents, 0.0)
    wall = dict.fromkeys(agents, 0.0)
    names = list(agents)
    decisions = 0
    for r in range(args.rounds):
        for c, lo in enumerate(range(0, len(positions), args.chunk)):
            chunk = positions[lo : lo + args.chunk]
            order = names if (r + c) % 2 == 0 else names[::-1]
            for name in order:
                act = agents[name]
                w0, c0 = time.perf_counter(), time.process_time()
                for o in chunk:
                    act(o)
                cpu[name] += time.process_time() - c0
                wall[name] += time.perf_counter() - w0
            decisions += len(chunk)
    print(f"{len(positions)} positions from {args.hands} greedy self-play hands, {args.rounds} rounds, "
          f"batch of one, torch threads {torch.get_num_threads()}")
    print(f"{'agent':<22} {'CPU ms/decision':>16} {'x greedy':>9} {'wall ms/decision':>17} {'x greedy':>9}")
    for name in names:
        c_ms, w_ms = 1000 * cpu[name] / decisions, 1000 * wall[name] / decisions
        g_c, g_w = 1000 * cpu["greedy"] / decisions, 1000 * wall["greedy"] / decisions
        print(f"{name:<22} {c_ms:16.3f} {c_ms / g_c:9.2f} {w_ms:17.3f} {w_ms / g_w:9.2f}")


if __name__ == "__main__":
    main()
