"""Elementwise ops: functors, inference rules (and, with autograd, derivatives) side by side.

Each op is a primitive ``OpExpr`` made by a small factory: ``unary`` for one input, ``binary``
for two (a tensor-tensor primitive and a tensor-scalar one, since a Python scalar is weak in
promotion and travels as an attribute, not as a tensor). The inference rule checks the dtype
(it is cached, so the check costs nothing on a repeated call) and gives the result dtype
with PyTorch's rules: promotion of the inputs (``result_type``, Python scalars weak), then
the op's own rule (integers -> default float for ``sqrt``, bool for comparisons). Kernels
are in ``ember/kernels/cpu/elementwise.py``; they compute in the promoted dtype.

>>> import ember
>>> ember.relu(ember.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
>>> (ember.tensor([1, 2], dtype=ember.int8) + 1).dtype
ember.int8
"""

from __future__ import annotations

from collections.abc import Callable

from .._core import dtype as _dt
from ..dispatch import NO_ATTRS, OpExpr, dispatch
from .common import broadcast_all, broadcast_pair, grad_recording, sum_to, wants_grad
from .common import functional as _F
from .functor import FUNCTORS
from .schema import schema_family

declare = schema_family("elementwise")

__all__ = ["BINARY_OPS", "UNARY_OPS", "binary", "check_kinds", "to_float", "unary"]

UNARY_OPS: dict[str, OpExpr] = {}
BINARY_OPS: dict[str, tuple[OpExpr, OpExpr]] = {}

# dtype kinds, as array-API kind names (``ember.isdtype``)
ALL = ("bool", "numeric")
NUMERIC = ("numeric",)
REAL = ("bool", "integral", "real floating")  # everything but complex
REAL_NO_BOOL = ("integral", "real floating")
FLOATING = ("real floating",)
INEXACT = ("real floating", "complex floating")
INTEGER = ("integral",)
BITS = ("bool", "integral")


def _kinds_text(kinds: tuple) -> str:
    return " or ".join(kinds).replace("numeric", "numeric (integer, floating or complex)")


def check_kinds(op: str, arg: str, dtype: _dt.DType, kinds: tuple) -> None:
    """Refuse ``dtype`` unless it is one of the array-API ``kinds``; the message names the op
    and the argument: ``bitwise_and(): argument 'other' must have a bool or integral dtype,
    got ember.float32``."""
    if not _dt.isdtype(dtype, kinds):
        text = _kinds_text(kinds)
        raise TypeError(f"{op}(): argument '{arg}' must have {'an' if text[0] in 'aeiou' else 'a'} {text} dtype, got {dtype}")


def _check_pair(op: str, a: _dt.DType, b: _dt.DType, promoted: _dt.DType, kinds: tuple, names=("input", "other")) -> None:
    if _dt.isdtype(promoted, kinds):
        return
    for dtype, arg in ((a, names[0]), (b, names[1])):
        check_kinds(op, arg, dtype, kinds)
    check_kinds(op, names[0], promoted, kinds)


def _same(dtype: _dt.DType) -> _dt.DType:
    return dtype


def to_float(dtype: _dt.DType) -> _dt.DType:
    """Integers and bool compute in the default float dtype (PyTorch's rule for exp, sqrt...)."""
    return dtype if dtype.is_floating_point or dtype.is_complex else _dt.get_default_dtype()


def _to_real(dtype: _dt.DType) -> _dt.DType:
    return dtype.to_real()


def _to_real_float(dtype: _dt.DType) -> _dt.DType:
    return to_float(dtype).to_real()


def _to_bool(dtype: _dt.DType) -> _dt.DType:
    return _dt.bool_


def _bool_to_long(dtype: _dt.DType) -> _dt.DType:
    return _dt.int64 if dtype is _dt.bool_ else dtype


# ---------------------------------------------------------------------------------------
# unary


def unary(
    name: str,
    functor_name: str,
    *,
    kinds: tuple = NUMERIC,
    result: Callable = _same,
    attrs: tuple[str, ...] = (),
    check: Callable | None = None,
    public: str | None = None,
) -> OpExpr:
    """A one-input primitive and its functors.

    ``kinds``: the dtypes accepted; ``result``: the output dtype from the input dtype;
    ``attrs``: names of the op's parameters, passed positionally after the input (they become
    the primitive's attributes); ``check(attrs, dtype)``: further argument checks.
    Registers ``Name(x, *attrs, out)`` and ``NameInplace(x, *attrs, inplace)``.
    """
    op = OpExpr(name, ("x",), ("y",))
    public = public or name

    @op.shape_rule
    def infer(a, x):
        dtype = x._dtype
        check_kinds(public, "input", dtype, kinds)
        if check is not None:
            check(a, dtype)
        return ((x._shape, result(dtype)),)

    if not attrs:

        def run(x, out=None):
            if out is None:
                return dispatch(op, (x,))[0]
            return dispatch(op, (x,), NO_ATTRS, (out,))[0]

        def run_inplace(x, inplace):
            if inplace:
                return dispatch(op, (x,), NO_ATTRS, (x,))[0]
            return dispatch(op, (x,))[0]

    else:
        n = len(attrs)

        def run(x, *args):
            out = args[n] if len(args) > n else None
            return dispatch(op, (x,), dict(zip(attrs, args[:n], strict=True)), None if out is None else (out,))[0]

        def run_inplace(x, *args):
            inplace = args[n] if len(args) > n else False
            return dispatch(op, (x,), dict(zip(attrs, args[:n], strict=True)), (x,) if inplace else None)[0]

    run.__name__ = run.__qualname__ = functor_name
    run_inplace.__name__ = run_inplace.__qualname__ = functor_name + "Inplace"
    FUNCTORS[functor_name] = run
    FUNCTORS[functor_name + "Inplace"] = run_inplace
    UNARY_OPS[name] = op
    return op


def _no_bool(message: str) -> Callable:
    def check(attrs, dtype):
        if dtype is _dt.bool_:
            raise RuntimeError(message)

    return check


# Float functions: integers and bool give the default float dtype.
declare(
    "sqrt",
    "Tensor (Tensor input) => Sqrt",
    method=True, inplace="sqrt_", out=True,
    doc="""
    Square root; integers give the default float dtype.

    >>> ember.sqrt(ember.tensor([4, 9])).tolist()
    [2.0, 3.0]
    """,
)
declare("rsqrt", "Tensor (Tensor input) => Rsqrt", method=True, inplace="rsqrt_", out=True, doc="1 / sqrt(input).")
declare(
    "exp",
    "Tensor (Tensor input) => Exp",
    method=True, inplace="exp_", out=True,
    doc="e to the power of input; integers give the default float dtype.",
)
declare("exp2", "Tensor (Tensor input) => Exp2", method=True, inplace="exp2_", out=True, doc="2 to the power of input.")
declare(
    "expm1",
    "Tensor (Tensor input) => Expm1",
    method=True, inplace="expm1_", out=True,
    doc="exp(input) - 1, accurate near 0.",
)
declare("log", "Tensor (Tensor input) => Log", method=True, inplace="log_", out=True, doc="Natural logarithm.")
declare("log2", "Tensor (Tensor input) => Log2", method=True, inplace="log2_", out=True, doc="Base-2 logarithm.")
declare("log10", "Tensor (Tensor input) => Log10", method=True, inplace="log10_", out=True, doc="Base-10 logarithm.")
declare(
    "log1p",
    "Tensor (Tensor input) => Log1p",
    method=True, inplace="log1p_", out=True,
    doc="log(1 + input), accurate near 0.",
)
declare("sin", "Tensor (Tensor input) => Sin", method=True, inplace="sin_", out=True, doc="Sine.")
declare("cos", "Tensor (Tensor input) => Cos", method=True, inplace="cos_", out=True, doc="Cosine.")
declare("tan", "Tensor (Tensor input) => Tan", method=True, inplace="tan_", out=True, doc="Tangent.")
declare("asin", "Tensor (Tensor input) => Asin", method=True, inplace="asin_", out=True, aliases=("arcsin",), doc="Inverse sine.")
declare(
    "acos",
    "Tensor (Tensor input) => Acos",
    method=True, inplace="acos_", out=True, aliases=("arccos",),
    doc="Inverse cosine.",
)
declare(
    "atan",
    "Tensor (Tensor input) => Atan",
    method=True, inplace="atan_", out=True, aliases=("arctan",),
    doc="Inverse tangent.",
)
declare("sinh", "Tensor (Tensor input) => Sinh", method=True, inplace="sinh_", out=True, doc="Hyperbolic sine.")
declare("cosh", "Tensor (Tensor input) => Cosh", method=True, inplace="cosh_", out=True, doc="Hyperbolic cosine.")
declare("tanh", "Tensor (Tensor input) => Tanh", method=True, inplace="tanh_", out=True, doc="Hyperbolic tangent.")
declare(
    "asinh",
    "Tensor (Tensor input) => Asinh",
    method=True, inplace="asinh_", out=True, aliases=("arcsinh",),
    doc="Inverse hyperbolic sine.",
)
declare(
    "acosh",
    "Tensor (Tensor input) => Acosh",
    method=True, inplace="acosh_", out=True, aliases=("arccosh",),
    doc="Inverse hyperbolic cosine.",
)
declare(
    "atanh",
    "Tensor (Tensor input) => Atanh",
    method=True, inplace="atanh_", out=True, aliases=("arctanh",),
    doc="Inverse hyperbolic tangent.",
)
declare(
    "sigmoid",
    "Tensor (Tensor input) => Sigmoid",
    method=True, inplace="sigmoid_", out=True,
    doc="1 / (1 + exp(-input)), computed without overflow.",
)
declare(
    "reciprocal",
    "Tensor (Tensor input) => Reciprocal",
    method=True, inplace="reciprocal_", out=True,
    doc="1 / input; integers give the default float dtype.",
)
_FLOAT_FUNCS = (
    "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "reciprocal",
)  # fmt: skip
for _name in _FLOAT_FUNCS:
    unary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=ALL, result=to_float)
declare(
    "erf",
    "Tensor (Tensor input) => Erf",
    method=True, inplace="erf_", out=True,
    doc="""
    The error function (W. J. Cody's rational approximations, float64-accurate).

    >>> ember.erf(ember.tensor([0.0, -30.0])).tolist()
    [0.0, -1.0]
    """,
)
unary("erf", "Erf", kinds=REAL, result=to_float)
declare(
    "erfc",
    "Tensor (Tensor input) => Erfc",
    method=True, inplace="erfc_", out=True,
    doc="1 - erf(input), accurate in the tail.",
)
unary("erfc", "Erfc", kinds=REAL, result=to_float)

declare(
    "abs",
    "Tensor (Tensor input) => Abs",
    method=True, inplace="abs_", out=True, aliases=("absolute",), operators=("__abs__",),
    doc="""
    |input|, elementwise; complex gives its magnitude (real dtype).

    >>> ember.abs(ember.tensor([-1.5, 2.0])).tolist()
    [1.5, 2.0]
    """,
)
unary("abs", "Abs", kinds=NUMERIC, result=_to_real)
declare(
    "neg",
    "Tensor (Tensor input) => Neg",
    method=True, inplace="neg_", out=True, aliases=("negative",), operators=("__neg__",),
    doc="""
    -input, elementwise (not for bool: use ``~`` or ``logical_not``).

    >>> ember.neg(ember.tensor([1, -2])).tolist()
    [-1, 2]
    """,
)
unary(
    "neg",
    "Neg",
    kinds=ALL,
    check=_no_bool(
        "Negation, the `-` operator, on a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    ),
)
declare(
    "sign",
    "Tensor (Tensor input) => Sign",
    method=True, inplace="sign_", out=True,
    doc="""
    The sign of input: -1, 0 or 1 (0 for NaN, as PyTorch); not for complex (use ``sgn``).

    >>> ember.sign(ember.tensor([-2.5, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    """,
)
unary("sign", "Sign", kinds=REAL)
declare(
    "sgn",
    "Tensor (Tensor input) => Sgn",
    method=True, inplace="sgn_", out=True,
    doc="input / |input| for complex input (0 at 0); the sign otherwise.",
)
unary("sgn", "Sgn", kinds=ALL)
declare(
    "square",
    "Tensor (Tensor input) => Square",
    method=True, inplace="square_", out=True,
    doc="input * input (bool gives int64, as PyTorch's ``pow(bool, 2)``).",
)
unary("square", "Square", kinds=ALL, result=_bool_to_long)
declare(
    "relu",
    "Tensor (Tensor input, *, Bool inplace=False) => ReluInplace",
    method=True, inplace="relu_",
    doc="""
    max(input, 0), elementwise.

    >>> ember.relu(ember.tensor([-1.0, 0.5])).tolist()
    [0.0, 0.5]
    """,
)
unary("relu", "Relu", kinds=REAL_NO_BOOL)
declare("silu", "Tensor (Tensor input, *, Bool inplace=False) => SiluInplace", inplace="silu_", doc="input * sigmoid(input).")
unary("silu", "Silu", kinds=INEXACT)


def _check_gelu(attrs, dtype):
    if attrs["approximate"] not in ("none", "tanh"):
        raise RuntimeError(f"gelu(): approximate argument must be either none or tanh, got {attrs['approximate']!r}")


def _check_hardtanh(attrs, dtype):
    if attrs["min_val"] > attrs["max_val"]:
        raise ValueError(f"hardtanh(): min_val cannot be greater than max_val (got {attrs['min_val']} > {attrs['max_val']})")


def _real_attrs(*names) -> Callable:
    def check(attrs, dtype):
        for n in names:
            if isinstance(attrs[n], complex):
                raise TypeError(f"argument '{n}' must be a real number, not complex")

    return check


declare(
    "gelu",
    "Tensor (Tensor input, *, String approximate='none') => Gelu",
    doc="""
    input * Phi(input) (``approximate='tanh'``: the tanh approximation).

    >>> ember.gelu(ember.tensor([0.0, 10.0])).tolist()
    [0.0, 10.0]
    """,
)
unary("gelu", "Gelu", kinds=FLOATING, attrs=("approximate",), check=_check_gelu)
declare(
    "softplus",
    "Tensor (Tensor input, Scalar beta=1, Scalar threshold=20) => Softplus",
    doc="log(1 + exp(beta * input)) / beta; linear where beta * input > threshold.",
)
unary("softplus", "Softplus", kinds=FLOATING, attrs=("beta", "threshold"), check=_real_attrs("beta", "threshold"))
declare(
    "elu",
    "Tensor (Tensor input, Scalar alpha=1.0, *, Bool inplace=False) => EluInplace",
    inplace="elu_",
    doc="input where positive, alpha * (exp(input) - 1) elsewhere.",
)
unary("elu", "Elu", kinds=FLOATING, attrs=("alpha",), check=_real_attrs("alpha"))
declare(
    "leaky_relu",
    "Tensor (Tensor input, Scalar negative_slope=0.01, *, Bool inplace=False) => LeakyReluInplace",
    inplace="leaky_relu_",
    doc="input where positive, negative_slope * input elsewhere.",
)
unary("leaky_relu", "LeakyRelu", kinds=FLOATING, attrs=("negative_slope",), check=_real_attrs("negative_slope"))


def _check_hardtanh_all(attrs, dtype):
    _real_attrs("min_val", "max_val")(attrs, dtype)
    _check_hardtanh(attrs, dtype)
    if dtype.kind == "u" and int(attrs["min_val"]) < 0:
        raise RuntimeError("hardtanh(): cannot do hardtanh on an unsigned type with negative limits")


declare(
    "hardtanh",
    "Tensor (Tensor input, Scalar min_val=-1.0, Scalar max_val=1.0, *, Bool inplace=False) => HardtanhInplace",
    inplace="hardtanh_",
    doc="input clamped to [min_val, max_val].",
)
unary("hardtanh", "Hardtanh", kinds=REAL_NO_BOOL, attrs=("min_val", "max_val"), check=_check_hardtanh_all)

declare(
    "floor",
    "Tensor (Tensor input) => Floor",
    method=True, inplace="floor_", out=True,
    doc="Round down to an integer value (integers are returned unchanged).",
)
declare("ceil", "Tensor (Tensor input) => Ceil", method=True, inplace="ceil_", out=True, doc="Round up to an integer value.")
declare(
    "trunc",
    "Tensor (Tensor input) => Trunc",
    method=True, inplace="trunc_", out=True, aliases=("fix",),
    doc="Round toward zero.",
)
for _name in ("floor", "ceil", "trunc"):
    unary(_name, _name.capitalize(), kinds=REAL_NO_BOOL)


def _check_round(attrs, dtype):
    if attrs["decimals"] != 0 and not dtype.is_floating_point:
        raise TypeError(f"round(): decimals={attrs['decimals']} needs a floating-point input, got {dtype}")


declare(
    "round",
    "Tensor (Tensor input, *, Int decimals=0) => Round",
    method=True, inplace="round_", out=True,
    doc="""
    Round half to even, to ``decimals`` decimal places.

    >>> ember.round(ember.tensor([0.5, 1.5, 2.567]), decimals=0).tolist()
    [0.0, 2.0, 3.0]
    """,
)
unary("round", "Round", kinds=REAL_NO_BOOL, attrs=("decimals",), check=_check_round)
declare(
    "frac",
    "Tensor (Tensor input) => Frac",
    method=True, inplace="frac_", out=True,
    doc="input - trunc(input) (floating point only).",
)
unary("frac", "Frac", kinds=FLOATING)
declare("isnan", "Tensor (Tensor input) => Isnan", method=True, differentiable=False, doc="True where input is NaN.")
declare("isinf", "Tensor (Tensor input) => Isinf", method=True, differentiable=False, doc="True where input is +-inf.")
declare(
    "isfinite",
    "Tensor (Tensor input) => Isfinite",
    method=True, differentiable=False,
    doc="True where input is neither NaN nor infinite.",
)
for _name in ("isnan", "isinf", "isfinite"):
    unary(_name, _name.capitalize(), kinds=ALL, result=_to_bool)
declare(
    "signbit",
    "Tensor (Tensor input) => Signbit",
    method=True, out=True, differentiable=False,
    doc="True where the sign bit is set (including -0.0).",
)
unary("signbit", "Signbit", kinds=REAL, result=_to_bool)
declare(
    "logical_not",
    "Tensor (Tensor input) => LogicalNot",
    method=True, inplace="logical_not_", out=True, differentiable=False,
    doc="``not input`` elementwise, as a bool tensor (nonzero is true).",
)
unary("logical_not", "LogicalNot", kinds=ALL, result=_to_bool)
declare(
    "bitwise_not",
    "Tensor (Tensor input) => BitwiseNot",
    method=True, inplace="bitwise_not_", out=True, differentiable=False, aliases=("bitwise_invert",), operators=("__invert__",),
    doc="""
    Bitwise NOT of an integer or bool tensor (``~``).

    >>> (~ember.tensor([True, False])).tolist(), ember.bitwise_not(ember.tensor([0, 5])).tolist()
    ([False, True], [-1, -6])
    """,
)
unary("bitwise_not", "BitwiseNot", kinds=BITS)
declare(
    "angle",
    "Tensor (Tensor input) => Angle",
    method=True, out=True,
    doc="The argument of a complex number; for real input 0 or pi (NaN stays NaN).",
)
unary("angle", "Angle", kinds=ALL, result=_to_real_float)
declare(
    "conj_physical",
    "Tensor (Tensor input) => ConjPhysical",
    method=True, inplace="conj_physical_", out=True,
    doc="The complex conjugate, computed into new memory (real input: a copy).",
)
unary("conj_physical", "ConjPhysical", kinds=ALL)
declare(
    "nan_to_num",
    "Tensor (Tensor input, Float? nan=0.0, Float? posinf=None, Float? neginf=None) => NanToNum",
    method=True, inplace="nan_to_num_", out=True,
    doc="""
    Replace NaN, +inf and -inf (default: 0 and the dtype's largest and lowest finite values).

    >>> ember.nan_to_num(ember.tensor([float('nan'), float('inf')]), posinf=9.0).tolist()
    [0.0, 9.0]
    """,
)
unary("nan_to_num", "NanToNum", kinds=ALL, attrs=("nan", "posinf", "neginf"))


def _conj(input):
    if not input._dtype.is_complex:
        return input
    return dispatch(UNARY_OPS["conj_physical"], (input,))[0]


declare(
    "conj",
    "Tensor (Tensor input) => Conj",
    method=True, op="conj_physical",
    doc="The complex conjugate; real input is returned as is.",
)
FUNCTORS["Conj"] = _conj


def _positive(input):
    if input._dtype is _dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


declare(
    "positive",
    "Tensor (Tensor input) => Positive",
    method=True, composite=True, operators=("__pos__",),
    doc="+input: returns input itself (not for bool).",
)
FUNCTORS["Positive"] = _positive

# real and imag are views: the real (imaginary) parts of a complex tensor are every other
# element of its memory reinterpreted as the real dtype.
_real_op = OpExpr("real", ("x",), ("y",))
_imag_op = OpExpr("imag", ("x",), ("y",))


def _part_view(x, part: int):
    return x._view(x._shape, tuple(2 * s for s in x._stride), 2 * x._offset + part, x._dtype.to_real())


@_real_op.view_rule
def _real_view(attrs, x):
    return (_part_view(x, 0),)


@_imag_op.view_rule
def _imag_view(attrs, x):
    return (_part_view(x, 1),)


def _real(input):
    if not input._dtype.is_complex:
        return input
    return dispatch(_real_op, (input,))[0]


def _imag(input):
    if not input._dtype.is_complex:
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return dispatch(_imag_op, (input,))[0]


declare(
    "real",
    "Tensor (Tensor input) => Real",
    method="property",
    doc="""
    The real part, a view (real input is returned as is).

    >>> ember.tensor([1 + 2j]).real.tolist()
    [1.0]
    """,
)
FUNCTORS["Real"] = _real
declare("imag", "Tensor (Tensor input) => Imag", method="property", doc="The imaginary part of a complex tensor, a view.")
FUNCTORS["Imag"] = _imag


# clamp: scalars are attributes (weak in promotion); tensor bounds go through maximum/minimum.
_clamp_op = OpExpr("clamp", ("x",), ("y",))


@_clamp_op.shape_rule
def _infer_clamp(attrs, x):
    bounds = [v for v in (attrs["min"], attrs["max"]) if v is not None]
    dtype = _dt.result_type(x._dtype, *bounds)
    check_kinds("clamp", "input", dtype, REAL)
    for v in bounds:
        if isinstance(v, complex):
            raise TypeError("clamp(): min and max must be real numbers, got a complex")
    return ((x._shape, dtype),)


def _clamp_scalar(input, min, max, out=None):
    if min is None and max is None:
        raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
    return dispatch(_clamp_op, (input,), {"min": min, "max": max}, None if out is None else (out,))[0]


declare(
    "maximum",
    [
        "Tensor (Tensor input, Tensor other) => Maximum",
        "Tensor (Tensor input, Scalar other) => MaximumScalar",
    ],
    method=True, out=True, op=("maximum", "maximum_scalar"),
    doc="Elementwise maximum; NaN propagates.",
)
declare(
    "minimum",
    [
        "Tensor (Tensor input, Tensor other) => Minimum",
        "Tensor (Tensor input, Scalar other) => MinimumScalar",
    ],
    method=True, out=True, op=("minimum", "minimum_scalar"),
    doc="Elementwise minimum; NaN propagates.",
)
def _clamp_tensor(input, min, max, out=None):
    if min is None and max is None:
        raise RuntimeError("clamp(): At least one of 'min' or 'max' must not be None")
    if max is None:
        return FUNCTORS["Maximum"](input, min, out)
    if min is None:
        return FUNCTORS["Minimum"](input, max, out)
    # promote all three first, so that the result dtype does not depend on the order
    dtype = _dt.promote_types(_dt.promote_types(input._dtype, min._dtype), max._dtype)
    check_kinds("clamp", "input", dtype, REAL)
    low = FUNCTORS["Maximum"](input, min, None)
    return FUNCTORS["Minimum"](low, max, out)


declare(
    "clamp",
    [
        "Tensor (Tensor input, Scalar? min=None, Scalar? max=None) => ClampScalar",
        "Tensor (Tensor input, Tensor? min=None, Tensor? max=None) => ClampTensor",
    ],
    method=True, inplace="clamp_", out=True, op=("clamp", "maximum", "minimum"), aliases=("clip",),
    doc="""
    min(max(input, min), max) elementwise; the bounds take part in type promotion.

    >>> ember.clamp(ember.tensor([-2, 0, 5]), min=-1, max=3).tolist()
    [-1, 0, 3]
    """,
)
FUNCTORS["ClampScalar"] = _clamp_scalar
FUNCTORS["ClampTensor"] = _clamp_tensor


# ---------------------------------------------------------------------------------------
# binary


def _scalar_type(attrs: dict) -> type:
    return type(attrs["other"])


def binary(
    name: str,
    functor_name: str,
    *,
    kinds: tuple = ALL,
    result: Callable = _same,
    check: Callable | None = None,
    public: str | None = None,
    functors: bool = True,
) -> tuple[OpExpr, OpExpr]:
    """A tensor-tensor primitive ``name`` and a tensor-scalar one ``name_scalar``, with their
    functors ``Name(input, other, out)`` and ``NameScalar(input, other, out)``.

    ``kinds``: the promoted dtypes accepted; ``result(promoted)``: the output dtype (bool
    for comparisons, the default float for true division of integers); ``check(attrs,
    a_dtype, b_dtype_or_scalar, promoted)``: further checks (the scalar primitive passes the
    Python scalar in place of the second dtype).
    """
    op = OpExpr(name, ("input", "other"), ("out",))
    scalar_op = OpExpr(name + "_scalar", ("input",), ("out",))
    if check is None:
        scalar_op.attr_key = _scalar_type  # a weak scalar promotes by its type, never its value
    public = public or name

    @op.shape_rule
    def infer(attrs, a, b):
        dtype = _dt.promote_types(a._dtype, b._dtype)
        _check_pair(public, a._dtype, b._dtype, dtype, kinds)
        if check is not None:
            check(attrs, a._dtype, b._dtype, dtype)
        return ((broadcast_pair(a._shape, b._shape), result(dtype)),)

    @scalar_op.shape_rule
    def infer_scalar(attrs, a):
        other = attrs["other"]
        dtype = _dt.result_type(a._dtype, other)
        if not _dt.isdtype(dtype, kinds):
            check_kinds(public, "input", a._dtype, kinds)
            check_kinds(public, "other", _dt.result_type(other), kinds)
            check_kinds(public, "input", dtype, kinds)
        if check is not None:
            check(attrs, a._dtype, other, dtype)
        return ((a._shape, result(dtype)),)

    if functors:

        def run(input, other, out=None):
            if out is None:
                return dispatch(op, (input, other))[0]
            return dispatch(op, (input, other), NO_ATTRS, (out,))[0]

        def run_scalar(input, other, out=None):
            return dispatch(scalar_op, (input,), {"other": other}, None if out is None else (out,))[0]

        run.__name__ = run.__qualname__ = functor_name
        run_scalar.__name__ = run_scalar.__qualname__ = functor_name + "Scalar"
        FUNCTORS[functor_name] = run
        FUNCTORS[functor_name + "Scalar"] = run_scalar
    BINARY_OPS[name] = (op, scalar_op)
    return op, scalar_op


def _is_bool(x) -> bool:
    return x is _dt.bool_ or type(x) is bool


def _check_sub(attrs, a, b, promoted):
    if _is_bool(a) and _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
        )
    if _is_bool(a) or _is_bool(b):
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. "
            "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
        )


def _check_alpha(attrs, promoted):
    """PyTorch's rules for ``alpha`` in add/sub."""
    alpha = attrs.get("alpha", 1)
    if type(alpha) is bool and promoted is not _dt.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not (promoted.is_floating_point or promoted.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, complex) and not promoted.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")


def _check_pow(attrs, a, b, promoted):
    if type(b) is int and promoted.kind in "iu":
        if b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if b > _dt.iinfo(promoted).max:
            raise RuntimeError(f"pow(): exponent {b} cannot be converted to type {promoted.name} without overflow")


def _check_pow_tensor(attrs, a, b, promoted):
    if promoted is _dt.bool_ and type(b) is _dt.DType:  # bool ** True is allowed, as in PyTorch
        raise TypeError("pow(): a bool tensor to the power of a bool tensor is not supported; cast one to an integer dtype")
    _check_pow(attrs, a, b, promoted)


declare(
    "add",
    [
        "Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Add",
        "Tensor (Tensor input, Scalar other, *, Scalar alpha=1) => AddScalar",
    ],
    method=True, inplace="add_", out=True, op=("add", "add_scalar", "add_alpha"), operators=("__add__", "__radd__", "__iadd__"),
    doc="""
    input + alpha * other, broadcasting, with type promotion (Python scalars are weak).

    >>> (ember.tensor([1, 2]) + 1.5).tolist()
    [2.5, 3.5]
    >>> ember.add(ember.tensor([1, 2]), ember.tensor([10, 20]), alpha=2).tolist()
    [21, 42]
    """,
)
_add, _add_scalar = binary("add", "Add", functors=False)
declare(
    "sub",
    [
        "Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Sub",
        "Tensor (Tensor input, Scalar other, *, Scalar alpha=1) => SubScalar",
    ],
    method=True,
    inplace="sub_",
    out=True,
    op=("sub", "sub_scalar", "add_alpha"),
    aliases=("subtract",),
    operators=("__sub__", "__rsub__", "__isub__"),
    doc="""
    input - alpha * other, broadcasting, with type promotion (not for bool).

    >>> (2 - ember.tensor([1, 5])).tolist()
    [1, -3]
    """,
)
_sub, _sub_scalar = binary("sub", "Sub", check=_check_sub, functors=False)
_add_alpha = OpExpr("add_alpha", ("input", "other"), ("out",))  # input + alpha * other


@_add_alpha.shape_rule
def _infer_add_alpha(attrs, a, b):
    dtype = _dt.promote_types(a._dtype, b._dtype)
    _check_pair("add", a._dtype, b._dtype, dtype, ALL)
    _check_alpha(attrs, dtype)
    return ((broadcast_pair(a._shape, b._shape), dtype),)


_add_alpha.attr_key = lambda attrs: type(attrs["alpha"])  # the rule reads alpha's type, never its value


_ONE = 1  # ``alpha is _ONE``: CPython shares the small ints, so a default alpha costs one identity test


def _add_functor(input, other, alpha=1, out=None):
    if alpha is _ONE:
        if out is None:
            return dispatch(_add, (input, other))[0]
        return dispatch(_add, (input, other), NO_ATTRS, (out,))[0]
    return dispatch(_add_alpha, (input, other), {"alpha": alpha}, None if out is None else (out,))[0]


def _scaled_scalar(input, other, alpha):
    """``alpha * other`` for a scalar ``other``, as PyTorch computes it in the result dtype."""
    promoted = _dt.result_type(input._dtype, other)
    _check_alpha({"alpha": alpha}, promoted)
    if promoted is _dt.bool_:
        return bool(other) and bool(alpha)
    return other * alpha


def _add_scalar_functor(input, other, alpha=1, out=None):
    if alpha is not _ONE:
        other = _scaled_scalar(input, other, alpha)
    return dispatch(_add_scalar, (input,), {"other": other}, None if out is None else (out,))[0]


def _sub_functor(input, other, alpha=1, out=None):
    if alpha is _ONE:
        if out is None:
            return dispatch(_sub, (input, other))[0]
        return dispatch(_sub, (input, other), NO_ATTRS, (out,))[0]
    _check_sub(NO_ATTRS, input._dtype, other._dtype, None)
    _check_alpha({"alpha": alpha}, _dt.promote_types(input._dtype, other._dtype))
    return dispatch(_add_alpha, (input, other), {"alpha": -alpha}, None if out is None else (out,))[0]


def _sub_scalar_functor(input, other, alpha=1, out=None):
    if alpha is not _ONE:
        _check_sub(NO_ATTRS, input._dtype, other, None)
        other = _scaled_scalar(input, other, alpha)
    return dispatch(_sub_scalar, (input,), {"other": other}, None if out is None else (out,))[0]


FUNCTORS["Add"] = _add_functor
FUNCTORS["AddScalar"] = _add_scalar_functor
FUNCTORS["Sub"] = _sub_functor
FUNCTORS["SubScalar"] = _sub_scalar_functor

declare(
    "mul",
    [
        "Tensor (Tensor input, Tensor other) => Mul",
        "Tensor (Tensor input, Scalar other) => MulScalar",
    ],
    method=True,
    inplace="mul_",
    out=True,
    op=("mul", "mul_scalar"),
    aliases=("multiply",),
    operators=("__mul__", "__rmul__", "__imul__"),
    doc="input * other, broadcasting, with type promotion.",
)
binary("mul", "Mul")

# division: true (the default float for integers), and rounded ('trunc', 'floor')
_no_complex_div = ("bool", "integral", "real floating")


def _check_rounded(op):
    """Rounded division of bools is refused; integer division by zero raises in the kernel."""

    def check(attrs, a, b, promoted):
        if promoted is _dt.bool_:
            raise TypeError(f"{op}(): both operands are bool; cast one to an integer dtype")

    return check


_div_true = binary("div", "DivTrue", result=to_float, functors=False)
_div_trunc = binary("div_trunc", "DivTrunc", kinds=_no_complex_div, check=_check_rounded("div"), public="div", functors=False)
declare(
    "floor_divide",
    [
        "Tensor (Tensor input, Tensor other) => FloorDivide",
        "Tensor (Tensor input, Scalar other) => FloorDivideScalar",
    ],
    method=True,
    inplace="floor_divide_",
    out=True,
    differentiable=False,
    op=("floor_divide", "floor_divide_scalar"),
    operators=("__floordiv__", "__rfloordiv__", "__ifloordiv__"),
    doc="""
    input // other, rounded toward -inf (Python's rule); integer division by zero raises.

    >>> (ember.tensor([7, -7]) // 2).tolist()
    [3, -4]
    """,
)
_div_floor = binary("floor_divide", "FloorDivide", kinds=_no_complex_div, check=_check_rounded("floor_divide"))
_DIV_MODES = {None: _div_true, "trunc": _div_trunc, "floor": _div_floor}


def _div_mode(rounding_mode):
    ops = _DIV_MODES.get(rounding_mode) if type(rounding_mode) in (str, type(None)) else None
    if ops is None:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found {rounding_mode!r}")
    return ops


def _div(input, other, rounding_mode=None, out=None):
    op = _div_mode(rounding_mode)[0]
    return dispatch(op, (input, other), NO_ATTRS, None if out is None else (out,))[0]


def _div_scalar(input, other, rounding_mode=None, out=None):
    op = _div_mode(rounding_mode)[1]
    return dispatch(op, (input,), {"other": other}, None if out is None else (out,))[0]


declare(
    "div",
    [
        "Tensor (Tensor input, Tensor other, *, String? rounding_mode=None) => Div",
        "Tensor (Tensor input, Scalar other, *, String? rounding_mode=None) => DivScalar",
    ],
    method=True,
    inplace="div_",
    out=True,
    op=("div", "div_scalar", "div_trunc", "div_trunc_scalar", "floor_divide", "floor_divide_scalar"),
    aliases=("divide", "true_divide"),
    operators=("__truediv__", "__rtruediv__", "__itruediv__"),
    doc="""
    input / other: true division (integers give the default float dtype), or rounded with
    ``rounding_mode='trunc'`` (toward zero) or ``'floor'``, which keep integer dtypes.

    >>> ember.tensor([7, -7]) / 2
    tensor([ 3.5000, -3.5000])
    >>> ember.div(ember.tensor([7, -7]), 2, rounding_mode='trunc').tolist()
    [3, -3]
    """,
)
FUNCTORS["Div"] = _div
FUNCTORS["DivScalar"] = _div_scalar

declare(
    "remainder",
    [
        "Tensor (Tensor input, Tensor other) => Remainder",
        "Tensor (Tensor input, Scalar other) => RemainderScalar",
    ],
    method=True,
    inplace="remainder_",
    out=True,
    op=("remainder", "remainder_scalar"),
    operators=("__mod__", "__rmod__", "__imod__"),
    doc="""
    input % other with the sign of other (Python's rule).

    >>> (ember.tensor([-3, 3]) % 2).tolist()
    [1, 1]
    """,
)
binary("remainder", "Remainder", kinds=REAL, check=_check_rounded("remainder"))
declare(
    "fmod",
    [
        "Tensor (Tensor input, Tensor other) => Fmod",
        "Tensor (Tensor input, Scalar other) => FmodScalar",
    ],
    method=True, inplace="fmod_", out=True, op=("fmod", "fmod_scalar"),
    doc="""
    The C remainder of input / other, with the sign of input.

    >>> ember.fmod(ember.tensor([-3, 3]), 2).tolist()
    [-1, 1]
    """,
)
binary("fmod", "Fmod", kinds=REAL, check=_check_rounded("fmod"))
declare(
    "pow",
    [
        "Tensor (Tensor input, Tensor exponent) => Pow",
        "Tensor (Tensor input, Scalar exponent) => PowScalar",
        "Tensor (Scalar input, Tensor exponent) => PowScalarBase",
    ],
    method=True, inplace="pow_", out=True, op=("pow", "pow_scalar"), operators=("__pow__", "__rpow__", "__ipow__"),
    doc="""
    input ** exponent, broadcasting, with type promotion (a scalar base or exponent is weak).

    >>> (2 ** ember.tensor([1, 2, 3])).tolist(), (ember.tensor([1.5]) ** 2).tolist()
    ([2, 4, 8], [2.25])
    """,
)
_pow = binary("pow", "Pow", kinds=ALL, check=_check_pow_tensor)


def _pow_scalar_base(input, exponent, out=None):
    """``pow(2, t)``: the scalar base is weak, as in ``2 ** t``."""
    from .._core.tensor import tensor

    base = tensor(input, dtype=_dt.result_type(exponent._dtype, input), device=exponent.device)
    return dispatch(_pow[0], (base, exponent), NO_ATTRS, None if out is None else (out,))[0]


FUNCTORS["PowScalarBase"] = _pow_scalar_base

declare(
    "fmax",
    [
        "Tensor (Tensor input, Tensor other) => Fmax",
        "Tensor (Tensor input, Scalar other) => FmaxScalar",
    ],
    method=True, out=True, op=("fmax", "fmax_scalar"),
    doc="Elementwise maximum, ignoring NaN where the other operand is a number.",
)
declare(
    "fmin",
    [
        "Tensor (Tensor input, Tensor other) => Fmin",
        "Tensor (Tensor input, Scalar other) => FminScalar",
    ],
    method=True, out=True, op=("fmin", "fmin_scalar"),
    doc="Elementwise minimum, ignoring NaN where the other operand is a number.",
)
for _name in ("maximum", "minimum", "fmax", "fmin"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=REAL)
declare(
    "atan2",
    [
        "Tensor (Tensor input, Tensor other) => Atan2",
        "Tensor (Tensor input, Scalar other) => Atan2Scalar",
    ],
    method=True, inplace="atan2_", out=True, op=("atan2", "atan2_scalar"), aliases=("arctan2",),
    doc="The angle of the point (other, input): atan(input / other) in the right quadrant.",
)
binary("atan2", "Atan2", kinds=REAL, result=to_float)
declare(
    "copysign",
    [
        "Tensor (Tensor input, Tensor other) => Copysign",
        "Tensor (Tensor input, Scalar other) => CopysignScalar",
    ],
    method=True, inplace="copysign_", out=True, op=("copysign", "copysign_scalar"),
    doc="|input| with the sign of other; integers give the default float dtype.",
)
binary("copysign", "Copysign", kinds=REAL, result=to_float)
declare(
    "hypot",
    [
        "Tensor (Tensor input, Tensor other) => Hypot",
        "Tensor (Tensor input, Scalar other) => HypotScalar",
    ],
    method=True, inplace="hypot_", out=True, op=("hypot", "hypot_scalar"),
    doc="sqrt(input**2 + other**2) without overflow (floating point).",
)
binary("hypot", "Hypot", kinds=FLOATING)
declare(
    "logaddexp",
    [
        "Tensor (Tensor input, Tensor other) => Logaddexp",
        "Tensor (Tensor input, Scalar other) => LogaddexpScalar",
    ],
    method=True, out=True, op=("logaddexp", "logaddexp_scalar"),
    doc="log(exp(input) + exp(other)) without overflow (floating point).",
)
binary("logaddexp", "Logaddexp", kinds=INEXACT)
declare(
    "nextafter",
    [
        "Tensor (Tensor input, Tensor other) => Nextafter",
        "Tensor (Tensor input, Scalar other) => NextafterScalar",
    ],
    method=True, inplace="nextafter_", out=True, differentiable=False, op=("nextafter", "nextafter_scalar"),
    doc="The next floating-point value after input toward other, in input's dtype.",
)
binary("nextafter", "Nextafter", kinds=FLOATING)

declare(
    "eq",
    [
        "Tensor (Tensor input, Tensor other) => Eq",
        "Tensor (Tensor input, Scalar other) => EqScalar",
    ],
    method=True,
    inplace="eq_",
    out=True,
    differentiable=False,
    op=("eq", "eq_scalar"),
    aliases=("equal_elementwise",),
    operators=("__eq__",),
    doc="""
    input == other, elementwise, as a bool tensor.

    >>> (ember.tensor([1, 2]) == 2).tolist()
    [False, True]
    """,
)
declare(
    "ne",
    [
        "Tensor (Tensor input, Tensor other) => Ne",
        "Tensor (Tensor input, Scalar other) => NeScalar",
    ],
    method=True,
    inplace="ne_",
    out=True,
    differentiable=False,
    op=("ne", "ne_scalar"),
    aliases=("not_equal",),
    operators=("__ne__",),
    doc="input != other, elementwise, as a bool tensor.",
)
for _name in ("eq", "ne"):
    binary(_name, _name.capitalize(), kinds=ALL, result=_to_bool)
declare(
    "lt",
    [
        "Tensor (Tensor input, Tensor other) => Lt",
        "Tensor (Tensor input, Scalar other) => LtScalar",
    ],
    method=True, inplace="lt_", out=True, differentiable=False, op=("lt", "lt_scalar"), aliases=("less",), operators=("__lt__",),
    doc="input < other, elementwise, as a bool tensor.",
)
declare(
    "le",
    [
        "Tensor (Tensor input, Tensor other) => Le",
        "Tensor (Tensor input, Scalar other) => LeScalar",
    ],
    method=True,
    inplace="le_",
    out=True,
    differentiable=False,
    op=("le", "le_scalar"),
    aliases=("less_equal",),
    operators=("__le__",),
    doc="input <= other, elementwise, as a bool tensor.",
)
declare(
    "gt",
    [
        "Tensor (Tensor input, Tensor other) => Gt",
        "Tensor (Tensor input, Scalar other) => GtScalar",
    ],
    method=True,
    inplace="gt_",
    out=True,
    differentiable=False,
    op=("gt", "gt_scalar"),
    aliases=("greater",),
    operators=("__gt__",),
    doc="input > other, elementwise, as a bool tensor.",
)
declare(
    "ge",
    [
        "Tensor (Tensor input, Tensor other) => Ge",
        "Tensor (Tensor input, Scalar other) => GeScalar",
    ],
    method=True,
    inplace="ge_",
    out=True,
    differentiable=False,
    op=("ge", "ge_scalar"),
    aliases=("greater_equal",),
    operators=("__ge__",),
    doc="input >= other, elementwise, as a bool tensor.",
)
for _name in ("lt", "le", "gt", "ge"):
    binary(_name, _name.capitalize(), kinds=REAL, result=_to_bool)
declare(
    "logical_and",
    [
        "Tensor (Tensor input, Tensor other) => LogicalAnd",
        "Tensor (Tensor input, Scalar other) => LogicalAndScalar",
    ],
    method=True, inplace="logical_and_", out=True, differentiable=False, op=("logical_and", "logical_and_scalar"),
    doc="Logical and of the truth values (nonzero is true), as a bool tensor.",
)
declare(
    "logical_or",
    [
        "Tensor (Tensor input, Tensor other) => LogicalOr",
        "Tensor (Tensor input, Scalar other) => LogicalOrScalar",
    ],
    method=True, inplace="logical_or_", out=True, differentiable=False, op=("logical_or", "logical_or_scalar"),
    doc="Logical or of the truth values (nonzero is true), as a bool tensor.",
)
declare(
    "logical_xor",
    [
        "Tensor (Tensor input, Tensor other) => LogicalXor",
        "Tensor (Tensor input, Scalar other) => LogicalXorScalar",
    ],
    method=True, inplace="logical_xor_", out=True, differentiable=False, op=("logical_xor", "logical_xor_scalar"),
    doc="Logical xor of the truth values (nonzero is true), as a bool tensor.",
)
for _name in ("logical_and", "logical_or", "logical_xor"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=ALL, result=_to_bool)
declare(
    "bitwise_and",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseAnd",
        "Tensor (Tensor input, Scalar other) => BitwiseAndScalar",
    ],
    method=True,
    inplace="bitwise_and_",
    out=True,
    differentiable=False,
    op=("bitwise_and", "bitwise_and_scalar"),
    operators=("__and__", "__rand__", "__iand__"),
    doc="Bitwise AND of integer or bool tensors.",
)
declare(
    "bitwise_or",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseOr",
        "Tensor (Tensor input, Scalar other) => BitwiseOrScalar",
    ],
    method=True,
    inplace="bitwise_or_",
    out=True,
    differentiable=False,
    op=("bitwise_or", "bitwise_or_scalar"),
    operators=("__or__", "__ror__", "__ior__"),
    doc="Bitwise OR of integer or bool tensors.",
)
declare(
    "bitwise_xor",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseXor",
        "Tensor (Tensor input, Scalar other) => BitwiseXorScalar",
    ],
    method=True,
    inplace="bitwise_xor_",
    out=True,
    differentiable=False,
    op=("bitwise_xor", "bitwise_xor_scalar"),
    operators=("__xor__", "__rxor__", "__ixor__"),
    doc="Bitwise XOR of integer or bool tensors.",
)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=BITS)
declare(
    "bitwise_left_shift",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseLeftShift",
        "Tensor (Tensor input, Scalar other) => BitwiseLeftShiftScalar",
    ],
    method=True,
    inplace="bitwise_left_shift_",
    out=True,
    differentiable=False,
    op=("bitwise_left_shift", "bitwise_left_shift_scalar"),
    operators=("__lshift__", "__rlshift__", "__ilshift__"),
    doc="""
    input << other for integer tensors (shifts past the width give 0).

    >>> (ember.tensor([1, 3]) << 2).tolist()
    [4, 12]
    """,
)
declare(
    "bitwise_right_shift",
    [
        "Tensor (Tensor input, Tensor other) => BitwiseRightShift",
        "Tensor (Tensor input, Scalar other) => BitwiseRightShiftScalar",
    ],
    method=True,
    inplace="bitwise_right_shift_",
    out=True,
    differentiable=False,
    op=("bitwise_right_shift", "bitwise_right_shift_scalar"),
    operators=("__rshift__", "__rrshift__", "__irshift__"),
    doc="input >> other for integer tensors (arithmetic shift for signed dtypes).",
)
for _name in ("bitwise_left_shift", "bitwise_right_shift"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=INTEGER)


# ---------------------------------------------------------------------------------------
# three inputs: where, lerp; comparisons as a whole: isclose, allclose, equal

_where_op = OpExpr("where", ("condition", "input", "other"), ("out",))


@_where_op.shape_rule
def _infer_where(attrs, c, a, b):
    if c._dtype is not _dt.bool_ and c._dtype is not _dt.uint8:  # uint8 masks: PyTorch's legacy, still accepted
        raise RuntimeError(f"where(): expected condition to be a boolean tensor, but got a tensor with dtype {c._dtype}")
    dtype = _dt.promote_types(a._dtype, b._dtype)
    return ((broadcast_all(c._shape, a._shape, b._shape), dtype),)


def _where(condition, input, other, out=None):
    if not hasattr(input, "_dtype") or not hasattr(other, "_dtype"):
        from .._core.tensor import tensor

        dtype = _dt.result_type(*(x._dtype if hasattr(x, "_dtype") else x for x in (input, other)))
        device = condition.device
        if not hasattr(input, "_dtype"):
            input = tensor(input, dtype=dtype, device=device)
        if not hasattr(other, "_dtype"):
            other = tensor(other, dtype=dtype, device=device)
    return dispatch(_where_op, (condition, input, other), NO_ATTRS, None if out is None else (out,))[0]


declare(
    "where",
    [
        "Tensor (Tensor condition, Tensor input, Tensor other) => Where",
        "Tensor (Tensor condition, Tensor input, Scalar other) => Where",
        "Tensor (Tensor condition, Scalar input, Tensor other) => Where",
        "Tensor (Tensor condition, Scalar input, Scalar other) => Where",
    ],
    out=True,
    doc="""
    input where condition is true, other elsewhere, broadcasting; scalars are weak in promotion.

    >>> ember.where(ember.tensor([True, False]), ember.tensor([1, 2]), 0).tolist()
    [1, 0]
    """,
)
FUNCTORS["Where"] = _where

_lerp_op = OpExpr("lerp", ("input", "end", "weight"), ("out",))
_lerp_scalar_op = OpExpr("lerp_scalar", ("input", "end"), ("out",))


def _check_lerp(a, b, weight):
    if b is not a._dtype:
        raise RuntimeError(f"lerp(): expected dtype {a._dtype} for `end` but got dtype {b}")
    check_kinds("lerp", "input", a._dtype, INEXACT)


@_lerp_op.shape_rule
def _infer_lerp(attrs, a, b, w):
    _check_lerp(a, b._dtype, w)
    if w._dtype is not a._dtype:
        raise RuntimeError(f"lerp(): expected dtype {a._dtype} for `weight` but got dtype {w._dtype}")
    return ((broadcast_all(a._shape, b._shape, w._shape), a._dtype),)


@_lerp_scalar_op.shape_rule
def _infer_lerp_scalar(attrs, a, b):
    _check_lerp(a, b._dtype, attrs["weight"])
    if isinstance(attrs["weight"], complex) and not a._dtype.is_complex:
        raise TypeError("lerp(): a complex weight needs complex input")
    return ((broadcast_pair(a._shape, b._shape), a._dtype),)


def _lerp(input, end, weight, out=None):
    return dispatch(_lerp_op, (input, end, weight), NO_ATTRS, None if out is None else (out,))[0]


def _lerp_scalar(input, end, weight, out=None):
    return dispatch(_lerp_scalar_op, (input, end), {"weight": weight}, None if out is None else (out,))[0]


declare(
    "lerp",
    [
        "Tensor (Tensor input, Tensor end, Tensor weight) => Lerp",
        "Tensor (Tensor input, Tensor end, Scalar weight) => LerpScalar",
    ],
    method=True, inplace="lerp_", out=True, op=("lerp", "lerp_scalar"),
    doc="""
    input + weight * (end - input) (floating point; input and end of one dtype).

    >>> ember.lerp(ember.tensor([0.0, 10.0]), ember.tensor([10.0, 20.0]), 0.25).tolist()
    [2.5, 12.5]
    """,
)
FUNCTORS["Lerp"] = _lerp
FUNCTORS["LerpScalar"] = _lerp_scalar

_isclose_op = OpExpr("isclose", ("input", "other"), ("out",))


@_isclose_op.shape_rule
def _infer_isclose(attrs, a, b):
    if a._dtype is not b._dtype:
        raise RuntimeError(f"isclose(): {a._dtype} did not match {b._dtype} (both tensors need the same dtype)")
    check_kinds("isclose", "input", a._dtype, ALL)
    if attrs["rtol"] < 0:
        raise RuntimeError(f"isclose(): rtol must be greater than or equal to zero, but got {attrs['rtol']}")
    if attrs["atol"] < 0:
        raise RuntimeError(f"isclose(): atol must be greater than or equal to zero, but got {attrs['atol']}")
    return ((broadcast_pair(a._shape, b._shape), _dt.bool_),)


def _isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return dispatch(_isclose_op, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": equal_nan})[0]


def _all_true(t) -> bool:
    if t.is_meta:
        raise RuntimeError("cannot decide on meta tensors: they hold shape and dtype only, no values")
    return bool(t._host_array().all())


def _allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    return _all_true(_isclose(input, other, rtol, atol, equal_nan))


def _equal(input, other):
    if input._shape != other._shape:
        return False
    return _all_true(dispatch(BINARY_OPS["eq"][0], (input, other))[0])


declare(
    "isclose",
    "Tensor (Tensor input, Tensor other, Float rtol=1e-05, Float atol=1e-08, Bool equal_nan=False) => Isclose",
    method=True, differentiable=False,
    doc="|input - other| <= atol + rtol * |other|, elementwise (equal infinities are close).",
)
FUNCTORS["Isclose"] = _isclose
declare(
    "allclose",
    "Bool (Tensor input, Tensor other, Float rtol=1e-05, Float atol=1e-08, Bool equal_nan=False) => Allclose",
    method=True, differentiable=False, op="isclose",
    doc="""
    Whether ``isclose`` holds everywhere (a Python bool).

    >>> ember.allclose(ember.tensor([1.0]), ember.tensor([1.0 + 1e-9]))
    True
    """,
)
FUNCTORS["Allclose"] = _allclose
declare(
    "equal",
    "Bool (Tensor input, Tensor other) => Equal",
    method=True, differentiable=False, op="eq",
    doc="""
    PyTorch's ``equal``: True iff both have the same shape and the same values (a Python bool;
    the array API's elementwise ``equal`` is ``eq``).

    >>> ember.equal(ember.tensor([1, 2]), ember.tensor([1, 2]))
    True
    """,
)
FUNCTORS["Equal"] = _equal


# ---------------------------------------------------------------------------------------
# derivatives, written with ember's ops (so they differentiate again): ctx.inputs and
# ctx.outputs are the saved tensors, ctx.input_meta their (shape, dtype). Complex inputs follow
# PyTorch's convention (the gradient is the conjugate Wirtinger derivative): a holomorphic
# f gives ``g * conj(f'(z))``; ``_cj`` is the identity on real tensors.

_LN2 = 0.6931471805599453
_LN10 = 2.302585092994046
_TWO_OVER_SQRT_PI = 1.1283791670955126
_INV_SQRT_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327
_SQRT_2_OVER_PI = 0.7978845608028654
_GELU_C = 0.044715


def _cj(t):
    return t.conj() if t._dtype.is_complex else t


def _cjs(v):
    """A Python scalar's conjugate (complex weights, alphas)."""
    return v.conjugate() if isinstance(v, complex) else v


_wants = wants_grad


def _reduce(g, ctx, i):
    """``g`` back to input ``i``: summed over broadcast dims, real part for a real input, its dtype."""
    if g is None:
        return None
    shape, dtype = ctx.input_meta[i]
    g = sum_to(g, shape)
    if g._dtype.is_complex and not dtype.is_complex:
        g = _F().real(g)
    if g._dtype is not dtype:
        g = g.to(dtype)
    return g


def _zeros(ctx, i):
    shape, dtype = ctx.input_meta[i]
    if not (dtype.is_floating_point or dtype.is_complex):
        return None
    return _F().zeros(shape, dtype=dtype)


def _unary(op_name: str, saves: str = "inputs"):
    """Register ``fn(ctx, g) -> grad`` (one tensor) as the derivative of a unary primitive."""

    def register(fn):
        def derivative(ctx, g):
            return (_reduce(fn(ctx, g), ctx, 0),)

        derivative.__name__ = derivative.__qualname__ = fn.__name__
        UNARY_OPS[op_name].grad_rule(saves=saves)(derivative)
        return fn

    return register


def _zero_unary(ctx, g):
    return (_zeros(ctx, 0),)


# rounding and sign: zero almost everywhere (PyTorch returns zeros)
for _name in ("floor", "ceil", "trunc", "round", "sign"):
    UNARY_OPS[_name].grad_rule(saves="none")(_zero_unary)


@UNARY_OPS["sgn"].grad_rule()
def _sgn_grad(ctx, g):
    (x,) = ctx.inputs
    if not x._dtype.is_complex:
        return (_zeros(ctx, 0),)
    # (g - sgn(x)^2 conj(g)) / (2|x|), zero at 0
    F = _F()
    a = F.abs(x)
    s = F.sgn(x)
    out = (g - s * s * g.conj()) / (2 * a)
    return (F.where(a == 0, 0.0, out),)


# --- add, sub, mul, div, neg ---------------------------------------------------------------


@_add.grad_rule(saves="none")
def _add_grad(ctx, g):
    return _reduce(g, ctx, 0), _reduce(g, ctx, 1)


@_add_alpha.grad_rule(saves="none")
def _add_alpha_grad(ctx, g):
    return _reduce(g, ctx, 0), _reduce(g * _cjs(ctx.attrs["alpha"]), ctx, 1) if _wants(ctx, 1) else None


@_add_scalar.grad_rule(saves="none")
def _add_scalar_grad(ctx, g):
    return (_reduce(g, ctx, 0),)


@_sub.grad_rule(saves="none")
def _sub_grad(ctx, g):
    return _reduce(g, ctx, 0), _reduce(-g, ctx, 1) if _wants(ctx, 1) else None


@_sub_scalar.grad_rule(saves="none")
def _sub_scalar_grad(ctx, g):
    return (_reduce(g, ctx, 0),)


@BINARY_OPS["mul"][0].grad_rule()
def _mul_grad(ctx, g):
    a, b = ctx.inputs
    ga = _reduce(g * _cj(b), ctx, 0) if _wants(ctx, 0) else None
    gb = _reduce(g * _cj(a), ctx, 1) if _wants(ctx, 1) else None
    return ga, gb


@BINARY_OPS["mul"][1].grad_rule(saves="none")
def _mul_scalar_grad(ctx, g):
    return (_reduce(g * _cjs(ctx.attrs["other"]), ctx, 0),)


@BINARY_OPS["div"][0].grad_rule()
def _div_grad(ctx, g):
    a, b = ctx.inputs
    ga = _reduce(g / _cj(b), ctx, 0) if _wants(ctx, 0) else None
    gb = _reduce(-g * _cj(a / (b * b)), ctx, 1) if _wants(ctx, 1) else None
    return ga, gb


@BINARY_OPS["div"][1].grad_rule(saves="none")
def _div_scalar_grad(ctx, g):
    return (_reduce(g / _cjs(ctx.attrs["other"]), ctx, 0),)


def _zero_binary(ctx, g):
    return _zeros(ctx, 0), _zeros(ctx, 1)


def _zero_binary_scalar(ctx, g):
    return (_zeros(ctx, 0),)


# rounded division: zero almost everywhere
for _name in ("div_trunc", "floor_divide"):
    BINARY_OPS[_name][0].grad_rule(saves="none")(_zero_binary)
    BINARY_OPS[_name][1].grad_rule(saves="none")(_zero_binary_scalar)


@UNARY_OPS["neg"].grad_rule(saves="none")
def _neg_grad(ctx, g):
    return (-g,)


# --- unary functions -----------------------------------------------------------------------


# relu's input gradient in one kernel, for backward without create_graph: one dispatch in place
# of a comparison and a product (``g * (y > 0)`` is what double backward differentiates)
_THRESHOLD_BACKWARD = OpExpr("threshold_backward", ("grad_output", "output"), ("grad_input",))
_THRESHOLD_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_THRESHOLD_BACKWARD.attr_key = lambda attrs: None  # the rule reads no attribute


@_THRESHOLD_BACKWARD.shape_rule
def _threshold_backward_infer(attrs, g, y):
    return ((y._shape, y._dtype),)


@_unary("relu", saves="outputs")
def _relu_grad(ctx, g):
    (y,) = ctx.outputs
    if not grad_recording() and g._dtype is y._dtype and y._dtype in (_dt.float32, _dt.float64) and g._shape == y._shape:
        return dispatch(_THRESHOLD_BACKWARD, (g, y), {"threshold": 0.0})[0]
    return g * (y > 0)


@_unary("exp", saves="outputs")
def _exp_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(y)


@_unary("exp2", saves="outputs")
def _exp2_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(y * _LN2)


@_unary("expm1", saves="outputs")
def _expm1_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(y + 1)


@_unary("log")
def _log_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(x)


@_unary("log2")
def _log2_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(x * _LN2)


@_unary("log10")
def _log10_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(x * _LN10)


@_unary("log1p")
def _log1p_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(x + 1)


@_unary("sqrt", saves="outputs")
def _sqrt_grad(ctx, g):
    (y,) = ctx.outputs
    return g / _cj(2 * y)


@_unary("rsqrt", saves="outputs")
def _rsqrt_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(-0.5 * y * y * y)


@_unary("reciprocal", saves="outputs")
def _reciprocal_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(-(y * y))


@_unary("square")
def _square_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _cj(2 * x)


@_unary("sin")
def _sin_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _cj(_F().cos(x))


@_unary("cos")
def _cos_grad(ctx, g):
    (x,) = ctx.inputs
    return -g * _cj(_F().sin(x))


@_unary("tan", saves="outputs")
def _tan_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(1 + y * y)


@_unary("asin")
def _asin_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(_F().sqrt(1 - x * x))


@_unary("acos")
def _acos_grad(ctx, g):
    (x,) = ctx.inputs
    return -g / _cj(_F().sqrt(1 - x * x))


@_unary("atan")
def _atan_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(1 + x * x)


@_unary("sinh")
def _sinh_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _cj(_F().cosh(x))


@_unary("cosh")
def _cosh_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _cj(_F().sinh(x))


@_unary("tanh", saves="outputs")
def _tanh_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(1 - y * y)


@_unary("asinh")
def _asinh_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(_F().sqrt(x * x + 1))


@_unary("acosh")
def _acosh_grad(ctx, g):
    (x,) = ctx.inputs
    F = _F()
    return g / _cj(F.sqrt(x - 1) * F.sqrt(x + 1))  # the product, not sqrt(x^2 - 1): right branch for complex x


@_unary("atanh")
def _atanh_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(1 - x * x)


@_unary("sigmoid", saves="outputs")
def _sigmoid_grad(ctx, g):
    (y,) = ctx.outputs
    return g * _cj(y * (1 - y))


@_unary("erf")
def _erf_grad(ctx, g):
    (x,) = ctx.inputs
    return g * (_TWO_OVER_SQRT_PI * _F().exp(-(x * x)))


@_unary("erfc")
def _erfc_grad(ctx, g):
    (x,) = ctx.inputs
    return g * (-_TWO_OVER_SQRT_PI * _F().exp(-(x * x)))


@_unary("frac", saves="none")
def _frac_grad(ctx, g):
    return g


@_unary("abs")
def _abs_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().sgn(x)  # sgn(x) = x/|x| (0 at 0) also for complex x


@_unary("angle")
def _angle_grad(ctx, g):
    (x,) = ctx.inputs
    if not x._dtype.is_complex:
        return _zeros(ctx, 0)
    F = _F()
    a2 = (x * x.conj()).real
    return F.where(x == 0, 0.0, g * x / a2 * 1j)


@_unary("conj_physical", saves="none")
def _conj_physical_grad(ctx, g):
    return _cj(g)


@_unary("nan_to_num")
def _nan_to_num_grad(ctx, g):
    (x,) = ctx.inputs
    return g * _F().isfinite(x)


@_unary("silu")
def _silu_grad(ctx, g):
    (x,) = ctx.inputs
    s = _F().sigmoid(x)
    return g * _cj(s * (1 + x * (1 - s)))


@_unary("gelu")
def _gelu_grad(ctx, g):
    (x,) = ctx.inputs
    F = _F()
    if ctx.attrs["approximate"] == "tanh":
        x2 = x * x
        t = F.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x2 * x))
        du = _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * x2)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)
    cdf = 0.5 * (1 + F.erf(x * _INV_SQRT_2))
    pdf = _INV_SQRT_2PI * F.exp(-0.5 * (x * x))
    return g * (cdf + x * pdf)


@_unary("softplus")
def _softplus_grad(ctx, g):
    (x,) = ctx.inputs
    beta, threshold = ctx.attrs["beta"], ctx.attrs["threshold"]
    bx = x * beta
    return _F().where(bx > threshold, g, g * _F().sigmoid(bx))


@_unary("elu")
def _elu_grad(ctx, g):
    (x,) = ctx.inputs
    return _F().where(x > 0, g, g * (ctx.attrs["alpha"] * _F().exp(x)))


@_unary("leaky_relu")
def _leaky_relu_grad(ctx, g):
    (x,) = ctx.inputs
    return _F().where(x > 0, g, g * ctx.attrs["negative_slope"])


@_unary("hardtanh")
def _hardtanh_grad(ctx, g):
    (x,) = ctx.inputs
    inside = (x > ctx.attrs["min_val"]).logical_and(x < ctx.attrs["max_val"])
    return g * inside


@_clamp_op.grad_rule()
def _clamp_grad(ctx, g):
    (x,) = ctx.inputs
    lo, hi = ctx.attrs["min"], ctx.attrs["max"]
    if lo is None:
        keep = x <= hi
    elif hi is None:
        keep = x >= lo
    else:
        keep = (x >= lo).logical_and(x <= hi)
    return (_reduce(g * keep, ctx, 0),)


@_real_op.grad_rule(saves="none")
def _real_grad(ctx, g):
    return (g.to(ctx.input_meta[0][1]),)


@_imag_op.grad_rule(saves="none")
def _imag_grad(ctx, g):
    return ((g * 1j).to(ctx.input_meta[0][1]),)


# --- binary ----------------------------------------------------------------------------------


def _binary(name: str, saves: str = "inputs"):
    """Register ``fn(ctx, g, want_a, want_b) -> (grad_a, grad_b)`` for a tensor-tensor primitive."""

    def register(fn):
        def derivative(ctx, g):
            ga, gb = fn(ctx, g, _wants(ctx, 0), _wants(ctx, 1))
            return _reduce(ga, ctx, 0), _reduce(gb, ctx, 1)

        derivative.__name__ = derivative.__qualname__ = fn.__name__
        BINARY_OPS[name][0].grad_rule(saves=saves)(derivative)
        return fn

    return register


def _binary_scalar(name: str, saves: str = "inputs"):
    """Register ``fn(ctx, g) -> grad`` for the tensor-scalar primitive ``name_scalar``."""

    def register(fn):
        def derivative(ctx, g):
            return (_reduce(fn(ctx, g), ctx, 0),)

        derivative.__name__ = derivative.__qualname__ = fn.__name__
        BINARY_OPS[name][1].grad_rule(saves=saves)(derivative)
        return fn

    return register


def _pow_self(g, x, p):
    """g * conj(p x^(p-1)), zero where p == 0 (also at x == 0)."""
    F = _F()
    d = g * _cj(p * F.pow(x, p - 1))
    return F.where(p == 0, 0.0, d) if not isinstance(p, (int, float, complex)) else d


@_binary("pow", saves="both")
def _pow_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    (y,) = ctx.outputs
    F = _F()
    ga = _pow_self(g, a, b) if want_a else None
    gb = None
    if want_b:
        d = g * _cj(y * F.log(a))
        gb = F.where((a == 0).logical_and(b.real >= 0 if b._dtype.is_complex else b >= 0), 0.0, d)
    return ga, gb


@_binary_scalar("pow")
def _pow_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    p = ctx.attrs["other"]
    if p == 0:
        return _zeros(ctx, 0)
    return _pow_self(g, x, p)


def _split(g, a, b, greater: bool):
    """maximum/minimum: the gradient goes to the larger (smaller) input, half each on ties."""
    F = _F()
    pick = (a > b) if greater else (a < b)
    return F.where(a == b, g * 0.5, g * pick)


@_binary("maximum")
def _maximum_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (_split(g, a, b, True) if want_a else None), (_split(g, b, a, True) if want_b else None)


@_binary("minimum")
def _minimum_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (_split(g, a, b, False) if want_a else None), (_split(g, b, a, False) if want_b else None)


@_binary_scalar("maximum")
def _maximum_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    return _split(g, x, ctx.attrs["other"], True)


@_binary_scalar("minimum")
def _minimum_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    return _split(g, x, ctx.attrs["other"], False)


def _fpick(a, b, greater: bool):
    """fmax/fmin: where the result is ``a`` (ties go to ``a``, as in PyTorch; NaN ``b`` picks ``a``)."""
    return ((a >= b) if greater else (a <= b)).logical_or(_F().isnan(b))


@_binary("fmax")
def _fmax_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    pick = _fpick(a, b, True)
    return (g * pick if want_a else None), (g * pick.logical_not() if want_b else None)


@_binary("fmin")
def _fmin_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    pick = _fpick(a, b, False)
    return (g * pick if want_a else None), (g * pick.logical_not() if want_b else None)


@_binary_scalar("fmax")
def _fmax_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    c = ctx.attrs["other"]
    return g if c != c else g * (x >= c)  # a NaN scalar: the result is x everywhere


@_binary_scalar("fmin")
def _fmin_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    c = ctx.attrs["other"]
    return g if c != c else g * (x <= c)


@_binary("atan2")
def _atan2_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    r = g / (a * a + b * b)
    return (r * b if want_a else None), (-r * a if want_b else None)


@_binary_scalar("atan2")
def _atan2_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    b = ctx.attrs["other"]
    return g * b / (x * x + b * b)


@_binary("hypot", saves="both")
def _hypot_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    (y,) = ctx.outputs
    r = g / y
    return (r * a if want_a else None), (r * b if want_b else None)


@_binary_scalar("hypot", saves="both")
def _hypot_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    (y,) = ctx.outputs
    return g * x / y


@_binary("logaddexp")
def _logaddexp_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    F = _F()
    ga = g / _cj(1 + F.exp(b - a)) if want_a else None
    gb = g / _cj(1 + F.exp(a - b)) if want_b else None
    return ga, gb


@_binary_scalar("logaddexp")
def _logaddexp_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    return g / _cj(1 + _F().exp(ctx.attrs["other"] - x))


def _copysign_self(g, x, y):
    """d copysign(x, s)/dx = y / x (+-1), zero at x == 0."""
    F = _F()
    return F.where(x == 0, 0.0, g * (y / x))


@_binary("copysign", saves="both")
def _copysign_grad(ctx, g, want_a, want_b):
    a, _ = ctx.inputs
    (y,) = ctx.outputs
    return (_copysign_self(g, a, y) if want_a else None), (_zeros(ctx, 1) if want_b else None)


@_binary_scalar("copysign", saves="both")
def _copysign_scalar_grad(ctx, g):
    (x,) = ctx.inputs
    (y,) = ctx.outputs
    return _copysign_self(g, x, y)


@_binary("remainder")
def _remainder_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (g if want_a else None), (-g * _F().floor(a / b) if want_b else None)


@_binary("fmod")
def _fmod_grad(ctx, g, want_a, want_b):
    a, b = ctx.inputs
    return (g if want_a else None), (-g * _F().trunc(a / b) if want_b else None)


@_binary_scalar("remainder", saves="none")
def _remainder_scalar_grad(ctx, g):
    return g


@_binary_scalar("fmod", saves="none")
def _fmod_scalar_grad(ctx, g):
    return g


# --- three inputs ----------------------------------------------------------------------------


@_where_op.grad_rule()
def _where_grad(ctx, g):
    c = ctx.inputs[0]
    F = _F()
    ga = _reduce(F.where(c, g, 0.0), ctx, 1) if _wants(ctx, 1) else None
    gb = _reduce(F.where(c, 0.0, g), ctx, 2) if _wants(ctx, 2) else None
    return None, ga, gb


@_lerp_op.grad_rule()
def _lerp_grad(ctx, g):
    a, e, w = ctx.inputs
    ga = _reduce(g * _cj(1 - w), ctx, 0) if _wants(ctx, 0) else None
    ge = _reduce(g * _cj(w), ctx, 1) if _wants(ctx, 1) else None
    gw = _reduce(g * _cj(e - a), ctx, 2) if _wants(ctx, 2) else None
    return ga, ge, gw


@_lerp_scalar_op.grad_rule(saves="none")
def _lerp_scalar_grad(ctx, g):
    w = _cjs(ctx.attrs["weight"])
    ga = _reduce(g * (1 - w), ctx, 0) if _wants(ctx, 0) else None
    ge = _reduce(g * w, ctx, 1) if _wants(ctx, 1) else None
    return ga, ge
