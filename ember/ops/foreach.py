"""Multi-tensor ops: one dispatch for a list of tensors, as PyTorch's ``_foreach_*`` functions.

An optimizer updates every parameter the same way; done one ``add_`` at a time, each pays the
whole road of an op (checks, inference, version bump) for a few microseconds of arithmetic.
``foreach_add_`` writes ``self[i] += alpha * other[i]`` for every i in one primitive.

>>> import ember
>>> a, b = ember.zeros(2), ember.ones(3)
>>> foreach_add_([a, b], [ember.ones(2), ember.ones(3)], alpha=0.5)
>>> a.tolist(), b.tolist()
([0.5, 0.5], [1.5, 1.5, 1.5])
"""

from __future__ import annotations

from ..dispatch import OpExpr, dispatch

__all__ = ["foreach_add_"]

# inputs: the n tensors written, then the n added; outputs: the n written (in place)
_FOREACH_ADD = OpExpr("foreach_add_alpha", ("self", "other"), ("self",))
_FOREACH_ADD.differentiable = False  # an optimizer's update, under no_grad (PyTorch's are not differentiable either)
_FOREACH_ADD.attr_key = lambda attrs: type(attrs["alpha"])  # the rule reads alpha's type, never its value


@_FOREACH_ADD.shape_rule
def _foreach_add_infer(attrs, *tensors):
    n = len(tensors) // 2
    alpha = attrs["alpha"]
    specs = []
    for i, (t, other) in enumerate(zip(tensors[:n], tensors[n:], strict=True)):
        if other._shape != t._shape:
            raise RuntimeError(f"_foreach_add_(): other[{i}] has shape {list(other._shape)}, expected self[{i}]'s {list(t._shape)}")
        if not t._dtype.is_floating_point or other._dtype is not t._dtype:
            raise RuntimeError(
                f"_foreach_add_(): expected floating tensors of one dtype, got self[{i}] {t._dtype.name} and other[{i}] {other._dtype.name}"
            )
        specs.append((t._shape, t._dtype))
    if type(alpha) not in (int, float):
        raise TypeError(f"_foreach_add_(): alpha must be a real number, got {type(alpha).__name__}")
    return tuple(specs)


def foreach_add_(tensors: list, others: list, alpha: float = 1) -> None:
    """``tensors[i] += alpha * others[i]`` for every i, in one dispatch (same shapes, one floating
    dtype per pair)."""
    tensors, others = tuple(tensors), tuple(others)
    if len(tensors) != len(others):
        raise ValueError(f"_foreach_add_(): got {len(tensors)} tensors and {len(others)} others; expected as many of each")
    if tensors:
        dispatch(_FOREACH_ADD, tensors + others, {"alpha": alpha}, tensors)
