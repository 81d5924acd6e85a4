"""What the reduction tests share: hypothesis strategies for (ember, torch) tensor pairs with the
same values (0-d, empty, size-1 dims; sometimes transposed or sliced) and for ``dim``, the
comparison against PyTorch, and float64 leaves for the derivative tests.

The strategies build torch tensors, so the tests that use them carry ``needs_torch``.
"""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, settings, strategies as st

import ember
from tests._oracle import REFUSALS, TORCH_DTYPES, assert_close, torch

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RNG = np.random.default_rng(0)

# rtol = atol by result dtype (1e-10 for the other floats); integers and bool compare exactly
TOL = {"float16": 2e-3, "bfloat16": 1.6e-2, "float32": 1e-5, "complex64": 1e-5}


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


def assert_same(result, expected, name=""):
    """Same shape, dtype (by name) and values (tolerance by dtype, NaN == NaN)."""
    tol = TOL.get(str(expected.dtype).removeprefix("torch."), 1e-10)
    assert_close(result, expected, name, rtol=tol, atol=tol)


def check_against_torch(name, e_call, t_call):
    """Run both; if torch refuses the inputs, ember must refuse too."""
    try:
        expected = t_call()
    except REFUSALS as exc:
        with pytest.raises(REFUSALS):
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


def check_dim_reduction(name, data):
    """``ember.<name>(input, dim, keepdim)`` against torch's on a drawn input and ``dim``."""
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


# --- derivatives ---------------------------------------------------------------------------------


def leaf(a):
    """A float64 ember tensor that requires grad."""
    return ember.tensor(np.asarray(a, dtype=np.float64), dtype=ember.float64, requires_grad=True)


def R(*shape):
    return leaf(RNG.standard_normal(shape))


def grad_matches_torch(fn, torch_fn, shape):
    """The gradient of sum(fn(x) * w) for one random ``w`` equals torch's."""
    a = RNG.standard_normal(shape)
    x = leaf(a)
    t = torch.tensor(a, requires_grad=True)
    y, ty = fn(x), torch_fn(t)
    w = RNG.standard_normal(tuple(ty.shape))
    (y * ember.tensor(w)).sum().backward()
    (ty * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
