"""Recurrent train steps (forward, backward, SGD step) in ember and PyTorch: same weights, same batches.

(a) a 2-layer LSTM(32, 128) with a Linear(128, 10) head on the last step, batch 32 x 32 steps,
cross entropy; (b) ``nn.LSTM`` input 64, hidden 256, 2 layers, sequence 64, batch 32, the mean
of the output as the loss; (c) the same with ``nn.GRU``. Target for each: ember <= 1.5x PyTorch
(printed as torch/ember >= 0.67). PyTorch's weights are copied into ember's model.
"""

import numpy as np
from harness import Compare, case, torch

import ember
import ember.nn as enn

_TARGET = (Compare("torch/ember", "torch", "ember", target=1 / 1.5),)


class _Tagger:
    """A recurrent layer and a linear head on its last step (built for either library)."""

    def __init__(self, nn, input_size, hidden, classes):
        self.rnn = nn.LSTM(input_size, hidden, num_layers=2)
        self.head = nn.Linear(hidden, classes)

    def parameters(self):
        return [*self.rnn.parameters(), *self.head.parameters()]

    def __call__(self, x):
        out, _ = self.rnn(x)
        return self.head(out[-1])


def _copy_weights(src, dst):
    """Copy each torch parameter into the ember parameter of the same name."""
    for (name, p), (ename, q) in zip(src.named_parameters(), dst.named_parameters(), strict=True):
        assert name == ename, (name, ename)
        with ember.no_grad():
            q.copy_(ember.from_numpy(p.detach().numpy().copy()))


def _tagger_impls():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 32, 32)).astype(np.float32)  # (steps, batch, features)
    y = rng.integers(0, 10, 32)
    impls = {}
    model = _Tagger(enn, 32, 128, 10)
    if torch is not None:
        torch.manual_seed(0)
        tmodel = _Tagger(torch.nn, 32, 128, 10)
        _copy_weights(tmodel.rnn, model.rnn)
        _copy_weights(tmodel.head, model.head)
        topt = torch.optim.SGD(tmodel.parameters(), lr=0.01)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def torch_step():
            topt.zero_grad()
            torch.nn.functional.cross_entropy(tmodel(tx), ty).backward()
            topt.step()

        impls["torch"] = torch_step
    opt = ember.optim.SGD(model.parameters(), lr=0.01)
    ex, ey = ember.from_numpy(x), ember.from_numpy(y)

    def ember_step():
        opt.zero_grad()
        enn.functional.cross_entropy(model(ex), ey).backward()
        opt.step()

    impls["ember"] = ember_step
    return impls


def _layer_impls(kind: str):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32, 64)).astype(np.float32)  # (seq, batch, input)
    impls = {}
    model = getattr(enn, kind)(64, 256, num_layers=2)
    if torch is not None:
        torch.manual_seed(0)
        tmodel = getattr(torch.nn, kind)(64, 256, num_layers=2)
        _copy_weights(tmodel, model)
        topt = torch.optim.SGD(tmodel.parameters(), lr=0.01)
        tx = torch.from_numpy(x)

        def torch_step():
            topt.zero_grad()
            tmodel(tx)[0].mean().backward()
            topt.step()

        impls["torch"] = torch_step
    opt = ember.optim.SGD(model.parameters(), lr=0.01)
    ex = ember.from_numpy(x)

    def ember_step():
        opt.zero_grad()
        model(ex)[0].mean().backward()
        opt.step()

    impls["ember"] = ember_step
    return impls


@case("rnn/(a) 2-layer LSTM(32,128)+head train step, batch 32 x 32 steps", compare=_TARGET)
def _tagger():
    return _tagger_impls()


@case("rnn/(b) LSTM(64,256) 2 layers train step, seq 64 batch 32", compare=_TARGET)
def _lstm():
    return _layer_impls("LSTM")


@case("rnn/(c) GRU(64,256) 2 layers train step, seq 64 batch 32", compare=_TARGET)
def _gru():
    return _layer_impls("GRU")
