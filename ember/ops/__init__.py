"""The op system: schema, functors and rules per family, and the generated functional API.

Importing this package registers every family's schema entries, functors and primitives,
then builds the functional API from the declared entries. ``TENSOR_METHODS`` holds the
Tensor methods and operators; the package face binds them (``ember._install``).
"""

from ..dispatch.opexpr import OP_REGISTRY
from ..dispatch.trace import register_front_end as _register_front_end
from . import codegen
from .functor import FUNCTORS
from .schema import load_schema

from . import conversion, creation, elementwise, foreach, indexing, linalg, nn, random, reduction, shape, spectral  # isort: skip  # noqa: F401 - foreach: its users import it

from . import functional  # isort: skip - built last, from everything registered above

# Every Tensor method of the op system: the schema's generated ones and view's hand-written one.
TENSOR_METHODS = {**functional.METHODS, **shape.TENSOR_METHODS}

_register_front_end(codegen.FILENAME, FUNCTORS, lambda: {e.python_name: e.name for e in load_schema()})


def _mark_differentiability() -> None:
    """A primitive is differentiable when any schema entry dispatching it is (the schema says)."""
    differentiable: dict[str, bool] = {}
    for entry in load_schema():
        for name in entry.primitives:
            differentiable[name] = differentiable.get(name, False) or entry.differentiable
    for name, flag in differentiable.items():
        if name in OP_REGISTRY:  # a family may also declare a primitive non-differentiable itself
            OP_REGISTRY[name].differentiable = flag and OP_REGISTRY[name].differentiable


_mark_differentiability()

__all__ = ["TENSOR_METHODS", "conversion", "creation", "elementwise", "functional", "indexing", "linalg", "nn", "random", "reduction", "shape", "spectral"]
