"""Shared helpers of the tests that compare two envs' returns (two engines, thread counts, a copy and its original):
exact equality of nested returns, and every array of a vector env's returns by path."""

from __future__ import annotations

import numpy as np


def assert_same(a, b, where: str = "", names: tuple[str, str] = ("a", "b")) -> None:
    """``a == b`` exactly: dicts key by key and in the same key order, tuples and lists item by item, arrays and
    numbers in type, dtype, shape and bytes (a list of numbers is compared as one array). The first difference is
    named by its path in ``where``, with where in the array it is and both values (``names`` say whose)."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]", names)
        return
    if isinstance(a, (tuple, list)) and not (a and isinstance(a[0], (int, float))):
        assert type(a) is type(b) and len(a) == len(b), f"{where}: {type(a).__name__} of {len(a)} != {b!r:.80}"
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{k}]", names)
        return
    assert type(a) is type(b), f"{where}: {type(a)} != {type(b)}"
    x, y = np.asarray(a), np.asarray(b)
    assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: {x.dtype}{x.shape} != {y.dtype}{y.shape}"
    if x.tobytes() != y.tobytes():
        differ = np.argwhere(np.atleast_1d(x != y))
        if not len(differ):  # equal values in other bytes (0.0 and -0.0, two NaNs)
            raise AssertionError(f"{where}: the bytes differ ({names[0]} {x!r:.80}, {names[1]} {y!r:.80})")
        at = tuple(int(i) for i in differ[0]) if x.ndim else ()
        raise AssertionError(f"{where}: values differ first at {list(at)}: {names[0]} {x[at]}, {names[1]} {y[at]}")


def step_arrays(out, path: str = "") -> list[tuple[str, np.ndarray]]:
    """Every array of a vector env's returns (a step's five or a reset's two), each with its path
    (``"/4/final_info/scores"``); dicts are walked in key order, so two runs' arrays line up entry by entry.

    Raises:
        TypeError: on anything but a tuple, list, dict or array (a return the tests would not compare).
    """
    if isinstance(out, np.ndarray):
        return [(path, out)]
    if isinstance(out, dict):
        return [x for k in sorted(out) for x in step_arrays(out[k], f"{path}/{k}")]
    if isinstance(out, (tuple, list)):
        return [x for i, v in enumerate(out) for x in step_arrays(v, f"{path}/{i}")]
    raise TypeError(f"{path or 'the return'}: a {type(out).__name__}, not an array")
