"""The taiwan16 room's part of the compiled batch step (:class:`~mjenv.rulesets.protocol.StepHooks`): flowers set
aside and replaced (the C hooks of ``_step_hooks.c``); the 16-tile shape and the draw at 16 left are the shared
step's ``hand_size``, ``melds`` and ``draw_at``. Tai scoring stays on the Python engine."""

from __future__ import annotations

from typing import Any

try:
    from mjenv.rulesets.taiwan16._step_hooks import HOOKS
except ImportError:  # built without a C compiler: flowers play on the Python engine
    HOOKS = None

#: The Rules fields the hooks implement.
FIELDS = ("flowers",)


def active(rules: Any) -> bool:
    """Whether ``rules`` has flowers (set aside and replaced by the hooks)."""
    return rules.flowers > 0


def covers(rules: Any) -> bool:
    """Flowers with the fixed points: tai scoring (``scoring="tai"``) is the Python engine's."""
    return rules.scoring == "points"


def state(game: Any) -> list[int]:
    """The room scalars of a ``Game``: the flowers each seat has set aside, as a bit set (bit f: flower f)."""
    return [sum(1 << f for f, held in enumerate(row) if held) for row in game.flowers.tolist()]
