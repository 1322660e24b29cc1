"""Riichi Mahjong (Tenhou ranked four-player rules): the public facade.

``replay_mjlog(xml_text)`` referees a real Tenhou game through mjenv's own rules; see
:mod:`mjenv.rulesets.riichi.mjlog` for what it checks and refuses. mjai (Mortal's and RiichiEnv's
protocol): ``mjlog_to_mjai``, ``game_to_mjai`` and ``replay_mjai`` (:mod:`mjenv.rulesets.riichi.mjai`),
and ``MjaiAgent``, an mjai bot as a subprocess in a seat (:mod:`mjenv.rulesets.riichi.mjai_agent`).
``decode(obs)`` names the views of an observation of ``mjenv.parallel_env(rules="riichi")``
(:mod:`mjenv.rulesets.riichi.observation`).
"""

from __future__ import annotations

from mjenv.rulesets.riichi import actions
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.mjai import game_to_mjai, mjlog_to_mjai, replay_mjai
from mjenv.rulesets.riichi.mjai_agent import MjaiAgent, MjaiBotError
from mjenv.rulesets.riichi.mjlog import replay

__all__ = [
    "MjaiAgent",
    "MjaiBotError",
    "RiichiGame",
    "actions",
    "decode",
    "game_to_mjai",
    "mjlog_to_mjai",
    "replay_mjai",
    "replay_mjlog",
    "replay_mjlog_game",
]


def decode(observation) -> dict:
    """Named views of a Riichi env observation (float32[1535], a batch [B, 1535], or the env's dict)."""
    from mjenv.rulesets.riichi.observation import decode as _decode

    return _decode(observation)


def replay_mjlog(xml_text: str) -> list[dict]:
    """Replay a Tenhou mjlog; one dict per hand.

    Each dict has ``"deltas"`` (4 ints: each seat's score at the hand's end minus at its start,
    riichi deposits included, in the log's seat order), ``"round"`` (0 = East 1), ``"honba"``,
    ``"sticks"`` (at the hand's start), ``"result"`` (``"agari"``, ``"exhaustive"``, ``"nm"``,
    ``"yao9"``, ``"kaze4"``, ``"reach4"``, ``"kan4"``, ``"ron3"``) and ``"scores"`` (after the hand).
    All computed by mjenv's rules; the log's ``sc=``/``ten=``/``owari=`` are never read.

    Raises:
        ValueError: a malformed or hostile log, or an action mjenv finds illegal (naming the hand and tag).
    """
    return [dict(r) for r in replay(xml_text).results]


def replay_mjlog_game(xml_text: str) -> dict:
    """Replay a Tenhou mjlog; the hands and, when the game ended, the final scores and points.

    Returns:
        ``{"hands": [...as replay_mjlog...], "final_scores": [4 ints] | None,
        "points": [4 floats] | None}``: final scores with leftover sticks to the first, and
        Tenhou's game points (score - 30,000 in thousands plus uma +20/+10/-10/-20, oka to the first).
    """
    g = replay(xml_text)
    return {"hands": [dict(r) for r in g.results], "final_scores": g.final_scores, "points": g.final_points}
