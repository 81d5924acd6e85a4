"""NAdam, RAdam, Adamax, Adadelta, ASGD and Rprop: first steps worked by hand, hyper-parameter
errors with PyTorch's texts, param groups, state dicts; and, with torch, trajectories over
several groups and a checkpoint resumed half-way."""

import math

import numpy as np
import pytest

import ember
import ember.optim
from tests._oracle import require_torch

from ._torch_compare import make_data

NEW = ["NAdam", "RAdam", "Adamax", "Adadelta", "ASGD", "Rprop"]


def _first_step(name, kwargs, p0, g):
    p = ember.tensor(p0, dtype=ember.float64).requires_grad_()
    opt = getattr(ember.optim, name)([p], **kwargs)
    p.grad = ember.tensor(g, dtype=ember.float64)
    opt.step()
    return p.detach().numpy()


def test_nadam_first_step_by_hand():
    lr, b1, b2, eps, psi = 0.1, 0.9, 0.999, 1e-8, 4e-3
    mu1 = b1 * (1 - 0.5 * 0.96 ** (1 * psi))
    mu2 = b1 * (1 - 0.5 * 0.96 ** (2 * psi))
    g = np.array([2.0, -0.5])
    m, v = (1 - b1) * g, (1 - b2) * g * g
    denom = np.sqrt(v / (1 - b2)) + eps
    want = 1.0 - lr * (1 - mu1) / (1 - mu1) * g / denom - lr * mu2 / (1 - mu1 * mu2) * m / denom
    # mu_product is a 0-d float32 tensor, as in PyTorch: its rounding bounds the agreement
    np.testing.assert_allclose(_first_step("NAdam", {"lr": lr}, [1.0, 1.0], g), want, rtol=1e-8)


def test_nadam_decoupled_weight_decay_shrinks_the_parameter_first():
    plain = _first_step("NAdam", {"lr": 0.1}, [2.0], [1.0])
    decoupled = _first_step("NAdam", {"lr": 0.1, "weight_decay": 0.5, "decoupled_weight_decay": True}, [2.0], [1.0])
    np.testing.assert_allclose(decoupled, plain - 2.0 * 0.1 * 0.5, rtol=1e-12)


def test_radam_switches_to_the_rectified_step():
    b2 = 0.5  # rho_inf = 3: never tractable, plain bias-corrected momentum every step
    p = ember.tensor([1.0], dtype=ember.float64).requires_grad_()
    opt = ember.optim.RAdam([p], lr=0.1, betas=(0.9, b2))
    for _ in range(3):
        p.grad = ember.tensor([1.0], dtype=ember.float64)
        opt.step()
    np.testing.assert_allclose(p.detach().numpy(), [1.0 - 0.3], rtol=1e-12)  # m / (1 - b1**t) == 1 each step
    # default betas: rho_t > 5 from step 6, after which the step is lr * r_t * m_hat / (sqrt(v_hat) + eps)
    b2, lr, t = 0.999, 0.1, 6
    rho_inf = 2 / (1 - b2) - 1
    rho = [rho_inf - 2 * s * b2**s / (1 - b2**s) for s in range(1, t + 1)]
    assert rho[4] <= 5 < rho[5]
    p = ember.tensor([0.0], dtype=ember.float64).requires_grad_()
    opt = ember.optim.RAdam([p], lr=lr)
    for _ in range(t):
        p.grad = ember.tensor([1.0], dtype=ember.float64)
        opt.step()
    r = math.sqrt((rho[5] - 4) * (rho[5] - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho[5]))
    np.testing.assert_allclose(p.detach().numpy(), [-5 * lr - lr * r * 1 / (1 + 1e-8 * math.sqrt(1 - b2**t))], rtol=1e-9)


def test_adamax_first_step_by_hand():
    got = _first_step("Adamax", {"lr": 0.1, "eps": 0.5}, [1.0, 1.0], [2.0, -1.0])
    # m = 0.1 g, u = |g| + eps, p -= lr / 0.1 * m / u
    np.testing.assert_allclose(got, [1.0 - 0.1 * 2.0 / 2.5, 1.0 + 0.1 * 1.0 / 1.5], rtol=1e-12)


def test_adadelta_first_step_by_hand():
    got = _first_step("Adadelta", {"lr": 0.5, "rho": 0.75, "eps": 0.25}, [1.0], [2.0])
    np.testing.assert_allclose(got, [1.0 - 0.5 * math.sqrt(0.25) / math.sqrt(1.25) * 2.0], rtol=1e-12)


def test_asgd_averages_after_t0():
    p = ember.tensor([1.0], dtype=ember.float64).requires_grad_()
    opt = ember.optim.ASGD([p], lr=0.5, lambd=0.0, alpha=0.75, t0=1)
    seen = []
    for _ in range(3):
        p.grad = ember.tensor([1.0], dtype=ember.float64)
        opt.step()
        seen.append(p.item())
    # lambd = 0: eta stays lr; mu = 1 / max(1, t - t0) is 1, 1, then 1/2 for the third average
    assert seen == [0.5, 0.0, -0.5]
    np.testing.assert_allclose(opt.state[p]["ax"].numpy(), [0.0 + (-0.5 - 0.0) / 1], rtol=1e-12)
    assert opt.state[p]["mu"].item() == 0.5
    assert opt.state[p]["eta"].item() == 0.5


def test_rprop_grows_shrinks_and_clamps():
    p = ember.tensor([0.0, 0.0], dtype=ember.float64).requires_grad_()
    opt = ember.optim.Rprop([p], lr=0.1, etas=(0.5, 2.0), step_sizes=(0.01, 0.3))
    for g in ([1.0, 1.0], [1.0, -1.0], [1.0, -1.0], [1.0, -1.0]):
        p.grad = ember.tensor(g, dtype=ember.float64)
        opt.step()
    # first coordinate: steps 0.1, 0.2, 0.3 (clamped), 0.3; second: 0.1 down, then a sign change
    # halves the step and skips the move (forgetting the gradient), 0.05 up, 0.1 up
    np.testing.assert_allclose(p.detach().numpy(), [-0.9, -0.1 + 0.05 + 0.1], rtol=1e-12)
    np.testing.assert_allclose(opt.state[p]["step_size"].numpy(), [0.3, 0.1], rtol=1e-12)


@pytest.mark.parametrize(
    ("name", "kwargs", "message"),
    [
        ("NAdam", {"lr": -1.0}, "Invalid learning rate: -1.0"),
        ("NAdam", {"eps": -1.0}, "Invalid epsilon value: -1.0"),
        ("NAdam", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0: 1.0"),
        ("NAdam", {"betas": (0.9, -0.1)}, "Invalid beta parameter at index 1: -0.1"),
        ("NAdam", {"weight_decay": -1}, "Invalid weight_decay value: -1"),
        ("NAdam", {"momentum_decay": -0.1}, "Invalid momentum_decay value: -0.1"),
        ("RAdam", {"betas": (0.9, 1.0)}, "Invalid beta parameter at index 1: 1.0"),
        ("RAdam", {"weight_decay": -0.5}, "Invalid weight_decay value: -0.5"),
        ("Adamax", {"eps": -1e-3}, "Invalid epsilon value: -0.001"),
        ("Adadelta", {"rho": 1.5}, "Invalid rho value: 1.5"),
        ("Adadelta", {"lr": -0.1}, "Invalid learning rate: -0.1"),
        ("ASGD", {"weight_decay": -1.0}, "Invalid weight_decay value: -1.0"),
        ("Rprop", {"etas": (1.5, 2.0)}, "Invalid eta values: 1.5, 2.0"),
        ("Rprop", {"etas": (0.5, 0.9)}, "Invalid eta values: 0.5, 0.9"),
    ],
)
def test_bad_hyper_parameters(name, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        getattr(ember.optim, name)([ember.zeros(2, requires_grad=True)], **kwargs)


def test_tensor_lr_must_have_one_element():
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        ember.optim.NAdam([ember.zeros(2, requires_grad=True)], lr=ember.tensor([0.1, 0.2]))


STATE_KEYS = {
    "NAdam": ["exp_avg", "exp_avg_sq", "mu_product", "step"],
    "RAdam": ["exp_avg", "exp_avg_sq", "step"],
    "Adamax": ["exp_avg", "exp_inf", "step"],
    "Adadelta": ["acc_delta", "square_avg", "step"],
    "ASGD": ["ax", "eta", "mu", "step"],
    "Rprop": ["prev", "step", "step_size"],
}


@pytest.mark.parametrize("name", NEW)
def test_state_dict_round_trip_resumes_the_same_trajectory(name):
    params, grads = make_data("float64", 6)

    def fresh():
        ps = [ember.tensor(p.copy()).requires_grad_() for p in params]
        return ps, getattr(ember.optim, name)([{"params": ps[:1]}, {"params": ps[1:], "lr": 0.03}], lr=0.01)

    def run(ps, opt, steps):
        for step_grads in steps:
            for p, g in zip(ps, step_grads, strict=True):
                p.grad = ember.tensor(g.copy())
            opt.step()

    ps, opt = fresh()
    run(ps, opt, grads)
    ps2, opt2 = fresh()
    run(ps2, opt2, grads[:3])
    sd = opt2.state_dict()
    assert sorted(sd["state"][0]) == STATE_KEYS[name]
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1]]
    assert sd["state"][0]["step"].item() == 3.0
    ps3, opt3 = fresh()
    for p, q in zip(ps3, ps2, strict=True):
        p.detach().copy_(q.detach())
    opt3.load_state_dict(sd)
    # as in PyTorch, loading casts floating state but "step" to the parameter's dtype: the 0-d
    # float32 mu_product/eta/mu become float64 here, so the resumed run differs by their rounding
    assert all(v.dtype == ember.float64 for k, v in opt3.state[ps3[0]].items() if k != "step")
    run(ps3, opt3, grads[3:])
    for a, b in zip(ps, ps3, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", NEW)
def test_params_without_grad_are_skipped_and_closure_is_returned(name):
    a, b = ember.ones(2, requires_grad=True), ember.ones(2, requires_grad=True)
    opt = getattr(ember.optim, name)([a, b])
    a.grad = ember.ones(2)
    assert opt.step(lambda: 7.0) == 7.0
    assert b.tolist() == [1.0, 1.0] and len(opt.state[b]) == 0
    assert a.tolist() != [1.0, 1.0]


TORCH_GROUPS = [
    ("NAdam", {"lr": 0.02}, {"lr": 0.005, "betas": (0.8, 0.9), "weight_decay": 0.2, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.02, "betas": (0.9, 0.6)}, {"lr": 0.005, "weight_decay": 0.2}),
    ("Adamax", {"lr": 0.02}, {"lr": 0.005, "betas": (0.5, 0.7), "maximize": True}),
    ("Adadelta", {"lr": 0.5}, {"rho": 0.5, "weight_decay": 0.3}),
    ("ASGD", {"lr": 0.05, "t0": 3}, {"lambd": 0.2, "alpha": 0.9}),
    ("Rprop", {"lr": 0.05}, {"lr": 0.2, "etas": (0.4, 1.1), "step_sizes": (0.05, 0.25)}),
]


@pytest.mark.parametrize(("name", "defaults", "override"), TORCH_GROUPS, ids=[c[0] for c in TORCH_GROUPS])
def test_param_groups_and_checkpoint_match_torch(name, defaults, override):
    torch = require_torch()
    params, grads = make_data("float32", 8, seed=3)

    def run(lib, to_tensor):
        ps = [to_tensor(p.copy()).requires_grad_() for p in params]
        opt = getattr(lib.optim, name)([{"params": ps[:1]}, {"params": ps[1:], **override}], **defaults)
        for i, step_grads in enumerate(grads):
            for p, g in zip(ps, step_grads, strict=True):
                p.grad = to_tensor(g.copy())
            opt.step()
            if i == 3:  # the state as a checkpoint would hold it
                sd = opt.state_dict()
                state = {k: {n: v.detach().numpy().copy() for n, v in s.items()} for k, s in sd["state"].items()}
                groups = [{k: v for k, v in g.items() if k not in ("differentiable", "capturable")} for g in sd["param_groups"]]
        return [p.detach().numpy() for p in ps], state, groups

    ours, our_state, our_groups = run(ember, ember.tensor)
    theirs, their_state, their_groups = run(torch, torch.tensor)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
    assert our_groups == their_groups
    assert our_state.keys() == their_state.keys()
    for k in our_state:
        assert our_state[k].keys() == their_state[k].keys()
        for n in our_state[k]:
            assert our_state[k][n].dtype == their_state[k][n].dtype, (k, n)
            np.testing.assert_allclose(our_state[k][n], their_state[k][n], rtol=1e-6, atol=1e-7)
