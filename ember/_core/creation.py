"""Tensor factories: ``empty``, ``zeros``, ``ones``, ``full``, their ``*_like`` forms and
``empty_strided``.

``empty`` allocates lazily: its storage gets memory on first use (caffe2's ``mutable_data``),
so a tensor that is only reshaped or sent to the meta device never costs an allocation.
The implementations are the schema ops' functors (``ember/ops/creation.py``); these functions
take PyTorch's varargs sizes (``zeros(2, 3)``) and convert arguments for them.

>>> a = ones((3, 3))
>>> b = a.view(9)
>>> a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
True
"""

from __future__ import annotations

from . import dtype as _dt
from .device import as_device
from .shape import check_size, normalize_size_args
from .tensor import Tensor

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


_FUNCTORS: dict = {}


def _functor(name: str):
    # The schema ops own the implementations; this module keeps the varargs spellings
    # (``zeros(2, 3)``) until the generated API takes them. Imported late: ember.ops loads after.
    fn = _FUNCTORS.get(name)
    if fn is None:
        from ..ops.functor import FUNCTORS

        fn = _FUNCTORS[name] = FUNCTORS[name]
    return fn


def _args(op: str, size: tuple, dtype, device) -> tuple:
    shape = normalize_size_args(size, op)
    check_size(shape, op)
    dtype = None if dtype is None else _dt.as_dtype(dtype, op=op)
    return shape, dtype, as_device(device, op=op)


def empty(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor with uninitialised values (memory is allocated on first use).

    >>> empty(2, 3).shape
    ember.Size([2, 3])
    """
    return _functor("Empty")(*_args("empty", size, dtype, device), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of zeros.

    >>> zeros(2)
    tensor([0., 0.])
    """
    return _functor("Zeros")(*_args("zeros", size, dtype, device), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor of ones.

    >>> ones(2, dtype=_dt.int32)
    tensor([1, 1], dtype=ember.int32)
    """
    return _functor("Ones")(*_args("ones", size, dtype, device), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A tensor filled with ``fill_value``; the dtype is inferred from it when not given.

    >>> full((2,), 7)
    tensor([7, 7])
    """
    shape, dtype, device = _args("full", (size,), dtype, device)
    return _functor("Full")(shape, fill_value, dtype, device, requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with the given strides, over just enough memory for them.

    >>> empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    shape, dtype, device = _args("empty_strided", (size,), dtype, device)
    strides = normalize_size_args((stride,), "empty_strided", "stride")
    return _functor("EmptyStrided")(shape, strides, dtype, device, requires_grad)


def _like(op: str, other: Tensor, dtype, device) -> tuple:
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(other).__name__}")
    dtype = None if dtype is None else _dt.as_dtype(dtype, op=op)
    return other, dtype, None if device is None else as_device(device, op=op)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    return _functor("EmptyLike")(*_like("empty_like", input, dtype, device), requires_grad)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    return _functor("ZerosLike")(*_like("zeros_like", input, dtype, device), requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    return _functor("OnesLike")(*_like("ones_like", input, dtype, device), requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:  # noqa: A002
    other, dtype, device = _like("full_like", input, dtype, device)
    return _functor("FullLike")(other, fill_value, dtype, device, requires_grad)
