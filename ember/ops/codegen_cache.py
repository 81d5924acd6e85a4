"""A file cache of the compiled functional API: an import that finds it skips writing and compiling.

Generating the functional API's text and compiling it is most of what ``import ember`` would
cost. Both depend only on the schema entries, on the code that writes the text, and on the
interpreter's bytecode format, so the compiled module is kept in a file named by a digest of
all of them (:func:`cache_key`). A changed entry, generator or interpreter gives another name:
a cache is never stale. A missing, unreadable, corrupt or foreign file is ignored, and a
directory that cannot be written leaves the generation in memory, as it was without a cache.

The files live in ``$XDG_CACHE_HOME/ember`` (``~/.cache/ember`` when unset), the place the XDG
base directory specification gives to caches a user may delete at any time.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import os
import sys
from types import CodeType

__all__ = ["KEEP", "cache_dir", "cache_key", "load", "store"]

KEEP = 8  # files kept per directory: a few checkouts or interpreters side by side, not an ever-growing pile
_PREFIX = "functional-"
_SUFFIX = ".marshal"


def cache_dir() -> str:
    """``$XDG_CACHE_HOME/ember``, or ``~/.cache/ember`` when the variable is unset or empty."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ember")


def cache_key(entries: tuple, generator_files: tuple[str, ...], filename: str) -> str | None:
    """The digest of what the compiled module depends on; None when a generator file is unreadable.

    ``entries`` are the schema's (each one's ``fingerprint()``: every field, signatures, keys and
    docs); ``generator_files`` the source files of the code that writes the text (and parses the
    entries); ``filename`` the name compiled into the code objects. The interpreter's version and
    bytecode magic number stand for the format of the code objects.
    """
    digest = hashlib.sha256()
    digest.update(sys.version.encode())
    digest.update(importlib.util.MAGIC_NUMBER)
    digest.update(filename.encode())
    for path in generator_files:
        try:
            with open(path, "rb") as f:
                digest.update(f.read())
        except (OSError, TypeError):  # TypeError: a module without a __file__
            return None
    digest.update("\n".join(entry.fingerprint() for entry in entries).encode())
    return digest.hexdigest()


def _path(directory: str, key: str) -> str:
    return os.path.join(directory, f"{_PREFIX}{key[:40]}{_SUFFIX}")


def load(directory: str, key: str) -> tuple[str, CodeType] | None:
    """(source, code) stored under ``key``, or None when there is no sound file for it."""
    try:
        with open(_path(directory, key), "rb") as f:
            stored = marshal.loads(f.read())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (isinstance(stored, tuple) and len(stored) == 3 and stored[0] == key):
        return None
    _, source, code = stored
    if not (isinstance(source, str) and isinstance(code, CodeType)):
        return None
    return source, code


def store(directory: str, key: str, source: str, code: CodeType) -> bool:
    """Write (source, code) under ``key``, atomically; False when the directory is not writable.

    The newest :data:`KEEP` files stay; older ones (other schemas, generators, interpreters) go.
    """
    try:
        os.makedirs(directory, exist_ok=True)
        tmp = f"{_path(directory, key)}.{os.getpid()}.tmp"  # this process's own, then renamed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(marshal.dumps((key, source, code)))
        os.replace(tmp, _path(directory, key))
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    _prune(directory)
    return True


def _prune(directory: str) -> None:
    try:  # OSError: another process pruned first
        names = [n for n in os.listdir(directory) if n.startswith(_PREFIX) and n.endswith(_SUFFIX)]
        paths = sorted((os.path.join(directory, n) for n in names), key=os.path.getmtime, reverse=True)
        for path in paths[KEEP:]:
            os.unlink(path)
    except OSError:
        pass
