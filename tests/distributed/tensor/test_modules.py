"""``nn.Module.to_global`` and training on global parameters, in a simulated world: the layouts
it gives, optimizers (foreach and loop paths) matching local training step for step, state_dict,
the tensor-parallel example against its single-process run, and graph mode's refusal."""

from __future__ import annotations

import copy
import pathlib
import sys

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.dispatch.sbp import broadcast, split
from ember.distributed.tensor import GLOBAL, distribute, simulated_world

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"


def _mlp(seed: int = 0) -> nn.Module:
    ember.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 12), nn.ReLU(), nn.Linear(12, 3))


MEGATRON_1D = {"0.weight": split(0), "0.bias": split(0), "2.weight": split(1), "2.bias": broadcast}
MEGATRON_2D = {name: (broadcast, e) for name, e in MEGATRON_1D.items()}
MESHES = {2: ([0, 1], MEGATRON_1D, broadcast), 4: ([[0, 1], [2, 3]], MEGATRON_2D, (split(0), broadcast))}


def test_to_global_with_a_dict_keeps_leaves_and_requires_grad():
    local = _mlp()
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        model = _mlp().to_global(p, MEGATRON_1D)
        for (name, g), (_, ref) in zip(model.named_parameters(), local.named_parameters(), strict=True):
            assert g.is_global and g.is_leaf and g.requires_grad and g.grad_fn is None
            assert g.sbp == (MEGATRON_1D[name],) and g.placement == p
            np.testing.assert_array_equal(g.detach().numpy(), ref.detach().numpy())
        assert tuple(model[0].weight.to_local(rank=1).shape) == (6, 5)
        assert tuple(model[2].weight.to_local(rank=0).shape) == (3, 6)


def test_to_global_with_one_layout_a_callable_and_buffers():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        model = _mlp().to_global(p)  # default: broadcast
        assert all(t.sbp == (broadcast,) for t in model.parameters())
        model = _mlp().to_global(p, lambda name, t: split(0) if name.endswith("weight") else None)
        assert [t.sbp for t in model.parameters()] == [(split(0),), (broadcast,), (split(0),), (broadcast,)]
        bn = nn.BatchNorm1d(5).to_global(p, {"running_mean": split(0)})
        assert bn.running_mean.sbp == (split(0),) and not bn.running_mean.requires_grad
        assert bn.num_batches_tracked.is_global and bn.num_batches_tracked.sbp == (broadcast,)
        np.testing.assert_array_equal(bn.running_var.numpy(), np.ones(5, np.float32))


def test_to_global_refuses_unknown_names_and_bad_layouts():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        with pytest.raises(KeyError, match=r"Module.to_global\(\).*'fc.weight'"):
            _mlp().to_global(p, {"fc.weight": split(0)})
        with pytest.raises(ValueError, match=r"splits dim 1.*'0.bias'"):
            _mlp().to_global(p, lambda name, t: split(1))
        with pytest.raises(TypeError, match=r"Module.to_global\(\): sbp must be"):
            _mlp().to_global(p, "S(0)")


def test_a_shared_parameter_stays_shared():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        a = nn.Linear(4, 4)
        model = nn.Sequential(a, nn.ReLU(), a).to_global(p, split(0))
        assert model[0].weight is model[2].weight and len(list(model.parameters())) == 2


OPTIMIZERS = {
    "sgd": lambda ps: ember.optim.SGD(ps, lr=0.1),
    "sgd-loop": lambda ps: ember.optim.SGD(ps, lr=0.1, foreach=False),
    "sgd-momentum": lambda ps: ember.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    "adam": lambda ps: ember.optim.Adam(ps, lr=0.05),
    "adam-loop": lambda ps: ember.optim.Adam(ps, lr=0.05, foreach=False),
    "adam-amsgrad": lambda ps: ember.optim.Adam(ps, lr=0.05, amsgrad=True),
    "adamw": lambda ps: ember.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
    "adamw-loop": lambda ps: ember.optim.AdamW(ps, lr=0.05, weight_decay=0.1, foreach=False),
}


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("opt", list(OPTIMIZERS))
def test_optimizers_on_global_parameters_match_local_training(opt, n):
    ember.manual_seed(1)
    x, y = ember.randn(11, 5), ember.randint(0, 3, (11,))  # 11 rows: uneven over the 2 data-parallel ranks of the 2x2 mesh
    local = _mlp()
    model = copy.deepcopy(local)
    local_opt = OPTIMIZERS[opt](local.parameters())
    ranks, layouts, batch = MESHES[n]
    local_losses, losses = [], []
    for _ in range(3):
        local_opt.zero_grad()
        loss = nn.functional.cross_entropy(local(x), y)
        loss.backward()
        local_opt.step()
        local_losses.append(loss.item())
    with simulated_world(n):
        p = ember.placement("cpu", ranks)
        model.to_global(p, layouts)
        optimizer = OPTIMIZERS[opt](model.parameters())
        xg, yg = distribute(x, p, batch), distribute(y, p, batch)
        for _ in range(3):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(xg), yg)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        for (name, g), ref in zip(model.named_parameters(), local.parameters(), strict=True):
            assert g.sbp == (layouts[name] if n == 4 else (layouts[name],))
            np.testing.assert_allclose(g.detach().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(losses, local_losses, rtol=1e-5)


def test_the_megatron_step_boxes_only_the_logits():
    """On a 1-D mesh the only collective of a step is the all-reduce of the partial logits."""
    ember.manual_seed(2)
    x, y = ember.randn(8, 5), ember.randint(0, 3, (8,))
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        model = _mlp().to_global(p, MEGATRON_1D)
        optimizer = ember.optim.Adam(model.parameters(), lr=0.01)
        xg, yg = distribute(x, p, broadcast), distribute(y, p, broadcast)
        before = dict(GLOBAL.fallbacks)
        with ember.trace() as t:
            loss = nn.functional.cross_entropy(model(xg), yg)
            loss.backward()
            optimizer.step()
        boxed = [(j.op, step[0]) for j in t.journeys for step in j.details.get("boxing") or ()]
        assert boxed == [("cross_entropy_with_probs", "all_reduce")]
        assert GLOBAL.fallbacks == before  # every op had a rule


def test_state_dict_of_a_global_module():
    local = _mlp()
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        model = _mlp().to_global(p, MEGATRON_1D)
        state = model.state_dict()
        assert list(state) == list(local.state_dict())
        for name, value in state.items():
            assert value.is_global and value.sbp == (MEGATRON_1D[name],) and not value.requires_grad
            np.testing.assert_array_equal(value.numpy(), local.state_dict()[name].numpy())


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_the_example_matches_single_process_training(n, optimizer):
    sys.path.insert(0, str(EXAMPLES))
    try:
        import tensor_parallel_mlp as example
    finally:
        sys.path.remove(str(EXAMPLES))
    argv = [
        "--steps",
        "4",
        "--batch-size",
        "12",
        "--features",
        "6",
        "--hidden",
        "10",
        "--classes",
        "4",
        "--optimizer",
        optimizer,
        "--quiet",
    ]
    single = example.main([*argv, "--single"])
    parallel = example.main([*argv, "--simulate", str(n)])
    np.testing.assert_allclose(parallel["losses"], single["losses"], rtol=1e-5)
    for name, value in single["parameters"].items():
        np.testing.assert_allclose(parallel["parameters"][name], value, rtol=1e-5, atol=1e-6, err_msg=name)


def test_graph_mode_refuses_global_tensors():
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        x = distribute(ember.ones(4, 3), p, split(0))
        f = ember.compile(lambda a: (a * 2).sum())
        with pytest.raises(NotImplementedError, match=r"ember.compile does not support global tensors"):
            f(x)
        with ember.Graph().as_default():
            with pytest.raises(NotImplementedError, match=r"does not support global tensors"):
                x * 2
            with pytest.raises(NotImplementedError, match=r"graph mode's constant\(\) does not support global tensors"):
                ember.constant(x)
