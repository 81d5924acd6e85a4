"""Ops through the whole road (functional API -> functor -> dispatch -> interpreter -> VM ->
kernel) against NumPy and PyTorch doing the same, and the VM's synchronous and asynchronous
streams side by side.

Targets: ``a + b`` and ``relu(a)`` on 100 float32 under 2 us per op; large elementwise ops and
reductions at >= 0.9x NumPy's bandwidth; matmul at >= 0.95x the faster of NumPy and PyTorch.
"""

import numpy as np
from harness import Compare, Impl, case, torch

import ember

SMALL = 100
LARGE = 16 << 20  # 16M float32 = 64 MiB per tensor


def _pair(n: int, dtype=np.float32):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(n).astype(dtype), rng.standard_normal(n).astype(dtype)
    return a, b


def _peers(impls: dict, fn_numpy, fn_torch, *arrays) -> dict:
    impls["numpy"] = lambda: fn_numpy(*arrays)
    if torch is not None:
        tensors = [torch.from_numpy(x) for x in arrays]
        impls["torch"] = lambda: fn_torch(*tensors)
    return impls


@case("ops/a + b 100 f32", target_us=2.0)
def _add_small():
    a, b = _pair(SMALL)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    return _peers({"ember": lambda: ea + eb}, np.add, lambda x, y: x + y, a, b)


@case("ops/relu(a) 100 f32", target_us=2.0)
def _relu_small():
    a, _ = _pair(SMALL)
    ea = ember.from_numpy(a)
    return _peers({"ember": lambda: ember.relu(ea)}, lambda x: np.maximum(x, 0), lambda x: torch.relu(x), a)


@case("ops/a * 2.0 100 f32", target_us=2.0)
def _mul_scalar_small():
    a, _ = _pair(SMALL)
    ea = ember.from_numpy(a)
    return _peers({"ember": lambda: ea * 2.0}, lambda x: x * np.float32(2.0), lambda x: x * 2.0, a)


@case("ops/a + b 16M f32", compare=(Compare("bandwidth vs numpy (numpy time / ember time)", "numpy", "ember", target=0.9),))
def _add_large():
    a, b = _pair(LARGE)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    return _peers({"ember": lambda: ea + eb}, np.add, lambda x, y: x + y, a, b)


@case(
    "ops/chain of 8 elementwise 16M f32 (VM sync vs async)",
    compare=(Compare("sync/async", "ember", "ember[async]"),),
    note="> 1 would mean the asynchronous stream overlaps Python dispatch with kernels",
)
def _chain_large():
    a, _ = _pair(LARGE)
    ea = ember.from_numpy(a)

    def chain():
        y = ea * 2.0
        for _ in range(7):
            y = y + 1.0
        ember.vm.synchronize()  # the asynchronous stream's work counts too
        return y

    def chain_numpy():
        y = a * np.float32(2.0)
        for _ in range(7):
            y = y + np.float32(1.0)
        return y

    impls = {"ember": chain, "ember[async]": Impl(chain, scope=ember.vm.asynchronous), "numpy": chain_numpy}
    return impls


@case(
    "ops/chain of 50 small ops 100 f32 (VM sync vs async)",
    compare=(Compare("sync/async", "ember", "ember[async]"),),
)
def _chain_small():
    a, _ = _pair(SMALL)
    ea = ember.from_numpy(a)

    def chain():
        y = ea
        for _ in range(50):
            y = y + 1.0
        return y.tolist()  # a sync point

    return {"ember": chain, "ember[async]": Impl(chain, scope=ember.vm.asynchronous)}


@case("ops/sum 16M f32", compare=(Compare("bandwidth vs numpy (numpy time / ember time)", "numpy", "ember", target=0.9),))
def _sum_large():
    a, _ = _pair(LARGE)
    ea = ember.from_numpy(a)
    return _peers({"ember": lambda: ea.sum()}, np.sum, lambda x: x.sum(), a)


@case("ops/relu 16M f32", compare=(Compare("bandwidth vs numpy (numpy time / ember time)", "numpy", "ember", target=0.9),))
def _relu_large():
    a, _ = _pair(LARGE)
    ea = ember.from_numpy(a)
    return _peers({"ember": lambda: ember.relu(ea)}, lambda x: np.maximum(x, 0), lambda x: torch.relu(x), a)


def _matmul_case(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((256, 1024)).astype(dtype)
    b = rng.standard_normal((1024, 2048)).astype(dtype)
    ea, eb = ember.from_numpy(a), ember.from_numpy(b)
    return _peers({"ember": lambda: ea @ eb}, np.matmul, lambda x, y: x @ y, a, b)


@case("ops/matmul (256,1024)@(1024,2048) f32", compare=(Compare("numpy/ember", "numpy", "ember", target=0.95), Compare("torch/ember", "torch", "ember", target=0.95)))
def _matmul_f32():
    return _matmul_case(np.float32)


@case("ops/matmul (256,1024)@(1024,2048) f64", compare=(Compare("numpy/ember", "numpy", "ember", target=0.95), Compare("torch/ember", "torch", "ember", target=0.95)))
def _matmul_f64():
    return _matmul_case(np.float64)


@case("ops/fft.rfft 1M f32", compare=(Compare("numpy/ember", "numpy", "ember"), Compare("torch/ember", "torch", "ember")))
def _rfft_1m():
    a, _ = _pair(1 << 20)
    ea = ember.from_numpy(a)
    return _peers({"ember": lambda: ember.fft.rfft(ea)}, np.fft.rfft, lambda x: torch.fft.rfft(x), a)
