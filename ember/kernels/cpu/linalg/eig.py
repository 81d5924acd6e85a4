"""CPU kernels of ``linalg.eig`` and ``linalg.eigvals``: LAPACK's geev through ``np.linalg.eig``.

NumPy returns real arrays for a real matrix whose eigenvalues are all real; the results are
written into complex outputs. ``eig`` refuses a NaN or an infinity as PyTorch does; ``eigvals``
gives NaN eigenvalues for such a matrix (LAPACK never sees it).
"""

from __future__ import annotations

import numpy as np

from ...._core.errors import LinAlgError
from ....dispatch.opexpr import register_kernel
from ..common import store
from ._common import non_finite_matrices


def _eig(A: np.ndarray, op: str):
    try:
        return np.linalg.eig(A)
    except np.linalg.LinAlgError:
        raise LinAlgError(f"{op}: The algorithm failed to converge because the input matrix is ill-conditioned.") from None


@register_kernel("linalg_eig")
def eig(outs, ins, attrs):
    (A,) = ins
    if non_finite_matrices(A) is not None:
        raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
    w, v = _eig(A, "linalg.eig")
    store(outs[0], w)
    store(outs[1], v)


@register_kernel("linalg_eigvals")
def eigvals(outs, ins, attrs):
    (A,) = ins
    bad = non_finite_matrices(A)
    if bad is None:
        store(outs[0], _eig(A, "linalg.eigvals")[0])
        return
    w = _eig(np.where(bad[..., None, None], np.eye(A.shape[-1], dtype=A.dtype), A), "linalg.eigvals")[0].astype(outs[0].dtype)
    w[bad] = np.nan
    store(outs[0], w)
