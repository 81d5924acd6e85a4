"""Statistics over dims: ``var`` and ``std`` (with PyTorch's ``correction``/``unbiased``) and the
stable ``logsumexp``.

>>> import ember
>>> x = ember.tensor([1.0, 2.0, 3.0, 4.0], dtype=ember.float64)
>>> x.var(correction=0).item(), x.std(correction=0).item() == 1.25 ** 0.5
(1.25, True)
"""

from __future__ import annotations

from ..._core import dtype as _dt
from .. import sbp_rules
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import NUMERIC, count, float_input, reduce_dims, reduction_op, run, unreduce

declare = schema_family("reduction")


# --- var, std --------------------------------------------------------------------------------


def _var_result(dtype, requested):
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return dtype.to_real() if dtype.is_complex else dtype


def _correction(op: str, unbiased, correction) -> float:
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either 'unbiased' or 'correction', not both")
    if correction is None:
        return 0.0 if unbiased is False else 1.0
    if isinstance(correction, (bool, complex)):
        raise TypeError(f"{op}(): argument 'correction' must be a real number, not {type(correction).__name__}")
    return float(correction)


def _moment(op, name: str):
    def run_moment(input, dim=None, unbiased=None, keepdim=False, correction=None, out=None):
        attrs = {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim, "correction": _correction(name, unbiased, correction)}
        return run(op, input, attrs, out)

    return run_moment


def _centered(x, dims):
    return x - x.mean(dim=dims, keepdim=True) if dims else x * 0


VAR = reduction_op("var", NUMERIC, _var_result).tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "var",
    "Tensor (Tensor input, IntList? dim=None, Bool? unbiased=None, Bool keepdim=False, *, Scalar? correction=None) => Var",
    method=True, out=True,
    doc="""
    Variance over ``dim``, dividing by N - correction (correction 1 by default;
    ``unbiased=False`` means 0).

    >>> ember.tensor([1.0, 2.0, 3.0, 4.0], dtype=ember.float64).var().item()
    1.6666666666666667
    """,
)
functor("Var")(_moment(VAR, "var"))


@VAR.grad_rule(saves="inputs")
def _var_grad(ctx, g):
    (x,) = ctx.inputs
    dims = ctx.attrs["dims"]
    n = count(x._shape, dims) - ctx.attrs["correction"]
    return ((2.0 / n) * unreduce(g, x._shape, dims, ctx.attrs["keepdim"]) * _centered(x, dims),)


STD = reduction_op("std", NUMERIC, _var_result).tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "std",
    "Tensor (Tensor input, IntList? dim=None, Bool? unbiased=None, Bool keepdim=False, *, Scalar? correction=None) => Std",
    method=True, out=True,
    doc="""
    Standard deviation over ``dim`` (the square root of :func:`var`).

    >>> ember.tensor([1.0, 3.0]).std(correction=0).item()
    1.0
    """,
)
functor("Std")(_moment(STD, "std"))


@STD.grad_rule(saves="both")
def _std_grad(ctx, g):
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    dims, keepdim = ctx.attrs["dims"], ctx.attrs["keepdim"]
    n = count(x._shape, dims) - ctx.attrs["correction"]
    out = unreduce(out, x._shape, dims, keepdim)
    scale = _F().where(out == 0, 0.0, unreduce(g, x._shape, dims, keepdim) / (n * out))
    return (scale * _centered(x, dims),)


# --- logsumexp -------------------------------------------------------------------------------


def _float_result(dtype, requested):
    return dtype if dtype.is_floating_point or dtype.is_complex else _dt.get_default_dtype()


LOGSUMEXP = reduction_op("logsumexp", NUMERIC, _float_result).tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "logsumexp",
    "Tensor (Tensor input, IntList dim, Bool keepdim=False) => Logsumexp",  # dim required, as in PyTorch
    method=True, out=True, namespaces="special",
    doc="""
    log(sum(exp(input))) over ``dim``, computed stably (shifted by the maximum).

    >>> ember.tensor([1000.0, 1000.0], dtype=ember.float64).logsumexp(0).item()
    1000.6931471805599
    """,

)
@functor("Logsumexp")
def logsumexp(input, dim=None, keepdim=False, out=None):
    return run(LOGSUMEXP, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim}, out)


@LOGSUMEXP.grad_rule(saves="both")
def _logsumexp_grad(ctx, g):
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    if not float_input(ctx):
        return (None,)
    dims, keepdim = ctx.attrs["dims"], ctx.attrs["keepdim"]
    return (unreduce(g, x._shape, dims, keepdim) * (x - unreduce(out, x._shape, dims, keepdim)).exp(),)
