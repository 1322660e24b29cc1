"""The env contract: what a step means to the agents, defined once for every shell and engine.

The engines return arrays: the Python engine's tables (``mjenv.tables``) and the compiled step
(``mjenv.game._step``, through ``mjenv.compiled_table`` and ``mjenv.vector_batch``) give each state's
observations, masks, deficiencies and acting seats, and at the end of a hand its score changes,
winners and the seats whose illegal action ended it. This module turns those arrays into what the
shells return:

* **rewards**: at the end of a hand each seat's score change, or :data:`ILLEGAL_REWARD` for the seats
  whose illegal action ended it (0 for the others); in games that play on after a win, each step's payments; plus,
  with ``shaping="deficiency"``, the potential-based term :func:`shaping_term`
  ``gamma * Phi(s') - Phi(s)`` with ``Phi = potential(deficiency)`` and ``Phi(s') = 0`` once the hand
  is over (:func:`shape`, :func:`shape_seats`);
* **infos**: :func:`infos` (each agent's dict: ``seat``, ``needs_action``, ``deficiency``,
  ``potential``, and at the end ``illegal_action``, ``scores``, ``winners``) and
  :func:`vector_infos` (the vector env's arrays of the same keys);
* **terminations** and the parallel env's five dicts: :func:`parallel_dicts`;
* **dead agents** in games that play on after a win (a seat that has won leaves the hand): :func:`leaving`.

No compiled code knows any of these names or formulas: the C step returns arrays only.
"""

from __future__ import annotations

import numpy as np

from mjenv import AGENTS
from mjenv.deficiency import INCOMPLETABLE

__all__ = [
    "ILLEGAL_REWARD", "POTENTIAL_CAP", "infos", "leaving", "parallel_dicts", "potential", "seat_rewards", "shape",
    "shape_seats", "shaping_term", "table_rewards", "vector_final_infos", "vector_infos",
]

#: Deficiency counted for INCOMPLETABLE in the shaping potential (one more than any completable hand).
POTENTIAL_CAP = 15
#: Reward of an agent whose illegal action ended the hand (PettingZoo's classic games use -1).
ILLEGAL_REWARD = -1.0
_A0, _A1, _A2, _A3 = AGENTS
_ALL_TRUE, _ALL_FALSE = dict.fromkeys(AGENTS, True), dict.fromkeys(AGENTS, False)


def potential(deficiency) -> np.ndarray:
    """Shaping potential of hands with these deficiencies: ``-min(deficiency, POTENTIAL_CAP)``.

    Args:
        deficiency: int (or integral float) array of any shape; INCOMPLETABLE (99) allowed.

    Returns:
        float64 array of the same shape, in ``[-POTENTIAL_CAP, 0]`` (``-0.0`` for deficiency 0).
    """
    return -np.minimum(np.asarray(deficiency), POTENTIAL_CAP).astype(np.float64)


#: :func:`potential` of each deficiency 0..INCOMPLETABLE, as Python floats (the per-agent infos) and float32 (the
#: vector env's infos): the same values, looked up
NEG_POTENTIAL: tuple[float, ...] = tuple(potential(np.arange(INCOMPLETABLE + 1)).tolist())
_POTENTIAL32 = potential(np.arange(INCOMPLETABLE + 1)).astype(np.float32)
#: the four seats' needs_action of each acting-seat bit set 0..15, as a tuple of bools and as bool[16, 4]
NEEDS_OF_BITS: tuple[tuple[bool, bool, bool, bool], ...] = tuple(
    tuple(bool(b >> s & 1) for s in range(4)) for b in range(16))  # fmt: skip
_NEEDS_ROWS = np.array(NEEDS_OF_BITS, dtype=bool)
#: the seats of each acting-seat bit set 0..15, ascending
SEATS_OF_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(s for s in range(4) if b >> s & 1) for b in range(16))


def shaping_term(gamma, after, before):
    """``gamma * after - before``: the shaping reward of a transition from potential ``before`` to ``after``
    (Python floats or float64 arrays; the same float operations either way)."""
    return gamma * after - before


def shape(rewards: np.ndarray, before: np.ndarray, after: np.ndarray, done: np.ndarray, gamma: float,
          left_before: np.ndarray | None = None, left_after: np.ndarray | None = None) -> np.ndarray:
    """Adds the shaping term to N tables' rewards, in place.

    Args:
        rewards: float64[N, 4] the rewards without shaping.
        before, after: int[N, 4] the deficiencies of the states before and after the step.
        done: bool[N] whose hand ended with the step (``Phi(s') = 0`` there).
        gamma: the learner's discount.
        left_before, left_after: bool[N, 4] or None: the seats that had left the hand before and after the step
            (a seat that has won in a game that plays on); their ``Phi`` is 0, so the term telescopes for them too.

    Returns:
        ``rewards``.
    """
    phi_before = potential(before)
    if left_before is not None:
        phi_before[left_before] = 0.0
    phi_after = potential(after)
    phi_after[done] = 0.0
    if left_after is not None:
        phi_after[left_after] = 0.0
    rewards += shaping_term(gamma, phi_after, phi_before)
    return rewards


def table_rewards(scores: np.ndarray, illegal: np.ndarray | None, before: np.ndarray | None, after: np.ndarray,
                  done: np.ndarray, gamma: float, left_before: np.ndarray | None = None,
                  left_after: np.ndarray | None = None) -> np.ndarray:
    """The vector env's rewards of N tables (float32[N, 4]): the score changes of the hands that ended (``scores``
    int64[N, 4], 0 elsewhere; in a game that plays on after a win, each step's payments), :data:`ILLEGAL_REWARD`
    where ``illegal`` (bool[N, 4], None: no illegal action), plus the shaping term (:func:`shape`, with the seats
    that had left before and after the step) when ``before`` (the deficiencies the step started from) is given;
    in float64, then cast."""
    if before is None and illegal is None:
        return scores.astype(np.float32)  # the same values as through float64: scores are small ints
    rewards = scores.astype(np.float64)
    if illegal is not None:
        rewards[illegal] = ILLEGAL_REWARD
    if before is not None:
        shape(rewards, before, after, done, gamma, left_before, left_after)
    return rewards.astype(np.float32)


def shape_seats(rewards: list[float], before, after, over: bool, gamma: float, left_before=None,
                left_after=None) -> list[float]:
    """:func:`shape` of one table with Python floats (the PettingZoo envs' step): ``rewards`` (4 floats), ``before``
    and ``after`` (4 deficiencies each), ``left_before`` and ``left_after`` (4 bools each, or None: the seats that
    had left a game that plays on); the same float operations, so the same values."""
    if left_before is not None:
        return [r + shaping_term(gamma, 0.0 if over or la else NEG_POTENTIAL[a], 0.0 if lb else NEG_POTENTIAL[b])
                for r, a, b, la, lb in zip(rewards, after, before, left_after, left_before)]
    if over:
        return [r + shaping_term(gamma, 0.0, NEG_POTENTIAL[b]) for r, b in zip(rewards, before)]
    return [r + shaping_term(gamma, NEG_POTENTIAL[a], NEG_POTENTIAL[b]) for r, a, b in zip(rewards, after, before)]


def seat_rewards(paid, illegal_seats, before, after, over: bool, gamma: float) -> list[float]:
    """One table's rewards of a step as Python floats (a room whose env shells step a table of its own).

    Args:
        paid: the 4 seats' rewards before shaping, what the step paid (in an episode of several hands, each
            hand's at the step it ends and the episode's final payments at its last step).
        illegal_seats: the seats whose illegal action ended the episode with this step (they get
            :data:`ILLEGAL_REWARD`, the others 0, instead of ``paid``); empty when none.
        before, after: the 4 deficiencies of the states before and after the step; ``before`` None: no shaping.
        over: whether the episode ended with the step (``Phi(s') = 0``).
        gamma: the learner's discount.

    Returns:
        4 floats, shaped by :func:`shape_seats` when ``before`` is given (the values of :func:`table_rewards`).
    """
    rewards = [ILLEGAL_REWARD if s in illegal_seats else 0.0 for s in range(4)] if illegal_seats else list(paid)
    return rewards if before is None else shape_seats(rewards, before, after, over, gamma)


def end_info(seat: int, illegal_seats, scores, winners: list[int]) -> dict:
    """The keys a seat's info gets at the end of the hand (or when it leaves a hand that goes on): whether its
    illegal action ended the hand, its score change so far (``scores``: the 4 seats'; in a game that plays on also
    what was paid before an illegal action ended the hand) and the winning seats so far."""
    return {"illegal_action": seat in illegal_seats, "scores": int(scores[seat]), "winners": list(winners)}


def infos(deficiency, needs, over: bool, end=None, left=(), phase: str | None = None) -> dict[str, dict]:
    """Every agent's info for a state.

    Args:
        deficiency: the 4 seats' deficiencies (Python ints).
        needs: the 4 seats' needs_action (bools; :data:`NEEDS_OF_BITS` of the acting-seat bit set).
        over: whether the hand is over (``potential`` 0 then, and every agent gets the end keys).
        end: ``(illegal_seats, scores, winners)`` for :func:`end_info` (needed when ``over`` or ``left``).
        left: seats that have left a hand that goes on (they won): they get their end keys now, and
            ``potential`` 0.
        phase: a room's phase name, every agent's ``phase`` key; None: no such key.

    Returns:
        ``{agent: {"seat", "needs_action", "deficiency", "potential"[, "phase"][, "illegal_action", "scores",
        "winners"]}}``.
    """
    d0, d1, d2, d3 = deficiency
    n0, n1, n2, n3 = needs
    p0 = p1 = p2 = p3 = 0.0
    if not over:
        p0, p1, p2, p3 = NEG_POTENTIAL[d0], NEG_POTENTIAL[d1], NEG_POTENTIAL[d2], NEG_POTENTIAL[d3]
    if phase is None:
        out = {_A0: {"seat": 0, "needs_action": n0, "deficiency": d0, "potential": p0},
               _A1: {"seat": 1, "needs_action": n1, "deficiency": d1, "potential": p1},
               _A2: {"seat": 2, "needs_action": n2, "deficiency": d2, "potential": p2},
               _A3: {"seat": 3, "needs_action": n3, "deficiency": d3, "potential": p3}}
    else:  # the phase in each literal: a fifth key added to a built dict costs it a resize (0.2 us a dict)
        out = {_A0: {"seat": 0, "needs_action": n0, "deficiency": d0, "potential": p0, "phase": phase},
               _A1: {"seat": 1, "needs_action": n1, "deficiency": d1, "potential": p1, "phase": phase},
               _A2: {"seat": 2, "needs_action": n2, "deficiency": d2, "potential": p2, "phase": phase},
               _A3: {"seat": 3, "needs_action": n3, "deficiency": d3, "potential": p3, "phase": phase}}
    if over:
        for s in range(4):
            out[AGENTS[s]].update(end_info(s, *end))
    else:
        for s in left:
            out[AGENTS[s]].update(end_info(s, *end), potential=0.0)
    return out


def parallel_dicts(obs: np.ndarray, masks: np.ndarray, rewards, over: bool, info: dict) -> tuple[dict, ...]:
    """The parallel env's five returns for the four agents: observations (the rows of ``obs`` float32[4, size]
    and ``masks`` int8[4, A], or 4 views of each), rewards (4 floats), terminations (``over``), truncations
    (never) and infos."""
    r0, r1, r2, r3 = rewards
    # rows by index (a numpy array's iterator costs about 2.5 times as much per row); fresh dicts copied from
    # prebuilt ones (a fifth of dict.fromkeys)
    return ({_A0: {"observation": obs[0], "action_mask": masks[0]},
             _A1: {"observation": obs[1], "action_mask": masks[1]},
             _A2: {"observation": obs[2], "action_mask": masks[2]},
             _A3: {"observation": obs[3], "action_mask": masks[3]}},
            {_A0: r0, _A1: r1, _A2: r2, _A3: r3}, (_ALL_TRUE if over else _ALL_FALSE).copy(), _ALL_FALSE.copy(), info)


def leaving(live: list[str], over: bool, won) -> tuple[dict[str, bool], list[str]]:
    """Dead agents of a game that plays on after a win: ``(terminations of the live agents, the agents still live
    after the step)``; a seat that has won (``won``: bool[4]) is terminated and leaves, every seat once the hand
    is over."""
    if not over and not any(won):  # nobody has won: every live agent goes on
        return dict.fromkeys(live, False), list(live)
    term = {a: over or bool(won[i]) for i, a in enumerate(AGENTS) if a in live}
    return term, [] if over else [a for a in live if not term[a]]


def vector_infos(acting_bits: np.ndarray, deficiency: np.ndarray, left: np.ndarray | None = None) -> dict:
    """The vector env's infos of N tables' states (no hand is over: ended hands are dealt again at once).

    Args:
        acting_bits: int[N] each table's acting-seat bit set (0..15).
        deficiency: int[N, 4] the seats' deficiencies.
        left: bool[N, 4] or None: the seats that have left the hand (they won, play goes on): ``potential`` 0.

    Returns:
        ``{"needs_action": bool[N, 4], "deficiency": int64[N, 4], "potential": float32[N, 4]}``.
    """
    phi = _POTENTIAL32.take(deficiency)
    if left is not None:
        phi[left] = 0.0
    return {"needs_action": _NEEDS_ROWS.take(acting_bits, axis=0), "deficiency": deficiency.astype(np.int64),
            "potential": phi}


def vector_final_infos(infos: dict, done: np.ndarray, final_obs: np.ndarray, final_masks: np.ndarray,
                       scores: np.ndarray, winners: np.ndarray, illegal: np.ndarray, more: dict | None = None) -> dict:
    """Adds the vector env's autoreset keys to ``infos`` (gymnasium's same-step autoreset): the final observations
    ``final_obs`` ({"observation": float32[N, 4, size], "action_mask": int8[N, 4, A]}) and the end-of-hand results
    ``final_info`` ({"scores": int64[N, 4], "winners": bool[N, 4], "illegal_action": bool[N, 4]}, plus ``more``: a
    room's own [N, 4] arrays of the episode's end), valid where ``_final_obs`` / ``_final_info`` (copies of
    ``done``, bool[N]) are True. Returns ``infos``."""
    infos["final_obs"] = {"observation": final_obs, "action_mask": final_masks}
    infos["_final_obs"] = done.copy()
    infos["final_info"] = {"scores": scores, "winners": winners, "illegal_action": illegal}
    if more:
        infos["final_info"].update(more)
    infos["_final_info"] = done.copy()
    return infos
