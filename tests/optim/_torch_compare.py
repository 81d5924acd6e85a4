"""Run an ember optimizer and a torch optimizer side by side on the same params and grads."""

from __future__ import annotations

import numpy as np

import ember
import ember.optim

SHAPES = [(3,), (2, 4)]


def make_data(dtype: str, steps: int, seed: int = 0) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """Initial params and one gradient list per step (grads vary in sign and scale)."""
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(dtype) for s in SHAPES]
    grads = [[(rng.standard_normal(s) * rng.uniform(0.1, 3)).astype(dtype) for s in SHAPES] for _ in range(steps)]
    return params, grads


def run_ember(cls_name: str, kwargs: dict, params: list[np.ndarray], grads: list[list[np.ndarray]]) -> list[np.ndarray]:
    ps = [ember.tensor(p.copy()).requires_grad_() for p in params]
    opt = getattr(ember.optim, cls_name)(ps, **kwargs)
    for step_grads in grads:
        for p, g in zip(ps, step_grads, strict=False):
            p.grad = ember.tensor(g.copy())
        opt.step()
    return [p.detach().numpy().copy() for p in ps]


def run_torch(torch, cls_name: str, kwargs: dict, params: list[np.ndarray], grads: list[list[np.ndarray]]) -> list[np.ndarray]:
    ps = [torch.tensor(p.copy(), requires_grad=True) for p in params]
    opt = getattr(torch.optim, cls_name)(ps, foreach=False, **kwargs)
    for step_grads in grads:
        for p, g in zip(ps, step_grads, strict=False):
            p.grad = torch.tensor(g.copy())
        opt.step()
    return [p.detach().numpy().copy() for p in ps]


def assert_matches(torch, cls_name: str, kwargs: dict, dtype: str = "float32", steps: int = 6) -> None:
    params, grads = make_data(dtype, steps)
    ours = run_ember(cls_name, kwargs, params, grads)
    theirs = run_torch(torch, cls_name, kwargs, params, grads)
    tol = 1e-6 if dtype == "float32" else 1e-12
    for a, b in zip(ours, theirs, strict=False):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
