"""``tf.dtypes``: TensorFlow's dtype namespace (``as_dtype``, ``DType``, the dtypes, ``cast``)."""

# ruff: noqa: F401, A004 - a namespace of TensorFlow's names: every import is public (abs, round, math...)

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.dtype import (
    DType,
    bfloat16,
    bool_ as bool,
    complex64,
    complex128,
    float16,
    float16 as half,
    float32,
    float64,
    float64 as double,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .math_ops import cast, saturate_cast

_BOOL = (True).__class__  # `bool` here is TensorFlow's dtype


def as_dtype(type_value):
    """``type_value`` (a DType, a name such as "float32", a NumPy dtype or type, a Python type)
    as a DType.

    >>> as_dtype("float32"), as_dtype(float)
    (ember.float32, ember.float64)
    """
    if isinstance(type_value, int) and not isinstance(type_value, _BOOL) and type_value in _BY_ENUM:
        return _BY_ENUM[type_value]
    try:
        return _dt.as_dtype(type_value, op="as_dtype", arg="type_value")
    except (TypeError, ValueError):
        raise TypeError(f"Cannot convert value {type_value!r} to a TensorFlow DType.") from None


_BY_ENUM = {d.tf_enum: d for d in (bfloat16, bool, complex64, complex128, float16, float32, float64, int8, int16, int32, int64, string,
                                   uint8, uint16, uint32, uint64) if getattr(d, "tf_enum", None)}  # fmt: skip
