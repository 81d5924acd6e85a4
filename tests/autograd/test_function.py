"""Custom autograd Functions (ember.autograd.Function): PyTorch's API and semantics."""

import numpy as np
import pytest

import ember
from ember.autograd import grad, gradcheck, gradgradcheck
from ember.autograd.function import Function, once_differentiable
from tests._oracle import require_torch


def leaf(values, dtype=ember.float64):
    return ember.tensor(values, dtype=dtype, requires_grad=True)


class Exp(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b, scale=1.0):
        ctx.save_for_backward(a, b)
        ctx.scale = scale  # an arbitrary attribute
        return a * b * scale

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b * ctx.scale if ctx.needs_input_grad[0] else None
        gb = g * a * ctx.scale if ctx.needs_input_grad[1] else None
        ctx.seen = ctx.needs_input_grad
        return ga, gb, None


def test_exp_saves_its_output_and_records_a_named_node():
    x = leaf([0.0, 1.0, -1.0])
    y = Exp.apply(x)
    assert y.grad_fn.name() == "ExpBackward" and repr(y.grad_fn) == "<ExpBackward>"
    assert y.requires_grad and not y.is_leaf
    ((acc, nr),) = y.grad_fn.next_functions
    assert acc.name() == "AccumulateGrad" and acc.variable is x and nr == 0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0, -1.0]))
    assert y.grad_fn.sequence_nr >= 0 and isinstance(y.grad_fn, ember.autograd.Node)


def test_forward_runs_under_no_grad_and_nothing_is_recorded_without_grad():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ember.is_grad_enabled())
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0])
    assert Probe.apply(x).grad_fn.name() == "ProbeBackward" and seen == [False]
    assert Probe.apply(ember.ones(1)).grad_fn is None
    with ember.no_grad():
        out = Probe.apply(x)
    assert out.grad_fn is None and not out.requires_grad
    assert ember.is_grad_enabled()


def test_mul_with_needs_input_grad_and_non_tensor_arguments():
    a, b = leaf([1.0, 2.0]), ember.tensor([3.0, 4.0], dtype=ember.float64)
    out = Mul.apply(a, b, 2.0)
    node = out.grad_fn
    assert node.next_functions[1] == (None, 0) and len(node.next_functions) == 2  # one edge per tensor input
    out.sum().backward()
    assert node.seen == (True, False, False) and node.scale == 2.0
    assert a.grad.tolist() == [6.0, 8.0] and b.grad is None
    b.requires_grad_()
    ga, gb = grad(Mul.apply(a, b).sum(), (a, b))
    assert ga.tolist() == [3.0, 4.0] and gb.tolist() == [1.0, 2.0]


def test_gradcheck_and_double_backward_through_functions():
    x = leaf([0.3, -0.7, 1.1])
    y = leaf([1.5, 0.2, -0.4])
    assert gradcheck(Exp.apply, (x,))
    assert gradgradcheck(Exp.apply, (x,))
    assert gradcheck(lambda a, b: Mul.apply(a, b, 3.0), (x, y))
    assert gradgradcheck(lambda a, b: Mul.apply(a, b, 3.0), (x, y))
    # d2/dx2 exp(x) = exp(x), through the saved output's own grad_fn
    (g,) = grad(Exp.apply(x).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    (gg,) = grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), np.exp(x.detach().numpy()))


def test_modifying_a_saved_tensor_in_place_raises_at_backward():
    x = leaf([1.0, 2.0])
    a = x * 1
    b = ember.tensor([3.0, 4.0], dtype=ember.float64)
    out = Mul.apply(a, b)
    b.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*MulBackward.*version 1; expected version 0"):
        out.sum().backward()


class AddOneInplace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def test_mark_dirty_in_place_forward():
    x = leaf([1.0, 2.0])
    h = x * 3
    previous = h.grad_fn
    out = AddOneInplace.apply(h)
    assert out is h and h.grad_fn.name() == "AddOneInplaceBackward"
    assert h.grad_fn.next_functions == ((previous, 0),)
    assert h.tolist() == [4.0, 7.0]
    (h * h).sum().backward()
    assert x.grad.tolist() == [24.0, 42.0]  # d/dx (3x+1)^2 = 6(3x+1)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        AddOneInplace.apply(leaf([1.0]))

    class Forgets(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="marked as dirty"):
        Forgets.apply(x * 1)


def test_returning_an_input_unchanged_gives_an_alias_with_its_own_history():
    class Identity(Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return 2 * g

    x = leaf([1.0, 2.0])
    y = Identity.apply(x)
    assert y is not x and x.is_leaf and y.grad_fn.name() == "IdentityBackward"
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


class SortWithIndices(Function):
    @staticmethod
    def forward(ctx, x):
        values, idx = x.sort()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.n = x.shape[0]
        return values, idx

    @staticmethod
    def backward(ctx, g_values, g_idx):
        (idx,) = ctx.saved_tensors
        assert g_idx is not None and float(g_idx.abs().sum()) == 0  # materialized as zeros
        out = ember.zeros(ctx.n, dtype=g_values.dtype)
        out[idx] = g_values
        return out


def test_non_differentiable_outputs_and_several_outputs():
    x = leaf([3.0, 1.0, 2.0])
    values, idx = SortWithIndices.apply(x)
    assert values.requires_grad and not idx.requires_grad and idx.grad_fn is None
    assert values.grad_fn.output_meta[1][0] == (3,)
    (values * ember.tensor([1.0, 10.0, 100.0], dtype=ember.float64)).sum().backward()
    assert x.grad.tolist() == [100.0, 1.0, 10.0]


def test_set_materialize_grads_and_multiple_outputs_output_nr():
    calls = []

    class Split(Function):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            calls.append((ga is None, gb is None))
            total = 0
            if ga is not None:
                total = total + ga
            if gb is not None:
                total = total + 2 * gb
            return total, None

    x = leaf([1.0, 2.0])
    a, b = Split.apply(x, False)
    assert a.grad_fn is b.grad_fn
    b.sum().backward()
    assert calls[-1] == (True, False) and x.grad.tolist() == [2.0, 2.0]
    _, b = Split.apply(x, True)
    (g,) = grad(b.sum(), x)
    assert calls[-1] == (False, False) and g.tolist() == [2.0, 2.0]


def test_wrong_gradient_count_and_shape_raise_like_pytorch():
    class TooFew(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    x, y = leaf([1.0]), leaf([2.0])
    with pytest.raises(
        RuntimeError, match=r"function TooFewBackward returned an incorrect number of gradients \(expected 2, got 1\)"
    ):
        TooFew.apply(x, y).backward()

    class BadShape(Function):
        @staticmethod
        def forward(ctx, a):
            return a.sum()

        @staticmethod
        def backward(ctx, g):
            return ember.ones(3, dtype=ember.float64)

    with pytest.raises(RuntimeError, match="returned an invalid gradient at index 0"):
        BadShape.apply(leaf([1.0, 2.0])).backward()

    class Broadcast(Function):  # a gradient of a broadcast shape is summed down, as PyTorch does
        @staticmethod
        def forward(ctx, a):
            return a * 1

        @staticmethod
        def backward(ctx, g):
            return g.expand(2, 2)

    z = leaf([1.0, 2.0])
    Broadcast.apply(z).sum().backward()
    assert z.grad.tolist() == [2.0, 2.0]

    class NonTensorGrad(Function):
        @staticmethod
        def forward(ctx, a, k):
            return a * k

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(RuntimeError, match="gradient different than None at position 2"):
        NonTensorGrad.apply(leaf([1.0]), 2.0).backward()


def test_setup_context_style_and_kwargs():
    class Scale(Function):
        @staticmethod
        def forward(x, k):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.k = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k, None

    x = leaf([1.0, 2.0])
    Scale.apply(x, 3.0).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="non-static forward"):
        Scale()(x)


def test_once_differentiable():
    class Square(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = leaf([3.0])
    (g,) = grad(Square.apply(x), x, create_graph=True)
    assert g.tolist() == [6.0]
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.backward()


def test_matches_torch_custom_function():
    torch = require_torch()

    class TExp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    values = [0.1, -0.5, 0.8]
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ty = TExp.apply(tx)
    ex = leaf(values)
    ey = Exp.apply(ex)
    assert type(ey.grad_fn).__name__ == "ExpBackward" and type(ty.grad_fn).__name__ == "TExpBackward"
    (tg,) = torch.autograd.grad((ty * ty).sum(), tx, create_graph=True)
    (eg,) = grad((ey * ey).sum(), ex, create_graph=True)
    np.testing.assert_allclose(eg.detach().numpy(), tg.detach().numpy())
    tg.sum().backward()
    eg.sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy())
