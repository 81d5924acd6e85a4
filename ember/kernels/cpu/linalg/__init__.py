"""CPU kernels of the linear-algebra ops: BLAS through ``np.matmul``, LAPACK through ``np.linalg``.

One module per ops module of ``ember/ops/linalg/``: ``products``, ``einsum``, ``inverses``,
``decompositions``, ``norms``. float16/bfloat16 compute in float32 and are written back.
"""

from . import addmm, decompositions, eig, einsum, inverses, lstsq, norms, products
from .inverses import singular_error

__all__ = ["addmm", "decompositions", "eig", "einsum", "inverses", "lstsq", "norms", "products", "singular_error"]
