"""tf.gfile / tf.io.gfile on local paths: GFile reading and writing, the file functions, TF's errors."""

import os
import pathlib

import pytest

from ember.graph import errors, gfile


def _write(path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)


def _read(path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def test_gfile_text_and_binary(tmp_path):
    path = str(tmp_path / "a.txt")
    with gfile.GFile(path, "w") as f:
        f.write("line1\r\nline2\n")
        f.write(b"line3")
        assert f.tell() == 18
    assert _read(path) == b"line1\r\nline2\nline3"  # newlines are never translated
    f = gfile.GFile(path)
    assert (f.name, f.mode, f.seekable()) == (path, "r", True)
    assert f.readline() == "line1\r\n" and f.tell() == 7
    assert f.read(3) == "lin"
    f.seek(1)
    assert f.read(2) == "in"
    f.seek(position=0)
    assert f.readlines() == ["line1\r\n", "line2\n", "line3"]
    assert f.readline() == "" and f.size() == 18
    f.seek(-2, 2)
    assert f.read() == "e3"
    f.close()
    assert f.read(5) == "line1"  # a closed GFile opens again
    assert list(gfile.GFile(path)) == ["line1\r\n", "line2\n", "line3"]
    assert list(gfile.GFile(path, "rb")) == [b"line1\r\n", b"line2\n", b"line3"]
    assert gfile.FastGFile(path, "rb").read() == b"line1\r\nline2\nline3"
    assert gfile.Open is gfile.GFile
    with gfile.GFile(path, "a") as f:
        f.write("Z")
    assert gfile.GFile(path).read().endswith("line3Z")


def test_gfile_utf8_by_bytes(tmp_path):
    path = tmp_path / "u.txt"
    _write(path, "é!".encode())
    f = gfile.GFile(path)
    assert f.read(1) == "é" and f.tell() == 2  # a character cut by the byte count is completed
    assert f.read() == "!"


def test_gfile_modes_and_permissions(tmp_path):
    path = str(tmp_path / "m.txt")
    with pytest.raises(errors.InvalidArgumentError, match="mode is not 'r' or 'w'"):
        gfile.GFile(path, "x")
    with pytest.raises(errors.PermissionDeniedError, match="File isn't open for reading"):
        gfile.GFile(path, "w").read()
    _write(path, b"abc")
    with pytest.raises(errors.PermissionDeniedError, match="File isn't open for writing"):
        gfile.GFile(path).write("x")
    with pytest.raises(TypeError, match="Expected binary or unicode string, got 5"):
        gfile.GFile(path, "w").write(5)
    with gfile.GFile(path, "w+") as f:
        f.write("hello")
        f.seek(0)
        assert f.read() == "hello" and f.size() == 5
    with gfile.GFile(path, "r+b") as f:
        assert f.read(1) == b"h"
        f.write(b"E")
    assert _read(path) == b"hEllo"


def test_missing_files_raise_not_found(tmp_path):
    missing = str(tmp_path / "missing")
    f = gfile.GFile(missing)  # opens lazily, as TensorFlow
    with pytest.raises(errors.NotFoundError, match=f"{missing}; No such file or directory") as info:
        f.read()
    assert info.value.error_code == errors.NOT_FOUND
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(str(tmp_path / "nodir" / "x.txt"), "w").write("x")
    for call in (gfile.stat, gfile.remove):
        with pytest.raises(errors.NotFoundError, match="No such file or directory"):
            call(missing)
    with pytest.raises(errors.NotFoundError, match=f"Could not find directory {missing}"):
        gfile.listdir(missing)
    with pytest.raises(errors.NotFoundError, match=f"{missing} not found"):
        gfile.rmtree(missing)
    with pytest.raises(errors.NotFoundError):
        gfile.copy(missing, str(tmp_path / "c"))
    with pytest.raises(errors.NotFoundError):
        gfile.rename(missing, str(tmp_path / "c"))
    with pytest.raises(errors.NotFoundError):
        gfile.mkdir(str(tmp_path / "x" / "y"))
    assert not gfile.exists(missing) and not gfile.isdir(missing)
    assert gfile.glob(str(tmp_path / "nope" / "*")) == []
    seen = []
    assert list(gfile.walk(missing, onerror=seen.append)) == []
    assert isinstance(seen[0], errors.NotFoundError)


def test_directories_walk_and_glob(tmp_path):
    root = str(tmp_path)
    gfile.makedirs(os.path.join(root, "p", "q", "r"))
    gfile.makedirs(os.path.join(root, "p", "q", "r"))  # existing: fine
    gfile.mkdir(os.path.join(root, "sub"))
    gfile.mkdir(os.path.join(root, "sub"))
    _write(os.path.join(root, "a.txt"), b"12345")
    _write(os.path.join(root, "p", "b.txt"), b"")
    _write(os.path.join(root, ".hidden"), b"")
    assert sorted(gfile.listdir(root)) == [".hidden", "a.txt", "p", "sub"]
    assert gfile.isdir(pathlib.Path(root)) and gfile.exists(f"file://{root}/a.txt")
    assert gfile.glob(os.path.join(root, "*.txt")) == [os.path.join(root, "a.txt")]
    assert gfile.glob([os.path.join(root, "a*"), os.path.join(root, "s*")]) == [
        os.path.join(root, "a.txt"),
        os.path.join(root, "sub"),
    ]
    assert ".hidden" in [os.path.basename(p) for p in gfile.glob(os.path.join(root, "*"))]
    p = os.path.join(root, "p")
    assert list(gfile.walk(p)) == [(p, ["q"], ["b.txt"]), (f"{p}/q", ["r"], []), (f"{p}/q/r", [], [])]
    assert [d for d, _, _ in gfile.walk(p, topdown=False)] == [f"{p}/q/r", f"{p}/q", p]
    assert list(gfile.Walk(p)) == list(gfile.walk(p))
    with pytest.raises(errors.FailedPreconditionError, match=r"a\.txt is not a directory"):
        gfile.makedirs(os.path.join(root, "a.txt", "q"))
    info = gfile.stat(os.path.join(root, "a.txt"))
    assert (info.length, info.is_directory) == (5, False)
    assert info.mtime_nsec == int(os.stat(os.path.join(root, "a.txt")).st_mtime) * 10**9
    assert gfile.stat(p).is_directory
    with pytest.raises(errors.FailedPreconditionError, match="Is a directory"):
        gfile.remove(os.path.join(root, "sub"))
    gfile.rmtree(p)
    gfile.DeleteRecursively(os.path.join(root, "sub"))
    assert sorted(gfile.ListDirectory(root)) == [".hidden", "a.txt"]
    assert gfile.join("a", "b", "c") == os.path.join("a", "b", "c")


def test_copy_and_rename(tmp_path):
    a, b, c = (str(tmp_path / n) for n in ("a", "b", "c"))
    _write(a, b"first")
    gfile.copy(a, b)
    with pytest.raises(errors.AlreadyExistsError, match="file already exists"):
        gfile.copy(a, b)
    _write(a, b"second")
    gfile.Copy(a, b, overwrite=True)
    assert _read(b) == b"second"
    gfile.rename(b, c)
    assert not gfile.exists(b) and _read(c) == b"second"
    _write(b, b"third")
    with pytest.raises(errors.AlreadyExistsError):
        gfile.Rename(b, c)
    gfile.rename(b, c, overwrite=True)
    assert _read(c) == b"third"
    gfile.remove(c)
    assert not gfile.Exists(c)


@pytest.mark.parametrize("path", ["gs://bucket/x", "s3://bucket/x", "hdfs://host/x"])
def test_remote_paths_are_refused(path):
    with pytest.raises(errors.UnimplementedError, match="local paths only"):
        gfile.exists(path)
    with pytest.raises(errors.UnimplementedError, match=f"File system scheme '{path.split(':')[0]}' not implemented"):
        gfile.GFile(path)


def test_tensorflow_agrees(tmp_path):
    tf = pytest.importorskip("tensorflow")
    cases = [
        lambda g, d: g.GFile(d + "/missing").read(),
        lambda g, d: (g.GFile(d + "/f.txt", "w").write("a\nb\n"), g.GFile(d + "/f.txt").readlines()),
        lambda g, d: g.GFile(d + "/f.txt", "rb").read(),
        lambda g, d: g.GFile(d + "/f.txt").write("x"),
        lambda g, d: (g.makedirs(d + "/p/q"), sorted(g.listdir(d + "/p"))),
        lambda g, d: g.listdir(d + "/f.txt"),
        lambda g, d: g.mkdir(d + "/x/y"),
        lambda g, d: g.makedirs(d + "/f.txt/z"),
        lambda g, d: g.copy(d + "/f.txt", d + "/g.txt"),
        lambda g, d: g.copy(d + "/f.txt", d + "/g.txt"),
        lambda g, d: g.rename(d + "/g.txt", d + "/f.txt"),
        lambda g, d: g.rename(d + "/g.txt", d + "/f.txt", overwrite=True),
        lambda g, d: g.remove(d + "/p"),
        lambda g, d: (g.stat(d + "/f.txt").length, g.stat(d + "/p").is_directory),
        lambda g, d: [(os.path.relpath(t, d), s, f) for t, s, f in g.walk(d + "/p")],
        lambda g, d: g.rmtree(d + "/nothing"),
        lambda g, d: (g.exists(d + "/f.txt"), g.isdir(d + "/f.txt"), g.exists("file://" + d + "/f.txt")),
        lambda g, d: g.GFile("s3://bucket/x").read(),
    ]

    def outcome(g, d, case):
        try:
            return ("ok", case(g, d))
        except Exception as error:  # compared by kind and error code
            return (type(error).__name__, getattr(error, "error_code", None))

    theirs_dir, ours_dir = tmp_path / "tf", tmp_path / "ember"
    theirs_dir.mkdir()
    ours_dir.mkdir()
    for i, case in enumerate(cases):
        theirs = outcome(tf.io.gfile, str(theirs_dir), case)
        ours = outcome(gfile, str(ours_dir), case)
        assert ours == theirs, f"case {i}"
