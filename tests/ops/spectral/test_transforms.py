"""ember.fft's transforms: values against numpy.fft (no torch needed), PyTorch's dtypes, sizes and
errors, non-contiguous, batched and empty inputs, out=, and the same calls against torch."""

import doctest
import warnings

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

F = ember.fft
RNG = np.random.default_rng(18)


def _real(shape, dtype="float64"):
    return RNG.standard_normal(shape).astype(dtype)


def _complex(shape, dtype="complex128"):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _close(result, expected, dtype="float64"):
    tol = 1e-4 if dtype in ("float32", "complex64") else 1e-10
    np.testing.assert_allclose(result.numpy(), expected, rtol=tol, atol=tol)


# numpy.fft's namesakes take n/axis and s/axes; torch's take n/dim and s/dim
ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_DIM = ["fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2", "rfft2", "irfft2"]
TAKES_REAL = {"rfft", "ihfft", "rfftn", "rfft2"}


@pytest.mark.parametrize("name", ONE_DIM)
@pytest.mark.parametrize("n", [None, 5, 12])
@pytest.mark.parametrize("norm", [None, "backward", "ortho", "forward"])
def test_one_dim_transforms_match_numpy(name, n, norm):
    x = _real((3, 8)) if name in TAKES_REAL else _complex((3, 8))
    result = getattr(F, name)(ember.tensor(x), n=n, dim=0 if n == 12 else -1, norm=norm)
    _close(result, getattr(np.fft, name)(x, n=n, axis=0 if n == 12 else -1, norm=norm))


@pytest.mark.parametrize("name", N_DIM)
@pytest.mark.parametrize(("s", "dim"), [(None, None), ((4, 6), None), (None, (0, 2)), ((3, 5), (2, 0))])
def test_n_dim_transforms_match_numpy(name, s, dim):
    x = _real((3, 4, 6)) if name in TAKES_REAL else _complex((3, 4, 6))
    if name.endswith("2") and dim is None:
        axes = (-2, -1)
    else:
        axes = dim if dim is not None or s is None else tuple(range(3 - len(s), 3))
    kwargs = {} if dim is None else {"dim": dim}
    result = getattr(F, name)(ember.tensor(x), s=s, norm="ortho", **kwargs)
    _close(result, getattr(np.fft, name.replace("2", "n"))(x, s=s, axes=axes, norm="ortho"))


def test_hfftn_and_ihfftn_are_inverses_and_reduce_to_hfft_in_one_dim():
    x = _real((4, 6))
    half = F.ihfftn(ember.tensor(x))
    assert half.shape == (4, 4) and half.dtype == ember.complex128
    _close(F.hfftn(half, s=(4, 6)), x)
    _close(F.hfft2(F.ihfft2(ember.tensor(x)), s=(4, 6)), x)
    c = _complex((3, 5))
    _close(F.hfftn(ember.tensor(c), dim=(1,)), np.fft.hfft(c, axis=1))
    _close(F.ihfftn(ember.tensor(x), dim=(0,)), np.fft.ihfft(x, axis=0))


@pytest.mark.parametrize(
    ("dtype", "complex_result", "real_result"),
    [("float32", "complex64", "float32"), ("float64", "complex128", "float64"), ("int64", "complex64", "float32"),
     ("bool", "complex64", "float32"), ("uint8", "complex64", "float32")],
)  # fmt: skip
def test_result_dtypes_follow_torch(dtype, complex_result, real_result):
    x = ember.tensor(np.arange(6).astype(dtype))
    for fn in (F.fft, F.ifft, F.rfft, F.ihfft, F.fftn, F.rfftn):
        assert fn(x).dtype == getattr(ember, complex_result), fn.__name__
    for fn in (F.irfft, F.hfft, F.irfftn, F.hfftn):
        assert fn(x).dtype == getattr(ember, real_result), fn.__name__
    assert F.fft(ember.tensor(_complex(4, "complex64"))).dtype == ember.complex64


def test_default_dtype_decides_integer_inputs():
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert F.rfft(ember.arange(4)).dtype == ember.complex128
    finally:
        ember.set_default_dtype(previous)


def test_float32_values_and_the_inverse_round_trip():
    x = _real((2, 64), "float32")
    spectrum = F.rfft(ember.tensor(x))
    _close(spectrum, np.fft.rfft(x.astype(np.float64)), "complex64")
    _close(F.irfft(spectrum, n=64), x, "float32")
    c = _complex((5, 7), "complex64")
    _close(F.ifft(F.fft(ember.tensor(c))), c, "complex64")


def test_non_contiguous_and_batched_inputs():
    x = _complex((6, 5, 4))
    xt = ember.tensor(x).transpose(0, 2)[:, ::2]  # (4, 3, 6), strided both ways
    _close(F.fft(xt, dim=1), np.fft.fft(x.transpose(2, 1, 0)[:, ::2], axis=1))
    _close(F.irfftn(xt, dim=(0, 2)), np.fft.irfftn(x.transpose(2, 1, 0)[:, ::2], axes=(0, 2)))
    r = _real((6, 5))
    _close(F.rfft(ember.tensor(r).t(), dim=0), np.fft.rfft(r.T, axis=0))


def test_empty_batches_and_zero_d_inputs():
    empty = ember.zeros(0, 4)
    assert F.fft(empty).shape == (0, 4) and F.rfft(empty).shape == (0, 3) and F.irfft(empty).shape == (0, 6)
    assert F.fftn(empty, dim=(1,)).shape == (0, 4)
    scalar = F.fftn(ember.tensor(2.0))  # no dims to transform: the value, made complex
    assert scalar.shape == () and scalar.item() == 2
    assert F.fftn(ember.tensor([1.0, 2.0]), dim=()).tolist() == [1, 2]


def test_out_receives_the_result():
    x = ember.tensor(_real(8))
    out = ember.empty(5, dtype=ember.complex128)
    assert F.rfft(x, out=out) is out
    _close(out, np.fft.rfft(x.numpy()))
    real_out = ember.empty(8, dtype=ember.float64)
    F.irfft(ember.tensor(np.fft.rfft(x.numpy())), n=8, out=real_out)
    _close(real_out, x.numpy())
    n_out = ember.empty((2, 4), dtype=ember.complex128)
    F.ihfft2(ember.tensor(_real((2, 6))), out=n_out)
    assert n_out.abs().sum().item() > 0


BAD_CALLS = [
    (lambda: F.fft(ember.ones(4), n=0), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (lambda: F.rfft(ember.ones(4), n=-1), RuntimeError, r"Invalid number of data points \(-1\) specified"),
    (lambda: F.irfft(ember.ones(1)), RuntimeError, r"Invalid number of data points \(0\) specified"),
    (lambda: F.fft(ember.ones(4), dim=1), IndexError, r"Dimension out of range"),
    (lambda: F.fft(ember.tensor(1.0)), IndexError, r"Dimension specified as -1 but tensor has no dimensions"),
    (lambda: F.fft(ember.ones(4), norm="bad"), RuntimeError, r'Invalid normalization mode: "bad"'),
    (lambda: F.rfft(ember.ones(4, dtype=ember.complex64)), RuntimeError, r"rfft expects a real input tensor, but got ComplexFloat"),
    (lambda: F.rfftn(ember.ones(4, dtype=ember.complex64)), RuntimeError, r"rfftn expects a real-valued input tensor"),
    (lambda: F.ihfft(ember.ones(4, dtype=ember.complex64)), RuntimeError, r"ihfft expects a real input tensor"),
    (lambda: F.fft(ember.ones(4, dtype=ember.float16)), RuntimeError, r"Unsupported dtype Half"),
    (lambda: F.irfft(ember.ones(4, dtype=ember.bfloat16)), RuntimeError, r"Unsupported dtype BFloat16"),
    (lambda: F.fftn(ember.ones(4), s=(2, 3)), RuntimeError, r"Got shape with 2 values but input tensor only has 1 dimensions"),
    (lambda: F.fftn(ember.ones(4, 4), dim=(0, -2)), RuntimeError, r"FFT dims must be unique"),
    (lambda: F.fftn(ember.ones(4, 4), s=(2,), dim=(0, 1)), RuntimeError, r"dim and shape arguments must have the same length"),
    (lambda: F.fftn(ember.ones(4), s=(-2,)), RuntimeError, r"Invalid number of data points \(-2\) specified"),
    (lambda: F.rfftn(ember.ones(4), dim=()), RuntimeError, r"rfftn must transform at least one axis"),
    (lambda: F.irfftn(ember.ones(4), dim=()), RuntimeError, r"irfftn must transform at least one axis"),
    (lambda: F.fft2(ember.ones(4)), IndexError, r"Dimension out of range"),
    (lambda: F.fft(ember.ones(4), out=ember.empty(4)), RuntimeError, r"fft expects a complex output tensor, but got Float"),
    (lambda: F.irfft(ember.ones(4), out=ember.empty(6, dtype=ember.complex64)), RuntimeError, r"irfft expects a floating point output tensor"),
    (lambda: F.fft(ember.ones(4), dim=1.0), TypeError, r"dim"),
    (lambda: F.fft(ember.ones(4), n=2.5), TypeError, r"\bn\b"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "error", "message"), BAD_CALLS, ids=[m for _, _, m in BAD_CALLS])
def test_bad_arguments_are_refused_as_torch_refuses_them(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_graph_mode_records_the_transforms():
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float64, (2, 8))
        y = F.irfft(F.rfft(x) * 2, n=8)
    value = _real((2, 8))
    with ember.Session(graph=g) as sess:
        np.testing.assert_allclose(sess.run(y, {x: value}), 2 * value, atol=1e-12)


# --- against torch ----------------------------------------------------------------------------


def _torch_call(name, x, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(torch.fft, name)(torch.from_numpy(x.copy()), **kwargs)


@needs_torch
@pytest.mark.parametrize("name", ONE_DIM + N_DIM + ["hfftn", "ihfftn", "hfft2", "ihfft2"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "int32"])
def test_transforms_match_torch(name, dtype):
    x = _complex((3, 4, 6), dtype) if dtype.startswith("complex") else (10 * _real((3, 4, 6))).astype(dtype)
    kwargs = {"n": 7} if name in ONE_DIM else {"s": (5, -1)}
    for norm in (None, "ortho", "forward"):
        try:
            expected = _torch_call(name, x, norm=norm, **kwargs)
        except RuntimeError as exc:
            with pytest.raises(RuntimeError):
                getattr(F, name)(ember.tensor(x), norm=norm, **kwargs)
            assert "expects a real" in str(exc) or "floating-point" in str(exc)
            continue
        result = getattr(F, name)(ember.tensor(x), norm=norm, **kwargs)
        assert str(result.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
        _close(result, expected.resolve_conj().numpy(), str(result.dtype).split(".")[-1])


SHORT_TIME = ["stft", "istft", "hann_window", "hamming_window", "blackman_window", "bartlett_window"]


@pytest.mark.parametrize("name", [f"fft.{name}" for name in F.__all__] + SHORT_TIME)
def test_the_docstring_examples_run(name):
    # namespace functions are not module attributes of ember.ops.functional, where doctest looks
    fn = getattr(F, name[4:]) if name.startswith("fft.") else getattr(ember, name)
    test = doctest.DocTestParser().get_doctest(fn.__doc__, {"ember": ember}, name, None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert test.examples and runner.failures == 0
