"""Reduction ops: functors, inference rules and (with autograd) derivatives, side by side.

Every reduction takes ``dim`` as None (all dimensions), an int or a tuple of ints, and
``keepdim``; PyTorch's result dtypes hold (``sum``/``prod``/``cumsum`` of bool and integers give
int64, ``mean`` needs a floating or complex input or ``dtype=``, ``argmax`` gives int64).
float16/bfloat16 accumulate in float32. Kernels are in ``ember/kernels/cpu/reduction.py``.

>>> import ember
>>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
>>> x.sum(0).tolist(), x.max(1).indices.tolist()
([4.0, 7.0], [1, 0])
"""

from __future__ import annotations

import collections

from .._core import dtype as _dt
from .._core.shape import wrap_dim
from ..dispatch import OpExpr, dispatch
from .common import check_dtype
from .common import functional as _F
from .functor import functor
from .schema import schema_family

declare = schema_family("reduction")

__all__ = ["reduce_dims", "reduced_shape", "return_types", "torch_name"]

# PyTorch's ScalarType names, for messages that quote them ("Got: Long").
_TORCH_NAMES = {
    "bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
    "uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "float16": "Half", "bfloat16": "BFloat16",
    "float32": "Float", "float64": "Double", "complex64": "ComplexFloat", "complex128": "ComplexDouble",
}  # fmt: skip


def torch_name(dtype: _dt.DType) -> str:
    """PyTorch's name of a dtype, as its error messages spell it (``Long`` for int64)."""
    return _TORCH_NAMES.get(dtype.name, dtype.name)


class return_types:
    """Named tuples of multi-result ops, as ``torch.return_types``."""


def _named_tuple(name: str, fields: tuple[str, ...]) -> type:
    cls = collections.namedtuple(name, fields)
    cls.__module__ = __name__
    cls.__qualname__ = f"return_types.{name}"
    setattr(return_types, name, cls)
    return cls


MaxResult = _named_tuple("max", ("values", "indices"))
MinResult = _named_tuple("min", ("values", "indices"))


# ---------------------------------------------------------------------------------------
# shared rules


def reduce_dims(dim, ndim: int) -> tuple[int, ...]:
    """``dim`` (None, or a tuple from the schema's ``IntList?``) as sorted non-negative dims.

    None and ``()`` mean every dimension, as in PyTorch; a 0-d tensor accepts 0 and -1 and
    reduces nothing.

    >>> reduce_dims(None, 3), reduce_dims((-1, 0), 3), reduce_dims((0,), 0)
    ((0, 1, 2), (0, 2), ())
    """
    if dim is None or len(dim) == 0:
        return tuple(range(ndim))
    dims = [wrap_dim(d, ndim) for d in dim]
    if ndim == 0:
        return ()
    seen = set()
    for d in dims:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return tuple(sorted(dims))


def reduced_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _integral_to_long(dtype: _dt.DType) -> _dt.DType:
    """sum/prod/cumsum of bool and integers accumulate and return int64, as PyTorch."""
    return _dt.int64 if dtype is _dt.bool_ or dtype.kind in "iu" else dtype


def _check_nonempty(op: str, x, dims: tuple, dim_given: bool) -> None:
    """max/min/amax/argmax have no identity: an empty reduction is an error, as PyTorch's."""
    if not dim_given or x.ndim == 0:
        if x.numel() == 0:
            raise RuntimeError(
                f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        return
    for d in dims:
        if x._shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _run(op: OpExpr, x, attrs: dict, out):
    if out is None:
        return dispatch(op, (x,), attrs)[0]
    return dispatch(op, (x,), attrs, (out,))[0]


_NUMERIC = ("bool", "numeric")
_ORDERED = ("bool", "integral", "real floating")


def _reduction(name: str, kinds, result) -> OpExpr:
    """A one-input reduction primitive; attrs ``dims``, ``keepdim`` and ``dtype`` (requested)."""
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name, "input", x._dtype, kinds)
        return ((reduced_shape(x._shape, attrs["dims"], attrs["keepdim"]), result(x._dtype, attrs.get("dtype"))),)

    return op


def _sum_result(dtype, requested):
    return requested if requested is not None else _integral_to_long(dtype)


def _mean_result(dtype, requested):
    if requested is not None:
        if not (requested.is_floating_point or requested.is_complex):
            raise RuntimeError(
                f"mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {torch_name(requested)}"
            )
        return requested
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {torch_name(dtype)}"
        )
    return dtype


def _same(dtype, requested):
    return dtype


def _bool_result(dtype, requested):
    return _dt.uint8 if dtype is _dt.uint8 else _dt.bool_  # PyTorch keeps uint8 for all/any


def _long_result(dtype, requested):
    return _dt.int64


def _var_result(dtype, requested):
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return dtype.to_real() if dtype.is_complex else dtype


def _float_result(dtype, requested):
    return dtype if dtype.is_floating_point or dtype.is_complex else _dt.get_default_dtype()


SUM = _reduction("sum", _NUMERIC, _sum_result)
PROD = _reduction("prod", _NUMERIC, _sum_result)
MEAN = _reduction("mean", _NUMERIC, _mean_result)
AMAX = _reduction("amax", _ORDERED, _same)
AMIN = _reduction("amin", _ORDERED, _same)
ALL = _reduction("all", _NUMERIC, _bool_result)
ANY = _reduction("any", _NUMERIC, _bool_result)
COUNT_NONZERO = _reduction("count_nonzero", _NUMERIC, _long_result)
VAR = _reduction("var", _NUMERIC, _var_result)
STD = _reduction("std", _NUMERIC, _var_result)
LOGSUMEXP = _reduction("logsumexp", _NUMERIC, _float_result)


def _dim_index(name: str) -> OpExpr:
    """max(input, dim) / min(input, dim): values and int64 indices."""
    op = OpExpr(name, ("input",), ("values", "indices"))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name.split("_")[0], "input", x._dtype, _ORDERED)
        shape = reduced_shape(x._shape, attrs["dims"], attrs["keepdim"])
        return ((shape, x._dtype), (shape, _dt.int64))

    return op


MAX_DIM = _dim_index("max_dim")
MIN_DIM = _dim_index("min_dim")


def _arg_reduction(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        if x._dtype is _dt.bool_:
            raise RuntimeError(f"{name}(): does not support bool input")
        if x._dtype.is_complex:
            raise RuntimeError(f"{name}(): does not support complex input")
        check_dtype(name, "input", x._dtype, _ORDERED)
        dims = attrs["dims"]
        if dims is None:  # the flattened input
            shape = (1,) * x.ndim if attrs["keepdim"] else ()
        else:
            shape = reduced_shape(x._shape, dims, attrs["keepdim"])
        return ((shape, _dt.int64),)

    return op


ARGMAX = _arg_reduction("argmax")
ARGMIN = _arg_reduction("argmin")


def _scan(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        check_dtype(name, "input", x._dtype, _NUMERIC)
        return ((x._shape, _sum_result(x._dtype, attrs["dtype"])),)

    return op


CUMSUM = _scan("cumsum")
CUMPROD = _scan("cumprod")


# ---------------------------------------------------------------------------------------
# functors


def _simple(op: OpExpr):
    def run(input, dim, keepdim, dtype, out=None):
        return _run(op, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim, "dtype": dtype}, out)

    return run


declare(
    "sum",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Sum",
    method=True, out=True,
    doc="""
    Sum over ``dim`` (all dimensions when None); bool and integers sum to int64.

    >>> ember.tensor([[1, 2], [3, 4]]).sum(0).tolist()
    [4, 6]
    """,
)
functor("Sum")(_simple(SUM))
declare(
    "prod",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Prod",
    method=True, out=True,
    doc="""
    Product over ``dim``; bool and integers multiply in int64. Empty: 1.

    >>> ember.tensor([2, 3, 4]).prod().item()
    24
    """,
)
functor("Prod")(_simple(PROD))
declare(
    "mean",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Mean",
    method=True, out=True,
    doc="""
    Mean over ``dim``; needs a floating or complex input (or ``dtype=``). Empty: nan.

    >>> ember.tensor([[1.0, 2.0], [3.0, 5.0]]).mean(1, keepdim=True).tolist()
    [[1.5], [4.0]]
    """,
)
functor("Mean")(_simple(MEAN))


declare(
    "all",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => All",
    method=True, out=True, differentiable=False,
    doc="""
    Whether every element over ``dim`` is nonzero (bool; uint8 input gives uint8).

    >>> ember.tensor([[1, 0], [2, 3]]).all(1).tolist()
    [False, True]
    """,
)
@functor("All")
def all_(input, dim, keepdim, out=None):
    return _run(ALL, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim}, out)


declare(
    "any",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Any",
    method=True, out=True, differentiable=False,
    doc="""
    Whether any element over ``dim`` is nonzero (bool; uint8 input gives uint8).

    >>> ember.tensor([0.0, 0.5]).any().item()
    True
    """,
)
@functor("Any")
def any_(input, dim, keepdim, out=None):
    return _run(ANY, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim}, out)


declare(
    "count_nonzero",
    "Tensor (Tensor input, IntList? dim=None) => CountNonzero",
    method=True, differentiable=False,
    doc="""
    The number of nonzero elements over ``dim``, as int64.

    >>> ember.tensor([[0, 1], [2, 3]]).count_nonzero(0).tolist()
    [1, 2]
    """,
)
@functor("CountNonzero")
def count_nonzero(input, dim):
    return _run(COUNT_NONZERO, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": False}, None)


def _extremum(op: OpExpr, name: str):
    def run(input, dim, keepdim, out=None):
        dims = reduce_dims(dim, input.ndim)
        _check_nonempty(name, input, dims, bool(dim))
        return _run(op, input, {"dims": dims, "keepdim": keepdim}, out)

    return run


declare(
    "amax",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Amax",
    method=True, out=True,
    doc="""
    The maximum over ``dim`` (all when None or empty); NaN propagates.

    >>> ember.tensor([[1, 5], [4, 2]]).amax(-1).tolist()
    [5, 4]
    """,
)
functor("Amax")(_extremum(AMAX, "amax"))
declare(
    "amin",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Amin",
    method=True, out=True,
    doc="The minimum over ``dim`` (all when None or empty); NaN propagates.",
)
functor("Amin")(_extremum(AMIN, "amin"))


def _full_extremum(op: OpExpr, name: str):
    def run(input):
        _check_nonempty(name, input, (), False)
        return dispatch(op, (input,), {"dims": tuple(range(input.ndim)), "keepdim": False})[0]

    return run


def _dim_extremum(op: OpExpr, name: str, result: type):
    def run(input, dim, keepdim=False):
        d = wrap_dim(dim, input.ndim)
        dims = () if input.ndim == 0 else (d,)
        _check_nonempty(name, input, dims, True)
        values, indices = dispatch(op, (input,), {"dims": dims, "keepdim": keepdim})
        return result(values, indices)

    return run


def _other_extremum(fn: str):
    def run(input, other):
        F = _F()
        return getattr(F, fn)(input, other)

    return run


declare(
    "max",
    [
        "Tensor (Tensor input) => Max",
        "Tensor (Tensor input, Tensor dim) => MaxOther",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => MaxDim",
    ],
    method=True, op=("amax", "max_dim"),
    doc="""
    The largest element; with ``dim``, ``(values, indices)`` along it; with a tensor, the
    elementwise maximum. NaN propagates.

    >>> x = ember.tensor([[1, 5], [4, 2]])
    >>> x.max().item(), x.max(1).values.tolist(), x.max(dim=0).indices.tolist()
    (5, [5, 4], [1, 0])
    """,
)
functor("Max")(_full_extremum(AMAX, "max"))
declare(
    "min",
    [
        "Tensor (Tensor input) => Min",
        "Tensor (Tensor input, Tensor dim) => MinOther",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => MinDim",
    ],
    method=True, op=("amin", "min_dim"),
    doc="""
    The smallest element; with ``dim``, ``(values, indices)`` along it; with a tensor, the
    elementwise minimum. NaN propagates.

    >>> ember.tensor([[1, 5], [4, 2]]).min(1).indices.tolist()
    [0, 1]
    """,
)
functor("Min")(_full_extremum(AMIN, "min"))
functor("MaxDim")(_dim_extremum(MAX_DIM, "max", MaxResult))
functor("MinDim")(_dim_extremum(MIN_DIM, "min", MinResult))
functor("MaxOther")(_other_extremum("maximum"))
functor("MinOther")(_other_extremum("minimum"))


def _arg(op: OpExpr, name: str):
    def run(input, dim=None, keepdim=False, out=None):
        if dim is None:
            if input.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
            dims = None
        else:
            d = wrap_dim(dim, input.ndim)
            dims = () if input.ndim == 0 else (d,)
            if dims and input._shape[d] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        return _run(op, input, {"dims": dims, "keepdim": keepdim}, out)

    return run


declare(
    "argmax",
    "Tensor (Tensor input, Int? dim=None, Bool keepdim=False) => Argmax",
    method=True, out=True, differentiable=False,
    doc="""
    Index (int64) of the first maximum along ``dim``, or in the flattened input.

    >>> ember.tensor([[1, 5], [4, 2]]).argmax().item()
    1
    """,
)
functor("Argmax")(_arg(ARGMAX, "argmax"))
declare(
    "argmin",
    "Tensor (Tensor input, Int? dim=None, Bool keepdim=False) => Argmin",
    method=True, out=True, differentiable=False,
    doc="Index (int64) of the first minimum along ``dim``, or in the flattened input.",
)
functor("Argmin")(_arg(ARGMIN, "argmin"))


def _correction(op: str, unbiased, correction) -> float:
    if unbiased is not None and correction is not None:
        raise TypeError(f"{op}(): pass either 'unbiased' or 'correction', not both")
    if correction is None:
        return 0.0 if unbiased is False else 1.0
    if isinstance(correction, (bool, complex)):
        raise TypeError(f"{op}(): argument 'correction' must be a real number, not {type(correction).__name__}")
    return float(correction)


def _moment(op: OpExpr, name: str):
    def run(input, dim=None, unbiased=None, keepdim=False, correction=None, out=None):
        attrs = {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim, "correction": _correction(name, unbiased, correction)}
        return _run(op, input, attrs, out)

    return run


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


declare(
    "logsumexp",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Logsumexp",
    method=True, out=True,
    doc="""
    log(sum(exp(input))) over ``dim``, computed stably (shifted by the maximum).

    >>> ember.tensor([1000.0, 1000.0], dtype=ember.float64).logsumexp(0).item()
    1000.6931471805599
    """,
)
@functor("Logsumexp")
def logsumexp(input, dim=None, keepdim=False, out=None):
    return _run(LOGSUMEXP, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": keepdim}, out)


def _cumulative(op: OpExpr):
    def run(input, dim, dtype=None, out=None):
        d = wrap_dim(dim, input.ndim) if input.ndim else (wrap_dim(dim, 0), 0)[1]
        return _run(op, input, {"dim": d, "dtype": dtype}, out)

    return run


declare(
    "cumsum",
    "Tensor (Tensor input, Int dim, *, DType? dtype=None) => Cumsum",
    method=True, inplace="cumsum_", out=True,
    doc="""
    Cumulative sum along ``dim``; bool and integers accumulate in int64.

    >>> ember.tensor([1, 2, 3]).cumsum(0).tolist()
    [1, 3, 6]
    """,
)
functor("Cumsum")(_cumulative(CUMSUM))
declare(
    "cumprod",
    "Tensor (Tensor input, Int dim, *, DType? dtype=None) => Cumprod",
    method=True, inplace="cumprod_", out=True,
    doc="""
    Cumulative product along ``dim``; bool and integers accumulate in int64.

    >>> ember.tensor([1, 2, 3]).cumprod(0).tolist()
    [1, 2, 6]
    """,
)
functor("Cumprod")(_cumulative(CUMPROD))


declare(
    "norm",
    "Tensor (Tensor input, Object p='fro', IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Norm",
    method=True, out=True, op=("linalg_vector_norm", "linalg_matrix_norm"),
    doc="""
    torch.norm: p a number (vector p-norm over ``dim``), 'fro' (2-norm), or 'nuc' (nuclear norm of matrices).

    >>> ember.tensor([[3.0, 4.0]]).norm().item()
    5.0
    """,
)
@functor("Norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None, out=None):
    """torch.norm: 'fro' and numbers are vector norms over ``dim``; 'nuc' is a matrix norm."""
    from . import linalg

    if p is None:
        p = "fro"
    if isinstance(p, str):
        if p == "fro" and (dim is None or len(dim) <= 2):
            return linalg.vector_norm_impl(input, 2.0, dim, keepdim, dtype, out)
        if p in ("fro", "nuc"):
            dims = tuple(range(input.ndim)) if dim is None else dim
            return linalg.matrix_norm_impl(input, p, dims, keepdim, dtype, out)
        raise RuntimeError(f"norm(): unsupported p {p!r} (expected a number, 'fro' or 'nuc')")
    return linalg.vector_norm_impl(input, p, dim, keepdim, dtype, out, op="norm")


# ---------------------------------------------------------------------------------------
# derivatives (PyTorch's formulas, derivatives.yaml / FunctionsManual), written with ember's ops
# so they differentiate again; integer inputs get no gradient


def _float_input(ctx, i: int = 0) -> bool:
    dtype = ctx.input_meta[i][1]
    return dtype.is_floating_point or dtype.is_complex


def _as_input_dtype(g, ctx, i: int = 0):
    dtype = ctx.input_meta[i][1]
    return g if g._dtype is dtype else g.to(dtype)


def _unreduce(g, shape: tuple, dims: tuple, keepdim: bool):
    """``g`` (a reduction's gradient) with the reduced dims restored as size 1 (keepdim)."""
    kept = reduced_shape(shape, dims, True)
    return g if keepdim or g._shape == kept else g.reshape(kept)


def _expand_grad(ctx, g):
    shape = ctx.input_meta[0][0]
    return _unreduce(g, shape, ctx.attrs["dims"], ctx.attrs["keepdim"]).expand(shape)


def _count(shape: tuple, dims: tuple) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


@SUM.grad_rule(saves="none")
def _sum_grad(ctx, g):
    if not _float_input(ctx):
        return (None,)
    return (_as_input_dtype(_expand_grad(ctx, g), ctx),)


@MEAN.grad_rule(saves="none")
def _mean_grad(ctx, g):
    if not _float_input(ctx):
        return (None,)
    n = _count(ctx.input_meta[0][0], ctx.attrs["dims"])
    return (_as_input_dtype(_expand_grad(ctx, g) / n, ctx),)


def _exclusive_cumprod(x, dim: int, reverse: bool = False):
    """prod of the elements strictly before (after, when ``reverse``) each one along ``dim``."""
    F = _F()
    if reverse:
        return _exclusive_cumprod(x.flip((dim,)), dim).flip((dim,))
    n = x._shape[dim]
    ones = F.ones_like(x.narrow(dim, 0, 1))
    return F.cat([ones, x.narrow(dim, 0, n - 1)], dim).cumprod(dim)


def _has_zero(x) -> bool:
    return bool((x == 0).any().item())


@PROD.grad_rule(saves="both")
def _prod_grad(ctx, g):
    if not _float_input(ctx):
        return (None,)
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    shape, dims, keepdim = x._shape, ctx.attrs["dims"], ctx.attrs["keepdim"]
    g = _unreduce(g, shape, dims, keepdim)
    out = _as_input_dtype(_unreduce(out, shape, dims, keepdim), ctx)
    g = _as_input_dtype(g, ctx)
    if x.numel() == 0:
        return (g.expand(shape) * 0,)
    if not _has_zero(x):
        return (g * out.conj() / x.conj(),)
    # zeros: the product of the others, as products of the elements before and after each one
    if not dims:
        return (g.expand(shape),)
    rest = [d for d in range(x.ndim) if d not in dims]
    perm = tuple(rest) + tuple(dims)
    xp = x.permute(perm)
    flat = xp.reshape((*xp._shape[: len(rest)], -1))
    others = _exclusive_cumprod(flat, -1) * _exclusive_cumprod(flat, -1, reverse=True)
    others = others.reshape(xp._shape).permute(tuple(perm.index(i) for i in range(x.ndim)))
    return (g * others.conj(),)


def _extremum_grad(ctx, g):
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    shape, dims, keepdim = x._shape, ctx.attrs["dims"], ctx.attrs["keepdim"]
    mask = (x == _unreduce(out, shape, dims, keepdim)).to(g._dtype)
    count = mask.sum(dim=dims, keepdim=True) if dims else mask
    return (_unreduce(g, shape, dims, keepdim) * mask / count,)


AMAX.grad_rule(saves="both")(_extremum_grad)
AMIN.grad_rule(saves="both")(_extremum_grad)


def _dim_extremum_grad(ctx, g, g_indices=None):
    (indices,) = ctx.outputs[1:]
    shape, dims, keepdim = ctx.input_meta[0][0], ctx.attrs["dims"], ctx.attrs["keepdim"]
    if not dims:
        return (g,)
    (d,) = dims
    g = _unreduce(g, shape, dims, keepdim)
    indices = _unreduce(indices, shape, dims, keepdim)
    F = _F()
    positions = F.arange(shape[d]).reshape((shape[d],) + (1,) * (len(shape) - d - 1))
    return (g * (positions == indices).to(g._dtype),)


MAX_DIM.grad_rule(saves="outputs")(_dim_extremum_grad)
MIN_DIM.grad_rule(saves="outputs")(_dim_extremum_grad)


def _centered(x, dims):
    return x - x.mean(dim=dims, keepdim=True) if dims else x * 0


@VAR.grad_rule(saves="inputs")
def _var_grad(ctx, g):
    (x,) = ctx.inputs
    dims = ctx.attrs["dims"]
    n = _count(x._shape, dims) - ctx.attrs["correction"]
    return ((2.0 / n) * _unreduce(g, x._shape, dims, ctx.attrs["keepdim"]) * _centered(x, dims),)


@STD.grad_rule(saves="both")
def _std_grad(ctx, g):
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    dims, keepdim = ctx.attrs["dims"], ctx.attrs["keepdim"]
    n = _count(x._shape, dims) - ctx.attrs["correction"]
    out = _unreduce(out, x._shape, dims, keepdim)
    scale = _F().where(out == 0, 0.0, _unreduce(g, x._shape, dims, keepdim) / (n * out))
    return (scale * _centered(x, dims),)


@LOGSUMEXP.grad_rule(saves="both")
def _logsumexp_grad(ctx, g):
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    if not _float_input(ctx):
        return (None,)
    dims, keepdim = ctx.attrs["dims"], ctx.attrs["keepdim"]
    return (_unreduce(g, x._shape, dims, keepdim) * (x - _unreduce(out, x._shape, dims, keepdim)).exp(),)


@CUMSUM.grad_rule(saves="none")
def _cumsum_grad(ctx, g):
    if not _float_input(ctx):
        return (None,)
    if g.ndim == 0:
        return (_as_input_dtype(g, ctx),)
    d = ctx.attrs["dim"]
    return (_as_input_dtype(g.flip((d,)).cumsum(d).flip((d,)), ctx),)


@CUMPROD.grad_rule(saves="both")
def _cumprod_grad(ctx, g):
    if not _float_input(ctx):
        return (None,)
    (x,) = ctx.inputs
    (out,) = ctx.outputs
    g = _as_input_dtype(g, ctx)
    if x.ndim == 0 or x.numel() == 0:
        return (g,)
    out = _as_input_dtype(out, ctx)
    d = ctx.attrs["dim"]
    if not _has_zero(x):
        return ((g * out.conj()).flip((d,)).cumsum(d).flip((d,)) / x.conj(),)
    # zeros: dy_k/dx_i = prod_{j<i} x_j * prod_{i<j<=k} x_j (k >= i), as an n x n triangle along a new dim
    F = _F()
    n = x._shape[d]
    xm = x.movedim(d, -1)
    gm = g.movedim(d, -1)
    i = F.arange(n).reshape((n, 1))
    j = F.arange(n).reshape((1, n))
    after = F.where(j > i, xm.unsqueeze(-2), F.ones_like(xm).unsqueeze(-2))  # (..., i, j)
    partial = after.cumprod(-1) * (j >= i).to(x._dtype)  # prod_{i<j'<=k} x_j' at (i, k), k >= i
    before = _exclusive_cumprod(xm, -1)
    grad = before.conj() * (partial.conj() * gm.unsqueeze(-2)).sum(-1)
    return (grad.movedim(-1, d),)
