"""Which primitives are elementwise: the one criterion that recording, the passes and the
executors share.

Recording accepts a tensor of unknown rank only in an elementwise op, the fusion pass joins
elementwise ops into one program, memory planning lets them write into a dying input, and the
static executor and row splitting run them on any slice of their output. All of them ask
:func:`is_elementwise`.

>>> from ember.dispatch import OP_REGISTRY
>>> is_elementwise(OP_REGISTRY["add"]), is_elementwise(OP_REGISTRY["sum"])
(True, False)
"""

from __future__ import annotations

import functools

from ..dispatch.opexpr import OP_REGISTRY, OpExpr
from ..ops.schema import load_schema

__all__ = ["is_elementwise"]


@functools.cache
def _elementwise_family() -> frozenset[str]:
    # on first use, not at import: the schema is parsed once for the whole op system
    return frozenset(p for e in load_schema() if e.family == "elementwise" for p in e.primitives)


def is_elementwise(op: OpExpr) -> bool:
    """Whether the primitive ``op`` computes ``out[i]`` from ``inputs[i]`` only (inputs
    broadcast to the output's shape), so that it can run on any slice of its output.

    The criterion, derived from the op system rather than listed: the primitive is dispatched
    by an entry of the ``elementwise`` schema family (``ember/ops/schema.yaml``: unary and binary
    math, comparisons, ``where``, ``clamp``, ``lerp``, ``isclose``... with their ``*_scalar``
    variants), and it is computed, not a view (``real``/``imag`` are metadata views), has one
    output, at least one tensor input, and a CPU kernel. Reductions, shape ops, linear algebra
    and ``nn`` ops (``softmax``, ``dropout``) are other families. A fused program built from it
    checks the rest with the step's actual attributes: its inferred shape must be the
    broadcast of its inputs' shapes.
    """
    return (
        isinstance(op, OpExpr)
        and op.name in _elementwise_family()
        and OP_REGISTRY.get(op.name) is op
        and op.view is None
        and op.infer is not None
        and len(op.outputs) == 1
        and len(op.inputs) >= 1
        and "cpu" in op.kernels
    )
