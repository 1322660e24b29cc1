"""``GreedyAgent``: the deficiency-greedy strategy of the BDA/HBBA papers, knowledge-aware.

The BDA paper (Sec. 3, "It is one basic requirement for a Mahjong AI ...") describes the strategy:
declare a win when the hand is complete; otherwise discard the tile that leaves the best hand; claim
a pong only when it reduces (or does not increase) the deficiency. We apply it with the
knowledge-aware deficiency (BDA Def. 9: the KB is what this seat has not seen), and to chows and
kongs in the same way:

- **win** whenever ``WIN`` is legal;
- **discard** the tile t minimising ``dfncy(H - t, KB)``; ties go to the larger number of effective
  tiles left in the KB (copies whose draw lowers the deficiency), then to the lowest tile id;
- **concealed kong** of t when ``dfncy(H - 4t, KB)`` with one more meld is at most the best discard's
  deficiency; **added kong** of t when discarding t is among the best discards (the hand left is the
  same ``H - t`` and the kong draws a replacement tile on top);
- **claims** (chow / pong / exposed kong of the discard d): the claim with the lowest deficiency after
  it, taken when that is at most the deficiency of the hand now; ties prefer kong, pong, then chows
  (low, mid, high); otherwise ``PASS``.

All deficiencies come from the exact batched ``dp`` core, one call per feature.

**Many seats at once** (:meth:`GreedyAgent.act_rows`, a training loop's opponents at every table):
the same decisions read from the observation's per-action views (``deficiency_after_discard``,
``effective_count_after_discard``, ``deficiency``, ``deficiency_after_claim``, which hold exactly the
scores above) in a few numpy operations over all rows; the rarer rows (a kong to weigh, a room's
suit declaration, a claim after a declared missing suit) go through :meth:`GreedyAgent.decide` one by
one. A test compares the two on many observations of every preset.

**The rule set's deficiency**. Where the rules let seven pairs win (``Rules.seven_pairs``:
distinct pairs, or where the room says so a four of a kind as two pairs), a seat with no declared meld
minimises ``min(melds-and-pair, seven pairs)`` (:mod:`mjenv.deficiency.seven_pairs`), and its effective
tiles are the draws that lower that minimum. After a declared missing suit, the discard scores
are those of the hand and KB without that suit (:func:`mjenv.deficiency.forms.without_suit`), and discarding one of
its tiles leaves the deficiency and effective count as they are: exactly the observation's
``deficiency_after_discard`` and ``effective_count_after_discard`` views (a test checks it). Claims
compare the claim's melds-and-pair deficiency with the rule set's deficiency now. Under rules without
seven pairs or a missing suit nothing changes.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
from mjenv.baselines._common import PHASE_CLAIM, PHASE_DISCARD, PHASE_END, Agent, Situation

from mjenv.deficiency import dp
from mjenv.deficiency.features import NOT_APPLICABLE, discard_rows
from mjenv.deficiency.forms import without_suit
from mjenv.deficiency.seven_pairs import SEVEN_PAIRS, check_seven_pairs, form_rows, seven_pairs_deficiency, variants
from mjenv.rules import Rules
from mjenv.rulesets import excluded_suit_view


def _dfncy(hands: np.ndarray, kb: np.ndarray, needed: np.ndarray | int) -> np.ndarray:
    """Exact knowledge-aware deficiency of a batch sharing one KB.

    Args:
        hands: int[B, T] tile counts (3m+1 or 3m+2 tiles, m = ``needed``).
        kb: int[T] knowledge base (hand + kb <= 4 for every row).
        needed: melds still needed, int or int[B].

    Returns:
        int32[B].
    """
    hands = np.atleast_2d(np.asarray(hands)).astype(np.int8)
    kbs = np.broadcast_to(np.asarray(kb, dtype=np.int8), hands.shape).copy()
    m = np.broadcast_to(np.asarray(needed, dtype=np.int64), (len(hands),)).copy()
    if len(hands) == 0:
        return np.zeros(0, dtype=np.int32)
    return dp.deficiency_batch(hands, kbs, m)


def seven_pairs_code(rules: Rules, melds_needed: int) -> int:
    """The seven-pairs form that also completes a seat's hand: 0 none, 1 distinct pairs, 2 a four of a
    kind as two pairs (:data:`mjenv.deficiency.seven_pairs.SEVEN_PAIRS`); 0 once a meld is declared."""
    from mjenv.observation import seven_pairs_form

    if melds_needed != rules.melds:
        return 0
    return check_seven_pairs(seven_pairs_form(rules))


def rule_deficiency_rows(
    hands: np.ndarray, kbs: np.ndarray, needed: np.ndarray, forms: np.ndarray | None
) -> np.ndarray:
    """Knowledge-aware deficiency of rows, seven pairs counted where a row names a form.

    Args:
        hands: int[B, T] counts; kbs: int[B, T] knowledge bases; needed: int[B] m.
        forms: None, or int[B] per row the seven-pairs form (:func:`seven_pairs_code`; 0 none).

    Returns:
        int32[B]: ``min(melds-and-pair, seven pairs)`` where ``forms[b]`` is 1 or 2, else melds-and-pair.
    """
    d = dp.deficiency_batch(np.asarray(hands, dtype=np.int8), np.asarray(kbs, dtype=np.int8),
                            np.asarray(needed, dtype=np.int64))
    for form, rows in form_rows(forms):
        sp = seven_pairs_deficiency(np.asarray(hands)[rows], np.asarray(kbs)[rows], SEVEN_PAIRS[form])
        d[rows] = np.minimum(d[rows], sp)
    return d


def discard_scores(
    hand: np.ndarray, kb: np.ndarray, needed: int, seven_pairs: int = 0, excluded_suit: int = -1
) -> tuple[np.ndarray, np.ndarray]:
    """Deficiency and effective-tile count after discarding each held tile, under the rule set
    (:func:`mjenv.deficiency.features.discard_rows` of one hand; see the module docstring).

    Args:
        hand: int[T] a 3m+2-tile hand.
        kb: int[T] knowledge base.
        needed: m, melds still needed.
        seven_pairs: the seven-pairs form that also completes the hand (:func:`seven_pairs_code`),
            0 for none.
        excluded_suit: the declared missing suit (0..2), -1 for none: the scores are those of the hand
            and KB without it, and discarding one of its tiles leaves them as they are.

    Returns:
        (dfncy, effective): int32[T] deficiency of ``hand - t`` (``NOT_APPLICABLE`` where t is not
        held) and int64[T] KB copies of the tiles whose draw lowers that deficiency (0 where not held).
    """
    hand = np.asarray(hand).reshape(-1)
    own, kb = without_suit(hand, excluded_suit), without_suit(kb, excluded_suit)
    forms = np.array([seven_pairs]) if seven_pairs else None
    d, eff = discard_rows(own[None], kb[None], np.array([needed]), forms)
    d, eff = d[0], np.maximum(eff[0], 0)
    gone = (hand > 0) & (own == 0)  # tiles of the missing suit: out of every completion
    if gone.any():
        now, draw, _ = dp.deficiency_one_tile_rows(own[None].astype(np.int8), kb[None].astype(np.int8),
                                                   np.array([needed], dtype=np.int64))
        if seven_pairs:
            sp = variants(own[None], kb[None], seven_pairs, discard_draw=False)
            now, draw = np.minimum(now, sp["now"]), np.minimum(draw, sp["draw"])
        d[gone] = now[0]
        eff[gone] = int((((kb > 0) & (draw[0] < now[0])) * kb).sum())
    return d, eff


def best_discard(
    hand: np.ndarray, kb: np.ndarray, needed: int, allowed: np.ndarray | None = None,
    seven_pairs: int = 0, excluded_suit: int = -1,
) -> tuple[int, int]:
    """The greedy discard: lowest deficiency, then most effective tiles, then lowest tile id.

    Args:
        hand: int[T] a 3m+2-tile hand.
        kb: int[T] knowledge base.
        needed: m.
        allowed: optional bool[T] of discards allowed (default: every held tile).
        seven_pairs, excluded_suit: the rule set's constraints, as in :func:`discard_scores`.

    Returns:
        (tile, deficiency after discarding it).
    """
    d, eff = discard_scores(hand, kb, needed, seven_pairs, excluded_suit)
    ok = d != NOT_APPLICABLE
    if allowed is not None:
        ok &= np.asarray(allowed, dtype=bool)
    cand = np.flatnonzero(ok)
    if len(cand) == 0:
        raise ValueError("no tile to discard: the hand holds none of the allowed tiles")
    # lexicographic: min deficiency, max effective count, min tile id
    order = np.lexsort((cand, -eff[cand], d[cand]))
    t = int(cand[order[0]])
    return t, int(d[t])


class GreedyAgent(Agent):
    """Deficiency-greedy agent (see the module docstring for the exact rule).

    Args:
        seed: seed (the strategy is deterministic; kept for a uniform agent interface).
        rules: preset name or :class:`~mjenv.rules.Rules` the observations are encoded with.
    """

    name = "greedy"
    answers_forced_at_once = True  # decide() returns the one legal action first

    def decide(self, s: Situation) -> int:
        legal = s.legal
        lay = s.layout
        if len(legal) == 1:
            return int(legal[0])
        if s.phase > PHASE_END:  # a phase of the rule set's own
            return self.own_phase(s)
        if s.mask[lay.win]:
            return lay.win
        if s.phase == PHASE_DISCARD and s.mask[: lay.num_tile_types].any():
            return self._own_turn(s)
        if s.phase == PHASE_CLAIM and s.last_discard >= 0:
            return self._claim(s)
        return lay.pass_ if s.mask[lay.pass_] else int(legal[0])

    @classmethod
    def act_rows(cls, agents: Sequence[Agent], observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The decisions of :meth:`act` for many rows in one call (see the module docstring).

        Args:
            agents: B GreedyAgents (one per row).
            observations: float32[B, size] rows of observations of the agents' rules.
            masks: int8/bool[B, A] their legal actions.

        Returns:
            int64[B] action ids, each equal to ``agents[i].act`` of row i.
        """
        if len(agents) == 0:
            return np.zeros(0, dtype=np.int64)
        first = agents[0]
        spec = first._decoder()
        observations = np.asarray(observations)
        masks = np.asarray(masks).astype(bool)
        same_rules = all(a.rules is first.rules or a.rules == first.rules for a in agents)
        fits = (observations.ndim == 2 and observations.shape[1] == spec.size and masks.ndim == 2
                and masks.shape == (len(observations), first.layout.size) and masks.any(axis=1).all())
        if not (same_rules and fits and all(v in spec.slices for v in _BATCH_VIEWS)):
            return super().act_rows(agents, observations, masks)  # per row, with act()'s own checks
        actions, done = _greedy_rows(first, observations, masks)
        for i in np.flatnonzero(~done):
            actions[i] = agents[i].act({"observation": observations[i], "action_mask": masks[i]})
        return actions

    def _own_turn(self, s: Situation) -> int:
        lay, n_t = s.layout, s.layout.num_tile_types
        form = seven_pairs_code(self.rules, s.melds_needed)
        tile, d_best = best_discard(s.hand, s.kb, s.melds_needed, s.mask[:n_t], form, s.excluded_suit)
        kongs = np.flatnonzero(s.mask[n_t : 2 * n_t])
        hand = without_suit(s.hand, s.excluded_suit)  # as the discard scores see it
        for t in kongs:
            if s.hand[t] >= 4:
                # concealed kong: four tiles leave the hand, one more meld is declared (no seven pairs)
                after = hand.copy()
                after[t] -= 4
                ok = int(_dfncy(after[None], s.kb, s.melds_needed - 1)[0]) <= d_best
            else:
                # added kong: the hand left is H - t, exactly the discard of t (a meld is declared)
                after = hand.copy()
                after[t] -= 1
                ok = int(_dfncy(after[None], s.kb, s.melds_needed)[0]) <= d_best
            if ok:
                return lay.kong(int(t))
        return lay.discard(tile)

    def _claim(self, s: Situation) -> int:
        from mjenv.deficiency.features import deficiency_after_claim

        lay = s.layout
        now = int(_dfncy(s.hand[None], s.kb, s.melds_needed)[0])
        form = seven_pairs_code(self.rules, s.melds_needed)
        if form:  # a claim declares a meld: it gives up the seven pairs this hand may still make
            own = without_suit(s.hand, s.excluded_suit)
            now = min(now, int(rule_deficiency_rows(own[None], s.kb[None], [s.melds_needed], [form])[0]))
        exposed = self.rules.melds - s.melds_needed
        after = deficiency_after_claim(
            s.hand.astype(np.int8), s.kb.astype(np.int8), s.last_discard, exposed_melds=exposed, melds=self.rules.melds
        )
        # columns of CLAIM_KINDS: chow_low, chow_mid, chow_high, pong, exposed_kong; ties prefer kong, pong, chows
        actions = (lay.chow_low, lay.chow_mid, lay.chow_high, lay.pong, lay.exposed_kong)
        preference = (4, 3, 0, 1, 2)
        best, best_d = lay.pass_, None
        for col in preference:
            a, d = actions[col], int(after[col])
            if not s.mask[a] or d == NOT_APPLICABLE or d > now:
                continue
            if best_d is None or d < best_d:
                best, best_d = a, d
        if best == lay.pass_ and not s.mask[lay.pass_]:
            return int(s.legal[0])
        return int(best)


#: :func:`~mjenv.rulesets.excluded_suit_view` of a rule set, looked up once (the batched decisions run every env step)
_suit_view = functools.lru_cache(maxsize=None)(excluded_suit_view)

#: Views the batched decisions read (see :meth:`GreedyAgent.act_rows`).
_BATCH_VIEWS = ("hand", "num_melds", "last_discard", "phase", "deficiency", "deficiency_after_discard",
                "effective_count_after_discard", "deficiency_after_claim")


def _greedy_rows(agent: GreedyAgent, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The greedy actions of the rows the observation's views decide alone.

    Args:
        agent: any GreedyAgent of these rules (the rule is the same for all).
        observations: float32[B, size]; masks: bool[B, A] (every row with a legal action).

    Returns:
        (actions int64[B], done bool[B]): ``actions[i]`` is row i's decision where ``done[i]``; the other
        rows (a kong legal on the own turn, a room's suit declaration, a claim after a declared missing
        suit, a hand with nothing to discard) need :meth:`GreedyAgent.decide`.
    """
    spec = agent._decoder()
    lay, t = agent.layout, agent.layout.num_tile_types

    def view(name: str) -> np.ndarray:
        return observations[:, spec.slices[name]]

    legal_count = masks.sum(axis=1)
    actions = np.argmax(masks, axis=1).astype(np.int64)  # the only legal action where there is one
    done = legal_count == 1
    phase = np.argmax(view("phase"), axis=1)
    free = ~done & (phase <= PHASE_END)  # a phase of the rule set's own goes row by row (own_phase)
    # a declared missing suit (own row of the public declarations): the discard views hold its scores
    # too, a claim's are the agent's own (per seat)
    declared = np.zeros(len(masks), dtype=bool)
    suit_view = _suit_view(agent.rules)
    if suit_view in spec.slices:
        declared = view(suit_view)[:, :3].max(axis=1) > 0
    win = free & masks[:, lay.win]
    actions[win] = lay.win
    done |= win
    free &= ~win
    # own turn: the best discard (lowest deficiency after it, most effective tiles, lowest id)
    turn = free & (phase == PHASE_DISCARD) & masks[:, :t].any(axis=1)
    free &= ~turn
    hand = np.rint(view("hand")).astype(np.int64)
    cand = masks[:, :t] & (hand > 0)
    simple = turn & ~masks[:, t : 2 * t].any(axis=1) & cand.any(axis=1)
    if simple.any():
        d = np.rint(view("deficiency_after_discard")[simple]).astype(np.int64)
        eff = np.maximum(np.rint(view("effective_count_after_discard")[simple]).astype(np.int64), 0)
        key = np.where(cand[simple], d * (1 << 20) - eff, np.iinfo(np.int64).max)
        actions[simple] = np.argmin(key, axis=1)  # argmin: the lowest tile id among equal keys
        done |= simple
    # claims of the last discard: the lowest deficiency after a legal claim, at most the deficiency now
    last = view("last_discard")
    claim = free & (phase == PHASE_CLAIM) & (last.max(axis=1) > 0)
    free &= ~claim
    claim &= ~declared
    if claim.any():
        now = np.rint(view("deficiency")[claim, 0]).astype(np.int64)
        after = np.rint(view("deficiency_after_claim")[claim]).astype(np.int64)
        m = masks[claim]
        best = np.where(m[:, lay.pass_], lay.pass_, np.argmax(m, axis=1))
        best_d = np.full(len(now), np.iinfo(np.int64).max)
        kinds = (lay.chow_low, lay.chow_mid, lay.chow_high, lay.pong, lay.exposed_kong)
        for col in (4, 3, 0, 1, 2):  # ties prefer kong, pong, then chows (low, mid, high)
            d = after[:, col]
            take = m[:, kinds[col]] & (d != NOT_APPLICABLE) & (d <= now) & (d < best_d)
            best = np.where(take, kinds[col], best)
            best_d = np.where(take, d, best_d)
        actions[claim] = best
        done |= claim
    # any other phase with a choice (a robbed kong not won): pass when legal, else the first legal action
    actions[free] = np.where(masks[free, lay.pass_], lay.pass_, np.argmax(masks[free], axis=1))
    done |= free
    return actions, done
