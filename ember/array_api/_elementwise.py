# ruff: noqa: A001 - the standard names its functions abs, pow, round...
"""Element-wise functions: ember's own where they match, adapters for Python scalars and for clip/round/sign.

The standard lets a Python scalar stand on either side of a binary function (2025.12), promotes a
0-d array as any other (ember's operators, as PyTorch's, let it lift only the category), compares
elementwise with ``equal`` (``ember.equal`` is PyTorch's one-bool ``torch.equal``), keeps the
dtype of ``x`` in ``clip`` and rounds and signs complex numbers.

>>> import ember.array_api as xp
>>> xp.subtract(1, xp.asarray([1, 2], dtype=xp.int8))
tensor([ 0, -1], dtype=ember.int8)
"""

from __future__ import annotations

from .._core import dtype as _dt
from ..ops.functional import FUNCTIONS as _F
from ._helpers import is_array, standard_pair

# Generated functions whose signature and semantics already match the standard's.
_SAME = (
    "abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "bitwise_invert", "ceil", "conj",
    "cos", "cosh", "exp", "floor", "imag", "isfinite", "isinf", "isnan", "log", "log1p",
    "log2", "log10", "logical_not", "negative", "positive", "real", "reciprocal", "signbit", "sin",
    "sinh", "sqrt", "square", "tan", "trunc",
)  # fmt: skip
abs = _F["abs"]
acos = _F["acos"]
acosh = _F["acosh"]
asin = _F["asin"]
asinh = _F["asinh"]
atan = _F["atan"]
atanh = _F["atanh"]
bitwise_invert = _F["bitwise_invert"]
ceil = _F["ceil"]
conj = _F["conj"]
cos = _F["cos"]
cosh = _F["cosh"]
exp = _F["exp"]
floor = _F["floor"]
imag = _F["imag"]
isfinite = _F["isfinite"]
isinf = _F["isinf"]
isnan = _F["isnan"]
log = _F["log"]
log1p = _F["log1p"]
log2 = _F["log2"]
log10 = _F["log10"]
logical_not = _F["logical_not"]
negative = _F["negative"]
positive = _F["positive"]
real = _F["real"]
reciprocal = _F["reciprocal"]
signbit = _F["signbit"]
sin = _F["sin"]
sinh = _F["sinh"]
sqrt = _F["sqrt"]
square = _F["square"]
tan = _F["tan"]
trunc = _F["trunc"]


# --------------------------------------------------------------------------------------------
# Binary functions: a Python scalar on either side.


def _scalar_operands(op: str, x1, x2):
    """The standard lets a Python scalar stand on either side (2025.12): make it a 0-d tensor.

    Its dtype is the one the weak-scalar promotion gives against the other operand, so
    ``add(1, x)`` has the dtype of ``add(x, 1)``. Two arrays promote by the standard's rule
    (a 0-d array counts as any other), not by ember's operators' PyTorch rule.
    """
    if is_array(x1):
        if is_array(x2):
            return standard_pair(x1, x2)
        return x1, x2
    if not is_array(x2):
        raise TypeError(f"{op}(): expected at least one of x1 and x2 to be an array, got {type(x1).__name__} and {type(x2).__name__}")
    return _F["asarray"](x1, dtype=_dt.array_api_result_type(x1, x2), device=x2.device), x2


def _binary(name: str, target: str | None = None):
    """The standard's binary function ``name`` over ember's ``target`` (``name`` when None)."""
    fn = _F[target or name]

    def op(x1, x2, /):
        x1, x2 = _scalar_operands(name, x1, x2)
        return fn(x1, x2)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Array API ``{name}(x1, x2, /)``: ember's ``{fn.__name__}``; either operand may be a Python scalar."
    return op


add = _binary("add")
atan2 = _binary("atan2")
bitwise_and = _binary("bitwise_and")
bitwise_left_shift = _binary("bitwise_left_shift")
bitwise_or = _binary("bitwise_or")
bitwise_right_shift = _binary("bitwise_right_shift")
bitwise_xor = _binary("bitwise_xor")
copysign = _binary("copysign")
divide = _binary("divide")
equal = _binary("equal", "eq")  # ember.equal is PyTorch's one-bool torch.equal
greater = _binary("greater", "gt")
greater_equal = _binary("greater_equal", "ge")
hypot = _binary("hypot")
less = _binary("less", "lt")
less_equal = _binary("less_equal", "le")
logaddexp = _binary("logaddexp")
logical_and = _binary("logical_and")
logical_or = _binary("logical_or")
logical_xor = _binary("logical_xor")
maximum = _binary("maximum")
minimum = _binary("minimum")
multiply = _binary("multiply")
nextafter = _binary("nextafter")
not_equal = _binary("not_equal", "ne")
pow = _binary("pow")
subtract = _binary("subtract")


# --------------------------------------------------------------------------------------------
# Functions whose semantics differ from PyTorch's.


def _like(x, out):
    """``x`` as an array: a Python scalar operand made a 0-d array of the result's dtype."""
    return x if is_array(x) else _F["asarray"](x, dtype=out.dtype, device=out.device)


def floor_divide(x1, x2, /):
    """``floor(x1 / x2)``; an infinite operand gives IEEE's quotient (PyTorch's gives NaN or -1).

    >>> import ember.array_api as xp
    >>> xp.floor_divide(xp.asarray([xp.inf, -1.0]), xp.asarray([2.0, xp.inf]))
    tensor([inf, -0.])
    """
    x1, x2 = _scalar_operands("floor_divide", x1, x2)
    out = _F["floor_divide"](x1, x2)
    if not _dt.isdtype(out.dtype, "real floating"):
        return out
    x1, x2 = (_like(x, out) for x in (x1, x2))
    infinite = _F["logical_or"](_F["isinf"](x1), _F["isinf"](x2))
    return _F["where"](infinite, _F["floor"](_F["div"](x1, x2)), out)


def remainder(x1, x2, /):
    """``x1 - floor_divide(x1, x2) * x2``: a zero result takes the sign of ``x2`` (PyTorch's, of ``x1``).

    >>> import ember.array_api as xp
    >>> xp.remainder(xp.asarray([-0.0, 0.0]), xp.asarray([2.0, -2.0]))
    tensor([0., -0.])
    """
    x1, x2 = _scalar_operands("remainder", x1, x2)
    out = _F["remainder"](x1, x2)
    if not _dt.isdtype(out.dtype, "real floating"):
        return out
    return _F["where"](_F["eq"](out, 0), _F["copysign"](out, _like(x2, out)), out)


def expm1(x, /):
    """``exp(x) - 1``, accurate near 0; a complex ``x`` with an infinite or NaN part follows ``exp``'s special cases.

    >>> import ember.array_api as xp
    >>> xp.expm1(xp.asarray([complex(xp.inf, 0.0)]))
    tensor([inf+0.j])
    """
    out = _F["expm1"](x)
    if not x.dtype.is_complex:
        return out
    out = _F["where"](_F["isfinite"](x), out, _F["sub"](_F["exp"](x), 1))
    # expm1(-0 + 0j) is +0 + 0j (PyTorch's keeps -0): -conj(z) flips the real part's sign alone
    negative_zero = _F["logical_and"](_F["eq"](x, 0), _F["signbit"](_F["real"](out)))
    return _F["where"](negative_zero, _F["negative"](_F["conj"](out)), out)


def clip(x, /, min=None, max=None):  # noqa: A002 - the standard's parameter names
    """Clamp ``x`` to ``[min, max]``; the result keeps the dtype of ``x``."""
    if min is None and max is None:
        return _F["clone"](x)
    if is_array(min) or is_array(max):  # ember's clip takes two scalars or two tensors
        min, max = (b if b is None or is_array(b) else _F["asarray"](b, dtype=_dt.array_api_result_type(x, b), device=x.device) for b in (min, max))
    out = _F["clip"](x, min, max)
    return out if out.dtype == x.dtype else _F["astype"](out, x.dtype)


def round(x, /):
    """Round half to even; complex values round their real and imaginary parts independently."""
    if not x.dtype.is_complex:
        return _F["round"](x)
    out = _F["empty_like"](x)
    _F["real"](out)[...] = _F["round"](_F["real"](x))
    _F["imag"](out)[...] = _F["round"](_F["imag"](x))
    return out


def tanh(x, /):
    """Hyperbolic tangent; at an infinite real part and a finite imaginary part ``b`` it is exactly
    ``±1 + 0j`` with the zero signed as ``b`` (PyTorch's signs it as ``sin(2b)``).

    >>> import ember.array_api as xp
    >>> xp.signbit(xp.imag(xp.tanh(xp.asarray([complex(xp.inf, 3.0)]))))
    tensor([False])
    """
    out = _F["tanh"](x)
    if not x.dtype.is_complex:
        return out
    im = _F["imag"](x)
    limit = _F["logical_and"](_F["isinf"](_F["real"](x)), _F["isfinite"](im))
    # there the real part is already ±1 and the imaginary one a zero; conj gives it the sign of b
    wrong_sign = _F["logical_and"](limit, _F["ne"](_F["signbit"](_F["imag"](out)), _F["signbit"](im)))
    return _F["where"](wrong_sign, _F["conj"](out), out)


def sign(x, /):
    """-1, 0 or 1 for real numbers, NaN for NaN (PyTorch's gives 0); ``x / |x|`` (and 0 at 0) for complex ones."""
    if not x.dtype.is_complex:
        out = _F["sign"](x)
        return _F["where"](_F["isnan"](x), x, out) if _dt.isdtype(x.dtype, "real floating") else out
    return _F["where"](_F["eq"](x, 0), _F["zeros_like"](x), _F["div"](x, _F["abs"](x)))
