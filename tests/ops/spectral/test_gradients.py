"""The derivatives of ember.fft's transforms: gradcheck and gradgradcheck in float64 (a complex
input enters as its real and imaginary parts, a complex result leaves as its parts, so finite
differences see the whole real Jacobian), and the gradients against torch's."""

import types

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, torch

F = ember.fft
RNG = np.random.default_rng(7)


def _leaf(shape):
    return ember.tensor(RNG.standard_normal(shape), requires_grad=True)


def _parts(result):
    return (result.real, result.imag) if result.dtype.is_complex else result


# (name, call on a complex input z; real-input transforms take z.real)
CASES = [
    ("fft", lambda z: F.fft(z, n=8, norm="ortho")),
    ("fft trimmed", lambda z: F.fft(z, n=4)),
    ("fft of a real input", lambda z: F.fft(z.real, n=7)),
    ("ifft", lambda z: F.ifft(z, dim=0)),
    ("ifft of a real input", lambda z: F.ifft(z.real, norm="forward")),
    ("rfft", lambda z: F.rfft(z.real)),
    ("rfft odd", lambda z: F.rfft(z.real, n=7, norm="forward")),
    ("ihfft", lambda z: F.ihfft(z.real, n=5)),
    ("irfft", lambda z: F.irfft(z)),
    ("irfft odd", lambda z: F.irfft(z, n=9, norm="ortho")),
    ("irfft trimmed", lambda z: F.irfft(z, n=4)),
    ("hfft", lambda z: F.hfft(z)),
    ("hfft odd", lambda z: F.hfft(z, n=7, norm="forward")),
    ("fftn", lambda z: F.fftn(z)),
    ("fft2 of a real input", lambda z: F.fft2(z.real, s=(4, 5))),
    ("ifftn", lambda z: F.ifftn(z, dim=(0,))),
    ("rfftn", lambda z: F.rfftn(z.real, norm="ortho")),
    ("rfft2", lambda z: F.rfft2(z.real, s=(2, 5))),
    ("irfftn", lambda z: F.irfftn(z)),
    ("irfft2 odd", lambda z: F.irfft2(z, s=(3, 5))),
    ("hfftn", lambda z: F.hfftn(z)),
    ("hfft2", lambda z: F.hfft2(z, s=(4, 7))),
    ("ihfftn", lambda z: F.ihfftn(z.real)),
    ("ihfft2", lambda z: F.ihfft2(z.real, norm="ortho")),
    ("fftshift", lambda z: F.fftshift(z, dim=1)),
]


@pytest.mark.parametrize(("name", "fn"), CASES, ids=[c[0] for c in CASES])
def test_gradcheck_and_gradgradcheck(name, fn):
    a, b = _leaf((3, 6)), _leaf((3, 6))

    def real_map(re, im):
        return _parts(fn(re + 1j * im))

    assert gradcheck(real_map, (a, b))
    assert gradgradcheck(real_map, (a, b))


def test_a_real_input_gets_a_real_gradient():
    x = _leaf(8)
    F.rfft(x).abs().sum().backward()
    assert x.grad.dtype == ember.float64 and x.grad.shape == (8,)
    y = _leaf((2, 6))
    F.fftn(y).real.sum().backward()  # fftn makes the input complex first: the cast's gradient is real
    assert y.grad.dtype == ember.float64


def test_parseval_gives_the_known_gradient():
    # ||fft(x, norm="ortho")||^2 == ||x||^2, so the gradient of the energy is 2 x
    x = _leaf((3, 5))
    F.fft(x, norm="ortho").abs().pow(2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), atol=1e-12)


def _on(namespace, fn):
    """The case's call with ``F`` bound to ``namespace`` (torch.fft for the oracle)."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, "F": namespace}, fn.__name__, fn.__defaults__, fn.__closure__)


@needs_torch
@pytest.mark.parametrize(("name", "fn"), CASES, ids=[c[0] for c in CASES])
def test_gradients_match_torch(name, fn):
    re = RNG.standard_normal((3, 6))
    im = RNG.standard_normal((3, 6))
    e_re, e_im = ember.tensor(re, requires_grad=True), ember.tensor(im, requires_grad=True)
    t_re, t_im = torch.tensor(re, requires_grad=True), torch.tensor(im, requires_grad=True)
    e_out = fn(e_re + 1j * e_im)
    t_out = _on(torch.fft, fn)(torch.complex(t_re, t_im))
    shape = tuple(e_out.shape)
    weights = RNG.standard_normal(shape) + (1j * RNG.standard_normal(shape) if e_out.dtype.is_complex else 0)
    e_loss = (e_out * ember.tensor(weights).conj()).real.sum()
    t_loss = (t_out * torch.tensor(weights).conj()).real.sum()
    np.testing.assert_allclose(e_loss.item(), t_loss.item(), rtol=1e-10)
    e_loss.backward()
    t_loss.backward()
    np.testing.assert_allclose(e_re.grad.numpy(), t_re.grad.numpy(), atol=1e-10)
    np.testing.assert_allclose(e_im.grad.numpy(), t_im.grad.numpy(), atol=1e-10)
