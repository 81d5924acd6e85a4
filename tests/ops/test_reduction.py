"""Reductions against PyTorch (semantics, result dtypes, errors) and NumPy (values).

Shapes are drawn by hypothesis (0-d, empty, size-1 dims), inputs are sometimes transposed or
sliced (non-contiguous), ``dim`` is None, an int or a tuple, negative or not.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember

torch = pytest.importorskip("torch")

TORCH_DTYPES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _np_array(draw, dtype, shape, nan=False):
    n = math.prod(shape)
    if dtype == "bool":
        values = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    elif dtype.startswith(("int", "uint")):
        lo = 0 if dtype.startswith("u") else -4
        values = draw(st.lists(st.integers(lo, 4), min_size=n, max_size=n))
    else:
        elements = st.floats(-3, 3, width=16)
        if nan:
            elements = elements | st.just(math.nan)
        values = draw(st.lists(elements, min_size=n, max_size=n))
        if dtype.startswith("complex"):
            return np.array(values, np.float64).reshape(shape) * (1 - 0.5j)
    return np.array(values, dtype=np.float64 if dtype == "bfloat16" else dtype).reshape(shape)


@st.composite
def tensors(draw, dtypes=TORCH_DTYPES, min_dims=0, nan=False):
    """(ember tensor, torch tensor) with the same values; sometimes non-contiguous."""
    dtype = draw(st.sampled_from(dtypes))
    ndim = draw(st.integers(min_dims, 3))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    layout = draw(st.sampled_from(["contiguous", "transposed", "sliced"]))
    if layout == "sliced" and ndim:
        shape = (shape[0] * 2, *shape[1:])
    values = _np_array(draw, dtype, shape, nan=nan)
    e = ember.tensor(values.tolist() if values.ndim else values.item(), dtype=getattr(ember, dtype)).reshape(shape)
    t = torch.tensor(values, dtype=getattr(torch, dtype)).reshape(shape)
    if layout == "transposed" and ndim >= 2:
        e, t = e.transpose(0, -1), t.transpose(0, -1)
    elif layout == "sliced" and ndim:
        e, t = e[::2], t[::2]
    return e, t


@st.composite
def dims(draw, ndim, allow_none=True):
    """None, an int, or a tuple of distinct dims (maybe negative) for an ``ndim``-d tensor."""
    n = max(ndim, 1)
    choices = ["int", "tuple"] + (["none"] if allow_none else [])
    kind = draw(st.sampled_from(choices))
    if kind == "none":
        return None
    if kind == "int":
        return draw(st.integers(-n, n - 1))
    picked = draw(st.lists(st.integers(0, n - 1), unique=True, min_size=1, max_size=n))
    return tuple(d - n if draw(st.booleans()) else d for d in picked) if ndim else tuple(picked[:1])


def to_numpy(x):
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype == torch.bfloat16:
            return x.float().numpy()
        return x.numpy()
    if x.dtype is ember.bfloat16:
        return x.numpy().astype(np.float32)
    return x.numpy()


TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "complex64": 1e-5}


def assert_same(result, expected, name=""):
    """Same shape, dtype (by name) and values (tolerance by dtype, NaN == NaN)."""
    assert isinstance(result, ember.Tensor), f"{name}: got {type(result)}"
    assert tuple(result.shape) == tuple(expected.shape), f"{name}: shape {tuple(result.shape)} vs {tuple(expected.shape)}"
    assert result.dtype.name == str(expected.dtype).removeprefix("torch."), f"{name}: dtype {result.dtype} vs {expected.dtype}"
    got, want = to_numpy(result), to_numpy(expected)
    if got.dtype.kind in "fc":
        tol = TOL.get(result.dtype.name, 1e-10)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True, err_msg=name)
    else:
        np.testing.assert_array_equal(got, want, err_msg=name)


def check_against_torch(name, e_call, t_call):
    """Run both; if torch refuses the inputs, ember must refuse too."""
    try:
        expected = t_call()
    except (RuntimeError, IndexError, TypeError, NotImplementedError, ValueError) as exc:
        with pytest.raises((RuntimeError, IndexError, TypeError, NotImplementedError, ValueError)):
            e_call()
        return exc
    result = e_call()
    if isinstance(expected, tuple):
        assert len(result) == len(expected)
        for r, x in zip(result, expected, strict=True):
            assert_same(r, x, name)
    else:
        assert_same(result, expected, name)
    return None


# ---------------------------------------------------------------------------------------
# differential tests against PyTorch


DIM_REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "all", "any", "logsumexp", "count_nonzero"]


@pytest.mark.parametrize("name", DIM_REDUCTIONS)
@SETTINGS
@given(data=st.data())
def test_dim_reductions_match_torch(name, data):
    e, t = data.draw(tensors(nan=name in ("amax", "amin", "sum")), label="input")
    dim = data.draw(dims(e.ndim, allow_none=name not in ("logsumexp",)), label="dim")
    if name in ("amax", "amin") and e.dtype.is_complex and e.numel() == 0:
        return  # torch skips its dtype check when there is nothing to compute; ember refuses complex always
    if name == "prod" and isinstance(dim, tuple):
        dim = dim[0]  # torch.prod takes one dim (ember also takes a tuple)
    keepdim = data.draw(st.booleans(), label="keepdim")
    if name == "count_nonzero":
        if t.dtype in (torch.bfloat16,):
            return  # torch has no count_nonzero kernel for bfloat16
        check_against_torch(name, lambda: getattr(ember, name)(e, dim), lambda: getattr(torch, name)(t, dim))
        return
    kwargs = {} if dim is None else {"dim": dim, "keepdim": keepdim}
    check_against_torch(name, lambda: getattr(ember, name)(e, **kwargs), lambda: getattr(torch, name)(t, **kwargs))


@pytest.mark.parametrize("name", ["sum", "mean", "prod"])
@SETTINGS
@given(data=st.data())
def test_dtype_argument_matches_torch(name, data):
    e, t = data.draw(tensors(dtypes=("bool", "int32", "int64", "float16", "float32", "float64")), label="input")
    dtype = data.draw(st.sampled_from(["int64", "float32", "float64", "complex64"]), label="dtype")
    dim = data.draw(dims(e.ndim), label="dim")
    if name == "prod":
        dim = dim[0] if isinstance(dim, tuple) else dim
        if dim is None:
            check_against_torch(
                name, lambda: ember.prod(e, dtype=getattr(ember, dtype)), lambda: torch.prod(t, dtype=getattr(torch, dtype))
            )
            return
    check_against_torch(
        name,
        lambda: getattr(ember, name)(e, dim, dtype=getattr(ember, dtype)),
        lambda: getattr(torch, name)(t, dim, dtype=getattr(torch, dtype)),
    )


@pytest.mark.parametrize("name", ["max", "min"])
@SETTINGS
@given(data=st.data())
def test_max_min_overloads_match_torch(name, data):
    e, t = data.draw(tensors(nan=True), label="input")
    fe, ft = getattr(ember, name), getattr(torch, name)
    check_against_torch(name, lambda: fe(e), lambda: ft(t))
    dim = data.draw(st.integers(-max(e.ndim, 1), max(e.ndim, 1) - 1), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    exc = check_against_torch(name, lambda: fe(e, dim, keepdim), lambda: ft(t, dim, keepdim))
    if exc is None:
        result = getattr(e, name)(dim=dim, keepdim=keepdim)
        assert type(result).__name__ == name and result._fields == ("values", "indices")
        assert_same(result.values, ft(t, dim, keepdim).values)
        assert_same(result.indices, ft(t, dim, keepdim).indices)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@SETTINGS
@given(data=st.data())
def test_arg_reductions_match_torch(name, data):
    e, t = data.draw(tensors(nan=True), label="input")
    dim = data.draw(st.none() | st.integers(-max(e.ndim, 1), max(e.ndim, 1) - 1), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    check_against_torch(name, lambda: getattr(ember, name)(e, dim, keepdim), lambda: getattr(torch, name)(t, dim, keepdim))


@pytest.mark.parametrize("name", ["var", "std"])
@SETTINGS
@given(data=st.data())
def test_var_std_match_torch(name, data):
    e, t = data.draw(tensors(dtypes=("float16", "float32", "float64", "complex64", "complex128", "int32")), label="input")
    dim = data.draw(dims(e.ndim), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    style = data.draw(st.sampled_from(["default", "correction", "unbiased"]), label="style")
    if style == "correction":
        kwargs = {"correction": data.draw(st.sampled_from([0, 1, 2, 0.5]), label="correction")}
    elif style == "unbiased":
        kwargs = {"unbiased": data.draw(st.booleans(), label="unbiased")}
    else:
        kwargs = {}
    positional = style == "unbiased"  # the legacy var(input, dim, unbiased, keepdim) form
    dim_arg = dim if dim is not None or not positional else tuple(range(e.ndim))

    def call(lib, x):
        if positional:
            return getattr(lib, name)(x, dim_arg, kwargs["unbiased"], keepdim)
        return getattr(lib, name)(x, dim, keepdim=keepdim, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about dof <= 0
        check_against_torch(name, lambda: call(ember, e), lambda: call(torch, t))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.filterwarnings("ignore:Casting complex values")  # dtype=float64 of a complex input: both warn
@SETTINGS
@given(data=st.data())
def test_scans_match_torch(name, data):
    e, t = data.draw(
        tensors(dtypes=("bool", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64")), label="input"
    )
    dim = data.draw(st.integers(-max(e.ndim, 1), max(e.ndim, 1) - 1), label="dim")
    dtype = data.draw(st.sampled_from([None, "float64", "int64"]), label="dtype")
    kw_e = {} if dtype is None else {"dtype": getattr(ember, dtype)}
    kw_t = {} if dtype is None else {"dtype": getattr(torch, dtype)}
    check_against_torch(name, lambda: getattr(ember, name)(e, dim, **kw_e), lambda: getattr(torch, name)(t, dim, **kw_t))


@SETTINGS
@given(data=st.data())
def test_norm_matches_torch(data):
    e, t = data.draw(tensors(dtypes=("float32", "float64", "complex64", "int64")), label="input")
    p = data.draw(st.sampled_from(["fro", "nuc", 1, 2, 3, 0.5, 0, math.inf, -math.inf, -1]), label="p")
    dim = data.draw(dims(e.ndim), label="dim")
    keepdim = data.draw(st.booleans(), label="keepdim")
    if p == "nuc" and (dim is None or isinstance(dim, int)):
        dim = None if e.ndim == 2 else (0, -1)
    check_against_torch("norm", lambda: ember.norm(e, p, dim, keepdim), lambda: torch.norm(t, p, dim, keepdim))


# ---------------------------------------------------------------------------------------
# dtypes PyTorch lacks kernels for: against NumPy


@pytest.mark.parametrize("dtype", ["uint16", "uint32", "uint64"])
def test_unsigned_reductions_match_numpy(dtype):
    a = np.arange(24, dtype=dtype).reshape(2, 3, 4)
    x = ember.from_numpy(a)
    assert x.sum().dtype is ember.int64 and x.sum().item() == a.sum()
    np.testing.assert_array_equal(x.sum((0, 2)).numpy(), a.sum((0, 2)))
    np.testing.assert_array_equal(x.amax(1).numpy(), a.max(1))
    np.testing.assert_array_equal(x.argmin(-1).numpy(), a.argmin(-1))
    np.testing.assert_array_equal(x.cumsum(2).numpy(), a.cumsum(2))
    assert x.cumsum(0).dtype is ember.int64
    assert x.any().item() and not x.all().item()


def test_values_against_numpy_on_strided_input():
    a = np.random.default_rng(0).standard_normal((6, 5, 4))
    x = ember.from_numpy(a)[::2].transpose(0, 2)
    v = a[::2].transpose(2, 1, 0)
    np.testing.assert_allclose(x.sum((0, -1)).numpy(), v.sum((0, 2)))
    np.testing.assert_allclose(x.mean(1, keepdim=True).numpy(), v.mean(1, keepdims=True))
    np.testing.assert_allclose(x.var(0, correction=0).numpy(), v.var(0))
    np.testing.assert_allclose(x.std(None).numpy(), v.std(ddof=1))
    np.testing.assert_allclose(x.prod(2).numpy(), v.prod(2))
    np.testing.assert_allclose(x.logsumexp((0, 1)).numpy(), np.log(np.exp(v).sum((0, 1))))
    np.testing.assert_allclose(x.cumprod(1).numpy(), v.cumprod(1))
    np.testing.assert_array_equal(x.max(1).indices.numpy(), v.argmax(1))


# ---------------------------------------------------------------------------------------
# semantics


def test_result_dtypes():
    assert ember.tensor([True, True]).sum().dtype is ember.int64
    assert ember.tensor([1, 2], dtype=ember.int8).prod().dtype is ember.int64
    assert ember.tensor([1, 2], dtype=ember.int32).cumsum(0).dtype is ember.int64
    assert ember.tensor([1.0], dtype=ember.float16).sum().dtype is ember.float16
    assert ember.tensor([1, 2]).argmax().dtype is ember.int64
    assert ember.tensor([1, 2]).mean(dtype=ember.float64).dtype is ember.float64
    assert ember.tensor([1j]).var().dtype is ember.float32
    assert ember.tensor([1, 2]).logsumexp(0).dtype is ember.float32
    assert ember.tensor([1, 2], dtype=ember.uint8).all().dtype is ember.uint8
    assert ember.tensor([1.0, 2.0]).any().dtype is ember.bool
    assert ember.tensor([1.0, 0.0]).count_nonzero().dtype is ember.int64


def test_empty_reductions_give_the_identity():
    e = ember.zeros(0, 3)
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert math.isnan(e.mean().item())
    assert e.sum(0).tolist() == [0.0, 0.0, 0.0]
    assert e.prod(0).tolist() == [1.0, 1.0, 1.0]
    assert e.all().item() is True and e.any().item() is False
    assert e.logsumexp(0).tolist() == [-math.inf] * 3
    assert e.max(1).values.shape == (0,)


def test_half_precision_accumulates_in_float32():
    # accumulating in the half type stalls at 256 (bfloat16) / 2048 (float16)
    assert ember.ones(4096, dtype=ember.bfloat16).sum().item() == 4096.0
    assert ember.ones(10000, dtype=ember.float16).sum().item() == 10000.0
    assert ember.ones(10000, dtype=ember.float16).mean().item() == 1.0
    assert ember.ones(4096, dtype=ember.bfloat16).cumsum(0)[-1].item() == 4096.0


def test_nan_propagates_through_max_and_min():
    x = ember.tensor([[1.0, math.nan, 3.0], [4.0, 5.0, 6.0]])
    assert math.isnan(x.max().item()) and math.isnan(x.amin().item())
    values, indices = x.max(1)
    assert math.isnan(values[0].item()) and values[1].item() == 6.0
    assert indices.tolist() == [1, 2]
    assert x.argmin(1).tolist() == [1, 0]


def test_named_tuples():
    r = ember.tensor([[1, 5], [7, 2]]).min(dim=1, keepdim=True)
    assert r.values.tolist() == [[1], [2]] and r.indices.tolist() == [[0], [1]]
    values, indices = r
    assert values is r[0] and indices is r.indices
    assert repr(r).startswith("min(values=")
    import pickle

    assert pickle.loads(pickle.dumps(r)).indices.tolist() == [[0], [1]]


def test_max_with_a_tensor_is_elementwise():
    if not hasattr(ember, "maximum"):
        pytest.skip("ember.maximum is not there yet")
    a, b = ember.tensor([1, 5]), ember.tensor([3, 2])
    assert ember.max(a, b).tolist() == [3, 5]
    assert ember.min(a, b).tolist() == [1, 2]


def test_out_argument():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    out = ember.empty(2)
    assert ember.sum(x, 0, out=out) is out and out.tolist() == [4.0, 6.0]
    out64 = ember.empty(2, dtype=ember.float64)
    ember.mean(x, 1, out=out64)
    assert out64.tolist() == [1.5, 3.5]
    with pytest.raises(RuntimeError, match="doesn't match"):
        ember.sum(x, 0, out=ember.empty(3))
    y = ember.tensor([1, 2, 3])
    assert y.cumsum_(0) is y and y.tolist() == [1, 3, 6]


def test_zero_dim_inputs():
    s = ember.tensor(3.0)
    for dim in (0, -1, None):
        assert s.sum(dim).item() == 3.0
    assert s.sum(0, keepdim=True).shape == ()
    assert s.max(0).indices.item() == 0
    assert s.argmax(0).item() == 0
    assert s.cumsum(0).tolist() == 3.0
    assert math.isnan(s.var().item())
    assert s.var(correction=0).item() == 0.0


def test_dim_tuple_and_empty_tuple():
    x = ember.arange(24.0).reshape(2, 3, 4)
    assert x.sum((0, 2)).tolist() == [60.0, 92.0, 124.0]
    assert x.sum(()).item() == 276.0  # PyTorch: an empty dim list reduces everything
    assert x.amax(dim=(-1, 0), keepdim=True).shape == (1, 3, 1)


# ---------------------------------------------------------------------------------------
# errors


def test_dimension_errors():
    x = ember.ones(2, 3)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 3\)$"):
        x.sum(3)
    with pytest.raises(IndexError, match=r"range of \[-2, 1\], but got -3"):
        x.max(-3)
    with pytest.raises(IndexError, match=r"range of \[-1, 0\], but got 1"):
        ember.tensor(1.0).sum(1)
    with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
        x.sum((0, -2))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.cumsum(2)


def test_dtype_errors():
    with pytest.raises(
        RuntimeError,
        match=r"mean\(\): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long",
    ):
        ember.tensor([1, 2]).mean()
    with pytest.raises(RuntimeError, match="std and var only support floating point and complex dtypes"):
        ember.tensor([1, 2]).var()
    with pytest.raises(RuntimeError, match=r"argmax\(\): does not support bool input"):
        ember.tensor([True]).argmax()
    with pytest.raises((TypeError, RuntimeError), match="amax"):
        ember.tensor([1j]).amax()
    with pytest.raises(RuntimeError, match=r"linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"):
        ember.tensor([1, 2]).norm()


def test_empty_extremum_errors():
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"):
        ember.zeros(0).max()
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size."):
        ember.zeros(0, 3).max(0)
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim 0 to have non-zero size."):
        ember.zeros(0, 3).amin(0)
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        ember.zeros(0, 3).argmax()


def test_var_arguments():
    x = ember.tensor([1.0, 2.0, 3.0, 4.0])
    assert x.var(unbiased=False).item() == x.var(correction=0).item() == 1.25
    with pytest.raises(TypeError, match="either 'unbiased' or 'correction'"):
        x.var(unbiased=True, correction=1)


def test_meta_tensors_infer_only():
    m = ember.empty(3, 4, device="meta")
    assert m.sum(1, keepdim=True).shape == (3, 1) and m.sum(1).device.type == "meta"
    assert m.max(0).indices.dtype is ember.int64
    assert m.argmax().shape == ()
