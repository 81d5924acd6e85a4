"""CPU kernels of the linear-algebra ops: BLAS through ``np.matmul``, LAPACK through ``np.linalg``.

One module per ops module of ``ember/ops/linalg/``: ``products``, ``einsum``, ``inverses``,
``decompositions``, ``norms``, ``distances``. float16/bfloat16 compute in float32 and are written back.
"""

from . import addmm, decompositions, distances, eig, einsum, inverses, lstsq, norms, products
from .inverses import singular_error

__all__ = ["addmm", "decompositions", "distances", "eig", "einsum", "inverses", "lstsq", "norms", "products", "singular_error"]
