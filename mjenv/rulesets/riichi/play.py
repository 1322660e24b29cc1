"""``mjenv play --rules riichi``: one seat at the terminal against three simple Riichi opponents.

Each of ``--hands`` hands is a one-hand episode (25,000 each) of ``mjenv.parallel_env(rules="riichi",
episode="hand")``. The human sees the table from its seat (:func:`~mjenv.rulesets.riichi.render.render_text`)
and the legal actions with their ids; it answers with an id or a name (``pass``, ``tsumo``, ``discard_5``...),
or Enter: pass where it may, else discard the drawn tile.
Opponents: ``random`` (uniform over the legal actions) or ``greedy`` (wins when it can, declares riichi when
it can, discards to the least knowledge-aware deficiency, the most unseen effective tiles on ties, never calls).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from mjenv import AGENTS
from mjenv.rulesets.riichi import actions as A

__all__ = ["OPPONENTS", "greedy_action", "play"]

OPPONENTS = ("random", "greedy")


def greedy_action(obs: dict) -> int:
    """The ``greedy`` opponent's action from its own observation (views of
    :mod:`~mjenv.rulesets.riichi.observation`)."""
    from mjenv.rulesets.riichi.observation import decode

    mask = obs["action_mask"]
    for a in (A.TSUMO, A.RON, A.RIICHI):
        if mask[a]:
            return a
    discards = np.flatnonzero(mask[: A.KAN])
    if not len(discards):
        return A.PASS if mask[A.PASS] else int(np.flatnonzero(mask)[0])
    v = decode(obs["observation"])
    after, count = v["deficiency_after_discard"], v["effective_count_after_discard"]

    def key(a: int):
        t = a if a < A.DISCARD_RED else (4, 13, 22)[a - A.DISCARD_RED]  # a red five: its tile type
        return (after[t], -count[t], a >= A.DISCARD_RED)  # keep red fives on ties

    return int(min(discards, key=key))


def _default(obs: dict, legal: list[int]) -> int:
    """What Enter answers: pass where passing is legal, else discard the drawn tile (tsumogiri), else the first."""
    from mjenv.rulesets.riichi.observation import decode

    if A.PASS in legal:
        return A.PASS
    v = decode(obs["observation"])
    if v["drawn"].any():
        t = int(np.argmax(v["drawn"]))
        a = A.DISCARD_RED + t // 9 if v["drawn_red"][0] else t
        if a in legal:
            return a
    return legal[0]


def _label(action: int) -> str:
    """An action's name, with its tile where the name gives only a tile id: ``discard_7 (8s)``, ``kan_31 (Wh)``."""
    from mjenv.rulesets.riichi.render import tile_text
    from mjenv.rulesets.riichi.tiles136 import tiles136_of

    name = A.describe(action)
    _, _, tile = name.rpartition("_")
    return f"{name} ({tile_text(tiles136_of(int(tile))[-1])})" if tile.isdigit() else name  # [-1]: a plain copy


def _ask(obs: dict, inp, out) -> int:
    legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
    if legal == [A.PASS]:
        return A.PASS
    names = {A.describe(a): a for a in legal}
    default = _default(obs, legal)
    print("legal: " + ", ".join(f"{a} {_label(a)}" for a in legal) + f" (Enter: {_label(default)})", file=out)
    while True:
        print("your action> ", end="", file=out, flush=True)
        line = inp.readline()
        if not line:
            raise EOFError
        text = line.strip()
        if not text:
            return default
        if text == "help":
            print("answer with an action id or name from the list; discard ids 0-33 are mjenv tile ids "
                  "(0-8 = 1-9s, 9-17 = 1-9m, 18-26 = 1-9p, 27-33 = E S W N Wh Gr Rd)", file=out)
            continue
        if text in names:
            return names[text]
        if text.isdigit() and int(text) in legal:
            return int(text)
        print(f"not a legal action: {text!r} (type help)", file=out)


def play(args: argparse.Namespace, input=None, output=None) -> int:
    """Run ``mjenv play`` for Riichi (``args``: ``opponents``, ``seat``, ``hands``, ``seed``)."""
    import mjenv
    from mjenv.rulesets.riichi.render import render_text

    inp = input if input is not None else sys.stdin
    out = output if output is not None else sys.stdout
    opp = list(args.opponents)
    if len(opp) == 1:
        opp = opp * 3
    bad = [o for o in opp if o not in OPPONENTS]
    if len(opp) != 3 or bad:
        print(f"mjenv: error: give 1 or 3 Riichi opponents from {list(OPPONENTS)}, got {list(args.opponents)}",
              file=sys.stderr)
        return 2
    seat = int(args.seat)
    kinds = list(opp)
    kinds.insert(seat, "you")
    rng = np.random.default_rng(args.seed)
    seed = args.seed if args.seed is not None else int(rng.integers(2**31))
    env = mjenv.parallel_env(rules="riichi", episode="hand")
    print(f"you play {AGENTS[seat]}; type 'help' at a prompt for how to answer", file=out)
    total = 0
    try:
        for h in range(args.hands):
            obs, _ = env.reset(seed=seed + h)
            print(f"\n=== hand {h + 1} (seed {seed + h}) ===", file=out)
            while env.agents:
                acts = {}
                for s, a in enumerate(AGENTS):
                    if kinds[s] == "you":
                        if obs[a]["action_mask"][A.PASS] and obs[a]["action_mask"].sum() == 1:
                            acts[a] = A.PASS
                        else:
                            print("\n" + render_text(env.game, seat), file=out)
                            acts[a] = _ask(obs[a], inp, out)
                    elif kinds[s] == "random":
                        acts[a] = int(rng.choice(np.flatnonzero(obs[a]["action_mask"])))
                    else:
                        acts[a] = greedy_action(obs[a])
                obs, rewards, _, _, infos = env.step(acts)
            print("\n" + render_text(env.game), file=out)
            total += env.game.results[-1]["deltas"][seat]
    except EOFError:
        print("\ninput ended; bye", file=out)
        return 0
    print(f"your total score change: {total:+d}", file=out)
    return 0
