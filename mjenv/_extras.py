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


def import_or_hint(module: str, what: str):
    """``importlib.import_module(module)``, a missing extra raised as one line naming it.

    Args:
        module: the module to import, e.g. ``"mjenv.env"``.
        what: the name the user asked for, e.g. ``"mjenv.parallel_env"`` (the message starts with it).

    Raises:
        MissingExtraError: an optional dependency of ``module`` is not installed; the message says which
            ``pip install "mjenv[EXTRA]"`` brings it.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        hint = install_hint(exc)
        if hint is None:
            raise
        # one line that says what to install, instead of "No module named 'gymnasium'"
        raise MissingExtraError(f"{what} {hint}", name=exc.name) from exc
