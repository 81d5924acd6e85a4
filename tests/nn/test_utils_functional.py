"""nn.utils (clipping, vector conversion), nn.functional's re-exports, train/eval behaviour."""

import math

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.ops.functional import FUNCTIONS, NAMESPACES
from ember.ops.schema import load_schema
from tests._oracle import require_torch


def _params_with_grads(*grads):
    params = []
    for g in grads:
        p = nn.Parameter(ember.zeros(len(g)))
        p.grad = ember.tensor(g)
        params.append(p)
    return params


def test_clip_grad_norm():
    params = _params_with_grads([3.0, 0.0], [0.0, 4.0])
    total = nn.utils.clip_grad_norm_(params, max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    np.testing.assert_allclose(params[0].grad.numpy(), [0.6, 0.0], rtol=1e-5)
    # under the limit: untouched
    params = _params_with_grads([0.3, 0.4])
    nn.utils.clip_grad_norm_(params, max_norm=1.0)
    np.testing.assert_allclose(params[0].grad.numpy(), [0.3, 0.4], rtol=1e-6)
    params = _params_with_grads([1.0, -7.0], [2.0])
    assert nn.utils.clip_grad_norm_(params, 1.0, norm_type=math.inf).item() == 7.0
    assert nn.utils.clip_grad_norm_(params, 100.0, norm_type=1).item() == pytest.approx(10 / 7, rel=1e-5)  # already scaled by 1/7 above
    assert nn.utils.clip_grad_norm_([nn.Parameter(ember.zeros(1))], 1.0).item() == 0.0
    with pytest.raises(RuntimeError, match="non-finite"):
        nn.utils.clip_grad_norm_(_params_with_grads([math.nan]), 1.0, error_if_nonfinite=True)


def test_clip_grad_value():
    params = _params_with_grads([-3.0, 0.5, 2.0])
    nn.utils.clip_grad_value_(params, 1.0)
    assert params[0].grad.tolist() == [-1.0, 0.5, 1.0]


def test_vector_round_trip():
    model = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
    vec = nn.utils.parameters_to_vector(model.parameters())
    assert vec.shape == (11,)
    weight = model[0].weight
    nn.utils.vector_to_parameters(ember.arange(11.0), model.parameters())
    assert model[0].weight is weight and model[1].bias.tolist() == [10.0]
    with pytest.raises(TypeError, match=r"expected ember\.Tensor"):
        nn.utils.vector_to_parameters([1.0], model.parameters())


def test_functional_reexports_the_schema():
    nn_entries = [e for e in load_schema() if e.family == "nn"]
    nn_names = [e.name for e in nn_entries if not e.namespace and "nn.functional" in e.namespaces]
    assert nn_names and all(getattr(F, name) is FUNCTIONS[name] for name in nn_names)
    # torch.lstm_cell and torch.gru_cell are torch's only, not torch.nn.functional's
    torch_only = [e.name for e in nn_entries if not e.namespace and "nn.functional" not in e.namespaces]
    assert {"lstm_cell", "gru_cell"} <= set(torch_only) and not any(hasattr(F, name) for name in torch_only)
    # the entries named nn.functional.* (unfold, fold) are shown there only, as in PyTorch
    only_here = [e.short_name for e in nn_entries if e.namespace == "nn.functional"]
    assert {"unfold", "fold"} <= set(only_here)
    assert all(getattr(F, name) is NAMESPACES["nn.functional"][name] for name in only_here)
    assert F.unfold is not ember.unfold  # ember.unfold is the Tensor view x.unfold(dim, size, step)
    for name in ("relu", "gelu", "silu", "sigmoid", "tanh", "elu", "leaky_relu", "softplus", "pad", "one_hot",
                 "interpolate", "scaled_dot_product_attention", "cross_entropy", "relu_"):  # fmt: skip
        assert getattr(F, name) is FUNCTIONS[name], name
    assert set(F.__all__) >= {"relu6", "mish", "normalize", "multi_head_attention_forward"}


def test_functional_composites_match_torch():
    torch = require_torch()
    x = np.linspace(-4, 4, 12, dtype=np.float32).reshape(3, 4)
    for name in ("relu6", "hardswish", "hardsigmoid", "mish", "logsigmoid", "selu", "celu", "softsign", "tanhshrink", "glu"):
        got = getattr(F, name)(ember.tensor(x)).numpy()
        np.testing.assert_allclose(got, getattr(torch.nn.functional, name)(torch.from_numpy(x)).numpy(), atol=1e-5, err_msg=name)
    y = x[::-1].copy()
    np.testing.assert_allclose(F.normalize(ember.tensor(x)).numpy(), torch.nn.functional.normalize(torch.from_numpy(x)).numpy(), atol=1e-6)
    np.testing.assert_allclose(
        F.cosine_similarity(ember.tensor(x), ember.tensor(y)).numpy(),
        torch.nn.functional.cosine_similarity(torch.from_numpy(x), torch.from_numpy(y)).numpy(),
        atol=1e-6,
    )


def test_triplet_margin_loss():
    anchor, positive, negative = ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0]]), ember.tensor([[0.0, 1.0]])
    assert F.triplet_margin_loss(anchor, positive, negative, eps=0.0).item() == pytest.approx(5.0)  # 1 + 5 - 1
    # swap: d(positive, negative) = sqrt(18) is larger than d(anchor, negative) = 1, so nothing changes
    assert F.triplet_margin_loss(anchor, positive, negative, eps=0.0, swap=True).item() == pytest.approx(5.0)
    assert F.triplet_margin_loss(anchor, negative, positive, eps=0.0, margin=0.5, p=1.0).item() == 0.0  # 0.5 + 1 - 7
    batch = [ember.tensor(np.random.default_rng(i).standard_normal((4, 3)).astype(np.float32)) for i in range(3)]
    per_triplet = nn.TripletMarginLoss(reduction="none")(*batch)
    assert per_triplet.shape == (4,) and (per_triplet >= 0).all().item()
    assert nn.TripletMarginLoss(reduction="sum")(*batch).item() == pytest.approx(per_triplet.sum().item())
    with pytest.warns(UserWarning, match="reduction='sum'"):
        legacy = F.triplet_margin_loss(*batch, size_average=False)
    assert legacy.item() == pytest.approx(per_triplet.sum().item())
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_loss(batch[0], batch[1], batch[2][0])
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.triplet_margin_loss(*batch, reduction="avg")
    with pytest.raises(ValueError, match="expected margin to be greater than 0"):
        nn.TripletMarginLoss(margin=0.0)


def test_triplet_margin_loss_matches_torch():
    torch = require_torch()
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((6, 5)).astype(np.float32) for _ in range(3)]
    for kwargs in ({}, {"margin": 2.0, "p": 1.0}, {"swap": True}, {"p": 3.0, "eps": 0.1, "reduction": "none"}):
        ours = [ember.tensor(a, requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        got, want = F.triplet_margin_loss(*ours, **kwargs), torch.nn.functional.triplet_margin_loss(*theirs, **kwargs)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-5, err_msg=str(kwargs))
        got.sum().backward()
        want.sum().backward()
        for o, t in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=str(kwargs))


def test_prelu():
    x = ember.tensor([[-2.0, 1.0], [4.0, -8.0]])
    assert F.prelu(x, ember.tensor([0.5])).tolist() == [[-1.0, 1.0], [4.0, -4.0]]
    assert F.prelu(x, ember.tensor([0.5, 0.25])).tolist() == [[-1.0, 1.0], [4.0, -2.0]]  # one slope per column (dim 1)
    layer = nn.PReLU(2, init=0.1)
    assert repr(layer) == "PReLU(num_parameters=2)" and layer.weight.tolist() == pytest.approx([0.1, 0.1])
    layer(x).sum().backward()
    assert layer.weight.grad.tolist() == [-2.0, -8.0]  # the negative inputs of each channel
    with pytest.raises(RuntimeError, match="Found parameter numbers = 3 and channel size = 2"):
        F.prelu(x, ember.ones(3))
    with pytest.raises(RuntimeError, match="Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2"):
        F.prelu(x, ember.ones(1, 2))


def test_prelu_matches_torch():
    torch = require_torch()
    x = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
    x[0, 0, 0] = 0.0  # the slope's side at zero, as torch
    for slopes in (np.array([0.2], np.float32), np.array([0.1, -0.3, 0.7], np.float32)):
        ours = [ember.tensor(a, requires_grad=True) for a in (x, slopes)]
        theirs = [torch.tensor(a, requires_grad=True) for a in (x, slopes)]
        got, want = F.prelu(*ours), torch.nn.functional.prelu(*theirs)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
        (got * got).sum().backward()
        (want * want).sum().backward()
        for o, t in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(o.grad.numpy(), t.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_dropout_train_eval():
    ember.manual_seed(0)
    d = nn.Dropout(0.5)
    out = d(ember.ones(10000)).numpy()
    assert set(np.unique(out).tolist()) == {0.0, 2.0} and abs((out == 0).mean() - 0.5) < 0.03
    d.eval()
    assert d(ember.ones(5)).tolist() == [1.0] * 5
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout(1.5)


def test_batchnorm_train_eval():
    bn = nn.BatchNorm1d(2, momentum=0.5)
    x = ember.tensor([[1.0, 10.0], [3.0, 30.0]])
    out = bn(x)
    np.testing.assert_allclose(out.detach().numpy(), [[-1, -1], [1, 1]], atol=1e-3)
    np.testing.assert_allclose(bn.running_mean.numpy(), [1.0, 10.0])
    np.testing.assert_allclose(bn.running_var.numpy(), [0.5 + 0.5 * 2, 0.5 + 0.5 * 200], rtol=1e-5)  # unbiased var
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    out = bn(x)
    assert bn.num_batches_tracked.item() == 1
    expected = (x.numpy() - [1.0, 10.0]) / np.sqrt(np.array([1.5, 100.5]) + 1e-5)
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-5)
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        bn(ember.zeros(1, 2, 3, 4))
    free = nn.BatchNorm1d(2, track_running_stats=False).eval()
    np.testing.assert_allclose(free(x).detach().numpy(), [[-1, -1], [1, 1]], atol=1e-3)


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    seq.append(nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    assert [type(m).__name__ for m in seq] == ["Linear", "ReLU", "Linear"]
    del seq[1]
    assert list(seq._modules) == ["0", "1"] and seq(ember.ones(4, 2)).shape == (4, 1)
    ml = nn.ModuleList([nn.ReLU()])
    ml += [nn.Tanh()]
    ml.insert(0, nn.Identity())
    assert [type(m).__name__ for m in ml] == ["Identity", "ReLU", "Tanh"] and type(ml[-1]).__name__ == "Tanh"
    md = nn.ModuleDict([("a", nn.ReLU())])
    md["b"] = nn.Linear(1, 1)
    assert list(md) == ["a", "b"] and [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    pl = nn.ParameterList([ember.zeros(2), nn.Parameter(ember.ones(1))])
    pl.append(ember.zeros(3))
    assert len(pl) == 3 and all(isinstance(p, nn.Parameter) for p in pl)
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    pd = nn.ParameterDict({"w": ember.zeros(2)})
    pd["b"] = nn.Parameter(ember.zeros(1))
    assert list(pd.keys()) == ["w", "b"] and len(list(pd.parameters())) == 2
    m = nn.Module()
    m.layers = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1)])
    assert list(m.state_dict()) == ["layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]
