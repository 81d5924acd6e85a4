"""Every scheduler's lr sequence over ~30 steps equals torch's."""

import math

import pytest

import ember
import ember.optim
from ember.optim import lr_scheduler
from tests._oracle import require_torch

STEPS = 30


def _lambda(epoch):
    return 0.95**epoch


def _factor(epoch):
    return 0.9 if epoch % 3 else 1.1


CASES = [
    ("StepLR", {"step_size": 4, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [3, 7, 7, 20], "gamma": 0.3}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 10}),
    ("CosineAnnealingLR", {"T_max": 12, "eta_min": 0.01}),
    ("LambdaLR", {"lr_lambda": _lambda}),
    ("OneCycleLR", {"max_lr": 1.0, "total_steps": STEPS + 1}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": STEPS + 1, "anneal_strategy": "linear", "pct_start": 0.25}),
    ("OneCycleLR", {"max_lr": [1.0, 0.2], "total_steps": STEPS + 1, "three_phase": True, "div_factor": 10.0}),
    ("ConstantLR", {}),
    ("ConstantLR", {"factor": 0.1, "total_iters": 12}),
    ("LinearLR", {}),
    ("LinearLR", {"start_factor": 0.01, "end_factor": 0.5, "total_iters": 17}),
    ("MultiplicativeLR", {"lr_lambda": _factor}),
    ("MultiplicativeLR", {"lr_lambda": [_factor, _lambda]}),
    ("PolynomialLR", {}),
    ("PolynomialLR", {"total_iters": 20, "power": 0.7}),
    ("CosineAnnealingWarmRestarts", {"T_0": 4}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 4}),
    ("CyclicLR", {"base_lr": [0.01, 0.02], "max_lr": 0.1, "step_size_up": 3, "step_size_down": 5, "mode": "triangular2"}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": [0.1, 0.3], "step_size_up": 5, "mode": "exp_range", "gamma": 0.97,
                  "base_momentum": 0.7, "max_momentum": 0.95}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "scale_fn": _lambda, "scale_mode": "iterations",
                  "cycle_momentum": False}),
    # SequentialLR's schedulers are built on the same optimizer: a function of (optimizer, module) gives its kwargs
    ("SequentialLR", lambda opt, mod: {
        "schedulers": [mod.LinearLR(opt, start_factor=0.1, total_iters=5), mod.CosineAnnealingLR(opt, T_max=20)],
        "milestones": [5],
    }),
    ("SequentialLR", lambda opt, mod: {
        "schedulers": [mod.ConstantLR(opt, factor=0.5, total_iters=3), mod.ExponentialLR(opt, gamma=0.9),
                       mod.StepLR(opt, step_size=3, gamma=0.5)],
        "milestones": [4, 15],
    }),
]  # fmt: skip


def _groups(lib, opt_name):
    a, b = lib.zeros(2), lib.zeros(3)
    groups = [{"params": [a]}, {"params": [b], "lr": 0.05}]
    return getattr(lib.optim, opt_name)(groups, lr=0.1, **({"momentum": 0.9} if opt_name == "SGD" else {}))


def _sequence(lib, sched_mod, opt_name, name, kwargs):
    opt = _groups(lib, opt_name)
    if callable(kwargs):
        kwargs = kwargs(opt, sched_mod)
    sched = getattr(sched_mod, name)(opt, **kwargs)
    momentum_key = "betas" if opt_name == "Adam" else "momentum"
    lrs = [sched.get_last_lr()]
    moms = [[g[momentum_key] for g in opt.param_groups]]  # momentum, or (beta1, beta2)
    for _ in range(STEPS):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append([g[momentum_key] for g in opt.param_groups])
    return lrs, moms


@pytest.mark.parametrize("opt_name", ["SGD", "Adam"])
@pytest.mark.parametrize(("name", "kwargs"), CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_lr_sequence_matches_torch(name, kwargs, opt_name):
    torch = require_torch()
    ours_lr, ours_mom = _sequence(ember, lr_scheduler, opt_name, name, kwargs)
    theirs_lr, theirs_mom = _sequence(torch, torch.optim.lr_scheduler, opt_name, name, kwargs)
    assert _flat(ours_lr) == pytest.approx(_flat(theirs_lr), rel=1e-12, abs=1e-15)
    # one-cycle moves momentum (SGD) or beta1 (Adam) against the lr; others leave it alone
    assert _flat(ours_mom) == pytest.approx(_flat(theirs_mom), rel=1e-12, abs=1e-15)


def _flat(nested):
    if isinstance(nested, (list, tuple)):
        return [x for item in nested for x in _flat(item)]
    return [float(nested)]


PLATEAU_CASES = [
    {},
    {"patience": 2, "factor": 0.5},
    {"mode": "max", "patience": 1, "threshold": 0.1, "threshold_mode": "abs"},
    {"patience": 0, "cooldown": 2, "min_lr": [0.02, 0.001]},
    {"patience": 1, "factor": 0.5, "threshold_mode": "abs", "eps": 0.03},
]


@pytest.mark.parametrize("kwargs", PLATEAU_CASES)
def test_reduce_on_plateau_matches_torch(kwargs):
    torch = require_torch()
    metrics = [1.0 / (1 + i) if i < 8 else 0.12 + 0.01 * math.sin(i) for i in range(STEPS)]

    def run(lib, mod):
        opt = _groups(lib, "SGD")
        sched = mod.ReduceLROnPlateau(opt, **kwargs)
        out = []
        for m in metrics:
            opt.step()
            sched.step(m)
            out.append(sched.get_last_lr())
        return out, sched.num_bad_epochs, sched.best

    assert run(ember, lr_scheduler) == run(torch, torch.optim.lr_scheduler)


def test_initial_lr_and_base_lrs():
    opt = _groups(ember, "SGD")
    sched = lr_scheduler.StepLR(opt, step_size=2)
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.05]
    assert sched.base_lrs == [0.1, 0.05] and sched.last_epoch == 0


def test_resume_needs_initial_lr():
    opt = _groups(ember, "SGD")
    with pytest.raises(KeyError, match="initial_lr"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)


def test_state_dict_round_trip():
    opt = _groups(ember, "SGD")
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=7)
    for _ in range(4):
        opt.step()
        sched.step()
    saved = sched.state_dict()
    expected = []
    for _ in range(4):
        opt.step()
        sched.step()
        expected.append(sched.get_last_lr())

    opt2 = _groups(ember, "SGD")
    for g, lr in zip(opt2.param_groups, saved["_last_lr"], strict=False):
        g["lr"] = lr
    sched2 = lr_scheduler.CosineAnnealingLR(opt2, T_max=7)
    sched2.load_state_dict(saved)
    got = []
    for _ in range(4):
        opt2.step()
        sched2.step()
        got.append(sched2.get_last_lr())
    assert got == expected


def test_scheduler_before_optimizer_warns():
    opt = _groups(ember, "SGD")
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


def test_explicit_epoch_uses_closed_form():
    opt = _groups(ember, "SGD")
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        sched.step(7)
    assert sched.get_last_lr() == [0.1 * 0.25, 0.05 * 0.25]


def test_one_cycle_errors():
    opt = _groups(ember, "SGD")
    with pytest.raises(ValueError, match="total_steps OR"):
        lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    sched.step()
    sched.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        sched.step()
    plain = ember.optim.Adagrad([ember.zeros(1)])
    with pytest.raises(ValueError, match="momentum or beta1"):
        lr_scheduler.OneCycleLR(plain, max_lr=1.0, total_steps=5)


def test_not_an_optimizer():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lr_scheduler.StepLR(object(), step_size=1)


def test_warm_up_then_decay():
    opt = ember.optim.SGD([ember.zeros(1)], lr=1.0)
    warmup = lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=3)
    decay = lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
    sched = lr_scheduler.SequentialLR(opt, [warmup, decay], milestones=[3])
    lrs = [sched.get_last_lr()[0]]
    for _ in range(6):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    assert lrs == pytest.approx([0.25, 0.5, 0.75, 1.0, 1.0, 0.1, 0.1])
    state = sched.state_dict()
    assert [s["last_epoch"] for s in state["_schedulers"]] == [2, 3] and "optimizer" not in state
    again = lr_scheduler.SequentialLR(
        opt, [lr_scheduler.LinearLR(opt, total_iters=3), lr_scheduler.StepLR(opt, step_size=2)], milestones=[3]
    )
    again.load_state_dict(state)
    assert again.last_epoch == sched.last_epoch and again._schedulers[1].gamma == 0.1


def test_warm_up_errors():
    opt = ember.optim.SGD([ember.zeros(1)], lr=1.0)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        lr_scheduler.LinearLR(opt, start_factor=0.0)
    with pytest.raises(ValueError, match="Ending multiplicative factor"):
        lr_scheduler.LinearLR(opt, end_factor=1.5)
    with pytest.raises(ValueError, match="Constant multiplicative factor"):
        lr_scheduler.ConstantLR(opt, factor=2.0)
    step = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.raises(ValueError, match="expects at least one scheduler"):
        lr_scheduler.SequentialLR(opt, [], milestones=[])
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        lr_scheduler.SequentialLR(opt, [step], milestones=[3])
    other = ember.optim.SGD([ember.zeros(1)], lr=1.0)
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        lr_scheduler.SequentialLR(opt, [step, lr_scheduler.StepLR(other, step_size=2)], milestones=[3])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.SequentialLR(opt, [step, lr_scheduler.ReduceLROnPlateau(opt)], milestones=[3])
    with pytest.raises(TypeError, match="should have `optimizer`"):
        lr_scheduler.SequentialLR(opt, [step, object()], milestones=[3])
