"""What the linear-algebra modules share: the argument checks of the ``linalg.`` routines (with
PyTorch's messages), the one-matrix primitive factory, dispatch into ``out=``, and the pieces
their derivatives are written with.
"""

from __future__ import annotations

import functools
import types

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import functional as _F
from ..reduction import torch_name


def run(op: OpExpr, inputs: tuple, attrs: dict, out):
    """Dispatch a one-output primitive, into ``out`` when given."""
    if out is None:
        return dispatch(op, inputs, attrs)[0]
    return dispatch(op, inputs, attrs, (out,))[0]


def fmt_shape(shape: tuple) -> str:
    """A shape as PyTorch's messages write it: ``2x3``."""
    return "x".join(map(str, shape))


def real_dtype(dtype: _dt.DType) -> _dt.DType:
    """The real dtype of a complex one (singular values, eigenvalues, norms); others unchanged."""
    return dtype.to_real() if dtype.is_complex else dtype


# --- checks shared by the linalg routines ------------------------------------------------------


def check_float(op: str, A, *, low_precision: bool = False) -> None:
    """Refuse a non-floating input, and float16/bfloat16 unless ``low_precision`` (LAPACK has none)."""
    dtype = A._dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {torch_name(dtype)}")
    if not low_precision and dtype in (_dt.float16, _dt.bfloat16) and 0 not in A._shape:  # torch checks in the kernel, after empties return
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got {torch_name(dtype)}")


def check_matrix(op: str, A, name: str = "A") -> None:
    """Refuse an input with fewer than 2 dimensions."""
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")


def check_square(op: str, A, name: str = "A") -> None:
    """Refuse an input that is not a (batch of) square matrices."""
    check_matrix(op, A, name)
    if A._shape[-1] != A._shape[-2]:
        raise RuntimeError(
            f"{op}: {name} must be batches of square matrices, but they are {A._shape[-2]} by {A._shape[-1]} matrices"
        )


def matrix_op(name: str, public: str, shape_fn, *, square: bool = True, low_precision: bool = False) -> OpExpr:
    """A one-matrix linalg primitive: float/complex (..., m, n) in; ``shape_fn(shape, dtype, attrs)``
    gives the ((shape, dtype), ...) of its outputs."""
    op = OpExpr(name, ("A",), ("out",))

    @op.shape_rule
    def infer(attrs, A):
        (check_square if square else check_matrix)(public, A)
        check_float(public, A, low_precision=low_precision)
        return shape_fn(A._shape, A._dtype, attrs)

    return op


# --- for the derivatives (PyTorch's formulas: derivatives.yaml and FunctionsManual.cpp), written
# with ember's ops so they differentiate again. Complex inputs follow the conjugate Wirtinger
# convention where the formula is a plain matrix identity; the decompositions are written and
# tested for real inputs.


@functools.cache
def linalg_functions() -> types.SimpleNamespace:
    """``ember.linalg``'s functions (``LA.inv``, ``LA.svd``...), for derivatives. They are read
    from the generated API of this layer (``functional.NAMESPACES["linalg"]``), which exists only
    once every op module has loaded, so on first use."""
    return types.SimpleNamespace(**_F().NAMESPACES["linalg"])


def adjoint(t):
    """The conjugate transpose of the last two dims (``mH``)."""
    return t.mT.conj()


def cast(g, dtype):
    """``g`` in ``dtype`` (no op when it already is)."""
    return g if g._dtype is dtype else g.to(dtype)
