"""Which ``pip install "mjenv[EXTRA]"`` brings a missing optional module, for one-line errors.

A plain ``pip install mjenv`` brings numpy only (the deficiency core, the game, the baselines' logic).
The environments, the command line's progress bars and charts, training and the pygame window come
with extras; the entry points (``mjenv.parallel_env()``, the ``mjenv`` command) turn the
``ModuleNotFoundError`` of a missing one into a message that says what to install.
"""

from __future__ import annotations

#: top-level module -> the extra of pyproject.toml that installs it
EXTRA_OF_MODULE = {
    "pettingzoo": "env",
    "gymnasium": "env",
    "tqdm": "env",
    "matplotlib": "env",
    "PIL": "env",
    "pygame": "render",
    "torch": "train",
    "tensorboard": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "ray": "rllib",
}


def install_hint(exc: BaseException) -> str | None:
    """``'needs X (not installed): pip install "mjenv[EXTRA]"'`` for a missing optional module, else None.

    Args:
        exc: an exception; only a ``ModuleNotFoundError`` of a module listed in ``EXTRA_OF_MODULE``
            (or one of its submodules) gives a hint.
    """
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    root = exc.name.split(".")[0]
    extra = EXTRA_OF_MODULE.get(root)
    if extra is None:
        return None
    return f'needs {root} (not installed): pip install "mjenv[{extra}]"'


class MissingExtraError(ModuleNotFoundError):
    """A ``ModuleNotFoundError`` whose message names the extra to install (still caught as the original)."""
