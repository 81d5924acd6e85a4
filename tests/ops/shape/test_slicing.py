"""narrow/select/unbind, split/chunk/tensor_split, diagonal/unfold/as_strided: views of parts
of the input, and their derivatives (gradcheck, gradgradcheck, PyTorch's gradients)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck, gradgradcheck
from tests._oracle import check, needs_torch
from tests.ops._arrays import leaf


def test_view_errors_keep_their_messages():
    t = ember.zeros(2, 3)
    with pytest.raises(RuntimeError, match="split_sizes to sum exactly to 2"):
        t.split(ember.tensor([1, 2]))


# -- derivatives ------------------------------------------------------------------------------

CASES = {
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
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))


@pytest.mark.parametrize("name", ["narrow", "select", "diagonal_offset", "unfold_overlap_2d", "as_strided"])
def test_gradgradcheck(name):
    shape, fn = CASES[name]
    assert gradgradcheck(lambda x: fn(x) * fn(x), (leaf(shape),))


def test_split_unused_outputs_get_zero():
    x = leaf((4, 2))
    first, _ = x.split(2)
    first.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[1, 1], [1, 1], [0, 0], [0, 0]])


def test_as_strided_overlapping_input_refused():
    x = leaf((3,))
    with pytest.raises(NotImplementedError, match="overlap"):
        x.expand(2, 3).as_strided((3,), (1,)).sum().backward()


@needs_torch
def test_gradients_match_torch():
    a = np.random.default_rng(3).standard_normal((3, 4, 5))
    view = lambda t: t.permute(2, 0, 1)[1:, ::2].diagonal(0, 0, 2)  # noqa: E731 - the same expression in both libraries
    check(view, view, a, grad=True, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(
    ("fn", "arg"),
    [(lambda t, n: ember.chunk(t, n), "chunks"), (lambda t, n: ember.tensor_split(t, n), "sections")],
    ids=["chunk", "tensor_split"],
)
def test_more_pieces_than_memory_holds_are_refused_at_once(fn, arg):
    # a Python loop over 2**62 empty views would never end
    with pytest.raises(RuntimeError, match=rf"{arg}=4611686018427387904 would make 4611686018427387904 tensors"):
        fn(ember.zeros(0), 2**62)
    assert len(ember.chunk(ember.zeros(4), 2**62)) == 4  # a non-empty dim gives at most its size
    assert len(fn(ember.zeros(0), 3)) == 3
