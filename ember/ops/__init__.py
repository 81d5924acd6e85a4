"""The op system: schema, functors and rules per family, and the generated functional API.

Importing this package registers every family's functors and primitives and the CPU
kernels, then builds the functional API from ``schema.yaml`` and binds the Tensor methods.
"""

from .._core.tensor import Tensor as _Tensor

from . import conversion, creation, elementwise, foreach, indexing, linalg, nn, random, reduction, shape  # isort: skip  # noqa: F401 - foreach: its users import it
from ..kernels import cpu as _cpu_kernels  # noqa: F401 - registers the CPU kernels on the ops above

from . import functional  # isort: skip - built last, from everything registered above

for _name, _attr in functional.METHODS.items():
    setattr(_Tensor, _name, _attr)


def _mark_differentiability() -> None:
    """A primitive is differentiable when any schema entry dispatching it is (the schema says)."""
    from ..dispatch.opexpr import OP_REGISTRY
    from .schema import load_schema

    differentiable: dict[str, bool] = {}
    for entry in load_schema():
        for name in entry.primitives:
            differentiable[name] = differentiable.get(name, False) or entry.differentiable
    for name, flag in differentiable.items():
        if name in OP_REGISTRY:  # a family may also declare a primitive non-differentiable itself
            OP_REGISTRY[name].differentiable = flag and OP_REGISTRY[name].differentiable


_mark_differentiability()

__all__ = ["conversion", "creation", "elementwise", "functional", "indexing", "linalg", "nn", "random", "reduction", "shape"]
