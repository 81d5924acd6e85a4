"""The embedding, ranking and likelihood losses and the distance modules: known values, checks, torch."""

import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from tests._oracle import require_torch


def test_known_values():
    x1, x2 = ember.tensor([[1.0, 0.0], [1.0, 0.0]]), ember.tensor([[0.0, 1.0], [1.0, 1.0]])
    # cosines 0 and 1/sqrt(2): a similar pair loses 1 - cos, a dissimilar one max(0, cos - margin)
    losses = F.cosine_embedding_loss(x1, x2, ember.tensor([1.0, -1.0]), margin=0.5, reduction="none")
    assert losses.tolist() == pytest.approx([1.0, 1 / math.sqrt(2) - 0.5])
    ranked = F.margin_ranking_loss(ember.tensor([3.0, 1.0]), ember.tensor([1.0, 3.0]), ember.tensor([1.0, 1.0]), margin=1.0)
    assert ranked.item() == pytest.approx(1.5)  # (0 + 3) / 2
    hinge = F.hinge_embedding_loss(ember.tensor([0.5, 0.25]), ember.tensor([1.0, -1.0]), reduction="sum")
    assert hinge.item() == pytest.approx(0.5 + 0.75)
    assert F.soft_margin_loss(ember.tensor([0.0]), ember.tensor([1.0])).item() == pytest.approx(math.log(2))
    assert F.multilabel_soft_margin_loss(ember.zeros(3, 4), ember.ones(3, 4)).item() == pytest.approx(math.log(2))
    gaussian = F.gaussian_nll_loss(ember.tensor([1.0]), ember.tensor([3.0]), ember.tensor([2.0]), full=True)
    assert gaussian.item() == pytest.approx(0.5 * (math.log(2.0) + 4 / 2.0) + 0.5 * math.log(2 * math.pi))
    poisson = F.poisson_nll_loss(ember.tensor([0.0]), ember.tensor([2.0]))
    assert poisson.item() == pytest.approx(1.0)  # exp(0) - 2 * 0
    assert nn.CosineSimilarity(dim=0)(ember.tensor([1.0, 0.0]), ember.tensor([1.0, 1.0])).item() == pytest.approx(2**-0.5)
    assert nn.PairwiseDistance(p=1.0, eps=0.0)(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]])).tolist() == [7.0]


def test_checks():
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors, but found inputs with sizes"):
        F.cosine_embedding_loss(ember.zeros(3), ember.zeros(3), ember.ones(3))
    with pytest.raises(RuntimeError, match="0D or 1D target tensor expected"):
        F.cosine_embedding_loss(ember.zeros(2, 3), ember.zeros(2, 3), ember.ones(2, 1))
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(ember.zeros(2), ember.zeros(2), ember.ones(2, 1))
    with pytest.raises(ValueError, match="mean_ is not a valid value for reduction"):
        F.hinge_embedding_loss(ember.zeros(2), ember.ones(2), reduction="mean_")
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(ember.zeros(2), ember.zeros(2), ember.tensor([1.0, -1.0]))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(ember.zeros(2, 3), ember.zeros(2, 3), ember.ones(3, 2))
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert nn.SoftMarginLoss(size_average=False).reduction == "sum"


def test_gaussian_variance_clamp_keeps_its_gradient():
    var = ember.tensor([0.0, 1.0], requires_grad=True)
    F.gaussian_nll_loss(ember.zeros(2), ember.zeros(2), var, eps=0.5, reduction="sum").backward()
    assert var.grad.tolist() == pytest.approx([1.0, 0.5])  # d/dv 0.5 log(v) at the clamped 0.5, and at 1


def _cases():
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((5, 4)).astype(np.float32) for _ in range(2))
    signs = np.array([1, -1, 1, -1, 1], np.float32)
    grid_signs = np.sign(rng.standard_normal((5, 4))).astype(np.float32)
    labels = (rng.random((5, 4)) > 0.5).astype(np.float32)
    positive = np.abs(a) + 0.1
    counts = rng.poisson(2, (5, 4)).astype(np.float32)
    return [
        ("CosineEmbeddingLoss", {"margin": 0.2}, (a, b), (signs,)),
        ("MarginRankingLoss", {"margin": 0.3}, (a[:, 0], b[:, 0]), (signs,)),
        ("HingeEmbeddingLoss", {"margin": 1.5}, (positive,), (grid_signs,)),
        ("SoftMarginLoss", {}, (a,), (grid_signs,)),
        ("MultiLabelSoftMarginLoss", {"reduction": "none"}, (a,), (labels,)),
        ("GaussianNLLLoss", {"full": True}, (a, b, positive), ()),
        ("GaussianNLLLoss", {"reduction": "sum"}, (a, b, positive[:, 0]), ()),
        ("PoissonNLLLoss", {}, (a,), (counts,)),
        ("PoissonNLLLoss", {"log_input": False, "full": True}, (positive,), (counts,)),
        ("CosineSimilarity", {"dim": 1}, (a, b), ()),
        ("PairwiseDistance", {"p": 3.0}, (a, b), ()),
    ]


@pytest.mark.parametrize(("name", "kwargs", "inputs", "constants"), _cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_matches_torch(name, kwargs, inputs, constants):
    torch = require_torch()
    ours_in = [ember.tensor(x, requires_grad=True) for x in inputs]
    theirs_in = [torch.tensor(x, requires_grad=True) for x in inputs]
    ours = getattr(nn, name)(**kwargs)(*ours_in, *(ember.tensor(c) for c in constants))
    theirs = getattr(torch.nn, name)(**kwargs)(*theirs_in, *(torch.tensor(c) for c in constants))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    for o, t in zip(ours_in, theirs_in, strict=True):
        np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-6)
