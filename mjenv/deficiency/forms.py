"""The winning forms by name: where the deficiency layer meets the rule sets' words.

The deficiency code works on form codes and suit indices; this module maps the names its public
arguments take to them, in one place (the layer imports no rule-set room, :mod:`mjenv.rulesets`):

* :data:`SEVEN_PAIRS`: the closed-hand forms a rule set may let win besides m melds + a pair, by code
  (the kernel's, ``_closed.h``): 0 none, 1 ``"distinct"`` (seven distinct pairs: basic's seven pairs,
  Riichi's chiitoitsu), 2 ``"fours"`` (seven pairs where a four of a kind counts as two pairs: Sichuan's
  龙七对), 3 ``"riichi"`` (the least of seven distinct pairs and thirteen orphans, kokushi musou).
* :data:`RULES`: the sets of winning forms ``rules=`` names, each the closed-hand form it adds.
* The missing suit (Sichuan's 定缺, ``missing_suit=``): a suit index whose tiles are in no completion;
  :func:`without_suit` is the one writer of the step that drops its counts (the features, the greedy
  agent and flat MC all go through it).

The missing suit's deficiency (:func:`mjenv.deficiency.sichuan_deficiency`) is the definition of
``docs/DESIGN.md`` over the complete patterns W with W[t] = 0 for every t of the missing suit (m melds +
1 pair or, with no exposed meld, seven pairs with W[t] in {0, 2, 4}). Tiles of the missing suit in H are
never part of W, so each costs one exchange. The cost sum_t max(0, W[t] - H[t]) with W[t] = 0 on the
missing suit does not depend on H there, so it equals the ordinary deficiency of H and KB with the
missing suit's counts set to 0: the ordinary engines answer it exactly (the tests check this against
the enumerating reference, :mod:`mjenv.deficiency.reference`, ``exclude_suit``).
"""

from __future__ import annotations

import numpy as np

#: The closed-hand forms a rule set may allow besides melds and a pair, by code: none, seven distinct
#: pairs, seven pairs with a four of a kind as two pairs, Riichi's (seven distinct pairs or thirteen
#: orphans).
SEVEN_PAIRS = (None, "distinct", "fours", "riichi")
#: The sets of winning forms ``rules=`` names, and the closed-hand form each adds to m melds + a pair
#: (its code in :data:`SEVEN_PAIRS`): ``"basic"`` none (the papers' definition, every rule set's meld
#: form), ``"riichi"`` seven distinct pairs and thirteen orphans.
RULES = {"basic": 0, "riichi": 3}
#: Suit letters in tile-id order (``mjenv.tiles``: ids 0..8 bamboo, 9..17 characters, 18..26 dots).
SUITS = ("s", "m", "p")


def check_seven_pairs(seven_pairs) -> int:
    """The form's index in :data:`SEVEN_PAIRS` (0 none, 1 distinct, 2 fours, 3 riichi; the kernel's code).

    Raises:
        ValueError: anything else.
    """
    for i, name in enumerate(SEVEN_PAIRS):
        if seven_pairs is name or (isinstance(seven_pairs, str) and seven_pairs == name):
            return i
    raise ValueError(f"seven_pairs must be one of {SEVEN_PAIRS}, got {seven_pairs!r}")


def check_rules(rules, melds: int = 4) -> int:
    """The closed-hand form code of a ``rules`` name (:data:`RULES`).

    Raises:
        ValueError: a name not in :data:`RULES` (naming the allowed ones), or a closed-hand form with
            ``melds`` other than 4 (seven pairs and thirteen orphans are 14-tile hands).
    """
    if not isinstance(rules, str) or rules not in RULES:
        raise ValueError(
            f"unknown rules {rules!r}; allowed {', '.join(repr(r) for r in RULES)} (the sets of winning forms: "
            "'basic' m melds + a pair, 'riichi' also seven distinct pairs and thirteen orphans)"
        )
    form = RULES[rules]
    if form and melds != 4:
        raise ValueError(f"rules={rules!r} needs melds=4 (14-tile hands), got melds={melds!r}")
    return form


def check_missing_suit(missing_suit) -> int:
    """``missing_suit`` as the suit index of ``mjenv.tiles.suit_of``: 0 ('s'), 1 ('m') or 2 ('p').

    Raises:
        ValueError: anything else (booleans included).
    """
    if isinstance(missing_suit, str) and missing_suit in SUITS:
        return SUITS.index(missing_suit)
    if isinstance(missing_suit, (int, np.integer)) and not isinstance(missing_suit, bool) and 0 <= missing_suit <= 2:
        return int(missing_suit)
    raise ValueError(
        f"missing_suit must be None, 0/'s' (bamboo), 1/'m' (characters) or 2/'p' (dots), got {missing_suit!r}"
    )


def without_suit(counts, missing) -> np.ndarray:
    """A copy of ``counts`` with the missing suit's 9 entries set to 0 (the one writer of that step:
    the features, the greedy agent and flat MC all go through it).

    Args:
        counts: int[T] counts (a hand or a KB) or a batch int[B, T]; the dtype is kept.
        missing: the suit (0..2), -1 for none; or for a batch int[B], one suit (or -1) per row.

    Returns:
        Same shape and dtype as ``counts``.
    """
    out = np.array(counts, copy=True)
    missing = np.asarray(missing)
    if missing.ndim == 0:
        if missing >= 0:
            out[..., 9 * int(missing) : 9 * int(missing) + 9] = 0
        return out
    for s in range(3):
        out[missing == s, 9 * s : 9 * s + 9] = 0
    return out
