"""Tensor: a strided view over a Storage.

A tensor is (storage, storage_offset, shape, strides in elements, dtype) plus room for
autograd metadata. Views share their storage, so writing through one is seen through all,
and they share the storage's version counter, which every in-place write bumps.

>>> t = tensor([[1.0, 2.0], [3.0, 4.0]])
>>> t.shape, t.stride(), t.dtype
(ember.Size([2, 2]), (2, 1), ember.float32)
>>> t
tensor([[1., 2.],
        [3., 4.]])
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
from numpy.lib.stride_tricks import as_strided as _np_as_strided

from . import dtype as _dt, literals, printing, views
from .device import Device, as_device
from .memory_format import channels_last, channels_last_3d, contiguous_format, is_channels_last_contiguous, preserve_format
from .shape import (
    INT64_MAX,
    Size,
    check_size,
    contiguous_strides,
    is_contiguous,
)
from .storage import OBJECT_SLOT_BYTES, Storage, sync_point

# Called with each tensor whose values host code reads, when set (ember.compile's tracer).
HOST_READ_GUARD: list = [None]

__all__ = ["Tensor", "assign_array", "empty_tensor", "make_tensor", "parse_to_args", "scalar_for", "tensor"]


class Tensor:
    """An n-dimensional array: a view (offset, shape, strides, dtype) over a Storage."""

    # _np caches the NumPy view of the elements; it is valid while _np_src is the storage's DataPtr.
    __slots__ = (
        "__weakref__",
        "_base",
        "_dtype",
        "_np",
        "_np_src",
        "_offset",
        "_requires_grad",
        "_shape",
        "_storage",
        "_stride",
        "grad",
        "grad_fn",
    )

    def __new__(cls, *args, device=None):
        """PyTorch's legacy constructor: ``Tensor()``, ``Tensor(*sizes)``, ``Tensor(storage)``,
        ``Tensor(data)``, always of the default dtype. Prefer ``ember.tensor`` / ``ember.empty``."""
        return _legacy_new(args, device)

    # -- identity ------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._shape)  # internally a plain tuple: indexing it stays C-fast

    def size(self, dim: int | None = None):
        if dim is None:
            return Size(self._shape)
        return self._shape[views.wrap(dim, len(self._shape), "size")]

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._stride
        return self._stride[views.wrap(dim, len(self._shape), "stride")]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> _dt.DType:
        return self._dtype

    @property
    def device(self) -> Device:
        return self._storage._device

    is_global = False  # a global tensor (ember.distributed.tensor) says True

    @property
    def is_meta(self) -> bool:
        return self._storage._device.type == "meta"

    @property
    def is_cpu(self) -> bool:
        return self._storage._device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self._storage._device.type == "cuda"

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def is_floating_point(self) -> bool:
        return self._dtype.is_floating_point

    def is_complex(self) -> bool:
        return self._dtype.is_complex

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def new(self, *args, device=None) -> Tensor:
        """PyTorch's legacy ``x.new(*sizes)`` / ``x.new(data)``: a new tensor of x's dtype (and device)."""
        return _legacy_new(args, self._storage._device if device is None else device, self._dtype, "new")

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    def data_ptr(self) -> int:
        base = self._storage.data_ptr()
        return base + self._offset * self._dtype.itemsize if base else 0

    def untyped_storage(self) -> Storage:
        return self._storage

    storage = untyped_storage

    def share_memory_(self) -> Tensor:
        """Move this tensor's storage into shared memory (values kept; a no-op when already shared).

        Every view of the storage follows, since they share the Storage object; sending the
        tensor to another process (``ember.multiprocessing``) then costs no copy.

        >>> t = tensor([1.0, 2.0])
        >>> v = t[1:]
        >>> t.share_memory_() is t, v.is_shared(), v.tolist()
        (True, True, [2.0])
        """
        self._storage.share_memory_()
        return self

    def is_shared(self) -> bool:
        """Whether this tensor's storage lives in shared memory."""
        return self._storage.is_shared()

    def is_contiguous(self, memory_format=None) -> bool:
        """Whether the elements lie densely in the order ``memory_format`` names (row-major by default).

        >>> from ember._core.memory_format import channels_last
        >>> t = empty_tensor((2, 3, 4, 5), _dt.float32, stride=(60, 1, 15, 3))
        >>> t.is_contiguous(), t.is_contiguous(memory_format=channels_last)
        (False, True)
        """
        if memory_format is None or memory_format is contiguous_format:
            return is_contiguous(self._shape, self._stride)
        if memory_format is channels_last or memory_format is channels_last_3d:
            return is_channels_last_contiguous(self._shape, self._stride, memory_format.name)
        if memory_format is preserve_format:
            raise RuntimeError("is_contiguous(): preserve memory format is unsupported by the is_contiguous operator")
        raise TypeError(f"is_contiguous(): argument 'memory_format' must be ember.memory_format, not {type(memory_format).__name__}")

    @property
    def _version(self) -> int:
        return self._storage._version

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if flag and not (self._dtype.is_floating_point or self._dtype.is_complex):
            raise RuntimeError(f"only Tensors of floating point and complex dtype can require gradients, got {self._dtype}")
        if self.grad_fn is not None and not flag:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
                "in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        self._requires_grad = bool(flag)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def __hash__(self) -> int:
        return id(self)

    # -- views ---------------------------------------------------------------------

    def _view(self, shape, stride, offset: int, dtype: _dt.DType | None = None) -> Tensor:
        """A new tensor over the same storage; views of views keep the root as ``_base``."""
        out = object.__new__(Tensor)
        out._storage = self._storage
        out._offset = offset
        out._shape = shape if type(shape) is tuple else tuple(shape)
        out._stride = stride if type(stride) is tuple else tuple(stride)
        out._dtype = self._dtype if dtype is None else dtype
        out._base = self if self._base is None else self._base
        out._requires_grad = False
        out.grad = None
        out.grad_fn = None
        out._np_src = None
        return out

    # What a tensor can *do* beyond this file (views, copies, conversions, math, t[key]) is the
    # op schema's: the package face binds the generated methods on Tensor (``ember._install``),
    # and autograd's and DLPack's beside them.
    # t[key] and t[key] = value are the schema's getitem and setitem ops (ember/ops/indexing/
    # getitem.py), bound as __getitem__ / __setitem__ with the other generated methods.

    # -- memory as NumPy -------------------------------------------------------------

    def _numpy_view(self) -> np.ndarray:
        """A NumPy array over this tensor's elements, cached (no checks beyond having data).

        Kernels receive this array; it must not be handed to users, who could change its
        shape in place (``numpy()`` gives a fresh view of it). It does not wait for the VM:
        host code that reads or writes memory uses :meth:`_host_array`.
        """
        data = self._storage._data
        if data is not None and self._np_src is data:
            return self._np
        buffer = self._storage._buffer()
        dtype = self._dtype
        if dtype is _dt.string:
            strides = tuple(s * OBJECT_SLOT_BYTES for s in self._stride)
            start = self._offset if 0 not in self._shape else 0
            array = _np_as_strided(buffer[start:], self._shape, strides)
        else:
            size = dtype.itemsize
            # An empty view reads nothing; its offset may lie past the end of a zero-byte buffer.
            offset = self._offset * size if 0 not in self._shape else 0
            array = np.ndarray(self._shape, dtype.numpy_dtype, buffer, offset, tuple(s * size for s in self._stride))
        self._np = array
        self._np_src = self._storage._data
        return array

    def _host_array(self) -> np.ndarray:
        """The NumPy view for host code: waits for queued kernels first (a VM sync point)."""
        if sync_point.wait is not None:
            sync_point.wait()
        if HOST_READ_GUARD[0] is not None:  # a tracer refusing reads of values it is changing
            HOST_READ_GUARD[0](self)
        return self._numpy_view()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (zero-copy).

        >>> t = tensor([1, 2, 3])
        >>> a = t.numpy(); a[0] = 10
        >>> t.tolist()
        [10, 2, 3]
        """
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._storage._device.type != "cpu":
            raise TypeError(
                f"can't convert {self._storage._device.type} device type tensor to numpy: "
                f"{'meta tensors hold shape and dtype only, no data' if self.is_meta else 'use Tensor.cpu() to copy the tensor to host memory first'}"
            )
        array = self._host_array().view()  # a fresh view: users may reshape it in place
        self._storage._data.escape()  # the memory now has a holder outside ember
        return array

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        array = self.numpy()
        if dtype is not None and np.dtype(dtype) != array.dtype:
            if copy is False:
                raise ValueError(f"__array__(): converting {self._dtype} to {np.dtype(dtype)} needs a copy, but copy=False")
            return array.astype(dtype)
        return array.copy() if copy else array

    @property
    def __array_interface__(self) -> dict:
        # Only for what NumPy can describe this way; the rest falls back to __array__.
        dtype = self._dtype
        if dtype is _dt.string or dtype is _dt.bfloat16 or self._requires_grad or self._storage._device.type != "cpu" or self.numel() == 0:
            raise AttributeError("__array_interface__")
        size = dtype.itemsize
        strides = None if self.is_contiguous() else tuple(s * size for s in self._stride)
        return {
            "data": (self.data_ptr(), self._storage._readonly),
            "shape": tuple(self._shape),
            "strides": strides,
            "typestr": dtype.numpy_dtype.str,
            "version": 3,
        }

    # -- Python scalars and containers ---------------------------------------------

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(f"item(): a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self.is_meta:
            raise RuntimeError("item(): cannot be called on meta tensors: they hold shape and dtype only, no values")
        value = self.numpy(force=True).reshape(-1)[0]
        return _to_python_scalar(value, self._dtype)

    def tolist(self):
        if self.is_meta:
            raise RuntimeError("tolist(): cannot be called on meta tensors: they hold shape and dtype only, no values")
        array = self.numpy(force=True)
        if self._dtype is _dt.bfloat16 or self._dtype is _dt.float16:
            array = array.astype(np.float32)
        return array.tolist()

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(views.unbind(self, 0))

    def __bool__(self) -> bool:
        n = self.numel()
        if n != 1:
            what = "no values" if n == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return bool(self.item())

    def __index__(self) -> int:
        if self._dtype.kind not in "iu" or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def _scalar(self):
        if self.numel() != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars (this one has {self.numel()})")
        return self.item()

    def __int__(self) -> int:
        value = self._scalar()
        if isinstance(value, complex):
            raise TypeError("int(): can't convert a complex tensor to int")
        return int(value)

    def __float__(self) -> float:
        value = self._scalar()
        if isinstance(value, complex):
            raise TypeError("float(): can't convert a complex tensor to float")
        return float(value)

    def __complex__(self) -> complex:
        return complex(self._scalar())

    # -- copies and in-place writes --------------------------------------------------

    def _check_writable(self, op: str, *, overlap: bool = True) -> None:
        """Refuse writes into read-only memory, and into expanded views, where several elements
        share one location and which write wins would be an accident of the loop order."""
        if self._storage._readonly:
            raise RuntimeError(
                f"{op}: cannot write into a read-only tensor (its memory was lent read-only, e.g. by a "
                f"read-only NumPy array or a DLPack producer); clone() it to get a writable copy"
            )
        if not overlap or 0 in self._shape:  # an empty tensor has no elements to share a location
            return
        for size, stride in zip(self._shape, self._stride, strict=True):
            if stride == 0 and size > 1:
                raise RuntimeError(
                    f"{op}: unsupported operation: more than one element of the written-to tensor refers to a single "
                    f"memory location (sizes {list(self._shape)}, strides {list(self._stride)}). Please clone() the "
                    f"tensor before performing the operation."
                )

    # -- printing, pickling, copying -------------------------------------------------

    def __repr__(self) -> str:
        extras = []
        if self.grad_fn is not None:
            extras.append(f"grad_fn=<{self.grad_fn.name()}>")
        elif self._requires_grad:
            extras.append("requires_grad=True")
        dtype = self._dtype
        default = _dt.get_default_dtype()
        device = self.device
        if device.type == "meta" or self.numel() == 0:
            show_dtype = dtype is not default  # PyTorch shows any non-default dtype when there are no values
        else:
            show_dtype = dtype not in (default, _dt.get_default_complex_dtype(), _dt.int64, _dt.bool_)
        values = None if device.type == "meta" else self._host_array()
        return printing.format_tensor(
            values,
            shape=tuple(self._shape),
            dtype_name=dtype.name,
            show_dtype=show_dtype,
            device=None if device.type == "cpu" else str(device),
            extras=tuple(extras),
        )

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """A 0-d tensor formats as its Python number (``f"{loss:.4f}"``), as in PyTorch; others
        take only the empty spec (their repr) and refuse any other with PyTorch's TypeError."""
        if not self._shape and self._storage._device.type != "meta":
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    def __reduce_ex__(self, protocol: int):
        return (
            _rebuild_tensor,
            (self._storage, self._offset, tuple(self._shape), self._stride, self._dtype.name, self._requires_grad),
        )

    def __copy__(self) -> Tensor:
        return make_tensor(self._storage, self._offset, self._shape, self._stride, self._dtype)

    def __deepcopy__(self, memo: dict) -> Tensor:
        copied = memo.get(id(self))
        if copied is None:
            storage = self._storage.__deepcopy__(memo)
            copied = make_tensor(storage, self._offset, self._shape, self._stride, self._dtype)
            copied._requires_grad = self._requires_grad
            memo[id(self)] = copied
        return copied


def _legacy_new(args: tuple, device, dtype: _dt.DType | None = None, name: str = "Tensor") -> Tensor:
    """PyTorch's legacy constructors (``Tensor(...)``, ``FloatTensor(...)``): sizes give an
    uninitialized tensor, a Storage or a tensor of the same dtype is aliased, data is copied."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    if not args:
        return empty_tensor((0,), dtype, device)
    first = args[0]
    if len(args) == 1 and isinstance(first, Storage):
        return make_tensor(first, 0, (first.nbytes() // dtype.itemsize,), (1,), dtype)
    if len(args) == 1 and isinstance(first, Tensor):
        if first._dtype is not dtype:
            raise TypeError(f"{name}(): expected a tensor of dtype {dtype} (got {first._dtype})")
        return make_tensor(first._storage, first._offset, first._shape, first._stride, dtype)
    sizes = tuple(first) if len(args) == 1 and isinstance(first, Size) else args
    if all(isinstance(a, int) and not isinstance(a, bool) for a in sizes):
        check_size(sizes, name, dtype.itemsize)
        return empty_tensor(sizes, dtype, device)
    if len(args) == 1 and isinstance(first, (str, bytes)):
        raise TypeError(f"{name}(): invalid data type '{type(first).__name__}'")
    if len(args) == 1 and isinstance(first, numbers.Number):
        raise TypeError(f"{name}(): data must be a sequence (got {type(first).__name__})")
    if len(args) == 1:
        return tensor(first, dtype=dtype, device=device)
    raise TypeError(f"{name}(): expected sizes (ints), a Storage, a tensor or a sequence of numbers, got ({', '.join(type(a).__name__ for a in args)})")


def make_tensor(storage: Storage, offset: int, shape, stride, dtype: _dt.DType) -> Tensor:
    """A tensor over ``storage`` with the given layout (no bounds check: callers own that)."""
    out = object.__new__(Tensor)
    out._storage = storage
    out._offset = offset
    out._shape = shape if type(shape) is tuple else tuple(shape)
    out._stride = stride if type(stride) is tuple else tuple(stride)
    out._dtype = dtype
    out._base = None
    out._requires_grad = False
    out.grad = None
    out.grad_fn = None
    out._np_src = None
    return out


def empty_tensor(
    shape, dtype: _dt.DType, device: Device | str | None = None, *, stride=None, lazy: bool = True, op: str = "empty"
) -> Tensor:
    """A new tensor with fresh (lazily allocated) memory; strides default to contiguous."""
    device = as_device(device)
    n = 1
    for s in shape:
        n *= s
    nbytes = n * dtype.itemsize
    if not 0 <= nbytes <= INT64_MAX:  # a size no factory checked: refuse it in PyTorch's words
        check_size(shape, op, dtype.itemsize)
    storage = Storage(nbytes, device=device, lazy=lazy, holds_objects=dtype is _dt.string)
    return make_tensor(storage, 0, shape, contiguous_strides(shape) if stride is None else stride, dtype)


# Set by ember.distributed.tensor: fn(local whole tensor, placement, sbp) -> a global tensor.
GLOBAL_TENSOR: list = [None]


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, placement=None, sbp=None) -> Tensor:
    """A new tensor holding a copy of ``data`` (scalars, nested sequences, arrays, tensors).

    Python floats become the default dtype, ints int64, bools bool, complex the default
    complex dtype, and bytes/str the string dtype; NumPy arrays keep their dtype. With
    ``placement=`` and ``sbp=`` it is a global tensor of that layout (``data`` is the whole
    logical value, the same on every rank; each rank keeps its piece).

    >>> tensor([[1, 2], [3, 4]]).dtype
    ember.int64
    >>> tensor(2.5)
    tensor(2.5000)
    """
    if placement is not None or sbp is not None:
        if placement is None or sbp is None:
            raise TypeError(f"tensor(): a global tensor needs both placement= and sbp=, but {'sbp' if sbp is None else 'placement'}= is missing")
        whole = tensor(data, dtype=dtype, device=device)
        return GLOBAL_TENSOR[0](whole, placement, sbp).requires_grad_(requires_grad)
    target = None if dtype is None else _dt.as_dtype(dtype, op="tensor")
    device = as_device(device, op="tensor")
    if isinstance(data, Tensor):
        warnings.warn(
            "To copy construct from a tensor, use t.clone().detach() rather than ember.tensor(t)", UserWarning, stacklevel=2
        )
        out = data.to(dtype=target or data.dtype, device=device, copy=True)
        return out.requires_grad_(requires_grad)
    array, inferred = literals.array_from_data(data, target, "tensor", Tensor)
    out = empty_tensor(array.shape, inferred, device)
    if device.type != "meta":
        assign_array(out._host_array(), array)
    out.requires_grad = requires_grad
    return out


def assign_array(dst: np.ndarray, src) -> None:
    """Write ``src`` into ``dst`` with broadcasting and PyTorch's silent casting."""
    if not isinstance(src, np.ndarray):
        dst.fill(src)  # a scalar: NumPy's fastest write
        return
    if src.dtype.kind == "c" and dst.dtype.kind != "c":
        src = src.real  # PyTorch drops the imaginary part (NumPy would warn)
    np.copyto(dst, src, casting="unsafe")


def scalar_for(value, dtype: _dt.DType, op: str):
    """``value`` as a scalar to write into a ``dtype`` tensor, refused where PyTorch refuses (overflow, kinds)."""
    if dtype is _dt.string:
        if isinstance(value, str):
            return value.encode("utf-8")
        if isinstance(value, bytes):
            return value
        raise TypeError(f"{op}(): a string tensor takes bytes or str values, not {type(value).__name__}")
    if isinstance(value, (bytes, str)) or not isinstance(value, (numbers.Number, np.generic)):
        raise TypeError(f"{op}(): argument 'value' must be a number, not {type(value).__name__}")
    return literals.check_fill_value(value, dtype, op)


def _to_python_scalar(value, dtype: _dt.DType):
    if dtype is _dt.string:
        return value
    kind = dtype.kind
    if kind == "b":
        return bool(value)
    if kind in "iu":
        return int(value)
    if kind == "c":
        return complex(value)
    return float(value)


def parse_to_args(args: tuple, kwargs: dict):
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to(): unexpected keyword argument '{next(iter(kwargs))}'")
    for arg in args:
        if isinstance(arg, Tensor):
            dtype, device = arg.dtype, arg.device
        elif isinstance(arg, (Device, str)) and not (isinstance(arg, str) and _is_dtype_name(arg)):
            device = arg
        else:
            dtype = arg
    dtype = None if dtype is None else _dt.as_dtype(dtype, op="to")
    device = None if device is None else as_device(device, op="to")
    return dtype, device, copy


def _is_dtype_name(name: str) -> bool:
    try:
        _dt.as_dtype(name)
    except TypeError:
        return False
    return True


def _rebuild_tensor(storage: Storage, offset: int, shape, stride, dtype_name: str, requires_grad: bool) -> Tensor:
    out = make_tensor(storage, offset, shape, stride, _dt.as_dtype(dtype_name))
    out._requires_grad = requires_grad
    return out

