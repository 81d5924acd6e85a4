"""nansum and nanmean: sum and mean that skip NaNs (composites of where, isnan, sum).

>>> x = ember.tensor([1.0, float("nan"), 3.0])
>>> ember.nansum(x).item(), ember.nanmean(x).item()
(4.0, 2.0)
"""

from __future__ import annotations

from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family

declare = schema_family("reduction")


declare(
    "nansum",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Nansum",
    method=True,
    out=True,
    composite=True,
    doc="Sum over ``dim`` treating NaN as zero; integers sum as sum does. Complex input is refused, as in PyTorch.",
)


@functor("Nansum")
def nansum(input, dim=None, keepdim=False, dtype=None, out=None):
    if input.dtype.is_complex:
        raise RuntimeError("nansum does not support complex inputs")
    F = _F()
    x = F.where(F.isnan(input), 0, input) if input.dtype.is_floating_point else input
    return F.sum(x, dim, keepdim, dtype=dtype, out=out)


declare(
    "nanmean",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False, *, DType? dtype=None) => Nanmean",
    method=True,
    out=True,
    composite=True,
    doc="Mean over ``dim`` of the values that are not NaN (NaN where all are). Floating input only, as in PyTorch.",
)


@functor("Nanmean")
def nanmean(input, dim=None, keepdim=False, dtype=None, out=None):
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got {input.dtype}")
    if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"nanmean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {dtype}")
    F = _F()
    present = F.logical_not(F.isnan(input))
    count = F.sum(present, dim, keepdim)
    return F.div(nansum(input, dim, keepdim, dtype=dtype), count, out=out)
