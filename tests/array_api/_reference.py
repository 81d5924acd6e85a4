"""What the array API tests share: the standard's names, the check against NumPy, hypothesis strategies and
the comparison with array-api-strict.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import ember
import ember.array_api as xp

# The standard's names (spec/2025.12/API_specification/*.rst and extensions/linear_algebra_functions.rst).
CONSTANTS = ["e", "inf", "nan", "newaxis", "pi"]
CREATION = [
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace",
    "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
]  # fmt: skip
DATA_TYPE_FUNCTIONS = ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]
DATA_TYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
]  # fmt: skip
ELEMENTWISE = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil",
    "clip", "conj", "copysign", "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide",
    "greater", "greater_equal", "hypot", "imag", "isfinite", "isinf", "isnan", "less", "less_equal", "log",
    "log1p", "log2", "log10", "logaddexp", "logical_and", "logical_not", "logical_or", "logical_xor",
    "maximum", "minimum", "multiply", "negative", "nextafter", "not_equal", "positive", "pow", "real",
    "reciprocal", "remainder", "round", "sign", "signbit", "sin", "sinh", "square", "sqrt", "subtract",
    "tan", "tanh", "trunc",
]  # fmt: skip
INDEXING = ["take", "take_along_axis"]
INSPECTION = ["__array_namespace_info__"]
LINEAR_ALGEBRA = ["matmul", "matrix_transpose", "tensordot", "vecdot"]
MANIPULATION = [
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
    "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
]  # fmt: skip
SEARCHING = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where"]
SET = ["isin", "unique_all", "unique_counts", "unique_inverse", "unique_values"]
SORTING = ["argsort", "sort"]
STATISTICAL = ["cumulative_prod", "cumulative_sum", "max", "mean", "min", "prod", "std", "sum", "var"]
UTILITY = ["all", "any", "diff"]
VERSION_AND_EXTENSIONS = ["__array_api_version__", "linalg"]
STANDARD_NAMES = (
    VERSION_AND_EXTENSIONS + CONSTANTS + CREATION + DATA_TYPE_FUNCTIONS + DATA_TYPES + ELEMENTWISE + INDEXING + INSPECTION
    + LINEAR_ALGEBRA + MANIPULATION + SEARCHING + SET + SORTING + STATISTICAL + UTILITY
)  # fmt: skip
LINALG_NAMES = [
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul",
    "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet",
    "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
]  # fmt: skip
# Standard names the namespace leaves out, each with the reason.
MISSING = {"from_dlpack": not hasattr(ember, "from_dlpack")}  # served once ember has a DLPack consumer
LINALG_MISSING: set[str] = set()  # every linalg function of the standard is there


def E(a, dtype=None):
    """An ember tensor holding the NumPy array ``a`` (its dtype kept)."""
    return xp.asarray(np.asarray(a, dtype=dtype))


def check(got, want, *, rtol=1e-6, atol=0.0):
    """Same shape, same dtype (by name), same values (NaNs equal) as the NumPy result."""
    want = np.asarray(want)
    assert isinstance(got, ember.Tensor), type(got)
    assert tuple(got.shape) == want.shape, (tuple(got.shape), want.shape)
    assert str(got.dtype).removeprefix("ember.") == want.dtype.name, (got.dtype, want.dtype)
    g = got.numpy()
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, want)


@st.composite
def array_and_axis(draw, dtypes=("int8", "uint8", "int32", "float32", "float64", "bool")):
    """A small array (0-d and empty included, sometimes non-contiguous) and an axis argument for it."""
    dtype = np.dtype(draw(st.sampled_from(dtypes)))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if dtype == np.bool_:
        elements = st.booleans()
    elif dtype.kind == "f":
        elements = st.integers(-6, 6).map(lambda v: v / 2)  # exact; products of up to 48 stay finite
    else:
        elements = st.integers(0 if dtype.kind == "u" else -5, 5)
    a = draw(hnp.arrays(dtype, shape, elements=elements))
    ndim = a.ndim
    axis = draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1) if ndim else st.nothing(),
            st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple) if ndim else st.just(()),
        )
    )
    return a, axis, draw(st.booleans()), draw(st.booleans())


def ember_of(a, transpose):
    """``a`` as an ember tensor, as a non-contiguous (transposed) view when asked and possible."""
    if transpose and a.ndim >= 2:
        return xp.permute_dims(E(np.ascontiguousarray(np.swapaxes(a, -1, -2))), (*range(a.ndim - 2), a.ndim - 1, a.ndim - 2))
    return E(a)


def _strict_to_numpy(x):
    return np.from_dlpack(x)


def check_against_strict(xps, name, build):
    """``xp.<name>`` on the arguments ``build`` makes, against array-api-strict's ``<name>`` on the same ones."""

    def to_ember(v):
        if isinstance(v, list):
            return [to_ember(t) for t in v]
        return xp.asarray(_strict_to_numpy(v)) if isinstance(v, xps._array_object.Array) else v

    s_args, s_kw = build(xps)
    e_args = [to_ember(v) for v in s_args]
    e_kw = {k: (to_ember(v) if not hasattr(v, "__module__") or isinstance(v, xps._array_object.Array) else v) for k, v in s_kw.items()}
    if "dtype" in s_kw:
        e_kw["dtype"] = getattr(xp, str(s_kw["dtype"]).rsplit(".", 1)[-1])
    check(getattr(xp, name)(*e_args, **e_kw), _strict_to_numpy(getattr(xps, name)(*s_args, **s_kw)), rtol=1e-12)
