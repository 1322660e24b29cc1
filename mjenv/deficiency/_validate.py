"""Input normalisation and validation shared by every deficiency entry point.

Every public function turns its arguments into a batch first (a single hand is a batch of one) and
hands the backends clean arrays: ``hands``/``kbs`` int8[B, T] with T in {27, 34}, ``melds_needed``
int64[B]. Backends never validate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mjenv import tiles as _tiles
from mjenv.deficiency.forms import RULES, check_rules  # noqa: F401  (importable from here too)

METHODS = ("auto", "hbba", "bda", "dp", "ndde")
#: Keyword options each method's backend takes (its ``deficiency_batch`` keywords; a test keeps the
#: two in step). An unknown one is a ValueError naming the allowed ones, for every method alike.
METHOD_OPTIONS = {
    "auto": (),
    "hbba": (),
    "bda": ("thirteen", "variant"),
    "dp": ("device",),
    "ndde": ("seed", "population", "generations", "mutation_factor", "crossover_rate", "repair", "out_of_range",
             "s_order", "rounding", "stop_at"),
}


@dataclass(frozen=True)
class Batch:
    """A validated batch.

    Attributes:
        hands: int8[B, T] tile counts.
        kbs: int8[B, T] knowledge bases (hand + kb <= 4 everywhere).
        melds_needed: int64[B] melds still needed, ``melds - exposed_melds``.
        single: True when the caller passed one hand (the result is unwrapped to an int).
    """

    hands: np.ndarray
    kbs: np.ndarray
    melds_needed: np.ndarray
    single: bool


def _as_counts(x, name: str, length: int | None) -> np.ndarray:
    """``x`` (str, counts or a batch of counts) as int8[T] or int8[B, T], every count checked to be 0..4.

    The range is checked on the values as given, before any cast: a cast first would wrap (65,536
    as int16 is 0) and accept a count that is not a count. Accepted element types: integers of any
    width and signedness, and floats holding whole numbers (what a float observation holds); booleans
    are rejected (a count is not a truth value), and so are fractions, NaN and infinities.
    """
    if isinstance(x, str):
        return _tiles.parse(x, length)
    arr = np.asarray(x)
    kind = arr.dtype.kind
    if kind == "b" or kind not in "iuf":
        what = "booleans" if kind == "b" else f"dtype {arr.dtype}"
        raise ValueError(f"{name} must hold integer tile counts 0..4 (any integer dtype, or whole floats), got {what}")
    if arr.ndim not in (1, 2) or arr.shape[-1] not in (27, 34):
        raise ValueError(
            f"{name} must have shape (27,), (34,), (B, 27) or (B, 34) (tile counts), got shape {arr.shape}"
        )
    if kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            _raise_at(np.atleast_2d(bad), np.atleast_2d(arr), name, "is not a whole number", arr.ndim == 1)
    _check_range(arr, name)
    return arr.astype(np.int8)


def _raise_at(bad: np.ndarray, values: np.ndarray, name: str, what: str, single: bool) -> None:
    """Raise the ValueError for the first True entry of ``bad`` (both 2-D), naming tile and row."""
    b, t = (int(v) for v in np.argwhere(bad)[0])
    where = "" if single else f" (batch row {b})"
    raise ValueError(
        f"{name} count {values[b, t].item()!r} for tile {_tiles.tile_name(t)} (id {t}){where} {what}; "
        "counts must be integers 0..4"
    )


def fast_single(hand, kb, exposed_melds, melds) -> tuple[list[int], list[int], int] | None:
    """Lean validation of the commonest call: one hand as a 1-D integer ndarray (27 or 34 entries),
    ``kb`` None or an integer ndarray of the same shape, plain int ``exposed_melds`` and ``melds``.

    Returns:
        (hand list, kb list, melds needed) when the input is of that form and valid; None otherwise,
        so the caller falls through to :func:`normalize`, which gives every error message.
    """
    if type(hand) is not np.ndarray or hand.ndim != 1 or hand.dtype.kind not in "iu":
        return None
    if type(exposed_melds) is not int or type(melds) is not int or not 1 <= melds <= 5:
        return None
    if not 0 <= exposed_melds <= melds:
        return None
    h = hand.tolist()
    n = len(h)
    if n != 27 and n != 34:
        return None
    if kb is None:
        if min(h) < 0 or max(h) > 4:
            return None
        k = [4 - v for v in h]
    elif type(kb) is np.ndarray and kb.shape == hand.shape and kb.dtype.kind in "iu":
        k = kb.tolist()
        if min(h) < 0 or min(k) < 0 or max(map(int.__add__, h, k)) > 4:
            return None
    else:
        return None
    m = melds - exposed_melds
    size = sum(h)
    if size != 3 * m + 1 and size != 3 * m + 2:
        return None
    return h, k, m


def check_method(method: str, options=()) -> str:
    """Raise a ValueError for an unknown method or an option the method does not take.

    Args:
        method: one of :data:`METHODS`.
        options: the names of the keyword options given with it.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; allowed {', '.join(repr(m) for m in METHODS)}")
    allowed = METHOD_OPTIONS[method]
    unknown = sorted(o for o in options if o not in allowed)
    if unknown:
        takes = ", ".join(repr(o) for o in allowed) if allowed else "none"
        raise ValueError(
            f"method {method!r} takes no option {', '.join(repr(o) for o in unknown)}; its options: {takes}"
        )
    return method


def normalize(hand, kb=None, exposed_melds=0, melds: int = 4, *, allow_any_size: bool = False) -> Batch:
    """Validate and batch the arguments of :func:`mjenv.deficiency.deficiency`.

    Args:
        hand: str, counts (T,) or batch (B, T).
        kb: None (means 4 - hand), str, counts (T,) or (B, T).
        exposed_melds: int or int[B].
        melds: melds in a complete hand (4, or 5 for 16-tile rule sets).
        allow_any_size: accept any hand size n with (n - 2) % 3 == 0 or (n - 1) % 3 == 0 without tying it
            to ``exposed_melds`` (used by ``is_complete``).

    Raises:
        ValueError: with what was wrong and what is allowed.
    """
    if not isinstance(melds, (int, np.integer)) or isinstance(melds, bool) or not 1 <= melds <= 5:
        raise ValueError(f"melds must be an int in 1..5 (4 for 13-tile rules, 5 for 16-tile), got {melds!r}")
    kb_len = None
    if kb is not None and not isinstance(kb, str):
        kb_arr = np.asarray(kb)
        if kb_arr.ndim in (1, 2) and kb_arr.shape[-1] in (27, 34):
            kb_len = kb_arr.shape[-1]
    h = _as_counts(hand, "hand", kb_len)
    single = h.ndim == 1
    h2 = np.atleast_2d(h).astype(np.int16)
    if kb is None:
        k2 = None
    else:
        k = _as_counts(kb, "kb", h2.shape[1])
        k2 = np.atleast_2d(k).astype(np.int16)
        if k2.shape[1] != h2.shape[1]:
            if isinstance(hand, str) and k2.shape[1] == 34 and h2.shape[1] == 27:
                h2 = np.concatenate([h2, np.zeros((h2.shape[0], 7), np.int16)], axis=1)
            elif h2.shape[1] == 34 and h2[:, 27:].any():
                raise ValueError(
                    "the hand holds honours (ids 27-33) but the KB has 27 entries; give a 34-entry KB"
                )
            else:
                raise ValueError(
                    f"hand has {h2.shape[1]} tile types but kb has {k2.shape[1]}; both must be 27 or both 34"
                )
        if k2.shape[0] != h2.shape[0]:
            if k2.shape[0] == 1:
                k2 = np.repeat(k2, h2.shape[0], axis=0)
            else:
                raise ValueError(f"batch sizes differ: {h2.shape[0]} hands but {k2.shape[0]} knowledge bases")
    if k2 is None:
        k2 = 4 - h2
    else:
        over = (h2 + k2) > 4
        if over.any():
            b, t = (int(v) for v in np.argwhere(over)[0])
            where = f" (batch row {b})" if not single else ""
            raise ValueError(
                f"kb is not compatible with the hand{where}: tile {_tiles.tile_name(t)} has "
                f"{h2[b, t]} in hand + {k2[b, t]} in kb > 4; hand + kb must be at most 4 for every tile"
            )
    exp = np.asarray(exposed_melds)
    if exp.dtype.kind not in "iu" or exp.ndim > 1:
        raise ValueError(f"exposed_melds must be an int or an int array of shape (B,), got {exposed_melds!r}")
    if exp.ndim == 1 and exp.shape[0] != h2.shape[0]:
        raise ValueError(f"exposed_melds has {exp.shape[0]} entries for a batch of {h2.shape[0]} hands")
    # checked before the cast to int64, which would wrap the largest unsigned values
    if (exp < 0).any() or (exp > melds).any():
        raise ValueError(f"exposed_melds must be in 0..{melds}, got {exposed_melds!r}")
    exp = np.broadcast_to(exp.astype(np.int64), (h2.shape[0],)) if exp.ndim == 0 else exp.astype(np.int64)
    needed = melds - exp
    sizes = h2.sum(axis=1)
    if allow_any_size:
        needed = np.where(sizes % 3 == 2, (sizes - 2) // 3, sizes // 3)
        if (sizes > 17).any():
            raise ValueError(f"a hand holds at most 17 tiles (5 melds + 1 pair), got {int(sizes.max())}")
        bad = np.zeros(len(sizes), dtype=bool)
    else:
        bad = (sizes != 3 * needed + 1) & (sizes != 3 * needed + 2)
    if bad.any():
        b = int(np.argmax(bad))
        where = f" (batch row {b})" if not single else ""
        raise ValueError(
            f"hand size {int(sizes[b])}{where} does not fit exposed_melds={int(exp[b])}: with {melds} melds a "
            f"hand holds {3 * int(needed[b]) + 1} or {3 * int(needed[b]) + 2} tiles "
            "(3m+1 or 3m+2, m = melds - exposed_melds)"
        )
    return Batch(h2.astype(np.int8), k2.astype(np.int8), np.ascontiguousarray(needed, dtype=np.int64), single)


def _check_range(a: np.ndarray, name: str) -> None:
    """Raise unless every entry of ``a`` (1-D or 2-D, any real dtype, uncast) is in 0..4."""
    if a.size == 0 or (a.min() >= 0 and a.max() <= 4):  # two reductions; locate only on error
        return
    a2 = np.atleast_2d(a)
    _raise_at((a2 < 0) | (a2 > 4), a2, name, "is out of range", a.ndim == 1)
