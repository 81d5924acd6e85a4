"""What the linear-algebra tests share: random inputs, a NumPy comparison with tolerances sized
for LAPACK against LAPACK, float64 leaves for the derivative tests and a gradient comparison
with PyTorch.

Decompositions are checked by reconstruction (Q R == A, U diag(S) Vh == A, ...) since their
factors are only defined up to signs/phases: those comparisons are NumPy against NumPy, so they
use ``close`` rather than the oracle's ember-against-torch ``assert_close``.
"""

import numpy as np
from hypothesis import HealthCheck, settings

import ember
from tests._oracle import torch

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(1234)


def rand(shape, dtype="float64"):
    if dtype.startswith(("int", "uint")):
        return RNG.integers(-3 if dtype.startswith("int") else 0, 4, size=shape).astype(dtype)
    a = RNG.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * RNG.standard_normal(shape)
    return a.astype(dtype)


def close(got, want, dtype, name=""):
    tol = {"float16": 1e-2, "bfloat16": 5e-2, "float32": 1e-4, "complex64": 1e-4}.get(dtype, 1e-9)
    np.testing.assert_allclose(
        np.asarray(got, dtype=np.result_type(got, np.float32)), np.asarray(want), rtol=tol, atol=tol, err_msg=name
    )


def spd(n, batch=(), dtype="float64"):
    """A batch of symmetric (Hermitian) positive-definite matrices."""
    a = rand((*batch, n, n), dtype)
    return a @ np.swapaxes(a, -1, -2).conj() + n * np.eye(n)


# --- derivatives: well-conditioned random real matrices ------------------------------------------

GRAD_RNG = np.random.default_rng(0)


def leaf(a):
    """A float64 ember tensor that requires grad."""
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=True)


def R(*shape):
    return leaf(GRAD_RNG.standard_normal(shape))


def WC(*shape):
    """Well-conditioned square matrices."""
    return leaf(GRAD_RNG.standard_normal(shape) + 3 * np.eye(shape[-1]))


def spd_of(a):
    """a a^T + I: positive-definite, for cholesky's derivative."""
    return a @ a.mT + ember.eye(a.shape[-1], dtype=ember.float64)


def grads_match_torch(fn, torch_fn, arrays):
    """The gradients of sum(output * w) over every output, for random ``w``, equal torch's."""
    xs = [leaf(a) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = fn(*xs)
    touts = torch_fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    touts = touts if isinstance(touts, tuple) else (touts,)
    loss, tloss = 0, 0
    for o, to in zip(outs, touts, strict=True):
        w = GRAD_RNG.standard_normal(tuple(to.shape))
        loss = loss + (o * ember.tensor(w)).sum()
        tloss = tloss + (to * torch.tensor(w)).sum()
    loss.backward()
    tloss.backward()
    for x, t in zip(xs, ts, strict=True):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
