"""The autograd interpreter and engine: recording, naming, backward/grad, errors, modes, hooks."""

import threading

import numpy as np
import pytest

import ember
from ember.autograd import grad
from tests._oracle import torch


def leaf(values, dtype=ember.float64):
    return ember.tensor(values, dtype=dtype, requires_grad=True)


def test_recording_names_nodes_like_pytorch_and_links_them():
    x = leaf([1.0, -2.0])
    y = (x * 2).relu()
    assert y.grad_fn.name() == "ReluBackward0" and not y.is_leaf and y.requires_grad
    (mul, nr), = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and nr == 0
    ((acc, _),) = mul.next_functions
    assert acc.name() == "AccumulateGrad" and acc.variable is x
    z = x + ember.ones(2, dtype=ember.float64)  # an input that needs no grad: (None, 0)
    assert z.grad_fn.next_functions[1] == (None, 0)


def test_backward_accumulates_into_leaves():
    x = leaf([1.0, 2.0, 3.0])
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0, 9.0]  # accumulated, not replaced
    assert x.grad.grad_fn is None and not x.grad.requires_grad


def test_broadcast_gradients_are_summed_back_to_each_input_shape():
    a = leaf([[1.0], [2.0]])
    b = leaf([10.0, 20.0, 30.0])
    (a * b).sum().backward()
    assert a.grad.tolist() == [[60.0], [60.0]] and b.grad.tolist() == [3.0, 3.0, 3.0]


def test_a_graph_with_shared_subexpressions_runs_each_node_once():
    x = leaf([2.0])
    y = x * x
    z = y * y + y  # dz/dx = 4x^3 + 2x
    z.sum().backward()
    assert x.grad.tolist() == [4 * 8 + 4]


def test_grad_returns_gradients_without_touching_dot_grad():
    x = leaf(3.0)
    (g,) = grad(x * x, x)
    assert g.item() == 6.0 and x.grad is None
    y = leaf(1.0)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        grad(x * 2, (x, y))
    assert grad(x * 2, (x, y), allow_unused=True)[1] is None


def test_second_order_gradients_with_create_graph():
    x = leaf(2.0)
    (g,) = grad(x * x * x, x, create_graph=True)
    assert g.item() == 12.0 and g.requires_grad
    (gg,) = grad(g, x)
    assert gg.item() == 12.0  # d2/dx2 x^3 = 6x


def test_pytorchs_errors():
    x = leaf([1.0, 2.0])
    y = (x * x).exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        ember.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        ember.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        (x * 2).requires_grad = False


def test_retain_graph_allows_a_second_backward():
    x = leaf([1.0, 2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_an_in_place_write_to_a_saved_tensor_names_the_op_and_the_line():
    x = leaf([1.0, 2.0])
    h = x * 1.0
    y = h * h  # saves h
    h.mul_(2)  # the write
    with pytest.raises(RuntimeError, match=r"saved by MulBackward0, is at version 1; expected version 0 instead\. It was modified in place at .*test_engine\.py:\d+"):
        y.sum().backward()


def test_in_place_ops_on_non_leaves_are_differentiated():
    x = leaf([1.0, -2.0, 3.0])
    h = x * 2
    h.relu_()
    (h * h).sum().backward()
    expected = np.where(np.array([1.0, -2.0, 3.0]) > 0, 8 * np.array([1.0, -2.0, 3.0]), 0.0)
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_grad_modes_are_scoped_per_thread_and_work_as_decorators():
    x = leaf([1.0])
    with ember.no_grad():
        assert not (x * 2).requires_grad
        with ember.enable_grad():
            assert (x * 2).requires_grad
        seen = []
        t = threading.Thread(target=lambda: seen.append(ember.is_grad_enabled()))
        t.start()
        t.join()
        assert seen == [True]

    @ember.no_grad()
    def f(v):
        return v * 2

    assert not f(x).requires_grad and ember.is_grad_enabled()
    with ember.set_grad_enabled(False):
        assert not ember.is_grad_enabled()
    assert ember.is_grad_enabled()
    with ember.inference_mode():
        assert not (x * 2).requires_grad


def test_hooks_retain_grad_and_post_accumulate():
    x = leaf([1.0, 2.0])
    h = x * 3
    h.retain_grad()
    seen = []
    h.register_hook(lambda g: seen.append(g.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    accumulated = []
    x.register_post_accumulate_grad_hook(lambda t: accumulated.append(t.grad.tolist()))
    (h * h).sum().backward()
    assert h.retains_grad and h.grad.tolist() == [6.0, 12.0] and seen == [[6.0, 12.0]]
    assert x.grad.tolist() == [180.0, 360.0] and accumulated == [[180.0, 360.0]]
    handle.remove()


def test_non_differentiable_ops_give_results_without_grad():
    x = leaf([1.0, -2.0])
    assert not (x > 0).requires_grad
    assert not x.detach().requires_grad and x.detach().grad_fn is None
    assert not x.argmax().requires_grad if hasattr(x, "argmax") else True
    d = x.data
    assert not d.requires_grad and d.untyped_storage() is x.untyped_storage()


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_a_small_graph_matches_torch():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    ea, eb = leaf(a), leaf(b)
    ta, tb = (torch.tensor(v, requires_grad=True) for v in (a, b))
    for x, y, lib in ((ea, eb, ember), (ta, tb, torch)):
        out = (lib.tanh(x * y) - lib.exp(x / 3) + lib.sigmoid(y)).relu() * x
        out.sum().backward()
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(eb.grad.numpy(), tb.grad.numpy(), rtol=1e-12)


def test_recorded_ops_outside_autograd_still_run_eagerly():
    x = ember.ones(3)
    assert (x + x).grad_fn is None and not (x + x).requires_grad


@pytest.mark.parametrize(
    ("name", "fn", "shapes"),
    [
        ("tanh", lambda x: ember.tanh(x), [(2, 3)]),
        ("mul", lambda x, y: x * y, [(2, 3), (3,)]),
        ("matmul", lambda a, b: a @ b, [(2, 3), (3, 2)]),
        ("softmax", lambda x: ember.softmax(x, dim=1), [(2, 3)]),
        ("conv2d", lambda x, w: ember.conv2d(x, w, padding=1), [(1, 2, 4, 4), (3, 2, 3, 3)]),
        ("layer_norm", lambda x, w, b: ember.layer_norm(x, (3,), w, b), [(2, 3), (3,), (3,)]),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_second_derivatives_of_the_representative_set(name, fn, shapes):
    rng = np.random.default_rng(0)
    inputs = tuple(leaf(rng.uniform(0.2, 0.8, s)) for s in shapes)
    assert ember.autograd.gradgradcheck(fn, inputs)


def test_a_node_that_receives_no_gradient_does_not_cut_other_paths():
    x = leaf([1.0, 2.0])
    a = x * 2  # reaches the loss only through y's None gradient below
    idx = ember.argmax(a)  # integer output: no gradient flows along this edge
    y = a * 0 + x * 3
    (g,) = grad((y + idx * 0).sum(), x)
    assert g.tolist() == [3.0, 3.0]
    # a multi-output node whose other output feeds nothing
    values, _ = ember.sort(x * 1.0)
    (g2,) = grad(values.sum() + x.sum(), x)
    assert g2.tolist() == [2.0, 2.0]


def test_saved_values_read_under_pytorchs_names():
    x = leaf([1.0, -2.0])
    w = leaf([3.0, 4.0])
    y = x * w
    assert y.grad_fn._saved_self is x and y.grad_fn._saved_other is w
    r = y.relu()
    assert r.grad_fn._saved_result is r
    assert (x * 2.5).grad_fn._saved_other == 2.5
    with pytest.raises(AttributeError, match=r"ReluBackward0.*has no attribute '_saved_self'"):
        r.grad_fn._saved_self
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn._saved_self


@pytest.mark.skipif(torch is None, reason="needs torch")
def test_repr_shows_grad_fn_like_pytorch():
    x = leaf([1.0, -2.0], dtype=ember.float32)
    tx = torch.tensor([1.0, -2.0], requires_grad=True)
    assert repr((x * 2).relu()) == repr((tx * 2).relu())
    assert repr(x.sum()) == repr(tx.sum())
    assert repr(x) == repr(tx)
