"""CPU kernels of the shape ops (the copying ones; view ops have no kernel), one module per
module of ``ember/ops/shape/``.

Each writes into ``outs[0]``, which the interpreter allocated with the inferred shape and dtype
(or which is the input itself for the in-place variants: ``tril_``...). Inputs may be strided.
"""

from . import diagonals, flip, join, pad, repeat, reshape, shape_of

__all__ = ["diagonals", "flip", "join", "pad", "repeat", "reshape", "shape_of"]
