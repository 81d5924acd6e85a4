"""CPU kernels: NumPy routines writing into the arrays the interpreter allocated.

A kernel is ``fn(outs, ins, attrs)``: ``outs`` and ``ins`` are tuples of NumPy arrays over
the tensors' memory, ``attrs`` the op's attributes. It computes and writes; the functor has
already checked the arguments and the interpreter has allocated the outputs.
"""

import warnings

from ... import ops  # noqa: F401 - the ops register their OpExprs; the kernels below attach to them
from . import common, conversion, creation, elementwise, foreach, indexing, linalg, nn, random, reduction, shape, spectral

# NumPy warns about inf * 0, 0 / 0, log(0)... from inside a kernel; PyTorch computes the IEEE
# result silently, and so does ember. Scoped to ember's kernel modules; it costs nothing per op.
warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"ember\.kernels\.")

__all__ = ["common", "conversion", "creation", "elementwise", "foreach", "indexing", "linalg", "nn", "random", "reduction", "shape", "spectral"]
