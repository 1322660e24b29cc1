"""Each seat's knowledge base (KB): the copies of each tile that seat has not seen.

BDA paper, Sec. 4.1 (Definition 8 and the update rules after Eq. (2)): initially ``KB(t) = 4``; once
the hands are dealt, ``KB(t) = 4 - H[t]``; then the KB drops with what the game shows: a discard of t
takes one t, and when a discard of t is ponged by another player the KB loses 3 t in all (the claimed
discard is counted once: one for the discard, two more for the tiles shown from the claimant's hand);
a chow or an exposed kong likewise; drawing a tile moves it from the KB into the own hand.

Here, for seat s:

    KB = 4 - own concealed hand - every discard - every tile in declared melds (claimed discard once)

which the game keeps as one running count, ``Game.public_counts`` (tiles every seat has seen), so
a KB is one subtraction of two int8 rows.

Choices (documented deviations from a real table):

* Concealed kongs are treated as revealed: all four tiles leave every seat's KB. Many rule sets show
  them face down, but the game has no way to hide a declared meld's tiles from the observation, and
  the papers do not cover it.
* The papers' second kind of update, inference ("player A won on C2, so she must hold C1 and C3"),
  is not made: the KB counts only what was seen.
* A robbed kong's tile is entered as the declarer's discard (it was shown when the kong was
  declared), so it stays out of every KB.
"""

from __future__ import annotations

import numpy as np

from mjenv.deficiency import kernel as _kernel
from mjenv.game import Game
from mjenv.tiles import COPIES

__all__ = ["knowledge_base", "knowledge_bases", "knowledge_bases_many", "unseen"]


def knowledge_base(game: Game, seat: int) -> np.ndarray:
    """The knowledge base of ``seat``.

    Args:
        game: the game.
        seat: 0..3.

    Returns:
        int8[T]: copies of each tile the seat has not seen (0..4).

    Raises:
        ValueError: a seat outside 0..3.
    """
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < 4:
        raise ValueError(f"seat must be 0..3, got {seat!r}")
    return COPIES - game.hands[seat] - game.public_counts


def knowledge_bases(game: Game, out: np.ndarray | None = None) -> np.ndarray:
    """int8[4, T]: the knowledge base of every seat (row s is ``knowledge_base(game, s)``).

    Args:
        game: the game.
        out: None (a fresh array), or an int8[4, T] C-contiguous array to overwrite and return (the
            observation writer's scratch: no allocation in the env's step).
    """
    return unseen(game.hands, game.public_counts, out)


def knowledge_bases_many(games: list[Game]) -> np.ndarray:
    """int8[N, 4, T]: :func:`knowledge_bases` of N games in one pass (the vector env's tables)."""
    hands = np.stack([g.hands for g in games])
    return unseen(hands, np.stack([g.public_counts for g in games])[:, None, :])


_COPIES: dict[tuple[int, ...], np.ndarray] = {}


def _copies(shape: tuple[int, ...]) -> np.ndarray:
    """int8 array of ``COPIES`` of this shape (an int8 operand keeps numpy off its scalar path)."""
    full = _COPIES.get(shape)
    if full is None:
        full = _COPIES[shape] = np.full(shape, COPIES, dtype=np.int8)
    return full


#: The compiled form of :func:`unseen`'s formula (None without the kernel): the same subtraction in
#: one pass, where numpy's broadcasting set-up costs a few microseconds every env step.
_COMPILED = _kernel.compiled_unseen()


def unseen(hands: np.ndarray, public_counts: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The KB formula (see the module docstring): copies neither in the own hand nor seen in public.

    Computed by the kernel when it is installed, else by numpy (one int8 operand and in-place steps:
    no temporaries, and numpy stays off its scalar path). The observation writer calls it with the
    game's arrays it already holds.

    Args:
        hands: int8[..., 4, T] C-contiguous (``Game.hands``, or N games' stacked).
        public_counts: int8[..., 1 or absent, T] C-contiguous (``Game.public_counts``).
        out: None (a fresh array), or an int8 array of ``hands``' shape to overwrite and return.

    Returns:
        int8[..., 4, T]: the knowledge bases.
    """
    if _COMPILED is not None:
        if out is None:
            out = np.empty(hands.shape, dtype=np.int8)
        _COMPILED(COPIES, hands, public_counts, hands.shape[-2], hands.shape[-1], out)
        return out
    out = np.subtract(_copies(hands.shape[-2:]), hands, out=out)
    out -= public_counts
    return out
