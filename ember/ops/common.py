"""Rules shared by the op families: broadcasting with PyTorch's message, dim checks, dtypes.

>>> broadcast_pair((2, 1), (3,))
(2, 3)
"""

from __future__ import annotations

import functools

from .._core import dtype as _dt
from .._core.shape import wrap_dim
from ..dispatch.grad_mode import state as _GRAD_MODE

__all__ = ["broadcast_pair", "check_dtype", "functional", "grad_recording", "normalize_dims", "wants_grad", "wrap_dim"]


@functools.cache
def functional():
    """``ember.ops.functional``, for derivatives: it is generated after the op modules load, so
    it is fetched on first use (an import statement in a function costs ~0.7 us a call)."""
    from . import functional as module

    return module


def grad_recording() -> bool:
    """Whether grad mode is on. A derivative running with it off (backward without
    ``create_graph``) records nothing, so it may take a one-kernel form."""
    return _GRAD_MODE.enabled


def broadcast_pair(a: tuple, b: tuple) -> tuple:
    """Broadcast two shapes; the error names the first dimension that disagrees."""
    if a == b:
        return a
    na, nb = len(a), len(b)
    n = max(na, nb)
    out = []
    for i in range(n):
        da = a[i - n + na] if i - n + na >= 0 else 1
        db = b[i - n + nb] if i - n + nb >= 0 else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}")
    return tuple(out)


def broadcast_all(*shapes: tuple) -> tuple:
    out = shapes[0]
    for s in shapes[1:]:
        out = broadcast_pair(out, s)
    return out


def normalize_dims(dim, ndim: int, op: str) -> tuple[int, ...]:
    """``dim`` (None, an int or a tuple) as sorted non-negative dims; None means all."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = (dim,)
    dims = tuple(wrap_dim(d, ndim, op) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}(): dim {dims} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def check_dtype(op: str, arg: str, dtype: _dt.DType, allowed: str) -> None:
    """Refuse a dtype outside ``allowed`` (an array-API kind such as 'numeric' or 'real floating')."""
    if not _dt.isdtype(dtype, allowed):
        raise TypeError(f"{op}(): argument '{arg}' must have a {allowed} dtype, got {dtype}")


def sum_to(grad, shape: tuple):
    """``grad`` summed down to ``shape`` (undoing broadcasting), written with ember ops so a
    derivative that uses it is itself differentiable."""
    if grad._shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and grad._shape[lead + i] != 1)
    out = grad.sum(dim=dims, keepdim=True) if dims else grad
    # In graph mode a size unknown when the graph was built (an int subclass) that met a known
    # size in the forward broadcast is that size at run time (or the run fails there): keep the known one.
    target = tuple(n if type(n) is int or n == r else r for n, r in zip(shape, out._shape[lead:], strict=True))
    return out.reshape(target) if out._shape != target else out


def wants_grad(ctx, i: int) -> bool:
    """Whether a derivative's input ``i`` needs a gradient: floating or complex, and its edge
    leads somewhere (saves computing the rest)."""
    dtype = ctx.input_meta[i][1]
    if not (dtype.is_floating_point or dtype.is_complex):
        return False
    node = getattr(ctx, "_node", None)
    return node is None or node.next_functions[i][0] is not None
