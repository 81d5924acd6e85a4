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
from .common import broadcast_all, broadcast_pair
from .functor import FUNCTORS

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
_FLOAT_FUNCS = (
    "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "reciprocal",
)  # fmt: skip
for _name in _FLOAT_FUNCS:
    unary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=ALL, result=to_float)
unary("erf", "Erf", kinds=REAL, result=to_float)
unary("erfc", "Erfc", kinds=REAL, result=to_float)

unary("abs", "Abs", kinds=NUMERIC, result=_to_real)
unary(
    "neg",
    "Neg",
    kinds=ALL,
    check=_no_bool(
        "Negation, the `-` operator, on a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
    ),
)
unary("sign", "Sign", kinds=REAL)
unary("sgn", "Sgn", kinds=ALL)
unary("square", "Square", kinds=ALL, result=_bool_to_long)
unary("relu", "Relu", kinds=REAL_NO_BOOL)
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


unary("gelu", "Gelu", kinds=FLOATING, attrs=("approximate",), check=_check_gelu)
unary("softplus", "Softplus", kinds=FLOATING, attrs=("beta", "threshold"), check=_real_attrs("beta", "threshold"))
unary("elu", "Elu", kinds=FLOATING, attrs=("alpha",), check=_real_attrs("alpha"))
unary("leaky_relu", "LeakyRelu", kinds=FLOATING, attrs=("negative_slope",), check=_real_attrs("negative_slope"))


def _check_hardtanh_all(attrs, dtype):
    _real_attrs("min_val", "max_val")(attrs, dtype)
    _check_hardtanh(attrs, dtype)
    if dtype.kind == "u" and int(attrs["min_val"]) < 0:
        raise RuntimeError("hardtanh(): cannot do hardtanh on an unsigned type with negative limits")


unary("hardtanh", "Hardtanh", kinds=REAL_NO_BOOL, attrs=("min_val", "max_val"), check=_check_hardtanh_all)

for _name in ("floor", "ceil", "trunc"):
    unary(_name, _name.capitalize(), kinds=REAL_NO_BOOL)


def _check_round(attrs, dtype):
    if attrs["decimals"] != 0 and not dtype.is_floating_point:
        raise TypeError(f"round(): decimals={attrs['decimals']} needs a floating-point input, got {dtype}")


unary("round", "Round", kinds=REAL_NO_BOOL, attrs=("decimals",), check=_check_round)
unary("frac", "Frac", kinds=FLOATING)
for _name in ("isnan", "isinf", "isfinite"):
    unary(_name, _name.capitalize(), kinds=ALL, result=_to_bool)
unary("signbit", "Signbit", kinds=REAL, result=_to_bool)
unary("logical_not", "LogicalNot", kinds=ALL, result=_to_bool)
unary("bitwise_not", "BitwiseNot", kinds=BITS)
unary("angle", "Angle", kinds=ALL, result=_to_real_float)
unary("conj_physical", "ConjPhysical", kinds=ALL)
unary("nan_to_num", "NanToNum", kinds=ALL, attrs=("nan", "posinf", "neginf"))


def _conj(input):
    if not input._dtype.is_complex:
        return input
    return dispatch(UNARY_OPS["conj_physical"], (input,))[0]


FUNCTORS["Conj"] = _conj


def _positive(input):
    if input._dtype is _dt.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


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


FUNCTORS["Real"] = _real
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


_add, _add_scalar = binary("add", "Add", functors=False)
_sub, _sub_scalar = binary("sub", "Sub", check=_check_sub, functors=False)
_add_alpha = OpExpr("add_alpha", ("input", "other"), ("out",))  # input + alpha * other


@_add_alpha.shape_rule
def _infer_add_alpha(attrs, a, b):
    dtype = _dt.promote_types(a._dtype, b._dtype)
    _check_pair("add", a._dtype, b._dtype, dtype, ALL)
    _check_alpha(attrs, dtype)
    return ((broadcast_pair(a._shape, b._shape), dtype),)


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


FUNCTORS["Div"] = _div
FUNCTORS["DivScalar"] = _div_scalar

binary("remainder", "Remainder", kinds=REAL, check=_check_rounded("remainder"))
binary("fmod", "Fmod", kinds=REAL, check=_check_rounded("fmod"))
_pow = binary("pow", "Pow", kinds=ALL, check=_check_pow_tensor)


def _pow_scalar_base(input, exponent, out=None):
    """``pow(2, t)``: the scalar base is weak, as in ``2 ** t``."""
    from .._core.tensor import tensor

    base = tensor(input, dtype=_dt.result_type(exponent._dtype, input), device=exponent.device)
    return dispatch(_pow[0], (base, exponent), NO_ATTRS, None if out is None else (out,))[0]


FUNCTORS["PowScalarBase"] = _pow_scalar_base

for _name in ("maximum", "minimum", "fmax", "fmin"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=REAL)
binary("atan2", "Atan2", kinds=REAL, result=to_float)
binary("copysign", "Copysign", kinds=REAL, result=to_float)
binary("hypot", "Hypot", kinds=FLOATING)
binary("logaddexp", "Logaddexp", kinds=INEXACT)
binary("nextafter", "Nextafter", kinds=FLOATING)

for _name in ("eq", "ne"):
    binary(_name, _name.capitalize(), kinds=ALL, result=_to_bool)
for _name in ("lt", "le", "gt", "ge"):
    binary(_name, _name.capitalize(), kinds=REAL, result=_to_bool)
for _name in ("logical_and", "logical_or", "logical_xor"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=ALL, result=_to_bool)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    binary(_name, "".join(p.capitalize() for p in _name.split("_")), kinds=BITS)
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


FUNCTORS["Isclose"] = _isclose
FUNCTORS["Allclose"] = _allclose
FUNCTORS["Equal"] = _equal
