"""What the nn op modules share: dtype checks worded as PyTorch's, the legacy
``size_average``/``reduce`` arguments of the losses, and the small helpers of the derivatives.

>>> _legacy_reduction("mean", False, None, "mse_loss")
'sum'
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.shape import Size
from ..._core.tensor import tensor
from ...dispatch import OpExpr
from ..common import functional as _F


def _not_implemented(op: str, dtype: _dt.DType) -> NotImplementedError:
    return NotImplementedError(f'"{op}" not implemented for \'{dtype.name}\'')


def _check_floating(op: str, dtype: _dt.DType) -> None:
    if not dtype.is_floating_point:
        raise _not_implemented(op, dtype)


def _is_int(dtype: _dt.DType) -> bool:
    return _dt.isdtype(dtype, "integral")


def _check_numeric(op: str, dtype: _dt.DType) -> None:
    if dtype is _dt.bool_ or dtype is _dt.string:
        raise _not_implemented(op, dtype)


def _size(shape) -> str:
    return repr(Size(shape))


def _legacy_reduction(reduction: str, size_average, reduce, op: str, allowed=("none", "mean", "sum")) -> str:
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _loss_op(name: str, infer) -> OpExpr:
    op = OpExpr(name, ("input", "target"), ("out",))
    op.shape_rule(infer)
    return op


# derivatives are written with ember's ops (so they differentiate again); ctx.inputs and
# ctx.outputs are the saved tensors, ctx.input_meta their (shape, dtype)

def _needs(ctx, i: int) -> bool:
    """Whether input ``i`` of the node wants a gradient (its edge leads somewhere)."""
    edges = ctx._node.next_functions
    return i < len(edges) and edges[i][0] is not None


def _as_dtype(t, dtype):
    return t if t is None or t._dtype is dtype else t.to(dtype)


def _const(array, dtype):
    return tensor(array, dtype=dtype)


def _reduce_grad(g, reduction: str, count):
    """The per-element gradient scale of a reduced loss: ``g`` itself, or ``g / count`` for mean."""
    return g / count if reduction == "mean" else g


def _np_dtype(dtype):
    return np.dtype(np.float64) if dtype is _dt.float64 else np.dtype(np.float32)


def _apply_matrices(t, mats):
    """Multiply the trailing ``len(mats)`` axes of ``t`` by one (out, in) matrix each (ember ops)."""
    F = _F()
    nd = len(mats)
    for i, m in enumerate(mats):
        axis = t.ndim - nd + i
        t = F.linear(t.movedim(axis, -1), m).movedim(-1, axis)
    return t
