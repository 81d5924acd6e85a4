"""Derivatives of the shape ops (views and copying ops): gradcheck, torch, gradgradcheck."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from ember.ops.functional import pad as _pad


def _t(shape, seed=0):
    rng = np.random.default_rng(seed)
    return ember.tensor(rng.standard_normal(shape), dtype=ember.float64, requires_grad=True)


CASES = {
    "view": ((2, 3), lambda x: x.view(3, 2) * 1),
    "view_noncontig_grad": ((2, 3), lambda x: x.view(6).unsqueeze(0).expand(2, 6)),
    "reshape_copy": ((2, 3), lambda x: x.t().reshape(6)),
    "squeeze": ((2, 1, 3), lambda x: x.squeeze(1)),
    "squeeze_all": ((1, 3, 1), lambda x: x.squeeze()),
    "unsqueeze": ((2, 3), lambda x: x.unsqueeze(-1)),
    "unflatten": ((2, 6), lambda x: x.unflatten(1, (2, 3))),
    "flatten": ((2, 3, 2), lambda x: x.flatten(1)),
    "transpose": ((2, 3, 4), lambda x: x.transpose(0, -1)),
    "permute": ((2, 3, 4), lambda x: x.permute(2, 0, 1)),
    "movedim": ((2, 3, 4), lambda x: x.movedim((0, 1), (2, 0))),
    "t": ((2, 3), lambda x: x.t()),
    "T": ((2, 3), lambda x: x.T),
    "mT": ((2, 3, 4), lambda x: x.mT),
    "expand": ((3, 1), lambda x: x.expand(2, 3, 4)),
    "broadcast_to": ((1, 3), lambda x: ember.broadcast_to(x, (2, 3))),
    "narrow": ((4, 5), lambda x: x.narrow(1, 1, 3)),
    "narrow_neg": ((4, 5), lambda x: x.narrow(0, -3, 2)),
    "select": ((3, 4), lambda x: x.select(1, 2)),
    "select_neg": ((3, 4), lambda x: x.select(0, -1)),
    "unbind": ((3, 2), lambda x: x.unbind(0)),
    "unbind_one_used": ((3, 2), lambda x: x.unbind(1)[1]),
    "split": ((5, 2), lambda x: x.split(2)),
    "split_sections": ((5, 2), lambda x: ember.split(x, [1, 4], 0)[1]),
    "chunk": ((2, 5), lambda x: x.chunk(3, 1)),
    "tensor_split": ((7,), lambda x: ember.tensor_split(x, (2, 5))),
    "diagonal": ((3, 4), lambda x: x.diagonal()),
    "diagonal_offset": ((2, 3, 4), lambda x: x.diagonal(1, 2, 0)),
    "diagonal_neg_offset": ((4, 3), lambda x: x.diagonal(-1)),
    "unfold": ((7,), lambda x: x.unfold(0, 3, 2)),
    "unfold_overlap_2d": ((2, 5), lambda x: x.unfold(1, 3, 1)),
    "as_strided": ((3, 4), lambda x: x.as_strided((2, 2), (4, 1), 1)),
    "as_strided_overlap": ((6,), lambda x: x.as_strided((3, 3), (1, 1))),
    "as_strided_of_view": ((4, 3), lambda x: x.t().as_strided((2, 3), (1, 3))),
    "getitem_int": ((3, 4), lambda x: x[1]),
    "getitem_slices": ((4, 5), lambda x: x[1:3, ::2]),
    "getitem_mixed": ((3, 4, 5), lambda x: x[..., None, 1, -3::-1]),
    "cat": ((2, 3), lambda x: ember.cat([x, x * 2, x[:1]], 0)),
    "stack": ((2, 3), lambda x: ember.stack([x, x.sin()], 1)),
    "flip": ((2, 3, 2), lambda x: x.flip((0, 2))),
    "roll": ((3, 4), lambda x: x.roll((1, -1), (0, 1))),
    "roll_flat": ((3, 4), lambda x: x.roll(5)),
    "repeat": ((2, 3), lambda x: x.repeat(2, 1, 3)),
    "tile": ((3,), lambda x: x.tile((2, 2))),
    "repeat_interleave_int": ((2, 3), lambda x: x.repeat_interleave(2, dim=1)),
    "repeat_interleave_flat": ((2, 2), lambda x: x.repeat_interleave(3)),
    "repeat_interleave_tensor": ((3, 2), lambda x: x.repeat_interleave(ember.tensor([2, 0, 3]), dim=0)),
    "pad_constant": ((2, 3), lambda x: _pad(x, (1, 2, 0, 1), value=1.5)),
    "pad_negative": ((3, 4), lambda x: _pad(x, (-1, 2, 1, -1))),
    "pad_reflect": ((1, 2, 4), lambda x: _pad(x, (2, 3), mode="reflect")),
    "pad_replicate": ((1, 3, 3), lambda x: _pad(x, (2, 1, 1, 2), mode="replicate")),
    "pad_circular": ((1, 2, 3), lambda x: _pad(x, (2, 3), mode="circular")),
    "tril": ((3, 4), lambda x: x.tril(1)),
    "triu": ((2, 4, 3), lambda x: x.triu(-1)),
    "diag_1d": ((3,), lambda x: ember.diag(x, 1)),
    "diag_2d": ((3, 4), lambda x: ember.diag(x, -1)),
    "diagflat": ((2, 2), lambda x: ember.diagflat(x)),
    "diag_embed": ((2, 3), lambda x: ember.diag_embed(x, 1, 0, 2)),
    "rot90": ((2, 3), lambda x: ember.rot90(x, 1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (_t(shape),))


@pytest.mark.parametrize(
    "name",
    ["narrow", "select", "diagonal_offset", "unfold_overlap_2d", "getitem_mixed", "cat", "repeat", "pad_reflect", "as_strided"],
)
def test_gradgradcheck(name):
    shape, fn = CASES[name]
    assert gradgradcheck(lambda x: fn(x) * fn(x), (_t(shape),))


def test_cat_several_inputs_and_dtype_promotion():
    a, b = _t((2, 2)), _t((2, 3), 1)
    assert gradcheck(lambda a, b: ember.cat([a, b], 1), (a, b))
    c = ember.tensor(np.ones((2, 1)), dtype=ember.float32, requires_grad=True)
    out = ember.cat([a, c], 1)
    out.sum().backward()
    assert c.grad.dtype is ember.float32 and c.grad.shape == (2, 1)
    np.testing.assert_allclose(a.grad.numpy(), np.ones((2, 2)))


def test_split_unused_outputs_get_zero():
    x = _t((4, 2))
    first, _ = x.split(2)
    first.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, 1], [1, 1], [0, 0], [0, 0]])


def test_view_dtype():
    x = _t((2, 2))
    x.view(ember.float64).sum().backward()  # the same dtype: the identity
    np.testing.assert_allclose(x.grad.numpy(), np.ones((2, 2)))
    y = x.view(ember.complex128)
    with pytest.raises(RuntimeError, match="not differentiable"):
        y.real.sum().backward() if hasattr(y, "real") else y.abs().sum().backward()


def test_as_strided_overlapping_input_refused():
    x = _t((3,))
    with pytest.raises(NotImplementedError, match="overlap"):
        x.expand(2, 3).as_strided((3,), (1,)).sum().backward()


def test_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4, 5))
    ops = [
        (lambda t: t.permute(2, 0, 1)[1:, ::2].diagonal(0, 0, 2), lambda t: t.permute(2, 0, 1)[1:, ::2].diagonal(0, 0, 2)),
        (lambda t: t.unfold(2, 2, 1).flip(0).roll(1, 1), lambda t: t.unfold(2, 2, 1).flip(0).roll(1, 1)),
        (lambda t: _pad(t, (2, 1, 1, 2), mode="reflect"), lambda t: torch.nn.functional.pad(t, (2, 1, 1, 2), mode="reflect")),
        (lambda t: _pad(t, (3, 1), mode="circular"), lambda t: torch.nn.functional.pad(t, (3, 1), mode="circular")),
        (lambda t: t.repeat(1, 2, 1, 2).tril(), lambda t: t.repeat(1, 2, 1, 2).tril()),
        (lambda t: ember.cat(t.chunk(2, 1)[::-1], 2), lambda t: torch.cat(t.chunk(2, 1)[::-1], 2)),
    ]
    seed = rng.standard_normal
    for e_fn, t_fn in ops:
        x = ember.tensor(a, dtype=ember.float64, requires_grad=True)
        tx = torch.tensor(a, dtype=torch.float64, requires_grad=True)
        out, tout = e_fn(x), t_fn(tx)
        w = seed(tuple(tout.shape))
        (out * ember.tensor(w, dtype=ember.float64)).sum().backward()
        (tout * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
