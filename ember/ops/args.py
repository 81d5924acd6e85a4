"""Argument conversion for the generated functional API: one checker per schema type.

The generated functions test the common case inline (``type(x) is int``) and call these only
for everything else, so a well-typed call pays a type test per argument and nothing more.
Errors read like PyTorch's::

    relu(): argument 'x' (position 1) must be Tensor, not str
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from .._core import dtype as _dt
from .._core.device import Device, as_device
from .._core.generator import Generator
from .._core.shape import INT64_MAX, INT64_MIN
from .._core.tensor import Tensor, tensor as new_tensor

__all__ = ["SCALAR_TYPES", "arg_error", "is_scalar", "is_tensor_list", "scalar_tensor_like"]

SCALAR_TYPES = (bool, int, float, complex)
_TYPE_NAMES = {
    "Tensor": "Tensor",
    "TensorList": "tuple of Tensors",
    "Scalar": "Number",
    "ScalarList": "tuple of Numbers",
    "Int": "int",
    "IntList": "tuple of ints",
    "Float": "float",
    "FloatList": "tuple of floats",
    "Bool": "bool",
    "String": "str",
    "DType": "ember.dtype",
    "Device": "ember.device",
    "Generator": "ember.Generator",
}


def _where(param: str, position: int | None) -> str:
    return f"argument '{param}'" + (f" (position {position})" if position else "")


def _typename(value: object) -> str:
    if isinstance(value, Tensor):
        return "Tensor"
    return type(value).__name__


def arg_error(fn: str, param: str, position: int | None, expected: str, value: object) -> TypeError:
    """``fn(): argument 'x' (position 1) must be Tensor, not str``."""
    return TypeError(f"{fn}(): {_where(param, position)} must be {_TYPE_NAMES.get(expected, expected)}, not {_typename(value)}")


def is_scalar(value: object) -> bool:
    """A Python or NumPy number (not a tensor, not an array)."""
    return type(value) in SCALAR_TYPES or (isinstance(value, (numbers.Number, np.bool_)) and not isinstance(value, Tensor))


def is_tensor_list(value: object) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, Tensor) for v in value)


# ---------------------------------------------------------------------------------------
# converters: value -> canonical Python value, or a TypeError naming the argument


def to_tensor(value, fn, param, position):
    if isinstance(value, Tensor):
        return value
    raise arg_error(fn, param, position, "Tensor", value)


def to_tensor_list(value, fn, param, position):
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if not isinstance(v, Tensor):
                raise TypeError(f"{fn}(): {_where(param, position)} must be tuple of Tensors, but found element of type {_typename(v)} at pos {i}")
        return tuple(value)
    raise arg_error(fn, param, position, "TensorList", value)


def to_scalar(value, fn, param, position):
    if type(value) in SCALAR_TYPES:
        return value
    if isinstance(value, (np.generic, numbers.Number)) and not isinstance(value, Tensor):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, Tensor) and value.ndim == 0:
        return value.item()
    raise arg_error(fn, param, position, "Scalar", value)


def to_scalar_list(value, fn, param, position, size=None):
    if is_scalar(value):
        return (to_scalar(value, fn, param, position),) * (size or 1)
    if isinstance(value, (list, tuple)):
        return tuple(to_scalar(v, fn, param, position) for v in value)
    raise arg_error(fn, param, position, "ScalarList", value)


def _int64(value: int, fn, param, position) -> int:
    """``value`` when it fits in int64; PyTorch unpacks every int argument as a C long long."""
    if INT64_MIN <= value <= INT64_MAX:
        return value
    raise ValueError(f"{fn}(): {_where(param, position)} must fit in int64: Overflow when unpacking long long, got {value}")


def _int64_at(value: int, fn, param, position, i: int) -> int:
    if INT64_MIN <= value <= INT64_MAX:
        return value
    raise TypeError(
        f"{fn}(): {_where(param, position)} failed to unpack the object at pos {i + 1} with error "
        f'"Overflow when unpacking long long": {value} does not fit in int64'
    )


def to_int(value, fn, param, position):
    if isinstance(value, int) and not isinstance(value, bool):  # an int subclass: graph mode's unknown sizes stay themselves
        return _int64(value, fn, param, position)
    if isinstance(value, (bool, float)):
        raise arg_error(fn, param, position, "Int", value)
    if isinstance(value, Tensor):
        if value.ndim == 0 and not value.dtype.is_floating_point and not value.dtype.is_complex and value.dtype is not _dt.bool_:
            return int(value.item())
        raise arg_error(fn, param, position, "Int", value)
    try:
        index = operator.index(value)
    except TypeError:
        raise arg_error(fn, param, position, "Int", value) from None
    return _int64(index, fn, param, position)


def to_int_list(value, fn, param, position, size=None):
    if isinstance(value, int) and not isinstance(value, bool):  # int subclasses too: graph mode's unknown sizes
        return (_int64_at(value, fn, param, position, 0),) * (size or 1)
    if not isinstance(value, (list, tuple, Tensor)) and hasattr(value, "__index__") and not isinstance(value, bool):
        return (_int64_at(operator.index(value), fn, param, position, 0),) * (size or 1)
    if isinstance(value, Tensor) and value.ndim <= 1:
        if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype.name == "bool":
            raise arg_error(fn, param, position, "IntList", value)  # an empty float tensor is no list of ints
        value = value.tolist() if value.ndim else [value.item()]
    if isinstance(value, (list, tuple)):
        out = []
        for i, v in enumerate(value):
            if type(v) is int or (isinstance(v, int) and not isinstance(v, bool)):
                out.append(_int64_at(v, fn, param, position, i))
                continue
            if isinstance(v, (bool, float)) or not hasattr(v, "__index__"):
                raise TypeError(
                    f"{fn}(): {_where(param, position)} must be tuple of ints, but found element of type {_typename(v)} at pos {i}"
                )
            out.append(_int64_at(operator.index(v), fn, param, position, i))
        if size is not None and len(out) == 1:
            out = out * size
        if size is not None and len(out) != size:
            raise TypeError(f"{fn}(): {_where(param, position)} must be an int or a tuple of {size} ints, got {len(out)}")
        return tuple(out)
    raise arg_error(fn, param, position, "IntList", value)


def to_float(value, fn, param, position):
    if type(value) is float:
        return value
    if isinstance(value, (bool, complex)):
        raise arg_error(fn, param, position, "Float", value)
    if isinstance(value, Tensor) and value.ndim == 0 and value.dtype is not _dt.bool_ and not value.dtype.is_complex:
        return float(value.item())
    if isinstance(value, (numbers.Real, np.floating, np.integer)):
        try:
            return float(value)
        except OverflowError:  # an int past float64's range
            raise OverflowError(f"{fn}(): {_where(param, position)} is an int too large to convert to float: {value}") from None
    raise arg_error(fn, param, position, "Float", value)


def to_float_list(value, fn, param, position, size=None):
    if isinstance(value, (list, tuple)):
        return tuple(to_float(v, fn, param, position) for v in value)
    return (to_float(value, fn, param, position),) * (size or 1)


def to_bool(value, fn, param, position):
    if type(value) is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise arg_error(fn, param, position, "Bool", value)


def to_string(value, fn, param, position):
    if isinstance(value, str):
        return value
    raise arg_error(fn, param, position, "String", value)


def to_dtype(value, fn, param, position):
    if isinstance(value, _dt.DType):
        return value
    if isinstance(value, str):
        return _dt.as_dtype(value, op=fn, arg=param)  # its error names the unknown dtype
    if isinstance(value, (np.dtype, type)) and not isinstance(value, bool):
        try:
            return _dt.as_dtype(value)
        except (TypeError, ValueError):
            pass
    raise arg_error(fn, param, position, "DType", value)


def to_device(value, fn, param, position):
    if type(value) is Device:
        return value
    if isinstance(value, (str, int, Device)) and not isinstance(value, bool):
        return as_device(value, op=fn, arg=param)
    raise arg_error(fn, param, position, "Device", value)


def to_generator(value, fn, param, position):
    if isinstance(value, Generator):
        return value
    raise arg_error(fn, param, position, "Generator", value)


def to_object(value, fn, param, position):
    return value


CONVERTERS = {
    "Tensor": to_tensor,
    "TensorList": to_tensor_list,
    "Scalar": to_scalar,
    "ScalarList": to_scalar_list,
    "Int": to_int,
    "IntList": to_int_list,
    "Float": to_float,
    "FloatList": to_float_list,
    "Bool": to_bool,
    "String": to_string,
    "DType": to_dtype,
    "Device": to_device,
    "Generator": to_generator,
    "Object": to_object,
}


def string_operand(value, other: Tensor) -> Tensor | None:
    """A ``str`` or ``bytes`` operand of an operator on a string tensor, as a 0-d string tensor
    (so ``t == "a"`` compares elementwise and ``t + "a"`` names the op that refuses strings);
    None for anything else, which the operator declines as before."""
    if type(value) in (str, bytes) and other._dtype is _dt.string:
        return new_tensor(value, dtype=_dt.string, device=other.device)
    return None


def scalar_tensor_like(value, other: Tensor) -> Tensor:
    """A Python scalar as a 0-d tensor of the dtype it would promote to with ``other``
    (so ``2 - t`` promotes like ``t - 2``: the scalar stays weak)."""
    from .._core.tensor import tensor

    if type(value) is int and not -(2**63) <= value < 2**64:
        raise OverflowError(f"int too big to convert: {value} fits neither int64 nor uint64")
    dtype = _dt.result_type(other, value)
    return tensor(value, dtype=dtype, device=other.device)
