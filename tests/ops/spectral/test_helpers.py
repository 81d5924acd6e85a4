"""fftfreq, rfftfreq, fftshift, ifftshift: against numpy.fft, PyTorch's dtypes and errors."""

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

F = ember.fft


@pytest.mark.parametrize("n", [1, 2, 5, 8])
@pytest.mark.parametrize("d", [1.0, 0.1, 3])
def test_frequencies_match_numpy(n, d):
    np.testing.assert_allclose(F.fftfreq(n, d).numpy(), np.fft.fftfreq(n, d), rtol=1e-6)
    np.testing.assert_allclose(F.rfftfreq(n, d).numpy(), np.fft.rfftfreq(n, d), rtol=1e-6)


def test_no_points_have_no_frequencies_but_rfftfreq_keeps_the_zero_one():
    assert F.fftfreq(0).shape == (0,)
    assert F.rfftfreq(0).shape == (1,)  # 0 / (0 * d): nan, as torch computes it


def test_frequency_dtypes_devices_and_requires_grad():
    assert F.fftfreq(4).dtype == ember.float32
    f = F.rfftfreq(6, dtype=ember.float64, device="cpu", requires_grad=True)
    assert f.dtype == ember.float64 and f.requires_grad and f.device == ember.device("cpu")
    assert F.fftfreq(4, dtype=ember.complex128).tolist() == [0, 0.25, -0.5, -0.25]
    out = ember.empty(5, dtype=ember.float64)
    assert F.fftfreq(5, out=out) is out and out.tolist() == np.fft.fftfreq(5).tolist()
    with pytest.raises(RuntimeError, match="fftfreq requires a floating point or complex dtype"):
        F.fftfreq(4, dtype=ember.int64)
    with pytest.raises(RuntimeError, match="negative dimension -1"):
        F.fftfreq(-1)


@pytest.mark.parametrize("shape", [(5,), (4, 3), (2, 5, 4)])
def test_shifts_match_numpy_and_undo_each_other(shape):
    x = np.arange(np.prod(shape)).reshape(shape)
    np.testing.assert_array_equal(F.fftshift(ember.tensor(x)).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(F.ifftshift(ember.tensor(x)).numpy(), np.fft.ifftshift(x))
    np.testing.assert_array_equal(F.fftshift(ember.tensor(x), dim=-1).numpy(), np.fft.fftshift(x, axes=-1))
    np.testing.assert_array_equal(F.ifftshift(F.fftshift(ember.tensor(x), dim=(0,)), dim=0).numpy(), x)


def test_shifts_refuse_bad_dims():
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.fftshift(ember.ones(3, 4), dim=2)
    with pytest.raises(RuntimeError, match="shifts"):
        F.fftshift(ember.tensor(1.0))


@needs_torch
def test_helpers_match_torch():
    for n in (0, 1, 6, 7):
        np.testing.assert_array_equal(F.fftfreq(n, 0.5).numpy(), torch.fft.fftfreq(n, 0.5).numpy())
        np.testing.assert_array_equal(F.rfftfreq(n, 2.0).numpy(), torch.fft.rfftfreq(n, 2.0).numpy())
    x = np.arange(30.0).reshape(5, 6)
    for dim in (None, 0, (1,), (0, 1)):
        np.testing.assert_array_equal(
            F.fftshift(ember.tensor(x), dim=dim).numpy(), torch.fft.fftshift(torch.tensor(x), dim=dim).numpy()
        )
        np.testing.assert_array_equal(
            F.ifftshift(ember.tensor(x), dim=dim).numpy(), torch.fft.ifftshift(torch.tensor(x), dim=dim).numpy()
        )
