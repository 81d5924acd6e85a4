"""Metadata-only views of a small tensor: only Python overhead is measured."""

import numpy as np
from harness import case, torch

import ember

TARGET_US = 1.5


def _inputs():
    a = np.arange(9, dtype=np.float32).reshape(3, 3)
    return a, ember.from_numpy(a), (torch.from_numpy(a) if torch is not None else None)


def _impls(ember_fn, numpy_fn, torch_fn) -> dict:
    a, t, tt = _inputs()
    impls = {"ember": lambda: ember_fn(t), "numpy": lambda: numpy_fn(a)}
    if tt is not None:
        impls["torch"] = lambda: torch_fn(tt)
    return impls


@case("views/view(9) 3x3 f32", target_us=TARGET_US, note="numpy: a.reshape(9)")
def _view():
    return _impls(lambda t: t.view(9), lambda a: a.reshape(9), lambda t: t.view(9))


@case("views/transpose(0,1) 3x3 f32", target_us=TARGET_US, note="numpy: a.swapaxes(0, 1)")
def _transpose():
    return _impls(lambda t: t.transpose(0, 1), lambda a: a.swapaxes(0, 1), lambda t: t.transpose(0, 1))


@case("views/slice [1:, ::2] 3x3 f32", target_us=TARGET_US)
def _slice():
    return _impls(lambda t: t[1:, ::2], lambda a: a[1:, ::2], lambda t: t[1:, ::2])
