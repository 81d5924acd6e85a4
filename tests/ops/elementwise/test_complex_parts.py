"""real, imag (views), conj, conj_physical, angle: forward against PyTorch, writes through the
views, derivatives by gradcheck and against PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests._oracle import require_torch, torch
from tests.ops.elementwise._grad_helpers import F64, compare_grads, complex_unary_against_torch, leaf, unary_gradcheck
from tests.ops.elementwise._helpers import unary_matches_torch

test_unary_matches_torch = unary_matches_torch(
    ["angle", "conj_physical"],
    {
        "conj": (lambda x: ember.conj(x), lambda x: torch.conj(x).resolve_conj()),
        "real": (lambda x: ember.real(x), lambda x: torch.real(x)),
        "imag": (lambda x: ember.imag(x), lambda x: torch.imag(x)),
    },
)


def test_real_imag_are_views_and_conj():
    z = ember.tensor([1 + 2j, 3 - 4j])
    assert z.real.tolist() == [1.0, 3.0] and z.imag.tolist() == [2.0, -4.0]
    assert z.real.dtype is ember.float32
    z.imag.mul_(10)  # writes through the view
    assert z.tolist() == [1 + 20j, 3 - 40j]
    assert ember.real(z[1:]).tolist() == [3.0]
    assert ember.imag(ember.tensor([[1j, 2j], [3j, 4j]]).t()).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    r = ember.tensor([1.0])
    assert ember.real(r) is r and ember.conj(r) is r
    assert ember.conj(z).tolist() == [1 - 20j, 3 + 40j]
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes"):
        r.imag


# ---------------------------------------------------------------------------------------
# derivatives

test_unary_gradcheck = unary_gradcheck(
    {
        "conj_physical": (lambda x: ember.conj_physical(x), -2, 2, []),
        "angle": (lambda x: ember.angle(x), -2, 2, [0]),
    }
)


def test_real_imag_views():
    z = leaf([1 + 2j, 3 - 1j], dtype=ember.complex128)
    (g,) = grad(ember.real(z), z, ember.tensor([1.0, 2.0], dtype=F64))
    assert g.dtype is ember.complex128 and g.tolist() == [1 + 0j, 2 + 0j]
    (g,) = grad(ember.imag(z), z, ember.tensor([1.0, 2.0], dtype=F64))
    assert g.tolist() == [1j, 2j]


test_complex_unary_against_torch = complex_unary_against_torch(["conj_physical"])


def test_complex_to_real_against_torch():
    torch = require_torch()
    z = np.array([1 + 2j, -3 + 0.5j, 0.2 - 1j])
    for name in ("abs", "angle", "real", "imag"):
        compare_grads(getattr(ember, name), getattr(torch, name), [z])
