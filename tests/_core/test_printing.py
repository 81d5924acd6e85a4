"""Tests for ember._core.printing: tensor reprs compared with torch's, character for character."""

import contextlib
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from ember._core.printing import (
    format_tensor,
    get_printoptions,
    printoptions,
    set_printoptions,
)
from tests._oracle import require_torch

try:
    import ml_dtypes
except ImportError:  # bfloat16 cases are skipped without it
    ml_dtypes = None

NUMPY_DTYPES = [
    "bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]  # fmt: skip
DTYPES = [*NUMPY_DTYPES, "bfloat16"] if ml_dtypes is not None else NUMPY_DTYPES
DEFAULT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}
FEW = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


@pytest.fixture(autouse=True)
def _restore_options():
    set_printoptions(profile="default")
    yield
    set_printoptions(profile="default")


@pytest.fixture(scope="module")
def torch():
    torch = require_torch()
    yield torch
    torch.set_printoptions(profile="default")


def numpy_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def to_torch(torch, arr):
    """The same values as a torch tensor (bfloat16 goes through float32, exactly)."""
    arr = np.ascontiguousarray(arr)
    if arr.dtype.name == "bfloat16":
        return torch.from_numpy(arr.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(arr.copy())


def torch_shows_dtype(torch, t):
    if t.is_meta or t.numel() == 0:
        return t.dtype != torch.float32
    return t.dtype not in (torch.float32, torch.int64, torch.bool, torch.complex64)


def ember_repr(arr, dtype_name=None, show_dtype=None, **kwargs):
    arr = np.asarray(arr)
    name = dtype_name or arr.dtype.name
    show = (
        show_dtype
        if show_dtype is not None
        else name not in ("float32", "int64", "bool")
    )
    return format_tensor(
        arr, shape=arr.shape, dtype_name=name, show_dtype=show, **kwargs
    )


def assert_matches_torch(torch, arr, extras=(), requires_grad=False):
    t = to_torch(torch, arr)
    if requires_grad:
        t.requires_grad_(True)
    expected = repr(t).replace("torch.", "ember.")
    got = format_tensor(
        arr,
        shape=tuple(t.shape),
        dtype_name=str(t.dtype).removeprefix("torch."),
        show_dtype=torch_shows_dtype(torch, t),
        extras=extras,
    )
    assert got == expected, f"\nember:\n{got}\ntorch:\n{expected}"


@contextlib.contextmanager
def both_printoptions(torch, **kwargs):
    """Set the same options in ember and torch; restore both afterwards."""
    with printoptions(**kwargs):
        torch.set_printoptions(**kwargs)
        try:
            yield
        finally:
            torch.set_printoptions(profile="default")


# --- values ---------------------------------------------------------------

SPECIAL = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e-30, -1e-7, 1e-4, 0.5, 1.0, -3.0,
           999.0, 1000.0, 1e8, 1.5e8, -2.5e12, 1e30, 65504.0]  # fmt: skip


def random_array(shape, dtype, family, scale, seed):
    """Values of one 'family' so that each formatting mode is reached often."""
    rng = np.random.default_rng(seed)
    size = math.prod(shape)
    dt = numpy_dtype(dtype)
    if dt.kind == "b":
        return rng.integers(0, 2, size).astype(bool).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        high = min(int(info.max), 10**scale)
        low = max(int(info.min), -high)
        return rng.integers(low, high, size, endpoint=True, dtype=dt).reshape(shape)
    if family == "normal":
        flat = rng.standard_normal(size) * 10.0**scale
    elif family == "integer":
        flat = np.round(rng.standard_normal(size) * 10.0**scale)
    else:
        flat = rng.choice(np.array(SPECIAL), size) * rng.choice(
            [1.0, 10.0**scale], size
        )
    with np.errstate(over="ignore", invalid="ignore"):  # inf * 1j, and casts to float16
        if dt.kind == "c":
            flat = flat + 1j * rng.permutation(flat)
        return flat.astype(dt).reshape(shape)


shapes = st.lists(st.integers(0, 5), max_size=4).map(tuple)
families = st.sampled_from(["normal", "integer", "special"])
random_arrays = st.builds(
    random_array,
    shapes,
    st.sampled_from(DTYPES),
    families,
    st.integers(-9, 12),
    st.integers(0, 2**32),
)


# --- differential tests against torch --------------------------------------------

EDGE_CASES = [
    np.array([1.0, 2.0], np.float32),
    np.array(3.5, np.float32),
    np.array(-0.0, np.float64),
    np.array(math.nan, np.float32),
    np.array([0.0, -0.0, math.nan, math.inf, -math.inf], np.float32),
    np.array([1.5, math.nan, -math.inf, -0.0], np.float32),
    np.array([1.0, -math.inf]),
    np.array([1e-5, 1.0, 1e10], np.float32),
    np.array([1e-4, 0.1]),
    np.array([1e8, 1.0]),
    np.array([1.1e8, 1.0]),
    np.array([0.001, 1.0]),
    np.array([0.00099, 1.0]),
    np.array([5e-324, 1.7e308]),
    np.array([123456789.0, 2.0], np.float32),
    np.array([True, False]),
    np.array(True),
    np.array([[1, -20], [300, 4]]),
    np.array([0, 2**64 - 1], np.uint64),
    np.array([-128, 127], np.int8),
    np.array([1 + 2j, 3 - 1j], np.complex64),
    np.array([complex(1, -0.0), complex(-0.0, 0.0), complex(math.nan, math.inf)]),
    np.array(2.5 - 1e-6j, np.complex64),
    np.array([1e-6 + 3j, 7 + 1e9j]),
    np.zeros((0,), np.float32),
    np.zeros((0,), np.int64),
    np.zeros((0, 3), np.float32),
    np.zeros((2, 0, 1), bool),
    np.zeros((0,), np.complex64),
    np.arange(1001),
    np.arange(1000, dtype=np.float64),
    np.arange(4000, dtype=np.float32).reshape(40, 100) / 7,
    np.arange(2 * 3 * 4 * 5, dtype=np.int16).reshape(2, 3, 4, 5),
    np.linspace(-5, 5, 2 * 10 * 10 * 10).reshape(2, 10, 10, 10),
    np.linspace(-1, 1, 7 * 600).reshape(7, 600).astype(np.float16),
    np.full((3, 30), 65504.0, np.float16),
    np.arange(90, dtype=np.complex128).reshape(3, 30) * (1 + 1j) / 3,
]


@pytest.mark.parametrize("arr", EDGE_CASES, ids=lambda a: f"{a.dtype}{a.shape}")
def test_edge_cases_match_torch(torch, arr):
    assert_matches_torch(torch, arr)


@pytest.mark.skipif(ml_dtypes is None, reason="needs ml_dtypes")
@pytest.mark.parametrize(
    "values",
    [
        [1.0, 2.0],
        [0.1, -3.3, 1e-3],
        [1e10, 1.0],
        [[1.5, math.nan], [-math.inf, 3.0]],
        7.0,
    ],
)
def test_bfloat16_matches_torch(torch, values):
    assert_matches_torch(torch, np.array(values, np.float32).astype(ml_dtypes.bfloat16))


@FEW
@given(arr=random_arrays)
def test_random_arrays_match_torch(torch, arr):
    assert_matches_torch(torch, arr)


@FEW
@given(
    arr=hnp.arrays(
        st.sampled_from(NUMPY_DTYPES).map(np.dtype),
        hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    )
)
def test_arbitrary_elements_match_torch(torch, arr):
    assert_matches_torch(torch, arr)


@settings(max_examples=15, deadline=None)
@given(
    shape=st.sampled_from(
        [(1001,), (3, 400), (40, 30), (2, 1, 700), (11, 10, 11), (5, 1, 7, 30)]
    ),
    dtype=st.sampled_from(DTYPES),
    family=families,
    scale=st.integers(-6, 10),
    seed=st.integers(0, 2**32),
)
def test_summarized_arrays_match_torch(torch, shape, dtype, family, scale, seed):
    assert_matches_torch(torch, random_array(shape, dtype, family, scale, seed))


options = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 8),
        "threshold": st.sampled_from([0, 1, 5, 20, 100, math.inf]),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(1, 120),
        "profile": st.sampled_from(["default", "short", "full"]),
        "sci_mode": st.sampled_from([None, True, False]),
    },
)


@FEW
@given(opts=options, arr=random_arrays)
def test_printoptions_match_torch(torch, opts, arr):
    with both_printoptions(torch, **opts):
        assert get_printoptions() == torch._tensor_str.get_printoptions()
        assert_matches_torch(torch, arr)


@pytest.mark.parametrize("linewidth", [20, 40, 80])
@pytest.mark.parametrize(
    "arr",
    [
        np.arange(6.0),
        np.arange(30.0).reshape(3, 10) / 3,
        np.full((2, 9), -12345.5),
        np.zeros((0, 2)),
    ],
    ids=["vector", "matrix", "wide", "empty"],
)
def test_suffix_wrapping_matches_torch(torch, arr, linewidth):
    with both_printoptions(torch, linewidth=linewidth):
        assert_matches_torch(
            torch, arr, extras=("requires_grad=True",), requires_grad=True
        )
        assert_matches_torch(
            torch,
            arr.astype(np.float16),
            extras=("requires_grad=True",),
            requires_grad=True,
        )


def test_grad_fn_suffix_matches_torch(torch):
    t = torch.ones(2, 3, dtype=torch.float64, requires_grad=True) * 2
    got = format_tensor(
        t.detach().numpy(), shape=(2, 3), dtype_name="float64", show_dtype=True,
        extras=("grad_fn=<MulBackward0>",),
    )  # fmt: skip
    assert got == repr(t).replace("torch.", "ember.")


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (0, 4)])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_meta_matches_torch(torch, shape, dtype):
    t = torch.empty(shape, device="meta", dtype=getattr(torch, dtype))
    expected = repr(t).replace("torch.", "ember.")
    show = torch_shows_dtype(torch, t)
    assert (
        format_tensor(None, shape=shape, dtype_name=dtype, show_dtype=show) == expected
    )
    assert (
        format_tensor(
            None, shape=shape, dtype_name=dtype, show_dtype=show, device="meta"
        )
        == expected
    )


# --- literal snapshots (no torch needed) ---------------------------------------------


def test_snapshots_floats():
    assert ember_repr(np.array([1.0, 2.0], np.float32)) == "tensor([1., 2.])"
    assert ember_repr(np.array(3.5, np.float32)) == "tensor(3.5000)"
    assert (
        ember_repr(np.array([1.5, math.nan, -0.0], np.float32))
        == "tensor([1.5000,    nan, -0.0000])"
    )
    assert (
        ember_repr(np.array([1e-5, 1.0]))
        == "tensor([1.0000e-05, 1.0000e+00], dtype=ember.float64)"
    )
    assert ember_repr(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)) == (
        "tensor([[1., 2.],\n        [3., 4.]])"
    )


def test_snapshots_other_dtypes():
    assert ember_repr(np.array([True, False])) == "tensor([ True, False])"
    assert ember_repr(np.array([1, -20, 300])) == "tensor([  1, -20, 300])"
    assert (
        ember_repr(np.array([1 + 2j, 3 - 1j], np.complex64), show_dtype=False)
        == "tensor([1.+2.j, 3.-1.j])"
    )
    assert ember_repr(np.zeros((0,), np.float32)) == "tensor([])"
    assert ember_repr(np.zeros((0, 3), np.float32)) == "tensor([], size=(0, 3))"
    assert (
        ember_repr(np.arange(2000))
        == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"
    )
    if ml_dtypes is not None:
        bf16 = np.array([0.1, 2.0], np.float32).astype(ml_dtypes.bfloat16)
        assert ember_repr(bf16) == "tensor([0.1001, 2.0000], dtype=ember.bfloat16)"


def test_snapshots_nesting_and_summary():
    assert ember_repr(np.arange(8).reshape(2, 2, 2)) == (
        "tensor([[[0, 1],\n         [2, 3]],\n\n        [[4, 5],\n         [6, 7]]])"
    )
    with printoptions(threshold=4, edgeitems=1):
        assert ember_repr(np.arange(9).reshape(3, 3)) == (
            "tensor([[0,  ..., 2],\n        ...,\n        [6,  ..., 8]])"
        )
    with printoptions(threshold=4, edgeitems=0):
        assert ember_repr(np.arange(9).reshape(3, 3)) == "tensor([...], size=(3, 3))"
    with printoptions(linewidth=20):
        assert (
            ember_repr(np.arange(6.0, dtype=np.float32))
            == "tensor([0., 1., 2.,\n        3., 4., 5.])"
        )


def test_snapshots_suffixes():
    x = np.array([1.0, 2.0], np.float32)
    assert ember_repr(x, device="cuda:0") == "tensor([1., 2.], device='cuda:0')"
    assert ember_repr(
        x.astype(np.float64), device="cuda:1", extras=("requires_grad=True",)
    ) == ("tensor([1., 2.], device='cuda:1', dtype=ember.float64, requires_grad=True)")
    got = format_tensor(None, shape=(2, 3), dtype_name="int64", show_dtype=True)
    assert got == "tensor(..., device='meta', size=(2, 3), dtype=ember.int64)"
    with printoptions(linewidth=45):
        assert ember_repr(np.arange(3.0), extras=("requires_grad=True",)) == (
            "tensor([0., 1., 2.], dtype=ember.float64,\n       requires_grad=True)"
        )


def test_snapshots_strings():
    def strings(values, shape):
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
        return format_tensor(arr, shape=shape, dtype_name="string", show_dtype=True)

    assert strings([b"a", b"bc"], (2,)) == "tensor([ b'a', b'bc'], dtype=ember.string)"
    assert strings([b"x"], ()) == "tensor(b'x', dtype=ember.string)"
    assert strings([], (0,)) == "tensor([], dtype=ember.string)"
    assert strings([b"it's", b"", b"\x00", b"z"], (2, 2)) == (
        "tensor([[b\"it's\",     b''],\n"
        "        [b'\\x00',    b'z']], dtype=ember.string)"
    )
    with printoptions(threshold=3, edgeitems=1):
        assert (
            strings([b"a", b"bb", b"ccc", b"d"], (4,))
            == "tensor([b'a',  ..., b'd'], dtype=ember.string)"
        )


# --- options -----------------------------------------------------------------------


def test_defaults_and_profiles():
    assert get_printoptions() == {**DEFAULT_OPTIONS, "sci_mode": None}
    set_printoptions(profile="short", linewidth=60)
    assert get_printoptions() == {
        "precision": 2,
        "threshold": 1000,
        "edgeitems": 2,
        "linewidth": 60,
        "sci_mode": None,
    }
    set_printoptions(profile="full")
    assert get_printoptions()["threshold"] == math.inf
    set_printoptions(sci_mode=True)
    set_printoptions(precision=3)  # like torch: sci_mode is reset when not given
    assert get_printoptions()["sci_mode"] is None


def test_printoptions_restores_on_error():
    before = get_printoptions()
    with pytest.raises(RuntimeError), printoptions(precision=1, sci_mode=True):
        assert get_printoptions()["sci_mode"] is True
        raise RuntimeError
    assert get_printoptions() == before


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"precision": "4"},
            TypeError,
            "argument 'precision' must be a non-negative int, not str",
        ),
        (
            {"precision": 2.0},
            TypeError,
            "argument 'precision' must be a non-negative int, not float",
        ),
        (
            {"precision": True},
            TypeError,
            "argument 'precision' must be a non-negative int, not bool",
        ),
        (
            {"precision": -1},
            ValueError,
            "argument 'precision' must be a non-negative int, got -1",
        ),
        (
            {"edgeitems": -2},
            ValueError,
            "argument 'edgeitems' must be a non-negative int, got -2",
        ),
        (
            {"linewidth": 0},
            ValueError,
            "argument 'linewidth' must be a positive int, got 0",
        ),
        (
            {"threshold": "big"},
            TypeError,
            "argument 'threshold' must be a non-negative number",
        ),
        (
            {"threshold": math.nan},
            ValueError,
            "argument 'threshold' must be a non-negative number",
        ),
        (
            {"profile": "long"},
            ValueError,
            "argument 'profile' must be one of 'default', 'short', 'full'",
        ),
        (
            {"sci_mode": 1},
            TypeError,
            "argument 'sci_mode' must be a bool or None, not int",
        ),
    ],
)
def test_bad_options_raise_and_change_nothing(kwargs, error, message):
    before = get_printoptions()
    with pytest.raises(error, match="^" + re.escape("set_printoptions(): " + message)):
        set_printoptions(**{"edgeitems": 1, **kwargs})
    assert get_printoptions() == before


def test_numpy_integers_are_accepted():
    set_printoptions(precision=np.int64(2), threshold=np.int32(10))
    assert get_printoptions()["precision"] == 2
    assert type(get_printoptions()["precision"]) is int
