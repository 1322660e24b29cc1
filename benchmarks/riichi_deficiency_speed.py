"""Speed of Riichi's deficiency (``rules="riichi"``) against the peers' shanten, same hands, same run.

Riichi's deficiency is the least over m melds + a pair, seven distinct pairs and thirteen orphans
(``mjenv.deficiency.deficiency(hand, kb, rules="riichi")``); with KB = 4 - H it is the shanten number
over the three forms + 1, which is what the peers compute:

- ``mahjong`` (pure Python): ``Shanten.calculate_shanten`` with chiitoitsu and kokushi;
- ``xiangting.calculate_replacement_number`` (Rust; the replacement number = shanten + 1, three forms);
- ``riichienv.calculate_shanten`` (Rust; 136-format tile ids, three forms).

Hands: random 13- and 14-tile hands from the 136-tile wall (honours included), one fresh hand per call.
The script checks that every answer of ours equals each peer's + 1 on the hands they share and prints
the agreement. Sections: the single call (``deficiency(hand, rules="riichi")`` and with a random KB),
batches (the compiled loop below 512 rows, numpy ``dp`` above), and the features a Riichi seat needs
every step (``DeficiencyFeatures(34, rules="riichi")``, compiled kernel and numpy) against the same
call without the closed forms (``rules="basic"``).

Usage::

    python -m benchmarks.riichi_deficiency_speed            # about a minute on 2 loaded cores
    python -m benchmarks.riichi_deficiency_speed --quick    # smoke run

Figures are calls (or rows) per CPU-second of this process, best of ``--repeats`` alternating runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np
from tqdm import tqdm

from benchmarks.deficiency_speed import _optional
from mjenv.deficiency import deficiency, kernel
from mjenv.deficiency.seat_features import DeficiencyFeatures, PartCache


def random_hands(rng: np.random.Generator, n: int) -> np.ndarray:
    """int8[n, 34]: 13 tiles in even rows, 14 in odd rows, drawn from the 136-tile wall."""
    out = np.zeros((n, 34), np.int8)
    for i in range(n):
        np.add.at(out[i], rng.choice(136, 13 + i % 2, replace=False) // 4, 1)
    return out


def random_kbs(rng: np.random.Generator, hands: np.ndarray) -> np.ndarray:
    """Each unseen copy kept with a per-hand probability (the papers' protocol)."""
    keep = rng.uniform(0.0, 1.0, size=(len(hands), 1))
    return rng.binomial(4 - hands.astype(np.int64), keep).astype(np.int8)


def cpu_rates(entries: dict, repeats: int, label: str) -> dict[str, float]:
    """Best items per CPU-second of each ``(fn, count)``, the entries alternating in every round."""
    for fn, _ in entries.values():
        fn()  # warm-up (tables built once per process)
    rates: dict[str, float] = {}
    for _ in tqdm(range(repeats), desc=label, leave=False):
        for name, (fn, count) in entries.items():
            c0 = time.process_time()
            fn()
            rates[name] = max(rates.get(name, 0.0), count / max(time.process_time() - c0, 1e-9))
    return rates


def print_rates(rates: dict[str, float], unit: str, ref_name: str | None) -> None:
    ref = rates.get(ref_name) if ref_name else None
    title = f"ratio to {ref_name}" if ref else ""
    print(f"{'':<58}{unit + ' (cpu)':>16}  {title}")
    for name, rate in rates.items():
        ratio = f"{rate / ref:>9.2f}x" if ref else ""
        print(f"{name:<58}{rate:>16,.0f}  {ratio}")


def peer_calls(hands: np.ndarray, slow_n: int) -> tuple[dict, dict]:
    """The installed peers' single calls on the hands (inputs converted before timing), and their
    answers + 1."""
    calls, answers = {}, {}
    mahjong = _optional("mahjong.shanten")
    if mahjong is not None:
        # the mahjong library's order: man (our 9-17), pin (18-26), sou (0-8), honours
        mj = [h[9:18].tolist() + h[18:27].tolist() + h[0:9].tolist() + h[27:].tolist() for h in hands[:slow_n]]
        f = mahjong.Shanten.calculate_shanten
        calls["mahjong Shanten.calculate_shanten (pure Python)"] = (lambda: [f(x) for x in mj], len(mj))
        answers["mahjong"] = np.array([f(x) + 1 for x in mj])
    xiangting = _optional("xiangting")
    if xiangting is not None:
        g, four = xiangting.calculate_replacement_number, xiangting.PlayerCount.FOUR
        xt = [h[9:18].tolist() + h[18:27].tolist() + h[0:9].tolist() + h[27:].tolist() for h in hands]
        calls["xiangting.calculate_replacement_number (Rust)"] = (lambda: [g(x, four) for x in xt], len(xt))
        answers["xiangting"] = np.array([g(x, four) for x in xt])
    riichienv = _optional("riichienv")
    if riichienv is not None:
        r = riichienv.calculate_shanten
        # 136-format ids: m 0-35 (our 9-17), p 36-71 (our 18-26), s 72-107 (our 0-8), honours 108-135
        order = list(range(9, 18)) + list(range(18, 27)) + list(range(0, 9)) + list(range(27, 34))
        ids = [[4 * j + c for j, t in enumerate(order) for c in range(int(h[t]))] for h in hands]
        calls["riichienv.calculate_shanten (Rust)"] = (lambda: [r(x) for x in ids], len(ids))
        answers["riichienv"] = np.array([r(x) + 1 for x in ids])
    return calls, answers


def seat_rows(rng: np.random.Generator, n: int) -> tuple:
    """Feature inputs of n seats as the env sends them: closed hands, half on their discard turn
    (14 tiles), random KBs, no claim."""
    hands = np.zeros((n, 34), np.int8)
    turn = np.arange(n) % 2 == 1
    for i in range(n):
        np.add.at(hands[i], rng.choice(136, 13 + int(turn[i]), replace=False) // 4, 1)
    kbs = random_kbs(rng, hands)
    return hands, kbs, np.full(n, 4), turn, np.full(n, -1), np.zeros(n, bool)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands in the single-call comparison")
    parser.add_argument("--slow-peer-hands", type=int, default=2000, help="hands for the pure-Python peer")
    parser.add_argument("--seats", type=int, default=2000, help="seats in the features comparison")
    parser.add_argument("--repeats", type=int, default=5, help="timed rounds (best kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (smoke test)")
    args = parser.parse_args(argv)
    if args.quick:
        args.hands, args.slow_peer_hands, args.seats, args.repeats = 400, 100, 40, 1
    rng = np.random.default_rng(args.seed)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {load:.1f}; numpy {np.__version__}")
    hands = random_hands(rng, args.hands)
    kbs = random_kbs(rng, hands)
    rows, kb_rows = list(hands), list(kbs)

    ours_full = np.array([deficiency(h, rules="riichi") for h in rows])
    calls, answers = peer_calls(hands, args.slow_peer_hands)
    for name, theirs in answers.items():
        same = float(np.mean(theirs == ours_full[: len(theirs)]))
        print(f"agreement: deficiency(hand, rules='riichi') equals {name} + 1 on {same:.2%} of {len(theirs)} hands")
    batch_full = deficiency(hands, rules="riichi")
    assert (batch_full == ours_full).all(), "the batch disagrees with the single call"

    print(f"\n== single call: one fresh random 13/14-tile hand per call, {len(rows)} hands "
          f"({min(args.slow_peer_hands, len(rows))} for mahjong) ==")  # fmt: skip
    ours = {
        "deficiency(hand, rules='riichi')  [KB = 4 - H]": (lambda: [deficiency(h, rules="riichi") for h in rows],
                                                           len(rows)),
        "deficiency(hand, kb, rules='riichi')  [random KB]": (
            lambda: [deficiency(h, k, rules="riichi") for h, k in zip(rows, kb_rows)], len(rows)),
        "deficiency(hand)  [basic: melds and a pair only]": (lambda: [deficiency(h) for h in rows], len(rows)),
    }  # fmt: skip
    print_rates(cpu_rates({**ours, **calls}, args.repeats, "single"), "calls/s",
                "mahjong Shanten.calculate_shanten (pure Python)")  # fmt: skip

    print("\n== batches: deficiency(hands, kb, rules='riichi'), random KBs ==")
    for b in (200, len(hands)):  # each size timed on its own (a large batch evicts a small one's table rows)
        h, k = hands[:b], kbs[:b]
        calls = max(1, 10_000 // b)  # a small batch is called many times in a row
        engine = "compiled loop" if b < 512 else "numpy dp + closed forms"
        entries = {}
        for rules, label in (("riichi", f"batch of {b:,} ({engine})"), ("basic", f"batch of {b:,}, basic")):
            entries[label] = (lambda h=h, k=k, r=rules, c=calls: [deficiency(h, k, rules=r) for _ in range(c)],
                              b * calls)  # fmt: skip
        print_rates(cpu_rates(entries, args.repeats, "batches"), "hands/s", f"batch of {b:,}, basic")

    print(f"\n== features of {args.seats} seats (half on their discard turn), DeficiencyFeatures.compute ==")
    inputs = seat_rows(rng, args.seats)
    entries = {}
    for backend in ("c", "numpy") if kernel.available() else ("numpy",):
        for rules in ("riichi", "basic"):
            eng = DeficiencyFeatures(34, backend=backend, rules=rules, cache=PartCache())
            entries[f"{backend}, rules={rules!r}"] = (lambda eng=eng: eng.compute(*inputs), args.seats)
    print_rates(cpu_rates(entries, args.repeats, "features"), "seats/s", None)


if __name__ == "__main__":
    main()
