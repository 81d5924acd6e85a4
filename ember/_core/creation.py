"""Tensor factories: ``empty``, ``zeros``, ``ones``, ``full``, their ``*_like`` forms and
``empty_strided``.

``empty`` allocates lazily: its storage gets memory on first use (caffe2's ``mutable_data``),
so a tensor that is only reshaped or sent to the meta device never costs an allocation.

>>> a = ones((3, 3))
>>> b = a.view(9)
>>> a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
True
"""

from __future__ import annotations

from . import dtype as _dt
from .device import as_device
from .shape import check_size, normalize_size_args
from .tensor import Tensor, empty_tensor
from .views import check_in_bounds

__all__ = [
    "empty",
    "empty_like",
    "empty_strided",
    "full",
    "full_like",
    "ones",
    "ones_like",
    "zeros",
    "zeros_like",
]


def _new(op: str, size: tuple, dtype, device, requires_grad: bool, default=None) -> Tensor:
    shape = normalize_size_args(size, op)
    check_size(shape, op)
    if dtype is None:
        dtype = default if default is not None else _dt.get_default_dtype()
    else:
        dtype = _dt.as_dtype(dtype, op=op)
    out = empty_tensor(shape, dtype, as_device(device, op=op))
    if requires_grad:
        out.requires_grad = True
    return out


def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor with uninitialised values (memory is allocated on first use).

    >>> empty(2, 3).shape
    ember.Size([2, 3])
    """
    return _new("empty", size, dtype, device, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros.

    >>> zeros(2)
    tensor([0., 0.])
    """
    out = _new("zeros", size, dtype, device, requires_grad)
    return _fill(out, 0)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones.

    >>> ones(2, dtype=_dt.int32)
    tensor([1, 1], dtype=ember.int32)
    """
    out = _new("ones", size, dtype, device, requires_grad)
    return _fill(out, 1)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor filled with ``fill_value``; the dtype is inferred from it when not given.

    >>> full((2,), 7)
    tensor([7, 7])
    """
    out = _new("full", (size,), dtype, device, requires_grad, default=_dtype_of_scalar(fill_value))
    return _fill(out, fill_value)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with the given strides, over just enough memory for them.

    >>> empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    shape = normalize_size_args((size,), "empty_strided")
    strides = normalize_size_args((stride,), "empty_strided", "stride")
    check_size(shape, "empty_strided")
    if len(shape) != len(strides):
        raise RuntimeError(f"empty_strided(): mismatch in length of strides and shape: {len(shape)} sizes and {len(strides)} strides")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"empty_strided(): strides must be non-negative, got {list(strides)}")
    dtype = _dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype, op="empty_strided")
    span = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=False))
    out = empty_tensor((span,), dtype, as_device(device, op="empty_strided"))
    check_in_bounds(out, shape, strides, 0, "empty_strided")
    out = out._view(shape, strides, 0)
    out._base = None
    out.requires_grad = requires_grad
    return out


def _like(op: str, other: Tensor, dtype, device) -> tuple:
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(other).__name__}")
    return other.shape, other.dtype if dtype is None else dtype, other.device if device is None else device


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    shape, dtype, device = _like("empty_like", input, dtype, device)
    return empty(shape, dtype=dtype, device=device, requires_grad=requires_grad)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    shape, dtype, device = _like("zeros_like", input, dtype, device)
    return zeros(shape, dtype=dtype, device=device, requires_grad=requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    shape, dtype, device = _like("ones_like", input, dtype, device)
    return ones(shape, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    shape, dtype, device = _like("full_like", input, dtype, device)
    return full(shape, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def _fill(out: Tensor, value) -> Tensor:
    if not out.is_meta:
        out._storage._materialize()
        out.fill_(value)
        out._storage._version = 0  # a fresh tensor starts at version 0
    return out


def _dtype_of_scalar(value) -> _dt.DType:
    if isinstance(value, bool):
        return _dt.bool_
    if isinstance(value, int):
        return _dt.int64
    if isinstance(value, complex):
        return _dt.get_default_complex_dtype()
    if isinstance(value, (bytes, str)):
        return _dt.string
    if isinstance(value, Tensor):
        return value.dtype
    return _dt.get_default_dtype()
