"""MultiplicativeLR, PolynomialLR, CosineAnnealingWarmRestarts, CyclicLR and ChainedScheduler:
lr sequences against their formulas (no torch needed), errors, state dicts; and, with torch,
the cases the shared sequence test cannot express (chained schedulers, fractional epochs,
state-dict keys)."""

import math

import pytest

import ember
import ember.optim
from ember.optim import lr_scheduler
from tests._oracle import require_torch


def _opt(lib=ember, lr=1.0, **kwargs):
    return lib.optim.SGD([lib.zeros(2)], lr=lr, **kwargs)


def _run(opt, sched, steps):
    lrs = [sched.get_last_lr()[0]]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    return lrs


def test_multiplicative_lr_is_the_running_product():
    opt = _opt(lr=2.0)
    sched = lr_scheduler.MultiplicativeLR(opt, lambda epoch: 1.0 - 0.1 * epoch)
    want = [2.0]
    for epoch in range(1, 6):
        want.append(want[-1] * (1.0 - 0.1 * epoch))
    assert _run(opt, sched, 5) == pytest.approx(want, rel=1e-15)


def test_multiplicative_lr_errors():
    with pytest.raises(TypeError, match="lr_lambda should be a function, but got float"):
        lr_scheduler.MultiplicativeLR(_opt(), 0.5)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        lr_scheduler.MultiplicativeLR(_opt(), [abs, abs])


@pytest.mark.parametrize(("total_iters", "power"), [(5, 1.0), (8, 0.5), (3, 2.5)])
def test_polynomial_lr_formula(total_iters, power):
    opt = _opt(lr=0.3)
    got = _run(opt, lr_scheduler.PolynomialLR(opt, total_iters=total_iters, power=power), total_iters + 3)
    want = [0.3 * (1 - min(e, total_iters) / total_iters) ** power for e in range(total_iters + 4)]
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("T_0", "T_mult"), [(4, 1), (2, 2), (3, 3)])
def test_warm_restarts_formula(T_0, T_mult):
    opt = _opt(lr=1.0)
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=T_0, T_mult=T_mult, eta_min=0.1)
    got = _run(opt, sched, 20)
    want, t_cur, t_i = [], 0, T_0
    for _ in range(21):
        want.append(0.1 + 0.9 * (1 + math.cos(math.pi * t_cur / t_i)) / 2)
        t_cur += 1
        if t_cur >= t_i:
            t_cur, t_i = 0, t_i * T_mult
    assert got == pytest.approx(want, rel=1e-12)


def test_warm_restarts_fractional_epoch_jumps_in_closed_form():
    opt = _opt(lr=1.0)
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
    opt.step()
    sched.step(6.5)  # periods [0, 2), [2, 6), [6, 14): 0.5 into the third
    assert (sched.T_i, sched.T_cur, sched.last_epoch) == (8, 0.5, 6)
    assert sched.get_last_lr() == [pytest.approx((1 + math.cos(math.pi * 0.5 / 8)) / 2)]
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"T_0": 0}, "Expected positive integer T_0, but got 0"),
        ({"T_0": 2.0}, "Expected positive integer T_0, but got 2.0"),
        ({"T_0": 2, "T_mult": 0}, "Expected integer T_mult >= 1, but got 0"),
        ({"T_0": 2, "eta_min": "0"}, "Expected float or int eta_min, but got 0 of type <class 'str'>"),
    ],
)
def test_warm_restarts_errors(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(".", r"\.")):
        lr_scheduler.CosineAnnealingWarmRestarts(_opt(), **kwargs)


def _triangle(epoch, up, down):
    """Where in its cycle ``epoch`` is, as the fraction of the way from base to max."""
    pos = epoch % (up + down)
    return pos / up if pos <= up else 1 - (pos - up) / down


@pytest.mark.parametrize("mode", ["triangular", "triangular2", "exp_range"])
def test_cyclic_lr_formula_and_momentum(mode):
    up, down, gamma = 3, 5, 0.9
    opt = _opt(lr=0.5, momentum=0.9)
    sched = lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=0.6, step_size_up=up, step_size_down=down, mode=mode, gamma=gamma)
    lrs, moms = [sched.get_last_lr()[0]], [opt.param_groups[0]["momentum"]]
    for _ in range(20):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
        moms.append(opt.param_groups[0]["momentum"])
    for epoch, (lr, mom) in enumerate(zip(lrs, moms, strict=True)):
        cycle = epoch // (up + down) + 1
        scale = {"triangular": 1.0, "triangular2": 0.5 ** (cycle - 1), "exp_range": gamma**epoch}[mode]
        height = _triangle(epoch, up, down) * scale
        assert lr == pytest.approx(0.1 + 0.5 * height, abs=1e-12)
        assert mom == pytest.approx(0.9 - 0.1 * height, abs=1e-12)
    assert opt.param_groups[0]["max_momentum"] == 0.9 and opt.param_groups[0]["base_momentum"] == 0.8


def test_cyclic_lr_moves_adams_beta1_and_sets_base_lr():
    opt = ember.optim.Adam([ember.zeros(2)], lr=0.5, betas=(0.5, 0.99))
    sched = lr_scheduler.CyclicLR(opt, base_lr=0.01, max_lr=0.02, step_size_up=2)
    assert opt.param_groups[0]["lr"] == 0.01 and opt.param_groups[0]["betas"] == (0.9, 0.99)
    opt.step()
    sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.015) and opt.param_groups[0]["betas"][0] == pytest.approx(0.85)


def test_cyclic_lr_errors():
    with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
        lr_scheduler.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, mode="sawtooth")
    with pytest.raises(ValueError, match="momentum or beta1"):
        lr_scheduler.CyclicLR(ember.optim.Adagrad([ember.zeros(1)]), 0.1, 1.0)
    with pytest.raises(ValueError, match=r"max_lr must have the same length as optimizer\.param_groups"):
        lr_scheduler.CyclicLR(_opt(momentum=0.9), 0.1, [1.0, 2.0])
    with pytest.raises(TypeError, match="is not an Optimizer"):
        lr_scheduler.CyclicLR(object(), 0.1, 1.0)


class _Halving:
    """A callable object: its state (not its code) travels in the state dict."""

    def __init__(self):
        self.base = 0.5

    def __call__(self, x):
        return self.base**x


def test_cyclic_lr_state_dict_keeps_callable_objects_only():
    opt = _opt(momentum=0.9)
    sched = lr_scheduler.CyclicLR(opt, 0.1, 1.0, step_size_up=2, scale_fn=_Halving())
    fn = _Halving()
    fn.base = 0.25
    sd = lr_scheduler.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, step_size_up=2, scale_fn=fn).state_dict()
    assert sd["_scale_fn_custom"] == {"base": 0.25} and "optimizer" not in sd
    sched.load_state_dict(sd)
    assert sched.scale_fn(2) == 0.0625
    plain = lr_scheduler.CyclicLR(_opt(momentum=0.9), 0.1, 1.0, scale_fn=lambda x: 1.0).state_dict()
    assert plain["_scale_fn_custom"] is None


def test_chained_scheduler_multiplies_the_factors():
    opt = _opt(lr=1.0)
    constant = lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=3)
    exponential = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    sched = lr_scheduler.ChainedScheduler([constant, exponential])
    got = _run(opt, sched, 6)
    assert got == pytest.approx([(0.1 if e < 3 else 1.0) * 0.9**e for e in range(7)], rel=1e-12)
    state = sched.state_dict()
    assert [s["last_epoch"] for s in state["_schedulers"]] == [6, 6] and "optimizer" not in state
    again = lr_scheduler.ChainedScheduler(
        [lr_scheduler.ConstantLR(opt), lr_scheduler.ExponentialLR(opt, gamma=0.5)], optimizer=opt
    )
    again.load_state_dict(state)
    assert again._schedulers[1].gamma == 0.9 and again._schedulers[0].factor == 0.1


def test_chained_scheduler_errors():
    opt, other = _opt(), _opt()
    step = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.raises(ValueError, match="expects at least one scheduler to be chained"):
        lr_scheduler.ChainedScheduler([])
    with pytest.raises(ValueError, match="belong to the same optimizer"):
        lr_scheduler.ChainedScheduler([step, lr_scheduler.StepLR(other, step_size=2)])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.ChainedScheduler([step, lr_scheduler.ReduceLROnPlateau(opt)])


def test_chained_and_fractional_warm_restarts_match_torch():
    torch = require_torch()

    def chained(lib):
        opt = lib.optim.SGD([{"params": [lib.zeros(2)]}, {"params": [lib.zeros(1)], "lr": 0.3}], lr=1.0, momentum=0.9)
        mod = lib.optim.lr_scheduler
        sched = mod.ChainedScheduler(
            [mod.LinearLR(opt, start_factor=0.2, total_iters=4), mod.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)],
            optimizer=opt,
        )
        return _run_groups(opt, sched, 15)

    def fractional(lib):
        opt = lib.optim.SGD([lib.zeros(2)], lr=1.0)
        sched = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3, eta_min=0.05)
        out = []
        for epoch in range(6):
            for i in range(4):
                opt.step()
                sched.step(epoch + i / 4)
                out.append([*sched.get_last_lr(), sched.T_cur, sched.T_i])
        sched.step()  # back to counting after a jump
        return [*out, sched.get_last_lr()]

    assert _flat(chained(ember)) == pytest.approx(_flat(chained(torch)), rel=1e-12)
    assert _flat(fractional(ember)) == pytest.approx(_flat(fractional(torch)), rel=1e-12)


def _flat(rows):
    return [float(x) for row in rows for x in row]


def _run_groups(opt, sched, steps):
    out = [sched.get_last_lr()]
    for _ in range(steps):
        opt.step()
        sched.step()
        out.append(sched.get_last_lr())
    return out


def _halve(epoch):
    return 0.5


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("MultiplicativeLR", {"lr_lambda": _halve}),
        ("PolynomialLR", {"total_iters": 4}),
        ("CosineAnnealingWarmRestarts", {"T_0": 3}),
        ("CyclicLR", {"base_lr": 0.1, "max_lr": 1.0}),
    ],
)
def test_state_dict_keys_match_torch(name, kwargs):
    torch = require_torch()

    def keys(lib):
        opt = lib.optim.SGD([lib.zeros(2)], lr=1.0, momentum=0.9)
        sched = getattr(lib.optim.lr_scheduler, name)(opt, **kwargs)
        opt.step()
        sched.step()
        return {k: v for k, v in sched.state_dict().items() if not k.startswith("_get_lr")}

    ours, theirs = keys(ember), keys(torch)
    assert sorted(ours) == sorted(theirs)
    for key in ("last_epoch", "base_lrs", "_last_lr", "_step_count", "T_cur", "T_i", "total_size", "step_ratio"):
        if key in theirs:
            assert ours[key] == pytest.approx(theirs[key]), key
