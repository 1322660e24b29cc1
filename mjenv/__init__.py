"""mjenv: a PettingZoo four-player Mahjong environment with a knowledge-aware deficiency core.

``mjenv.parallel_env()`` (PettingZoo ParallelEnv), ``mjenv.env()`` (AEC with the standard wrappers),
``mjenv.raw_env``, ``mjenv.vector_env()``, ``mjenv.replay(log)``. The deficiency core is
``mjenv.deficiency``; the pure game is ``mjenv.game``. Heavy modules (pettingzoo, gymnasium) are
imported only when an environment is asked for, so ``import mjenv.deficiency`` stays light.

``import mjenv`` registers the gymnasium id ``"mjenv/SingleSeat-v0"`` (``mjenv.wrappers.SingleAgentEnv``)
without importing gymnasium: right away if gymnasium is already imported, else when it is first imported.
"""

from __future__ import annotations

__version__ = "0.1.0"

#: The four agents of every env, seat s = ``AGENTS[s]`` (seat 0 deals first). The one definition:
#: PASS is ``mjenv.game.actions.ActionLayout(T).pass_`` (2T + 6), the game's.
AGENTS = ("player_0", "player_1", "player_2", "player_3")

_LAZY = {
    "parallel_env": ("mjenv.env", "parallel_env"),
    "env": ("mjenv.env", "env"),
    "raw_env": ("mjenv.env", "raw_env"),
    "vector_env": ("mjenv.vector", "vector_env"),
    "replay": ("mjenv.game", "replay"),
}

__all__ = ["AGENTS", "__version__", *_LAZY]


def _register_gymnasium() -> None:
    from mjenv._extras import register_gymnasium_ids_lazily

    register_gymnasium_ids_lazily()


_register_gymnasium()


def __getattr__(name: str):
    if name in _LAZY:
        from mjenv._extras import import_or_hint

        module, attr = _LAZY[name]
        return getattr(import_or_hint(module, f"mjenv.{name}"), attr)
    raise AttributeError(f"module 'mjenv' has no attribute {name!r}")
