"""The Optimizer base: param groups and their errors, zero_grad, closures, repr, state dicts."""

import copy
import warnings

import numpy as np
import pytest

import ember
import ember.optim
from ember.optim.optimizer import Optimizer, required

from ._torch_compare import make_data


def _param(values=(1.0, 2.0)):
    return ember.tensor(list(values)).requires_grad_()


def test_params_must_be_an_iterable_not_a_tensor():
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        ember.optim.SGD(_param(), lr=0.1)


def test_empty_parameter_list():
    with pytest.raises(ValueError, match="empty parameter list"):
        ember.optim.SGD([], lr=0.1)


def test_non_tensor_param():
    with pytest.raises(TypeError, match="can only optimize Tensors"):
        ember.optim.SGD([1.0], lr=0.1)


def test_sets_are_rejected():
    with pytest.raises(TypeError, match="ordered collections"):
        ember.optim.SGD([{"params": {_param()}}], lr=0.1)


def test_param_in_two_groups():
    p = _param()
    with pytest.raises(ValueError, match="more than one parameter group"):
        ember.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    opt = ember.optim.SGD([p], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": p})


def test_duplicate_param_within_a_group_warns():
    p = _param()
    with pytest.warns(UserWarning, match="duplicate parameters"):
        ember.optim.SGD([p, p], lr=0.1)


def test_missing_required_lr():
    class Plain(Optimizer):
        def __init__(self, params, lr=required):
            super().__init__(params, {"lr": lr})

    with pytest.raises(ValueError, match="didn't specify a value of required optimization parameter lr"):
        Plain([_param()])
    opt = Plain([{"params": [_param()], "lr": 0.5}])
    assert opt.param_groups[0]["lr"] == 0.5


def test_param_group_must_be_a_dict():
    opt = ember.optim.SGD([_param()], lr=0.1)
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([_param()])


def test_group_overrides_and_defaults():
    a, b = _param(), _param()
    opt = ember.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert [g["momentum"] for g in opt.param_groups] == [0, 0.9]


def test_named_params():
    a, b = _param(), _param()
    opt = ember.optim.Adam([("w", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.param_groups[0]["params"][0] is a
    with pytest.raises(ValueError, match="with/without names"):
        opt.add_param_group({"params": [_param()]})


def test_zero_grad():
    p = _param()
    opt = ember.optim.SGD([p], lr=0.1)
    p.grad = ember.tensor([3.0, 4.0])
    opt.zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_params_without_grad_are_skipped():
    a, b = _param(), _param()
    opt = ember.optim.Adam([a, b], lr=0.1)
    a.grad = ember.tensor([1.0, 1.0])
    opt.step()
    assert b.detach().tolist() == [1.0, 2.0]
    assert b not in opt.state and a in opt.state


def test_closure_value_is_returned():
    p = _param()
    opt = ember.optim.SGD([p], lr=0.1)

    def closure():
        p.grad = ember.tensor([1.0, 1.0])
        return 42.0

    assert opt.step(closure) == 42.0
    np.testing.assert_allclose(p.detach().numpy(), [0.9, 1.9], rtol=1e-6)


def test_repr_like_torch():
    opt = ember.optim.SGD([_param()], lr=0.1, momentum=0.9)
    assert repr(opt) == (
        "SGD (\nParameter Group 0\n    dampening: 0\n    foreach: None\n    lr: 0.1\n    maximize: False\n"
        "    momentum: 0.9\n    nesterov: False\n    weight_decay: 0\n)"
    )


def test_state_tensors_are_ember_tensors():
    p = _param()
    opt = ember.optim.Adam([p], lr=0.1, amsgrad=True)
    p.grad = ember.tensor([1.0, 1.0])
    opt.step()
    opt.step()
    state = opt.state[p]
    assert set(state) == {"step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"}
    assert all(isinstance(v, ember.Tensor) for v in state.values())
    assert state["step"].shape == () and state["step"].item() == 2.0 and state["step"].dtype == ember.float32


def test_state_dict_format():
    a, b, c = _param(), _param(), _param()
    opt = ember.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, c):
        p.grad = ember.tensor([1.0, 1.0])
    opt.step()
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0, 1], [2]]
    assert sorted(sd["state"]) == [0, 2]
    assert sd["param_groups"][1]["lr"] == 0.5
    assert sd["state"][0]["momentum_buffer"].tolist() == [1.0, 1.0]


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
        ("Adam", {"lr": 0.01, "amsgrad": True}),
        ("AdamW", {"lr": 0.01, "weight_decay": 0.1}),
        ("RMSprop", {"lr": 0.01, "momentum": 0.5, "centered": True}),
        ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
    ],
)
def test_state_dict_round_trip_continues_like_uninterrupted(name, kwargs):
    params, grads = make_data("float64", 8, seed=1)
    cls = getattr(ember.optim, name)

    def set_grads(ps, step_grads):
        for p, g in zip(ps, step_grads, strict=False):
            p.grad = ember.tensor(g)

    straight = [ember.tensor(p.copy()).requires_grad_() for p in params]
    opt = cls(straight, **kwargs)
    for g in grads:
        set_grads(straight, g)
        opt.step()

    resumed = [ember.tensor(p.copy()).requires_grad_() for p in params]
    first = cls(resumed, **kwargs)
    for g in grads[:4]:
        set_grads(resumed, g)
        first.step()
    saved = copy.deepcopy(first.state_dict())
    del first
    second = cls(resumed, lr=123.0)  # the loaded groups replace these hyper-parameters
    second.load_state_dict(saved)
    assert second.param_groups[0]["lr"] == kwargs["lr"]
    for g in grads[4:]:
        set_grads(resumed, g)
        second.step()

    for a, b in zip(straight, resumed, strict=False):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_load_state_dict_copies_and_casts():
    p = ember.tensor([1.0, 2.0], dtype=ember.float64).requires_grad_()
    opt = ember.optim.SGD([p], lr=0.1, momentum=0.9)
    sd = {
        "state": {0: {"momentum_buffer": ember.tensor([1.0, 1.0])}},
        "param_groups": [dict(opt.state_dict()["param_groups"][0])],
    }
    opt.load_state_dict(sd)
    buf = opt.state[p]["momentum_buffer"]
    assert buf.dtype == ember.float64
    buf.add_(1.0)
    assert sd["state"][0]["momentum_buffer"].tolist() == [1.0, 1.0]


def test_load_state_dict_mismatches():
    opt = ember.optim.SGD([_param(), _param()], lr=0.1)
    other = ember.optim.SGD([_param()], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size"):
        opt.load_state_dict(other.state_dict())
    two = ember.optim.SGD([{"params": [_param()]}, {"params": [_param()]}], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two.state_dict())


def test_adamw_stays_decoupled_after_loading_adam_state():
    p = _param()
    adam = ember.optim.Adam([p], lr=0.1, weight_decay=0.1)
    adamw = ember.optim.AdamW([_param()], lr=0.1)
    adamw.load_state_dict(adam.state_dict())
    assert adamw.param_groups[0]["decoupled_weight_decay"] is True


@pytest.mark.parametrize(
    ("cls", "kwargs", "match"),
    [
        ("SGD", {"lr": -1.0}, "Invalid learning rate"),
        ("SGD", {"lr": 0.1, "nesterov": True}, "Nesterov momentum requires"),
        ("Adam", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0"),
        ("Adam", {"eps": -1.0}, "Invalid epsilon"),
        ("RMSprop", {"alpha": -0.1}, "Invalid alpha"),
        ("Adagrad", {"lr_decay": -0.1}, "Invalid lr_decay"),
    ],
)
def test_hyperparameter_validation(cls, kwargs, match):
    with pytest.raises(ValueError, match=match):
        getattr(ember.optim, cls)([_param()], **kwargs)


def test_step_is_not_recorded_by_autograd():
    # with autograd, an in-place update of a leaf that requires grad raises unless grad mode is off
    p = _param()
    opt = ember.optim.SGD([p], lr=0.1)
    p.grad = ember.tensor([1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
    assert p.requires_grad
    assert getattr(p, "grad_fn", None) is None


def test_closure_runs_with_grad_enabled():
    if not hasattr(ember, "is_grad_enabled"):
        pytest.skip("no autograd yet")
    p = _param()
    opt = ember.optim.SGD([p], lr=0.1)
    seen = []

    def closure():
        seen.append(ember.is_grad_enabled())
        p.grad = ember.tensor([1.0, 1.0])
        return 0.0

    opt.step(closure)
    assert seen == [True] and ember.is_grad_enabled()


def _fused_and_loop(monkeypatch, op_name: str, make_optimizer, steps: int, seed: int):
    """Train three parameters (float32 and float64) on the same gradients with ``foreach=None``
    (the multi-tensor op ``op_name``) and ``foreach=False`` (the loop); returns the attributes of
    each call of the op's kernel and, per run, the parameters and the optimizer state as arrays."""
    from ember.dispatch.opexpr import OP_REGISTRY

    calls = []
    op = OP_REGISTRY[op_name]
    kernel = op.kernels["cpu"]
    monkeypatch.setitem(op.kernels, "cpu", lambda outs, ins, attrs: (calls.append((len(outs), attrs)), kernel(outs, ins, attrs)))
    gen = ember.Generator().manual_seed(seed)
    start = [ember.randn(3, 2, generator=gen), ember.randn(2, generator=gen), ember.randn(4, generator=gen, dtype=ember.float64)]
    grads = [[ember.randn(p.shape, generator=gen, dtype=p.dtype) for p in start] for _ in range(steps)]
    runs = []
    for foreach in (None, False):
        params = [p.clone().requires_grad_() for p in start]
        opt = make_optimizer(params, foreach)
        for step_grads in grads:
            for p, g in zip(params, step_grads, strict=True):
                p.grad = g.clone()
            opt.step()
        state = [t.numpy().copy() for p in params for t in opt.state[p].values() if isinstance(t, ember.Tensor)]
        runs.append([p.detach().numpy() for p in params] + state)
    return calls, runs


@pytest.mark.parametrize("options", [{}, {"momentum": 0.9, "nesterov": True, "weight_decay": 0.1}, {"momentum": 0.5, "maximize": True}])
def test_sgd_foreach_update_equals_the_per_parameter_loop(monkeypatch, options):
    # by default SGD writes every parameter's update in one multi-tensor op; foreach=False keeps
    # one add_ per parameter: parameters and momentum buffers must come out identical, bit for bit
    calls, (fused, loop) = _fused_and_loop(
        monkeypatch, "foreach_add_alpha", lambda ps, foreach: ember.optim.SGD(ps, lr=0.1, foreach=foreach, **options), 3, 4
    )
    assert [n for n, _ in calls] == [3, 3, 3]  # one multi-tensor write per step, of all three parameters
    for a, b in zip(fused, loop, strict=True):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    ("cls", "options"),
    [
        ("Adam", {}),
        ("Adam", {"weight_decay": 0.1, "amsgrad": True}),
        ("Adam", {"maximize": True, "betas": (0.6, 0.4)}),  # a weight >= 0.5: lerp's other branch
        ("AdamW", {"weight_decay": 0.05}),
        ("AdamW", {"amsgrad": True, "maximize": True}),
    ],
)
def test_adam_fused_step_equals_the_per_parameter_loop(monkeypatch, cls, options):
    # by default Adam runs each step as one multi-tensor op (foreach_adam); foreach=False keeps
    # the op-by-op loop: parameters and state must come out identical, bit for bit
    def make(params, foreach):
        return getattr(ember.optim, cls)(params, lr=0.1, foreach=foreach, **options)

    calls, (fused, loop) = _fused_and_loop(monkeypatch, "foreach_adam", make, 4, 5)
    assert [attrs["amsgrad"] for _, attrs in calls] == [options.get("amsgrad", False)] * 4  # one op per step
    assert len(fused) == 3 * (5 if options.get("amsgrad") else 4)  # parameters, then each one's state
    for a, b in zip(fused, loop, strict=True):
        np.testing.assert_array_equal(a, b)
