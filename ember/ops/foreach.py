"""Multi-tensor ops: one dispatch for a list of tensors, as PyTorch's ``_foreach_*`` functions.

An optimizer updates every parameter the same way; done one ``add_`` at a time, each pays the
whole road of an op (checks, inference, version bump) for a few microseconds of arithmetic.
``foreach_add_`` writes ``self[i] += alpha * other[i]`` for every i in one primitive;
``foreach_adam_`` is a whole Adam step over every parameter and its state (PyTorch's
``_fused_adam_``), with the same arithmetic as the op-by-op loop, step for step.

>>> import ember
>>> a, b = ember.zeros(2), ember.ones(3)
>>> foreach_add_([a, b], [ember.ones(2), ember.ones(3)], alpha=0.5)
>>> a.tolist(), b.tolist()
([0.5, 0.5], [1.5, 1.5, 1.5])
"""

from __future__ import annotations

from ..dispatch import OpExpr, dispatch
from ..dispatch.sbp import Signature, broadcast
from .creation.factories import full

__all__ = ["foreach_adam_", "foreach_add_"]

# inputs: the n tensors written, then the n added; outputs: the n written (in place)
_FOREACH_ADD = OpExpr("foreach_add_alpha", ("self", "other"), ("self",))
_FOREACH_ADD.differentiable = False  # an optimizer's update, under no_grad (PyTorch's are not differentiable either)
_FOREACH_ADD.attr_key = lambda attrs: type(attrs["alpha"])  # the rule reads alpha's type, never its value


def _foreach_add_sbp(attrs, metas, sbps) -> Signature | None:
    """Each tensor keeps its own layout; what is added to it is boxed to that layout."""
    n = len(sbps) // 2
    own = sbps[:n]
    if any(e.is_partial for e in own):
        return None
    return Signature(own + own, own)


_FOREACH_ADD.tag(sbp=_foreach_add_sbp)


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


# inputs: params, grads, exp_avgs, exp_avg_sqs, steps (0-d), then max_exp_avg_sqs with amsgrad;
# outputs (in place): the same lists without the grads
_FOREACH_ADAM = OpExpr("foreach_adam", ("params", "grads", "exp_avgs", "exp_avg_sqs", "steps"), ("params", "exp_avgs", "exp_avg_sqs", "steps"))
_FOREACH_ADAM.differentiable = False
_FOREACH_ADAM.attr_key = lambda attrs: attrs["amsgrad"]  # the rule reads only how the inputs are grouped


def _foreach_adam_sbp(attrs, metas, sbps) -> Signature | None:
    """Each parameter keeps its layout; its gradient and moments are boxed to it (a partial
    gradient is all-reduced: data parallel's step); the step counts are whole."""
    groups = 6 if attrs["amsgrad"] else 5
    n = len(sbps) // groups
    own = sbps[:n]
    if any(e.is_partial for e in own):
        return None
    steps = (broadcast,) * n
    extra = own if attrs["amsgrad"] else ()
    return Signature(own * 4 + steps + extra, own * 3 + steps + extra, run=_adam_in_place)


def _adam_in_place(apply, pieces: tuple, attrs: dict, info: dict) -> tuple:
    """A rank's step, in place as the kernel expects (it reads the state it updates)."""
    n = len(pieces) // (6 if attrs["amsgrad"] else 5)
    written = pieces[:n] + pieces[2 * n :]
    return dispatch(_FOREACH_ADAM, pieces, attrs, written)


_FOREACH_ADAM.tag(sbp=_foreach_adam_sbp)


@_FOREACH_ADAM.shape_rule
def _foreach_adam_infer(attrs, *tensors):
    groups = 6 if attrs["amsgrad"] else 5
    n = len(tensors) // groups
    names = ("grads", "exp_avgs", "exp_avg_sqs", "steps", "max_exp_avg_sqs")
    for i, p in enumerate(tensors[:n]):
        dtype = p._dtype
        if not dtype.is_floating_point:
            raise RuntimeError(f"_fused_adam_(): expected floating params, got params[{i}] {dtype.name}")
        for k, name in enumerate(names[: groups - 1]):
            t = tensors[(k + 1) * n + i]
            step = name == "steps"  # a 0-d floating count
            if t._shape != (() if step else p._shape) or not t._dtype.is_floating_point or (not step and t._dtype is not dtype):
                expected = "a 0-d floating tensor" if step else f"{dtype.name} {list(p._shape)}"
                raise RuntimeError(f"_fused_adam_(): {name}[{i}] is {t._dtype.name} {list(t._shape)}, expected {expected}")
    written = tensors[:n] + tensors[2 * n :]  # everything but the gradients
    return tuple((t._shape, t._dtype) for t in written)


def foreach_adam_(params, grads, exp_avgs, exp_avg_sqs, steps, max_exp_avg_sqs=None, *, lr: float, beta1: float, beta2: float,
                  eps: float, weight_decay: float, decoupled_weight_decay: bool, maximize: bool) -> None:  # fmt: skip
    """One Adam step for every parameter, in one dispatch: the steps count up, the moments and
    (with ``max_exp_avg_sqs``) their running maximum update, the parameters move (the formulas
    of :class:`ember.optim.Adam`, in the same order of float operations)."""
    lists = [tuple(x) for x in (params, grads, exp_avgs, exp_avg_sqs, steps)]
    amsgrad = max_exp_avg_sqs is not None
    if amsgrad:
        lists.append(tuple(max_exp_avg_sqs))
    if len({len(x) for x in lists}) != 1:
        raise ValueError(f"_fused_adam_(): the lists have different lengths: {[len(x) for x in lists]}")
    numbers = {"lr": lr, "beta1": beta1, "beta2": beta2, "eps": eps, "weight_decay": weight_decay}
    for name, value in numbers.items():
        if type(value) not in (int, float):
            raise TypeError(f"_fused_adam_(): {name} must be a real number, got {type(value).__name__}")
    if not lists[0]:
        return
    attrs = {**numbers, "decoupled": bool(decoupled_weight_decay), "maximize": bool(maximize), "amsgrad": amsgrad}
    first = lists[0][0]
    if first.is_global and not all(s.is_global for s in lists[4]):
        # global parameters beside an optimizer's local step counts (0-d, the same on every rank):
        # the kernel counts global copies, made whole on every rank, and the local counts follow
        local_steps = lists[4]
        whole = (broadcast,) * first.placement.ndim
        lists[4] = tuple(full((), s.item(), dtype=s._dtype, placement=first.placement, sbp=whole) for s in local_steps)
        _adam(lists, attrs, amsgrad)
        for s in local_steps:
            s.add_(1)
        return
    _adam(lists, attrs, amsgrad)


def _adam(lists: list, attrs: dict, amsgrad: bool) -> None:
    inputs = sum(lists, ())
    written = lists[0] + lists[2] + lists[3] + lists[4] + (lists[5] if amsgrad else ())
    dispatch(_FOREACH_ADAM, inputs, attrs, written)
