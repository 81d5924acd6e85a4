"""What the global interpreter adds to one small op: ``a + b`` and ``x @ w`` on global tensors of
a simulated world of one rank (the same interpreter, rules and plan cache as under MPI, and no
collective), against the same op on local tensors. The design's target: at most local + 10 us."""

import numpy as np
from harness import Compare, case

import ember
from ember.distributed.tensor import distribute, simulated_world

_NOTE = "ember: global tensors (a tensor keeps its world after the block that made it); ember-local: the same op locally"


def _impls(fn, arrays, sbps):
    local = [ember.from_numpy(a) for a in arrays]
    with simulated_world(1):
        p = ember.placement("cpu", [0])
        glob = [distribute(t, p, s) for t, s in zip(local, sbps, strict=True)]
    return {"ember": lambda: fn(*glob), "ember-local": lambda: fn(*local), "numpy": lambda: fn(*arrays)}


@case("global/a + b S(0) 100 f32, 1 simulated rank", note=_NOTE, compare=(Compare("global/local", "ember", "ember-local"),))
def _add():
    a = np.random.default_rng(0).standard_normal(100).astype(np.float32)
    return _impls(lambda x, y: x + y, (a, a.copy()), (ember.sbp.split(0), ember.sbp.split(0)))


@case(
    "global/x @ w S(0) x B (64x100 @ 100x10 f32), 1 simulated rank",
    note=_NOTE,
    compare=(Compare("global/local", "ember", "ember-local"),),
)
def _matmul():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((64, 100)).astype(np.float32), rng.standard_normal((100, 10)).astype(np.float32)
    return _impls(lambda a, b: a @ b, (x, w), (ember.sbp.split(0), ember.sbp.broadcast))
