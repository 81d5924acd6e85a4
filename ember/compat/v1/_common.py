"""What the op modules of ``ember.compat.v1`` share: converting arguments as TensorFlow does,
TensorFlow's dtype checks and errors, and reading a static axis list."""

from __future__ import annotations

import numbers

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor as _EmberTensor
from ...graph.symbolic import TensorShape
from ...graph.tensor import GraphTensor
from .framework import _check_compatible, convert_to_tensor

__all__ = ["FLOATS", "as_pair", "check_dtype", "is_int", "known_dims", "static_axes", "static_shape", "static_value", "tensor"]

FLOATS = (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64, _dt.complex64, _dt.complex128)
REALS = (_dt.bfloat16, _dt.float16, _dt.float32, _dt.float64)


def tensor(value, name: str, dtype=None, dtype_hint=None):
    """``value`` as a graph tensor: as it is, or a Const named ``name`` in the current scope."""
    return convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=dtype_hint)


def static_shape(t) -> TensorShape:
    """``t``'s shape as known now: a graph tensor's static shape (None where unknown), an eager
    tensor's own."""
    return t._static if isinstance(t, GraphTensor) else TensorShape(list(t._shape))


def known_dims(t, op: str) -> list:
    """``t``'s static sizes (None where unknown); its rank must be known."""
    shape = static_shape(t)
    if shape.rank is None:
        raise ValueError(
            f"{op}(): {getattr(t, 'name', 'the input')} has an unknown rank; ember's graph mode needs it "
            f"(give the placeholder a shape, or call set_shape())"
        )
    return shape.as_list()


def is_int(dtype: _dt.DType) -> bool:
    return dtype not in (_dt.bool_, _dt.string) and not dtype.is_floating_point and not dtype.is_complex


def check_dtype(t, allowed, arg: str = "x") -> None:
    """TensorFlow's refusal of an input whose dtype the op does not list."""
    if t._dtype not in allowed:
        names = ", ".join("half" if d is _dt.float16 else d.name for d in allowed)
        raise TypeError(f"Value passed to parameter '{arg}' has DataType {t._dtype.name} not in list of allowed values: {names}")


def as_pair(x, y, op_type: str, xname: str = "x", yname: str = "y"):
    """Two operands of one dtype: a Python/NumPy value takes the graph tensor's dtype (as
    TensorFlow's ``convert_to_tensor`` with the other as hint); two dtypes are refused."""
    if isinstance(y, GraphTensor) and not isinstance(x, GraphTensor):
        _check_python(x, y._dtype, xname, op_type)
        x = tensor(x, xname, dtype_hint=y._dtype)
    else:
        x = tensor(x, xname)
    if not isinstance(y, GraphTensor):
        _check_python(y, x._dtype, yname, op_type)
    y = tensor(y, yname, dtype_hint=x._dtype)
    if x._dtype is not y._dtype:
        raise TypeError(
            f"Input '{yname}' of '{op_type}' Op has type {y._dtype.name} that does not match type {x._dtype.name} of argument '{xname}'."
        )
    return x, y


def _check_python(value, dtype: _dt.DType, arg: str, op_type: str) -> None:
    """TensorFlow's refusal of a Python operand that the tensor's dtype cannot hold (1.5 for int32)."""
    if isinstance(value, _EmberTensor | np.ndarray | np.generic) or dtype is _dt.string:
        return
    try:
        _check_compatible(value, dtype)
    except TypeError as error:
        raise TypeError(
            f"Expected {dtype.name} passed to parameter '{arg}' of op '{op_type}', got {value!r} of type '{type(value).__name__}' "
            f"instead. Error: {error}"
        ) from None


def static_value(value, what: str):
    """The Python value of ``value``: a number, list or array as it is, a ``Const`` node's value;
    anything computed at run time is refused (ember fixes these arguments when the graph is built)."""
    if isinstance(value, GraphTensor):
        if value.op.type != "Const":
            raise NotImplementedError(
                f"{what} must be known when the graph is built (a Python value or a constant), got the computed tensor {value.name}"
            )
        return value.op.get_attr("value").tolist()
    if isinstance(value, np.ndarray | np.generic):
        return value.tolist()
    return value


def static_axes(axis, ndim: int | None, op: str) -> tuple[int, ...]:
    """``axis`` (None, an int, a list or a constant tensor) as non-negative dims of a rank-``ndim`` input."""
    axis = static_value(axis, f"{op}: axis")
    if ndim is None:
        raise ValueError(
            f"{op}(): the input has an unknown rank; ember's graph mode needs it (give the placeholder a shape, or call set_shape())"
        )
    if axis is None:
        return tuple(range(ndim))
    axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
    out = []
    for a in axes:
        if not isinstance(a, numbers.Integral) or isinstance(a, bool):
            raise TypeError(f"{op}: axis must be integers, got {a!r}")
        if ndim is not None and not -ndim <= a < max(ndim, 1):
            raise ValueError(f"{op}: Invalid reduction dimension {a} for input with {ndim} dimensions.")
        out.append(int(a) % ndim if ndim else int(a))  # (a scalar's axis 0 stays 0)
    return tuple(out)
