"""Reading PyTorch's ``torch.save`` files (a zip of a pickle plus raw storages) without unpickling.

The pickle is never handed to ``pickle``: its opcodes are read with ``pickletools.genops`` and
interpreted here by a small stack machine that knows the opcodes ``torch.save`` writes and a
fixed list of globals (the tensor and parameter rebuilders, the typed storages, dtypes, ``Size``,
``OrderedDict``, NumPy scalars, the bytes encoding of protocol 2). Every global is mapped to an
ember builder; any other global, opcode or malformed structure is refused with an error naming
it. So an untrusted file can neither import nor run anything, as with ember's own format. This
is PyTorch's ``weights_only=True`` set of types.

Storages are read when the pickle first names them, and ``restore(storage, location)`` (the
caller's ``map_location``) decides where each goes: a file saved from ``cuda:0`` needs
``map_location='cpu'`` (or a dict or callable mapping it), as in PyTorch on a host without CUDA.
"""

from __future__ import annotations

import pickletools
import zipfile
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from .._core import dtype as _dt
from .._core.shape import Size
from .._core.storage import Storage
from .._core.tensor import Tensor, make_tensor
from ._safetensors_file import Source, bad, check_view, int_list

__all__ = ["ZIP_MAGIC", "load_torch_zip"]

ZIP_MAGIC = b"PK\x03\x04"

# torch.<Name>Storage -> the dtype its bytes hold.
_STORAGE_DTYPES = {
    "FloatStorage": _dt.float32, "DoubleStorage": _dt.float64, "HalfStorage": _dt.float16,
    "BFloat16Storage": _dt.bfloat16, "LongStorage": _dt.int64, "IntStorage": _dt.int32,
    "ShortStorage": _dt.int16, "CharStorage": _dt.int8, "ByteStorage": _dt.uint8, "BoolStorage": _dt.bool_,
    "ComplexFloatStorage": _dt.complex64, "ComplexDoubleStorage": _dt.complex128,
    "UInt16Storage": _dt.uint16, "UInt32Storage": _dt.uint32, "UInt64Storage": _dt.uint64,
}  # fmt: skip
_DTYPES_BY_TORCH_NAME = {
    name: dtype
    for dtype in _STORAGE_DTYPES.values()
    for name in {
        dtype.name,
        {
            "float32": "float",
            "float64": "double",
            "float16": "half",
            "int64": "long",
            "int32": "int",
            "int16": "short",
            "bool": "bool",
        }.get(dtype.name, dtype.name),
    }
}
_NUMPY_MODULES = ("numpy.core.multiarray", "numpy._core.multiarray")
_MAX_PICKLE_BYTES = 1 << 30


class _StorageType:
    def __init__(self, dtype: _dt.DType) -> None:
        self.dtype = dtype


class _Global:
    """A global the file names, with the ember builder it stands for."""

    def __init__(self, name: str, build: Callable) -> None:
        self.name, self.build = name, build


def load_torch_zip(source: Source, restore: Callable[[Storage, str], Storage]) -> object:
    """The object a ``torch.save`` zip holds, tensors rebuilt over storages placed by ``restore``."""
    try:
        archive = zipfile.ZipFile(source.file)
    except (zipfile.BadZipFile, OSError) as e:
        raise bad(source, f"a damaged zip archive ({e})") from None
    with archive:
        names = {info.filename: info for info in archive.infolist()}
        pickles = [n for n in names if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pickles) != 1:
            raise bad(source, "a zip archive without exactly one '<name>/data.pkl': not a torch.save checkpoint")
        prefix = pickles[0][: -len("data.pkl")]
        order = names.get(prefix + "byteorder")
        if order is not None and archive.read(order) not in (b"little", b""):
            raise bad(source, "the checkpoint was saved on a big-endian machine; ember reads little-endian storages only")
        if names[pickles[0]].file_size > _MAX_PICKLE_BYTES:
            raise bad(source, f"data.pkl of {names[pickles[0]].file_size} bytes is over the {_MAX_PICKLE_BYTES}-byte limit")
        machine = _Machine(source, archive, names, prefix, restore)
        return machine.run(archive.read(pickles[0]))


class _Machine:
    """The stack machine over the opcodes ``torch.save`` writes (protocol 2, the default)."""

    def __init__(self, source: Source, archive: zipfile.ZipFile, names: dict, prefix: str, restore: Callable) -> None:
        self.source, self.archive, self.names, self.prefix, self.restore = source, archive, names, prefix, restore
        self.storages: dict[str, tuple[Storage, _dt.DType]] = {}
        self.globals = _globals(self)

    def fail(self, what: str) -> ValueError:
        return bad(self.source, f"data.pkl: {what}")

    def run(self, data: bytes) -> object:
        stack: list = []
        marks: list[list] = []
        memo: dict = {}
        try:
            for opcode, arg, _ in pickletools.genops(data):
                name = opcode.name
                if name in ("PROTO", "FRAME"):
                    continue
                if name == "STOP":
                    if len(stack) != 1:
                        raise self.fail("the pickle stopped with a malformed stack")
                    return stack[0]
                if name == "MARK":
                    marks.append(stack)
                    stack = []
                elif name in ("TUPLE", "LIST"):
                    items, stack = stack, marks.pop()
                    stack.append(tuple(items) if name == "TUPLE" else items)
                elif name == "DICT":
                    items, stack = stack, marks.pop()
                    stack.append(dict(zip(items[::2], items[1::2], strict=True)))
                elif name in ("APPENDS", "SETITEMS"):
                    items, stack = stack, marks.pop()
                    self._extend(stack[-1], items, name)
                elif name in ("APPEND", "SETITEM"):
                    items = [stack.pop()] if name == "APPEND" else [stack.pop(-2), stack.pop()]
                    self._extend(stack[-1], items, name)
                else:
                    self._step(name, arg, stack, memo)
        except (IndexError, KeyError, TypeError, ValueError) as e:
            if str(e).startswith("ember.load()"):
                raise
            raise self.fail(f"malformed pickle ({type(e).__name__}: {e})") from None
        raise self.fail("the pickle has no STOP")

    def _step(self, name: str, arg: object, stack: list, memo: dict) -> None:
        if name in _CONSTANTS:
            stack.append(_CONSTANTS[name]())
        elif name in _LITERALS:
            stack.append(arg)
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            n = int(name[-1])
            items = tuple(stack[-n:])
            del stack[-n:]
            stack.append(items)
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            stack.append(memo[arg])
        elif name == "POP":
            stack.pop()
        elif name == "DUP":
            stack.append(stack[-1])
        elif name in ("GLOBAL", "STACK_GLOBAL"):
            if name == "GLOBAL":
                module, _, attr = str(arg).partition(" ")
            else:
                attr = stack.pop()
                module = stack.pop()
            stack.append(self._global(module, attr))
        elif name in ("REDUCE", "NEWOBJ"):
            args = stack.pop()
            fn = stack.pop()
            if not isinstance(fn, _Global) or type(args) is not tuple:
                raise self.fail(f"{name} of {type(fn).__name__}: only the known builders are called")
            stack.append(fn.build(*args))
        elif name == "BUILD":
            state = stack.pop()
            self._build(stack[-1], state)
        elif name == "BINPERSID":
            stack.append(self._storage(stack.pop()))
        else:
            raise self.fail(f"opcode {name} is not one torch.save writes; refused")

    def _extend(self, target: object, items: list, name: str) -> None:
        if name.startswith("APPEND"):
            if type(target) is not list:
                raise self.fail(f"{name} onto a {type(target).__name__}")
            target.extend(items)
            return
        if not isinstance(target, dict):
            raise self.fail(f"{name} onto a {type(target).__name__}")
        for key, value in zip(items[::2], items[1::2], strict=True):
            target[key] = value

    def _build(self, obj: object, state: object) -> None:
        if isinstance(obj, OrderedDict) and type(state) is dict and set(state) <= {"_metadata"}:
            obj._metadata = state.get("_metadata")  # nn.Module.state_dict()'s version record
        elif isinstance(obj, np.dtype) and type(state) is tuple:
            return  # NumPy's dtype state: the byte order is checked when a scalar is read
        elif state not in (None, {}) and not (isinstance(obj, Tensor) and state == ((), {})):
            raise self.fail(f"BUILD of a {type(obj).__name__} with state {state!r:.60}; refused")

    def _global(self, module: str, attr: str) -> _Global | _StorageType | _dt.DType:
        if module == "torch" and attr in _STORAGE_DTYPES:
            return _StorageType(_STORAGE_DTYPES[attr])
        if module == "torch" and attr in _DTYPES_BY_TORCH_NAME:
            return _DTYPES_BY_TORCH_NAME[attr]
        found = self.globals.get((module, attr))
        if found is None:
            raise self.fail(
                f"the global {module}.{attr} is not one ember rebuilds (tensors, storages, dtypes, Size, OrderedDict, NumPy scalars); refused"
            )
        return found

    def _storage(self, pid: object) -> tuple[Storage, _dt.DType]:
        if type(pid) is not tuple or len(pid) != 5 or pid[0] != "storage" or not isinstance(pid[1], _StorageType):
            raise self.fail(f"persistent id {pid!r:.80} is not a storage record")
        _, kind, key, location, numel = pid
        if type(key) is not str or type(location) is not str or type(numel) is not int or numel < 0:
            raise self.fail(f"storage record {pid!r:.80} needs a str key and location and an int size")
        if key in self.storages:
            return self.storages[key]
        info = self.names.get(f"{self.prefix}data/{key}")
        nbytes = numel * kind.dtype.itemsize
        if info is None or info.file_size != nbytes:
            got = "no entry" if info is None else f"{info.file_size} bytes"
            raise self.fail(
                f"storage {key!r} ({numel} x {kind.dtype.name}) needs {nbytes} bytes in data/{key}, the archive has {got}"
            )
        storage = Storage(nbytes)
        if nbytes:
            storage._buffer()[:] = np.frombuffer(self.archive.read(info), np.uint8)
        restored = self.restore(storage, location)
        self.storages[key] = (restored, kind.dtype)
        return self.storages[key]

    def rebuild_tensor(
        self,
        storage: object,
        offset: object,
        size: object,
        stride: object,
        requires_grad: object = False,
        hooks: object = None,
        metadata: object = None,
    ) -> Tensor:
        if type(storage) is not tuple or not isinstance(storage[0], Storage):
            raise self.fail("a tensor over something other than a storage")
        if (
            type(offset) is not int
            or offset < 0
            or not int_list(list(size))
            or not int_list(list(stride))
            or len(size) != len(stride)
            or any(s < 0 for s in size)
        ):
            raise self.fail(f"a tensor with offset {offset!r}, size {size!r}, stride {stride!r}")
        data, dtype = storage
        check_view(self.source, "a tensor in data.pkl", data, offset, list(size), list(stride), dtype)
        t = make_tensor(data, offset, tuple(size), tuple(stride), dtype)
        t._requires_grad = requires_grad is True and (dtype.is_floating_point or dtype.is_complex)
        return t

    def rebuild_parameter(self, data: object, requires_grad: object, hooks: object = None) -> Tensor:
        if not isinstance(data, Tensor):
            raise self.fail("a parameter over something other than a tensor")
        data._requires_grad = requires_grad is True and (data._dtype.is_floating_point or data._dtype.is_complex)
        return data


def _encode(text: object, encoding: object = "latin1") -> bytes:
    if type(text) is not str or encoding not in ("latin1", "latin-1"):
        raise TypeError("_codecs.encode takes a str and 'latin1' here (protocol 2's bytes)")
    return text.encode("latin1")


def _numpy_dtype(name: object, align: object = False, copy: object = True) -> np.dtype:
    dtype = np.dtype(name) if type(name) is str else None
    if dtype is None or dtype.kind not in "biufc":
        raise TypeError(f"NumPy dtype {name!r:.40} is not a number type")
    return dtype


def _numpy_scalar(dtype: object, data: object = None) -> object:
    if not isinstance(dtype, np.dtype) or type(data) is not bytes or len(data) != dtype.itemsize:
        raise TypeError("a NumPy scalar needs a number dtype and its bytes")
    return np.frombuffer(data, dtype.newbyteorder("<"))[0]


def _size(items: object = ()) -> Size:
    if not int_list(list(items)):
        raise TypeError(f"Size of {items!r:.60}")
    return Size(items)


def _ordered_dict(items: object = ()) -> OrderedDict:
    return OrderedDict(items)


def _globals(machine: _Machine) -> dict:
    table = {
        ("collections", "OrderedDict"): _ordered_dict,
        ("torch._utils", "_rebuild_tensor_v2"): machine.rebuild_tensor,
        ("torch._utils", "_rebuild_tensor"): machine.rebuild_tensor,
        ("torch._utils", "_rebuild_parameter"): machine.rebuild_parameter,
        ("torch", "Size"): _size,
        ("_codecs", "encode"): _encode,
        ("numpy", "dtype"): _numpy_dtype,
    }
    for module in ("builtins", "__builtin__"):  # protocol 2 writes Python 2's name
        table.update({(module, "complex"): complex, (module, "set"): set, (module, "frozenset"): frozenset})
    for module in _NUMPY_MODULES:
        table[(module, "scalar")] = _numpy_scalar
    return {key: _Global(".".join(key), build) for key, build in table.items()}


_CONSTANTS = {
    "NONE": lambda: None,
    "NEWTRUE": lambda: True,
    "NEWFALSE": lambda: False,
    "EMPTY_DICT": dict,
    "EMPTY_LIST": list,
    "EMPTY_TUPLE": tuple,
    "EMPTY_SET": set,
}
_LITERALS = {
    "BININT", "BININT1", "BININT2", "LONG1", "LONG4", "INT", "LONG", "BINFLOAT", "FLOAT",
    "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
    "BINSTRING", "SHORT_BINSTRING",
}  # fmt: skip
