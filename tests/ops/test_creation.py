"""Creation ops against PyTorch and NumPy: factories, *_like, ranges, eye, triangle indices,
meshgrid, asarray; dtype rules, layouts, meta tensors and error messages."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from tests._oracle import needs_torch, torch

ALL = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64, ember.uint16, ember.uint32, ember.uint64,
       ember.float16, ember.bfloat16, ember.float32, ember.float64, ember.complex64, ember.complex128]  # fmt: skip
REAL = [d for d in ALL if d is not ember.bool and not d.is_complex]


def tdtype(d):
    return getattr(torch, d.name)


def values(t):
    if t.dtype is ember.bfloat16 or t.dtype is ember.float16:
        return t.to(ember.float32).numpy()
    return t.numpy()


def tvalues(t):
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    return t.numpy()


# --- empty / zeros / ones / full ------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_zeros_ones_full_every_dtype(dtype):
    z = ember.zeros(2, 3, dtype=dtype)
    o = ember.ones((2, 3), dtype=dtype)
    f = ember.full((3,), 1, dtype=dtype)
    assert z.dtype is o.dtype is f.dtype is dtype and z.shape == o.shape == (2, 3)
    assert np.all(values(z) == 0) and np.all(values(o) == 1) and np.all(values(f) == 1)
    assert z._version == 0 and o._version == 0 and f._version == 0


def test_sizes_as_varargs_tuples_lists_and_size():
    for make in (ember.zeros, ember.ones, ember.empty):
        assert make(2, 3).shape == make((2, 3)).shape == make([2, 3]).shape == make(ember.Size([2, 3])).shape == (2, 3)
        assert make(()).shape == () and make(0).shape == (0,)


def test_empty_is_lazy_and_meta_is_free():
    e = ember.empty(1 << 20, 1 << 20, device="meta")
    assert e.is_meta and e.shape == (1 << 20, 1 << 20)
    lazy = ember.empty(1000)
    assert not lazy.untyped_storage().is_allocated
    z = ember.zeros(1 << 16, 1 << 16, device="meta")
    assert z.is_meta and z.dtype is ember.float32
    assert ember.full((3,), 7, device="meta").dtype is ember.int64


@needs_torch
@pytest.mark.parametrize("value", [True, False, 3, -2, 1.5, 1j, 2 + 0j])
def test_full_infers_dtype_like_torch(value):
    e, t = ember.full((2,), value), torch.full((2,), value)
    assert e.dtype.name == str(t.dtype).replace("torch.", "")
    assert e.tolist() == t.tolist()
    with ember.default_dtype(ember.float64):
        assert ember.full((1,), 1.5).dtype is ember.float64
        assert ember.full((1,), 1j).dtype is ember.complex128


@needs_torch
def test_full_casts_explicit_dtypes_like_torch():
    for value, dtype in [(1.5, ember.int64), (-1.5, ember.int32), (1.5, ember.bool), (0.0, ember.bool), (3, ember.float16)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = torch.full((2,), value, dtype=tdtype(dtype))
        assert ember.full((2,), value, dtype=dtype).tolist() == expected.tolist(), (value, dtype)
    assert ember.full((2,), 2 + 0j, dtype=ember.float32).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=r"full.*float32 without overflow"):
        ember.full((2,), 2 + 3j, dtype=ember.float32)  # an imaginary part is not dropped silently (nor by torch)
    assert ember.full((2,), ember.tensor(3)).dtype is ember.int64
    assert ember.full((2,), b"ab").tolist() == [b"ab", b"ab"]


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: ember.full((2,), 300, dtype=ember.uint8), RuntimeError, "value 300 cannot be converted to type ember.uint8 without overflow"),
        (lambda: ember.full((2,), "x", dtype=ember.float32), TypeError, "must be a number, not str"),
        (lambda: ember.full((2,), ember.ones(2)), RuntimeError, "only supports 0-dimension value tensor"),
        (lambda: ember.full((-1,), 1), RuntimeError, "negative dimension -1"),
        (lambda: ember.zeros(2, dtype=ember.int64, requires_grad=True), RuntimeError, "only Tensors of floating point and complex dtype"),
        (lambda: ember.full((2,), 1, requires_grad=True), RuntimeError, "only Tensors of floating point and complex dtype"),
        (lambda: ember.zeros(3, device="cuda"), RuntimeError, "no CUDA backend"),
        (lambda: ember.empty_strided((2, 3), (1,)), RuntimeError, "mismatch in length of strides and shape"),
        (lambda: ember.empty_strided((2,), (-1,)), RuntimeError, "strides must be non-negative"),
        (lambda: ember.full("ab", 1), TypeError, "argument 'size'"),
    ],
)
def test_factory_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_requires_grad_is_stored_for_floating_and_complex():
    assert ember.zeros(2, requires_grad=True).requires_grad
    assert ember.full((2,), 1j, requires_grad=True).requires_grad
    assert ember.zeros_like(ember.zeros(2), requires_grad=True).requires_grad
    assert not ember.ones(2).requires_grad
    assert ember.arange(3.0, requires_grad=True).requires_grad


def test_empty_strided_layout():
    s = ember.empty_strided((2, 3), (1, 2), dtype=ember.int16)
    assert s.stride() == (1, 2) and s.dtype is ember.int16 and s.untyped_storage().nbytes() == 6 * 2
    assert ember.empty_strided((0, 3), (3, 1)).untyped_storage().nbytes() == 0
    assert ember.empty_strided((2,), (0,), device="meta").is_meta


# --- *_like ---------------------------------------------------------------------------------


@st.composite
def strided(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    perm = draw(st.permutations(range(len(shape))))
    view = base.transpose(perm)
    if view.ndim and draw(st.booleans()):
        view = view[:: draw(st.sampled_from([1, 2]))]
    if view.ndim and draw(st.booleans()):
        view = view[..., ::-1]
    return view


@needs_torch
@settings(max_examples=40)
@given(arr=strided())
def test_like_and_clone_layouts_match_torch(arr):
    e = ember.from_numpy(arr)
    # torch has no negative strides, and gives empty tensors strides of its own
    t = torch.from_numpy(arr) if all(s >= 0 for s in arr.strides) and arr.size else None
    for fn in ("empty_like", "zeros_like", "ones_like"):
        out = getattr(ember, fn)(e)
        assert out.shape == e.shape and out.dtype is e.dtype
        if t is not None:
            assert out.stride() == getattr(torch, fn)(t).stride(), (fn, arr.shape, arr.strides)
    if t is not None:
        assert e.clone().stride() == t.clone().stride()
        assert ember.full_like(e, 2.5).stride() == torch.full_like(t, 2.5).stride()
    assert np.array_equal(e.clone().numpy(), arr)
    assert np.all(ember.full_like(e, 2.5).numpy() == 2.5)


def test_like_dtype_device_and_memory_format():
    x = ember.zeros(2, 3, dtype=ember.int8).t()
    assert ember.zeros_like(x).dtype is ember.int8 and ember.zeros_like(x).stride() == (1, 3)
    assert ember.zeros_like(x, memory_format="contiguous_format").stride() == (2, 1)
    assert ember.ones_like(x, dtype=ember.float64).tolist() == [[1.0, 1.0]] * 3
    assert ember.full_like(x, 7).dtype is ember.int8 and ember.full_like(x, 7).tolist() == [[7, 7]] * 3
    assert ember.empty_like(x, device="meta").is_meta
    assert ember.zeros_like(ember.tensor([b"a"])).tolist() == [b""]
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        ember.empty_like(x, memory_format=ember.channels_last)
    with pytest.raises(TypeError, match="argument 'input' \\(position 1\\) must be Tensor, not list"):
        ember.zeros_like([1, 2])


def test_new_factories_take_the_tensors_dtype_and_device():
    x = ember.tensor([1, 2], dtype=ember.int16)
    assert x.new_zeros((2, 2)).dtype is ember.int16 and x.new_zeros((2, 2)).tolist() == [[0, 0]] * 2
    assert x.new_ones(3).tolist() == [1, 1, 1] and x.new_full((2,), 5).tolist() == [5, 5]
    assert x.new_empty((4,), dtype=ember.float64).dtype is ember.float64
    assert ember.zeros(1, device="meta").new_ones((2,)).is_meta


# --- arange -----------------------------------------------------------------------------------


ARANGE_CASES = [
    (5,), (0,), (True,), (3, 3), (-5, 5, 3), (10, -3, -4), (0, 1, 0.3), (1, 0, -0.25), (0, 1, 0.1), (-1.5, 2.5, 0.5),
    (0.5, 5), (0, 5.5), (2, 2.0), (0, 10, 3), (1e-3, 1e-2, 1e-3), (0, -1, -0.1),
]  # fmt: skip


@needs_torch
@pytest.mark.parametrize("args", ARANGE_CASES)
@pytest.mark.parametrize("dtype", [None, ember.int64, ember.int32, ember.uint8, ember.float16, ember.bfloat16, ember.float32, ember.float64])
def test_arange_matches_torch(args, dtype):
    kwargs = {} if dtype is None else {"dtype": dtype}
    tkwargs = {} if dtype is None else {"dtype": tdtype(dtype)}
    try:
        expected = torch.arange(*args, **tkwargs)
    except (RuntimeError, ValueError):  # torch raises ValueError for a step truncated to 0
        with pytest.raises(RuntimeError):
            ember.arange(*args, **kwargs)
        return
    got = ember.arange(*args, **kwargs)
    assert got.dtype.name == str(expected.dtype).replace("torch.", "")
    assert got.shape == tuple(expected.shape)
    np.testing.assert_allclose(values(got).astype(np.float64), tvalues(expected).astype(np.float64), rtol=1e-2 if dtype in (ember.float16, ember.bfloat16) else 1e-6)


@needs_torch
@settings(max_examples=80)
@given(
    start=st.one_of(st.integers(-30, 30), st.sampled_from([-2.5, -0.1, 0.0, 0.3, 1.7])),
    end=st.one_of(st.integers(-30, 30), st.sampled_from([-3.3, 0.7, 4.25, 10.0])),
    step=st.one_of(st.integers(-7, 7), st.sampled_from([-0.5, -0.3, 0.1, 0.25, 1.5])),
)
def test_arange_drawn_against_torch(start, end, step):
    try:
        expected = torch.arange(start, end, step)
    except RuntimeError as exc:
        with pytest.raises(RuntimeError, match=str(exc).split(" ")[0]):
            ember.arange(start, end, step)
        return
    got = ember.arange(start, end, step)
    assert got.dtype.name == str(expected.dtype).replace("torch.", "") and got.shape == tuple(expected.shape)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, atol=1e-6)


def test_arange_forms_out_and_meta():
    assert ember.arange(end=4).tolist() == [0, 1, 2, 3]
    assert ember.arange(ember.tensor(3)).tolist() == [0, 1, 2]
    assert ember.arange(1, 4, dtype=ember.float64).tolist() == [1.0, 2.0, 3.0]
    out = ember.zeros(3, dtype=ember.int32)
    assert ember.arange(3, out=out) is out and out.tolist() == [0, 1, 2]
    m = ember.arange(10**12, device="meta")
    assert m.is_meta and m.shape == (10**12,)
    with ember.default_dtype(ember.float64):
        assert ember.arange(0.5).dtype is ember.float64


def test_arange_past_one_block_of_the_kernel():
    n = (1 << 20) + 7  # the kernel writes 2**20 values at a time
    assert ember.arange(n)[-3:].tolist() == [n - 3, n - 2, n - 1]
    assert ember.arange(5, -3 * n + 5, -3)[(1 << 20) - 1 : (1 << 20) + 2].tolist() == [5 - 3 * ((1 << 20) + i - 1) for i in range(3)]
    x = ember.arange(0.5, n * 0.25, 0.25, dtype=ember.float64)
    assert x[(1 << 20) : (1 << 20) + 2].tolist() == [0.5 + 0.25 * (1 << 20), 0.75 + 0.25 * (1 << 20)]
    assert ember.arange(n, dtype=ember.uint8)[(1 << 20) + 1].item() == ((1 << 20) + 1) % 256


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "fragment"),
    [
        ((0, 5, 0), {}, RuntimeError, "step must be nonzero"),
        ((5, 0), {}, RuntimeError, "upper bound and lower bound inconsistent with step sign"),
        ((0, 5, -1), {}, RuntimeError, "inconsistent with step sign"),
        ((0, math.inf), {}, RuntimeError, "unsupported range: 0 -> inf"),
        ((0.0, 1e300, 1e-300), {}, RuntimeError, "invalid size, possible overflow"),
        ((5,), {"dtype": ember.bool}, TypeError, "arange\\(\\): argument 'dtype' must have a "),
        ((5,), {"dtype": ember.complex64}, TypeError, "must have a"),
        ((1j,), {}, RuntimeError, "must be real"),
        ((), {}, TypeError, "missing required argument 'end'"),
        (("a",), {}, TypeError, "argument 'start' \\(position 1\\) must be Number, not str"),
        ((3,), {"out": ember.zeros(2)}, RuntimeError, "doesn't match"),
    ],
)
def test_arange_errors(args, kwargs, error, fragment):
    with pytest.raises(error, match=fragment):
        ember.arange(*args, **kwargs)


# --- linspace / logspace -------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("steps", [0, 1, 2, 5, 33])
@pytest.mark.parametrize(("start", "end"), [(0, 1), (3, 3), (10, 0), (-2.5, 7.25), (0, 10)])
@pytest.mark.parametrize("dtype", [None, ember.float64, ember.float16, ember.bfloat16, ember.int64, ember.uint8, ember.int16, ember.complex64])
def test_linspace_matches_torch(start, end, steps, dtype):
    if dtype is ember.uint8 and min(start, end) < 0:
        return
    kwargs = {} if dtype is None else {"dtype": dtype}
    expected = torch.linspace(start, end, steps, **({} if dtype is None else {"dtype": tdtype(dtype)}))
    got = ember.linspace(start, end, steps, **kwargs)
    assert got.dtype.name == str(expected.dtype).replace("torch.", "") and got.shape == tuple(expected.shape)
    tol = 1e-2 if dtype in (ember.float16, ember.bfloat16) else 1e-6
    np.testing.assert_allclose(values(got), tvalues(expected), rtol=tol, atol=tol)
    if steps and (dtype is None or dtype.is_floating_point):
        assert values(got)[-1] == tvalues(expected)[-1]  # the last value is exactly end


@needs_torch
@pytest.mark.parametrize(("start", "end", "steps", "base"), [(0, 3, 4, 10.0), (0, 3, 4, 2.0), (0, 1, 3, 10.0), (-2, 2, 5, 3.0), (1, 1, 1, 10.0)])
@pytest.mark.parametrize("dtype", [None, ember.float64, ember.int64, ember.complex128])
def test_logspace_matches_torch(start, end, steps, base, dtype):
    expected = torch.logspace(start, end, steps, base=base, **({} if dtype is None else {"dtype": tdtype(dtype)}))
    got = ember.logspace(start, end, steps, base, **({} if dtype is None else {"dtype": dtype}))
    assert got.dtype.name == str(expected.dtype).replace("torch.", "")
    np.testing.assert_allclose(values(got), tvalues(expected), rtol=1e-6)


def test_linspace_complex_endpoint_and_errors():
    assert ember.linspace(0, 1j, 3).tolist() == [0j, 0.5j, 1j] and ember.linspace(0, 1j, 3).dtype is ember.complex64
    np.testing.assert_allclose(ember.linspace(0, 1, 4, endpoint=False).numpy(), np.linspace(0, 1, 4, endpoint=False))
    np.testing.assert_allclose(ember.linspace(2.0, 3.0, 5, dtype=ember.float64).numpy(), np.linspace(2.0, 3.0, 5))
    assert ember.linspace(0, 1, 5, device="meta").is_meta
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ember.linspace(0, 1, -1)
    with pytest.raises(TypeError, match="linspace\\(\\): argument 'dtype' must have a "):
        ember.linspace(0, 1, 3, dtype=ember.bool)
    out = ember.empty(3, dtype=ember.float64)
    assert ember.linspace(0, 1, 3, out=out) is out and out.tolist() == [0.0, 0.5, 1.0]


# --- eye, triangle indices -----------------------------------------------------------------------


@pytest.mark.parametrize(("n", "m", "k"), [(0, None, 0), (1, None, 0), (3, None, 0), (2, 4, 0), (4, 2, 0), (3, 3, 1), (3, 4, -2), (3, 3, 5), (2, 3, -7)])
@pytest.mark.parametrize("dtype", [None, ember.bool, ember.int64, ember.float16, ember.complex64])
def test_eye_matches_numpy(n, m, k, dtype):
    got = ember.eye(n, m, k=k, dtype=dtype)
    expected = np.eye(n, m, k=k, dtype=(dtype or ember.float32).numpy_dtype)
    assert got.dtype is (dtype or ember.float32) and got.shape == expected.shape
    assert np.array_equal(values(got), expected.astype(np.float32) if dtype in (ember.float16,) else expected)


def test_eye_errors_out_and_meta():
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0, got -1"):
        ember.eye(-1)
    with pytest.raises(RuntimeError, match="m must be greater or equal to 0, got -2"):
        ember.eye(2, -2)
    out = ember.ones(2, 2, dtype=ember.int32)
    assert ember.eye(2, out=out).tolist() == [[1, 0], [0, 1]]
    assert ember.eye(3, device="meta").is_meta


@needs_torch
@pytest.mark.parametrize(("row", "col", "offset"), [(3, 3, 0), (3, 4, 1), (4, 3, -1), (3, 2, -1), (0, 3, 0), (3, 0, 0), (5, 5, 10), (5, 5, -10), (1, 1, 0), (4, 6, -2)])
def test_triangle_indices_match_torch(row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        got = getattr(ember, name)(row, col, offset)
        expected = getattr(torch, name)(row, col, offset)
        assert got.dtype is ember.int64 and got.shape == tuple(expected.shape) and got.tolist() == expected.tolist(), name
    assert ember.tril_indices(3, 3, dtype=ember.int32).dtype is ember.int32
    assert ember.tril_indices(100, 100, device="meta").shape == (2, 5050)


def test_triangle_indices_errors():
    with pytest.raises(RuntimeError, match="row must be non-negative, got -1"):
        ember.tril_indices(-1, 3)
    with pytest.raises(RuntimeError, match="col must be non-negative"):
        ember.triu_indices(3, -1)
    with pytest.raises(TypeError, match="must have a integral dtype"):
        ember.tril_indices(3, 3, dtype=ember.float32)


# --- meshgrid ------------------------------------------------------------------------------------


@needs_torch
@pytest.mark.parametrize("indexing", ["ij", "xy"])
@pytest.mark.parametrize("sizes", [(2,), (2, 3), (2, 3, 4), (0, 3), (1, 2, 3, 2)])
def test_meshgrid_matches_torch(sizes, indexing):
    arrays = [np.arange(n, dtype=np.float32) + 10 * i for i, n in enumerate(sizes)]
    got = ember.meshgrid([ember.from_numpy(a) for a in arrays], indexing=indexing)
    expected = torch.meshgrid(*[torch.from_numpy(a) for a in arrays], indexing=indexing)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == tuple(e.shape) and np.array_equal(g.numpy(), e.numpy())


def test_meshgrid_views_scalars_and_errors():
    x, y = ember.tensor([1, 2]), ember.tensor([3, 4, 5])
    gx, gy = ember.meshgrid((x, y))
    assert gx.untyped_storage() is x.untyped_storage() and gy.stride() == (0, 1)
    assert [g.shape for g in ember.meshgrid([ember.tensor(1), y])] == [(1, 3), (1, 3)]
    with pytest.raises(RuntimeError, match='indexing must be one of "xy" or "ij", but received: ab'):
        ember.meshgrid([x, y], indexing="ab")
    with pytest.raises(RuntimeError, match="expected 0D or 1D tensors"):
        ember.meshgrid([ember.zeros(2, 2)])
    with pytest.raises(RuntimeError, match="same dtype"):
        ember.meshgrid([x, ember.zeros(2)])


# --- asarray ---------------------------------------------------------------------------------------


def test_asarray_copy_semantics():
    a = np.arange(4, dtype=np.float64)
    shared = ember.asarray(a)
    shared[0] = 10.0
    assert a[0] == 10.0
    copied = ember.asarray(a, copy=True)
    copied[1] = 20.0
    assert a[1] == 1.0
    assert ember.asarray(a, copy=False).numpy().base is not None
    with pytest.raises(ValueError, match="copy=False"):
        ember.asarray(a, dtype=ember.float32, copy=False)
    with pytest.raises(ValueError, match="copy=False"):
        ember.asarray([1, 2], copy=False)
    t = ember.tensor([1, 2])
    assert ember.asarray(t) is t and ember.asarray(t, dtype=ember.int64) is t
    assert ember.asarray(t, copy=True) is not t and ember.asarray(t, copy=True).tolist() == [1, 2]
    assert ember.asarray(t, dtype=ember.float64).dtype is ember.float64
    with pytest.raises(ValueError, match="needs a copy"):
        ember.asarray(t, dtype=ember.float32, copy=False)
    assert ember.asarray([[1.5, 2]]).dtype is ember.float32 and ember.asarray(3).dtype is ember.int64
    assert ember.asarray([1.0], requires_grad=True).requires_grad


@pytest.mark.parametrize("name", ["triu_indices", "tril_indices"])
@pytest.mark.parametrize("args", [(4, 3, 0), (3, 5, 1), (5, 3, -2), (2, 6, -1), (4, 4, 5), (4, 4, -6), (0, 3, 0)])
def test_tri_indices_lay_out_only_the_rows_and_columns_that_hold_entries(name, args):
    row, col, offset = args
    want = (np.tril_indices if name == "tril_indices" else np.triu_indices)(row, offset, col)
    assert getattr(ember, name)(*args).tolist() == [list(want[0]), list(want[1])]


def test_triu_indices_of_huge_rows_and_few_columns_is_small():
    # six entries: NumPy's mask over 2**62 rows would never fit in memory
    assert ember.triu_indices(2**62, 3).tolist() == [[0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]]
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        ember.tril_indices(2**62, 3)


@pytest.mark.parametrize("dtype", [ember.bool, ember.float32, ember.int64])
def test_none_is_no_element_of_any_dtype(dtype):
    with pytest.raises((TypeError, RuntimeError), match="NoneType"):
        ember.tensor(None, dtype=dtype)
    with pytest.raises((TypeError, RuntimeError), match="NoneType"):
        ember.ones(1).new_tensor([None], dtype=dtype)
