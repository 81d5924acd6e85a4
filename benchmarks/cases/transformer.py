"""Transformer encoder train steps and their hot elementwise ops, ember against PyTorch.

(1) TransformerEncoderLayer(128, 4, 512, gelu, batch_first) + a Linear head, batch 16 x 64 tokens,
cross-entropy over 10 classes, Adam; (2) TransformerEncoderLayer(256, 4, 1024, gelu), batch 16 x 128
tokens, AdamW. Both sides start from the same weights (torch's initial weights copied into ember's
model) and see the same batch. Target for both: <= PyTorch eager. Also GELU and tanh alone on a
16x64x512 float32 tensor (forward, and forward + backward), where exact GELU should cost about what
tanh does.
"""

import numpy as np
from harness import Compare, case, torch

import ember
import ember.nn as enn

_TORCH_OVER_EMBER = (Compare("torch/ember", "torch", "ember", target=1.0),)


class _Tagger:
    """An encoder layer over (N, L, d_model) tokens then a per-token Linear head (built for a library)."""

    def __init__(self, nn, d_model, nhead, ff, classes):
        self.layer = nn.TransformerEncoderLayer(d_model, nhead, ff, activation="gelu", batch_first=True)
        self.head = nn.Linear(d_model, classes)

    def parameters(self):
        return [*self.layer.parameters(), *self.head.parameters()]

    def named_parameters(self):
        return [
            *(("layer." + n, p) for n, p in self.layer.named_parameters()),
            *(("head." + n, p) for n, p in self.head.named_parameters()),
        ]

    def __call__(self, x):
        return self.head(self.layer(x))


def _step_impls(d_model, nhead, ff, batch, seq, optimizer, classes=10):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, seq, d_model)).astype(np.float32)
    y = rng.integers(0, classes, batch * seq)
    model = _Tagger(enn, d_model, nhead, ff, classes)
    impls = {}
    if torch is not None:
        torch.manual_seed(0)
        tmodel = _Tagger(torch.nn, d_model, nhead, ff, classes)
        weights = {name: p.detach().numpy() for name, p in tmodel.named_parameters()}
        for name, p in model.named_parameters():  # same starting weights on both sides
            p.data.copy_(ember.from_numpy(weights[name].copy()))
        topt = getattr(torch.optim, optimizer)(tmodel.parameters(), lr=1e-3)
        tx, ty = torch.from_numpy(x), torch.from_numpy(y)

        def torch_step():
            topt.zero_grad()
            loss = torch.nn.functional.cross_entropy(tmodel(tx).reshape(-1, classes), ty)
            loss.backward()
            topt.step()

        impls["torch"] = torch_step
    opt = getattr(ember.optim, optimizer)(model.parameters(), lr=1e-3)
    ex, ey = ember.from_numpy(x), ember.from_numpy(y)

    def ember_step():
        opt.zero_grad()
        loss = enn.functional.cross_entropy(model(ex).reshape(-1, classes), ey)
        loss.backward()
        opt.step()

    impls["ember"] = ember_step
    return impls


@case("transformer/(1) EncoderLayer(128,4,512,gelu)+head, 16x64, Adam", compare=_TORCH_OVER_EMBER)
def _small():
    return _step_impls(128, 4, 512, batch=16, seq=64, optimizer="Adam")


@case("transformer/(2) EncoderLayer(256,4,1024,gelu)+head, 16x128, AdamW", compare=_TORCH_OVER_EMBER)
def _large():
    return _step_impls(256, 4, 1024, batch=16, seq=128, optimizer="AdamW")


def _unary_impls(name, backward):
    x = np.random.default_rng(0).standard_normal((16, 64, 512)).astype(np.float32)

    def make(lib, fn):
        if not backward:
            t = lib.from_numpy(x)
            return lambda: fn(t)
        leaf = lib.from_numpy(x).requires_grad_(True)
        grad = lib.from_numpy(np.ones_like(x))
        return lambda: fn(leaf).backward(grad)

    impls = {"ember": make(ember, getattr(enn.functional, name))}
    if torch is not None:
        impls["torch"] = make(torch, getattr(torch.nn.functional, name))
    if name == "tanh" and not backward:
        impls["numpy"] = lambda: np.tanh(x)
    return impls


for _name in ("gelu", "tanh"):
    for _backward in (False, True):
        case(f"transformer/{_name} {'fwd+bwd' if _backward else 'fwd'} 16x64x512 f32", compare=_TORCH_OVER_EMBER)(
            lambda n=_name, b=_backward: _unary_impls(n, b)
        )
