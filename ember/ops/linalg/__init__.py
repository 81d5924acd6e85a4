"""Linear algebra: matmul and friends, einsum, tensordot, and the ``linalg.`` namespace.

One module per idea: ``products`` (matmul, mm, bmm, mv, dot, vdot, outer, vecdot, cross),
``einsum`` (einsum, tensordot), ``inverses`` (inv, det, slogdet, solve, matrix_power),
``decompositions`` (cholesky, qr, svd, svdvals, eigh, eigvalsh, pinv, matrix_rank), ``norms``
(vector, matrix and torch.norm; diagonal and trace), ``distances`` (cdist); ``_common`` holds the argument checks and
derivative helpers they share. Each op's schema entry, functor, inference rule and derivative
sit together; its kernel is in the module of the same name under ``ember/kernels/cpu/linalg/``.

>>> import ember
>>> a = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> (a @ a).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

from ..._core.errors import LinAlgError
from . import addmm, composites, decompositions, distances, eig, einsum, inverses, lstsq, norms, products, spellings
from ._common import check_float, check_matrix, check_square
from .norms import matrix_norm_impl, vector_norm_impl
from .products import matmul_shape

__all__ = [
    "LinAlgError", "addmm", "check_float", "check_matrix", "check_square", "composites", "decompositions", "distances", "eig",
    "einsum", "inverses", "lstsq", "matmul_shape", "matrix_norm_impl", "norms", "products", "spellings", "vector_norm_impl",
]  # fmt: skip
