"""The reward scale a per-decision learner sees through ``SingleAgentEnv``, with and without shaping.

Part of the diagnosis of the SB3 shaping study (research/notes/TRAINING.md, "The shaping result"): sb3-contrib
MaskablePPO learned no faster with ``shaping="deficiency"`` than without. This script measures what the
shaping adds to the learner's rewards. The learner plays uniformly random legal actions against three
random agents on the same deals with and without shaping (equal seeds give equal hands), so the game
is the same and only the rewards differ. Per hand it reports the learner's decisions, the return
(undiscounted and discounted with ``--gamma``), the last step's reward (the score, plus with shaping
the refund ``0 - Phi`` of the last potential) and the mid-hand rewards (0 without shaping).

Run: ``python -m research.shaping_reward_scale --hands 300 --gamma 0.99``
"""

from __future__ import annotations

import argparse

import numpy as np


def measure(shaping: str | None, hands: int, gamma: float, seed: int) -> dict[str, float]:
    """Plays ``hands`` hands with a random learner and summarises its rewards.

    Args:
        shaping: ``None`` or a name of :data:`mjenv.shaping.SHAPINGS`.
        hands: number of hands (each dealt with seed ``seed + i``).
        gamma: the wrapper's shaping gamma, also the discount of the reported discounted return.
        seed: first deal seed; the learner's own random choices use ``seed`` too.

    Returns:
        Means and standard deviations (floats) over hands or, for ``mid_*``, over mid-hand decisions.
    """
    from mjenv.wrappers import SingleAgentEnv

    env = SingleAgentEnv(opponents="random", seat=None, shaping=shaping, gamma=gamma)
    rng = np.random.default_rng(seed)
    returns, discounted, lengths, last, mid = [], [], [], [], []
    for h in range(hands):
        env.reset(seed=seed + h)
        done, g, dg, t = False, 0.0, 0.0, 0
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, r, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
            (last if done else mid).append(r)
            g += r
            dg += gamma**t * r
            t += 1
        returns.append(g)
        discounted.append(dg)
        lengths.append(t)
    mid_arr = np.asarray(mid) if mid else np.zeros(1)
    return {
        "decisions": float(np.mean(lengths)),
        "return_mean": float(np.mean(returns)),
        "return_sd": float(np.std(returns)),
        "discounted_sd": float(np.std(discounted)),
        "last_mean": float(np.mean(last)),
        "last_sd": float(np.std(last)),
        "mid_mean": float(mid_arr.mean()),
        "mid_sd": float(mid_arr.std()),
        "mid_absmax": float(np.abs(mid_arr).max()),
    }


def main(argv: list[str] | None = None) -> dict[str, dict[str, float]]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=300, help="hands per setting (default: %(default)s)")
    p.add_argument("--gamma", type=float, default=0.99, help="the wrapper's gamma (default: %(default)s)")
    p.add_argument("--seed", type=int, default=1000, help="first deal seed (default: %(default)s)")
    args = p.parse_args(argv)
    if args.hands < 1:
        raise ValueError(f"--hands must be at least 1, got {args.hands}")
    if not 0.0 < args.gamma <= 1.0:
        raise ValueError(f"--gamma must be in (0, 1], got {args.gamma}")
    out = {}
    print("| shaping | decisions/hand | return mean (sd) | discounted return sd | last-step reward mean (sd) "
          "| mid-hand reward mean (sd), max abs |")
    print("|---|---|---|---|---|---|")
    for shaping in (None, "deficiency"):
        m = out[str(shaping)] = measure(shaping, args.hands, args.gamma, args.seed)
        print(f"| {shaping} | {m['decisions']:.1f} | {m['return_mean']:.2f} ({m['return_sd']:.2f}) | "
              f"{m['discounted_sd']:.2f} | {m['last_mean']:.2f} ({m['last_sd']:.2f}) | "
              f"{m['mid_mean']:.3f} ({m['mid_sd']:.3f}), {m['mid_absmax']:.2f} |")
    return out


if __name__ == "__main__":
    main()
