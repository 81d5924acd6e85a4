"""Creation ops: factories with no tensor inputs (``zeros``, ``arange``, ``eye``...) and the
``*_like`` forms.

A factory dispatches a primitive with ``inputs=()``; the interpreter takes the device from
``attrs["device"]`` and the inference rule reads the shape and dtype from the attributes, so a
meta-device factory costs no memory. Kernels are in ``ember/kernels/cpu/creation.py``.

>>> import ember
>>> ember.arange(0, 1, 0.25).tolist()
[0.0, 0.25, 0.5, 0.75]
"""

from . import factories, ranges
from ._common import (
    FILL,
    GLOBAL_FACTORY,
    broadcastable_to,
    check_kinds,
    check_requires_grad,
    dense_strides,
    dtype_of_scalar,
    fill_into,
    global_factory,
    memory_format,
    new_filled,
    preserved_strides,
)

__all__ = [
    "FILL", "GLOBAL_FACTORY", "broadcastable_to", "check_kinds", "check_requires_grad", "dense_strides", "dtype_of_scalar", "factories",
    "fill_into", "global_factory", "memory_format", "new_filled", "preserved_strides", "ranges",
]  # fmt: skip
