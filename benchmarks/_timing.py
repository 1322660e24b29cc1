"""Timing helpers shared by the per-hand benchmarks (``hbba_speed.py``, ``bda_speed.py``).

All times are CPU seconds of this process (``time.process_time``), not wall time: the machine is
shared, and wall time mostly measures the other processes.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np


def backend_one(module) -> Callable:
    """``call(hand_row, kb_row) -> int``: ``module.deficiency_batch`` on a batch of one (m = 4)."""
    four = np.array([4], dtype=np.int64)

    def call(h, k):
        return int(module.deficiency_batch(h[None], k[None], four)[0])

    return call


def per_call(fn, hands: np.ndarray, kbs: np.ndarray, before_call: Callable | None = None) -> tuple[float, list]:
    """Mean CPU seconds of fn(hand_row, kb_row) over the rows, and the answers.

    With ``before_call`` (e.g. emptying caches for a cold figure) it runs before every call, outside
    the timed region, and each call is timed on its own; otherwise the rows are timed as one block.
    """
    out = []
    if before_call is None:
        t0 = time.process_time()
        for h, k in zip(hands, kbs):
            out.append(fn(h, k))
        return (time.process_time() - t0) / len(hands), out
    spent = 0.0
    for h, k in zip(hands, kbs):
        before_call()
        t0 = time.process_time()
        out.append(fn(h, k))
        spent += time.process_time() - t0
    return spent / len(hands), out


def interleaved(fa, fb, hands: np.ndarray, kbs: np.ndarray, chunk: int = 50, before_call: Callable | None = None):
    """Time fa and fb on the same rows, alternating chunks so both see the same machine load, and
    alternating which of the two runs a chunk first (a garbage-collector pass lands on whichever is
    running; a fixed order would favour one of them).

    Returns:
        (mean CPU seconds of fa, answers of fa, mean CPU seconds of fb, answers of fb).
    """
    ta = tb = 0.0
    oa: list = []
    ob: list = []
    for i, lo in enumerate(range(0, len(hands), chunk)):
        h, k = hands[lo : lo + chunk], kbs[lo : lo + chunk]
        if i % 2 == 0:
            t, o = per_call(fa, h, k, before_call)
            ta += t * len(h)
            oa += o
        t, o = per_call(fb, h, k, before_call)
        tb += t * len(h)
        ob += o
        if i % 2 == 1:
            t, o = per_call(fa, h, k, before_call)
            ta += t * len(h)
            oa += o
    return ta / len(hands), oa, tb / len(hands), ob


@contextmanager
def gc_paused() -> Iterator[None]:
    """Collect once, then keep the garbage collector off while timing: a full collection over the
    memos takes tens of ms and lands on whichever method is running."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def uniform_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly drawn legal action per row of ``masks`` (int8 or bool[..., A], at least one legal action a row),
    int64[...]: the legal ids in order (one pass over the masks as bools), then per row one uniform draw of an index
    among its own. About a quarter of the cost of an argmax over one uniform draw per action."""
    a = masks.shape[-1]
    legal = np.flatnonzero(masks.view(bool))  # row * A + action, rows in order
    row = legal // a
    count = np.bincount(row, minlength=masks.size // a)
    first = np.cumsum(count) - count
    pick = legal[first + (rng.random(count.size) * count).astype(np.int64)]
    return (pick % a).reshape(masks.shape[:-1])


def lean_loop(env, episodes: int, seed: int) -> tuple[int, int]:
    """(episodes, steps) of a PettingZoo parallel env played with the lean loop: each seat that
    ``infos[agent]["needs_action"]`` flags picks a uniform legal action (``random.Random(seed)``), the others
    are left out; episode k is reset with ``seed + k``."""
    import random

    rnd = random.Random(seed).random
    steps = 0
    for k in range(episodes):
        obs, infos = env.reset(seed=seed + k)
        while env.agents:
            acts = {}
            for a in env.agents:
                if infos[a]["needs_action"]:
                    legal = np.flatnonzero(obs[a]["action_mask"])
                    acts[a] = int(legal[int(rnd() * len(legal))])
            obs, _, _, _, infos = env.step(acts)
            steps += 1
    return episodes, steps
