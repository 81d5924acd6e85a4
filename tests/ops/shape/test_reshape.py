"""view/reshape/flatten/unflatten/ravel, squeeze/unsqueeze/expand_dims, expand/broadcast_to:
views with a new shape (a copy only when reshape finds no strides), against NumPy and PyTorch,
and their derivatives (gradcheck)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests._oracle import torch
from tests.ops._arrays import leaf


def test_reshape_copies_only_when_no_view_exists_like_torch():
    x = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    t = ember.from_numpy(x).transpose(0, 2)
    flat = t.reshape(-1)
    assert flat.untyped_storage() is not t.untyped_storage()
    assert flat.tolist() == x.transpose(2, 1, 0).reshape(-1).tolist()
    assert ember.ravel(t).tolist() == flat.tolist()
    assert t.reshape(4, 3, 2).untyped_storage() is t.untyped_storage()
    if torch is not None:
        tt = torch.from_numpy(x).transpose(0, 2)
        for shape in [(-1,), (4, 6), (4, 3, 2), (2, 2, 3, 2)]:
            ours, theirs = t.reshape(shape), tt.reshape(shape)
            assert ours.stride() == theirs.stride() and ours.tolist() == theirs.tolist()
            assert (ours.untyped_storage() is t.untyped_storage()) == (
                theirs.data_ptr() == tt.data_ptr() or theirs._base is not None
            )


def test_array_api_spellings():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    t = ember.from_numpy(x)
    assert ember.squeeze(t, axis=(0, 2)).shape == (2, 3)
    assert t.squeeze(-2).shape == (1, 2, 3)
    assert ember.expand_dims(t, axis=-1).shape == np.expand_dims(x, -1).shape
    assert ember.expand_dims(t[0, :, 0], axis=(0, -1)).shape == np.expand_dims(x[0, :, 0], (0, -1)).shape


def test_view_errors_keep_their_messages():
    t = ember.zeros(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        ember.expand_dims(t, axis=3)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(6)
    with pytest.raises(RuntimeError, match=r"shape '\[4, -1\]' is invalid for input of size 6"):
        t.reshape(4, -1)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        t.reshape(2.0, 3)


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "view": ((2, 3), lambda x: x.view(3, 2) * 1),
    "view_noncontig_grad": ((2, 3), lambda x: x.view(6).unsqueeze(0).expand(2, 6)),
    "reshape_copy": ((2, 3), lambda x: x.t().reshape(6)),
    "squeeze": ((2, 1, 3), lambda x: x.squeeze(1)),
    "squeeze_all": ((1, 3, 1), lambda x: x.squeeze()),
    "unsqueeze": ((2, 3), lambda x: x.unsqueeze(-1)),
    "unflatten": ((2, 6), lambda x: x.unflatten(1, (2, 3))),
    "flatten": ((2, 3, 2), lambda x: x.flatten(1)),
    "expand": ((3, 1), lambda x: x.expand(2, 3, 4)),
    "broadcast_to": ((1, 3), lambda x: ember.broadcast_to(x, (2, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


def test_view_dtype():
    x = leaf((2, 2))
    x.view(ember.float64).sum().backward()  # the same dtype: the identity
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)))
    y = x.view(ember.complex128)
    with pytest.raises(RuntimeError, match="not differentiable"):
        y.real.sum().backward() if hasattr(y, "real") else y.abs().sum().backward()
