"""The elementwise losses (mse_loss, l1_loss, smooth_l1_loss, huber_loss), binary cross
entropy on probabilities and on logits, and kl_div.

Each is one primitive with a fused kernel (``ember/kernels/cpu/nn/losses.py``); input and
target broadcast, and an optional elementwise ``weight`` travels as a third input.

>>> import ember
>>> ember.mse_loss(ember.tensor([1.0, 3.0]), ember.tensor([0.0, 0.0])).item()
5.0
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ...dispatch import dispatch
from .. import sbp_rules
from ..common import broadcast_pair, functional as _F, sum_to
from ..functor import functor
from ..schema import schema_family
from ._common import (
    _as_dtype,
    _check_floating,
    _is_int,
    _legacy_reduction,
    _loss_op,
    _needs,
    _not_implemented,
    _reduce_grad,
    _size,
)

declare = schema_family("nn", namespaces=("nn.functional",))


# mse_loss, l1_loss and smooth_l1_loss broadcast input and target before they compute (as
# PyTorch's functional does), so a 0-d target promotes as a dimensioned one; huber_loss and
# kl_div promote as elementwise ops do (a 0-d operand lifts only the category).
_BROADCAST_FIRST = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss"})


def _loss_dtype(name: str, x, target) -> _dt.DType:
    if name in _BROADCAST_FIRST:
        return _dt.promote_types(x._dtype, target._dtype)
    return _dt.result_type_of((x, target), op=name)


def _pointwise_infer_of(name: str):
    def infer(attrs, x, target, *weight):
        dtype = _loss_dtype(name, x, target)
        if dtype.is_complex:  # only l1_loss gets here: |input - target| is real
            dtype = dtype.to_real()
        shape = broadcast_pair(x._shape, target._shape)
        if attrs["reduction"] == "none":
            return ((shape, dtype),)
        return (((), _dt.int64 if _is_int(dtype) else dtype),)  # an integer sum (l1_loss) is int64

    return infer


def _pointwise_loss(name, input, target, reduction, weight, weight_mean="weight_sum", **extra):
    dtype = _loss_dtype(name, input, target)
    if name == "l1_loss" and _dt.bool_ in (input._dtype, target._dtype):  # torch's l1 subtracts first, whatever the other dtype
        raise RuntimeError("l1_loss(): Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    if not dtype.is_floating_point and not (dtype.is_complex and name == "l1_loss"):
        if name != "l1_loss" or not _is_int(dtype) or weight is not None:
            raise _not_implemented(name, dtype)
        if reduction == "mean":
            raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {dtype.name}")
    broadcast_pair(input._shape, target._shape)
    inputs = (input, target)
    if weight is not None:
        if weight._shape != input._shape:
            raise ValueError("Weights and input must have the same size.")
        inputs = (input, target, weight)
    return dispatch(_POINTWISE[name], inputs, {"reduction": reduction, "weight_mean": weight_mean, **extra})[0]


declare(
    "mse_loss",
    'Tensor (Tensor input, Tensor target, Bool? size_average=None, Bool? reduce=None, String reduction="mean", Tensor? weight=None) => MseLoss',
    doc="""
    Mean squared error (input and target broadcast).

    >>> ember.mse_loss(ember.tensor([1.0, 3.0]), ember.tensor([0.0, 0.0])).item()
    5.0
    """,
)
@functor("MseLoss")
def mse_loss(input, target, size_average, reduce, reduction, weight):
    reduction = _legacy_reduction(reduction, size_average, reduce, "mse_loss")
    return _pointwise_loss("mse_loss", input, target, reduction, weight)


declare(
    "l1_loss",
    'Tensor (Tensor input, Tensor target, Bool? size_average=None, Bool? reduce=None, String reduction="mean", Tensor? weight=None) => L1Loss',
    doc="Mean absolute error (input and target broadcast).",
)
@functor("L1Loss")
def l1_loss(input, target, size_average, reduce, reduction, weight):
    reduction = _legacy_reduction(reduction, size_average, reduce, "l1_loss")
    return _pointwise_loss("l1_loss", input, target, reduction, weight)


declare(
    "smooth_l1_loss",
    'Tensor (Tensor input, Tensor target, Bool? size_average=None, Bool? reduce=None, String reduction="mean", Float beta=1.0) => SmoothL1Loss',
    doc="Squared error below ``beta`` (scaled by 1/beta), absolute error above it.",
)
@functor("SmoothL1Loss")
def smooth_l1_loss(input, target, size_average, reduce, reduction, beta):
    reduction = _legacy_reduction(reduction, size_average, reduce, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pointwise_loss("smooth_l1_loss", input, target, reduction, None, beta=float(beta))


declare(
    "huber_loss",
    'Tensor (Tensor input, Tensor target, String reduction="mean", Float delta=1.0, Tensor? weight=None) => HuberLoss',
    doc="Squared error below ``delta``, ``delta``-scaled absolute error above it.",
)
@functor("HuberLoss")
def huber_loss(input, target, reduction, delta, weight):
    reduction = _legacy_reduction(reduction, None, None, "huber_loss")
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    return _pointwise_loss("huber_loss", input, target, reduction, weight, weight_mean="mean", delta=float(delta))


_POINTWISE = {name: _loss_op(name, _pointwise_infer_of(name)).tag(sbp=sbp_rules.nn.pointwise_loss) for name in ("mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss")}


def _pointwise_dloss(name: str, d, attrs):
    """(loss, d loss / d diff) of the elementwise losses, as ember ops."""
    F = _F()
    if name == "mse_loss":
        return d * d, 2 * d
    if name == "l1_loss":
        return d.abs(), F.sign(d)
    if name == "huber_loss":
        delta = attrs["delta"]
        small = d.abs() < delta
        return F.where(small, 0.5 * d * d, delta * (d.abs() - 0.5 * delta)), F.where(small, d, delta * F.sign(d))
    beta = attrs["beta"]  # smooth_l1_loss
    if beta == 0:
        return d.abs(), F.sign(d)
    small = d.abs() < beta
    return F.where(small, 0.5 * d * d / beta, d.abs() - 0.5 * beta), F.where(small, d / beta, F.sign(d))


def _pointwise_loss_grad(ctx, g):
    name = ctx._node.op.name
    attrs = ctx.attrs
    a, b, *rest = ctx.inputs
    if a._dtype.is_complex or b._dtype.is_complex:
        raise NotImplementedError(f"the derivative of {name} for complex inputs is not implemented")
    d = a - b
    weight = rest[0] if rest else None
    loss, dl = _pointwise_dloss(name, d, attrs)
    reduction = attrs["reduction"]
    grad_w = None
    if weight is not None:
        wsum_mean = reduction == "mean" and attrs["weight_mean"] == "weight_sum"
        if wsum_mean:
            wsum = weight.sum()
            scale = g / wsum
            if _needs(ctx, 2):
                total = (loss * weight).sum() / wsum
                grad_w = sum_to(scale * (loss - total), weight._shape)
        else:
            scale = _reduce_grad(g, reduction, math.prod(d._shape))
            if _needs(ctx, 2):
                grad_w = sum_to(scale * loss, weight._shape)
        ge = scale * dl * weight
    else:
        ge = _reduce_grad(g, reduction, math.prod(d._shape)) * dl
    grad_a = _as_dtype(sum_to(ge, a._shape), a._dtype) if _needs(ctx, 0) else None
    grad_b = _as_dtype(sum_to(-ge, b._shape), b._dtype) if _needs(ctx, 1) else None
    return (grad_a, grad_b, *((grad_w,) if weight is not None else ()))


for _op in _POINTWISE.values():
    _op.grad_rule(saves="inputs")(_pointwise_loss_grad)


def _bce_infer(attrs, x, target, *rest):
    shape = x._shape
    for t in rest:
        shape = broadcast_pair(shape, t._shape)
    dtype = _dt.promote_types(x._dtype, target._dtype)
    return ((shape if attrs["reduction"] == "none" else (), dtype),)


def _check_expands(name: str, arg: str, t, shape) -> None:
    if broadcast_pair(shape, t._shape) != tuple(shape):
        raise RuntimeError(f"{name}(): {arg} of size {list(t._shape)} cannot be broadcast to the input size {list(shape)}")


declare(
    "binary_cross_entropy",
    'Tensor (Tensor input, Tensor target, Tensor? weight=None, Bool? size_average=None, Bool? reduce=None, String reduction="mean") => BinaryCrossEntropy',
    doc="""
    Binary cross entropy of probabilities ``input`` in [0, 1]; logs are clamped at -100.

    >>> f"{ember.binary_cross_entropy(ember.tensor([0.5]), ember.tensor([1.0])).item():.4f}"
    '0.6931'
    """,
)
@functor("BinaryCrossEntropy")
def binary_cross_entropy(input, target, weight, size_average, reduce, reduction):
    reduction = _legacy_reduction(reduction, size_average, reduce, "binary_cross_entropy")
    if target._shape != input._shape:
        raise ValueError(
            f"Using a target size ({_size(target._shape)}) that is different to the input size ({_size(input._shape)}) is deprecated. "
            "Please ensure they have the same size."
        )
    _check_floating("binary_cross_entropy", input._dtype)
    if target._dtype is not input._dtype:
        raise RuntimeError(f"Found dtype {target._dtype.name} but expected {input._dtype.name}")
    inputs = (input, target)
    if weight is not None:
        _check_expands("binary_cross_entropy", "weight", weight, input._shape)
        inputs = (input, target, weight)
    return dispatch(_BCE, inputs, {"reduction": reduction})[0]


_BCE = _loss_op("binary_cross_entropy", _bce_infer).tag(sbp=sbp_rules.nn.pointwise_loss)


@_BCE.grad_rule(saves="inputs")
def _bce_grad(ctx, g):
    F = _F()
    x, t, *rest = ctx.inputs
    weight = rest[0] if rest else None
    if weight is not None and _needs(ctx, 2):
        raise NotImplementedError("the derivative of binary_cross_entropy with respect to 'weight' is not implemented (as in PyTorch)")
    scale = _reduce_grad(g, ctx.attrs["reduction"], math.prod(x._shape))
    if weight is not None:
        scale = scale * weight
    grad_x = grad_t = None
    if _needs(ctx, 0):
        grad_x = scale * (x - t) / F.clamp((1 - x) * x, min=1e-12)
    if _needs(ctx, 1):
        grad_t = scale * (F.clamp(F.log1p(-x), min=-100) - F.clamp(x.log(), min=-100))
    grad_x = None if grad_x is None else sum_to(grad_x, x._shape)
    grad_t = None if grad_t is None else sum_to(grad_t, t._shape)
    return (grad_x, grad_t, *((None,) if weight is not None else ()))


declare(
    "binary_cross_entropy_with_logits",
    'Tensor (Tensor input, Tensor target, Tensor? weight=None, Bool? size_average=None, Bool? reduce=None, String reduction="mean", Tensor? pos_weight=None) => BinaryCrossEntropyWithLogits',
    doc="""
    Binary cross entropy of sigmoid(input), computed stably from the logits; ``pos_weight`` weighs positives.
    """,
)
@functor("BinaryCrossEntropyWithLogits")
def binary_cross_entropy_with_logits(input, target, weight, size_average, reduce, reduction, pos_weight):
    reduction = _legacy_reduction(reduction, size_average, reduce, "binary_cross_entropy_with_logits")
    if target._shape != input._shape:
        raise ValueError(f"Target size ({_size(target._shape)}) must be the same as input size ({_size(input._shape)})")
    dtype = _dt.promote_types(input._dtype, target._dtype)
    _check_floating("binary_cross_entropy_with_logits", dtype)
    if not (target._dtype.is_floating_point or target._dtype.is_complex):  # torch computes into the target's dtype
        raise RuntimeError(f"binary_cross_entropy_with_logits(): result type {dtype.name} can't be cast to the desired output type "
                           f"{target._dtype.name}: the target must have a floating dtype (target.float())")
    inputs = [input, target]
    for arg, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            _check_expands("binary_cross_entropy_with_logits", arg, t, input._shape)
            inputs.append(t)
    attrs = {"reduction": reduction, "has_weight": weight is not None, "has_pos_weight": pos_weight is not None}
    return dispatch(_BCE_LOGITS, tuple(inputs), attrs)[0]


_BCE_LOGITS = _loss_op("binary_cross_entropy_with_logits", _bce_infer).tag(sbp=sbp_rules.nn.pointwise_loss)


@_BCE_LOGITS.grad_rule(saves="inputs")
def _bce_logits_grad(ctx, g):
    F = _F()
    attrs = ctx.attrs
    x, t, *rest = ctx.inputs
    weight = rest.pop(0) if attrs["has_weight"] else None
    pw = rest.pop(0) if attrs["has_pos_weight"] else None
    log_sig = F.minimum(x, F.zeros_like(x)) - F.log1p((-x.abs()).exp())
    scale = _reduce_grad(g, attrs["reduction"], math.prod(x._shape))
    sw = scale if weight is None else scale * weight
    grads = []
    if _needs(ctx, 0):
        sig_neg = F.sigmoid(-x)
        dx = (1 - t) - sig_neg if pw is None else (1 - t) - ((pw - 1) * t + 1) * sig_neg
        grads.append(sum_to(sw * dx, x._shape))
    else:
        grads.append(None)
    if _needs(ctx, 1):
        dt = -x if pw is None else -x - (pw - 1) * log_sig
        grads.append(sum_to(sw * dt, t._shape))
    else:
        grads.append(None)
    i = 2
    if weight is not None:
        if _needs(ctx, i):
            loss = (1 - t) * x - (log_sig if pw is None else ((pw - 1) * t + 1) * log_sig)
            grads.append(sum_to(scale * loss, weight._shape))
        else:
            grads.append(None)
        i += 1
    if pw is not None:
        grads.append(sum_to(-sw * t * log_sig, pw._shape) if _needs(ctx, i) else None)
    return tuple(grads)


declare(
    "kl_div",
    'Tensor (Tensor input, Tensor target, Bool? size_average=None, Bool? reduce=None, String reduction="mean", Bool log_target=False) => KlDiv',
    doc="""
    Kullback-Leibler divergence with ``input`` in log space (and ``target`` too when ``log_target``);
    reduction may also be ``"batchmean"``.
    """,
)
@functor("KlDiv")
def kl_div(input, target, size_average, reduce, reduction, log_target):
    reduction = _legacy_reduction(reduction, size_average, reduce, "kl_div", ("none", "mean", "sum", "batchmean"))
    if _is_int(input._dtype) or _is_int(target._dtype):
        raise RuntimeError("kl_div: Integral inputs not supported.")
    dtype = _loss_dtype("kl_div", input, target)
    _check_floating("kl_div", dtype)
    broadcast_pair(input._shape, target._shape)
    return dispatch(_KL_DIV, (input, target), {"reduction": reduction, "log_target": log_target})[0]


_KL_DIV = _loss_op("kl_div", _pointwise_infer_of("kl_div"))


@_KL_DIV.grad_rule(saves="inputs")
def _kl_div_grad(ctx, g):
    F = _F()
    x, t = ctx.inputs
    reduction = ctx.attrs["reduction"]
    shape = broadcast_pair(x._shape, t._shape)
    if reduction == "batchmean":
        scale = g / (x._shape[0] if x.ndim else 1)
    else:
        scale = _reduce_grad(g, reduction, math.prod(shape))
    grad_x = grad_t = None
    if ctx.attrs["log_target"]:
        et = t.exp()
        if _needs(ctx, 0):
            grad_x = -scale * et
        if _needs(ctx, 1):
            grad_t = scale * et * (t - x + 1)
    else:
        if _needs(ctx, 0):
            grad_x = -scale * t
        if _needs(ctx, 1):
            pos = t > 0
            grad_t = scale * F.where(pos, F.where(pos, t, F.ones_like(t)).log() + 1 - x, -x)
    if grad_x is not None:
        grad_x = _as_dtype(sum_to(grad_x.expand(shape), x._shape), x._dtype)
    if grad_t is not None:
        grad_t = _as_dtype(sum_to(grad_t.expand(shape), t._shape), t._dtype)
    return grad_x, grad_t
