"""An on-disk cache of generated lookup tables, shared by every process of one install.

The ``dp`` tables (:mod:`mjenv.deficiency._dp_tables`) take about a CPU-second to build and over
100 MB to hold. They are a pure function of the code that generates them, so the first process
that needs them writes them to a cache folder and every later process maps them read-only
(``numpy.memmap``): a few milliseconds instead of a second, and one copy in memory (the page cache)
however many processes use them.

Where: ``$MJENV_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/mjenv``, else ``~/.cache/mjenv``.
``MJENV_CACHE_DIR=0`` (or ``off``) turns the cache off: every process builds its tables in memory,
as when the folder cannot be written.

Files: ``<group>/<name>-<key>.npy``, where ``key`` is a hash of the generating code (the caller's),
so an upgrade never reads an older version's tables; writing a new version removes the older ones
of the same name. Each file is a ``.npy`` array followed by a 16-byte digest of its header and of
256 blocks spread over its data; a file that does not parse, has the wrong shape, dtype or size, or
whose digest does not match is rebuilt. Writers go through a temporary file in the same folder and
``os.replace``, so concurrent processes never see a half-written file (two that build at once both
write the same bytes; the last rename wins).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

__all__ = ["CACHE_ENV", "cache_dir", "cached_arrays", "file_path"]

#: Environment variable that relocates the cache folder, or turns the cache off with ``0`` / ``off``.
CACHE_ENV = "MJENV_CACHE_DIR"
_OFF = ("0", "off", "false", "no", "none")
_DIGEST = 16
_SAMPLES = 256
_BLOCK = 4096
#: Temporary files older than this (seconds) are left over from a killed writer and removed.
_STALE_TMP = 3600.0


def cache_dir() -> Path | None:
    """The cache folder (not created here), or None when ``MJENV_CACHE_DIR`` turns the cache off."""
    env = os.environ.get(CACHE_ENV, "").strip()
    if env.lower() in _OFF:
        return None
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base).expanduser() if base else Path.home() / ".cache") / "mjenv"


def file_path(group: str, name: str, key: str) -> Path | None:
    """Where table ``name`` of ``group`` at version ``key`` lives (None with the cache off)."""
    root = cache_dir()
    return None if root is None else root / group / f"{name}-{key}.npy"


def _digest(header: bytes, data: np.ndarray) -> bytes:
    """Digest of a file's ``.npy`` header and of blocks spread evenly over its data (all of it when small)."""
    flat = data.reshape(-1).view(np.uint8)
    h = hashlib.blake2b(header, digest_size=_DIGEST)
    if flat.size <= _SAMPLES * _BLOCK:
        h.update(flat.tobytes())
    else:
        for start in np.linspace(0, flat.size - _BLOCK, _SAMPLES).astype(np.int64):
            h.update(flat[start : start + _BLOCK].tobytes())
    return h.digest()


def _header(arr: np.ndarray) -> bytes:
    """The ``.npy`` header (magic, version 1.0, padded dict) that :func:`numpy.lib.format.write_array` writes."""
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, np.lib.format.header_data_from_array_1_0(arr))
    return buf.getvalue()


def _load(path: Path, shape: tuple[int, ...]) -> np.ndarray | None:
    """The uint8 table at ``path`` mapped read-only, or None when it is missing, malformed or damaged."""
    try:
        with open(path, "rb") as f:
            if np.lib.format.read_magic(f) != (1, 0):
                return None
            got_shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
            offset = f.tell()
            f.seek(0)
            header = f.read(offset)
            size = os.fstat(f.fileno()).st_size
        if tuple(got_shape) != tuple(shape) or fortran or dtype != np.uint8:
            return None
        nbytes = int(np.prod(shape))
        if size != offset + nbytes + _DIGEST:
            return None
        mapped = np.memmap(path, dtype=np.uint8, mode="r", offset=offset, shape=shape)
        with open(path, "rb") as f:
            f.seek(offset + nbytes)
            stored = f.read(_DIGEST)
        if _digest(header, mapped) != stored:
            return None
        return mapped.view(np.ndarray)
    except (OSError, ValueError):
        return None


def _store(path: Path, arr: np.ndarray) -> None:
    """Write ``arr`` to ``path`` atomically (temporary file, then rename); errors are ignored."""
    import tempfile

    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        header = _header(arr)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.stem}.", suffix=".tmp",
                                         delete=False) as f:
            tmp = f.name
            f.write(header)
            f.write(np.ascontiguousarray(arr).data)
            f.write(_digest(header, arr))
        os.chmod(tmp, 0o644)  # readable like any cache file (the temporary file was private)
        os.replace(tmp, path)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _prune(folder: Path, name: str, keep: Path) -> None:
    """Remove other versions of table ``name`` and temporary files a killed writer left behind."""
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    now = time.time()
    for p in entries:
        try:
            if p.name.startswith(f"{name}-") and p.suffix == ".npy" and p != keep:
                p.unlink()
            elif p.name.startswith(f".{name}-") and p.suffix == ".tmp" and now - p.stat().st_mtime > _STALE_TMP:
                p.unlink()
        except OSError:  # in use elsewhere (Windows), or removed by another process meanwhile
            pass


def cached_arrays(group: str, key: str, shapes: dict[str, tuple[int, ...]],
                  build: Callable[[], dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Tables of one group: mapped from the cache when every file is there and sound, else built and stored.

    Args:
        group: the cache's subfolder (one generator).
        key: version of the generating code; files of another key are never read, and are removed
            when this key's files are written.
        shapes: name -> shape of each uint8 table ``build`` returns.
        build: returns ``{name: uint8 array of shapes[name]}``, C-contiguous.

    Returns:
        name -> uint8 array (read-only when mapped from the cache).
    """
    paths = {name: file_path(group, name, key) for name in shapes}
    if all(p is not None for p in paths.values()):
        loaded = {name: _load(paths[name], shape) for name, shape in shapes.items()}
        if all(v is not None for v in loaded.values()):
            return loaded
    built = build()
    for name, shape in shapes.items():
        if built[name].shape != tuple(shape) or built[name].dtype != np.uint8:
            raise RuntimeError(f"table {name!r}: built {built[name].dtype}{built[name].shape}, expected uint8{shape}")
    for name, path in paths.items():
        if path is not None:
            _store(path, built[name])
            _prune(path.parent, name, path)
    return built
