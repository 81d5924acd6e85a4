"""``tf.linalg``: TensorFlow's linear-algebra namespace (``tf.linalg.inv``, ``tf.linalg.svd``...)."""

# ruff: noqa: F401 - a namespace of TensorFlow's names: every import is public (abs, round, math...)

from __future__ import annotations

from .linalg_ops import (
    band_part,
    cholesky,
    det,
    diag,
    diag_part,
    eigh,
    eigvalsh,
    einsum,
    eye,
    inv,
    logdet,
    matmul,
    matrix_transpose,
    norm,
    qr,
    slogdet,
    solve,
    svd,
    tensordot,
    trace,
)

transpose = matrix_transpose


def adjoint(matrix, name=None):
    """The conjugate transpose of each matrix of ``matrix``."""
    return matrix_transpose(matrix, name=name or "adjoint", conjugate=True)
