"""Scans beside cumsum: ``cummax`` / ``cummin`` (values and where they came from),
``logcumsumexp``, and the finite difference ``diff``.

>>> import ember
>>> ember.tensor([1, 3, 2, 5]).cummax(0).values.tolist()
[1, 3, 3, 5]
>>> ember.diff(ember.tensor([1, 4, 9, 16])).tolist()
[3, 5, 7]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import named_tuple, run, torch_name

declare = schema_family("reduction")

CummaxResult = named_tuple("cummax", ("values", "indices"))
CumminResult = named_tuple("cummin", ("values", "indices"))


def _scan_dim(op: str, x: Tensor, dim: int) -> int:
    return wrap_dim(dim, x.ndim, op) if x.ndim else (wrap_dim(dim, 0, op), 0)[1]


# --- cummax, cummin --------------------------------------------------------------------------


def _running_extremum(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("values", "indices"))

    @op.shape_rule
    def infer(attrs, x):
        if x._dtype.is_complex or x._dtype is _dt.string:
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{torch_name(x._dtype)}'")
        return ((x._shape, x._dtype), (x._shape, _dt.int64))

    @op.grad_rule(saves=("indices",))
    def grad(ctx, g, indices_grad=None):
        (_, indices) = ctx.outputs
        shape, dtype = ctx.input_meta[0]
        if not (dtype.is_floating_point or dtype.is_complex):
            return (None,)
        if not shape:
            return (g,)
        return (_F().zeros(shape, dtype=dtype).scatter_add(ctx.attrs["dim"], indices, g),)

    return op


def _running(op: OpExpr, name: str, result):
    def run_running(input, dim):
        values, indices = dispatch(op, (input,), {"dim": _scan_dim(name, input, dim)})
        return result(values, indices)

    return run_running


CUMMAX = _running_extremum("cummax")
CUMMIN = _running_extremum("cummin")

declare(
    "cummax",
    "(Tensor values, Tensor indices) (Tensor input, Int dim) => Cummax",
    method=True,
    doc="""
    The running maximum along ``dim`` and the index it was found at (the latest among equals);
    NaN, once seen, stays.

    >>> ember.tensor([1.0, 3.0, 3.0, 2.0]).cummax(0).indices.tolist()
    [0, 1, 2, 2]
    """,
)
functor("Cummax")(_running(CUMMAX, "cummax", CummaxResult))

declare(
    "cummin",
    "(Tensor values, Tensor indices) (Tensor input, Int dim) => Cummin",
    method=True,
    doc="""
    The running minimum along ``dim`` and the index it was found at (the latest among equals).

    >>> ember.tensor([3, 1, 1, 2]).cummin(0).values.tolist()
    [3, 1, 1, 1]
    """,
)
functor("Cummin")(_running(CUMMIN, "cummin", CumminResult))


# --- logcumsumexp ----------------------------------------------------------------------------

LOGCUMSUMEXP = OpExpr("logcumsumexp", ("input",), ("out",))


@LOGCUMSUMEXP.shape_rule
def _infer_logcumsumexp(attrs, x):
    if not (x._dtype.is_floating_point or x._dtype.is_complex):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for '{torch_name(x._dtype)}'")
    if x._dtype.is_complex:
        raise NotImplementedError("logcumsumexp(): complex input is not supported by ember")
    return ((x._shape, x._dtype),)


declare(
    "logcumsumexp",
    "Tensor (Tensor input, Int dim) => Logcumsumexp",
    method=True, out=True,
    doc="""
    log(cumsum(exp(input))) along ``dim``, computed stably (no overflow for large inputs).

    >>> ember.tensor([1000.0, 1000.0], dtype=ember.float64).logcumsumexp(0).tolist()
    [1000.0, 1000.6931471805599]
    """,
)
@functor("Logcumsumexp")
def logcumsumexp(input, dim, out=None):
    return run(LOGCUMSUMEXP, input, {"dim": _scan_dim("logcumsumexp", input, dim)}, out)


def _reverse_logcumsumexp(y, d: int):
    return y.flip((d,)).logcumsumexp(d).flip((d,))


@LOGCUMSUMEXP.grad_rule(saves="both")
def _logcumsumexp_grad(ctx, g):
    # d out_i / d x_j = exp(x_j - out_i) for i >= j; summed in log space, positive and negative
    # parts of g apart, so neither exp overflows
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    if x.ndim == 0:
        return (g,)
    F = _F()
    d = ctx.attrs["dim"]
    pos = _reverse_logcumsumexp(F.log(F.relu(g)) - out, d)
    neg = _reverse_logcumsumexp(F.log(F.relu(-g)) - out, d)
    return (F.exp(pos + x) - F.exp(neg + x),)


# --- diff ------------------------------------------------------------------------------------

declare(
    "diff",
    "Tensor (Tensor input, Int n=1, Int dim=-1, Tensor? prepend=None, Tensor? append=None) => Diff",
    method=True, out=True, composite=True,
    doc="""
    The n-th forward difference along ``dim`` (``prepend`` / ``append`` joined on first); bool
    input gives "differs from its neighbour".

    >>> ember.tensor([[1, 2, 4], [0, 5, 5]]).diff(dim=1).tolist()
    [[1, 2], [5, 0]]
    """,
)
@functor("Diff")
def diff(input, n=1, dim=-1, prepend=None, append=None, out=None):
    F = _F()
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim, "diff")
    parts = []
    for extra in (prepend, append):
        if extra is not None and extra.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    if n == 0:  # torch returns a copy of the input, prepend and append unused
        return F.clone(input) if out is None else F.cat([input], d, out=out)
    x = input
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, input, append) if t is not None]
        x = F.cat(parts, d)
    steps = min(n, x._shape[d])  # past the length, the result stays empty
    if steps == 0:
        return F.clone(x) if out is None else F.cat([x], d, out=out)
    for step in range(steps):
        size = x._shape[d]
        after, before = x.narrow(d, 1, size - 1), x.narrow(d, 0, size - 1)
        into = out if step == steps - 1 else None  # the last difference writes into out
        x = F.logical_xor(after, before, out=into) if x._dtype is _dt.bool_ else F.sub(after, before, out=into)
    return x
