"""Build Riichi games with chosen hands and draws, for the rule tests (Tenhou 136-ids)."""

from __future__ import annotations

import pytest

import mjenv
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.game import RiichiGame
from mjenv.rulesets.riichi.wall import Wall

_SUIT = {"m": 0, "p": 9, "s": 18, "z": 27}


class Tiles:
    """Hands out distinct 136-ids for mps text; ``0`` is the red five (copy 0 of a five)."""

    def __init__(self) -> None:
        self.used: set[int] = set()

    def take(self, text: str) -> list[int]:
        out: list[int] = []
        digits: list[str] = []
        for ch in text:
            if ch.isdigit():
                digits.append(ch)
                continue
            for d in digits:
                red = d == "0"
                tt = _SUIT[ch] + (4 if red else int(d) - 1)
                copies = [0] if red else ([1, 2, 3] if (tt < 27 and tt % 9 == 4) else [0, 1, 2, 3])
                tid = next(4 * tt + c for c in copies if 4 * tt + c not in self.used)
                self.used.add(tid)
                out.append(tid)
            digits = []
        return out

    def first_free(self, kinds: tuple[str, ...]) -> int:
        """One free copy of the first kind (mps text of one tile) that has one."""
        for k in kinds:
            tt = _SUIT[k[1]] + int(k[0]) - 1
            for c in range(4):
                if 4 * tt + c not in self.used and not (c == 0 and tt < 27 and tt % 9 == 4):
                    self.used.add(4 * tt + c)
                    return 4 * tt + c
        raise ValueError(f"no free copy of {kinds}")

    def fill(self, hand: list[int]) -> None:
        """Fill ``hand`` to 13 tiles with inert tiles: no pair, and no two suited tiles of a suit
        within distance 2 (so the filler makes no chi, pon, kan or win), honours last."""
        picked = {t >> 2 for t in hand}
        order = [s * 9 + r for r in (1, 4, 7, 0, 3, 6, 2, 5, 8) for s in range(3)] + list(range(27, 34))
        for tt in order:
            if len(hand) >= 13:
                return
            if tt in picked or (tt < 27 and any(p < 27 and p // 9 == tt // 9 and abs(p - tt) <= 2 for p in picked)):
                continue
            free = [4 * tt + c for c in (1, 2, 3, 0) if 4 * tt + c not in self.used]
            if free:
                self.used.add(free[0])
                hand.append(free[0])
                picked.add(tt)
        if len(hand) < 13:
            raise ValueError("no inert tiles left to fill the hand")


def make_game(hands: list[str], draws: str = "", dora: str = "", rinshan: str = "", **kw) -> tuple[RiichiGame, Tiles]:
    """A game (one hand unless ``length`` says otherwise) with the given starting hands (in seat order from
    the dealer: seat 0 unless ``round_index`` says otherwise), live draws and first dora indicator
    (default: a free 3z, else 2z, 4z, 8p, 8s).

    A hand shorter than 13 tiles is filled with inert tiles (see :meth:`Tiles.fill`).

    ``draws`` lists the live wall in draw order (the dealer's first draw first); the rest of the wall
    is filled with unused tiles. Extra keyword arguments are set on the game before the deal is used
    (e.g. ``scores``).
    """
    tiles = Tiles()
    dealt = [tiles.take(h) for h in hands]
    bad = [(h, len(d)) for h, d in zip(hands, dealt) if len(d) > 13]
    if bad:
        raise ValueError(f"starting hands have at most 13 tiles: {bad}")
    live = tiles.take(draws)
    rin = tiles.take(rinshan)
    ind = tiles.take(dora) if dora else [tiles.first_free(("3z", "2z", "4z", "8p", "8s"))]
    for d in dealt:
        tiles.fill(d)
    wall = Wall.from_parts(dealt, live, rin, ind)
    start = {k: kw.pop(k) for k in ("scores", "round_index", "honba", "sticks") if k in kw}
    game = RiichiGame(length=kw.pop("length", "hand"), wall_factory=lambda g: wall, **start)
    for k, v in kw.items():
        setattr(game, k, v)
    return game, tiles


def t136(game: RiichiGame, seat: int, text: str) -> int:
    """The id of a tile of this type (``"5m"``, ``"0p"`` red) in the seat's hand."""
    red = text[0] == "0"
    tt = _SUIT[text[1]] + (4 if red else int(text[0]) - 1)
    for t in game.hands[seat]:
        if t >> 2 == tt and A.is_red(t) == red:
            return t
    raise AssertionError(f"{text} not in seat {seat}'s hand")


def discard(game: RiichiGame, seat: int, text: str) -> None:
    """Seat discards a tile; every seat asked about claims passes."""
    t = t136(game, seat, text)
    game.step({seat: A.discard_action(t)}, {seat: (t,)})


def pass_all(game: RiichiGame) -> None:
    game.step({s: A.PASS for s in game.to_act()})


def legal(game: RiichiGame, seat: int) -> set[int]:
    return {int(a) for a in game.legal_actions(seat).nonzero()[0]}


def unseen_swap_walls(seed: int = 21) -> tuple[list[int], list[int]]:
    """Two walls that differ only in tiles seat 0 (the dealer) never sees while the others discard what
    they draw: a tile swapped between seats 1 and 2's starting hands (two different types), and a
    replacement tile swapped with an ura-dora indicator."""
    import numpy as np

    base = list(Wall.shuffled(np.random.default_rng(seed)).tiles)
    # seats 1 and 2 deal from positions 13..25 and 26..38 (dealer 0); pick two different tile types
    i = 13
    j = next(k for k in range(26, 39) if base[k] >> 2 != base[i] >> 2)
    other = list(base)
    other[i], other[j] = other[j], other[i]
    other[122], other[131] = other[131], other[122]
    return base, other


def assert_checked_in_every_shell(engine: str, name: str, bad, want: str) -> None:
    """Every Riichi shell (parallel, AEC, vector) refuses the argument ``name=bad`` with a ValueError matching
    ``want``, and ``name=None`` with one saying what is allowed."""
    for make in (lambda **k: mjenv.parallel_env(**k), lambda **k: mjenv.env(**k),
                 lambda **k: mjenv.vector_env(2, **k)):  # fmt: skip
        with pytest.raises(ValueError, match=want):
            make(rules="riichi", engine=engine, **{name: bad})
        with pytest.raises(ValueError, match=rf"{name} must be one of"):
            make(rules="riichi", engine=engine, **{name: None})
