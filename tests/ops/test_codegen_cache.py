"""The file cache of the compiled functional API: hits, misses, never stale, never in the way."""

import dataclasses
import os
import pathlib
import subprocess
import sys

import ember
from ember.ops import codegen, codegen_cache, functional, schema
from ember.ops.functor import FUNCTORS
from ember.ops.schema import load_schema

ENTRIES = load_schema()
GENERATORS = (codegen.__file__, schema.__file__)


def _key(entries=ENTRIES, generators=GENERATORS, filename=codegen.FILENAME):
    return codegen_cache.cache_key(entries, generators, filename)


def _cached_files(directory):
    return sorted(n for n in os.listdir(directory) if n.endswith(".marshal"))


def test_cache_dir_follows_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert codegen_cache.cache_dir() == str(tmp_path / "ember")
    monkeypatch.setenv("XDG_CACHE_HOME", "")  # empty means unset, as the specification says
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert codegen_cache.cache_dir() == str(tmp_path / "home" / ".cache" / "ember")


def test_a_second_build_loads_what_the_first_stored(tmp_path):
    first = codegen.build(ENTRIES, FUNCTORS, cache=str(tmp_path))
    assert len(_cached_files(tmp_path)) == 1
    hit = codegen_cache.load(str(tmp_path), _key())
    assert hit is not None and hit[0] == first.source == functional.GENERATED.source
    second = codegen.build(ENTRIES, FUNCTORS, cache=str(tmp_path))
    assert second.source == first.source and sorted(second.functions) == sorted(first.functions)
    a = ember.tensor([1.0, -2.0])
    assert second.functions["add"](a, a).tolist() == [2.0, -4.0]
    assert second.functions["relu"](a).tolist() == [1.0, 0.0]
    assert second.methods["__mul__"](a, 3.0).tolist() == [3.0, -6.0]
    assert second.functions["add"].__code__.co_filename == codegen.FILENAME


def test_the_key_changes_with_the_entries_the_generator_and_the_filename(tmp_path):
    base = _key()
    changed_doc = (dataclasses.replace(ENTRIES[0], doc=ENTRIES[0].doc + " more"), *ENTRIES[1:])
    assert _key(entries=changed_doc) != base
    assert _key(entries=ENTRIES[:-1]) != base
    edited = tmp_path / "codegen.py"
    edited.write_bytes(
        pathlib.Path(codegen.__file__).read_bytes().replace(b"return NotImplemented", b"return NotImplemented  # edited")
    )
    assert _key(generators=(str(edited), schema.__file__)) != base
    assert _key(filename="<elsewhere>") != base
    assert _key() == base  # and it is deterministic
    assert _key(generators=(str(tmp_path / "missing.py"),)) is None


def test_a_corrupt_or_foreign_file_is_ignored_and_replaced(tmp_path):
    key = _key()
    codegen.build(ENTRIES, FUNCTORS, cache=str(tmp_path))
    (path,) = (tmp_path / n for n in _cached_files(tmp_path))
    good = path.read_bytes()
    path.write_bytes(good[: len(good) // 2])  # truncated
    assert codegen_cache.load(str(tmp_path), key) is None
    path.write_bytes(b"not marshal at all")
    assert codegen_cache.load(str(tmp_path), key) is None
    code = compile("x = 1", "<other>", "exec")
    assert codegen_cache.store(str(tmp_path), "0" * 64, "x = 1\n", code)
    # a file whose name matches but whose stored key differs (a collision of the name's prefix)
    foreign = tmp_path / _cached_files(tmp_path)[0]
    path.write_bytes(foreign.read_bytes())
    assert codegen_cache.load(str(tmp_path), key) is None
    rebuilt = codegen.build(ENTRIES, FUNCTORS, cache=str(tmp_path))
    assert rebuilt.functions["add"](ember.ones(1), ember.ones(1)).tolist() == [2.0]
    assert codegen_cache.load(str(tmp_path), key)[0] == rebuilt.source


def test_an_unwritable_directory_leaves_generation_in_memory(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    directory = str(blocker / "ember")  # below a regular file: no one can create it
    assert codegen_cache.store(directory, _key(), "x = 1\n", compile("x = 1", "<x>", "exec")) is False
    generated = codegen.build(ENTRIES, FUNCTORS, cache=directory)
    assert generated.source == functional.GENERATED.source
    assert generated.functions["neg"](ember.ones(1)).tolist() == [-1.0]
    assert codegen.build(ENTRIES, FUNCTORS, cache=None).source == generated.source


def test_old_files_are_pruned(tmp_path):
    code = compile("x = 1", "<x>", "exec")
    keys = [f"{i:02d}".ljust(64, "0") for i in range(codegen_cache.KEEP + 3)]
    for i, key in enumerate(keys):
        assert codegen_cache.store(str(tmp_path), key, "x = 1\n", code)
        os.utime(tmp_path / f"functional-{key[:40]}.marshal", (1000 + i, 1000 + i))  # older than the next
    assert len(_cached_files(tmp_path)) == codegen_cache.KEEP
    assert codegen_cache.load(str(tmp_path), keys[-1]) is not None
    assert codegen_cache.load(str(tmp_path), keys[0]) is None


def test_a_fresh_process_writes_then_reads_the_cache(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path)}
    script = "import ember; print(ember.add(ember.ones(2), 1).tolist(), len(ember.ops.codegen.generated_source()) > 0)"
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["[2.0,", "2.0]", "True"]
    assert len(_cached_files(tmp_path / "ember")) == 1
