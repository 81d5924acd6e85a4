"""The top-level det, slogdet and logdet (and their Tensor methods) over linalg's primitives:
values against NumPy, logdet's nan and -inf, complex logdet, errors naming the op, derivatives."""

import math

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import check, needs_torch, to_ember, torch

from ._helpers import WC, close, leaf, rand, spd


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("batch", [(), (3,), (0,)])
def test_values_match_numpy(dtype, batch):
    A = rand((*batch, 3, 3), dtype)
    Ae = to_ember(A)
    close(ember.det(Ae).numpy(), np.linalg.det(A), dtype)
    close(Ae.det().numpy(), np.linalg.det(A), dtype)
    sign, logabsdet = ember.slogdet(Ae)
    want_sign, want_log = np.linalg.slogdet(A)
    close(sign.numpy(), want_sign, dtype)
    close(logabsdet.numpy(), want_log, dtype)
    assert type(Ae.slogdet()).__name__ == "slogdet"
    want = np.log(want_sign.astype(complex)) + want_log
    got = ember.logdet(Ae).numpy()
    if dtype.startswith("complex"):
        close(got, want, dtype)
    else:
        close(got[want_sign > 0], want.real[want_sign > 0], dtype)
        assert np.isnan(got[want_sign < 0]).all()


def test_logdet_special_values():
    assert math.isnan(ember.logdet(ember.tensor([[1.0, 0.0], [0.0, -1.0]])).item())
    assert ember.logdet(ember.zeros((2, 2))).item() == -math.inf
    assert ember.tensor([[2.0, 0.0], [0.0, 3.0]]).logdet().item() == pytest.approx(math.log(6.0))
    assert ember.logdet(ember.tensor([[1j, 0], [0, 1]])).item() == pytest.approx(1j * math.pi / 2)
    singular = ember.logdet(ember.zeros((2, 2), dtype=ember.complex64)).item()  # PyTorch's -inf + nan j
    assert singular.real == -math.inf and math.isnan(singular.imag)


def test_errors_name_the_op():
    with pytest.raises(RuntimeError, match=r"linalg\.det: A must be batches of square matrices, but they are 2 by 3"):
        ember.det(ember.ones((2, 3)))
    with pytest.raises(RuntimeError, match="logdet: A must be batches of square matrices"):
        ember.logdet(ember.ones((2, 3)))
    with pytest.raises(RuntimeError, match=r"logdet: Expected a floating point or complex tensor as input\. Got Int"):
        ember.logdet(ember.ones((2, 2), dtype=ember.int32))
    with pytest.raises(RuntimeError, match=r"linalg\.slogdet: The input tensor A must have at least 2 dimensions"):
        ember.slogdet(ember.ones(3))


def test_gradcheck():
    assert gradcheck(ember.det, (WC(2, 3, 3),))
    assert gradcheck(ember.logdet, (leaf(spd(3, (2,))),))  # positive-definite: a positive determinant
    assert gradcheck(lambda a: ember.slogdet(a).logabsdet, (WC(3, 3),))


@needs_torch
@pytest.mark.parametrize("name", ["det", "logdet", "slogdet"])
@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_matches_torch(name, dtype):
    A = rand((2, 4, 4), dtype)
    A[0] = A[0] @ A[0].conj().T  # a positive determinant beside a random one
    check(getattr(ember, name), getattr(torch, name), A, grad=dtype == "float64" and name != "logdet", what=name)
    if name == "logdet" and dtype == "float64":
        check(ember.logdet, torch.logdet, A[:1], grad=True)
