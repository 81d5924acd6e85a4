"""In-place writes into views of tensors that require grad (PyTorch's CopySlices), against torch.

The write is recorded on the view's base (its grad_fn becomes CopySlices) and the views of the
base read their elements back out of the base's new history (AsStridedBackward0).
"""

import numpy as np
import pytest

import ember
from tests._oracle import require_torch

torch = require_torch()

F64 = ember.float64


def _x(lib, shape=(3, 4), seed=0):
    data = np.random.default_rng(seed).uniform(-1.0, 1.0, shape)
    if lib is torch:
        return torch.tensor(data, dtype=torch.float64, requires_grad=True)
    return ember.tensor(data, dtype=F64, requires_grad=True)


def _grad(t):
    return t.grad.detach().numpy() if isinstance(t, torch.Tensor) else t.grad.numpy()


def _check(program, n_inputs=1):
    """Run ``program(lib, *leaves) -> loss`` in torch and ember; compare the leaves' gradients."""
    grads = []
    for lib in (torch, ember):
        leaves = [_x(lib, seed=i) if i == 0 else _x(lib, (4,), seed=i) for i in range(n_inputs)]
        program(lib, *leaves).backward()
        grads.append([_grad(leaf) for leaf in leaves])
    for t_grad, e_grad in zip(*grads, strict=True):
        np.testing.assert_allclose(e_grad, t_grad, rtol=1e-12, atol=1e-12)


# -- the write goes onto the base ------------------------------------------------------------------


def _mul_select(lib, x):
    y = x * 1
    v = y[0]
    v.mul_(2)
    return (y * y).sum() + (v * v.exp()).sum()


def _relu_slice(lib, x):
    y = x * 1
    v = y[:, 1:]
    v.relu_()
    return (y.sin() * 3).sum() + (v * 2).sum()


def _add_transpose(lib, x):
    y = x * 2
    v = y.t()
    v.add_(1)
    return (y * y).sum() + (v**3).sum()


def _diagonal_zero(lib, x):
    y = x * 1
    d = y.diagonal()
    d.zero_()
    return (y * y).sum() + (d + 1).prod()


def _setitem_basic(lib, x, z):
    y = x * 1
    y[0] = z * z
    return (y * y.cos()).sum()


def _setitem_slice_of_column(lib, x, z):
    y = x.sin()
    y[1:, 2] = z[:2]
    return (y * y).sum()


def _mul_by_tensor(lib, x, w):
    y = x * 1
    v = y[1]
    v.mul_(w)
    return (y * y).sum() + v.sum()


def _copy_between_rows(lib, x):
    y = x * 1
    y[0].copy_(y[2] * 3)
    return (y * y).sum()


def _fill_column(lib, x):
    y = x.sin()
    y[:, 3].fill_(5)
    return (y * y).sum()


@pytest.mark.parametrize(
    ("program", "n_inputs"),
    [
        (_mul_select, 1),
        (_relu_slice, 1),
        (_add_transpose, 1),
        (_diagonal_zero, 1),
        (_setitem_basic, 2),
        (_setitem_slice_of_column, 2),
        (_mul_by_tensor, 2),
        (_copy_between_rows, 1),
        (_fill_column, 1),
    ],
    ids=lambda p: getattr(p, "__name__", str(p)),
)
def test_write_into_a_view_matches_torch(program, n_inputs):
    _check(program, n_inputs)


def test_graph_has_torch_node_names():
    x = _x(ember)
    y = x * 1
    v = y[0]
    v.mul_(2)
    assert y.grad_fn.name() == "CopySlices"
    assert v.grad_fn.name() == "AsStridedBackward0"
    assert v.grad_fn.next_functions[0][0] is y.grad_fn
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"  # the base's history before the write
    assert v.requires_grad and y.requires_grad and not y.is_leaf


def test_values_after_the_write():
    x = _x(ember)
    y = x * 1
    y[0].mul_(2)
    expected = x.detach().numpy().copy()
    expected[0] *= 2
    np.testing.assert_allclose(y.detach().numpy(), expected)


# -- several writes, several views -----------------------------------------------------------------


def _two_overlapping_writes(lib, x, w):
    y = x * 1
    y[0].mul_(w)  # the row 0
    y[:, 1].add_(y[:, 2] * 2)  # a column crossing it
    return (y * y).sum()


def _write_then_write_through_the_first_view(lib, x, w):
    y = x * 1
    row = y[1]
    row.mul_(w)
    row[1:3].pow_(2)  # a view of the view: same base
    return (y * y.sin()).sum() + row.sum()


def _views_taken_before_the_write(lib, x):
    y = x * 1
    a = y[:, :2]  # overlaps the row written below
    b = y[2]  # does not
    y[0].mul_(3)
    return (a * a).sum() + (b * 5).sum()


def _write_into_the_base_then_read_a_view(lib, x):
    y = x * 1
    a = y[1:]
    y.mul_(2)  # not a view write; the view taken before still sees the new history
    return (a * a).sum()


def _three_writes_on_one_diagonal(lib, x, w):
    y = x.sin() + 2
    d = y.diagonal()
    d.mul_(w[:3])
    y[0, :].add_(1)
    d.sqrt_()
    return (y * y).sum() + d.sum()


@pytest.mark.parametrize(
    ("program", "n_inputs"),
    [
        (_two_overlapping_writes, 2),
        (_write_then_write_through_the_first_view, 2),
        (_views_taken_before_the_write, 1),
        (_write_into_the_base_then_read_a_view, 1),
        (_three_writes_on_one_diagonal, 2),
    ],
    ids=lambda p: getattr(p, "__name__", str(p)),
)
def test_chains_of_writes_match_torch(program, n_inputs):
    _check(program, n_inputs)


def test_non_contiguous_base():
    for lib in (torch, ember):
        x = _x(lib)
        y = x.t().clone()  # a dense transposed layout: the base is not contiguous
        y[1].mul_(3)
        y[:, 0].add_(y[:, 1])
        (y * y).sum().backward()
        if lib is torch:
            expected = _grad(x)
    np.testing.assert_allclose(_grad(x), expected, rtol=1e-12)


def test_double_backward_through_copy_slices():
    results = []
    for lib in (torch, ember):
        x = _x(lib)
        y = x * x
        y[1].mul_(x[2])
        loss = (y * y).sum()
        (g,) = (torch.autograd.grad if lib is torch else ember.autograd.grad)(loss, x, create_graph=True)
        (g * g).sum().backward()
        results.append((g.detach().numpy(), _grad(x)))
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-10)


# -- a base that did not require grad ------------------------------------------------------------


def test_writing_a_tensor_that_requires_grad_into_a_plain_base():
    for lib in (torch, ember):
        w = _x(lib, (4,), seed=3)
        base = lib.zeros(3, 4, dtype=lib.float64)
        base[1] = w
        assert base.requires_grad and base.grad_fn is not None
        ((base + 1) ** 2).sum().backward()
        if lib is torch:
            expected = _grad(w)
    np.testing.assert_allclose(_grad(w), expected)
    np.testing.assert_allclose(_grad(w), 2 * (w.detach().numpy() + 1))


def test_copy_into_a_view_of_a_plain_base():
    w = _x(ember, (4,), seed=3)
    base = ember.zeros(3, 4, dtype=F64)
    v = base[:, 1]
    v.copy_(w[:3])
    assert v.requires_grad and v.grad_fn.name() == "AsStridedBackward0"
    (v * v).sum().backward()
    expected = np.zeros(4)
    expected[:3] = 2 * w.detach().numpy()[:3]
    np.testing.assert_allclose(w.grad.numpy(), expected)


def test_no_grad_write_into_a_plain_base_records_nothing():
    base = ember.zeros(3, 4)
    base[0].add_(1)
    base[1] = ember.ones(4)
    assert not base.requires_grad and base.grad_fn is None


# -- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "write",
    [
        lambda x: x[0].mul_(2),
        lambda x: x.t().add_(1),
        lambda x: x.diagonal().zero_(),
        lambda x: x.__setitem__(0, ember.ones(4, dtype=F64)),
    ],
)
def test_write_into_a_view_of_a_leaf_raises(write):
    x = _x(ember)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad is being used in an in-place operation"):
        write(x)


def test_write_into_a_leaf_still_raises():
    x = _x(ember)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        x.mul_(2)


def test_write_into_a_view_of_a_leaf_under_no_grad_is_allowed():
    x = _x(ember)
    with ember.no_grad():
        x[0].mul_(2)
    assert x.is_leaf and x.grad_fn is None


def test_saved_tensor_modified_through_a_view_raises_at_backward():
    for lib in (torch, ember):
        x = _x(lib)
        y = x * 1
        z = (y * y).sum()  # saves y
        y[0].mul_(2)  # the storage's version moves on
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward()


def test_view_output_saved_then_written_raises():
    x = _x(ember)
    y = x * 1
    s = y[0].exp()  # exp saves its output s
    s[1:].mul_(2)  # a write through a view of s
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (y * s.sum()).sum().backward()


def test_version_counter_is_shared_with_the_view():
    x = _x(ember)
    y = x * 1
    v = y[0]
    before = y._version
    v.mul_(2)
    assert y._version == v._version == before + 1


def test_backward_twice_through_copy_slices_raises():
    x = _x(ember)
    y = x * 1
    y[0].mul_(x[1])
    loss = (y * y).sum()
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        (y * 3).sum().backward()  # the write's node was freed with the rest of the graph


def test_detached_view_write_is_not_recorded_on_the_base():
    x = _x(ember)
    y = x * 1
    history = y.grad_fn
    d = y[0].detach()
    d.zero_()
    assert y.grad_fn is history and d.grad_fn is None


def test_write_without_a_derivative_into_a_view_cuts_the_slice():
    for lib in (torch, ember):
        x = _x(lib)
        y = x * 2
        y[0].uniform_()
        y[1].bernoulli_(0.5)
        (y * 3).sum().backward()
        if lib is torch:
            expected = _grad(x)
    np.testing.assert_allclose(_grad(x), expected)


def test_out_argument_into_a_view():
    def program(lib, x):
        y = x * 1
        if lib is torch:
            y[1].copy_(x[0] * 5)
        else:
            ember.mul(x[0], 5, out=y[1])
        return (y * y).sum()

    _check(program)


def test_rows_of_an_unbind_written_in_place():
    x = _x(ember)
    y = x * 1
    for row in y.unbind(0):
        row.mul_(2)
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 8 * x.detach().numpy())


def test_write_into_a_view_taken_under_no_grad_raises():
    for lib in (torch, ember):
        x = _x(lib)
        y = x * 1
        with lib.no_grad():
            v = y[0]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and is being modified inplace"):
            v.mul_(2)
