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
    "openskill": "env",
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


#: gymnasium ids mjenv registers -> entry point (a string: registering imports nothing of mjenv's)
GYMNASIUM_IDS = {"mjenv/SingleSeat-v0": "mjenv.wrappers.single_agent:SingleAgentEnv"}


def register_gymnasium_ids() -> None:
    """Register :data:`GYMNASIUM_IDS` with gymnasium (imports it; a no-op without it or when done)."""
    try:
        import gymnasium
    except ModuleNotFoundError:  # a bare install (no env extra): nothing to register with
        return
    for env_id, entry_point in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=entry_point)


class _RegisterOnImport:
    """A ``sys.meta_path`` finder that registers mjenv's ids right after gymnasium is first imported.

    ``import mjenv`` installs it instead of importing gymnasium (about 130 ms), so the import stays
    cheap and ``gymnasium.make("mjenv/SingleSeat-v0")`` works whenever gymnasium comes in later.
    It steps aside (removes itself) at the first import of gymnasium.
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        import importlib.util
        import sys

        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        exec_module = spec.loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            register_gymnasium_ids()

        spec.loader.exec_module = exec_then_register
        return spec


def register_gymnasium_ids_lazily() -> None:
    """Register mjenv's gymnasium ids now if gymnasium is imported, else as soon as it is."""
    import sys

    if "gymnasium" in sys.modules:
        register_gymnasium_ids()
    elif not any(isinstance(f, _RegisterOnImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterOnImport())


class UnknownKeywordError(TypeError, ValueError):
    """An unknown keyword argument (a ``TypeError``, as Python's own, and a ``ValueError``, as mjenv's bad input)."""


def keyword_names(function) -> list[str]:
    """The keywords ``function`` takes by name (``self`` and ``**kwargs`` left out), in its order."""
    import inspect

    return [n for n, p in inspect.signature(function).parameters.items()
            if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def reject_unknown_keywords(what: str, unknown: dict, function) -> None:
    """Raise :class:`UnknownKeywordError` naming ``unknown`` and the keywords ``function`` takes.

    Args:
        what: the callable's name as the user wrote it, e.g. ``"mjenv.parallel_env"``.
        unknown: the keyword arguments ``function`` did not take (nothing happens when empty).
        function: the function whose named parameters are the allowed keywords.
    """
    if not unknown:
        return
    names = ", ".join(repr(k) for k in unknown)
    raise UnknownKeywordError(f"{what} got unknown keyword argument(s) {names}; allowed: "
                              f"{', '.join(keyword_names(function))}")
