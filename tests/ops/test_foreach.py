"""Multi-tensor ops (``ember.ops.foreach``): the same result as one op per tensor, PyTorch's
checks, and what an in-place write implies (versions, read-only memory, autograd's refusal)."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.ops.foreach import foreach_add_


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64, ember.float16, ember.bfloat16])
def test_foreach_add_matches_add_per_tensor(dtype):
    gen = ember.Generator().manual_seed(0)
    shapes = [(3, 4), (5,), (), (2, 0)]
    selfs = [ember.randn(s, generator=gen).to(dtype) for s in shapes]
    others = [ember.randn(s, generator=gen).to(dtype) for s in shapes]
    expect = [t.clone().add_(o, alpha=-0.25) for t, o in zip(selfs, others, strict=True)]
    versions = [t._version for t in selfs]
    foreach_add_(selfs, others, alpha=-0.25)
    for got, want, before in zip(selfs, expect, versions, strict=True):
        np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())
        assert got._version == before + 1


def test_foreach_add_writes_views_and_aliases():
    base = ember.zeros(4)
    view = base[1:3]
    g = ember.ones(2)
    foreach_add_([view, g], [g, g], alpha=2)  # the second pair adds a tensor to itself
    assert base.tolist() == [0.0, 2.0, 2.0, 0.0]
    assert g.tolist() == [3.0, 3.0]


def test_foreach_add_checks_its_arguments():
    a = ember.zeros(2)
    with pytest.raises(ValueError, match="got 1 tensors and 2 others"):
        foreach_add_([a], [a, a])
    with pytest.raises(RuntimeError, match=r"_foreach_add_\(\): other\[0\] has shape \[3\], expected self\[0\]'s \[2\]"):
        foreach_add_([a], [ember.zeros(3)])
    with pytest.raises(RuntimeError, match="expected floating tensors of one dtype, got self\\[0\\] float32 and other\\[0\\] float64"):
        foreach_add_([a], [ember.zeros(2, dtype=ember.float64)])
    with pytest.raises(RuntimeError, match="expected floating tensors"):
        foreach_add_([ember.zeros(2, dtype=ember.int64)], [ember.zeros(2, dtype=ember.int64)])
    with pytest.raises(TypeError, match="alpha must be a real number, got complex"):
        foreach_add_([a], [a], alpha=1j)
    assert a.tolist() == [0.0, 0.0]  # nothing written by a refused call
    foreach_add_([], [])  # nothing to do


def test_foreach_add_refuses_leaves_that_require_grad_and_read_only_memory():
    p = ember.zeros(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        foreach_add_([p], [ember.ones(2)])
    with ember.no_grad():
        foreach_add_([p], [ember.ones(2)])
    assert p.tolist() == [1.0, 1.0]
    frozen = np.zeros(2, np.float32)
    frozen.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        foreach_add_([ember.from_numpy(frozen)], [ember.ones(2)])


def test_an_in_place_update_of_a_saved_parameter_names_its_line():
    p = ember.ones(3, requires_grad=True)
    loss = (p * p).sum()
    with ember.no_grad():
        foreach_add_([p], [ember.ones(3)])  # the line the error names
    with pytest.raises(RuntimeError, match=r"modified in place at .*test_foreach.py:\d+"):
        loss.backward()


def test_foreach_adam_checks_its_arguments():
    from ember.ops.foreach import foreach_adam_

    p, g, m, v, step = ember.zeros(2), ember.ones(2), ember.zeros(2), ember.zeros(2), ember.tensor(0.0)
    kw = {"lr": 0.1, "beta1": 0.9, "beta2": 0.999, "eps": 1e-8, "weight_decay": 0.0, "decoupled_weight_decay": False, "maximize": False}
    with pytest.raises(ValueError, match=r"different lengths: \[1, 1, 1, 1, 2\]"):
        foreach_adam_([p], [g], [m], [v], [step, step], **kw)
    with pytest.raises(RuntimeError, match=r"exp_avg_sqs\[0\] is float32 \[3\], expected float32 \[2\]"):
        foreach_adam_([p], [g], [m], [ember.zeros(3)], [step], **kw)
    with pytest.raises(RuntimeError, match=r"steps\[0\] is int64 \[\], expected a 0-d floating tensor"):
        foreach_adam_([p], [g], [m], [v], [ember.tensor(0)], **kw)
    with pytest.raises(RuntimeError, match=r"grads\[0\] is float64 \[2\], expected float32 \[2\]"):
        foreach_adam_([p], [g.double()], [m], [v], [step], **kw)
    with pytest.raises(TypeError, match="lr must be a real number, got Tensor"):
        foreach_adam_([p], [g], [m], [v], [step], **{**kw, "lr": ember.tensor(0.1)})
    assert p.tolist() == [0.0, 0.0] and step.item() == 0.0  # nothing written by a refused call
    foreach_adam_([p], [g], [m], [v], [step], **kw)
    assert step.item() == 1.0 and p.tolist() == pytest.approx([-0.1, -0.1])  # Adam's first step moves by lr
