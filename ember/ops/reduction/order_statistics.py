"""Order statistics and paired moments: ``median`` / ``nanmedian``, ``quantile`` /
``nanquantile``, ``aminmax``, ``std_mean`` / ``var_mean``.

All are composites, as in PyTorch: the order statistics sort along the dimension and pick
(or interpolate between) ranks, so gradients flow through ``sort``'s value selection; NaN
sorts last, which is what makes ``median`` return NaN where a slice holds one and ``nan*``
skip them.

>>> import ember
>>> x = ember.tensor([[3.0, 1.0, 2.0, 4.0]])
>>> x.median().item(), x.median(1).indices.tolist(), x.quantile(0.5).item()
(2.0, [2], 2.5)
"""

from __future__ import annotations

import numbers

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ..._core.tensor import Tensor, tensor
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import named_tuple, reduce_dims, torch_name

declare = schema_family("reduction")

MedianResult = named_tuple("median", ("values", "indices"))
NanmedianResult = named_tuple("nanmedian", ("values", "indices"))
AminmaxResult = named_tuple("aminmax", ("min", "max"))

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


# --- median, nanmedian -----------------------------------------------------------------------


def _check_orderable(op: str, x: Tensor) -> None:
    if x._dtype is _dt.bool_ or x._dtype.is_complex or x._dtype is _dt.string:
        raise NotImplementedError(f'"{op}_cpu" not implemented for \'{torch_name(x._dtype)}\'')


def _pick(F, x: Tensor, d: int, skip_nan: bool):
    """Sorted values and source indices along d, and the rank of the (lower) median per slice."""
    values, indices = F.sort(x, dim=d, stable=True)
    n = x._shape[d]
    if not (x._dtype.is_floating_point):
        rank = F.full_like(values.narrow(d, 0, 1), (n - 1) // 2, dtype=_dt.int64)
        return values, indices, rank
    nans = F.isnan(x).sum(dim=d, keepdim=True)
    if skip_nan:
        rank = F.clamp(F.div(n - nans - 1, 2, rounding_mode="floor"), min=0)
    else:
        rank = F.where(nans > 0, n - nans, (n - 1) // 2)
    return values, indices, rank


def _empty_median(dtype: _dt.DType):
    if dtype.is_floating_point:
        return float("nan")
    # NaN converted as x86 does: int32 and int64 get their minimum, narrower types its low bits (0)
    return _dt.iinfo(dtype).min if dtype.name in ("int32", "int64") else 0


def _median(op: str, result, skip_nan: bool):
    def run_median(input, dim=None, keepdim=False):
        _check_orderable(op, input)
        F = _F()
        if dim is None:
            if input.numel() == 0:  # NaN; an integer NaN reads as torch's cast of it on x86
                return F.full((), _empty_median(input._dtype), dtype=input._dtype)
            values, _, rank = _pick(F, input.reshape(-1), 0, skip_nan)
            return F.gather(values, 0, rank).reshape(())
        d = wrap_dim(dim, input.ndim, op)
        x = input.reshape(1) if input.ndim == 0 else input
        if x._shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
        values, indices, rank = _pick(F, x, d, skip_nan)
        v, i = F.gather(values, d, rank), F.gather(indices, d, rank)
        if input.ndim == 0:
            return result(v.reshape(()), i.reshape(()))
        if not keepdim:
            v, i = v.squeeze(d), i.squeeze(d)
        return result(v, i)

    return run_median


declare(
    "median",
    [
        "Tensor (Tensor input) => Median",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => MedianDim",
    ],
    method=True, composite=True,
    doc="""
    The lower median (of an even count, the smaller of the two middle values); with ``dim``,
    ``(values, indices)`` along it. NaN propagates: a slice holding NaN has median NaN.

    >>> x = ember.tensor([[1.0, 4.0, 2.0, 3.0]])
    >>> x.median().item(), x.median(dim=1).values.tolist()
    (2.0, [2.0])
    """,
)
functor("Median")(_median("median", MedianResult, False))
functor("MedianDim")(_median("median", MedianResult, False))

declare(
    "nanmedian",
    [
        "Tensor (Tensor input) => Nanmedian",
        "(Tensor values, Tensor indices) (Tensor input, Int dim, Bool keepdim=False) => NanmedianDim",
    ],
    method=True, composite=True,
    doc="""
    The lower median of the non-NaN values (NaN where a slice holds only NaN).

    >>> ember.tensor([1.0, float("nan"), 3.0, 2.0]).nanmedian().item()
    2.0
    """,
)
functor("Nanmedian")(_median("nanmedian", NanmedianResult, True))
functor("NanmedianDim")(_median("nanmedian", NanmedianResult, True))


# --- quantile, nanquantile -------------------------------------------------------------------


def _quantile(op: str, skip_nan: bool):
    def run_quantile(input, q, dim=None, keepdim=False, interpolation="linear"):
        F = _F()
        if input._dtype not in (_dt.float32, _dt.float64):
            raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
        if input.numel() == 0:
            raise RuntimeError(f"{op}() input tensor must be non-empty")
        if interpolation not in _INTERPOLATIONS:
            raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}")
        scalar_q = not isinstance(q, Tensor)
        if scalar_q:
            if isinstance(q, bool) or not isinstance(q, numbers.Real):
                raise TypeError(f"{op}(): argument 'q' must be a float or a Tensor, not {type(q).__name__}")
            if not 0 <= q <= 1:
                raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
            q = tensor([float(q)], dtype=input._dtype)
        else:
            if q.ndim > 1:
                raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
            if q._dtype is not input._dtype:
                raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
            if not bool(((q >= 0) & (q <= 1)).all()):
                raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
            scalar_q = q.ndim == 0
            q = q.reshape(-1)
        # the reduced dim goes last, flattened when dim is None
        if dim is None:
            x = input.reshape(-1)
            kept = (1,) * input.ndim
        else:
            d = wrap_dim(dim, input.ndim, op)
            x = input.reshape(1) if input.ndim == 0 else input.movedim(d, -1)
            kept = tuple(1 if i == d else s for i, s in enumerate(input._shape)) if input.ndim else ()
        n = x._shape[-1]
        values = F.sort(x, dim=-1).values
        nans = F.isnan(values).sum(dim=-1, keepdim=True)
        batch = x._shape[:-1]
        qs = q.reshape((-1,) + (1,) * len(batch) + (1,))  # (nq, *batch, 1)
        if skip_nan:
            last = (n - nans - 1).to(input._dtype)
            rank = qs * F.clamp(last, min=0)
        else:
            rank = qs * (n - 1)
        rank = rank.expand(q._shape[0], *batch, 1)  # gather reads one rank per output element
        if interpolation == "lower":
            rank = rank.floor()
        elif interpolation == "higher":
            rank = rank.ceil()
        elif interpolation == "nearest":
            rank = rank.round()
        lo = rank.floor().long()
        hi = rank.ceil().long()
        expand = (q._shape[0], *batch, n)
        sorted_q = values.unsqueeze(0).expand(*expand)
        below = F.gather(sorted_q, -1, F.clamp(lo, max=n - 1))
        above = F.gather(sorted_q, -1, F.clamp(hi, max=n - 1))
        weight = (rank - lo) if interpolation == "linear" else F.full_like(rank, 0.5 if interpolation == "midpoint" else 0.0)
        result = F.lerp(below, above, weight.expand_as(below))
        if skip_nan:
            result = F.where(nans == n, float("nan"), result)  # all-NaN slices
        else:
            result = F.where(nans > 0, float("nan"), result)
        result = result.squeeze(-1)  # (nq, *batch)
        if keepdim:
            result = result.reshape((q._shape[0], *kept))
        if scalar_q:
            result = result.squeeze(0)
        return result

    return run_quantile


declare(
    "quantile",
    "Tensor (Tensor input, Object q, Int? dim=None, Bool keepdim=False, *, String interpolation=\"linear\") => Quantile",
    method=True, composite=True,
    doc="""
    The q-th quantiles along ``dim`` (of all elements when None), interpolating between ranks as
    ``interpolation`` says (linear, lower, higher, midpoint, nearest); a 1-d ``q`` adds a leading
    dimension. NaN propagates.

    >>> ember.tensor([1.0, 2.0, 3.0, 4.0]).quantile(ember.tensor([0.25, 0.5])).tolist()
    [1.75, 2.5]
    """,
)
functor("Quantile")(_quantile("quantile", False))

declare(
    "nanquantile",
    "Tensor (Tensor input, Object q, Int? dim=None, Bool keepdim=False, *, String interpolation=\"linear\") => Nanquantile",
    method=True, composite=True,
    doc="""
    :func:`quantile` of the non-NaN values (NaN where a slice holds only NaN).

    >>> ember.tensor([1.0, float("nan"), 3.0]).nanquantile(0.5).item()
    2.0
    """,
)
functor("Nanquantile")(_quantile("nanquantile", True))


# --- aminmax, std_mean, var_mean -------------------------------------------------------------

declare(
    "aminmax",
    "(Tensor min, Tensor max) (Tensor input, *, Int? dim=None, Bool keepdim=False) => Aminmax",
    method=True, composite=True,
    doc="""
    ``(min, max)`` of all elements, or along ``dim``, in one call.

    >>> ember.tensor([[1, 5], [4, 2]]).aminmax(dim=0).max.tolist()
    [4, 5]
    """,
)
@functor("Aminmax")
def aminmax(input, dim=None, keepdim=False):
    F = _F()
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.")
        dims = ()
    else:
        d = wrap_dim(dim, input.ndim, "aminmax")
        if input.ndim and input._shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
        dims = (d,) if input.ndim else ()
    if not dims and dim is not None:  # a 0-d tensor along its only "dim"
        return AminmaxResult(input.clone(), input.clone())
    return AminmaxResult(F.amin(input, dims, keepdim), F.amax(input, dims, keepdim))


def _welford_nan(F, x, dims, keepdim, mean):
    """``mean`` with NaN where an infinity is followed by more elements (in the flattened order)."""
    kept = [d for d in range(x.ndim) if d not in dims]
    flat = x.permute(*kept, *dims).reshape(*[x._shape[d] for d in kept], -1)
    early = F.isinf(flat.narrow(-1, 0, max(flat._shape[-1] - 1, 0))).any(dim=-1)
    if keepdim:
        early = early.reshape(mean._shape)
    return F.where(early, float("nan"), mean)


def _moment_mean(fn: str):
    def run(input, dim=None, unbiased=None, keepdim=False, correction=None):
        F = _F()
        moment = getattr(F, fn)(input, dim, unbiased, keepdim, correction=correction)
        dims = reduce_dims(dim, input.ndim)
        mean = F.mean(input, dims, keepdim)
        if dims and (input.dtype.is_floating_point or input.dtype.is_complex):
            # torch updates the mean one element at a time (Welford): an infinity followed by more
            # elements leaves inf - inf, so that mean is NaN where a plain mean is +-inf
            if input.dtype.is_complex:  # componentwise, as torch's complex Welford runs
                re = _welford_nan(F, input.real, dims, keepdim, mean.real)
                im = _welford_nan(F, input.imag, dims, keepdim, mean.imag)
                mean = re.to(mean.dtype) + im.to(mean.dtype) * 1j
            else:
                mean = _welford_nan(F, input, dims, keepdim, mean)
        return moment, mean

    return run


declare(
    "std_mean",
    "TensorList (Tensor input, IntList? dim=None, Bool? unbiased=None, Bool keepdim=False, *, Scalar? correction=None) => StdMean",
    composite=True,
    doc="""
    ``(std, mean)`` over ``dim`` in one call (``std``'s ``correction``/``unbiased``).

    >>> s, m = ember.std_mean(ember.tensor([1.0, 3.0]))
    >>> round(s.item(), 4), m.item()
    (1.4142, 2.0)
    """,
)
functor("StdMean")(_moment_mean("std"))

declare(
    "var_mean",
    "TensorList (Tensor input, IntList? dim=None, Bool? unbiased=None, Bool keepdim=False, *, Scalar? correction=None) => VarMean",
    composite=True,
    doc="""
    ``(var, mean)`` over ``dim`` in one call.

    >>> v, m = ember.var_mean(ember.tensor([1.0, 3.0]))
    >>> v.item(), m.item()
    (2.0, 2.0)
    """,
)
functor("VarMean")(_moment_mean("var"))
