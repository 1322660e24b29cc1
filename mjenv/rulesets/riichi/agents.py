"""The Riichi room's baseline agents: random, deficiency-greedy and flat Monte Carlo.

The shared agents reach these classes through the room (``RuleSet.own_agents``): ``GreedyAgent(rules="riichi")``
builds a :class:`RiichiGreedyAgent`, ``FlatMCAgent(rules="riichi")`` a :class:`RiichiFlatMCAgent` and
``RandomAgent(rules="riichi")`` a :class:`RiichiRandomAgent` (:data:`AGENTS`, read by
``mjenv.baselines._common.Agent.__new__``). Each acts from its own observation only: the flat array of
:mod:`~mjenv.rulesets.riichi.observation` (decoded into named views) and its action mask.

**Greedy** (:class:`RiichiGreedyAgent`), in this order:

1. **tsumo / ron** whenever legal (the mask offers them only with a yaku and without furiten);
2. **nine terminals** (kyuushu, action 83): declared when the hand holds fewer than
   :data:`KOKUSHI_KEEP` distinct terminal and honour types; with more it plays on towards thirteen orphans
   (the three-form deficiency steers it there);
3. **riichi** whenever legal (a closed tenpai); the discard that follows keeps tenpai (the mask) and takes
   the most unseen copies of the waits;
4. **kan** (closed or added) of t when ``deficiency_after_kan[t]`` is at most the best discard's deficiency;
5. **discard**: the legal discard minimising, in order, the knowledge-aware deficiency left
   (``deficiency_after_discard``: the least over four melds and a pair, seven pairs and thirteen orphans
   under the seat's knowledge base), then (open hands only) leaving a tenpai without a yaku
   (``tenpai_after_discard`` and ``yaku_after_discard``), then the most unseen effective tiles
   (``effective_count_after_discard``), then keeping a red five, then the action id;
6. **calls** (chi / pon; never an open kan): only when the call keeps a yaku in reach and lowers the
   deficiency (a pon of a yakuhai tile: when it does not raise it). The yaku in reach: a yakuhai pon
   (dragons, the seat wind, the round wind), a yakuhai pon or kan already declared, or tanyao: every meld simple
   and the simples of the hand alone as close to complete as the whole hand (the deficiency of the hand
   and knowledge base without terminals and honours equals ``deficiency_after_claim``);
7. otherwise **pass**.

**Flat Monte Carlo** (:class:`RiichiFlatMCAgent`): SIMCAT's flat Monte Carlo (Chen, Tang & Wu) on the own
discards, with the single-player model, adapted to Riichi. The afterstates are the greedy's best
discards (its deficiency pre-filter: the legal discards of least deficiency, without a yakuless open
tenpai where another is as close). Each simulation re-deals only what the seat has not seen: its next
``min(wall_count // 4, max_rounds)`` draws are sampled without replacement from its knowledge base
(common random numbers: every afterstate gets the same draws). The play-out is the seat alone: each
draw that completes the hand is scored by mjenv's scorer (tsumo; riichi for a closed hand, which the
agent declares at tenpai; the dora indicators shown and the red fives held) and a completion without a
yaku is no win (the drawn tile is discarded); otherwise the seat keeps the draw only when it lowers the
deficiency, discarding the tile that leaves the least. The value of an afterstate is the mean of the
points won (0 for no win); the best is played, ties going to the greedy order. Everything else (wins,
riichi, kans, calls, kyuushu) is the greedy's.

The evaluation of Riichi games (average rank and points per game with 95% CIs on duplicate deals) is
:mod:`mjenv.rulesets.riichi.evaluation`; :func:`play_deal` and the metric tables are re-exported here for
the shared harness (``mjenv.baselines.evaluate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mjenv.baselines._common import Agent, forced_action
from mjenv.baselines.flatmc import FlatMCAgent, sample_draws
from mjenv.baselines.greedy import GreedyAgent
from mjenv.baselines.random_agent import RandomAgent
from mjenv.deficiency import INCOMPLETABLE, deficiency
from mjenv.deficiency._run import deficiency_rows
from mjenv.deficiency.features import NOT_APPLICABLE
from mjenv.rulesets.riichi import actions as A
from mjenv.rulesets.riichi.evaluation import (
    EPISODES,
    METRIC_TITLES,
    METRICS,
    PAIRED,
    TOURNAMENT_AGENTS,
    TOURNAMENT_EPISODE,
    play_deal,
    play_game,
)
from mjenv.rulesets.riichi.hand import ORPHANS
from mjenv.rulesets.riichi.observation import MELD_KINDS, decode, spec
from mjenv.rulesets.riichi.scoring import Meld, WinContext, score_hand
from mjenv.rulesets.riichi.tiles136 import FIRST136

__all__ = [
    "AGENTS", "EPISODES", "KOKUSHI_KEEP", "METRICS", "METRIC_TITLES", "PAIRED", "TOURNAMENT_AGENTS",
    "TOURNAMENT_EPISODE", "RiichiFlatMCAgent",
    "RiichiGreedyAgent", "RiichiRandomAgent", "Seat", "play_deal", "play_game",
]

#: Distinct terminal and honour types from which the greedy plays on for thirteen orphans instead of
#: declaring the nine-terminals draw.
KOKUSHI_KEEP = 10
#: The tile type of each red-five discard action (34, 35, 36: bamboo, characters, dots).
_RED_TYPE = (4, 13, 22)
#: The play-out's search order for a discard: honours, then the suits from the lowest type.
_PLAYOUT_ORDER = tuple(range(27, 34)) + tuple(range(27))
_SIMPLE = np.array([t < 27 and t % 9 not in (0, 8) for t in range(34)])
_CALLS = (A.CHI, A.CHI + 1, A.CHI + 2, A.CHI_RED, A.CHI_RED + 1, A.CHI_RED + 2, A.PON, A.PON_RED)
#: Column of ``deficiency_after_claim`` (chi low / mid / high, pon, open kan) of each call action.
_CALL_COLUMN = {A.CHI: 0, A.CHI + 1: 1, A.CHI + 2: 2, A.CHI_RED: 0, A.CHI_RED + 1: 1, A.CHI_RED + 2: 2,
                A.PON: 3, A.PON_RED: 3}  # fmt: skip
#: Per column of ``deficiency_after_claim`` but the open kan: the offsets from the called tile of the two tiles the
#: meld takes from the hand.
_USED_OFFSETS = np.array([(1, 2), (-1, 1), (-2, -1), (0, 0)])


def discard_type(action: int) -> int:
    """The tile type (mjenv id) a discard action (0..36) discards."""
    return action if action < A.DISCARD_RED else _RED_TYPE[action - A.DISCARD_RED]


class Seat:
    """One seat's decision point, read from its own observation (the views the agents need).

    Attributes:
        v: the decoded views (:func:`mjenv.rulesets.riichi.observation.decode`).
        mask: bool[85] legal actions.
        hand, kb: int64[34] own concealed counts and the knowledge base (unseen copies).
        melds: list of ``(kind, lowest tile type, called tile type or -1)`` of the own melds.
        open: whether a called meld (anything but a closed kan) is declared.
    """

    def __init__(self, observation: dict[str, Any]) -> None:
        if not isinstance(observation, dict) or "observation" not in observation or "action_mask" not in observation:
            raise ValueError("act() takes one seat's observation: a dict with keys 'observation' and 'action_mask'")
        mask = np.asarray(observation["action_mask"]).astype(bool).reshape(-1)
        if mask.shape != (A.N_ACTIONS,) or not mask.any():
            raise ValueError(f"a Riichi action_mask has {A.N_ACTIONS} entries with at least one legal; got shape "
                             f"{mask.shape} with {int(mask.sum())} legal")
        self.v = decode(np.asarray(observation["observation"], dtype=np.float32))
        self.mask = mask
        self.hand = np.rint(self.v["hand"]).astype(np.int64)
        self.kb = np.rint(self.v["knowledge_base"]).astype(np.int64)
        kinds = self.v["meld_kind"][0]
        self.melds = []
        for j in range(len(kinds)):
            if kinds[j].max() > 0:
                self.melds.append((MELD_KINDS[int(np.argmax(kinds[j]))], int(self.v["meld_tile"][0, j]) - 1,
                                   int(self.v["meld_called"][0, j]) - 1))
        self.open = any(k != "ankan" for k, _, _ in self.melds)

    @property
    def legal(self) -> np.ndarray:
        return np.flatnonzero(self.mask)

    def wind(self, name: str) -> int:
        return int(np.argmax(self.v[name]))

    def yakuhai(self) -> frozenset[int]:
        """Tile types whose triplet is a yaku here: the dragons, the seat wind and the round wind."""
        return frozenset({31, 32, 33, 27 + self.wind("seat_wind"), 27 + self.wind("round_wind")})


class _RiichiAgent(Agent):
    """What the Riichi agents share: the observation is the Riichi room's (decoded by :class:`Seat`)."""

    def _decoder(self):
        return spec()

    def act(self, observation: dict[str, Any]) -> int:
        forced = forced_action(observation, spec().size, A.N_ACTIONS)
        if forced is not None:  # one legal action (most seats at most steps): nothing to decode
            return forced
        seat = Seat(observation)
        if len(seat.legal) == 1:
            return int(seat.legal[0])
        return int(self.decide_seat(seat))

    @classmethod
    def act_rows(cls, agents: Sequence[Agent], observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.array([a.act({"observation": o, "action_mask": m}) for a, o, m in zip(agents, observations, masks)],
                        dtype=np.int64)

    def decide_seat(self, s: Seat) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


class RiichiRandomAgent(_RiichiAgent, RandomAgent):
    """Uniform over the legal actions of its Riichi observation (``RandomAgent(rules="riichi")``)."""

    def act(self, observation: dict[str, Any]) -> int:
        mask = np.asarray(observation["action_mask"]).reshape(-1)
        legal = np.flatnonzero(mask)
        if mask.shape != (A.N_ACTIONS,) or not len(legal):
            raise ValueError(f"a Riichi action_mask has {A.N_ACTIONS} entries with at least one legal")
        return int(legal[self.rng.integers(len(legal))])


class RiichiGreedyAgent(_RiichiAgent, GreedyAgent):
    """Deficiency-greedy Riichi agent (``GreedyAgent(rules="riichi")``; the rule: the module docstring)."""

    @classmethod
    def act_rows(cls, agents: Sequence[Agent], observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The decisions of :meth:`act` for many rows in one call: a loop's opponents at every table.

        Every rule of the module docstring is decided for all rows at once in numpy (the calls' tanyao test: one
        batch of the simples' deficiencies); every row of a subclass that chooses its discards otherwise (the flat
        Monte Carlo agent) is decided by :meth:`act`, as is every row when the arrays are not Riichi observations
        and masks (``act`` then says what is wrong).

        Args:
            agents: B RiichiGreedyAgents (one per row).
            observations: float32[B, size] observation rows.
            masks: int8/bool[B, 85] their legal actions.

        Returns:
            int64[B] action ids, each equal to ``agents[i].act`` of row i.
        """
        observations, masks = np.asarray(observations), np.asarray(masks)
        size = spec().size
        fits = (observations.ndim == 2 and observations.shape[1] == size and masks.shape == (len(observations),
                A.N_ACTIONS) and masks.astype(bool).any(axis=1).all())
        if not fits or cls.choose_discard is not RiichiGreedyAgent.choose_discard or not len(agents):
            return super().act_rows(agents, observations, masks)
        return _greedy_rows(observations, masks.astype(bool))

    def decide_seat(self, s: Seat) -> int:
        m = s.mask
        for a in (A.TSUMO, A.RON):
            if m[a]:
                return a
        if m[A.KYUUSHU]:
            if sum(1 for t in ORPHANS if s.hand[t]) < KOKUSHI_KEEP:
                return A.KYUUSHU
        if m[A.RIICHI]:
            return A.RIICHI
        discards = np.flatnonzero(m[: A.KAN])
        if len(discards):
            best = self.discard_order(s, discards)
            d_best = s.v["deficiency_after_discard"][discard_type(best[0])]
            for a in np.flatnonzero(m[A.KAN : A.KAN + 34]) + A.KAN:
                dk = s.v["deficiency_after_kan"][a - A.KAN]
                if dk != NOT_APPLICABLE and dk <= d_best:
                    return int(a)
            return self.choose_discard(s, best)
        if any(m[a] for a in _CALLS):
            return self._call(s)
        return A.PASS if m[A.PASS] else int(s.legal[0])

    def choose_discard(self, s: Seat, order: list[int]) -> int:
        """The discard among the greedy-ordered candidates (the greedy takes the first)."""
        return order[0]

    @staticmethod
    def discard_key(s: Seat, a: int) -> tuple:
        """The greedy's sort key of discard action ``a`` (the module docstring, rule 5)."""
        v, t = s.v, discard_type(a)
        yakuless = s.open and v["tenpai_after_discard"][t] == 1 and v["yaku_after_discard"][t] == 0
        return (float(v["deficiency_after_discard"][t]), bool(yakuless),
                -float(v["effective_count_after_discard"][t]), a >= A.DISCARD_RED, a)

    def discard_order(self, s: Seat, discards: Sequence[int]) -> list[int]:
        """The legal discards, best first by :meth:`discard_key`."""
        return sorted((int(a) for a in discards), key=lambda a: self.discard_key(s, a))

    def _call(self, s: Seat) -> int:
        v = s.v
        now = float(v["deficiency"][0])
        tile = int(np.argmax(v["last_discard"]))
        yakuhai = s.yakuhai()
        have_yakuhai = any(k != "chi" and t in yakuhai for k, t, _ in s.melds)  # a closed kan counts too
        best, best_key = A.PASS if s.mask[A.PASS] else int(s.legal[0]), None
        for a in _CALLS:
            if not s.mask[a]:
                continue
            d = float(v["deficiency_after_claim"][_CALL_COLUMN[a]])
            if d == NOT_APPLICABLE:
                continue
            pon = a in (A.PON, A.PON_RED)
            yaku_pon = pon and tile in yakuhai
            if not (d <= now if yaku_pon else d < now):
                continue
            if not (yaku_pon or have_yakuhai or self._tanyao_in_reach(s, a, tile, d)):
                continue
            key = (d, not pon, a)  # least deficiency, then pon over chi, then the plain (non-red) call
            if best_key is None or key < best_key:
                best, best_key = a, key
        return int(best)

    @staticmethod
    def _tanyao_in_reach(s: Seat, action: int, tile: int, d_after: float) -> bool:
        """Whether all simples stays as close as the call's deficiency (the module docstring, rule 6)."""
        if not _SIMPLE[tile]:
            return False
        for kind, low, _ in s.melds:
            tiles = (low, low + 1, low + 2) if kind == "chi" else (low,)
            if not all(_SIMPLE[t] for t in tiles):
                return False
        col = _CALL_COLUMN[action]
        used = [int(tile + o) for o in _USED_OFFSETS[col]]
        if not all(_SIMPLE[t] for t in used):
            return False
        hand = s.hand.copy()
        for t in used:
            hand[t] -= 1
        hand[~_SIMPLE] = 0
        kb = s.kb.copy()
        kb[~_SIMPLE] = 0
        needed = 4 - len(s.melds) - 1
        d = int(deficiency_rows(hand[None], kb[None], np.array([needed]))[0])
        return d != INCOMPLETABLE and d <= d_after


#: Per discard action (0..36): the tile type it discards, and whether it is a red five's.
_DISCARD_TYPES = np.array([discard_type(a) for a in range(A.KAN)])
_DISCARD_IS_RED = np.arange(A.KAN) >= A.DISCARD_RED
_ORPHAN_TYPES = np.array(sorted(ORPHANS))
_CHI, _ANKAN = MELD_KINDS.index("chi"), MELD_KINDS.index("ankan")


def _own_melds(observations: np.ndarray, sl: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The own melds of observation rows, as :class:`Seat` reads them: bool[B, 4] declared, int[B, 4] the kind
    (:data:`MELD_KINDS` index) and int[B, 4] the lowest tile type (0 where none)."""
    kinds = observations[:, sl["meld_kind"]].reshape(-1, 4, 4, 5)[:, 0]  # one-hot; zeros: no meld
    low = np.rint(observations[:, sl["meld_tile"]].reshape(-1, 4, 4)[:, 0]).astype(np.int64) - 1
    return kinds.max(axis=2) > 0, kinds.argmax(axis=2), np.clip(low, 0, 33)


def _greedy_rows(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """:meth:`RiichiGreedyAgent.act_rows`' batch: int64[B] actions, the rules in the module docstring's order (each
    row takes the first rule that decides it)."""
    sl = spec().slices
    rows = len(masks)
    actions = np.full(rows, A.PASS, dtype=np.int64)
    done = np.zeros(rows, dtype=bool)

    def take(where: np.ndarray, action) -> None:
        new = where & ~done
        actions[new] = action if np.isscalar(action) else action[new]
        done[new] = True

    take(masks.sum(axis=1) == 1, masks.argmax(axis=1))  # a forced action
    take(masks[:, A.TSUMO], A.TSUMO)
    take(masks[:, A.RON], A.RON)
    orphans_held = (observations[:, sl["hand"]][:, _ORPHAN_TYPES] > 0.5).sum(axis=1)
    take(masks[:, A.KYUUSHU] & (orphans_held < KOKUSHI_KEEP), A.KYUUSHU)
    take(masks[:, A.RIICHI], A.RIICHI)
    # discard turns: the legal discard least by discard_key (each key narrows the ties of the one before; the
    # action id breaks the last), then a kan as good as it
    legal = masks[:, : A.KAN]
    turn = legal.any(axis=1) & ~done
    if turn.any():
        obs, cand = observations[turn], legal[turn].copy()
        declared, kind, _ = _own_melds(obs, sl)
        is_open = (declared & (kind != _ANKAN)).any(axis=1)
        after = obs[:, sl["deficiency_after_discard"]][:, _DISCARD_TYPES]
        yakuless = (is_open[:, None] & (obs[:, sl["tenpai_after_discard"]] == 1)
                    & (obs[:, sl["yaku_after_discard"]] == 0))[:, _DISCARD_TYPES]
        more = -obs[:, sl["effective_count_after_discard"]][:, _DISCARD_TYPES]
        for key in (after, yakuless.astype(np.float32), more, np.broadcast_to(_DISCARD_IS_RED, cand.shape)):
            k = np.where(cand, key, np.inf)
            cand &= k == k.min(axis=1, keepdims=True)
        best = cand.argmax(axis=1)
        d_best = after[np.arange(len(best)), best]
        kan_after = obs[:, sl["deficiency_after_kan"]]
        kans = masks[turn, A.KAN : A.KAN + 34] & (kan_after != NOT_APPLICABLE) & (kan_after <= d_best[:, None])
        best = np.where(kans.any(axis=1), A.KAN + kans.argmax(axis=1), best)
        take(turn, _scatter(turn, best))
    calls = masks[:, list(_CALLS)].any(axis=1) & ~done  # rule 6
    if calls.any():
        best, taken = _call_rows(observations[calls], masks[calls], sl)
        calls[calls] = taken
        take(calls, _scatter(calls, best[taken]))
    take(np.ones(rows, dtype=bool), np.where(masks[:, A.PASS], A.PASS, masks.argmax(axis=1)))  # rule 7
    return actions


#: The call actions in :meth:`RiichiGreedyAgent._call`'s order, whether each is a pon, and its column of
#: ``deficiency_after_claim``.
_CALL_ACTIONS = np.array(_CALLS)
_CALL_IS_PON = np.isin(_CALL_ACTIONS, (A.PON, A.PON_RED))
_CALL_COLUMNS = np.array([_CALL_COLUMN[a] for a in _CALLS])


def _call_rows(observations: np.ndarray, masks: np.ndarray, sl: dict) -> tuple[np.ndarray, np.ndarray]:
    """:meth:`RiichiGreedyAgent._call` for rows where a call is legal, together: each row's candidate calls (legal,
    lowering the deficiency, or a yakuhai pon not raising it) keep a yaku in reach (a yakuhai pon, a yakuhai meld
    already declared, or tanyao: one batch of the simples' deficiencies for the candidates that need it). Returns
    (int64[B] each row's least (deficiency, chi after pon, action id) call, bool[B] the rows that have one); a row
    without one passes (rule 7, the caller's)."""
    rows = len(masks)
    r = np.arange(rows)
    now = observations[:, sl["deficiency"]][:, 0]
    tile = observations[:, sl["last_discard"]].argmax(axis=1)
    winds = 27 + np.stack([observations[:, sl["seat_wind"]].argmax(axis=1),
                           observations[:, sl["round_wind"]].argmax(axis=1)], axis=1)
    yakuhai = np.zeros((rows, 34), dtype=bool)
    yakuhai[:, 31:] = True
    yakuhai[r[:, None], winds] = True
    declared, kind, low = _own_melds(observations, sl)
    have_yakuhai = (declared & (kind != _CHI) & yakuhai[r[:, None], low]).any(axis=1)
    chi = kind == _CHI
    chi_simple = _SIMPLE[np.clip(low + 2, 0, 33)] & (low % 9 <= 6)  # a chi's three tiles: its lowest and highest
    melds_simple = (~declared | (_SIMPLE[low] & (~chi | chi_simple))).all(axis=1)

    legal = masks[:, _CALL_ACTIONS]  # [rows, 8]
    d = observations[:, sl["deficiency_after_claim"]][:, _CALL_COLUMNS]
    yaku_pon = _CALL_IS_PON[None, :] & yakuhai[r, tile][:, None]
    closer = np.where(yaku_pon, d <= now[:, None], d < now[:, None])
    cand = legal & (d != NOT_APPLICABLE) & closer
    # tanyao in reach: the called tile, the own melds and the two tiles taken all simple, and the hand's simples
    # (with the knowledge base's) as close to complete as the call leaves the hand
    used = tile[:, None, None] + _USED_OFFSETS[_CALL_COLUMNS][None]  # [rows, 8, 2]
    used_ok = ((used >= 0) & (used < 34)).all(axis=2)
    used = np.clip(used, 0, 33)
    simple_call = _SIMPLE[tile][:, None] & melds_simple[:, None] & used_ok & _SIMPLE[used].all(axis=2)
    ask = cand & ~yaku_pon & ~have_yakuhai[:, None] & simple_call
    tanyao = np.zeros_like(cand)
    if ask.any():
        ri, ci = np.nonzero(ask)
        hand = np.rint(observations[:, sl["hand"]]).astype(np.int64)[ri]
        np.subtract.at(hand, (np.arange(len(ri))[:, None], used[ri, ci]), 1)
        hand[:, ~_SIMPLE] = 0
        kb = np.rint(observations[:, sl["knowledge_base"]]).astype(np.int64)[ri]
        kb[:, ~_SIMPLE] = 0
        needed = 4 - declared.sum(axis=1)[ri] - 1
        dd = deficiency_rows(hand, kb, needed)
        tanyao[ri, ci] = (dd != INCOMPLETABLE) & (dd <= d[ri, ci])
    cand &= yaku_pon | have_yakuhai[:, None] | tanyao
    # the least (deficiency, chi after pon, action id): _CALLS lists each kind's plain action before its red one
    key = np.where(cand, d * 4 + (~_CALL_IS_PON)[None, :] * 2, np.inf)
    key = key + np.where(cand, np.arange(len(_CALLS))[None, :] / 16, 0)
    return _CALL_ACTIONS[key.argmin(axis=1)], cand.any(axis=1)


def _scatter(rows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """int64[len(rows)]: ``values`` at the True entries of ``rows`` (in order), 0 elsewhere."""
    out = np.zeros(len(rows), dtype=np.int64)
    out[rows] = values
    return out


#: Default simulations per decision of :class:`RiichiFlatMCAgent`.
DEFAULT_SIMULATIONS = 800
#: Default cap on the draws foreseen in one simulation.
DEFAULT_MAX_ROUNDS = 8


class RiichiFlatMCAgent(RiichiGreedyAgent, FlatMCAgent):
    """SIMCAT flat Monte Carlo on the own discards, single-player model (``FlatMCAgent(rules="riichi")``;
    the method: the module docstring).

    Args:
        seed: seed of the simulations' generator.
        rules: ``"riichi"``.
        simulations: total simulations per decision, split evenly over the afterstates (at least one each).
        max_rounds: cap on the draws foreseen in one simulation.
        time_limit: optional seconds per decision: the simulations stop early (in batches of 32 per
            afterstate) once it is spent; None for none.
        prefilter: simulate only the greedy's least-deficiency discards (True, the default) or every legal
            discard (False).
        model: ``"sp"``, the single-player model, the only one it simulates (so ``flatmc:sp`` names it too).
    """

    name = "flatmc"
    _OPTIONS = ("simulations", "max_rounds", "time_limit", "prefilter", "model")

    def __init__(self, seed: int | None = 0, rules="riichi", simulations: int = DEFAULT_SIMULATIONS,
                 max_rounds: int = DEFAULT_MAX_ROUNDS, time_limit: float | None = None, prefilter: bool = True,
                 model: str = "sp", **options: Any) -> None:
        if options:
            raise ValueError(f"options {sorted(options)} are not Riichi flat MC's; allowed: {list(self._OPTIONS)}")
        if model != "sp":
            raise ValueError(f"Riichi flat MC simulates the single-player model only (model='sp', flatmc:sp), got "
                             f"model={model!r}")
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1:
            raise ValueError(f"simulations must be a positive int, got {simulations!r}")
        if isinstance(max_rounds, bool) or not isinstance(max_rounds, (int, np.integer)) or max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive int, got {max_rounds!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be None or > 0 seconds, got {time_limit!r}")
        Agent.__init__(self, seed=seed, rules=rules)
        self.simulations, self.max_rounds = int(simulations), int(max_rounds)
        self.time_limit, self.prefilter = time_limit, bool(prefilter)
        self.last_simulations = 0  # simulations run by the last discard decision (for tests and tables)
        self._play_memo: dict[tuple, int] = {}
        self._score_memo: dict[tuple, int] = {}

    def __repr__(self) -> str:
        return (f"FlatMCAgent(seed={self.seed!r}, simulations={self.simulations}, max_rounds={self.max_rounds}, "
                f"time_limit={self.time_limit!r}, prefilter={self.prefilter}, rules='riichi')")

    def choose_discard(self, s: Seat, order: list[int]) -> int:
        self.last_simulations = 0
        cands = order
        if self.prefilter:
            first = self.discard_key(s, order[0])[:2]
            cands = [a for a in order if self.discard_key(s, a)[:2] == first]
        # one afterstate per tile type (a red five and a plain five of a suit leave the same counts)
        by_type: dict[int, int] = {}
        for a in cands:
            by_type.setdefault(discard_type(a), a)
        rounds = min(int(round(float(s.v["wall_count"][0]))) // 4, self.max_rounds, int(s.kb.sum()))
        if len(by_type) < 2 or rounds < 1:
            return order[0]
        values = self.afterstate_values(s, list(by_type), rounds)
        best = max(values.values())
        for a in order:  # ties go to the greedy order
            if a in cands and values.get(discard_type(a)) == best:
                return a
        return order[0]  # pragma: no cover - the best is one of the candidates

    def afterstate_values(self, s: Seat, types: list[int], rounds: int) -> dict[int, float]:
        """Mean points won by the seat alone over the simulations, for each discarded tile type.

        Args:
            s: the seat.
            types: tile types to discard (held).
            rounds: draws per simulation.

        Returns:
            type -> mean points (the scorer's total; 0 for a simulation without a win).
        """
        import time

        per = max(1, self.simulations // len(types))
        draws = sample_draws(s.kb.astype(np.int64), per, rounds, self.rng)
        ctx = self._context(s)
        totals = dict.fromkeys(types, 0.0)
        t0, done = time.perf_counter(), 0
        for lo in range(0, per, 32):
            for t in types:
                h = s.hand.copy()
                h[t] -= 1
                base = h.tolist()
                for row in draws[lo : lo + 32].tolist():
                    totals[t] += self._playout(base, row, ctx)
            done = min(per, lo + 32)
            if self.time_limit is not None and time.perf_counter() - t0 > self.time_limit:
                break
        self.last_simulations = done * len(types)
        return {t: totals[t] / done for t in types}

    def _context(self, s: Seat) -> tuple:
        """What the scorer needs besides the tiles: melds (136-ids), winds, indicators, red fives held."""
        used = np.zeros(34, dtype=np.int64)
        melds = []
        for kind, low, called in s.melds:
            types = (low, low + 1, low + 2) if kind == "chi" else (low,) * (3 if kind == "pon" else 4)
            ids = []
            for t in types:
                ids.append(FIRST136[t] + 3 - used[t])  # the red five (copy 0) last
                used[t] += 1
            call_id = None
            if kind not in ("ankan",):
                call_id = ids[types.index(called)] if called in types else ids[0]
            melds.append(Meld(kind, tuple(int(i) for i in ids), None if call_id is None else int(call_id)))
        indicators = tuple(FIRST136[int(x) - 1] + 3 for x in s.v["dora_indicators"] if x > 0)
        red = tuple(bool(x) for x in s.v["hand_red"])
        wctx = WinContext(is_tsumo=True, is_riichi=not s.open, seat_wind=s.wind("seat_wind"),
                          round_wind=s.wind("round_wind"), dora_indicators=indicators)
        return (tuple(melds), wctx, red, tuple(used.tolist()), len(s.melds))

    def _playout(self, hand: list[int], draws: list[int], ctx: tuple) -> int:
        """Points won by the seat playing ``draws`` alone from the ``3m + 1``-tile ``hand`` (0: no win)."""
        h = list(hand)
        n_melds = ctx[4]
        now = self._dfncy(tuple(h), n_melds)
        for x in draws:
            h[x] += 1
            key = tuple(h)
            after = self._dfncy(key, n_melds)
            if after == 0:  # a winning shape (deficiency 0: nothing missing)
                pts = self._score(key, x, ctx)
                if pts:
                    return pts
                h[x] -= 1  # a completion without a yaku is no win: the draw is discarded
                continue
            if after >= now:  # the draw does not help: discard it
                h[x] -= 1
                continue
            out = self._play_memo.get(key)
            if out is None:
                out = self._discard_of(h, after, n_melds)
                self._play_memo[key] = out
            h[out] -= 1
            now = after
        return 0

    def _dfncy(self, key: tuple, n_melds: int) -> int:
        """Deficiency of a hand (no knowledge base: every unseen copy counts), memoised."""
        d = self._play_memo.get(("d", key))
        if d is None:
            if len(self._play_memo) > 400_000:
                self._play_memo.clear()
            d = deficiency(np.array(key, dtype=np.int8), exposed_melds=n_melds, rules="riichi")
            self._play_memo[("d", key)] = d
        return d

    def _discard_of(self, h: list[int], target: int, n_melds: int) -> int:
        """A discard from a hand after its draw that keeps its deficiency ``target`` (honours first, then
        the lowest type): the 3m+2-tile hand's deficiency is that of its best discard."""
        for t in _PLAYOUT_ORDER:
            if h[t]:
                h[t] -= 1
                d = self._dfncy(tuple(h), n_melds)
                h[t] += 1
                if d == target:
                    return t
        raise AssertionError("no discard keeps the deficiency")  # pragma: no cover - by definition

    def _score(self, key: tuple, win: int, ctx: tuple) -> int:
        memo = self._score_memo.get((key, win))
        if memo is not None:
            return memo
        melds, wctx, red, _, _ = ctx
        concealed, win_id = [], None
        for t, n in enumerate(key):
            # copies of a five: the red one (copy 0) first when the seat holds it, else never
            order = (0, 3, 2, 1) if t in _RED_TYPE and red[_RED_TYPE.index(t)] else (3, 2, 1, 0)
            for c in range(n):
                tile = FIRST136[t] + order[c]
                concealed.append(tile)
                if t == win and win_id is None:
                    win_id = tile
        res = score_hand(concealed, list(melds), win_id, wctx, validate=False)
        pts = 0 if res is None else int(res.cost.get("total", 0))
        if len(self._score_memo) > 200_000:
            self._score_memo.clear()
        self._score_memo[(key, win)] = pts
        return pts


#: The room's agents by the shared agents' names (``Agent.__new__`` builds these for ``rules="riichi"``).
AGENTS = {"random": RiichiRandomAgent, "greedy": RiichiGreedyAgent, "flatmc": RiichiFlatMCAgent}
