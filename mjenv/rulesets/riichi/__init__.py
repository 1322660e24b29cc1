"""Japanese Riichi Mahjong under Tenhou's ranked four-player rules.

Modules: ``tiles136`` (136-tile ids and their conversion to mjenv's 34 tile types), ``hand``
(winning shapes, decompositions and waits), ``yaku``, ``fu`` and ``scoring`` (``score_hand``);
``wall``, ``actions`` (the 85 fixed action ids), ``furiten``, ``game`` (``RiichiGame``: state, legal
actions, transitions, events), ``settlement`` (payments and the game's flow) and ``mjlog`` (Tenhou
logs and the referee replay behind ``mjenv.riichi.replay_mjlog``).
"""
