"""The ``fft`` extension: the standard's signatures and dtype rules, values against numpy.fft."""

from __future__ import annotations

import numpy as np
import pytest

import ember.array_api as xp

from ._reference import E, check

RNG = np.random.default_rng(12)
REAL = RNG.standard_normal((3, 4, 6))
COMPLEX = REAL + 1j * RNG.standard_normal((3, 4, 6))


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft", "rfft", "ihfft"])
@pytest.mark.parametrize(("n", "axis", "norm"), [(None, -1, "backward"), (5, 0, "ortho"), (9, 1, "forward")])
def test_one_dim_transforms_match_numpy(name, n, axis, norm):
    x = REAL if name in ("rfft", "ihfft") else COMPLEX
    check(getattr(xp.fft, name)(E(x), n=n, axis=axis, norm=norm), getattr(np.fft, name)(x, n=n, axis=axis, norm=norm), rtol=1e-10)


@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
@pytest.mark.parametrize(("s", "axes"), [(None, None), (None, (0, 2)), ((5, -1), (2, 1)), ((3, 4, 7), (0, 1, 2))])
def test_n_dim_transforms_match_numpy(name, s, axes):
    x = REAL if name == "rfftn" else COMPLEX
    want_s = None if s is None else [x.shape[a] if k == -1 else k for k, a in zip(s, axes, strict=True)]
    if name == "irfftn" and s is not None and s[-1] == -1:
        want_s[-1] = 2 * (x.shape[axes[-1]] - 1)
    check(getattr(xp.fft, name)(E(x), s=s, axes=axes), getattr(np.fft, name)(x, s=want_s, axes=axes), rtol=1e-10)


def test_precision_is_kept():
    assert xp.fft.fft(E(COMPLEX, "complex64")).dtype == xp.complex64
    assert xp.fft.rfft(E(REAL, "float32")).dtype == xp.complex64
    assert xp.fft.irfft(E(COMPLEX, "complex64")).dtype == xp.float32
    assert xp.fft.hfft(E(COMPLEX)).dtype == xp.float64


@pytest.mark.parametrize(
    ("call", "dtype"),
    [(xp.fft.fft, "float64"), (xp.fft.ifftn, "float32"), (xp.fft.irfft, "float64"), (xp.fft.hfft, "float32"),
     (xp.fft.rfft, "complex128"), (xp.fft.rfftn, "complex64"), (xp.fft.ihfft, "complex64"), (xp.fft.fft, "int64"),
     (xp.fft.fftshift, "int32"), (xp.fft.ifftshift, "bool")],
)  # fmt: skip
def test_dtypes_the_standard_does_not_allow_are_refused(call, dtype):
    with pytest.raises(TypeError, match=r"only .*floating-point dtypes are allowed"):
        call(E(np.ones(4), dtype))


def test_frequencies_and_shifts():
    check(xp.fft.fftfreq(5, d=0.5), np.fft.fftfreq(5, 0.5).astype(np.float32))
    check(xp.fft.rfftfreq(6, dtype=xp.float64), np.fft.rfftfreq(6))
    with pytest.raises(ValueError, match="real floating-point dtype"):
        xp.fft.fftfreq(4, dtype=xp.complex64)
    with pytest.raises(ValueError, match="device"):
        xp.fft.rfftfreq(4, device="meta")
    check(xp.fft.fftshift(E(REAL), axes=1), np.fft.fftshift(REAL, axes=1))
    check(xp.fft.ifftshift(E(REAL), axes=(0, 2)), np.fft.ifftshift(REAL, axes=(0, 2)))
    check(xp.fft.fftshift(E(REAL)), np.fft.fftshift(REAL))
    check(xp.fft.fftshift(E(np.float64(2.0))), np.float64(2.0))  # a 0-d array has nothing to shift
    check(xp.fft.ifftshift(E(REAL), axes=()), REAL)
