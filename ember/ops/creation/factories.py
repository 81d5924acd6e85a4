"""Factories of a given size or like a tensor: ``empty``, ``zeros``, ``ones``, ``full``,
``empty_strided``, the ``*_like`` and ``Tensor.new_*`` forms, and the array API's ``asarray``.

A factory dispatches the ``fill`` primitive with ``inputs=()``; ``empty`` builds its tensor directly,
without a kernel: its storage gets memory on first use.

>>> ember.full((2,), True).dtype
ember.bool
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor, empty_tensor, tensor
from ..._core.tensor_numpy import as_tensor
from ..._core.views import check_in_bounds
from ...dispatch.sbp import AMBIENT
from ..functor import functor
from ..schema import schema_family
from ._common import (
    check_requires_grad,
    dtype_of_scalar,
    factory_args,
    global_factory,
    memory_format,
    new_filled,
    preserved_strides,
)

declare = schema_family("creation")


declare(
    "empty",
    "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Empty",
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
def empty(size, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    shape, dtype, device = factory_args("empty", size, dtype, device)
    if placement is not None or sbp is not None or AMBIENT.placement is not None:
        return global_factory("empty", placement, sbp, shape, dtype, requires_grad, lambda s: empty_tensor(s, dtype, device))
    return check_requires_grad(empty_tensor(shape, dtype, device), requires_grad)


declare(
    "zeros",
    "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Zeros",
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
def zeros(size, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    shape, dtype, device = factory_args("zeros", size, dtype, device)
    value = b"" if dtype is _dt.string else 0
    if placement is not None or sbp is not None or AMBIENT.placement is not None:
        return global_factory("zeros", placement, sbp, shape, dtype, requires_grad, lambda s: new_filled(s, dtype, device, value, "zeros"))
    return check_requires_grad(new_filled(shape, dtype, device, value, "zeros"), requires_grad)


declare(
    "ones",
    "Tensor (IntList size, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Ones",
    differentiable=False, op="fill",
    doc="""
    A tensor of ones; the size as varargs or one sequence.

    >>> ember.ones(2)
    tensor([1., 1.])
    """,
)
@functor("Ones")
def ones(size, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    shape, dtype, device = factory_args("ones", size, dtype, device)
    if placement is not None or sbp is not None or AMBIENT.placement is not None:
        return global_factory("ones", placement, sbp, shape, dtype, requires_grad, lambda s: new_filled(s, dtype, device, 1, "ones"))
    return check_requires_grad(new_filled(shape, dtype, device, 1, "ones"), requires_grad)


declare(
    "full",
    "Tensor (IntList size, Object fill_value, *, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Full",
    differentiable=False, op="fill",
    doc="""
    A tensor filled with fill_value; without dtype, bool -> bool, int -> int64, float -> the default dtype, complex -> the default complex dtype.

    >>> ember.full((2,), 7)
    tensor([7, 7])
    >>> ember.full((2,), 1.5).dtype
    ember.float32
    """,
    tf="Fill",
)
@functor("Full")
def full(size, fill_value, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    shape, dtype, device = factory_args("full", size, dtype, device, dtype_of_scalar(fill_value))
    if placement is not None or sbp is not None or AMBIENT.placement is not None:
        build = lambda s: new_filled(s, dtype, device, fill_value, "full")  # noqa: E731
        return global_factory("full", placement, sbp, shape, dtype, requires_grad, build)
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
    shape, dtype, device = factory_args("empty_strided", size, dtype, device)
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


# Set by ember.distributed.tensor: fn(input, fill_value or None for empty, dtype, op) -> a global
# tensor of input's placement and layout. A *_like of a global tensor is global.
GLOBAL_LIKE: list = [None]


def _global_like(input: Tensor, value, dtype, requires_grad: bool, op: str) -> Tensor:
    return check_requires_grad(GLOBAL_LIKE[0](input, value, input._dtype if dtype is None else dtype, op), requires_grad)


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
    if input.is_global:
        return _global_like(input, None, dtype, requires_grad, "empty_like")
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
    if input.is_global:
        return _global_like(input, 0, dtype, requires_grad, "zeros_like")
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
    if input.is_global:
        return _global_like(input, 1, dtype, requires_grad, "ones_like")
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
    if input.is_global:
        return _global_like(input, fill_value, dtype, requires_grad, "full_like")
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


declare(
    "Tensor.new_tensor",
    "Tensor (Tensor input, Object data, *, DType? dtype=None, Device? device=None, Bool requires_grad=False) => NewTensor",
    method=True, differentiable=False, composite=True,
    doc="""
    A tensor holding a copy of data (as ember.tensor reads it), with this tensor's dtype and device by default.

    >>> ember.zeros(1, dtype=ember.uint8).new_tensor([1, 255]).tolist()
    [1, 255]
    """,
)
@functor("NewTensor")
def new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    dtype, device = _new(self, dtype, device)
    return tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)




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
