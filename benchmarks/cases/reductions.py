"""Large reductions at an explicit thread count: ember's blocks on its threads
(``ember/kernels/cpu/reduction_blocks.py``) against NumPy (one thread: its reductions never
split) and PyTorch at the same thread count.

``run.py --threads 1`` pins every library to one thread, which would hide the point of these
rows: each case sets ember's and torch's thread counts itself (``(2 threads)`` in the name), and
``ember[1 thread]`` is the same call on one thread, in the same run.

Target (issue): ``ops/sum 16M f32`` at 2 threads <= 1.5 ms where PyTorch takes 1.65 and NumPy
2.58, i.e. ember/torch <= 0.9 and numpy/ember >= 1.7.
"""

import contextlib

import numpy as np
from harness import Compare, Impl, case, torch

import ember

LARGE = 16 << 20  # 16M float32 = 64 MiB
THREADS = 2


@contextlib.contextmanager
def _threads(n: int):
    previous = ember.get_num_threads(), torch.get_num_threads() if torch is not None else None
    ember.set_num_threads(n)
    if torch is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        ember.set_num_threads(previous[0])
        if torch is not None:
            torch.set_num_threads(previous[1])


def _impls(shape, ember_fn, numpy_fn, torch_fn) -> dict:
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    x = ember.from_numpy(a)
    impls = {
        "ember": Impl(lambda: ember_fn(x), scope=lambda: _threads(THREADS)),
        "ember[1 thread]": Impl(lambda: ember_fn(x), scope=lambda: _threads(1)),
        "numpy": lambda: numpy_fn(a),
    }
    if torch is not None:
        t = torch.from_numpy(a)
        impls["torch"] = Impl(lambda: torch_fn(t), scope=lambda: _threads(THREADS))
    return impls


_COMPARE = (
    Compare("numpy / ember (2 threads)", "numpy", "ember"),
    Compare("ember[1 thread] / ember (the threads' gain)", "ember[1 thread]", "ember"),
)


@case("ops/sum 16M f32 (2 threads)", target_us=1500.0, compare=_COMPARE, note="blocks on 2 threads; NumPy one thread")
def _sum_large():
    return _impls((LARGE,), lambda x: x.sum(), np.sum, lambda t: t.sum())


@case("reductions/mean 16M f32 (2 threads)", compare=_COMPARE)
def _mean_large():
    return _impls((LARGE,), lambda x: x.mean(), np.mean, lambda t: t.mean())


@case("reductions/amax 16M f32 (2 threads)", compare=_COMPARE)
def _amax_large():
    return _impls((LARGE,), lambda x: x.amax(), np.max, lambda t: t.amax())


@case("reductions/sum(dim=0) 4096x4096 f32 (2 threads)", compare=_COMPARE, note="columns: blocks of output columns")
def _sum_dim0():
    return _impls((4096, 4096), lambda x: x.sum(0), lambda a: a.sum(0), lambda t: t.sum(0))


@case("reductions/sum(dim=1) 4096x4096 f32 (2 threads)", compare=_COMPARE, note="rows: blocks of output rows")
def _sum_dim1():
    return _impls((4096, 4096), lambda x: x.sum(1), lambda a: a.sum(1), lambda t: t.sum(1))
