"""Japanese Riichi Mahjong under Tenhou's ranked four-player rules.

Modules: ``tiles136`` (136-tile ids and their conversion to mjenv's 34 tile types), ``hand``
(winning shapes, decompositions and waits), ``yaku``, ``fu`` and ``scoring`` (``score_hand``);
``wall``, ``actions`` (the 85 fixed action ids), ``furiten``, ``game`` (``RiichiGame``: state, legal
actions, transitions, events), ``settlement`` (payments and the game's flow), ``mjlog`` (Tenhou
logs and the referee replay behind ``mjenv.riichi.replay_mjlog``), ``mjai`` (games as mjai logs of
Mortal and RiichiEnv, read back through the rules) and ``mjai_agent`` (``MjaiAgent``: an mjai bot
as a subprocess in a seat); the env's own modules: ``observation`` (the views), ``env`` (the
parallel, AEC and vector envs: ``own_engine``), ``log`` (mjenv's record, its replay and the log
formats), ``render`` and ``view`` (its logs in ``mjenv view``); the baselines: ``agents`` (random, greedy
and flat Monte Carlo), ``evaluation`` (games for the evaluation harness) and ``policy`` (the policy network that
``mjenv train ppo|bc --rules riichi`` train).
"""

from __future__ import annotations

from mjenv.rules import Rules
from mjenv.rulesets.protocol import RuleSet

ROOM = RuleSet(
    name="riichi",
    # the shared fields that describe it (the room's own engine plays it; nothing shared runs these rules)
    preset=Rules(name="riichi", num_tile_types=34, seven_pairs=True, multiple_winners=True),
    viewer="mjenv.rulesets.riichi.view",
    summary="Japanese Riichi, Tenhou's ranked four-player rules (136 tiles, red fives, hanchan)",
    own_engine="mjenv.rulesets.riichi.env",
    own_agents="mjenv.rulesets.riichi.agents",
    own_policy="mjenv.rulesets.riichi.policy",
)
