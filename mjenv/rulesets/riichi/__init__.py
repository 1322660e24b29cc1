"""Japanese Riichi Mahjong under Tenhou's ranked four-player rules.

Modules: ``tiles136`` (136-tile ids and their conversion to mjenv's 34 tile types), ``hand``
(winning shapes, decompositions and waits), ``yaku``, ``fu`` and ``scoring`` (``score_hand``).
"""
