"""nll_loss and cross_entropy: class-index or class-probability targets, per-class weights,
``ignore_index`` and label smoothing; cross entropy is log_softmax and nll in one primitive.

A training loop's cross entropy (eager, recorded, (N, C) logits, class indices, mean) runs a
variant that keeps the softmax its forward computes, so that its backward is one scaled copy
and a scatter. Kernels: ``ember/kernels/cpu/nn/cross_entropy.py``.

>>> import ember
>>> ember.nll_loss(ember.tensor([[-1.0, -2.0]]), ember.tensor([1])).item()
2.0
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ...dispatch.interpreter import running_eagerly
from .. import sbp_rules
from ..common import functional as _F, grad_recording
from ..functor import functor
from ..schema import schema_family
from ._common import _as_dtype, _check_floating, _is_int, _legacy_reduction, _loss_op, _needs, _reduce_grad

declare = schema_family("nn", namespaces=("nn.functional",))


def _any_ignored(target, ignore_index: int) -> bool:
    """Whether a target may equal ``ignore_index``: the fused forward and the fast backward assume
    none does (their mean divides by the batch). A global target is asked with ops (a collective)."""
    if not running_eagerly():
        return True  # a graph's targets have no value yet: the general (masked) formula holds for any
    if target.is_global:
        return bool((target == ignore_index).any().item())
    return bool((target._host_array() == ignore_index).any())


def _nll_like(op: OpExpr, name, input, target, weight, ignore_index, reduction, label_smoothing, log_softmax_first):
    _check_floating(name if name != "nll_loss" else "nll_loss_out_frame", input._dtype)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.ndim == 0:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    n_classes = input._shape[0] if input.ndim == 1 else input._shape[1]
    probs = log_softmax_first and input._shape == target._shape
    if probs:
        if not target._dtype.is_floating_point:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got {target._dtype.name}")
    else:
        if target._dtype not in (_dt.int64, _dt.uint8):  # PyTorch's class-index dtypes
            if log_softmax_first and target.ndim == 0 and input.ndim == 1 and not _is_int(target._dtype):
                raise RuntimeError(f"Expected floating point type for target with class probabilities, got {target._dtype.name}")
            raise RuntimeError(f"expected target dtype to be Long or Byte, but got {target._dtype}")
        if input.ndim == 1:
            if target.ndim != 0:
                raise RuntimeError(f"Expected target size [], got {list(target._shape)}")
        elif input.ndim == 2 and target.ndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        else:
            if target.ndim == 0 or target._shape[0] != input._shape[0]:
                got = target._shape[0] if target.ndim else 1
                raise ValueError(f"Expected input batch_size ({input._shape[0]}) to match target batch_size ({got}).")
            expected = (input._shape[0], *input._shape[2:])
            if target._shape != expected:
                raise RuntimeError(f"Expected target size {list(expected)}, got {list(target._shape)}")
    inputs = (input, target)
    if weight is not None:
        if weight.ndim != 1 or weight._shape[0] != n_classes:
            raise RuntimeError(
                f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight tensor of shape: "
                f"{list(weight._shape)}"
            )
        inputs = (input, target, weight)
    attrs = {"reduction": reduction, "ignore_index": ignore_index, "label_smoothing": float(label_smoothing),
             "probs": probs, "log_softmax": log_softmax_first}
    if (
        op is _CROSS_ENTROPY and input._requires_grad and reduction == "mean" and weight is None and not probs
        and label_smoothing == 0 and input.ndim == 2 and not 0 <= ignore_index < n_classes
        and input._dtype in (_dt.float32, _dt.float64) and grad_recording() and running_eagerly()
        and not _any_ignored(target, ignore_index)
    ):  # fmt: skip
        return dispatch(_CROSS_ENTROPY_WITH_PROBS, inputs, attrs)[0]
    return dispatch(op, inputs, attrs)[0]


declare(
    "cross_entropy",
    'Tensor (Tensor input, Tensor target, Tensor? weight=None, Bool? size_average=None, Int ignore_index=-100, Bool? reduce=None, String reduction="mean", Float label_smoothing=0.0) => CrossEntropy',
    op=("cross_entropy", "cross_entropy_with_probs"),
    doc="""
    Cross entropy of logits ``input`` (C), (N, C) or (N, C, d1, ...) with class-index targets
    (integers; ``ignore_index`` skipped, ``weight`` per class) or class probabilities (same shape
    as ``input``), with optional label smoothing; fused log_softmax + nll.

    >>> x = ember.tensor([[0.0, 0.0]])
    >>> f"{ember.cross_entropy(x, ember.tensor([1])).item():.4f}"
    '0.6931'
    """,
)
@functor("CrossEntropy")
def cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing):
    reduction = _legacy_reduction(reduction, size_average, reduce, "cross_entropy")
    return _nll_like(_CROSS_ENTROPY, "cross_entropy", input, target, weight, ignore_index, reduction, label_smoothing, True)


declare(
    "nll_loss",
    'Tensor (Tensor input, Tensor target, Tensor? weight=None, Bool? size_average=None, Int ignore_index=-100, Bool? reduce=None, String reduction="mean") => NllLoss',
    doc="""
    Negative log-likelihood of log-probabilities ``input`` at the class-index ``target``.

    >>> ember.nll_loss(ember.tensor([[-1.0, -2.0]]), ember.tensor([1])).item()
    2.0
    """,
)
@functor("NllLoss")
def nll_loss(input, target, weight, size_average, ignore_index, reduce, reduction):
    reduction = _legacy_reduction(reduction, size_average, reduce, "nll_loss")
    return _nll_like(_NLL, "nll_loss", input, target, weight, ignore_index, reduction, 0.0, False)


def _nll_infer(attrs, x, target, *weight):
    if attrs["reduction"] != "none" or x.ndim == 1:
        shape = ()
    else:
        shape = (x._shape[0], *x._shape[2:])
    dtype = _dt.promote_types(x._dtype, target._dtype) if attrs["probs"] else x._dtype
    return ((shape, dtype),)


_NLL = _loss_op("nll_loss", _nll_infer)
_CROSS_ENTROPY = _loss_op("cross_entropy", _nll_infer).tag(sbp=sbp_rules.nn.cross_entropy)
_NLL.attr_key = _CROSS_ENTROPY.attr_key = lambda attrs: (attrs["reduction"] == "none", attrs["probs"])  # what the rule reads


def _nll_grad(ctx, g):
    F = _F()
    attrs = ctx.attrs
    x, target, *rest = ctx.inputs
    weight = rest[0] if rest else None
    if weight is None and not attrs["probs"] and attrs["label_smoothing"] == 0:
        fast = _nll_fast_grad(ctx, g, x, target)
        if fast is not None:
            return fast
    if weight is not None and _needs(ctx, 2):
        raise NotImplementedError(f"the derivative of {ctx._node.op.name} with respect to 'weight' is not implemented (as in PyTorch)")
    reduction, ls = attrs["reduction"], attrs["label_smoothing"]
    cd = 0 if x.ndim == 1 else 1
    n_classes = x._shape[cd]
    wshape = (n_classes,) + (1,) * (x.ndim - cd - 1)
    w = None if weight is None else weight.reshape(wshape)
    grad_target = None
    if attrs["probs"]:
        t = target * (1 - ls) + ls / n_classes if ls > 0 else target
        count = math.prod(x._shape) // n_classes if n_classes else 0
        scale = _reduce_grad(g, reduction, count)
        if reduction == "none":
            scale = scale.unsqueeze(cd)
        tw = t if w is None else t * w
        grad_logp = -scale * tw
        if _needs(ctx, 1):
            logp = F.log_softmax(x, cd) if attrs["log_softmax"] else x
            lw = logp if w is None else logp * w
            grad_target = -scale * lw * (1 - ls)
    else:
        valid = target != attrs["ignore_index"]
        ts = F.where(valid, target, 0)
        vf = valid.to(x._dtype)
        wt = vf if weight is None else F.take(weight, ts) * vf
        if reduction == "mean":  # every target ignored: the loss is 0/0 (NaN), its gradient zero, as PyTorch's
            total = wt.sum()
            scale = g / F.where(total == 0, 1.0, total)
        elif reduction == "sum":
            scale = g
        else:
            scale = g
        onehot = F.one_hot(ts, n_classes).to(x._dtype) if n_classes else F.zeros(x._shape, dtype=x._dtype)
        if cd == 1 and onehot.ndim > 2:
            onehot = onehot.movedim(-1, 1)
        coef = onehot * (wt * (1 - ls)).unsqueeze(cd)
        if ls > 0:
            smooth = vf.unsqueeze(cd) * (ls / n_classes)
            coef = coef + (smooth if w is None else smooth * w)
        if reduction == "none":
            scale = scale.unsqueeze(cd)
        grad_logp = -scale * coef
    if attrs["log_softmax"]:
        p = F.softmax(x, cd)
        grad_x = grad_logp - p * grad_logp.sum(dim=cd, keepdim=True)
    else:
        grad_x = grad_logp
    if grad_target is not None:
        grad_target = _as_dtype(grad_target, ctx.input_meta[1][1])
    return (_as_dtype(grad_x, x._dtype), grad_target, *((None,) if weight is not None else ()))


def _nll_fast_grad(ctx, g, x, target):
    """The common case in few ops: index targets, no weight, no label smoothing, 1-D or 2-D
    input, none of the targets equal to ``ignore_index``. Cross entropy's gradient is then
    ``(softmax(x) - one_hot) * scale`` (four ops), nll_loss's ``one_hot * -scale``; both are
    written with ember ops, so they differentiate again. ``None`` when the case does not apply."""
    attrs = ctx.attrs
    n_classes = x._shape[-1]
    rows = x._shape[0] if x.ndim == 2 else 1
    if n_classes == 0 or rows == 0 or x.ndim not in (1, 2):
        return None
    ignore = attrs["ignore_index"]
    if _any_ignored(target, ignore):
        return None  # some targets are ignored (-100 too): the general formula masks them
    F = _F()
    reduction = attrs["reduction"]
    if attrs["log_softmax"] and not grad_recording() and x._dtype in (_dt.float32, _dt.float64) and g._dtype is x._dtype:
        return (dispatch(_CE_BACKWARD, (g, x, target), {"reduction": reduction})[0], None)
    if reduction == "mean":
        scale = g / rows if attrs["log_softmax"] else g / -rows
    elif reduction == "sum":
        scale = g if attrs["log_softmax"] else -g
    else:
        scale = (g if attrs["log_softmax"] else -g).unsqueeze(-1)
    onehot = F.one_hot(target, n_classes)
    if attrs["log_softmax"]:
        grad_x = (F.softmax(x, x.ndim - 1) - onehot) * scale
    else:
        grad_x = onehot * scale
    return (_as_dtype(grad_x, x._dtype), None)


_NLL.grad_rule(saves="inputs")(_nll_grad)
_CROSS_ENTROPY.grad_rule(saves="inputs")(_nll_grad)


# cross entropy's input gradient in one kernel, for backward without create_graph: softmax, the
# target's -1 and the scale in one pass instead of six dispatched ops (the composite above is what
# double backward and graph-mode gradients differentiate)
_CE_BACKWARD = OpExpr("cross_entropy_backward", ("grad_output", "input", "target"), ("out",)).tag(sbp=sbp_rules.nn.cross_entropy_backward)
_CE_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_CE_BACKWARD.attr_key = lambda attrs: attrs["reduction"]


@_CE_BACKWARD.shape_rule
def _ce_backward_infer(attrs, g, x, target):
    return ((x._shape, x._dtype),)


# A training loop's cross entropy (eager, recorded, (N, C) logits, class indices, mean): the
# loss and, as an auxiliary output, the softmax probabilities the forward computes anyway,
# laid out (C, N). Backward without create_graph then needs one scaled copy and a scatter
# (cross_entropy_probs_backward) instead of computing the softmax again.
_CROSS_ENTROPY_WITH_PROBS = OpExpr("cross_entropy_with_probs", ("input", "target"), ("out", "probs")).tag(sbp=sbp_rules.nn.cross_entropy_with_probs)
_CROSS_ENTROPY_WITH_PROBS.aux_outputs = (1,)


@_CROSS_ENTROPY_WITH_PROBS.shape_rule
def _ce_with_probs_infer(attrs, x, target):
    return (((), x._dtype), ((x._shape[1], x._shape[0]), x._dtype))


@_CROSS_ENTROPY_WITH_PROBS.grad_rule(saves="both")
def _ce_with_probs_grad(ctx, g, _probs_grad=None):
    """(probs - one_hot) * g / N from the saved probabilities; under create_graph the composite
    formula over the saved logits, which differentiates again."""
    if not grad_recording() and g._dtype is ctx.input_meta[0][1]:
        target = ctx.inputs[1]
        probs = ctx.outputs[1]
        return (dispatch(_CE_PROBS_BACKWARD, (g, probs, target))[0], None)
    return _nll_grad(ctx, g)


_CE_PROBS_BACKWARD = OpExpr("cross_entropy_probs_backward", ("grad_output", "probs", "target"), ("out",)).tag(sbp=sbp_rules.nn.cross_entropy_probs_backward)
_CE_PROBS_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)


@_CE_PROBS_BACKWARD.shape_rule
def _ce_probs_backward_infer(attrs, g, probs, target):
    return (((probs._shape[1], probs._shape[0]), probs._dtype),)
