"""A digest of everything the env shows a user, hand by hand, to prove a refactor changes nothing.

Each hand is played in ``mjenv.parallel_env`` with seeded uniformly random legal actions (one per
deciding seat, PASS for the others). Every step's observations, masks, rewards, terminations,
truncations and infos, and the finished hand's game log, are fed into one SHA-256 per hand. The
per-hand digests of today's engine are stored in ``tests/golden/behaviour_digest.json``; the tests
in ``test_behaviour_digest.py`` replay the first hands of each preset on both observation paths
(compiled kernel and numpy) and compare.

Regenerate (only when a behaviour change is intended, and say so in the commit)::

    python -m tests.behaviour_digest --hands 2000

or only some presets, keeping the others' recorded digests (``--preset sichuan``: the Sichuan game
replaced its stand-in, basic without chow; the other presets did not change).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
from pathlib import Path

import numpy as np

GOLDEN = Path(__file__).parent / "golden" / "behaviour_digest.json"
PRESETS = ("basic", "honours", "sichuan", "taiwan16")
#: Env options by hand index: shaping and the oracle view are exercised on every other hand.
VARIANTS = (
    {"observation": "default", "shaping": None, "gamma": 1.0},
    {"observation": "oracle", "shaping": "deficiency", "gamma": 0.9},
)


def _feed(h, *arrays) -> None:
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(str(a.dtype).encode() + str(a.shape).encode())
        h.update(a.tobytes())


def hand_digest(env, seed: int) -> str:
    """Play one seeded hand with seeded random legal actions; return the hex SHA-256 of all it showed."""
    h = hashlib.sha256()
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    agents = list(env.possible_agents)
    while True:
        for a in agents:
            if a in obs:
                _feed(h, obs[a]["observation"], obs[a]["action_mask"])
        h.update(json.dumps(infos, sort_keys=True, default=repr).encode())
        if not env.agents:
            break
        actions = {}
        for a in env.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            actions[a] = int(legal[rng.integers(len(legal))])
        obs, rewards, terms, truncs, infos = env.step(actions)
        h.update(json.dumps([rewards, terms, truncs], sort_keys=True, default=repr).encode())
    h.update(json.dumps(env.unwrapped.game.log, sort_keys=True, default=repr).encode())
    return h.hexdigest()[:16]


def digests(preset: str, hands: int) -> list[str]:
    """Per-hand digests of the first ``hands`` hands of ``preset`` (seeds 0..hands-1)."""
    import mjenv

    envs = [mjenv.parallel_env(rules=preset, **v) for v in VARIANTS]
    return [hand_digest(envs[i % len(envs)], i) for i in range(hands)]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--hands", type=int, default=2000, help="hands per preset")
    p.add_argument("--preset", action="append", choices=PRESETS,
                   help="re-record only this preset (repeatable); the others keep their recorded digests")
    args = p.parse_args()
    if os.environ.get("MJENV_NO_KERNEL"):
        raise SystemExit("record the digest with the compiled kernel (unset MJENV_NO_KERNEL)")
    out = {"hands": args.hands, "variants": VARIANTS, "presets": {}}
    if args.preset:
        out = json.loads(GOLDEN.read_text())
        if out["hands"] != args.hands:
            raise SystemExit(f"--preset keeps the others' {out['hands']} hands: pass --hands {out['hands']}")
    for preset in args.preset or PRESETS:
        out["presets"][preset] = digests(preset, args.hands)
        print(preset, "done")
    GOLDEN.write_text(json.dumps(out, indent=0) + "\n")


if __name__ == "__main__":
    main()
