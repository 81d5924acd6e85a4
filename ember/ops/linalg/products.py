"""Products: ``matmul`` (and ``mm``, ``bmm``, ``mv``, ``dot`` on the same primitive), ``vdot``,
``outer``, ``linalg.vecdot`` and ``linalg.cross``.

``matmul`` follows ``torch.matmul`` exactly (1-D operands are promoted and the added dimension
removed, batch dimensions broadcast) and its kernel is a single ``np.matmul(a, b, out=...)``
(BLAS for floats). ``mm``, ``bmm``, ``mv`` and ``dot`` check their stricter shapes and reuse
the same primitive.

>>> import ember
>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> (a @ a).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

from __future__ import annotations

import math
import warnings

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ...dispatch import NO_ATTRS, OpExpr, dispatch
from .. import sbp_rules
from ..common import broadcast_pair, sum_to
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family
from ._common import adjoint, cast, check_float, fmt_shape, linalg_functions, run

declare = schema_family("linalg")


def _same_dtype_for_mm(a, b) -> _dt.DType:
    if a._dtype is not b._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {a._dtype.name} != {b._dtype.name}")
    dtype = a._dtype
    if dtype is _dt.bool_ or dtype is _dt.string:
        raise RuntimeError(f"matmul: not implemented for '{torch_name(dtype)}'")
    return dtype


# --- matmul: one primitive for matmul, mm, bmm, mv, dot ------------------------------------


def matmul_shape(sa: tuple, sb: tuple) -> tuple:
    """The shape of ``torch.matmul`` for operand shapes ``sa`` and ``sb``, with its errors."""
    na, nb = len(sa), len(sb)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {na}D and {nb}D")
    if na == 1 and nb == 1:
        if sa[0] != sb[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{sa[0]}] and src [{sb[0]}] to have the same number of "
                f"elements, but got {sa[0]} and {sb[0]} elements respectively"
            )
        return ()
    if na == 2 and nb == 1:
        if sa[1] != sb[0]:
            raise RuntimeError(f"size mismatch, got input ({sa[0]}), mat ({fmt_shape(sa)}), vec ({sb[0]})")
        return (sa[0],)
    if na == 1 and nb == 2:
        if sa[0] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{sa[0]} and {fmt_shape(sb)})")
        return (sb[1],)
    if na == 2 and nb == 2:
        if sa[1] != sb[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({fmt_shape(sa)} and {fmt_shape(sb)})")
        return (sa[0], sb[1])
    if nb <= 2:  # a batch of matrices times a matrix or a vector: folded into one mm / mv, as PyTorch
        rows, k = math.prod(sa[:-1]), sa[-1]
        if sb[0] != k:
            if nb == 2:
                raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {fmt_shape(sb)})")
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{k}), vec ({sb[0]})")
        return sa[:-1] + ((sb[1],) if nb == 2 else ())
    # batched: a 1-D first operand gains a row that the result loses; batch dims broadcast
    ma = (1, sa[0]) if na == 1 else sa
    batch = broadcast_pair(ma[:-2], sb[:-2])
    if sb[-2] != ma[-1]:
        b = math.prod(batch)
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {ma[-1]}] but got: [{b}, {sb[-2]}]."
        )
    return batch + ((ma[-2],) if na > 1 else ()) + (sb[-1],)


MATMUL = OpExpr("matmul", ("input", "other"), ("out",)).tag(row_wise="rows", sbp=sbp_rules.matmul)


@MATMUL.shape_rule
def _matmul_infer(attrs, a, b):
    dtype = _same_dtype_for_mm(a, b)
    return ((matmul_shape(a._shape, b._shape), dtype),)


def _matmul(a, b, out=None):
    if out is None:
        return dispatch(MATMUL, (a, b))[0]
    return dispatch(MATMUL, (a, b), NO_ATTRS, (out,))[0]


declare(
    "matmul",
    "Tensor (Tensor input, Tensor other) => Matmul",
    method=True, out=True, operators=("__matmul__", "__rmatmul__"),
    doc="""
    Matrix product with torch.matmul's rules: 1-D operands are promoted to matrices (and
    the added dimension removed), batch dimensions broadcast.

    >>> (ember.ones((2, 3)) @ ember.ones(3)).tolist()
    [3.0, 3.0]
    """,
    tf="MatMul",
)
declare(
    "linalg.matmul",
    "Tensor (Tensor input, Tensor other) => Matmul",
    out=True, op="matmul",
    doc="Same as :func:`ember.matmul`.",
)
@functor("Matmul")
def matmul(input, other, out=None):
    return _matmul(input, other, out)


@MATMUL.grad_rule()
def _matmul_grad(ctx, g):
    a, b = ctx.inputs
    sa, sb = a._shape, b._shape
    if len(sa) == 1 and len(sb) == 1:
        return g * b.conj(), g * a.conj()
    a2 = a.unsqueeze(0) if len(sa) == 1 else a
    b2 = b.unsqueeze(-1) if len(sb) == 1 else b
    g2 = g.unsqueeze(-2) if len(sa) == 1 else (g.unsqueeze(-1) if len(sb) == 1 else g)
    ga = sum_to(g2 @ adjoint(b2), a2._shape).reshape(sa)
    gb = sum_to(adjoint(a2) @ g2, b2._shape).reshape(sb)
    return ga, gb


declare(
    "mm",
    "Tensor (Tensor input, Tensor mat2) => Mm",
    method=True, out=True, op="matmul",
    doc="""
    The product of two matrices (2-D only; see :func:`matmul`).

    >>> ember.mm(ember.ones((2, 3)), ember.ones((3, 1))).tolist()
    [[3.0], [3.0]]
    """,
)
@functor("Mm")
def mm(input, mat2, out=None):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _matmul(input, mat2, out)


declare(
    "bmm",
    "Tensor (Tensor input, Tensor mat2) => Bmm",
    method=True, out=True, op="matmul",
    doc="Batched matrix product of two 3-D tensors with the same batch size.",
)
@functor("Bmm")
def bmm(input, mat2, out=None):
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    b, _, k = input._shape
    if mat2._shape[:2] != (b, k):
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] but got: [{mat2._shape[0]}, {mat2._shape[1]}]."
        )
    return _matmul(input, mat2, out)


declare(
    "mv",
    "Tensor (Tensor input, Tensor vec) => Mv",
    method=True, out=True, op="matmul",
    doc="Matrix-vector product (a 2-D and a 1-D tensor).",
)
@functor("Mv")
def mv(input, vec, out=None):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    return _matmul(input, vec, out)


declare(
    "dot",
    "Tensor (Tensor input, Tensor tensor) => Dot",  # (PyTorch names the second one tensor)
    method=True, out=True, op="matmul",
    doc="""
    The dot product of two 1-D tensors of the same dtype (no conjugation).

    >>> ember.dot(ember.tensor([1, 2]), ember.tensor([3, 4])).item()
    11
    """,
)
@functor("Dot")
def dot(input, other, out=None):
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input._dtype is not other._dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {torch_name(input._dtype)} and {torch_name(other._dtype)}"
        )
    return _matmul(input, other, out)


# --- vdot, outer ---------------------------------------------------------------------------


VDOT = OpExpr("vdot", ("input", "other"), ("out",))


@VDOT.shape_rule
def _vdot_infer(attrs, a, b):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"vdot : expected both vectors to have same dtype, but found {torch_name(a._dtype)} and {torch_name(b._dtype)}"
        )
    matmul_shape(a._shape, b._shape)
    _same_dtype_for_mm(a, b)
    return (((), a._dtype),)


declare(
    "vdot",
    "Tensor (Tensor input, Tensor other) => Vdot",
    method=True, out=True,
    doc="The dot product of two 1-D tensors, conjugating the first.",
)
@functor("Vdot")
def vdot(input, other, out=None):
    return run(VDOT, (input, other), NO_ATTRS, out)


@VDOT.grad_rule()
def _vdot_grad(ctx, g):
    a, b = ctx.inputs
    return g.conj() * b, g * a


OUTER = OpExpr("outer", ("input", "vec2"), ("out",))


@OUTER.shape_rule
def _outer_infer(attrs, a, b):
    for name, t in (("self", a), ("vec2", b)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return (((a._shape[0], b._shape[0]), _dt.promote_types(a._dtype, b._dtype)),)


declare(
    "outer",
    "Tensor (Tensor input, Tensor vec2) => Outer",
    method=True, out=True, aliases=("ger",),
    doc="""
    The outer product of two 1-D tensors (with type promotion).

    >>> ember.outer(ember.tensor([1, 2]), ember.tensor([1, 10])).tolist()
    [[1, 10], [2, 20]]
    """,
)
declare("linalg.outer", "Tensor (Tensor input, Tensor vec2) => Outer", out=True, op="outer", doc="Same as :func:`ember.outer`.")
@functor("Outer")
def outer(input, vec2, out=None):
    return run(OUTER, (input, vec2), NO_ATTRS, out)


@OUTER.grad_rule()
def _outer_grad(ctx, g):
    a, b = ctx.inputs
    ga = (g * b.conj().unsqueeze(0)).sum(1)
    gb = (g * a.conj().unsqueeze(1)).sum(0)
    return cast(ga, a._dtype), cast(gb, b._dtype)


# --- linalg.vecdot, linalg.cross: along one dim, broadcasting the others ----------------------


VECDOT = OpExpr("linalg_vecdot", ("x", "y"), ("out",))


@VECDOT.shape_rule
def _vecdot_infer(attrs, x, y):
    check_float("linalg.vecdot", x, low_precision=True)
    if x._dtype is not y._dtype:
        raise RuntimeError(
            f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type {torch_name(x._dtype)} "
            f"and y of type {torch_name(y._dtype)} instead"
        )
    shape = broadcast_pair(x._shape, y._shape)  # dim broadcasts too: (conj(x) * y).sum(dim)
    if not shape:
        wrap_dim(attrs["dim"], 0)
        return (((), x._dtype),)
    d = wrap_dim(attrs["dim"], len(shape))
    return ((shape[:d] + shape[d + 1 :], x._dtype),)


declare(
    "vecdot",
    "Tensor (Tensor x, Tensor y, *, Int dim=-1) => LinalgVecdot",
    out=True, op="linalg_vecdot",
    doc="The dot product along ``dim`` (conjugating ``x``), broadcasting the other dims.",
)
declare(
    "linalg.vecdot",
    "Tensor (Tensor x, Tensor y, *, Int dim=-1) => LinalgVecdot",
    out=True, op="linalg_vecdot",
    doc="The dot product along ``dim`` (conjugating ``x``), broadcasting the other dims.",
)
@functor("LinalgVecdot")
def linalg_vecdot(x, y, dim=-1, out=None):
    return run(VECDOT, (x, y), {"dim": dim}, out)


@VECDOT.grad_rule()
def _vecdot_grad(ctx, g):
    x, y = ctx.inputs
    shape = broadcast_pair(x._shape, y._shape)
    if not shape:
        return g.conj() * y, g * x
    g = g.unsqueeze(wrap_dim(ctx.attrs["dim"], len(shape)))
    return sum_to(y * g.conj(), x._shape), sum_to(x * g, y._shape)


CROSS = OpExpr("linalg_cross", ("input", "other"), ("out",))


@CROSS.shape_rule
def _cross_infer(attrs, a, b):
    if a.ndim != b.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = broadcast_pair(a._shape, b._shape)
    d = attrs["dim"]
    if a._shape[d] != 3 or b._shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {attrs['user_dim']} must have length 3. Got {a._shape[d]} and {b._shape[d]}"
        )
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"linalg.cross: expected both inputs to have the same dtype, but got {a._dtype.name} and {b._dtype.name}"
        )
    if a._dtype is _dt.bool_:
        raise RuntimeError("linalg.cross: not implemented for 'Bool'")
    return ((shape, a._dtype),)


declare(
    "linalg.cross",
    "Tensor (Tensor input, Tensor other, *, Int dim=-1) => LinalgCross",
    out=True, op="linalg_cross",
    doc="""
    The cross product of 3-vectors along ``dim`` (broadcasting).

    >>> ember.linalg.cross(ember.tensor([1.0, 0.0, 0.0]), ember.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """,
)
@functor("LinalgCross")
def linalg_cross(input, other, dim=-1, out=None):
    d = wrap_dim(dim, max(input.ndim, other.ndim, 1))
    return run(CROSS, (input, other), {"dim": d, "user_dim": dim}, out)


declare(
    "cross",
    "Tensor (Tensor input, Tensor other, Int? dim=None) => Cross",
    method=True, out=True, op="linalg_cross",
    doc="""
    The cross product along ``dim``; without ``dim``, along the first dimension of size 3 (a
    deprecated default: :func:`ember.linalg.cross` takes the last).

    >>> ember.cross(ember.tensor([[1.0, 0.0, 0.0]]), ember.tensor([[0.0, 1.0, 0.0]]), dim=1).tolist()
    [[0.0, 0.0, 1.0]]
    """,
)
@functor("Cross")
def cross(input, other, dim=None, out=None):
    if dim is None:
        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim explicitly or "
            "simply use torch.linalg.cross.\nThe default value of dim will change to agree with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=3,
        )
        dim = next((i for i, n in enumerate(input._shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim, out)


@CROSS.grad_rule()
def _cross_grad(ctx, g):
    a, b = ctx.inputs
    LA = linalg_functions()
    d = ctx.attrs["dim"]
    return sum_to(LA.cross(b.conj(), g, dim=d), a._shape), sum_to(LA.cross(g, a.conj(), dim=d), b._shape)
