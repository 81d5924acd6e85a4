"""Reduction ops: functors, inference rules and derivatives, side by side.

Every reduction takes ``dim`` as None (all dimensions), an int or a tuple of ints, and
``keepdim``; PyTorch's result dtypes hold (``sum``/``prod``/``cumsum`` of bool and integers give
int64, ``mean`` needs a floating or complex input or ``dtype=``, ``argmax`` gives int64).
float16/bfloat16 accumulate in float32. One module per idea: ``sums`` (sum, prod, mean, cumsum,
cumprod), ``extrema`` (amax, amin, max, min, argmax, argmin), ``statistics`` (var, std,
logsumexp), ``logical`` (all, any, count_nonzero), ``histograms`` (bincount, histc); ``_common``
holds what they share. The norms are linear algebra (``ember/ops/linalg/norms.py``). Kernels are in ``ember/kernels/cpu/reduction.py``.

>>> import ember
>>> x = ember.tensor([[1.0, 5.0], [3.0, 2.0]])
>>> x.sum(0).tolist(), x.max(1).indices.tolist()
([4.0, 7.0], [1, 0])
"""

from . import extrema, histograms, logical, nan, order_statistics, scans, statistics, sums  # noqa: F401 - nan registers its entries
from ._common import named_tuple, reduce_dims, reduced_shape, return_types, torch_name, unreduce
from .sums import exclusive_cumprod

__all__ = [
    "exclusive_cumprod", "extrema", "histograms", "logical", "named_tuple", "reduce_dims", "reduced_shape", "return_types",
    "statistics", "sums", "torch_name", "unreduce",
]  # fmt: skip
