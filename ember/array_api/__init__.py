# ruff: noqa: A004 - the standard names its functions abs, all, any, max, min, pow, round, sum and a dtype bool
"""``ember.array_api``: the Python array API standard (2025.12) namespace of ember tensors.

``x.__array_namespace__()`` returns this module. ember's top-level functions follow PyTorch
(``ember.sum(x, dim=..., keepdim=...)``, ``ember.equal`` answers one bool); where the standard's
semantics differ, one namespace cannot serve both, so this one re-exports the generated
functions that already match the standard and adds thin adapters, written with ember ops, for
the rest (``equal`` elementwise, ``max``/``min`` values only, ``sort`` values only, stable by
default, ``std``/``var`` with ``correction=0``, ``unique_*`` named tuples, Python scalars on
either side of a binary function...).

One module per chapter of the standard, as array-api-strict lays it out: ``_creation``,
``_data_type_functions``, ``_elementwise``, ``_linear_algebra``, ``_manipulation`` (with the
indexing functions), ``_searching_sorting`` (searching, sets, sorting), ``_statistical``
(statistical and utility functions), ``_info`` (inspection) and the ``linalg`` and ``fft`` extensions; each
lists the generated functions it re-exports unchanged in its ``_SAME`` tuple.

>>> import ember.array_api as xp
>>> x = xp.asarray([[3, 1], [2, 2]])
>>> x.__array_namespace__() is xp
True
>>> xp.max(x, axis=0)
tensor([3, 2])
>>> xp.unique_counts(x)
UniqueCountsResult(values=tensor([1, 2, 3]), counts=tensor([1, 2, 1]))
>>> xp.std(xp.asarray([1.0, 3.0]))
tensor(1.)
"""

from __future__ import annotations

import math
import sys

from .._core.dtype import (
    bool_ as bool,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ..interop.dlpack import from_dlpack  # the standard's creation function is ember's own
from . import fft, linalg

# Each chapter's names in rows (isort would put one a line).
# isort: off
from ._creation import (
    arange, asarray, empty, empty_like, eye, full, full_like, linspace, meshgrid, ones, ones_like, tril, triu, zeros,
    zeros_like,
)  # fmt: skip
from ._data_type_functions import astype, can_cast, finfo, iinfo, isdtype, result_type
from ._elementwise import (
    abs, acos, acosh, add, asin, asinh, atan, atan2, atanh, bitwise_and, bitwise_invert, bitwise_left_shift,
    bitwise_or, bitwise_right_shift, bitwise_xor, ceil, clip, conj, copysign, cos, cosh, divide, equal, exp, expm1,
    floor, floor_divide, greater, greater_equal, hypot, imag, isfinite, isinf, isnan, less, less_equal, log, log1p,
    log2, log10, logaddexp, logical_and, logical_not, logical_or, logical_xor, maximum, minimum, multiply, negative,
    nextafter, not_equal, positive, pow, real, reciprocal, remainder, round, sign, signbit, sin, sinh, sqrt, square,
    subtract, tan, tanh, trunc,
)  # fmt: skip
from ._info import __array_namespace_info__
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from ._manipulation import (
    broadcast_arrays, broadcast_shapes, broadcast_to, concat, expand_dims, flip, moveaxis, permute_dims, repeat,
    reshape, roll, squeeze, stack, take, take_along_axis, tile, unstack,
)  # fmt: skip
from ._searching_sorting import (
    argmax, argmin, argsort, count_nonzero, isin, nonzero, searchsorted, sort, unique_all, unique_counts,
    unique_inverse, unique_values, where,
)  # fmt: skip
from ._statistical import all, any, cumulative_prod, cumulative_sum, diff, max, mean, min, prod, std, sum, var
# isort: on

# The unique_* functions' result types: importable from here, outside __all__ (the standard names none).
from ._searching_sorting import (
    UniqueAllResult as UniqueAllResult,
    UniqueCountsResult as UniqueCountsResult,
    UniqueInverseResult as UniqueInverseResult,
)

__array_api_version__ = "2025.12"
# Versions whose namespace this one also serves (each later version only adds to the earlier).
_SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None


def _tensor_array_namespace(self, /, *, api_version=None):
    """The array API namespace of ember tensors: ``ember.array_api``.

    >>> import ember
    >>> ember.ones(2).__array_namespace__(api_version="2025.12").__array_api_version__
    '2025.12'
    """
    if api_version is not None and api_version not in _SUPPORTED_VERSIONS:
        raise ValueError(f"__array_namespace__(): unsupported api_version {api_version!r}; ember implements {', '.join(_SUPPORTED_VERSIONS)}")
    return sys.modules[__name__]


def _tensor_to_device(self, device, /, *, stream=None):
    """The array API's ``x.to_device(device)``: ``x`` copied to ``device`` (``x`` itself when it is there).

    ``stream`` names a device stream to order the copy on; ember's copies are synchronous, so it must be None.

    >>> import ember
    >>> x = ember.ones(2)
    >>> x.to_device(x.device) is x
    True
    """
    if stream is not None:
        raise ValueError(f"to_device(): ember copies between devices synchronously and takes no stream, got stream={stream!r}")
    return self.to(device)


_tensor_array_namespace.__name__ = _tensor_array_namespace.__qualname__ = "__array_namespace__"
_tensor_to_device.__name__ = _tensor_to_device.__qualname__ = "to_device"
# The array API's methods of the array object that PyTorch's tensor lacks, bound in ember/__init__.py.
TENSOR_METHODS = {"__array_namespace__": _tensor_array_namespace, "to_device": _tensor_to_device}


__all__ = [
    "__array_api_version__", "fft", "linalg",
    # constants
    "e", "inf", "nan", "newaxis", "pi",
    # data types and data type functions
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    # creation functions
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace", "meshgrid",
    "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    # element-wise functions
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and", "bitwise_invert",
    "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "clip", "conj", "copysign",
    "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater", "greater_equal", "hypot",
    "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp",
    "logical_and", "logical_not", "logical_or", "logical_xor", "maximum", "minimum", "multiply", "negative",
    "nextafter", "not_equal", "positive", "pow", "real", "reciprocal", "remainder", "round", "sign", "signbit", "sin",
    "sinh", "sqrt", "square", "subtract", "tan", "tanh", "trunc",
    # inspection
    "__array_namespace_info__",
    # linear algebra functions
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    # manipulation and indexing functions
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
    "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
    "take", "take_along_axis",
    # searching, set and sorting functions
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "argsort", "sort",
    # statistical and utility functions
    "cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var",
    "all", "any", "diff",
]  # fmt: skip
