"""stft and istft: frames against a direct NumPy computation, the round trip, PyTorch's errors,
gradients by gradcheck, and the same calls against torch."""

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import needs_torch, torch

RNG = np.random.default_rng(5)


def _numpy_stft(x, n_fft, hop, window):
    """The one-sided stft of a 1-d signal, without centering: frames by columns."""
    frames = [x[t : t + n_fft] * window for t in range(0, len(x) - n_fft + 1, hop)]
    return np.fft.rfft(np.array(frames), axis=-1).T


def test_stft_matches_a_direct_computation():
    x = RNG.standard_normal(40)
    window = np.hanning(10)
    spec = ember.stft(ember.tensor(x), 10, hop_length=3, window=ember.tensor(window), center=False, return_complex=True)
    np.testing.assert_allclose(spec.numpy(), _numpy_stft(x, 10, 3, window), atol=1e-12)


@pytest.mark.parametrize("kwargs", [{}, {"hop_length": 3, "win_length": 12}, {"normalized": True}])
def test_istft_inverts_stft(kwargs):
    x = RNG.standard_normal((2, 64))
    window = ember.hann_window(kwargs.get("win_length", 16), dtype=ember.float64)
    spec = ember.stft(ember.tensor(x), 16, window=window, return_complex=True, **kwargs)
    assert spec.shape[:2] == (2, 9)
    np.testing.assert_allclose(ember.istft(spec, 16, window=window, length=64, **kwargs).numpy(), x, atol=1e-10)


def test_istft_without_centering_covers_the_frames():
    x = RNG.standard_normal(30)
    spec = ember.stft(ember.tensor(x), 8, hop_length=4, center=False, return_complex=True)  # a rectangular window
    back = ember.istft(spec, 8, hop_length=4, center=False)
    assert back.shape == (28,)  # 8 + 4 * 5: the last two samples start no frame
    np.testing.assert_allclose(back.numpy(), x[:28], atol=1e-10)
    padded = ember.istft(spec, 8, hop_length=4, center=False, length=32)
    assert padded.shape == (32,) and padded[28:].abs().sum().item() == 0


def test_complex_signals_two_sided_and_the_real_view():
    z = RNG.standard_normal(20) + 1j * RNG.standard_normal(20)
    spec = ember.stft(ember.tensor(z), 8)  # a complex signal needs no return_complex
    assert spec.shape == (8, 11) and spec.dtype == ember.complex128
    np.testing.assert_allclose(ember.istft(spec, 8, return_complex=True, length=20).numpy(), z, atol=1e-10)
    real_view = ember.stft(ember.tensor(z.real), 8, return_complex=False)
    assert real_view.shape == (5, 11, 2) and real_view.dtype == ember.float64
    assert ember.tensor(z.real).stft(8, return_complex=True).shape == (5, 11)


BAD = [
    (lambda: ember.stft(ember.ones(10), 4), "requires the return_complex parameter"),
    (lambda: ember.stft(ember.ones(10), 16, center=False, return_complex=True), r"expected 0 < n_fft < 10, but got n_fft=16"),
    (lambda: ember.stft(ember.ones(10), 4, hop_length=0, return_complex=True), "expected hop_length > 0"),
    (lambda: ember.stft(ember.ones(10), 4, win_length=5, return_complex=True), r"expected 0 < win_length <= n_fft"),
    (lambda: ember.stft(ember.ones(10), 4, window=ember.ones(3), return_complex=True), "window tensor of size equal to win_length=4"),
    (lambda: ember.stft(ember.ones(1, 1, 10), 4, return_complex=True), "expected a 1D or 2D tensor"),
    (lambda: ember.stft(ember.ones(10, dtype=ember.int64), 4, return_complex=True), "floating point or complex"),
    (lambda: ember.stft(ember.ones(10, dtype=ember.complex64), 4, onesided=True), "Cannot have onesided output"),
    (lambda: ember.istft(ember.ones(3, 3), 4), "istft requires a complex-valued input"),
    (lambda: ember.istft(ember.ones(3, 3, dtype=ember.complex64), 6), "match n_fft / 2 \\+ 1 when onesided=True, but got 3"),
    (lambda: ember.istft(ember.ones(3, 3, dtype=ember.complex64), 4, hop_length=5), "expected 0 < hop_length <= win_length"),
    (lambda: ember.istft(ember.ones(3, 3, dtype=ember.complex64), 4, window=ember.zeros(4)), "window overlap add min"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "message"), BAD, ids=[m for _, m in BAD])
def test_bad_calls_are_refused(call, message):
    with pytest.raises(RuntimeError, match=message):
        call()


def test_gradients():
    x = ember.tensor(RNG.standard_normal((2, 12)), requires_grad=True)
    w = ember.tensor(RNG.standard_normal(6) + 2, requires_grad=True)

    def transform(signal, window):
        spec = ember.stft(signal, 8, hop_length=2, win_length=6, window=window, return_complex=True)
        return spec.real, spec.imag

    assert gradcheck(transform, (x, w))
    re = ember.tensor(RNG.standard_normal((5, 7)), requires_grad=True)
    im = ember.tensor(RNG.standard_normal((5, 7)), requires_grad=True)
    window = ember.hann_window(8, dtype=ember.float64) + 0.1
    assert gradcheck(lambda a, b: ember.istft(a + 1j * b, 8, hop_length=2, window=window), (re, im))


@needs_torch
@pytest.mark.parametrize("pad_mode", ["reflect", "constant", "replicate", "circular"])
@pytest.mark.parametrize("onesided", [None, False])
def test_stft_and_istft_match_torch(pad_mode, onesided):
    x = RNG.standard_normal((3, 30))
    for lib, make in ((ember, ember.tensor), (torch, torch.tensor)):
        window = lib.hann_window(10, dtype=lib.float64)
        spec = lib.stft(
            make(x), 12, hop_length=3, win_length=10, window=window, pad_mode=pad_mode, onesided=onesided, return_complex=True
        )
        back = lib.istft(spec, 12, hop_length=3, win_length=10, window=window, onesided=onesided, length=30)
        if lib is ember:
            got = (spec.numpy(), back.numpy())
        else:
            want = (spec.numpy(), back.numpy())
    np.testing.assert_allclose(got[0], want[0], atol=1e-10)
    np.testing.assert_allclose(got[1], want[1], atol=1e-10)
