"""The on-disk cache of the ``dp`` tables (``mjenv.deficiency._table_cache``): identical tables, damaged
or stale files rebuilt, the off switch, concurrent writers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from mjenv.deficiency import _dp_tables, _table_cache

SHAPES = {"a": (3000, 4), "b": (70, 5)}


def _build(calls: list | None = None):
    def build():
        if calls is not None:
            calls.append(1)
        rng = np.random.default_rng(5)
        return {n: rng.integers(0, 101, size=s, dtype=np.uint8) for n, s in SHAPES.items()}

    return build


def _fail():
    raise AssertionError("build() called although the cache holds the tables")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv(_table_cache.CACHE_ENV, str(tmp_path / "c"))
    return tmp_path / "c"


def test_dp_tables_from_the_cache_equal_freshly_built_ones(cache):
    names = ("left", "right", "h4", "h3", "suit", "honour")
    fresh = (*_dp_tables._build_half_tables(), *_dp_tables._build_honour_tables(),
             _dp_tables._build_full_suit_table(), _dp_tables._build_full_honour_table())
    builders = {("left", "right"): _dp_tables._build_half_tables, ("h4", "h3"): _dp_tables._build_honour_tables,
                ("suit",): lambda: (_dp_tables._build_full_suit_table(),),
                ("honour",): lambda: (_dp_tables._build_full_honour_table(),)}
    first = {}
    for group, build in builders.items():
        first.update(zip(group, _dp_tables._cached(group, build)))
    files = sorted(p.name for p in (cache / "dp_tables").iterdir())
    assert files == sorted(f"{n}-{_dp_tables.cache_key()}.npy" for n in names)
    mapped = {}
    for group in builders:
        mapped.update(zip(group, _dp_tables._cached(group, _fail)))
    for name, want in zip(names, fresh):
        assert np.array_equal(first[name], want), name
        assert np.array_equal(mapped[name], want), name
        assert isinstance(mapped[name].base, np.memmap) and not mapped[name].flags.writeable
    # the process-wide tables (whatever path they came by) are the same tables too
    assert all(np.array_equal(a, b) for a, b in zip(_dp_tables.half_tables(), fresh[:2]))


def test_second_call_maps_the_file_and_builds_nothing(cache):
    calls = []
    got = _table_cache.cached_arrays("g", "k1", SHAPES, _build(calls))
    again = _table_cache.cached_arrays("g", "k1", SHAPES, _fail)
    assert calls == [1]
    for n in SHAPES:
        assert np.array_equal(got[n], again[n]) and isinstance(again[n].base, np.memmap)


@pytest.mark.parametrize("damage", ["truncate", "flip_byte", "garbage", "empty", "wrong_shape", "digest"])
def test_a_damaged_file_is_rebuilt(cache, damage):
    want = _table_cache.cached_arrays("g", "k1", SHAPES, _build())
    path = _table_cache.file_path("g", "a", "k1")
    raw = bytearray(path.read_bytes())
    if damage == "truncate":
        raw = raw[: len(raw) // 2]
    elif damage == "flip_byte":
        raw[-100] ^= 0xFF  # inside the data: every byte of a small table is in the digest
    elif damage == "garbage":
        raw[:10] = b"not an npy"
    elif damage == "empty":
        raw = bytearray()
    elif damage == "wrong_shape":
        np.save(path, np.zeros((3000, 5), np.uint8))
        raw = bytearray(path.read_bytes())
    else:
        raw[-1] ^= 1
    path.write_bytes(bytes(raw))
    calls = []
    got = _table_cache.cached_arrays("g", "k1", SHAPES, _build(calls))
    assert calls == [1]
    assert all(np.array_equal(got[n], want[n]) for n in SHAPES)
    # rewritten sound: the next call maps it again
    assert all(np.array_equal(v, want[n]) for n, v in _table_cache.cached_arrays("g", "k1", SHAPES, _fail).items())


def test_damage_in_a_sampled_block_of_a_large_table_is_found(cache):
    shapes = {"big": (1 << 22,)}
    build = lambda: {"big": np.arange(1 << 22, dtype=np.int64).astype(np.uint8)}  # noqa: E731
    _table_cache.cached_arrays("g", "k", shapes, build)
    path = _table_cache.file_path("g", "big", "k")
    with open(path, "r+b") as f:
        f.seek(128 + 10)  # the first block of the data (header: 128 bytes)
        f.write(b"\xff")
    calls = []
    _table_cache.cached_arrays("g", "k", shapes, lambda: calls.append(1) or build())
    assert calls == [1]


def test_a_stale_version_is_never_read_and_is_removed(cache):
    old = _table_cache.cached_arrays("g", "old", SHAPES, lambda: {n: np.zeros(s, np.uint8) for n, s in SHAPES.items()})
    assert not old["a"].any()
    leftover = cache / "g" / ".a-new.npy.abc.tmp"
    leftover.write_bytes(b"x")
    os.utime(leftover, (0, 0))  # a killed writer's file, long ago
    calls = []
    new = _table_cache.cached_arrays("g", "new", SHAPES, _build(calls))
    assert calls == [1] and new["a"].any()
    assert sorted(p.name for p in (cache / "g").iterdir()) == ["a-new.npy", "b-new.npy"]


def test_the_off_switch_builds_in_memory_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    for off in ("0", "off", "OFF"):
        monkeypatch.setenv(_table_cache.CACHE_ENV, off)
        assert _table_cache.cache_dir() is None
        calls = []
        _table_cache.cached_arrays("g", "k", SHAPES, _build(calls))
        _table_cache.cached_arrays("g", "k", SHAPES, _build(calls))
        assert calls == [1, 1]
    assert list(tmp_path.iterdir()) == []


def test_default_folder_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.delenv(_table_cache.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert _table_cache.cache_dir() == tmp_path / "mjenv"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert _table_cache.cache_dir() == tmp_path / ".cache" / "mjenv"


def test_an_unwritable_folder_still_gives_the_tables(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv(_table_cache.CACHE_ENV, str(blocker))
    calls = []
    got = _table_cache.cached_arrays("g", "k", SHAPES, _build(calls))
    assert calls == [1] and got["a"].shape == SHAPES["a"]


def test_concurrent_processes_agree(cache):
    code = textwrap.dedent(
        """
        import sys, time
        import numpy as np
        from mjenv.deficiency import _table_cache
        def build():
            time.sleep(0.3)  # both processes build at once
            return {"t": (np.arange(1 << 20) % 97).astype(np.uint8)}
        got = _table_cache.cached_arrays("g", "k", {"t": (1 << 20,)}, build)["t"]
        assert np.array_equal(got, (np.arange(1 << 20) % 97).astype(np.uint8))
        """
    )
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
    assert [p.wait(timeout=120) for p in procs] == [0, 0, 0]
    got = _table_cache.cached_arrays("g", "k", {"t": (1 << 20,)}, _fail)["t"]
    assert np.array_equal(got, (np.arange(1 << 20) % 97).astype(np.uint8))
    assert [p.name for p in (cache / "g").iterdir()] == ["t-k.npy"]


def test_a_fresh_process_gives_the_same_deficiencies_cold_and_warm(cache):
    code = (
        "import numpy as np, mjenv.deficiency as d\n"
        "rng = np.random.default_rng(3)\n"
        "h = np.zeros((200, 34), np.int8)\n"
        "for i in range(200):\n"
        "    np.add.at(h[i], rng.choice(136, 14, replace=False) // 4, 1)\n"
        "kb = (4 - h) * (rng.random(h.shape) < 0.7)\n"
        "print(d.deficiency(h, kb).tolist(), d.deficiency(h, kb, method='dp').tolist())\n"
    )
    env = {**os.environ, _table_cache.CACHE_ENV: str(cache)}
    cold = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert (cache / "dp_tables").is_dir()
    warm = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    off = subprocess.run([sys.executable, "-c", code], env={**env, _table_cache.CACHE_ENV: "0"},
                         capture_output=True, text=True, check=True).stdout
    assert cold == warm == off and cold.strip()
