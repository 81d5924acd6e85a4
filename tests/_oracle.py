"""PyTorch as the test oracle: one place for the optional import, the marker, dtype tables,
conversions and the ember-versus-torch comparison every differential test uses.

torch is optional. ``torch`` is None where it is not installed; ``needs_torch`` marks a test
(or a module: ``pytestmark = needs_torch``) that cannot run without it, and the suite skips it
with the reason. A test that compares one op reads::

    from tests._oracle import check, needs_torch

    @needs_torch
    def test_relu_matches_torch():
        check(lambda x: x.relu(), lambda x: x.relu(), np.array([-1.0, 2.0]))

``check`` feeds the same NumPy arrays to both libraries, compares shape, dtype and values (NaN
where NaN), and, with ``grad=True``, the gradients of a random projection of the output.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import ember

try:
    import torch
except ImportError:  # the suite runs without the optional peers
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def require_torch():
    """torch for a test that needs it, or a skip that says it is not installed."""
    if torch is None:
        pytest.skip("torch is not installed", allow_module_level=True)  # at a module's top as well
    return torch

# dtypes that both ember and torch compute with (torch lacks most kernels for uint16/32/64)
TORCH_DTYPES = (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
ALL_DTYPES = (*TORCH_DTYPES, "uint16", "uint32", "uint64")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
# What a refusal may be: both libraries must refuse the same input, not necessarily alike.
REFUSALS = (TypeError, RuntimeError, ValueError, IndexError, NotImplementedError)

# (rtol, atol) by result dtype; exact for the others
TOLERANCE = {
    "float16": (1e-2, 1e-3),
    "bfloat16": (2e-2, 1e-2),
    "float32": (3e-5, 1e-6),
    "float64": (1e-10, 1e-12),
    "complex64": (3e-5, 1e-5),
    "complex128": (1e-10, 1e-12),
}


def np_dtype(name: str) -> np.dtype:
    """The NumPy dtype of an ember dtype name (bfloat16 through ml_dtypes)."""
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def to_torch(array: np.ndarray, requires_grad: bool = False):
    """A torch tensor with a copy of ``array`` (bfloat16 bit for bit)."""
    if array.dtype == np.dtype(ml_dtypes.bfloat16):
        out = torch.from_numpy(array.view(np.int16).copy()).view(torch.bfloat16)
    else:
        out = torch.from_numpy(np.array(array, copy=True))
    return out.requires_grad_(requires_grad)


def from_torch(t) -> np.ndarray:
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def to_ember(array: np.ndarray, requires_grad: bool = False) -> ember.Tensor:
    """An ember tensor with a copy of ``array``."""
    return ember.from_numpy(np.array(array, copy=True)).requires_grad_(requires_grad)


def assert_close(result, expected, what: str = "", *, rtol: float | None = None, atol: float | None = None) -> None:
    """ember ``result`` equals torch ``expected``: shape, dtype and values, NaN where NaN."""
    assert isinstance(result, ember.Tensor), f"{what}: got {type(result).__name__}, not an ember.Tensor"
    assert tuple(result.shape) == tuple(expected.shape), f"{what}: shape {tuple(result.shape)} vs torch {tuple(expected.shape)}"
    want_dtype = str(expected.dtype).removeprefix("torch.")
    assert result.dtype.name == want_dtype, f"{what}: dtype {result.dtype.name} vs torch {want_dtype}"
    got, want = result.detach().numpy(), from_torch(expected)
    if want_dtype not in TOLERANCE:
        np.testing.assert_array_equal(got, want, err_msg=what)
        return
    default_rtol, default_atol = TOLERANCE[want_dtype]
    wide = np.complex128 if got.dtype.kind == "c" else np.float64
    np.testing.assert_allclose(
        got.astype(wide), want.astype(wide), rtol=default_rtol if rtol is None else rtol,
        atol=default_atol if atol is None else atol, equal_nan=True, err_msg=what,
    )


def check(ember_fn, torch_fn, *arrays: np.ndarray, grad: bool = False, what: str = "", rtol=None, atol=None):
    """Run ``ember_fn`` and ``torch_fn`` on the same inputs and compare what they give.

    Both must refuse (raise one of ``REFUSALS``) or both must succeed with equal results: a
    tensor or a tuple/list of tensors. With ``grad=True`` the float inputs require grad and the
    gradients of ``sum(output * w)`` for one random ``w`` are compared too.
    """
    if torch is None:
        pytest.skip("torch is not installed")
    leaves = [grad and a.dtype.kind in "fc" for a in arrays]
    ours = [to_ember(a, g) for a, g in zip(arrays, leaves, strict=True)]
    theirs = [to_torch(a, g) for a, g in zip(arrays, leaves, strict=True)]
    try:
        expected = torch_fn(*theirs)
    except REFUSALS:
        with pytest.raises(REFUSALS):
            ember_fn(*ours)
        return None
    result = ember_fn(*ours)
    pairs = list(zip(result, expected, strict=True)) if isinstance(expected, (tuple, list)) else [(result, expected)]
    for i, (r, e) in enumerate(pairs):
        assert_close(r, e, f"{what} output {i}" if len(pairs) > 1 else what, rtol=rtol, atol=atol)
    if grad and any(leaves):
        rng = np.random.default_rng(0)
        loss_ours, loss_theirs = 0, 0
        for r, e in pairs:
            if e.dtype.is_floating_point or e.dtype.is_complex:
                w = rng.standard_normal(tuple(e.shape)).astype(from_torch(e).dtype)
                loss_ours = loss_ours + (r * to_ember(w)).sum()
                loss_theirs = loss_theirs + (e * to_torch(w)).sum()
        loss_ours.backward()
        loss_theirs.backward()
        for i, (o, t) in enumerate(zip(ours, theirs, strict=True)):
            if leaves[i]:
                assert (o.grad is None) == (t.grad is None), f"{what}: gradient of input {i} exists in one library only"
                if t.grad is not None:
                    assert_close(o.grad, t.grad, f"{what} gradient of input {i}", rtol=rtol, atol=atol)
    return result


def random_array(rng: np.random.Generator, shape: tuple, dtype: str, *, special: bool = False, positive: bool = False) -> np.ndarray:
    """Values of ``dtype``: small integers; floats in [-3, 3] (``special``: some nan, inf, -0.0)."""
    n = math.prod(shape)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.startswith("uint"):
        return rng.integers(0, 8, n).astype(dtype).reshape(shape)
    if dtype.startswith("int"):
        return rng.integers(1 if positive else -6, 7, n).astype(dtype).reshape(shape)
    real = rng.uniform(0.1 if positive else -3, 3, n)
    if special and not dtype.startswith("complex") and n:
        picks = rng.random(n)
        real = np.where(picks < 0.05, np.nan, real)
        real = np.where((picks >= 0.05) & (picks < 0.08), np.inf, real)
        real = np.where((picks >= 0.08) & (picks < 0.11), -np.inf, real)
        real = np.where((picks >= 0.11) & (picks < 0.14), -0.0, real)
    if dtype.startswith("complex"):
        real = real + 1j * rng.uniform(-3, 3, n)
    return real.astype(np_dtype(dtype)).reshape(shape)
