"""Creation ops: factories with no tensor inputs (``zeros``, ``arange``, ``eye``...) and the
``*_like`` forms.

A factory dispatches a primitive with ``inputs=()``; the interpreter takes the device from
``attrs["device"]`` and the inference rule reads the shape and dtype from the attributes, so a
meta-device factory costs no memory. ``empty`` builds its tensor directly, without a kernel:
its storage gets memory on first use. Kernels are in ``ember/kernels/cpu/creation.py``.

>>> import ember
>>> ember.arange(0, 1, 0.25).tolist()
[0.0, 0.25, 0.5, 0.75]
>>> ember.full((2,), True).dtype
ember.bool
"""

from __future__ import annotations

import math

import numpy as np

from .._core import dtype as _dt
from .._core.device import CPU, Device, as_device
from .._core.shape import check_size, contiguous_strides, is_non_overlapping_and_dense
from .._core.tensor import Tensor, empty_tensor, tensor
from .._core.tensor_numpy import as_tensor
from .._core.views import check_in_bounds
from ..dispatch import OpExpr, dispatch
from .functor import functor
from .schema import schema_family

declare = schema_family("creation")

__all__ = ["FILL", "broadcastable_to", "check_kinds", "dense_strides", "dtype_of_scalar", "fill_into", "memory_format", "new_filled", "preserved_strides"]


# --- helpers shared with conversion and random ------------------------------------


def dtype_of_scalar(value) -> _dt.DType:
    """The dtype ``full`` infers from its fill value (torch.full's rule)."""
    if isinstance(value, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(value, (int, np.integer)):
        return _dt.int64
    if isinstance(value, (complex, np.complexfloating)):
        return _dt.get_default_complex_dtype()
    if isinstance(value, (bytes, str)):
        return _dt.string
    if isinstance(value, Tensor):
        return value._dtype
    return _dt.get_default_dtype()


def check_kinds(op: str, arg: str, dtype: _dt.DType, kinds) -> None:
    """Refuse a dtype outside the array-API kinds ``kinds`` (a name or a tuple of names)."""
    kinds = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    if not any(_dt.isdtype(dtype, k) for k in kinds):
        raise TypeError(f"{op}(): argument '{arg}' must have a {' or '.join(kinds)} dtype, got {dtype}")


def broadcastable_to(shape: tuple, target: tuple) -> bool:
    """Whether ``shape`` broadcasts to exactly ``target``."""
    n, k = len(target), len(shape)
    return k <= n and all(s == 1 or s == t for s, t in zip(shape, target[n - k :], strict=True))


def check_requires_grad(out: Tensor, requires_grad: bool) -> Tensor:
    if requires_grad:
        out.requires_grad = True  # the setter refuses integer and bool dtypes, as PyTorch does
    return out


def memory_format(value, op: str) -> str:
    """``None`` / ``"preserve_format"`` / ``"contiguous_format"`` (or torch's objects of those
    names) as ``"preserve"`` or ``"contiguous"``."""
    if value is None:
        return "preserve"
    name = str(value).rpartition(".")[2]
    if name in ("preserve_format", "contiguous_format"):
        return name.partition("_")[0]
    if name in ("channels_last", "channels_last_3d"):
        raise NotImplementedError(f"{op}(): memory_format {name} is not supported by ember (only preserve_format and contiguous_format)")
    raise TypeError(f"{op}(): argument 'memory_format' must be 'preserve_format' or 'contiguous_format', got {value!r}")


def dense_strides(shape: tuple, stride: tuple) -> tuple:
    """PyTorch's ``infer_dense_strides``: contiguous strides in the input's dimension order."""
    ndim = len(shape)
    perm = list(range(ndim - 1, -1, -1))

    def should_swap(d0: int, d1: int) -> int:
        s0, s1 = stride[d0], stride[d1]
        if s0 == 0 or s1 == 0:
            return 0
        if s0 < s1:
            return -1
        if s0 > s1:
            return 1
        return 1 if shape[d0] > shape[d1] else 0

    for i in range(1, ndim):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    out = [0] * ndim
    cur = 1
    for idx in perm:
        out[idx] = cur
        if shape[idx] > 1:
            cur *= shape[idx]
    return tuple(out)


def preserved_strides(x: Tensor, fmt: str = "preserve") -> tuple:
    """The strides of a copy of ``x`` under ``memory_format`` (PyTorch's preserve_format: a
    dense layout such as a transpose keeps its strides, others get dense ones in the same order)."""
    shape, stride = x._shape, x._stride
    if fmt == "contiguous":
        return contiguous_strides(shape)
    if stride == contiguous_strides(shape):
        return stride
    if is_non_overlapping_and_dense(shape, stride) and all(s > 0 or (n == 1 and s == 0) for n, s in zip(shape, stride, strict=True)):
        return stride  # size-1 dims keep their strides too, as in PyTorch
    return dense_strides(shape, stride)


def _factory(op: str, size, dtype, device, default=None) -> tuple:
    shape = tuple(size)
    check_size(shape, op)
    dtype = (default or _dt.get_default_dtype()) if dtype is None else dtype
    device = CPU if device is None else device if type(device) is Device else as_device(device, op=op)
    return shape, dtype, device


def _scalar_for(value, dtype: _dt.DType, op: str):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"{op}(): only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions.")
        value = value.item()
    return Tensor._scalar_for(value, dtype, op)


FILL = OpExpr("fill", (), ("out",))


@FILL.shape_rule
def _infer_fill(attrs):
    return ((attrs["shape"], attrs["dtype"]),)


def fill_into(out: Tensor, value, op: str = "fill_") -> Tensor:
    """Write ``value`` into every element of ``out`` (checked: overflow, read-only, expanded)."""
    value = _scalar_for(value, out._dtype, op)
    attrs = {"shape": out._shape, "dtype": out._dtype, "device": out._storage._device, "value": value}
    dispatch(FILL, (), attrs, (out,))
    return out


def new_filled(shape: tuple, dtype: _dt.DType, device: Device, value, op: str, stride: tuple | None = None) -> Tensor:
    """A fresh tensor of ``value``s; ``stride`` (when not contiguous) gives its layout."""
    value = _scalar_for(value, dtype, op)
    kind = device.type
    if (stride is None or stride == contiguous_strides(shape)) and (kind == "cpu" or kind == "meta"):
        return dispatch(FILL, (), {"shape": shape, "dtype": dtype, "device": device, "value": value})[0]
    out = empty_tensor(shape, dtype, device, stride=stride)
    if kind != "meta":
        out._storage._materialize()  # a device without an allocator (cuda) fails here, clearly
    dispatch(FILL, (), {"shape": shape, "dtype": dtype, "device": device, "value": value}, (out,))
    out._storage._version = 0  # a fresh tensor starts at version 0
    return out


# --- empty / zeros / ones / full ----------------------------------------------------


declare(
    "empty",
    "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Empty",
    differentiable=False, composite=True,
    doc="""
    An uninitialised tensor; its memory is allocated on first use (caffe2's lazy allocation),
    never on the meta device. The size as varargs or one sequence.

    >>> t = ember.empty(2, 3)
    >>> t.shape, t.untyped_storage().is_allocated
    (ember.Size([2, 3]), False)
    """,
)
@functor("Empty")
def empty(size, dtype=None, device=None, requires_grad=False):
    shape, dtype, device = _factory("empty", size, dtype, device)
    return check_requires_grad(empty_tensor(shape, dtype, device), requires_grad)


declare(
    "zeros",
    "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Zeros",
    differentiable=False, op="fill",
    doc="""
    A tensor of zeros; the size as varargs or one sequence.

    >>> ember.zeros(2, 3).shape == ember.zeros((2, 3)).shape
    True
    >>> ember.zeros(2, dtype=ember.int32)
    tensor([0, 0], dtype=ember.int32)
    """,
)
@functor("Zeros")
def zeros(size, dtype=None, device=None, requires_grad=False):
    shape, dtype, device = _factory("zeros", size, dtype, device)
    return check_requires_grad(new_filled(shape, dtype, device, b"" if dtype is _dt.string else 0, "zeros"), requires_grad)


declare(
    "ones",
    "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Ones",
    differentiable=False, op="fill",
    doc="""
    A tensor of ones; the size as varargs or one sequence.

    >>> ember.ones(2)
    tensor([1., 1.])
    """,
)
@functor("Ones")
def ones(size, dtype=None, device=None, requires_grad=False):
    shape, dtype, device = _factory("ones", size, dtype, device)
    return check_requires_grad(new_filled(shape, dtype, device, 1, "ones"), requires_grad)


declare(
    "full",
    "Tensor (IntList size, Object fill_value, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Full",
    differentiable=False, op="fill",
    doc="""
    A tensor filled with fill_value; without dtype, bool -> bool, int -> int64, float -> the default dtype, complex -> the default complex dtype.

    >>> ember.full((2,), 7)
    tensor([7, 7])
    >>> ember.full((2,), 1.5).dtype
    ember.float32
    """,
)
@functor("Full")
def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    shape, dtype, device = _factory("full", size, dtype, device, dtype_of_scalar(fill_value))
    return check_requires_grad(new_filled(shape, dtype, device, fill_value, "full"), requires_grad)


declare(
    "empty_strided",
    "Tensor (IntList size, IntList stride, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => EmptyStrided",
    differentiable=False, composite=True,
    doc="""
    An uninitialised tensor with the given strides, over just enough memory for them.

    >>> ember.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """,
)
@functor("EmptyStrided")
def empty_strided(size, stride, dtype=None, device=None, requires_grad=False):
    shape, dtype, device = _factory("empty_strided", size, dtype, device)
    strides = tuple(stride)
    if len(shape) != len(strides):
        raise RuntimeError(f"empty_strided(): mismatch in length of strides and shape: {len(shape)} sizes and {len(strides)} strides")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"empty_strided(): strides must be non-negative, got {list(strides)}")
    span = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    out = empty_tensor((span,), dtype, device)
    check_in_bounds(out, shape, strides, 0, "empty_strided")
    out = out._view(shape, strides, 0)
    out._base = None
    return check_requires_grad(out, requires_grad)


# --- the *_like forms -----------------------------------------------------------------


def _like(op: str, input: Tensor, dtype, device, fmt) -> tuple:
    dtype = input._dtype if dtype is None else dtype
    device = input._storage._device if device is None else device
    return input._shape, dtype, device, preserved_strides(input, memory_format(fmt, op))


declare(
    "empty_like",
    "Tensor (Tensor input, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object memory_format=None) => EmptyLike",
    differentiable=False, composite=True,
    doc="""
    An uninitialised tensor with input's shape, dtype and device (a dense layout such as a transpose keeps its strides).

    >>> ember.empty_like(ember.zeros(2, 3).t()).stride()
    (1, 3)
    """,
)
@functor("EmptyLike")
def empty_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    shape, dtype, device, stride = _like("empty_like", input, dtype, device, memory_format)
    return check_requires_grad(empty_tensor(shape, dtype, device, stride=stride), requires_grad)


declare(
    "zeros_like",
    "Tensor (Tensor input, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object memory_format=None) => ZerosLike",
    differentiable=False, op="fill",
    doc="""
    Zeros with input's shape, dtype and device.

    >>> ember.zeros_like(ember.tensor([1, 2])).tolist()
    [0, 0]
    """,
)
@functor("ZerosLike")
def zeros_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    shape, dtype, device, stride = _like("zeros_like", input, dtype, device, memory_format)
    value = b"" if dtype is _dt.string else 0
    return check_requires_grad(new_filled(shape, dtype, device, value, "zeros_like", stride), requires_grad)


declare(
    "ones_like",
    "Tensor (Tensor input, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object memory_format=None) => OnesLike",
    differentiable=False, op="fill",
    doc="""
    Ones with input's shape, dtype and device.

    >>> ember.ones_like(ember.tensor([1.5, 2.5])).tolist()
    [1.0, 1.0]
    """,
)
@functor("OnesLike")
def ones_like(input, dtype=None, device=None, requires_grad=False, memory_format=None):
    shape, dtype, device, stride = _like("ones_like", input, dtype, device, memory_format)
    return check_requires_grad(new_filled(shape, dtype, device, 1, "ones_like", stride), requires_grad)


declare(
    "full_like",
    "Tensor (Tensor input, Object fill_value, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object memory_format=None) => FullLike",
    differentiable=False, op="fill",
    doc="""
    fill_value everywhere, with input's shape, dtype and device.

    >>> ember.full_like(ember.zeros(2, dtype=ember.int32), 7)
    tensor([7, 7], dtype=ember.int32)
    """,
)
@functor("FullLike")
def full_like(input, fill_value, dtype=None, device=None, requires_grad=False, memory_format=None):
    shape, dtype, device, stride = _like("full_like", input, dtype, device, memory_format)
    return check_requires_grad(new_filled(shape, dtype, device, fill_value, "full_like", stride), requires_grad)


def _new(self: Tensor, dtype, device) -> tuple:
    return (self._dtype if dtype is None else dtype), (self._storage._device if device is None else device)


declare(
    "Tensor.new_empty",
    "Tensor (Tensor input, IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => NewEmpty",
    method=True, differentiable=False, composite=True,
    doc="""
    An uninitialised tensor of the given size, with this tensor's dtype and device by default.
    """,
)
@functor("NewEmpty")
def new_empty(self, size, dtype=None, device=None, requires_grad=False):
    dtype, device = _new(self, dtype, device)
    return empty(size, dtype, device, requires_grad)


declare(
    "Tensor.new_zeros",
    "Tensor (Tensor input, IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => NewZeros",
    method=True, differentiable=False, op="fill",
    doc="""
    Zeros of the given size, with this tensor's dtype and device by default.

    >>> ember.tensor([1, 2]).new_zeros((2,)).tolist()
    [0, 0]
    """,
)
@functor("NewZeros")
def new_zeros(self, size, dtype=None, device=None, requires_grad=False):
    dtype, device = _new(self, dtype, device)
    return zeros(size, dtype, device, requires_grad)


declare(
    "Tensor.new_ones",
    "Tensor (Tensor input, IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => NewOnes",
    method=True, differentiable=False, op="fill",
    doc="Ones of the given size, with this tensor's dtype and device by default.",
)
@functor("NewOnes")
def new_ones(self, size, dtype=None, device=None, requires_grad=False):
    dtype, device = _new(self, dtype, device)
    return ones(size, dtype, device, requires_grad)


declare(
    "Tensor.new_full",
    "Tensor (Tensor input, IntList size, Object fill_value, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => NewFull",
    method=True, differentiable=False, op="fill",
    doc="""
    fill_value everywhere, in a tensor of the given size with this tensor's dtype and device by default.
    """,
)
@functor("NewFull")
def new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    dtype, device = _new(self, dtype, device)
    return full(size, fill_value, dtype, device, requires_grad)


# --- ranges -------------------------------------------------------------------------------


def _real(value, op: str, arg: str) -> float | int:
    if isinstance(value, complex):
        if value.imag != 0:
            raise RuntimeError(f"{op}(): argument '{arg}' must be real, got {value}")
        value = value.real
    return value


def _is_float(value) -> bool:
    return isinstance(value, (float, np.floating))


ARANGE = OpExpr("arange", (), ("out",))


@ARANGE.shape_rule
def _infer_arange(attrs):
    return (((attrs["size"],), attrs["dtype"]),)


def arange_size(start, end, step, dtype: _dt.DType) -> int:
    """torch.arange's length: integer arithmetic for int64, a float64 ceil for the others."""
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    for v in (start, end):
        if not math.isfinite(v):
            raise RuntimeError(f"arange(): unsupported range: {start} -> {end}")
    if not ((step > 0 and end >= start) or (step < 0 and end <= start)):
        raise RuntimeError(f"arange(): upper bound and lower bound inconsistent with step sign (start={start}, end={end}, step={step})")
    if dtype is _dt.int64:  # torch's int64 path: (end - start + step - sign(step)) / step, truncated
        s, e, st = int(start), int(end), int(step)
        if st == 0:  # (other integer dtypes size by the float step and repeat start, as torch does)
            raise RuntimeError(f"arange(): step must be nonzero (step={step} truncates to 0 for int64)")
        num = e - s + st - (1 if st > 0 else -1)
        size = abs(num) // abs(st) * (1 if (num >= 0) == (st > 0) else -1)
    else:
        size = math.ceil((float(end) - float(start)) / float(step))
    if size < 0 or size > 2**63 - 1:
        raise RuntimeError("arange(): invalid size, possible overflow?")
    return int(size)


declare(
    "arange",
    "Tensor (Scalar? start=None, Scalar? end=None, Scalar step=1, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Arange",
    out=True, differentiable=False,
    doc="""
    Values from start (default 0) up to end, exclusive, by step: int64 when all of them are ints, else the default dtype.

    >>> ember.arange(5).tolist()
    [0, 1, 2, 3, 4]
    >>> ember.arange(1, 0, -0.25).tolist()
    [1.0, 0.75, 0.5, 0.25]
    """,
)
@functor("Arange")
def arange(start=None, end=None, step=1, dtype=None, device=None, requires_grad=False, out=None):
    if end is None:
        if start is None:
            raise TypeError("arange(): missing required argument 'end'")
        start, end = 0, start
    elif start is None:
        start = 0
    start, end, step = (_real(v, "arange", n) for v, n in ((start, "start"), (end, "end"), (step, "step")))
    if dtype is None:
        dtype = out._dtype if out is not None else _dt.get_default_dtype() if any(_is_float(v) for v in (start, end, step)) else _dt.int64
    check_kinds("arange", "dtype", dtype, ("integral", "real floating"))
    size = arange_size(start, end, step, dtype)
    if dtype.kind in "iu":
        start, step = int(start), int(step)
    attrs = {"size": size, "dtype": dtype, "device": CPU if device is None else device, "start": start, "step": step}
    if out is not None:
        attrs["device"] = out.device
        return dispatch(ARANGE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(ARANGE, (), attrs)[0], requires_grad)


LINSPACE = OpExpr("linspace", (), ("out",))


@LINSPACE.shape_rule
def _infer_linspace(attrs):
    return (((attrs["steps"],), attrs["dtype"]),)


def _linspace_attrs(op, start, end, steps, dtype, device, out, endpoint=True, base=None):
    if steps < 0:
        raise RuntimeError(f"{op}(): number of steps must be non-negative, got {steps}")
    if dtype is None:
        if out is not None:
            dtype = out._dtype
        elif isinstance(start, complex) or isinstance(end, complex):
            dtype = _dt.get_default_complex_dtype()
        else:
            dtype = _dt.get_default_dtype()
    check_kinds(op, "dtype", dtype, ("integral", "real floating", "complex floating"))
    device = out.device if out is not None else CPU if device is None else device
    return {"steps": steps, "dtype": dtype, "device": device, "start": start, "end": end, "endpoint": endpoint, "base": base}


declare(
    "linspace",
    "Tensor (Scalar start, Scalar end, Int steps, *, Bool endpoint=True, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Linspace",
    out=True, differentiable=False,
    doc="""
    steps evenly spaced values from start to end (end excluded with endpoint=False, as in the array API).

    >>> ember.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """,
)
@functor("Linspace")
def linspace(start, end, steps, endpoint=True, dtype=None, device=None, requires_grad=False, out=None):
    attrs = _linspace_attrs("linspace", start, end, steps, dtype, device, out, endpoint)
    if out is not None:
        return dispatch(LINSPACE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(LINSPACE, (), attrs)[0], requires_grad)


declare(
    "logspace",
    "Tensor (Scalar start, Scalar end, Int steps, Float base=10.0, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Logspace",
    out=True, differentiable=False, op="linspace",
    doc="""
    base ** linspace(start, end, steps).

    >>> ember.logspace(0, 3, 4, dtype=ember.int64).tolist()
    [1, 10, 100, 1000]
    """,
)
@functor("Logspace")
def logspace(start, end, steps, base=10.0, dtype=None, device=None, requires_grad=False, out=None):
    attrs = _linspace_attrs("logspace", start, end, steps, dtype, device, out, True, base)
    if out is not None:
        return dispatch(LINSPACE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(LINSPACE, (), attrs)[0], requires_grad)


EYE = OpExpr("eye", (), ("out",))


@EYE.shape_rule
def _infer_eye(attrs):
    return (((attrs["n"], attrs["m"]), attrs["dtype"]),)


declare(
    "eye",
    "Tensor (Int n, Int? m=None, *, Int k=0, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Eye",
    out=True, differentiable=False,
    doc="""
    An n x m matrix with ones on diagonal k (0: the main one) and zeros elsewhere.

    >>> ember.eye(2, 3, dtype=ember.int64).tolist()
    [[1, 0, 0], [0, 1, 0]]
    """,
)
@functor("Eye")
def eye(n, m=None, k=0, dtype=None, device=None, requires_grad=False, out=None):
    if n < 0:
        raise RuntimeError(f"eye(): n must be greater or equal to 0, got {n}")
    if m is None:
        m = n
    elif m < 0:
        raise RuntimeError(f"eye(): m must be greater or equal to 0, got {m}")
    if dtype is None:
        dtype = out._dtype if out is not None else _dt.get_default_dtype()
    attrs = {"n": n, "m": m, "dtype": dtype, "device": out.device if out is not None else CPU if device is None else device, "k": k}
    if out is not None:
        return dispatch(EYE, (), attrs, (out,))[0]
    return check_requires_grad(dispatch(EYE, (), attrs)[0], requires_grad)


TRI_INDICES = OpExpr("tri_indices", (), ("out",))


def _tril_count(row: int, col: int, offset: int) -> int:
    if row == 0 or col == 0:
        return 0
    return int(np.clip(np.arange(row, dtype=np.int64) + offset + 1, 0, col).sum())


@TRI_INDICES.shape_rule
def _infer_tri_indices(attrs):
    row, col, offset = attrs["row"], attrs["col"], attrs["offset"]
    n = _tril_count(row, col, offset) if attrs["lower"] else row * col - _tril_count(row, col, offset - 1)
    return (((2, n), attrs["dtype"]),)


def _tri_indices(op, lower, row, col, offset, dtype, device):
    if row < 0:
        raise RuntimeError(f"{op}(): row must be non-negative, got {row}")
    if col < 0:
        raise RuntimeError(f"{op}(): col must be non-negative, got {col}")
    dtype = _dt.int64 if dtype is None else dtype
    check_kinds(op, "dtype", dtype, "integral")
    attrs = {"row": row, "col": col, "offset": offset, "lower": lower, "dtype": dtype, "device": CPU if device is None else device}
    return dispatch(TRI_INDICES, (), attrs)[0]


declare(
    "tril_indices",
    "Tensor (Int row, Int col, Int offset=0, *, DType? dtype=None, Device? device=None) => TrilIndices",
    differentiable=False, op="tri_indices",
    doc="""
    The (row, column) indices of the lower triangle of a row x col matrix, as a 2 x N tensor.

    >>> ember.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """,
)
@functor("TrilIndices")
def tril_indices(row, col, offset=0, dtype=None, device=None):
    return _tri_indices("tril_indices", True, row, col, offset, dtype, device)


declare(
    "triu_indices",
    "Tensor (Int row, Int col, Int offset=0, *, DType? dtype=None, Device? device=None) => TriuIndices",
    differentiable=False, op="tri_indices",
    doc="""
    The (row, column) indices of the upper triangle of a row x col matrix, as a 2 x N tensor.

    >>> ember.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """,
)
@functor("TriuIndices")
def triu_indices(row, col, offset=0, dtype=None, device=None):
    return _tri_indices("triu_indices", False, row, col, offset, dtype, device)


# --- composites ------------------------------------------------------------------------------


declare(
    "meshgrid",
    "TensorList (TensorList tensors, *, String? indexing=None) => Meshgrid",
    composite=True,
    doc="""
    Coordinate grids (expanded views) of 1-D inputs; indexing 'ij' (the default) or 'xy'. Takes a list of tensors.

    >>> x, y = ember.meshgrid([ember.tensor([1, 2]), ember.tensor([3, 4, 5])], indexing="ij")
    >>> x.shape, y.tolist()
    (ember.Size([2, 3]), [[3, 4, 5], [3, 4, 5]])
    """,
)
@functor("Meshgrid")
def meshgrid(tensors, indexing=None):
    """Views (expanded) of the 0-d/1-d inputs over the grid they span."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    indexing = "ij" if indexing is None else indexing
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'meshgrid(): indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid(): expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid(): expected 0D or 1D tensors in the tensor list, but tensor {i} has {t.ndim} dimensions")
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError(f"meshgrid(): expected all tensors in the tensor list to have the same dtype, got {tensors[0]._dtype} and {t._dtype}")
        if t.device != tensors[0].device:
            raise RuntimeError(f"meshgrid(): expected all tensors in the tensor list to have the same device, got {tensors[0].device} and {t.device}")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = tuple(t.numel() for t in order)
    n = len(order)
    outs = []
    for i, t in enumerate(order):
        view_shape = [1] * n
        view_shape[i] = shape[i]
        outs.append(t.reshape(tuple(view_shape)).expand(shape))
    if swap:
        outs[0], outs[1] = outs[1], outs[0]
    return tuple(outs)


declare(
    "asarray",
    "Tensor (Object obj, *, DType? dtype=None, Device? device=None, Bool? copy=None, Bool requires_grad=False) => Asarray",
    composite=True,
    doc="""
    The array API's asarray: shares memory with tensors and NumPy arrays when dtype and device allow (copy=None), always copies (copy=True), or refuses to copy (copy=False).

    >>> a = np.zeros(2)
    >>> ember.asarray(a, copy=False)[0] = 1.0; a.tolist()
    [1.0, 0.0]
    """,
)
@functor("Asarray")
def asarray(obj, dtype=None, device=None, copy=None, requires_grad=False):
    """The array API's ``asarray``: share memory when allowed (``copy=None``), always copy
    (``copy=True``) or never (``copy=False``: an error when a copy is needed)."""
    if isinstance(obj, Tensor):
        if (dtype is None or dtype is obj._dtype) and (device is None or device == obj.device) and not copy:
            out = obj
        elif copy is False:
            raise ValueError(f"asarray(): copy=False, but converting a {obj._dtype} tensor on {obj.device} to {dtype or obj._dtype} on {device or obj.device} needs a copy")
        else:
            out = obj.to(dtype=dtype, device=device, copy=True)
    elif copy:
        out = tensor(obj, dtype=dtype, device=device)
    elif copy is False:
        if not isinstance(obj, np.ndarray) or obj.dtype.hasobject:
            raise ValueError(f"asarray(): copy=False, but a {type(obj).__name__} cannot be shared without a copy")
        out = as_tensor(obj, device=device)
        if (dtype is not None and dtype is not out._dtype) or out.device.type != "cpu":
            raise ValueError(f"asarray(): copy=False, but converting a numpy.{obj.dtype} array to {dtype} on {out.device} needs a copy")
    else:
        out = as_tensor(obj, dtype=dtype, device=device)
    return check_requires_grad(out, requires_grad)



# --- derivatives -----------------------------------------------------------------------------
# ``fill`` has no tensor inputs, so nothing flows back through it; the rule exists so the op is
# complete. (An in-place ``fill_`` on a tensor with history is the interpreter's business: the
# old value is overwritten, so PyTorch gives it a zero gradient.)


@FILL.grad_rule(saves="none")
def _fill_grad(ctx, g):
    return ()
