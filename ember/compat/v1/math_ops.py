"""TensorFlow 1's element-wise math, comparisons and casts (``tf.add``, ``tf.sqrt``,
``tf.equal``, ``tf.cast``...), written with ember's ops so they record graph nodes with
TensorFlow's names and types and differentiate through ``tf.gradients``.

TensorFlow's rules, not PyTorch's: two operands of different dtypes are refused (a Python
number takes the tensor's dtype), ``tf.sqrt`` of an integer tensor is an error rather than a
promotion, comparisons are element-wise and broadcast.

>>> import ember.compat.v1 as tf
>>> with tf.Graph().as_default():
...     y = tf.add(tf.constant([1.0, 2.0]), 1.0)
...     tf.Session().run(y).tolist(), y.op.type, y.op.name
([2.0, 3.0], 'AddV2', 'Add')
"""

from __future__ import annotations

import builtins

import numpy as np

from ..._core import dtype as _dt
from ...dispatch import dispatch
from ...ops import functional as F
from ...ops.conversion import TO_COPY
from ._common import FLOATS, REALS, as_pair, check_dtype, is_int, tensor
from .framework import _truediv, op_scope

__all__ = [
    "abs", "acos", "acosh", "add", "add_n", "asin", "asinh", "atan", "atan2", "atanh", "cast", "ceil", "cos", "cosh", "digamma",
    "divide", "equal", "erf", "erfc", "exp", "expm1", "floor", "floordiv", "floormod", "greater", "greater_equal", "is_finite", "is_inf",
    "is_nan", "less", "less_equal", "lgamma", "log", "log1p", "log_sigmoid", "logical_and", "logical_not", "logical_or", "logical_xor",
    "maximum", "minimum", "mod", "multiply", "negative", "not_equal", "pow", "realdiv", "reciprocal", "rint", "round", "rsqrt",
    "saturate_cast", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "squared_difference", "subtract", "tan", "tanh",
    "to_bfloat16", "to_double", "to_float", "to_int32", "to_int64", "truediv", "truncatediv", "truncatemod",
]  # fmt: skip

_NUMBERS = (*FLOATS, _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)
_ORDERED = (*REALS, _dt.int8, _dt.int16, _dt.int32, _dt.int64, _dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64)


# -- binary arithmetic --------------------------------------------------------------------


def _binary(name, default: str, op_type: str, x, y, compute, allowed=None):
    with op_scope(name, default, (x, y)) as scope:
        x, y = as_pair(x, y, op_type)
        if allowed is not None:
            check_dtype(x, allowed)
        return scope.out(compute(x, y), op_type)


def add(x, y, name=None):
    """``x + y`` element-wise with broadcasting (node ``Add``, type ``AddV2``)."""
    return _binary(name, "Add", "AddV2", x, y, F.add)


def subtract(x, y, name=None):
    """``x - y`` element-wise (node ``Sub``)."""
    return _binary(name, "Sub", "Sub", x, y, F.sub, _NUMBERS)


def multiply(x, y, name=None):
    """``x * y`` element-wise (node ``Mul``)."""
    return _binary(name, "Mul", "Mul", x, y, F.mul, _NUMBERS)


def _real_div(x, y):
    # RealDiv of integers truncates, as C does
    return F.div(x, y, rounding_mode="trunc") if is_int(x._dtype) else F.div(x, y)


def realdiv(x, y, name=None):
    """``x / y`` in ``x``'s dtype (node ``RealDiv``; integers divide truncating)."""
    return _binary(name, "RealDiv", "RealDiv", x, y, _real_div, _NUMBERS)


def truediv(x, y, name=None):
    """``x / y`` with integers cast to float first (float32 for 8/16-bit ints, else float64)."""
    with op_scope(name, "truediv", (x, y)) as scope:
        x, y = as_pair(x, y, "RealDiv")
        check_dtype(x, _NUMBERS)
        return scope.out(_truediv(x, y, scope), "RealDiv")


def divide(x, y, name=None):
    """TensorFlow 1's ``tf.divide``: ``x / y`` (true division, node ``truediv``)."""
    return truediv(x, y, name=name)


def floordiv(x, y, name=None):
    """``x // y``, rounding toward negative infinity (node ``floordiv``, type ``FloorDiv``)."""
    return _binary(name, "floordiv", "FloorDiv", x, y, F.floor_divide, _ORDERED)


def floormod(x, y, name=None):
    """``x - floordiv(x, y) * y``: the remainder with the divisor's sign (node ``FloorMod``)."""
    return _binary(name, "FloorMod", "FloorMod", x, y, F.remainder, _ORDERED)


mod = floormod


def truncatediv(x, y, name=None):
    """Integer division rounding toward zero (node ``TruncateDiv``)."""
    return _binary(name, "TruncateDiv", "TruncateDiv", x, y, lambda a, b: F.div(a, b, rounding_mode="trunc"), _ORDERED)


def truncatemod(x, y, name=None):
    """The remainder with the dividend's sign, as C's ``%`` (node ``TruncateMod``)."""
    return _binary(name, "TruncateMod", "TruncateMod", x, y, F.fmod, _ORDERED)


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """``x ** y`` element-wise (node ``Pow``)."""
    return _binary(name, "Pow", "Pow", x, y, F.pow, _NUMBERS)


def maximum(x, y, name=None):
    """The larger of ``x`` and ``y`` element-wise (node ``Maximum``)."""
    return _binary(name, "Maximum", "Maximum", x, y, F.maximum, _ORDERED)


def minimum(x, y, name=None):
    """The smaller of ``x`` and ``y`` element-wise (node ``Minimum``)."""
    return _binary(name, "Minimum", "Minimum", x, y, F.minimum, _ORDERED)


def squared_difference(x, y, name=None):
    """``(x - y) ** 2`` element-wise (node ``SquaredDifference``)."""
    return _binary(name, "SquaredDifference", "SquaredDifference", x, y, lambda a, b: F.square(F.sub(a, b)), _NUMBERS)


def atan2(y, x, name=None):
    """The angle of the point ``(x, y)``: ``atan(y / x)`` in the right quadrant (node ``Atan2``)."""
    with op_scope(name, "Atan2", (y, x)) as scope:
        y, x = as_pair(y, x, "Atan2", "y", "x")
        check_dtype(y, REALS, "y")
        return scope.out(F.atan2(y, x), "Atan2")


def add_n(inputs, name=None):
    """The sum of a list of tensors of one shape and dtype (node ``AddN``); one input is returned as it is."""
    if not isinstance(inputs, list | tuple) or not inputs:
        raise ValueError("inputs must be a list of at least one Tensor/IndexedSlices with the same dtype and shape")
    if len(inputs) == 1 and name is None:
        return tensor(inputs[0], "inputs")
    with op_scope(name, "AddN", inputs) as scope:
        tensors = [tensor(t, f"inputs_{i}") for i, t in enumerate(inputs)]
        first = tensors[0]
        for t in tensors[1:]:
            if t._dtype is not first._dtype:
                raise TypeError(f"add_n(): inputs must have one dtype, got {first._dtype.name} and {t._dtype.name}")
            if first.shape.is_fully_defined() and t.shape.is_fully_defined() and first.shape != t.shape:
                raise ValueError(f"add_n(): inputs must have one shape, got {first.shape} and {t.shape}")
        total = first
        for t in tensors[1:]:
            total = F.add(total, t)
        if total is first:
            total = F.mul(first, 1)
        return scope.out(total, "AddN")


# -- unary functions ---------------------------------------------------------------------


def _unary(fn_name: str, op_type: str, compute, allowed, doc: str):
    def fn(x, name=None):
        with op_scope(name, op_type, (x,)) as scope:
            x = tensor(x, "x")
            check_dtype(x, allowed)
            return scope.out(compute(x), op_type)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = doc
    return fn


def _sign(x):
    return F.sgn(x) if x._dtype.is_complex else F.sign(x)


def _rint(x):
    return x if is_int(x._dtype) else F.round(x)


_SIGNED = tuple(d for d in _NUMBERS if d not in (_dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64))

abs = _unary("abs", "Abs", F.abs, _NUMBERS, "``|x|`` element-wise (node ``Abs``).")  # noqa: A001
negative = _unary("negative", "Neg", F.neg, _SIGNED, "``-x`` element-wise (node ``Neg``).")
sign = _unary("sign", "Sign", _sign, _SIGNED, "-1, 0 or 1 by the sign of ``x`` (node ``Sign``).")
square = _unary("square", "Square", F.square, _NUMBERS, "``x * x`` element-wise (node ``Square``).")
reciprocal = _unary("reciprocal", "Reciprocal", F.reciprocal, _SIGNED, "``1 / x`` element-wise (node ``Reciprocal``).")
sqrt = _unary("sqrt", "Sqrt", F.sqrt, FLOATS, "The square root element-wise (node ``Sqrt``; floats only).")
rsqrt = _unary("rsqrt", "Rsqrt", F.rsqrt, FLOATS, "``1 / sqrt(x)`` element-wise (node ``Rsqrt``).")
exp = _unary("exp", "Exp", F.exp, FLOATS, "``e ** x`` element-wise (node ``Exp``).")
expm1 = _unary("expm1", "Expm1", F.expm1, FLOATS, "``e ** x - 1``, accurate near 0 (node ``Expm1``).")
log = _unary("log", "Log", F.log, FLOATS, "The natural logarithm element-wise (node ``Log``).")
log1p = _unary("log1p", "Log1p", F.log1p, FLOATS, "``log(1 + x)``, accurate near 0 (node ``Log1p``).")
sin = _unary("sin", "Sin", F.sin, FLOATS, "The sine element-wise (node ``Sin``).")
cos = _unary("cos", "Cos", F.cos, FLOATS, "The cosine element-wise (node ``Cos``).")
tan = _unary("tan", "Tan", F.tan, FLOATS, "The tangent element-wise (node ``Tan``).")
asin = _unary("asin", "Asin", F.asin, FLOATS, "The arcsine element-wise (node ``Asin``).")
acos = _unary("acos", "Acos", F.acos, FLOATS, "The arccosine element-wise (node ``Acos``).")
atan = _unary("atan", "Atan", F.atan, FLOATS, "The arctangent element-wise (node ``Atan``).")
sinh = _unary("sinh", "Sinh", F.sinh, FLOATS, "The hyperbolic sine element-wise (node ``Sinh``).")
cosh = _unary("cosh", "Cosh", F.cosh, FLOATS, "The hyperbolic cosine element-wise (node ``Cosh``).")
tanh = _unary("tanh", "Tanh", F.tanh, FLOATS, "The hyperbolic tangent element-wise (node ``Tanh``).")
asinh = _unary("asinh", "Asinh", F.asinh, FLOATS, "The inverse hyperbolic sine element-wise (node ``Asinh``).")
acosh = _unary("acosh", "Acosh", F.acosh, FLOATS, "The inverse hyperbolic cosine element-wise (node ``Acosh``).")
atanh = _unary("atanh", "Atanh", F.atanh, FLOATS, "The inverse hyperbolic tangent element-wise (node ``Atanh``).")
sigmoid = _unary("sigmoid", "Sigmoid", F.sigmoid, FLOATS, "``1 / (1 + exp(-x))`` element-wise (node ``Sigmoid``).")
erf = _unary("erf", "Erf", F.erf, REALS, "The error function element-wise (node ``Erf``).")
erfc = _unary("erfc", "Erfc", F.erfc, REALS, "``1 - erf(x)``, accurate for large ``x`` (node ``Erfc``).")
lgamma = _unary("lgamma", "Lgamma", F.lgamma, REALS, "``log|Gamma(x)|`` element-wise (node ``Lgamma``).")
digamma = _unary("digamma", "Digamma", F.digamma, REALS, "The derivative of lgamma element-wise (node ``Digamma``).")
floor = _unary("floor", "Floor", F.floor, REALS, "The largest integer not above ``x`` (node ``Floor``).")
ceil = _unary("ceil", "Ceil", F.ceil, REALS, "The smallest integer not below ``x`` (node ``Ceil``).")
rint = _unary("rint", "Rint", F.round, REALS, "``x`` rounded to the nearest integer, halves to even (node ``Rint``).")
round = _unary("round", "Round", _rint, _NUMBERS, "``x`` rounded to the nearest integer, halves to even (node ``Round``).")  # noqa: A001
is_nan = _unary("is_nan", "IsNan", F.isnan, REALS, "Whether each element is NaN (node ``IsNan``).")
is_inf = _unary("is_inf", "IsInf", F.isinf, REALS, "Whether each element is +-infinity (node ``IsInf``).")
is_finite = _unary("is_finite", "IsFinite", F.isfinite, REALS, "Whether each element is finite (node ``IsFinite``).")


def log_sigmoid(x, name=None):
    """``log(sigmoid(x))``, computed as ``-softplus(-x)`` so it does not overflow."""
    with op_scope(name, "LogSigmoid", (x,)) as scope:
        x = tensor(x, "x")
        check_dtype(x, REALS)
        return scope.out(F.neg(F.softplus(F.neg(x))), "Neg")


# -- comparisons and logic ------------------------------------------------------------------

_COMPARABLE = (*_NUMBERS, _dt.bool_, _dt.string)


def _compare(fn_name: str, op_type: str, compute, allowed):
    def fn(x, y, name=None):
        return _binary(name, op_type, op_type, x, y, compute, allowed)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"``{fn_name}(x, y)`` element-wise with broadcasting: a bool tensor (node ``{op_type}``)."
    return fn


equal = _compare("equal", "Equal", F.eq, _COMPARABLE)
not_equal = _compare("not_equal", "NotEqual", F.ne, _COMPARABLE)
less = _compare("less", "Less", F.lt, _ORDERED)
less_equal = _compare("less_equal", "LessEqual", F.le, _ORDERED)
greater = _compare("greater", "Greater", F.gt, _ORDERED)
greater_equal = _compare("greater_equal", "GreaterEqual", F.ge, _ORDERED)


def logical_and(x, y, name=None):
    """``x and y`` element-wise on bool tensors (node ``LogicalAnd``)."""
    return _binary(name, "LogicalAnd", "LogicalAnd", x, y, F.logical_and, (_dt.bool_,))


def logical_or(x, y, name=None):
    """``x or y`` element-wise on bool tensors (node ``LogicalOr``)."""
    return _binary(name, "LogicalOr", "LogicalOr", x, y, F.logical_or, (_dt.bool_,))


def logical_xor(x, y, name="LogicalXor"):
    """``x != y`` element-wise on bool tensors (node ``LogicalXor``)."""
    return _binary(name, "LogicalXor", "LogicalXor", x, y, F.logical_xor, (_dt.bool_,))


def logical_not(x, name=None):
    """``not x`` element-wise on a bool tensor (node ``LogicalNot``)."""
    with op_scope(name, "LogicalNot", (x,)) as scope:
        x = tensor(x, "x")
        check_dtype(x, (_dt.bool_,))
        return scope.out(F.logical_not(x), "LogicalNot")


# -- casts -------------------------------------------------------------------------------------


def _as_dtype(dtype, op: str) -> _dt.DType:
    return _dt.as_dtype(dtype, op=op, arg="dtype")


def cast(x, dtype, name=None):
    """``x`` converted to ``dtype`` (node ``Cast``): floats to integers truncate toward zero, a
    complex value to a real one keeps the real part; ``x`` itself when it has the dtype already."""
    dtype = _as_dtype(dtype, "cast")
    with op_scope(name, "Cast", (x,)) as scope:
        x = tensor(x, "x")
        if x._dtype is dtype:
            return x
        if x._dtype is _dt.string or dtype is _dt.string:
            raise TypeError(f"Cast: casting between {x._dtype.name} and {dtype.name} is not supported (tf.strings does that)")
        if x._dtype.is_complex and not dtype.is_complex:
            x = F.real(x)  # a strided view: the copy below reads it as it is
        return scope.out(dispatch(TO_COPY, (x,), {"dtype": dtype})[0], "Cast")


def saturate_cast(value, dtype, name=None):
    """``value`` clamped to ``dtype``'s range, then cast (no wrap-around on overflow)."""
    dtype = _as_dtype(dtype, "saturate_cast")
    with op_scope(name, "saturate_cast", (value,)) as scope:
        value = tensor(value, "value")
        if value._dtype is not dtype and dtype not in (_dt.bool_, _dt.string) and not dtype.is_complex:
            info = np.finfo(dtype.numpy_dtype) if dtype.is_floating_point else np.iinfo(dtype.numpy_dtype)
            src = np.finfo(value._dtype.numpy_dtype) if value._dtype.is_floating_point else np.iinfo(value._dtype.numpy_dtype)
            low, high = _in_range(max(info.min, src.min), value._dtype), _in_range(min(info.max, src.max), value._dtype)
            if (low, high) != (src.min, src.max):
                with op_scope(None, "clamp", (value,)):
                    value = F.clamp(value, low, high)
        if value._dtype is dtype:
            return value
        return scope.out(value.to(dtype), "Cast")


def _in_range(bound, dtype: _dt.DType):
    """``bound`` as the nearest value of ``dtype`` no further from zero (2**31 - 1 is not a float32)."""
    if not dtype.is_floating_point:
        return int(bound)
    near = np.asarray(bound, dtype.numpy_dtype)
    if builtins.abs(float(near)) > builtins.abs(float(bound)):
        near = np.nextafter(near, near.dtype.type(0))
    return float(near)


def _to(dtype, default: str):
    def fn(x, name=default):
        with op_scope(name, default, (x,)) as scope:
            x = tensor(x, "x")
            if x._dtype is dtype:
                return x
            return scope.out(x.to(dtype), "Cast")

    fn.__name__ = fn.__qualname__ = f"to_{dtype.name}" if dtype is not _dt.float32 else "to_float"
    fn.__doc__ = f"TensorFlow 1's deprecated ``cast(x, {dtype.name})`` (node ``{default}``)."
    return fn


to_float = _to(_dt.float32, "ToFloat")
to_double = _to(_dt.float64, "ToDouble")
to_int32 = _to(_dt.int32, "ToInt32")
to_int64 = _to(_dt.int64, "ToInt64")
to_bfloat16 = _to(_dt.bfloat16, "ToBFloat16")
