"""Elementwise fusion: ``relu(a * b + c) * 0.5`` as one FusedProgram (graph mode's fused kernel)
against NumPy step by step, NumPy with ``out=`` buffer reuse, PyTorch eager and ember eager.

Implementations (every case):
- ``ember``: the FusedProgram, writing into a preallocated output (what a graph executor with
  planned buffers does); ``ember[fresh out]``: the same, allocating its output per call.
- ``ember[eager]``: the four ops through ember's eager dispatch.
- ``numpy``: step by step, a fresh array per op; ``numpy[out=]``: one fresh result, every step
  written into it; ``numpy[into]``: every step written into a preallocated output.
- ``torch``: eager; ``torch[into]``: ``out=`` and in-place ops into a preallocated output.

Target (16M float32, one thread): <= 9 ms for ``ember``. ``numpy a+b into (ref)`` is one pass
reading 2 streams and writing 1: the chain's floor (3 in, 1 out) is about 4/3 of it.
``ember[2 threads]`` splits the chunks between two threads (informative: ``--threads 1`` pins
BLAS and torch, not this).
"""

import numpy as np
from harness import Compare, case, torch

import ember
from ember.dispatch import OP_REGISTRY
from ember.graph.run.fused import FusedProgram

LARGE = 16 << 20  # 16M float32 = 64 MiB per tensor
HALF = np.float32(0.5)


def _program(a_shape, c_shape, threads=1):
    ops = OP_REGISTRY
    steps = [
        (ops["mul"], (("in", 0), ("in", 1)), {}),
        (ops["add"], (("step", 0), ("in", 2)), {}),
        (ops["relu"], (("step", 1),), {}),
        (ops["mul_scalar"], (("step", 2),), {"other": 0.5}),
    ]
    return FusedProgram(
        steps, [(a_shape, ember.float32), (a_shape, ember.float32), (c_shape, ember.float32)], [3], threads=threads
    )


def _impls(a_shape, c_shape, floor: bool = False) -> dict:
    rng = np.random.default_rng(0)
    a = rng.standard_normal(a_shape).astype(np.float32)
    b = rng.standard_normal(a_shape).astype(np.float32)
    c = rng.standard_normal(c_shape).astype(np.float32)
    prog = _program(a_shape, c_shape)
    out = np.empty(a_shape, np.float32)
    want = np.maximum(a * b + c, 0) * HALF
    assert np.array_equal(prog([a, b, c])[0], want)
    ea, eb, ec = (ember.from_numpy(x) for x in (a, b, c))
    zero = np.zeros((), np.float32)

    def numpy_out():
        t = np.multiply(a, b)
        np.add(t, c, out=t)
        np.maximum(t, zero, out=t)
        return np.multiply(t, HALF, out=t)

    def numpy_into():
        np.multiply(a, b, out=out)
        np.add(out, c, out=out)
        np.maximum(out, zero, out=out)
        return np.multiply(out, HALF, out=out)

    impls = {
        "ember": lambda: prog([a, b, c], [out]),
        "ember[fresh out]": lambda: prog([a, b, c]),
        "ember[eager]": lambda: ember.relu(ea * eb + ec) * 0.5,
        "numpy": lambda: np.maximum(a * b + c, zero) * HALF,
        "numpy[out=]": numpy_out,
        "numpy[into]": numpy_into,
    }
    if floor:
        # bandwidth references: one pass reading 2 streams and writing 1; the same as 256 chunked calls
        impls["numpy a+b into (ref)"] = lambda: np.add(a, b, out=out)
        prog2 = _program(a_shape, c_shape, threads=2)
        impls["ember[2 threads]"] = lambda: prog2([a, b, c], [out])
    if torch is not None:
        ta, tb, tc, to = (torch.from_numpy(x) for x in (a, b, c, out))
        impls["torch"] = lambda: torch.relu(ta * tb + tc) * 0.5

        def torch_into():
            torch.mul(ta, tb, out=to)
            to.add_(tc).relu_()
            return to.mul_(0.5)

        impls["torch[into]"] = torch_into
    return impls


_COMPARE = (
    Compare("numpy step by step / ember", "numpy", "ember"),
    Compare("numpy[into] / ember", "numpy[into]", "ember"),
    Compare("ember[eager] / ember", "ember[eager]", "ember"),
)


@case("fusion/relu(a*b+c)*0.5 16M f32", target_us=9000.0, compare=_COMPARE, note="memory floor: 3 streams in, 1 out")
def _fusion_large():
    return _impls((LARGE,), (LARGE,), floor=True)


@case("fusion/relu(a*b+c)*0.5 64x200 f32", compare=_COMPARE, note="the small path: one chunk, no slicing")
def _fusion_small():
    return _impls((64, 200), (64, 200))


@case("fusion/relu(a*b+bias)*0.5 4096x4096 + (4096,) f32", compare=_COMPARE, note="a broadcast bias: chunks of rows")
def _fusion_bias():
    return _impls((4096, 4096), (4096,))
