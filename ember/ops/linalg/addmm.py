"""The BLAS-style updates ``beta * input + alpha * product``: ``addmm`` (matrix-matrix),
``addmv`` (matrix-vector), ``addr`` (outer product), ``baddbmm`` (batched) and ``addbmm``
(batched, summed over the batch), each with its Tensor method, in-place form and ``out=``.

One primitive per op, built by one factory: the shape rule checks the product's operands
with PyTorch's messages and that ``input`` expands to the product's shape; the kernel skips
``input`` when ``beta`` is 0 and the product when ``alpha`` is 0, so a NaN there does not
reach the result (PyTorch's rule).

>>> import ember
>>> ember.addmm(ember.ones(2), ember.eye(2), ember.tensor([[1.0, 2.0], [3.0, 4.0]]), beta=10).tolist()
[[11.0, 12.0], [13.0, 14.0]]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import sum_to
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family
from ._common import adjoint, cast, fmt_shape

declare = schema_family("linalg")


def _check_expand(shape: tuple, target: tuple) -> None:
    """``input`` must expand to the product's shape (PyTorch's expand messages)."""
    if len(shape) > len(target):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(shape)}}}, size={list(target)}): the number of sizes provided ({len(target)}) "
            f"must be greater or equal to the number of dimensions in the tensor ({len(shape)})"
        )
    lead = len(target) - len(shape)
    for i, n in enumerate(shape):
        if n != 1 and n != target[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[lead + i]}) must match the existing size ({n}) at non-singleton "
                f"dimension {lead + i}.  Target sizes: {list(target)}.  Tensor sizes: {list(shape)}"
            )


def _check_dims(op: str, t, ndim: int, name: str) -> None:
    if t.ndim != ndim:
        raise RuntimeError(f"{op}: {name} must be a {ndim}D tensor, got {t.ndim}-D tensor" if ndim != 2 else f"{name} must be a matrix, got {t.ndim}-D tensor")


def _check_numeric(op: str, dtype: _dt.DType, *, bool_ok: bool = False) -> None:
    if dtype is _dt.string or (dtype is _dt.bool_ and not bool_ok):
        raise RuntimeError(f"{op}: not implemented for '{torch_name(dtype)}'")


def _mm_shape(a, b) -> tuple:
    _check_dims("addmm", a, 2, "mat1")
    _check_dims("addmm", b, 2, "mat2")
    if a._shape[1] != b._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({fmt_shape(a._shape)} and {fmt_shape(b._shape)})")
    if a._dtype is not b._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {torch_name(a._dtype)} and {torch_name(b._dtype)}")
    return (a._shape[0], b._shape[1])


def _same_as_mat2(inp, b) -> None:
    if inp._dtype is not b._dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {torch_name(inp._dtype)} and {torch_name(b._dtype)}")


def _addmm_shape(inp, a, b):
    shape = _mm_shape(a, b)
    _same_as_mat2(inp, b)
    _check_numeric("addmm", b._dtype)
    return shape, b._dtype


def _addmv_shape(inp, mat, vec):
    if inp.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {inp.ndim}, {mat.ndim}, {vec.ndim}")
    if mat._shape[1] != vec._shape[0] or (inp.ndim == 1 and inp._shape[0] not in (1, mat._shape[0])):
        got = inp._shape[0] if inp.ndim == 1 else 1
        raise RuntimeError(f"size mismatch, got input ({got}), mat ({fmt_shape(mat._shape)}), vec ({vec._shape[0]})")
    if not inp._dtype is mat._dtype is vec._dtype:
        names = ", ".join(torch_name(t._dtype) for t in (inp, mat))
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {names}, and {torch_name(vec._dtype)}")
    _check_numeric("addmv", mat._dtype)
    return (mat._shape[0],), mat._dtype


def _addr_shape(inp, v1, v2):
    for name, v in (("vec1", v1), ("vec2", v2)):
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")
    dtype = _dt.promote_types(_dt.promote_types(inp._dtype, v1._dtype), v2._dtype)
    _check_numeric("addr", dtype, bool_ok=True)
    return (v1._shape[0], v2._shape[0]), dtype


def _batches(op: str, b1, b2) -> None:
    _check_dims(op, b1, 3, "batch1")
    _check_dims(op, b2, 3, "batch2")
    if b1._shape[0] != b2._shape[0] and op == "addbmm":
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b1._shape[0]} and {b2._shape[0]}")
    if b2._shape[:2] != (b1._shape[0], b1._shape[2]):
        if op == "addbmm":
            raise RuntimeError(
                f"Incompatible matrix sizes for bmm ({fmt_shape(b1._shape[1:])} and {fmt_shape(b2._shape[1:])})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{b1._shape[0]}, {b1._shape[2]}] but got: "
            f"[{b2._shape[0]}, {b2._shape[1]}]."
        )


def _baddbmm_shape(inp, b1, b2):
    _batches("baddbmm", b1, b2)
    if not inp._dtype is b1._dtype is b2._dtype:
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {torch_name(inp._dtype).lower()}, batch1: "
            f"{torch_name(b1._dtype).lower()}, batch2: {torch_name(b2._dtype).lower()}"
        )
    _check_numeric("baddbmm", b1._dtype)
    return (b1._shape[0], b1._shape[1], b2._shape[2]), b1._dtype


def _addbmm_shape(inp, b1, b2):
    _batches("addbmm", b1, b2)
    if b1._dtype is not b2._dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {torch_name(b1._dtype)} and {torch_name(b2._dtype)}")
    _same_as_mat2(inp, b2)
    _check_numeric("addbmm", b1._dtype)
    return (b1._shape[1], b2._shape[2]), b1._dtype


def _check_scalars(op: str, dtype: _dt.DType, beta, alpha) -> None:
    for value in (beta, alpha):
        if isinstance(value, complex) and not dtype.is_complex:
            raise RuntimeError(f"{op}: value cannot be converted to type {torch_name(dtype).lower()} without overflow")


def _update_op(name: str, inputs: tuple, shape_fn) -> OpExpr:
    """The primitive ``beta * input + alpha * product(a, b)``; ``shape_fn`` checks and gives the product's shape and dtype."""
    op = OpExpr(name, inputs, ("out",))

    @op.shape_rule
    def infer(attrs, inp, a, b):
        shape, dtype = shape_fn(inp, a, b)
        _check_expand(inp._shape, shape)
        _check_scalars(name, dtype, attrs["beta"], attrs["alpha"])
        return ((shape, dtype),)

    return op


ADDMM = _update_op("addmm", ("input", "mat1", "mat2"), _addmm_shape)
ADDMV = _update_op("addmv", ("input", "mat", "vec"), _addmv_shape)
ADDR = _update_op("addr", ("input", "vec1", "vec2"), _addr_shape)
BADDBMM = _update_op("baddbmm", ("input", "batch1", "batch2"), _baddbmm_shape)
ADDBMM = _update_op("addbmm", ("input", "batch1", "batch2"), _addbmm_shape)


def _run(op: OpExpr, inp, a, b, beta, alpha, out):
    attrs = {"beta": beta, "alpha": alpha}
    if out is None:
        return dispatch(op, (inp, a, b), attrs)[0]
    return dispatch(op, (inp, a, b), attrs, (out,))[0]


declare(
    "addmm",
    "Tensor (Tensor input, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) => Addmm",
    method=True, inplace="addmm_", out=True,
    doc="""
    ``beta * input + alpha * (mat1 @ mat2)``; ``input`` broadcasts to the product's shape and is
    ignored (NaN included) when ``beta`` is 0.

    >>> ember.addmm(ember.zeros(2), ember.eye(2), ember.ones((2, 2)), alpha=3).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """,
)
@functor("Addmm")
def addmm(input, mat1, mat2, beta=1, alpha=1, out=None):
    return _run(ADDMM, input, mat1, mat2, beta, alpha, out)


declare(
    "addmv",
    "Tensor (Tensor input, Tensor mat, Tensor vec, *, Scalar beta=1, Scalar alpha=1) => Addmv",
    method=True, inplace="addmv_", out=True,
    doc="""
    ``beta * input + alpha * (mat @ vec)`` for a matrix and a vector.

    >>> ember.addmv(ember.ones(2), ember.eye(2), ember.tensor([2.0, 3.0])).tolist()
    [3.0, 4.0]
    """,
)
@functor("Addmv")
def addmv(input, mat, vec, beta=1, alpha=1, out=None):
    return _run(ADDMV, input, mat, vec, beta, alpha, out)


declare(
    "addr",
    "Tensor (Tensor input, Tensor vec1, Tensor vec2, *, Scalar beta=1, Scalar alpha=1) => Addr",
    method=True, inplace="addr_", out=True,
    doc="""
    ``beta * input + alpha * outer(vec1, vec2)`` (with type promotion).

    >>> ember.addr(ember.zeros((2, 2)), ember.tensor([1.0, 2.0]), ember.tensor([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
    """,
)
@functor("Addr")
def addr(input, vec1, vec2, beta=1, alpha=1, out=None):
    return _run(ADDR, input, vec1, vec2, beta, alpha, out)


declare(
    "baddbmm",
    "Tensor (Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) => Baddbmm",
    method=True, inplace="baddbmm_", out=True,
    doc="""
    ``beta * input + alpha * bmm(batch1, batch2)``, one product per batch element.

    >>> ember.baddbmm(ember.zeros(1), ember.ones((2, 1, 3)), ember.ones((2, 3, 1))).tolist()
    [[[3.0]], [[3.0]]]
    """,
)
@functor("Baddbmm")
def baddbmm(input, batch1, batch2, beta=1, alpha=1, out=None):
    return _run(BADDBMM, input, batch1, batch2, beta, alpha, out)


declare(
    "addbmm",
    "Tensor (Tensor input, Tensor batch1, Tensor batch2, *, Scalar beta=1, Scalar alpha=1) => Addbmm",
    method=True, inplace="addbmm_", out=True,
    doc="""
    ``beta * input + alpha * sum_b batch1[b] @ batch2[b]``: the batch's products summed.

    >>> ember.addbmm(ember.zeros(1), ember.ones((2, 1, 3)), ember.ones((2, 3, 1))).tolist()
    [[6.0]]
    """,
)
@functor("Addbmm")
def addbmm(input, batch1, batch2, beta=1, alpha=1, out=None):
    return _run(ADDBMM, input, batch1, batch2, beta, alpha, out)


# --- derivatives: input's is g * conj(beta) summed to its shape; the product's as matmul's, times conj(alpha)


def _scaled(g, value):
    if value == 1:
        return g
    return g * (value.conjugate() if isinstance(value, complex) else value)


def _update_grad(op: OpExpr, product_grad) -> None:
    @op.grad_rule(saves="inputs")
    def grad(ctx, g):
        inp, a, b = ctx.inputs
        beta, alpha = ctx.attrs["beta"], ctx.attrs["alpha"]
        g_inp = sum_to(_scaled(g, beta), inp._shape)
        ga, gb = product_grad(_scaled(g, alpha), a, b)
        return g_inp, ga, gb


_update_grad(ADDMM, lambda g, a, b: (g @ adjoint(b), adjoint(a) @ g))
_update_grad(BADDBMM, lambda g, a, b: (g @ adjoint(b), adjoint(a) @ g))
_update_grad(ADDMV, lambda g, a, b: (g.unsqueeze(-1) * b.conj(), adjoint(a) @ g))
_update_grad(ADDR, lambda g, a, b: (cast(g @ cast(b.conj(), g._dtype), a._dtype), cast(cast(a.conj(), g._dtype) @ g, b._dtype)))
_update_grad(ADDBMM, lambda g, a, b: (g.unsqueeze(0) @ adjoint(b), adjoint(a) @ g.unsqueeze(0)))
