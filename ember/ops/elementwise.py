"""Elementwise ops: functors, inference rules (and, with autograd, derivatives) side by side.

Each op is a primitive ``OpExpr`` made by a small factory: ``unary`` for one input, ``binary``
for two (a tensor-tensor primitive and a tensor-scalar one, since a Python scalar is weak in
promotion and travels as an attribute, not as a tensor). Kernels are in
``ember/kernels/cpu/elementwise.py``.

>>> import ember
>>> ember.relu(ember.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Callable

from .._core import dtype as _dt
from ..dispatch import NO_ATTRS, OpExpr, dispatch
from .common import broadcast_pair, check_dtype
from .functor import FUNCTORS

__all__ = ["BINARY_OPS", "UNARY_OPS", "binary", "unary"]

UNARY_OPS: dict[str, OpExpr] = {}
BINARY_OPS: dict[str, tuple[OpExpr, OpExpr]] = {}


def _same(dtype: _dt.DType) -> _dt.DType:
    return dtype


def unary(name: str, functor_name: str, *, kinds="numeric", result: Callable = _same) -> OpExpr:
    """A one-input primitive and its functor ``fn(x, inplace)`` / ``fn(x, out)``.

    ``kinds``: the dtypes accepted (an array-API kind or a tuple of them); ``result``: the
    output dtype from the input dtype (e.g. ints -> default float for ``exp``).
    """
    op = OpExpr(name, ("x",), ("y",))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name, "input", x._dtype, kinds)
        return ((x._shape, result(x._dtype)),)

    def run(x, out=None):
        if out is None:
            return dispatch(op, (x,))[0]
        return dispatch(op, (x,), NO_ATTRS, (out,))[0]

    def run_inplace(x, inplace):
        if inplace:
            return dispatch(op, (x,), NO_ATTRS, (x,))[0]
        return dispatch(op, (x,))[0]

    run.__name__ = run.__qualname__ = functor_name
    run_inplace.__name__ = run_inplace.__qualname__ = functor_name
    FUNCTORS[functor_name] = run
    FUNCTORS[functor_name + "Inplace"] = run_inplace
    UNARY_OPS[name] = op
    return op


def to_float(dtype: _dt.DType) -> _dt.DType:
    """Integers and bool compute in the default float dtype (PyTorch's rule for exp, sqrt...)."""
    return dtype if dtype.is_floating_point or dtype.is_complex else _dt.get_default_dtype()


def binary(name: str, functor_name: str, *, kinds="numeric", result: Callable | None = None) -> tuple[OpExpr, OpExpr]:
    """A tensor-tensor primitive ``name`` and a tensor-scalar one ``name_scalar``, with their
    functors ``Name(input, other, out)`` and ``NameScalar(input, other, out)``.

    ``result(promoted_dtype)``: the output dtype from the promoted input dtype (bool for
    comparisons); ``kinds``: the promoted dtypes accepted.
    """
    op = OpExpr(name, ("input", "other"), ("out",))
    scalar_op = OpExpr(name + "_scalar", ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, a, b):
        dtype = _dt.promote_types(a._dtype, b._dtype)
        check_dtype(name, "input", dtype, kinds)
        return ((broadcast_pair(a._shape, b._shape), result(dtype) if result else dtype),)

    @scalar_op.shape_rule
    def infer_scalar(attrs, a):
        dtype = _dt.result_type(a._dtype, attrs["other"])
        check_dtype(name, "input", dtype, kinds)
        return ((a._shape, result(dtype) if result else dtype),)

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


# --- unary -------------------------------------------------------------------------

unary("neg", "Neg", kinds=("numeric",))
unary("relu", "Relu", kinds=("integral", "real floating"))
unary("exp", "Exp", kinds=("numeric",), result=to_float)

# --- binary ------------------------------------------------------------------------

binary("add", "Add")
binary("sub", "Sub")
binary("mul", "Mul")
binary("eq", "Eq", kinds=("bool", "numeric"), result=lambda d: _dt.bool_)
