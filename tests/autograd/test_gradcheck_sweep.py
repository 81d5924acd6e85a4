"""The derivative sweep: iterate the schema, not a hand-kept list.

Every differentiable primitive has a derivative, and every differentiable entry whose
required arguments are tensors passes gradcheck (float64 central differences) on random
small inputs inside the domain of most functions ([0.2, 0.8]).
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember
from ember.autograd import gradcheck
from ember.dispatch import OP_REGISTRY
from ember.ops import functional
from ember.ops.schema import load_schema

ENTRIES = load_schema()


def test_every_differentiable_primitive_has_a_derivative():
    missing = sorted(n for n, op in OP_REGISTRY.items() if op.differentiable and op.derivative is None and not n.startswith("test_"))
    assert missing == []


# Functions of decompositions whose outputs are not unique (eigenvector signs, the extra columns
# of a full SVD, eigh and cholesky reading one triangle): tests/ops/linalg/test_decompositions.py checks them through
# gauge-invariant functions, as PyTorch's own tests do.
NOT_UNIQUE = {"linalg.svd", "linalg.eigh", "linalg.eigvalsh", "linalg.qr", "linalg.cholesky", "svd", "qr", "cholesky"}
# They read one triangle of a Cholesky factor, but their gradient (PyTorch's) is the full matrix's:
# tests/ops/linalg/test_spellings.py differentiates them through a triangular factor
NOT_UNIQUE |= {"cholesky_solve", "cholesky_inverse"}


def _sweepable(entry):
    if entry.name in NOT_UNIQUE or entry.short_name.endswith("_"):
        return False  # in-place ops on leaves are refused by design; the family tests differentiate them on non-leaves
    if any(p.type.base == "Generator" for p in entry.signatures[0].params):
        return False  # a random draw differs between the finite-difference evaluations
    if not entry.differentiable or entry.family in ("random", "creation") or entry.method == "property":
        return False
    # tensors as every required argument (an ``inplace=False`` default keeps the out-of-place form)
    required = [p for p in entry.signatures[0].params if not p.has_default]
    return bool(required) and all(p.type.base == "Tensor" for p in required) and len(required) <= 3


SWEEP = [e for e in ENTRIES if _sweepable(e)]


@pytest.mark.parametrize("entry", SWEEP, ids=lambda e: e.name)
@settings(max_examples=max(5, settings().max_examples // 12), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_entry_passes_gradcheck(entry, data):
    sig = entry.signatures[0]
    required = [p for p in sig.params if not p.has_default]
    ndim = data.draw(st.integers(0, 2), label="ndim")
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim), label="shape"))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    inputs = tuple(ember.tensor(rng.uniform(0.2, 0.8, shape), dtype=ember.float64, requires_grad=True) for _ in required)
    namespace = functional.NAMESPACES[entry.namespace] if entry.namespace else functional.FUNCTIONS
    fn = namespace[entry.short_name]
    try:
        with ember.no_grad():
            probe = fn(*inputs)
    except (RuntimeError, ValueError, TypeError, IndexError, NotImplementedError):
        return  # these shapes are not valid for the op (the family tests cover its errors)
    outputs = probe if isinstance(probe, tuple) else (probe,)
    tensors = [o for o in outputs if isinstance(o, ember.Tensor)]
    if any(o.dtype is not ember.float64 for o in tensors):
        return  # a conversion to another precision: finite differences in float64 cannot see it
    if not all(bool(np.isfinite(o.detach().numpy()).all()) for o in tensors):
        return  # outside the function's domain
    assert gradcheck(fn, inputs, atol=1e-5, rtol=1e-3)
