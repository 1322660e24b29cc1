"""Regenerate the golden hand logs (see README.md here). Run from the repository root:

    .venv/bin/python -m tests.golden.make_golden

Each golden hand is a seeded game played with masked random legal actions (``random_action`` of
``tests/game_helpers.py``, eager for wins and kongs, numpy ``default_rng(policy_seed)``). For each
rule set the first wall seed (counting up from ``start``) whose hand shows the wanted events is kept,
so the logs cover wins, kongs and claims. Every case but ``basic_when_possible`` uses the default
``claim_window="always"``, so its log has an empty step (``[]``) for every window nobody could claim.
Writes ``<name>.jsonl`` (the log) and ``<name>.final.json``
(the state summary after replaying it, ``tests.game_helpers.state_summary``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mjenv.game import Game
from tests.game_helpers import play_random, state_summary

HERE = Path(__file__).parent

# name -> (rules, first wall seed, wanted end reasons, wanted meld kinds)
CASES = {
    "basic_discard_win": ("basic", 100, {"discard"}, {"pong", "chow"}),
    "basic_self_draw_kong": ("basic", 200, {"self_draw"}, {"concealed_kong"}),
    "honours_added_kong": ("honours", 300, {"discard", "self_draw", "exhaustive_draw"}, {"added_kong"}),
    # bloody battle: the hand ends at the third win or at the draw
    "sichuan_exposed_kong": ("sichuan", 400, {"discard", "self_draw", "exhaustive_draw"}, {"exposed_kong"}),
    "taiwan16_draw": ("taiwan16", 500, {"exhaustive_draw"}, {"pong"}),
    "basic_two_winners": ({"name": "basic", "multiple_winners": True}, 600, {"discard"}, set()),
    "basic_robbed_kong": ("basic", 700, {"robbed_kong"}, set()),
    # the old behaviour, kept covered: a window only when some seat can claim
    "basic_when_possible": ({"name": "basic", "claim_window": "when_possible"}, 100, {"discard"}, {"pong", "chow"}),
}


def find(rules, start: int, reasons: set[str], kinds: set[str], two_winners: bool) -> Game:
    for seed in range(start, start + 5000):
        g = play_random(Game(rules, seed=seed, dealer=seed % 4), np.random.default_rng(seed))
        shown = {m.kind for ms in g.melds for m in ms}
        if g.end_reason in reasons and kinds <= shown and (not two_winners or len(g.winners) >= 2):
            return g
    raise RuntimeError(f"no seed in {start}..{start + 4999} gives {reasons} with {kinds}")


def main() -> None:
    for name, (rules, start, reasons, kinds) in CASES.items():
        g = find(rules, start, reasons, kinds, two_winners=name.endswith("two_winners"))
        g.to_jsonl(HERE / f"{name}.jsonl")
        (HERE / f"{name}.final.json").write_text(json.dumps(state_summary(g), indent=1) + "\n")
        empty = sum(1 for s in g.log["steps"] if not s)
        steps = len(g.log["steps"])
        print(f"{name}: seed {g.seed}, {g.end_reason}, winners {g.winners}, {steps} steps ({empty} empty)")


if __name__ == "__main__":
    main()
