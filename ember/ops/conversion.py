"""Conversion ops: ``to`` / ``astype`` / ``type`` and the dtype methods (``float()``,
``long()``...), ``copy_``, ``fill_``, ``zero_``, ``clone``, ``contiguous``, ``detach``, ``cpu``.

Two primitives do the copying: ``_to_copy`` (a new contiguous tensor of a dtype, like ATen's
``_to_copy``) and ``copy_`` (broadcast ``src`` into an existing tensor, casting). Copies that
keep a transposed or otherwise permuted layout (PyTorch's ``preserve_format``) allocate that
layout first and ``copy_`` into it. Float -> integer casts truncate toward zero, and complex
-> real keeps the real part with PyTorch's warning. Kernels are in
``ember/kernels/cpu/conversion.py``.

>>> import ember
>>> ember.tensor([1.7, -1.7]).int().tolist()
[1, -1]
>>> t = ember.tensor([1.0]); t.to(ember.float32) is t
True
"""

from __future__ import annotations

import warnings

import numpy as np

from .._core import dtype as _dt
from .._core.device import CPU, Device, as_device
from .._core.legacy_types import legacy_dtype, legacy_name
from .._core.memory_format import channels_last, channels_last_3d
from .._core.shape import contiguous_strides
from .._core.tensor import Tensor, assign_array, empty_tensor
from ..dispatch import NO_ATTRS, OpExpr, dispatch
from . import sbp_rules
from .common import functional as _F, sum_to
from .creation import broadcastable_to, fill_into, memory_format as _memory_format, preserved_strides
from .functor import FUNCTORS, functor
from .schema import schema_family

declare = schema_family("conversion")

__all__ = ["COPY_", "DETACH", "DTYPE_METHODS", "TO_COPY", "convert"]

TO_COPY = OpExpr("_to_copy", ("x",), ("y",)).tag(sbp=sbp_rules.shape.to_copy)
COPY_ = OpExpr("copy_", ("self", "src"), ("self",))
DETACH = OpExpr("detach", ("x",), ("y",)).tag(shape_role="identity_if_same_shape", sbp=sbp_rules.shape.identity)


@TO_COPY.shape_rule
def _infer_to_copy(attrs, x):
    return ((x._shape, attrs["dtype"]),)


def _grad_as(g, shape: tuple, dtype: _dt.DType):
    """``g`` summed down to ``shape`` and converted back to ``dtype`` (the real part for a real one)."""
    g = sum_to(g, shape)
    if g._dtype.is_complex and not dtype.is_complex:
        g = _F().real(g)
    return g if g._dtype is dtype else dispatch(TO_COPY, (g,), {"dtype": dtype})[0]


@TO_COPY.grad_rule(saves="none")
def _to_copy_grad(ctx, g):
    shape, dtype = ctx.input_meta[0]
    if not (dtype.is_floating_point or dtype.is_complex):
        return (None,)
    return (_grad_as(g, shape, dtype),)


@COPY_.shape_rule
def _infer_copy_(attrs, dst, src):
    shape, sshape = dst._shape, src._shape
    if not broadcastable_to(sshape, shape):
        raise RuntimeError(f"copy_(): src of shape {list(sshape)} cannot be broadcast to destination shape {list(shape)}")
    if (dst._dtype is _dt.string) != (src._dtype is _dt.string):
        raise TypeError(f"copy_(): cannot copy a {src._dtype} tensor into a {dst._dtype} tensor")
    return ((shape, dst._dtype),)


@COPY_.grad_rule(saves="none")
def _copy__grad(ctx, g):
    """``self`` is overwritten: its earlier value gets zero; ``src`` gets ``g`` (broadcast undone, cast back)."""
    (self_shape, self_dtype), (src_shape, src_dtype) = ctx.input_meta
    g_self = _F().zeros(self_shape, dtype=self_dtype) if self_dtype.is_floating_point or self_dtype.is_complex else None
    g_src = _grad_as(g, src_shape, src_dtype) if src_dtype.is_floating_point or src_dtype.is_complex else None
    return g_self, g_src


# ``detach`` is not differentiable: its result is cut from the graph.
@DETACH.view_rule
def _detach(attrs, x):
    out = x._view(x._shape, x._stride, x._offset)
    out._base = x._base  # a detached tensor shares memory, but is no view for autograd
    return (out,)


def _warn_complex(src: _dt.DType, dst: _dt.DType, stacklevel: int) -> None:
    if src.is_complex and not dst.is_complex and dst is not _dt.bool_:  # into bool both parts count
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=stacklevel + 1)


def _host_copy(dst: Tensor, src: Tensor) -> None:
    """Across devices (no kernel spans two): through host memory."""
    dst._storage._materialize()
    assign_array(dst._host_array(), src._host_array())


def convert(x: Tensor, dtype: _dt.DType, device: Device, op: str, fmt: str = "preserve") -> Tensor:
    """A copy of ``x`` with ``dtype`` on ``device``; layout per ``memory_format``."""
    if (dtype is _dt.string) != (x._dtype is _dt.string):
        raise TypeError(f"{op}(): cannot convert a {x._dtype} tensor to {dtype}")
    _warn_complex(x._dtype, dtype, 4)  # user -> generated function -> functor -> convert
    stride = preserved_strides(x, fmt)
    source = x._storage._device
    if device != source:
        out = empty_tensor(x._shape, dtype, device, stride=stride)
        if device.type == "meta":
            return out
        if source.type == "meta":
            raise NotImplementedError(f"{op}(): Cannot copy out of meta tensor; no data!")
        _host_copy(out, x)
        return out
    if stride == contiguous_strides(x._shape):
        return dispatch(TO_COPY, (x,), {"dtype": dtype})[0]
    out = empty_tensor(x._shape, dtype, device, stride=stride)
    dispatch(COPY_, (out, x), NO_ATTRS, (out,))
    out._storage._version = 0  # a fresh tensor starts at version 0
    return out


# --- to / astype / type -------------------------------------------------------------------


def _is_dtype_name(value: str) -> bool:
    try:
        _dt.as_dtype(value)
    except (TypeError, ValueError):
        return False
    return True


def _parse_to(args, dtype, device, copy):
    """torch's three spellings: ``to(dtype, non_blocking, copy)``, ``to(device, dtype, non_blocking,
    copy)`` and ``to(other, non_blocking, copy)``; any other order is refused."""
    args = list(args)
    while args and args[-1] is None:
        args.pop()
    if not args:
        return dtype, device, copy
    first, rest = args[0], args[1:]
    if isinstance(first, Tensor):
        if dtype is not None or device is not None:
            raise TypeError("to(): a tensor to match takes no dtype= or device= beside it (to(other) copies both from other)")
        dtype, device = first._dtype, first._storage._device
    elif _is_dtype(first):
        dtype = _dt.as_dtype(first, op="to")
    elif first is None or (isinstance(first, (Device, int, str)) and not isinstance(first, bool)):
        if first is not None:
            device = as_device(first, op="to", arg="device")
        if rest and (rest[0] is None or _is_dtype(rest[0])):
            dtype = dtype if rest[0] is None else _dt.as_dtype(rest[0], op="to")
            rest = rest[1:]
    else:
        raise TypeError(f"to(): expected a dtype, a device or a tensor, got {type(first).__name__}")
    if len(rest) > 2 or not all(type(flag) is bool for flag in rest):
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(
            f"to() received an invalid combination of arguments - got ({got}), but expected one of: (dtype, non_blocking, copy), "
            "(device, dtype, non_blocking, copy), (Tensor other, non_blocking, copy)"
        )
    if len(rest) == 2:
        copy = rest[1]
    return dtype, device, copy


def _is_dtype(value) -> bool:
    if isinstance(value, _dt.DType):
        return True
    if isinstance(value, str):
        return _is_dtype_name(value)
    return isinstance(value, (np.dtype, type)) and not isinstance(value, bool)


declare(
    "Tensor.to",
    "Tensor (Tensor input, Object arg=None, Object arg2=None, Object arg3=None, *, DType? dtype=None, Device? device=None, Bool non_blocking=False, Bool copy=False, Object memory_format=None) => To",
    method=True, op=("_to_copy", "copy_"),
    doc="""
    This tensor with another dtype and/or device: to(dtype), to(device), to(device, dtype), to(other); self when nothing changes and copy is False.

    >>> t = ember.tensor([1.5, -2.5])
    >>> t.to(ember.int64).tolist(), t.to(ember.float32) is t, t.to("meta").is_meta
    ([1, -2], True, True)
    """,
)
@functor("To")
def to(input, arg=None, arg2=None, arg3=None, dtype=None, device=None, non_blocking=False, copy=False, memory_format=None):
    """``to(dtype)``, ``to(device, dtype)``, ``to(other)``: self when nothing changes (and not ``copy``)."""
    dtype, device, copy = _parse_to((arg, arg2, arg3), dtype, device, copy)
    fmt = _memory_format(memory_format, "to")
    dtype = input._dtype if dtype is None else dtype
    device = input._storage._device if device is None else device
    if dtype is input._dtype and device == input._storage._device and not copy and _keeps_layout(input, fmt):
        return input
    return convert(input, dtype, device, "to", fmt)


def _keeps_layout(x: Tensor, fmt: str) -> bool:
    """Whether x already has the layout ``fmt`` asks for (so ``to`` may return x itself)."""
    if fmt == "preserve":
        return True
    return x.is_contiguous(memory_format=None if fmt == "contiguous" else _FORMATS[fmt])


declare(
    "astype",
    "Tensor (Tensor x, DType dtype, *, Bool copy=True, Device? device=None) => Astype",
    op=("_to_copy", "copy_"),
    doc="""
    The array API's astype: a copy of x cast to dtype (x itself when copy=False and nothing changes).

    >>> ember.astype(ember.tensor([1.9, -1.9]), ember.int32).tolist()
    [1, -1]
    """,
)
@functor("Astype")
def astype(x, dtype, copy=True, device=None):
    device = x._storage._device if device is None else device
    if not copy and dtype is x._dtype and device == x._storage._device:
        return x
    return convert(x, dtype, device, "astype")


declare(
    "Tensor.type",
    "Tensor (Tensor input, Object dtype=None, Bool non_blocking=False) => Type",
    method=True, op=("_to_copy", "copy_"),
    doc="""
    Without a dtype, the legacy type name as a string, spelled as PyTorch's ('torch.LongTensor') since
    programs compare it with that text; with one (an ember dtype, a legacy type such as ember.DoubleTensor,
    or its name 'torch.DoubleTensor' / 'ember.DoubleTensor'), to(dtype).

    >>> ember.tensor([1, 2]).type()
    'torch.LongTensor'
    >>> ember.tensor([1.5]).type(ember.LongTensor).tolist()
    [1]
    """,
)
@functor("Type")
def type_(input, dtype=None, non_blocking=False):
    """``t.type()``: the legacy type name ('torch.FloatTensor'); ``t.type(dtype)``: ``t.to(dtype)``."""
    if dtype is None:
        return legacy_name(input)
    dtype = legacy_dtype(dtype, "type")
    if dtype is input._dtype:
        return input
    return convert(input, dtype, input._storage._device, "type")


declare(
    "Tensor.type_as",
    "Tensor (Tensor input, Tensor other) => TypeAs",
    method=True, op=("_to_copy", "copy_"),
    doc="""
    input in other's dtype (itself when it already has it), as ``input.type(other.type())``.

    >>> ember.tensor([1.7]).type_as(ember.tensor([1])).tolist()
    [1]
    """,
)
@functor("TypeAs")
def type_as(input, other):
    if other._storage._device.type != input._storage._device.type:
        raise RuntimeError(f"type_as(): other is on {other._storage._device.type}, input on {input._storage._device.type}; ember moves no tensor between devices here")
    return type_(input, other._dtype)


# Tensor.float(), .long(), ...: the method names PyTorch has, and the dtype each gives.
DTYPE_METHODS = {
    "float": _dt.float32, "double": _dt.float64, "half": _dt.float16, "bfloat16": _dt.bfloat16,
    "int": _dt.int32, "long": _dt.int64, "short": _dt.int16, "char": _dt.int8, "byte": _dt.uint8,
    "bool": _dt.bool_, "cfloat": _dt.complex64, "cdouble": _dt.complex128,
}  # fmt: skip


declare(
    "Tensor.float",
    "Tensor (Tensor input, *, Object memory_format=None) => ToFloat",
    method=True, op=("_to_copy", "copy_"),
    doc="""
    to(ember.float32).

    >>> ember.tensor([1, 2]).float().dtype
    ember.float32
    """,
)
declare(
    "Tensor.double",
    "Tensor (Tensor input, *, Object memory_format=None) => ToDouble",
    method=True, op=("_to_copy", "copy_"),
    doc="to(ember.float64).",
)
declare(
    "Tensor.half",
    "Tensor (Tensor input, *, Object memory_format=None) => ToHalf",
    method=True, op=("_to_copy", "copy_"),
    doc="to(ember.float16).",
)
declare(
    "Tensor.bfloat16",
    "Tensor (Tensor input, *, Object memory_format=None) => ToBfloat16",
    method=True, op=("_to_copy", "copy_"),
    doc="to(ember.bfloat16).",
)
declare(
    "Tensor.int",
    "Tensor (Tensor input, *, Object memory_format=None) => ToInt",
    method=True, differentiable=False, op=("_to_copy", "copy_"),
    doc="""
    to(ember.int32); floats are truncated toward zero.

    >>> ember.tensor([1.7, -1.7]).int().tolist()
    [1, -1]
    """,
)
declare(
    "Tensor.long",
    "Tensor (Tensor input, *, Object memory_format=None) => ToLong",
    method=True, differentiable=False, op=("_to_copy", "copy_"),
    doc="to(ember.int64).",
)
declare(
    "Tensor.short",
    "Tensor (Tensor input, *, Object memory_format=None) => ToShort",
    method=True, differentiable=False, op=("_to_copy", "copy_"),
    doc="to(ember.int16).",
)
declare(
    "Tensor.char",
    "Tensor (Tensor input, *, Object memory_format=None) => ToChar",
    method=True, differentiable=False, op=("_to_copy", "copy_"),
    doc="to(ember.int8).",
)
declare(
    "Tensor.byte",
    "Tensor (Tensor input, *, Object memory_format=None) => ToByte",
    method=True, differentiable=False, op=("_to_copy", "copy_"),
    doc="to(ember.uint8).",
)
declare(
    "Tensor.bool",
    "Tensor (Tensor input, *, Object memory_format=None) => ToBool",
    method=True, differentiable=False, op=("_to_copy", "copy_"),
    doc="to(ember.bool).",
)
declare(
    "Tensor.cfloat",
    "Tensor (Tensor input, *, Object memory_format=None) => ToCfloat",
    method=True, op=("_to_copy", "copy_"),
    doc="to(ember.complex64).",
)
declare(
    "Tensor.cdouble",
    "Tensor (Tensor input, *, Object memory_format=None) => ToCdouble",
    method=True, op=("_to_copy", "copy_"),
    doc="to(ember.complex128).",
)
def _dtype_method(name: str, dtype: _dt.DType):
    def method(input, memory_format=None):
        fmt = _memory_format(memory_format, name)
        if input._dtype is dtype:
            return input
        return convert(input, dtype, input._storage._device, name, fmt)

    method.__name__ = method.__qualname__ = f"To{name.capitalize()}"
    method.__doc__ = f"``self.to({dtype})``: self when it already is {dtype}."
    FUNCTORS[method.__name__] = method


for _name, _dtype in DTYPE_METHODS.items():
    _dtype_method(_name, _dtype)


declare(
    "Tensor.cpu",
    "Tensor (Tensor input, *, Object memory_format=None) => Cpu",
    method=True, op=("_to_copy", "copy_"),
    doc="This tensor in CPU memory (self when it is there already).",
)
@functor("Cpu")
def cpu(input, memory_format=None):
    fmt = _memory_format(memory_format, "cpu")
    if input._storage._device is CPU:
        return input
    return convert(input, input._dtype, CPU, "cpu", fmt)


# --- copies ----------------------------------------------------------------------------------


declare(
    "clone",
    "Tensor (Tensor input, *, Object memory_format=None) => Clone",
    method=True, op=("_to_copy", "copy_"),
    doc="""
    A copy in new memory; a dense layout such as a transpose keeps its strides (memory_format='contiguous_format' makes it contiguous).

    >>> ember.zeros(2, 3).t().clone().stride()
    (1, 3)
    """,
)
@functor("Clone")
def clone(input, memory_format=None):
    return convert(input, input._dtype, input._storage._device, "clone", _memory_format(memory_format, "clone"))


_FORMATS = {"channels_last": channels_last, "channels_last_3d": channels_last_3d}


declare(
    "Tensor.contiguous",
    "Tensor (Tensor input, *, Object memory_format=None) => Contiguous",
    method=True, op="_to_copy",
    doc="""
    This tensor when it is contiguous, else a contiguous copy.

    >>> ember.zeros(2, 3).t().contiguous().stride()
    (2, 1)
    """,
)
@functor("Contiguous")
def contiguous(input, memory_format=None):
    fmt = "contiguous" if memory_format is None else _memory_format(memory_format, "contiguous")
    if fmt == "preserve":
        raise RuntimeError("contiguous(): preserve memory format is unsupported by the contiguous operator")
    if input.is_contiguous(memory_format=None if fmt == "contiguous" else _FORMATS[fmt]):
        return input
    return convert(input, input._dtype, input._storage._device, "contiguous", fmt)


declare(
    "detach",
    "Tensor (Tensor input) => Detach",
    method=True, differentiable=False,
    doc="A tensor sharing this one's memory, outside autograd.",
)
@functor("Detach")
def detach(input):
    return dispatch(DETACH, (input,))[0]


declare(
    "Tensor.copy_",
    "Tensor (Tensor input, Object src, Bool non_blocking=False) => Copy_",
    method=True, op="copy_",
    doc="""
    Copy src into this tensor in place, broadcasting and casting (refused for read-only tensors and expanded views).

    >>> t = ember.zeros(2, 2); t.copy_(ember.tensor([1, 2])).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """,
)
@functor("Copy_")
def copy_(input, src, non_blocking=False):
    """Broadcast ``src`` into ``input`` in place, casting to its dtype."""
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    _warn_complex(src._dtype, input._dtype, 3)
    dst_device, src_device = input._storage._device, src._storage._device
    if dst_device != src_device:
        _infer_copy_(NO_ATTRS, input, src)
        input._check_writable("copy_()")
        if dst_device.type != "meta":
            if src_device.type == "meta":
                raise NotImplementedError("copy_(): Cannot copy out of meta tensor; no data!")
            _host_copy(input, src)
        input._storage._version += 1
        return input
    return dispatch(COPY_, (input, src), NO_ATTRS, (input,))[0]


declare(
    "fill_",
    "Tensor (Tensor input, Object value) => Fill_",
    method=True, op="fill",
    doc="""
    Write value (a number or a 0-d tensor) into every element, in place.

    >>> ember.zeros(2, dtype=ember.int64).fill_(2.7).tolist()
    [2, 2]
    """,
)
@functor("Fill_")
def fill_(input, value):
    return fill_into(input, value, "fill_")


declare("zero_", "Tensor (Tensor input) => Zero_", method=True, op="fill", doc="Write zeros into every element, in place.")
@functor("Zero_")
def zero_(input):
    return fill_into(input, b"" if input._dtype is _dt.string else 0, "zero_")
