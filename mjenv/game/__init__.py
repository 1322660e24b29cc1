"""The pure game: wall, hands, melds, discards, phases, legal actions, claims, scoring, logs.

Numpy only (no pettingzoo, gymnasium or torch). ``Game(rules="basic", seed=0)`` deals at once; the
wall order is the only chance event. Every decision is one :meth:`Game.step` with one action per
acting seat; simultaneous decisions (the claim window) take all answers in one step.

Actions (``mjenv.game.actions.ActionLayout``; T tile types, ``A = 2T + 7`` ids):

==============  =================  =============================================================
id              name               legal when
==============  =================  =============================================================
0 .. T-1        ``discard(t)``     own turn (``DISCARD``) and t is in the hand
T .. 2T-1       ``kong(t)``        own turn after a draw (not after a chow/pong), the wall is not
                                   empty, and the hand holds four t (concealed kong) or one t and
                                   the seat has an exposed pong of t (added kong)
2T + 0          ``CHOW_LOW``       ``CLAIM``, the seat is next after the discarder, chow allowed,
                                   the hand holds d+1, d+2 (d = discard, suited, same suit)
2T + 1          ``CHOW_MID``       as above with d-1, d+1
2T + 2          ``CHOW_HIGH``      as above with d-2, d-1
2T + 3          ``PONG``           ``CLAIM``, any other seat holding two d
2T + 4          ``EXPOSED_KONG``   ``CLAIM``, any other seat holding three d, the wall not empty
2T + 5          ``WIN``            own turn after a draw and the hand is complete (self-draw); or
                                   ``CLAIM`` / ``ROB_KONG`` and hand + the tile is complete
2T + 6          ``PASS``           ``CLAIM`` / ``ROB_KONG`` for an acting seat; the only legal
                                   action of every seat with nothing to decide (and after ``END``)
==============  =================  =============================================================

A complete hand is ``melds - declared melds`` melds plus one pair from the concealed tiles (with the
drawn or claimed tile), or seven pairs (14 concealed tiles, each count 0 or 2) when
``rules.seven_pairs`` is on. A room's hooks (:mod:`mjenv.rulesets`) may restrict or extend this.

Phases (``Phase``, an IntEnum 0..3; ``acting_seats()`` lists who decides):

* ``DISCARD`` (0): ``current_player`` holds ``3k + 2`` concealed tiles and acts alone. After a draw:
  discard, concealed/added kong, or win by self-draw. After a chow or pong: discard only (no draw, no
  kong, no win). The dealer's first turn counts as after a draw (her extra tile is ``last_drawn``).
* ``CLAIM`` (1): after a discard d by ``last_discarder``, every other seat with a possible claim
  answers at once (others have only PASS and are not acting). With ``rules.claim_window ==
  "always"`` (default) the window follows every discard, even when nobody can claim: then
  ``acting_seats()`` is empty and the step (all PASS; ``step({})`` will do) goes on as if everyone
  passed, so the phases a seat sees and the number of steps reveal nothing about other hands. With
  ``"when_possible"`` the window opens only when some seat can claim, otherwise the next seat draws
  at once (fewer steps, but a seat that sees a window with only PASS legal learns that an opponent
  can claim). Resolution: WIN beats PONG / EXPOSED_KONG beats CHOW; ties go by turn order from the
  discarder. With ``rules.multiple_winners`` every seat that declared WIN wins. Pong or chow: the
  claimant discards next. Exposed kong: the claimant draws a replacement tile (from the wall's end)
  and takes a normal turn. All pass: the seat after the discarder draws. ``current_player`` stays
  the discarder during the window.
* ``ROB_KONG`` (2): after an added kong of t by ``current_player``, every other seat whose hand + t is
  complete may WIN (robbing the kong; the declarer pays as on a discard) or PASS. ``last_discard``
  and ``last_discarder`` hold the kong's tile and its declarer during the window. The kong is shown
  (in ``melds`` and ``meld_counts``) during the window; if robbed, it falls back to a pong and t is
  entered as the declarer's last discard. If nobody robs, the declarer draws a replacement tile.
  Concealed kongs cannot be robbed. Like the claim window, it follows every added kong with
  ``claim_window="always"`` (nobody acting when nobody can win on t) and only when some seat can win
  on t with ``"when_possible"``.
* ``END`` (3): a win (``winners``, ``deal_in`` = the discarder / kong declarer or -1 for a self-draw,
  ``winning_tile``) or an exhaustive draw (no winners). ``end_reason`` is ``"self_draw"``,
  ``"discard"``, ``"robbed_kong"`` or ``"exhaustive_draw"`` ("" before the end). A self-drawn
  winning tile is in the winner's hand; a won discard (or robbed tile) stays in the discarder's
  history and the winners' hands hold ``3k + 1`` tiles (several seats may win on one tile), so
  hands + melds + unclaimed discards + wall always hold every tile exactly 4 times. No actions are
  accepted after the end.

Exhaustive draw: when a seat must draw (after a discard that nobody claims) and the wall is empty, the
hand ends with no winner. The last discard may still be claimed by WIN, PONG or CHOW (not kong: kongs
need a replacement tile, so kongs are illegal while the wall is empty); after such a pong or chow the
claimant discards once more, and that discard may be claimed too.

Scores (``scores``, int64[4], this hand's deltas): a win on a discard or robbed kong takes
``rules.discard_win_points`` from the discarder per winner; a self-draw takes
``rules.self_draw_points`` from each opponent; an exhaustive draw scores 0. Zero-sum.

Logs: ``Game.log`` (a JSON-able dict), ``Game.to_jsonl(path)``, :func:`replay`, :func:`read_jsonl`,
:func:`log_rules` (a log's rules; version-1 logs read as ``claim_window="when_possible"``).
Scripted hands (:mod:`mjenv.game.scripting`): ``Game(rules, wall=make_wall(rules, hands=..., draws=...,
replacements=...))``.
"""

from __future__ import annotations

from mjenv.game._win import is_winning
from mjenv.game.actions import ActionLayout, Phase
from mjenv.game.engine import MELD_KINDS, NUM_SEATS, EndReason, Game, Meld, MeldKind
from mjenv.game.log import log_rules, read_jsonl, replay, replay_states, write_jsonl
from mjenv.game.scripting import make_wall

__all__ = [
    "MELD_KINDS",
    "NUM_SEATS",
    "ActionLayout",
    "EndReason",
    "Game",
    "Meld",
    "MeldKind",
    "Phase",
    "is_winning",
    "log_rules",
    "make_wall",
    "read_jsonl",
    "replay",
    "replay_states",
    "write_jsonl",
]
