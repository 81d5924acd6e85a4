"""Training steps (forward, backward, SGD step) in ember and PyTorch, 1 thread or not, same shapes.

(a) the seed's TinyModel 100-200-10, batch 64; (b) an MLP 784-1024-1024-10, batch 256;
(c) a CNN Conv(3,32)-ReLU-Pool-Conv(32,64)-ReLU-Pool-Linear, batch 32 of 3x32x32. Targets:
(a) and (b) <= 1.0x PyTorch's time, (c) <= 1.5x. Also: what autograd adds per recorded op.
"""

import numpy as np
from harness import Compare, case, torch

import ember
import ember.nn as enn


def _tiny(nn, lib):
    return nn.Sequential(nn.Linear(100, 200), nn.ReLU(), nn.Linear(200, 10))


def _mlp(nn, lib):
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def _cnn(nn, lib):
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 10),
    )  # fmt: skip


def _step_impls(build, x_shape, batch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, *x_shape)).astype(np.float32)
    y = rng.integers(0, 10, batch)
    model = build(enn, ember)
    opt = ember.optim.SGD(model.parameters(), lr=0.01)
    ex, ey = ember.from_numpy(x), ember.from_numpy(y)

    def ember_step():
        opt.zero_grad()
        loss = enn.functional.cross_entropy(model(ex), ey)
        loss.backward()
        opt.step()

    impls = {"ember": ember_step}
    if torch is not None:
        tmodel = build(torch.nn, torch)
        topt = torch.optim.SGD(tmodel.parameters(), lr=0.01)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def torch_step():
            topt.zero_grad()
            loss = torch.nn.functional.cross_entropy(tmodel(tx), ty)
            loss.backward()
            topt.step()

        impls["torch"] = torch_step
    return impls


@case("training/(a) TinyModel 100-200-10 batch 64", compare=(Compare("torch/ember", "torch", "ember", target=1.0),))
def _a():
    return _step_impls(_tiny, (100,), 64)


@case("training/(b) MLP 784-1024-1024-10 batch 256", compare=(Compare("torch/ember", "torch", "ember", target=1.0),))
def _b():
    return _step_impls(_mlp, (784,), 256)


@case("training/(c) CNN 3x32x32 batch 32", compare=(Compare("torch/ember", "torch", "ember", target=1 / 1.5),))
def _c():
    return _step_impls(_cnn, (3, 32, 32), 32)


@case(
    "training/autograd cost per recorded op: a*b 100 f32",
    compare=(Compare("recorded - plain (us)", "ember[recorded]", "ember"),),
    note="the ratio line shows recorded/plain; the difference per op is the autograd cost (target <= 1.5 us)",
)
def _overhead():
    a = ember.randn(100)
    b = ember.randn(100)
    ra = ember.randn(100, requires_grad=True)
    return {"ember": lambda: a * b, "ember[recorded]": lambda: ra * b}


def _bn_relu_impls(inplace_ok: bool):
    """Forward and backward of BatchNorm2d(32) + ReLU on a 16x32x16x16 float32 batch."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 32, 16, 16)).astype(np.float32)

    def make(nn, lib, inplace):
        block = nn.Sequential(nn.BatchNorm2d(32), nn.ReLU(inplace=inplace))
        leaf = lib.from_numpy(x).requires_grad_(True)
        return lambda: block(leaf).sum().backward()

    impls = {"ember": make(enn, ember, False)}
    if inplace_ok:
        impls["ember[inplace]"] = make(enn, ember, True)
    if torch is not None:
        impls["torch"] = make(torch.nn, torch, False)
        impls["torch[inplace]"] = make(torch.nn, torch, True)
    return impls


@case("training/BatchNorm2d+ReLU fwd+bwd 16x32x16x16 f32", compare=(Compare("torch/ember", "torch", "ember"),))
def _bn_relu():
    try:  # ReLU(inplace=True) after batch norm: refused while batch norm saved its output
        _bn_relu_impls(True)["ember[inplace]"]()
        return _bn_relu_impls(True)
    except RuntimeError:
        return _bn_relu_impls(False)
