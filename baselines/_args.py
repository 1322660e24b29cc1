"""Command-line parsing for the training scripts' ``Args`` dataclasses.

Each field becomes ``--field-name`` with its default, its type and, as help text, the docstring
written under the field (CleanRL's convention), read from the class source with ``ast``. Booleans get
``--flag/--no-flag``.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import textwrap
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def field_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass, by field name ('' when there is none)."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError):  # source not available (frozen app): no help texts
        return {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for node, nxt in zip(body, body[1:] + [None]):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if isinstance(nxt, ast.Expr) and isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
                docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


def _base_type(annotation: Any) -> type:
    """int / float / str / bool out of ``X`` or ``X | None``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return _base_type(args[0])
    if annotation in (int, float, str, bool):
        return annotation
    raise TypeError(f"unsupported Args field type {annotation!r}")


def parse_args(cls: type[T], argv: list[str] | None = None, prog: str | None = None,
               aliases: dict[str, str] | None = None) -> T:
    """Build ``cls`` (a dataclass with defaults for every field) from command-line arguments.

    Args:
        aliases: older flag names (as field names, e.g. ``{"torch_threads": "num_threads"}``) still
            accepted for a field; they are left out of ``--help``.
    """
    docs = field_docs(cls)
    hints = typing.get_type_hints(cls)
    parser = argparse.ArgumentParser(prog=prog, description=(cls.__doc__ or "").strip().splitlines()[0])
    for f in dataclasses.fields(cls):
        kind = _base_type(hints[f.name])
        flag = "--" + f.name.replace("_", "-")
        help_text = f"{docs.get(f.name, '')} (default: {f.default!r})".replace("%", "%%")
        if kind is bool:
            action = argparse.BooleanOptionalAction
            parser.add_argument(flag, dest=f.name, action=action, default=f.default, help=help_text)
        else:
            parser.add_argument(flag, dest=f.name, type=kind, default=f.default, help=help_text)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    for old, name in (aliases or {}).items():
        kind = _base_type(hints[name])
        flag = "--" + old.replace("_", "-")
        if kind is bool:
            parser.add_argument(flag, dest=name, action=argparse.BooleanOptionalAction, help=argparse.SUPPRESS)
        else:
            parser.add_argument(flag, dest=name, type=kind, default=fields[name].default, help=argparse.SUPPRESS)
    return cls(**vars(parser.parse_args(argv)))


def check_rules(rules: str, prog: str, episode: str = "hand", trunk: str = "mlp") -> Any:
    """Refuse, before anything is written, what ``prog`` (a training script) cannot train: an unknown preset, one whose
    room plays on its own engine without a network of its own (``RuleSet.own_policy``; the scripts' shared nets,
    opponents and shaping are the shared engine's), an ``episode`` other than a hand (or, for a room's own network,
    its ``TRAIN_EPISODES``) and a ``trunk`` the room's network does not build.

    Returns:
        the module of the room's own network (``rulesets.own_policy``), or None for the shared rule sets.

    Raises:
        ValueError: saying which presets exist, which ones ``prog`` plays and which envs play the others, or which
            episodes and trunks the rules have.
    """
    from mjenv import rulesets

    rulesets.room(rules)  # an unknown name: the known ones listed
    rulesets.check_shared(rules, prog, tuple(n for n in rulesets.names() if rulesets.own_policy(n) is not None))
    own = rulesets.own_policy(rules)
    episodes = ("hand",) if own is None else tuple(own.TRAIN_EPISODES)
    if episode not in episodes:
        raise ValueError(f"--episode must be one of {episodes} for rules {rules!r}, got {episode!r}")
    if own is not None and trunk not in own.TRUNKS:
        raise ValueError(f"the network of rules {rules!r} has the trunks {tuple(own.TRUNKS)}, got --trunk {trunk!r}")
    return own
