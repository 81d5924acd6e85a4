"""CPU kernels: NumPy routines writing into the arrays the interpreter allocated.

A kernel is ``fn(outs, ins, attrs)``: ``outs`` and ``ins`` are tuples of NumPy arrays over
the tensors' memory, ``attrs`` the op's attributes. It computes and writes; the functor has
already checked the arguments and the interpreter has allocated the outputs.
"""

from . import common, conversion, creation, elementwise, indexing, linalg, nn, random, reduction, shape

__all__ = ["common", "conversion", "creation", "elementwise", "indexing", "linalg", "nn", "random", "reduction", "shape"]
