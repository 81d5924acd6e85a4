"""TensorFlow 1's gradient clipping: ``clip_by_value``, ``clip_by_norm``, ``global_norm``,
``clip_by_global_norm`` (which returns the clipped list and the norm, and passes None through)."""

from __future__ import annotations

import numpy as np

from ...graph.graph import get_default_graph
from ...graph.sources import constant, identity
from ...graph.tensor import GraphTensor
from ...ops import functional as F

__all__ = ["clip_by_global_norm", "clip_by_norm", "clip_by_value", "global_norm"]


def _tensor(value, like=None, name: str = "Const"):
    if isinstance(value, GraphTensor):
        return value
    dtype = None if like is None else like.dtype
    return constant(np.asarray(value, dtype=None if dtype is None else dtype.numpy_dtype), dtype=dtype, name=name)


def _check_list(t_list) -> list:
    if isinstance(t_list, GraphTensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    return list(t_list)


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` with every element clamped into [clip_value_min, clip_value_max] (the bounds broadcast to ``t``).

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     c = clip_by_value(ember.constant([-2.0, 0.5, 9.0]), 0.0, 1.0)
    >>> ember.Session(graph=g).run(c).tolist()
    [0.0, 0.5, 1.0]
    """
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "clip_by_value") as scope:
        t = _tensor(t, name="t")
        low, high = _tensor(clip_value_min, t, "clip_value_min"), _tensor(clip_value_max, t, "clip_value_max")
        clipped = F.maximum(F.minimum(t, high), low)
        if t.shape.rank is not None and clipped.shape.rank is not None and not clipped.shape.is_compatible_with(t.shape):
            raise ValueError(
                f"clip_by_value(): the bounds must broadcast to t's shape {t.shape}, got a result of shape {clipped.shape}"
            )
        return identity(clipped, name=scope)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t), clip_norm)``: ``t`` rescaled so its L2 norm (over ``axes``,
    default all) is at most ``clip_norm``; an all-zero ``t`` stays zero."""
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "clip_by_norm") as scope:
        t = _tensor(t, name="t")
        dims = list(range(t.dim())) if axes is None else ([axes] if isinstance(axes, int) else list(axes))
        l2sum = F.sum(t * t, dims, keepdim=True) if dims else t * t
        positive = l2sum > 0
        # the root of a safe value where the sum is 0, so the gradient stays finite there
        l2norm = F.where(positive, F.sqrt(F.where(positive, l2sum, F.ones_like(l2sum))), l2sum)
        clip = _tensor(clip_norm, t, "clip_norm")
        return identity(t * clip / F.maximum(l2norm, clip), name=scope)


def global_norm(t_list, name=None):
    """``sqrt(sum(||t||^2 for t in t_list))`` (None entries left out)."""
    t_list = _check_list(t_list)
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "global_norm") as scope:
        squares = [F.sum(_tensor(t) * _tensor(t)) for t in t_list if t is not None]
        if not squares:
            return identity(constant(np.float32(0.0)), name=scope)
        total = squares[0]
        for s in squares[1:]:
            total = total + s.to(total.dtype)
        return identity(F.sqrt(total), name=scope.rstrip("/") + "/global_norm/")


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """``(clipped list, global norm)``: every tensor scaled by ``clip_norm / max(global_norm, clip_norm)``
    (all NaN when the norm is not finite); None entries stay None."""
    t_list = _check_list(t_list)
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "clip_by_global_norm") as scope:
        norm = global_norm(t_list, name=None) if use_norm is None else _tensor(use_norm)
        clip = _tensor(clip_norm, norm, "clip_norm")
        scale = clip * F.minimum(1.0 / norm, 1.0 / clip)
        scale = scale + (norm - norm)  # NaN for an infinite or NaN norm, as TensorFlow's
        clipped = []
        for i, t in enumerate(t_list):
            if t is None:
                clipped.append(None)
                continue
            t = _tensor(t)
            clipped.append(identity(t * scale.to(t.dtype), name=f"{scope}_{i}/"))
        return clipped, norm
