"""How an elementwise primitive is made: the ``unary`` and ``binary`` factories, and the
helpers every elementwise derivative is written with.

``unary`` makes a one-input primitive and its functors; ``binary`` a tensor-tensor primitive
and a tensor-scalar one (a Python scalar is weak in promotion and travels as an attribute, not
as a tensor). The inference rule checks the dtype (it is cached, so the check costs nothing on
a repeated call) and gives the result dtype: PyTorch's promotion of the inputs
(``result_type_of``: Python scalars and 0-d tensors weak next to dimensioned tensors), then
the op's own rule (``kinds.to_float`` for ``sqrt``, ``kinds.to_bool`` for comparisons).
Every primitive lands in ``UNARY_OPS`` or ``BINARY_OPS`` by name.

Derivatives are written with ember's ops (so they differentiate again): ``ctx.inputs`` and
``ctx.outputs`` are the saved tensors, ``ctx.input_meta`` their (shape, dtype). Complex inputs
follow PyTorch's convention (the gradient is the conjugate Wirtinger derivative): a holomorphic
``f`` gives ``g * conj(f'(z))``; ``cj`` is the identity on real tensors. ``reduce_grad`` sums a
gradient back over broadcast dims and casts it to its input's dtype.

>>> op = UNARY_OPS["exp"]  # made by ``unary("exp", "Exp", kinds=ALL, result=to_float)``
>>> op.name, op.inputs, op.derivative.saves
('exp', ('x',), 'outputs')
"""

from __future__ import annotations

from collections.abc import Callable

from ..._core import dtype as _dt
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from .. import sbp_rules
from ..common import broadcast_pair, functional as _F, sum_to, wants_grad
from ..functor import FUNCTORS
from .kinds import ALL, NUMERIC, check_kinds, check_pair, same

__all__ = [
    "BINARY_OPS", "UNARY_OPS", "binary", "binary_grad", "binary_scalar_grad", "cj", "cjs", "reduce_grad", "unary",
    "unary_grad", "zero_binary_grad", "zero_binary_scalar_grad", "zero_unary_grad", "zeros_grad",
]  # fmt: skip

UNARY_OPS: dict[str, OpExpr] = {}
BINARY_OPS: dict[str, tuple[OpExpr, OpExpr]] = {}


def unary(
    name: str,
    functor_name: str,
    *,
    kinds: tuple = NUMERIC,
    result: Callable = same,
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
    op = OpExpr(name, ("x",), ("y",)).tag(sbp=sbp_rules.elementwise, elementwise=True)
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


def _scalar_type(attrs: dict) -> type:
    return type(attrs["other"])


def binary(
    name: str,
    functor_name: str,
    *,
    kinds: tuple = ALL,
    result: Callable = same,
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
    op = OpExpr(name, ("input", "other"), ("out",)).tag(sbp=sbp_rules.elementwise, elementwise=True)
    scalar_op = OpExpr(name + "_scalar", ("input",), ("out",)).tag(sbp=sbp_rules.elementwise, elementwise=True)
    if check is None:
        scalar_op.attr_key = _scalar_type  # a weak scalar promotes by its type, never its value
    public = public or name

    @op.shape_rule
    def infer(attrs, a, b):
        dtype = _dt.result_type_of((a, b), op=public)
        check_pair(public, a._dtype, b._dtype, dtype, kinds)
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


# ---------------------------------------------------------------------------------------
# derivatives


def cj(t):
    """The conjugate of a complex tensor; a real one as it is."""
    return t.conj() if t._dtype.is_complex else t


def cjs(v):
    """A Python scalar's conjugate (complex weights, alphas)."""
    return v.conjugate() if isinstance(v, complex) else v


def reduce_grad(g, ctx, i):
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


def zeros_grad(ctx, i):
    """A zero gradient for input ``i`` (None for an integer input, which takes none)."""
    shape, dtype = ctx.input_meta[i]
    if not (dtype.is_floating_point or dtype.is_complex):
        return None
    return _F().zeros(shape, dtype=dtype)


def zero_unary_grad(ctx, g):
    """The derivative of a function that is constant almost everywhere (PyTorch returns zeros)."""
    return (zeros_grad(ctx, 0),)


def zero_binary_grad(ctx, g):
    """Zero gradients for both inputs of a tensor-tensor primitive constant almost everywhere."""
    return zeros_grad(ctx, 0), zeros_grad(ctx, 1)


def zero_binary_scalar_grad(ctx, g):
    """A zero gradient for the tensor input of a tensor-scalar primitive constant almost everywhere."""
    return (zeros_grad(ctx, 0),)


def unary_grad(op_name: str, saves: str = "inputs"):
    """Register ``fn(ctx, g) -> grad`` (one tensor) as the derivative of a unary primitive."""

    def register(fn):
        def derivative(ctx, g):
            return (reduce_grad(fn(ctx, g), ctx, 0),)

        derivative.__name__ = derivative.__qualname__ = fn.__name__
        UNARY_OPS[op_name].grad_rule(saves=saves)(derivative)
        return fn

    return register


def binary_grad(name: str, saves: str = "inputs"):
    """Register ``fn(ctx, g, want_a, want_b) -> (grad_a, grad_b)`` for a tensor-tensor primitive."""

    def register(fn):
        def derivative(ctx, g):
            ga, gb = fn(ctx, g, wants_grad(ctx, 0), wants_grad(ctx, 1))
            return reduce_grad(ga, ctx, 0), reduce_grad(gb, ctx, 1)

        derivative.__name__ = derivative.__qualname__ = fn.__name__
        BINARY_OPS[name][0].grad_rule(saves=saves)(derivative)
        return fn

    return register


def binary_scalar_grad(name: str, saves: str = "inputs"):
    """Register ``fn(ctx, g) -> grad`` for the tensor-scalar primitive ``name_scalar``."""

    def register(fn):
        def derivative(ctx, g):
            return (reduce_grad(fn(ctx, g), ctx, 0),)

        derivative.__name__ = derivative.__qualname__ = fn.__name__
        BINARY_OPS[name][1].grad_rule(saves=saves)(derivative)
        return fn

    return register
