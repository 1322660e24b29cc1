"""A Riichi evaluation game (``mjenv.rulesets.riichi.evaluation.play_game``, what ``mjenv eval --rules riichi`` plays)
on the compiled engine against the Python engine, in one run.

Both play the same games: the line-up (greedy, random, greedy, random by default; ``--agents``) on deals
``--seed``, ``--seed + 1``, ... of ``--episode``, every agent seeded afresh per game, in interleaved turns (each turn
plays one game on each engine, alternating which goes first) so that both see the same machine load. The two records
of each game must be equal (the script stops otherwise). It prints hands and games per CPU-second
(``time.process_time``: the machine is shared), the agents' share of each, and the compiled engine's ratio.

    python -m benchmarks.riichi_eval_speed --games 12 --episode east
"""

from __future__ import annotations

import argparse
import time


def lineup(specs: list[str], seed: int) -> list:
    """Four fresh agents of ``specs`` (seat s seeded ``seed * 4 + s``)."""
    from mjenv.baselines.registry import make_agent

    return [make_agent(spec, seed=seed * 4 + s, rules="riichi") for s, spec in enumerate(specs)]


def main(argv: list[str] | None = None) -> None:
    from mjenv.rulesets.riichi.evaluation import EPISODES, play_game

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=12, help="games per engine (default 12)")
    p.add_argument("--episode", choices=EPISODES, default="east")
    p.add_argument("--agents", nargs=4, default=["greedy", "random", "greedy", "random"])
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    engines = ("compiled", "python")
    cpu, think, hands = dict.fromkeys(engines, 0.0), dict.fromkeys(engines, 0.0), dict.fromkeys(engines, 0)
    play_game(lineup(a.agents, 0), 0, a.episode, engine="compiled")  # warm-up: tables, imports
    for g in range(a.games):
        seed = a.seed + g
        recs = {}
        for eng in engines if g % 2 == 0 else engines[::-1]:
            t0 = time.process_time()
            rec = play_game(lineup(a.agents, seed), seed, a.episode, engine=eng)
            cpu[eng] += time.process_time() - t0
            think[eng] += sum(rec.pop("think_s"))
            hands[eng] += rec["hands_played"]
            recs[eng] = rec
        if recs["compiled"] != recs["python"]:
            raise SystemExit(f"game {seed}: the engines' records differ")
    print(f"{a.games} {a.episode} games of {' '.join(a.agents)} (seeds {a.seed}..{a.seed + a.games - 1}), "
          f"{hands['python']} hands; the records of every game equal")
    print("| engine | hands / CPU-s | games / CPU-s | agents' share |")
    print("|---|---|---|---|")
    for eng in engines:
        print(f"| {eng} | {hands[eng] / cpu[eng]:.1f} | {a.games / cpu[eng]:.2f} | {think[eng] / cpu[eng]:.0%} |")
    print(f"compiled / python: {cpu['python'] / cpu['compiled']:.2f}x the games per CPU-second")


if __name__ == "__main__":
    main()
