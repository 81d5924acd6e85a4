"""Logical reductions: ``all``, ``any`` and ``count_nonzero`` (no derivatives: their results are
bool, uint8 or int64).

>>> import ember
>>> x = ember.tensor([[0, 1], [2, 3]])
>>> x.all().item(), x.any(1).tolist(), x.count_nonzero().item()
(False, [True, True], 3)
"""

from __future__ import annotations

from ..._core import dtype as _dt
from .. import sbp_rules
from ..functor import functor
from ..schema import schema_family
from ._common import NUMERIC, reduce_dims, reduction_op, run

declare = schema_family("reduction")


def _bool_result(dtype, requested):
    return _dt.uint8 if dtype is _dt.uint8 else _dt.bool_  # PyTorch keeps uint8 for all/any


ALL = reduction_op("all", NUMERIC, _bool_result).tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "all",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => All",
    method=True, out=True, differentiable=False,
    doc="""
    Whether every element over ``dim`` is nonzero (bool; uint8 input gives uint8).

    >>> ember.tensor([[1, 0], [2, 3]]).all(1).tolist()
    [False, True]
    """,
    tf="All",
)
@functor("All")
def all_(input, dim, keepdim, out=None):
    return run(ALL, input, {"dims": reduce_dims(dim, input.ndim, empty_means_all=False), "keepdim": keepdim}, out)


ANY = reduction_op("any", NUMERIC, _bool_result).tag(sbp=sbp_rules.reduction.local_reduction)

declare(
    "any",
    "Tensor (Tensor input, IntList? dim=None, Bool keepdim=False) => Any",
    method=True, out=True, differentiable=False,
    doc="""
    Whether any element over ``dim`` is nonzero (bool; uint8 input gives uint8).

    >>> ember.tensor([0.0, 0.5]).any().item()
    True
    """,
    tf="Any",
)
@functor("Any")
def any_(input, dim, keepdim, out=None):
    return run(ANY, input, {"dims": reduce_dims(dim, input.ndim, empty_means_all=False), "keepdim": keepdim}, out)


def _long_result(dtype, requested):
    return _dt.int64


COUNT_NONZERO = reduction_op("count_nonzero", NUMERIC, _long_result).tag(sbp=sbp_rules.reduction.count_rule)

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
    return run(COUNT_NONZERO, input, {"dims": reduce_dims(dim, input.ndim), "keepdim": False}, None)
