"""nn.functional.unfold / fold (im2col / col2im): known blocks, the adjoint identity, unbatched
and non-contiguous input, PyTorch's errors, gradcheck, and parity with torch where installed."""

from __future__ import annotations

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import needs_torch, torch

from ._helpers import TF, check, check_exact, make

RNG = np.random.default_rng(18)
CASES = [
    ((2, 3, 5, 6), {"kernel_size": 2}),
    ((3, 7, 6), {"kernel_size": (2, 3), "dilation": (2, 1), "padding": (1, 2), "stride": (2, 3)}),
    ((1, 2, 4, 4), {"kernel_size": 3, "padding": 1}),
    ((0, 2, 4, 4), {"kernel_size": 2, "stride": 2}),
]


def _unfold_reference(x: np.ndarray, k, d, p, s) -> np.ndarray:
    """im2col by loops over block positions and taps."""
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    bh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    bw = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, c, k[0], k[1], bh, bw), x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            for a in range(bh):
                for b in range(bw):
                    out[:, :, i, j, a, b] = xp[:, :, a * s[0] + i * d[0], b * s[1] + j * d[1]]
    return out.reshape(n, c * k[0] * k[1], bh * bw)


def test_unfold_known_blocks():
    x = ember.arange(9.0).reshape(1, 1, 3, 3)
    assert F.unfold(x, 2).tolist() == [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    # zero padding, stride 2: the four corners' 1x1 blocks
    assert F.unfold(x, 1, padding=0, stride=2).tolist() == [[[0.0, 2.0, 6.0, 8.0]]]


def test_fold_sums_overlapping_blocks():
    assert F.fold(ember.ones(1, 4, 4), (3, 3), 2).tolist() == [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    assert F.fold(ember.ones(4, 4), (3, 3), 2).shape == (1, 3, 3)  # unbatched


@pytest.mark.parametrize(("shape", "kw"), CASES)
def test_unfold_matches_the_definition_and_fold_is_its_adjoint(shape, kw):
    x = RNG.standard_normal(shape)
    got = F.unfold(ember.tensor(x), **kw)
    batched = x if len(shape) == 4 else x[None]
    pair = {k: (v, v) if isinstance(v, int) else v for k, v in kw.items()}
    ref = _unfold_reference(
        batched, pair["kernel_size"], pair.get("dilation", (1, 1)), pair.get("padding", (0, 0)), pair.get("stride", (1, 1))
    )
    np.testing.assert_array_equal(got.numpy(), ref if len(shape) == 4 else ref[0])
    # <unfold(x), y> == <x, fold(y)>
    y = RNG.standard_normal(tuple(got.shape))
    folded = F.fold(ember.tensor(y), shape[-2:], **kw)
    assert folded.shape == shape
    np.testing.assert_allclose((got.numpy() * y).sum(), (x * folded.numpy()).sum(), rtol=1e-12, atol=1e-12)


def test_non_contiguous_input():
    x = RNG.standard_normal((2, 3, 5, 6))
    e, _ = make(x, noncontig=True)
    np.testing.assert_array_equal(F.unfold(e, 2, stride=2).numpy(), F.unfold(ember.tensor(x), 2, stride=2).numpy())
    cols = ember.tensor(RNG.standard_normal((2, 20, 12))).transpose(1, 2)  # (2, 12, 20), not contiguous
    np.testing.assert_array_equal(F.fold(cols, (5, 6), 2).numpy(), F.fold(cols.contiguous(), (5, 6), 2).numpy())


def test_dtypes():
    x = ember.ones(1, 1, 2, 2)
    for dtype in (ember.float16, ember.bfloat16, ember.float32, ember.float64, ember.complex64, ember.bool):
        assert F.unfold(x.to(dtype), 1).dtype is dtype
        assert F.fold(ember.ones(1, 4, 1, dtype=dtype), (2, 2), 2).dtype is dtype
    assert F.fold(ember.ones(1, 4, 4, dtype=ember.bool), (3, 3), 2).all().item()  # overlapping True stays True
    with pytest.raises(NotImplementedError, match="im2col"):
        F.unfold(x.long(), 1)
    with pytest.raises(NotImplementedError, match="col2im"):
        F.fold(ember.ones(1, 4, 1, dtype=ember.int32), (2, 2), 2)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (
            lambda: F.unfold(ember.ones(1, 2, 3, 4, 5), 2),
            r"Expected 3D or 4D \(batch mode\) tensor .* but got: \[1, 2, 3, 4, 5\]",
        ),
        (lambda: F.unfold(ember.ones(2, 0, 5, 6), 2), r"other non-zero dimensions for input, but got: \[2, 0, 5, 6\]"),
        (
            lambda: F.unfold(ember.ones(2, 3, 5, 6), 0),
            "kernel size should be greater than zero, but got kernel_height: 0 kernel_width: 0",
        ),
        (lambda: F.unfold(ember.ones(2, 3, 5, 6), 2, stride=0), "stride should be greater than zero"),
        (lambda: F.unfold(ember.ones(2, 3, 5, 6), 2, dilation=0), "dilation should be greater than zero"),
        (
            lambda: F.unfold(ember.ones(2, 3, 5, 6), 2, padding=-1),
            "padding should be non-negative, but got pad_height: -1 pad_width: -1",
        ),
        (
            lambda: F.unfold(ember.ones(2, 3, 5, 6), 6, stride=2),
            r"Given input with spatial size \(5, 6\), kernel_size=\(6, 6\), dilation=\(1, 1\), padding=\(0, 0\), "
            r"calculated shape of the array of sliding blocks as \(0, 1\), but its components must be at least one.",
        ),
        (lambda: F.fold(ember.ones(20), (5, 6), 2), r"Expected 2D or 3D \(batch mode\) tensor .* but got: \[20\]"),
        (
            lambda: F.fold(ember.ones(2, 13, 20), (5, 6), 2),
            r"divisible by the product of kernel_size, but got input.size\(1\)=13 and kernel_size=\(2, 2\)",
        ),
        (
            lambda: F.fold(ember.ones(2, 12, 19), (5, 6), 2),
            r"match the calculated number of sliding blocks 4 \* 5 = 20, but got input.size\(2\)=19",
        ),
        (
            lambda: F.fold(ember.ones(2, 9, 1), (1, 1), 3),
            r"calculated shape of the array of sliding blocks as \(-1, -1\), which is too small \(non-positive\)",
        ),
    ],
)
def test_errors(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


def test_unfold_is_not_the_tensor_view():
    assert ember.ones(5).unfold(0, 2, 1).shape == (4, 2)  # x.unfold(dim, size, step) is unchanged
    assert F.unfold is not ember.unfold and not hasattr(ember, "fold")


def test_gradcheck():
    x = ember.tensor(RNG.standard_normal((2, 2, 4, 5)), requires_grad=True)
    kw = {"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": (2, 1)}
    assert gradcheck(lambda a: F.unfold(a, **kw), (x,))
    assert gradgradcheck(lambda a: F.unfold(a, **kw), (x,))
    cols = ember.tensor(RNG.standard_normal(tuple(F.unfold(x, **kw).shape)), requires_grad=True)
    assert gradcheck(lambda a: F.fold(a, (4, 5), **kw), (cols,))
    unbatched = ember.tensor(RNG.standard_normal((2, 4, 5)), requires_grad=True)
    assert gradcheck(lambda a: F.unfold(a, 2), (unbatched,))


def test_modules():
    assert repr(nn.Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)"
    assert repr(nn.Fold((5, 6), 2)) == "Fold(output_size=(5, 6), kernel_size=2, dilation=1, padding=0, stride=1)"
    x = ember.tensor(RNG.standard_normal((2, 3, 5, 6)))
    cols = nn.Unfold(kernel_size=2, stride=2)(x)
    assert cols.shape == (2, 12, 6)
    back = nn.Fold(output_size=(5, 6), kernel_size=2, stride=2)(cols)
    np.testing.assert_array_equal(back.numpy()[..., :4, :], x.numpy()[..., :4, :])  # disjoint blocks: the row past them is lost
    assert back.numpy()[..., 4, :].tolist() == np.zeros((2, 3, 6)).tolist()


@needs_torch
@pytest.mark.parametrize(("shape", "kw"), CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_torch(shape, kw, dtype):
    x = RNG.standard_normal(shape).astype(dtype)
    e, t = make(x, noncontig=True)
    e.requires_grad_(True)
    t.requires_grad_(True)
    got, want = F.unfold(e, **kw), TF.unfold(t, **kw)
    check_exact(got, want)
    g = RNG.standard_normal(tuple(want.shape)).astype(dtype)
    got.backward(ember.tensor(g))
    want.backward(torch.tensor(g))
    check(e.grad, t.grad, dtype)
    cols = ember.tensor(g, requires_grad=True)
    tcols = torch.tensor(g, requires_grad=True)
    got, want = F.fold(cols, shape[-2:], **kw), TF.fold(tcols, shape[-2:], **kw)
    check(got, want, dtype)
    got.backward(ember.tensor(x))
    want.backward(torch.tensor(x))
    check_exact(cols.grad, tcols.grad)


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_fold_rounds_as_torch(dtype):
    # PyTorch adds overlapping blocks in the half type itself, rounding after each one
    y = RNG.standard_normal((2, 12, 20))
    got = F.fold(ember.tensor(y).to(getattr(ember, dtype)), (5, 6), 2)
    want = TF.fold(torch.tensor(y).to(getattr(torch, dtype)), (5, 6), 2)
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


def test_block_arguments_are_an_int_or_a_pair():
    x = ember.ones(2, 3, 5, 6)
    assert F.unfold(x, 2).shape == F.unfold(x, (2, 2)).shape == F.unfold(x, ember.tensor([2, 2])).shape == (2, 12, 20)
    with pytest.raises(RuntimeError, match="It is expected kernel_size equals to 2, but got size 1"):
        F.unfold(x, [2])  # PyTorch does not repeat a one-element list here
    with pytest.raises(RuntimeError, match="It is expected output_size equals to 2, but got size 3"):
        F.fold(ember.ones(2, 12, 20), (5, 6, 1), 2)
    with pytest.raises(TypeError, match="kernel_size"):
        F.unfold(x, 2.0)
    with pytest.raises(TypeError, match="dilation"):
        F.unfold(x, 2, None)


def test_graph_mode_matches_eager():
    x = RNG.standard_normal((2, 3, 5, 6)).astype(np.float32)
    with ember.Graph().as_default():
        p = ember.placeholder(ember.float32, (2, 3, 5, 6))
        cols = F.unfold(p, 2, stride=(1, 2))
        back = F.fold(cols, (5, 6), 2, stride=(1, 2))
        pooled = F.adaptive_max_pool2d(p, (2, None))
        with ember.Session() as sess:
            got = sess.run([cols, back, pooled], {p: x})
    e = ember.tensor(x)
    want = [
        F.unfold(e, 2, stride=(1, 2)),
        F.fold(F.unfold(e, 2, stride=(1, 2)), (5, 6), 2, stride=(1, 2)),
        F.adaptive_max_pool2d(e, (2, None)),
    ]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w.numpy())
