"""CPU kernels of the linear-algebra ops: BLAS through ``np.matmul``, LAPACK through ``np.linalg``.

One module per ops module of ``ember/ops/linalg/``: ``products``, ``einsum``, ``inverses``,
``decompositions``, ``norms``, ``distances``. float16/bfloat16 compute in float32 and are written back.
"""

from . import decompositions, distances, einsum, inverses, norms, products
from .inverses import singular_error

__all__ = ["decompositions", "distances", "einsum", "inverses", "norms", "products", "singular_error"]
