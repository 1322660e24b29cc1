"""Speed of the ``hbba`` backend, one hand per call, against peers measured in the same run.

Three measurements (targets in brackets):

1. ``hbba`` backend, one hand per call (``hbba.deficiency_batch`` on a batch of one), random
   14-tile three-suit hands with random knowledge bases [mean <= 0.79 ms]; peer: our ``dp`` backend
   on the same hands, one per call.
2. The same for one-suit hands (14 tiles of one suit, KB restricted to that suit) [<= 9.3 ms].
3. The public call ``deficiency(hand, kb, method="hbba")`` (validation + ``hbba``; the default
   ``method="auto"`` runs a compiled engine instead, see ``deficiency_speed.py``), one hand per
   call, in calls/s [>= 20,000]; peer: the ``mahjong`` library's regular-hand shanten on the same
   hands (not knowledge-aware, so it gets ``kb=None`` hands: we time both ``kb=None`` and random KBs).

Hands are fresh for every measurement (never timed twice), except in the rows marked "same hands
again", which time the public call on hands it has seen: answered by its whole-hand memo, and with
that memo emptied before every call (only the per-block memo helps). The backend's LRU caches are
first warmed on other random hands of the same kind (steady state, as in a long game or training
run); the cold figure (caches cleared, first sight of every block) is printed as well. Every hbba
answer is checked against ``dp``.

Run: ``python benchmarks/hbba_speed.py`` (``--hands 2000 --warm 3000 --seed 0``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import mjenv.deficiency as deficiency_pkg
from mjenv.deficiency import deficiency, dp, hbba
from mjenv.deficiency._validate import fast_single, normalize
from mjenv.deficiency.blocks import kb_blocks

if __package__ in (None, ""):  # run as ``python benchmarks/<script>.py``: make ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._timing import backend_one, gc_paused, interleaved, per_call  # noqa: E402

try:  # test/bench dependency
    from mahjong.shanten import Shanten
except ImportError:  # pragma: no cover - the peer is optional for the first two measurements
    Shanten = None


def random_hands(rng: np.random.Generator, count: int, suits: tuple[int, ...], kb_mode: str):
    """``count`` random 14-tile hands drawn from the given suits and their KBs.

    kb_mode: "random" (each unseen copy of the hand's suits kept with one probability p ~ U(0, 1) per
    hand, other suits kept likewise only for three-suit hands) or "full" (KB = 4 - H).

    Returns:
        hands, kbs: int8[count, 27].
    """
    tiles = np.concatenate([np.arange(9 * s, 9 * s + 9) for s in suits])
    wall = np.repeat(tiles, 4)
    hands = np.zeros((count, 27), dtype=np.int8)
    kbs = np.zeros((count, 27), dtype=np.int8)
    mask = np.zeros(27, dtype=bool)
    mask[tiles] = True
    for i in range(count):
        np.add.at(hands[i], wall[rng.choice(len(wall), 14, replace=False)], 1)
        rest = (4 - hands[i]).astype(np.int64)
        if kb_mode == "full":
            kbs[i] = rest
        else:
            kbs[i] = np.where(mask, rng.binomial(rest, rng.uniform()), 0)
    return hands, kbs


def clear_caches() -> None:
    for f in (hbba._block_entry, hbba._ukos_kb, hbba._um, hbba._suit_max_melds):
        f.cache_clear()
    deficiency_pkg._HAND_MEMO.clear()


def without_hand_memo(fn):
    """fn with the public call's whole-hand memo emptied before every call (blocks stay memoized)."""

    def call(h, k):
        deficiency_pkg._HAND_MEMO.clear()
        return fn(h, k)

    return call


def to_mahjong_34(h: np.ndarray) -> list[int]:
    """Our ids (B=s, C=m, D=p) to the mahjong library's order (man, pin, sou, honours).

    Timed with the peer's call: the peer needs its own tile order, as ours needs validation.
    """
    v = h.tolist()
    return v[9:18] + v[18:27] + v[0:9] + [0] * 7


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hands", type=int, default=2000, help="timed hands per three-suit measurement")
    ap.add_argument("--suit-hands", type=int, default=300, help="timed one-suit hands")
    ap.add_argument("--warm", type=int, default=3000, help="hands used to warm the caches first")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    hb, dpf = backend_one(hbba), backend_one(dp)
    print(f"hbba speed, one hand per call, CPU time; {args.hands} fresh hands per row, seed {args.seed}")

    # 1-2: backend, one hand per call, against dp one hand per call
    rows = [
        ("three-suit, random KB", (0, 1, 2), args.hands, 0.79e-3),
        ("one-suit, random KB", (0,), args.suit_hands, 9.3e-3),
    ]
    for name, suits, count, target in rows:
        clear_caches()
        cold_h, cold_k = random_hands(rng, count, suits, "random")
        t_cold, got_cold = per_call(hb, cold_h, cold_k)
        warm_h, warm_k = random_hands(rng, args.warm if len(suits) == 3 else args.warm // 5, suits, "random")
        per_call(hb, warm_h, warm_k)
        hands, kbs = random_hands(rng, count, suits, "random")
        t_hb, got, t_dp, want = interleaved(hb, dpf, hands, kbs)
        assert got == want, "hbba disagrees with dp"
        assert got_cold == per_call(dpf, cold_h, cold_k)[1], "hbba disagrees with dp (cold)"
        print(
            f"  {name:24s} hbba {t_hb * 1e3:7.3f} ms/hand (cold caches {t_cold * 1e3:7.3f})  "
            f"dp {t_dp * 1e3:6.3f} ms/hand  hbba/dp time {t_hb / t_dp:5.2f}x  "
            f"target <= {target * 1e3:.2f} ms: {'met' if t_hb <= target else 'NOT met'}"
        )

    # 3: the public call, calls/s, against the mahjong library
    print('  public deficiency(hand, kb, method="hbba") (validation + hbba), one hand per call:')
    theirs_fn = None
    if Shanten is not None:
        sh = Shanten()

        def theirs_fn(h, k, sh=sh):
            return sh.calculate_shanten_for_regular_hand(to_mahjong_34(h))

    for kb_mode in ("full", "random"):
        warm_h, warm_k = random_hands(rng, args.warm, (0, 1, 2), kb_mode)
        for h, k in zip(warm_h, warm_k):
            deficiency(h, None if kb_mode == "full" else k, method="hbba")
        hands, kbs = random_hands(rng, args.hands, (0, 1, 2), kb_mode)
        if kb_mode == "full":
            ours_fn = lambda h, k: deficiency(h, method="hbba")  # noqa: E731
        else:
            ours_fn = lambda h, k: deficiency(h, k, method="hbba")  # noqa: E731
        line = f"    kb={'None' if kb_mode == 'full' else 'random'}, fresh hands:"
        if theirs_fn is not None:
            t_ours, ours, t_mj, theirs = interleaved(ours_fn, theirs_fn, hands, kbs)
            if kb_mode == "full":
                # a regular-hand shanten may count waits on a tile the hand holds four of: report only
                differ = sum(s + 1 != d for s, d in zip(theirs, ours))
                line += f" (shanten + 1 != ours on {differ} hands)"
            line += f" {1 / t_ours:9,.0f} calls/s   mahjong shanten (no KB) {1 / t_mj:9,.0f} calls/s"
            line += f"   ours/mahjong {t_mj / t_ours:5.2f}x"
        else:
            t_ours, ours = per_call(ours_fn, hands, kbs)
            line += f" {1 / t_ours:9,.0f} calls/s"
        want = [int(v) for v in dp.deficiency_batch(hands, kbs, np.full(len(hands), 4))]
        assert ours == want, "public hbba call disagrees with dp"
        line += f"   target >= 20,000: {'met' if 1 / t_ours >= 20000 else 'NOT met'}"
        print(line)
        if theirs_fn is not None:
            # other fresh hands with the garbage collector paused while timing: a full collection
            # over the memos takes tens of ms and lands on whichever call is running
            h3, k3 = random_hands(rng, args.hands, (0, 1, 2), kb_mode)
            with gc_paused():
                t_g, _, t_mg, _ = interleaved(ours_fn, theirs_fn, h3, k3)
            print(
                f"      fresh hands, gc paused: {1 / t_g:9,.0f} calls/s   mahjong {1 / t_mg:9,.0f} calls/s   "
                f"ours/mahjong {t_mg / t_g:5.2f}x"
            )
        # the same hands again: answered by the whole-hand memo; and with that memo emptied before
        # every call, so only the per-block memo helps (every block of these hands is now in it)
        if theirs_fn is not None:
            t_rep, rep, t_mj2, _ = interleaved(ours_fn, theirs_fn, hands, kbs)
            t_blk, blk, t_mj3, _ = interleaved(without_hand_memo(ours_fn), theirs_fn, hands, kbs)
            assert rep == ours and blk == ours
            print(
                f"      same hands again: whole-hand memo {1 / t_rep:9,.0f} calls/s (mahjong {1 / t_mj2:9,.0f}/s, "
                f"{t_mj2 / t_rep:5.2f}x); whole-hand memo emptied, blocks memoized {1 / t_blk:9,.0f} calls/s "
                f"(mahjong {1 / t_mj3:9,.0f}/s, {t_mj3 / t_blk:5.2f}x)"
            )
    # where the time of one public call goes (kb=None, blocks memoized, whole-hand memo emptied),
    # beside the peer
    hands, kbs = random_hands(rng, args.hands, (0, 1, 2), "full")
    lists = [(h.tolist(), k.tolist()) for h, k in zip(hands, kbs)]
    for h in hands:
        deficiency(h, method="hbba")

    def public_no_memo():
        out = []
        for h in hands:
            deficiency_pkg._HAND_MEMO.clear()
            out.append(deficiency(h, method="hbba"))
        return out

    parts = {
        "deficiency(hand), whole-hand memo hit": lambda: [deficiency(h, method="hbba") for h in hands],
        "deficiency(hand), memo emptied first": public_no_memo,
        "  memo emptying alone": lambda: [deficiency_pkg._HAND_MEMO.clear() for h in hands],
        "  _validate.fast_single": lambda: [fast_single(h, None, 0, 4) for h in hands],
        "  hbba.hbba_lists": lambda: [hbba.hbba_lists(h, k, 4) for h, k in lists],
        "  (full validation, _validate.normalize)": lambda: [normalize(h, None) for h in hands],
        "  (blocks.kb_blocks, not used by hbba)": lambda: [kb_blocks(h, k) for h, k in lists],
    }
    if Shanten is not None:
        sh = Shanten()
        peer = sh.calculate_shanten_for_regular_hand
        parts["mahjong shanten (peer)"] = lambda: [peer(to_mahjong_34(h)) for h in hands]
    costs = {}
    for _ in range(3):  # best of three, alternating
        for name, fn in parts.items():
            t0 = time.process_time()
            fn()
            costs[name] = min(costs.get(name, 1e9), (time.process_time() - t0) / len(hands))
    print("  one public call, kb=None, blocks memoized, CPU us per call:")
    for name, c in costs.items():
        print(f"    {name:42s} {c * 1e6:6.1f} us")
    info = hbba._block_entry.cache_info()
    rate = info.hits / max(1, info.hits + info.misses)
    print(f"  per-block memo (LRU): {info.currsize} entries (max {info.maxsize}), hit rate {rate:.2f}")


if __name__ == "__main__":
    main()
