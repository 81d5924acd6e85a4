"""TensorFlow's file API (``tf.io.gfile`` and ``tf.gfile``) on the local file system.

``GFile`` opens lazily (a missing file is an error at the first read, as in TensorFlow), reads
and writes ``str`` or ``bytes`` in any mode, and keeps byte offsets for ``seek``/``tell`` in
text mode too (UTF-8; ``read(n)`` reads ``n`` bytes, completing a character cut in two, and
newlines are never translated). The functions raise TensorFlow's errors with its messages:
``NotFoundError`` for a missing file, ``AlreadyExistsError`` for a copy or rename onto a file
without ``overwrite=True``, ``FailedPreconditionError`` for a directory where a file is needed.
Paths are local (``file://`` is accepted); another scheme (``gs://``, ``s3://``, ``hdfs://``)
raises ``UnimplementedError`` rather than reaching for a network.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = join(folder, "notes.txt")
...     with GFile(path, "w") as f:
...         f.write("first\\nsecond\\n")
...     found = exists(path), stat(path).length, list(GFile(path))
>>> found
(True, 13, ['first\\n', 'second\\n'])
"""

from __future__ import annotations

import errno
import glob as _glob
import os
import re
import shutil
from dataclasses import dataclass

from .errors import (
    AlreadyExistsError,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
    UnimplementedError,
    UnknownError,
)

__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "FileStatistics",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]

_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
_MODES = ("r", "w", "a", "r+", "w+", "a+")


def _local(path) -> str:
    """A local path from a str, bytes or PathLike path (``file://`` stripped); another scheme is an error."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    match = _SCHEME.match(path)
    if match is None:
        return path
    if match.group(1) == "file":
        return path[len("file://") :]
    raise UnimplementedError(
        None,
        None,
        f"File system scheme '{match.group(1)}' not implemented (file: '{path}'): ember's gfile works on local paths only",
    )


def _os_error(error: OSError, path: str):
    """TensorFlow's error for an OSError about ``path``."""
    code = error.errno
    if code == errno.ENOENT:
        return NotFoundError(None, None, f"{path}; No such file or directory")
    if code == errno.EISDIR:
        return FailedPreconditionError(None, None, f"{path}; Is a directory")
    if code == errno.ENOTDIR:
        return FailedPreconditionError(None, None, f"{path}; Not a directory")
    if code in (errno.EACCES, errno.EPERM):
        return PermissionDeniedError(None, None, f"{path}; Permission denied")
    if code == errno.EEXIST:
        return AlreadyExistsError(None, None, f"{path}; File exists")
    return UnknownError(None, None, f"{path}; {error.strerror or error}")


def _as_bytes(content, what: str) -> bytes:
    if isinstance(content, str):
        return content.encode()
    if isinstance(content, (bytes, bytearray, memoryview)):
        return bytes(content)
    raise TypeError(f"{what}: Expected binary or unicode string, got {content!r}")


class GFile:
    """A file of the local file system with TensorFlow's ``GFile`` interface.

    ``mode`` is ``r``, ``w``, ``a``, ``r+``, ``w+`` or ``a+``, with ``b`` for bytes (read
    returns ``bytes``) or without it for text (``str``). The file opens at its first use; a
    closed GFile opens again at its next use.
    """

    def __init__(self, name, mode: str = "r") -> None:
        self._name = _local(name)
        self._mode = mode
        base = mode.replace("b", "")
        if base not in _MODES or mode.count("b") > 1:
            raise InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._base = base
        self._binary = "b" in mode
        self._readable = base != "w" and base != "a"
        self._writable = base != "r"
        self._file = None

    @property
    def name(self) -> str:
        return self._name

    @property
    def mode(self) -> str:
        return self._mode

    def _handle(self, write: bool):
        if write and not self._writable:
            raise PermissionDeniedError(None, None, "File isn't open for writing")
        if not write and not self._readable:
            raise PermissionDeniedError(None, None, "File isn't open for reading")
        if self._file is None:
            try:
                self._file = open(self._name, self._base + "b")  # noqa: SIM115 - closed by close()
            except OSError as error:
                raise _os_error(error, self._name) from None
        return self._file

    def _text(self, data: bytes, f) -> str | bytes:
        if self._binary:
            return data
        for _ in range(3):  # a UTF-8 character cut by a byte count: read the rest of it
            try:
                return data.decode()
            except UnicodeDecodeError as error:
                if error.reason != "unexpected end of data":
                    raise
                more = f.read(1)
                if not more:
                    raise
                data += more
        return data.decode()

    def read(self, n: int = -1) -> str | bytes:
        """``n`` bytes (all that is left when ``n`` is -1), as ``str`` in text mode."""
        f = self._handle(write=False)
        return self._text(f.read(-1 if n is None else n), f)

    def readline(self) -> str | bytes:
        """The next line, with its newline; empty at the end."""
        f = self._handle(write=False)
        return self._text(f.readline(), f)

    def readlines(self) -> list:
        f = self._handle(write=False)
        return [self._text(line, f) for line in f.readlines()]

    def __iter__(self) -> GFile:
        return self

    def __next__(self) -> str | bytes:
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content) -> None:
        """Append ``file_content`` (``str`` or ``bytes``, in any mode) at the position."""
        data = _as_bytes(file_content, "GFile.write()")
        self._handle(write=True).write(data)

    def seek(self, offset: int | None = None, whence: int = 0, position: int | None = None) -> None:
        """Move to byte ``offset`` from the start (``whence=0``), the position (1) or the end (2);
        ``position`` is TensorFlow's deprecated name for ``offset``."""
        if position is not None:
            if offset is not None:
                raise ValueError("GFile.seek(): give offset or position, not both")
            offset = position
        if offset is None:
            raise TypeError("GFile.seek(): missing the offset")
        f = self._file if self._file is not None else self._handle(write=self._writable and not self._readable)
        f.seek(offset, whence)

    def tell(self) -> int:
        """The byte position."""
        f = self._file if self._file is not None else self._handle(write=self._writable and not self._readable)
        return f.tell()

    def size(self) -> int:
        """The file's length in bytes (what was written through this GFile included)."""
        if self._file is not None and self._writable:
            self._file.flush()
        try:
            return os.stat(self._name).st_size
        except OSError as error:
            raise _os_error(error, self._name) from None

    def seekable(self) -> bool:
        return True

    def flush(self) -> None:
        if self._file is not None and self._writable:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            f, self._file = self._file, None
            f.close()

    def __enter__(self) -> GFile:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_file", None) is not None:
            self._file.close()

    def __repr__(self) -> str:
        return f"<ember.gfile.GFile name={self._name!r} mode={self._mode!r}>"


FastGFile = GFile
Open = GFile


@dataclass(frozen=True)
class FileStatistics:
    """What ``stat`` reports: size in bytes, modification time (whole seconds, in nanoseconds, as
    TensorFlow's local file system), whether it is a directory."""

    length: int
    mtime_nsec: int
    is_directory: bool


def exists(path) -> bool:
    """Whether ``path`` exists (a file or a directory)."""
    return os.path.exists(_local(path))


def isdir(path) -> bool:
    """Whether ``path`` is a directory (False when it does not exist)."""
    return os.path.isdir(_local(path))


def listdir(path) -> list:
    """The names in directory ``path`` (not ``.`` and ``..``); NotFoundError when it is not one."""
    local = _local(path)
    if not os.path.isdir(local):
        raise NotFoundError(None, None, f"Could not find directory {local}")
    return os.listdir(local)


def glob(pattern) -> list:
    """The paths matching a pattern (``*``, ``?``, ``[...]``), or any of a list of patterns."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    found: list = []
    for p in patterns:
        for match in sorted(_glob.glob(_local(p), include_hidden=True)):
            if match not in found:
                found.append(match)
    return found


def mkdir(path) -> None:
    """Make directory ``path`` (its parent must exist; an existing directory is fine)."""
    local = _local(path)
    try:
        os.mkdir(local)
    except FileExistsError:
        if not os.path.isdir(local):
            raise FailedPreconditionError(None, None, f"{local} is not a directory") from None
    except OSError as error:
        raise _os_error(error, local) from None


def makedirs(path) -> None:
    """Make directory ``path`` and every missing parent."""
    local = _local(path)
    parent = os.path.abspath(local)
    while not os.path.exists(parent):  # the nearest existing ancestor must be a directory
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise FailedPreconditionError(None, None, f"{parent} is not a directory")
    try:
        os.makedirs(local, exist_ok=True)
    except OSError as error:
        raise _os_error(error, local) from None


def remove(path) -> None:
    """Delete file ``path`` (FailedPreconditionError for a directory: see ``rmtree``)."""
    local = _local(path)
    try:
        os.remove(local)
    except OSError as error:
        raise _os_error(error, local) from None


def rmtree(path) -> None:
    """Delete ``path`` and everything under it (a file is deleted too)."""
    local = _local(path)
    if not os.path.lexists(local):
        raise NotFoundError(None, None, f"{local} not found")
    try:
        if os.path.isdir(local) and not os.path.islink(local):
            shutil.rmtree(local)
        else:
            os.remove(local)
    except OSError as error:
        raise _os_error(error, getattr(error, "filename", None) or local) from None


def _check_target(src: str, dst: str, overwrite: bool) -> None:
    if not os.path.exists(src):
        raise NotFoundError(None, None, f"{src}; No such file or directory")
    if not overwrite and os.path.exists(dst):
        raise AlreadyExistsError(None, None, "file already exists")


def rename(src, dst, overwrite: bool = False) -> None:
    """Move ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists, unless ``overwrite``)."""
    src, dst = _local(src), _local(dst)
    _check_target(src, dst, overwrite)
    try:
        os.replace(src, dst)
    except OSError as error:
        raise _os_error(error, dst) from None


def copy(src, dst, overwrite: bool = False) -> None:
    """Copy file ``src`` to ``dst`` (AlreadyExistsError when ``dst`` exists, unless ``overwrite``)."""
    src, dst = _local(src), _local(dst)
    _check_target(src, dst, overwrite)
    try:
        shutil.copyfile(src, dst)
    except OSError as error:
        raise _os_error(error, src if not os.path.isfile(src) else dst) from None


def stat(path) -> FileStatistics:
    """``FileStatistics`` of ``path`` (NotFoundError when missing)."""
    local = _local(path)
    try:
        st = os.stat(local)
    except OSError as error:
        raise _os_error(error, local) from None
    return FileStatistics(length=st.st_size, mtime_nsec=int(st.st_mtime) * 1_000_000_000, is_directory=os.path.isdir(local))


def walk(top, topdown: bool = True, onerror=None):
    """Yields ``(directory, subdirectory names, file names)`` for ``top`` and every directory
    under it, parents first (``topdown``) or last; a missing ``top`` yields nothing (``onerror``
    hears the NotFoundError)."""
    top = _local(top)
    try:
        names = listdir(top)
    except NotFoundError as error:
        if onerror is not None:
            onerror(error)
        return
    subdirs = [n for n in names if os.path.isdir(os.path.join(top, n))]
    files = [n for n in names if n not in subdirs]
    if topdown:
        yield top, subdirs, files
    for name in subdirs:
        yield from walk(os.path.join(top, name), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def join(path, *paths) -> str:
    """``os.path.join`` (TensorFlow's ``tf.io.gfile.join``)."""
    return os.path.join(os.fspath(path), *map(os.fspath, paths))


def get_registered_schemes() -> list:
    """The path schemes gfile serves: local paths ("" and "file")."""
    return ["", "file"]


# TensorFlow 1's names (tf.gfile)
Copy = copy
DeleteRecursively = rmtree
Exists = exists
Glob = glob
IsDirectory = isdir
ListDirectory = listdir
MakeDirs = makedirs
MkDir = mkdir
Remove = remove
Rename = rename
Stat = stat
Walk = walk
