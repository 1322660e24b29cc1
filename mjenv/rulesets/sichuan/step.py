"""The sichuan room's part of the compiled batch step (:class:`~mjenv.rulesets.protocol.StepHooks`): the C hooks of
``_step_hooks.c`` (declaration, restrictions, play on after a win, fan scoring and payments) and the rules they run."""

from __future__ import annotations

from typing import Any

try:
    from mjenv.rulesets.sichuan._step_hooks import HOOKS
except ImportError:  # built without a C compiler: sichuan plays on the Python engine
    HOOKS = None

#: The Rules fields the hooks implement.
FIELDS = ("missing_suit", "bloody", "scoring")


def active(rules: Any) -> bool:
    """Whether ``rules`` turns on a Sichuan field (the room's GameHooks play it on the Python engine)."""
    return rules.missing_suit or rules.bloody or rules.scoring == "sichuan"


def covers(rules: Any) -> bool:
    """The hooks play the whole bloody battle: missing suit, play on after a win and its scoring together."""
    return rules.missing_suit and rules.bloody and rules.scoring == "sichuan"


def state(game: Any) -> list[int]:
    """The room scalars of a ``Game``: each seat's declared missing suit (-1 before the declaration)."""
    return game.missing.tolist()
