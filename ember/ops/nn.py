"""Nn ops: functors, inference rules and (with autograd) derivatives, side by side.

The forward half of ``torch.nn.functional``: softmax and friends, losses, ``linear``,
convolutions, pooling, normalization, dropout, embedding, ``one_hot``, ``interpolate`` and
``scaled_dot_product_attention``. The heavy ones are primitives with fused NumPy kernels
(``ember/kernels/cpu/nn.py``); the functors check arguments with PyTorch's messages, fill in
defaults and hand the kernels plain attributes (ints, floats, tuples, strings).

Optional tensor arguments (``weight``, ``bias``...) travel as extra inputs, with ``has_*``
attributes saying which are present.

>>> import ember
>>> ember.softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

import math

from .._core import dtype as _dt
from .._core.generator import default_generator
from .._core.shape import Size, wrap_dim
from .._core.tensor import empty_tensor
from ..dispatch import OpExpr, dispatch
from ..dispatch.grad_mode import no_grad
from ..dispatch.interpreter import running_eagerly
from .common import broadcast_pair, grad_recording, sum_to
from .common import functional as _F
from .functor import functor
from .schema import schema_family

declare = schema_family("nn")

__all__: list[str] = []

_HALF = (_dt.float16, _dt.bfloat16)


def _not_implemented(op: str, dtype: _dt.DType) -> NotImplementedError:
    return NotImplementedError(f'"{op}" not implemented for \'{dtype.name}\'')


def _check_floating(op: str, dtype: _dt.DType) -> None:
    if not dtype.is_floating_point:
        raise _not_implemented(op, dtype)


def _is_int(dtype: _dt.DType) -> bool:
    return _dt.isdtype(dtype, "integral")


def _stat_dtype(dtype: _dt.DType) -> _dt.DType:
    """Statistics of half-type inputs are float32, as PyTorch keeps them."""
    return _dt.float32 if dtype in _HALF else dtype


def _legacy_reduction(reduction: str, size_average, reduce, op: str, allowed=("none", "mean", "sum")) -> str:
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _size(shape) -> str:
    return repr(Size(shape))


# ---------------------------------------------------------------------------------------
# softmax


def _implicit_dim(ndim: int) -> int:
    """PyTorch's legacy softmax dim when none is given."""
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_op(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        dtype = attrs["dtype"] or x._dtype
        if math.prod(x._shape):  # PyTorch checks the dtype in the kernel: an empty tensor of any dtype passes
            _check_floating(name, dtype)
        return ((x._shape, dtype),)

    return op


_SOFTMAX = _softmax_op("softmax")
_LOG_SOFTMAX = _softmax_op("log_softmax")


declare(
    "softmax",
    "Tensor (Tensor input, Int? dim=None, Int _stacklevel=3, *, DType? dtype=None) => Softmax",
    method=True,
    doc="""
    exp(x) / sum(exp(x)) along ``dim``, numerically stable. ``dim=None`` takes PyTorch's legacy
    choice (0 for 0-D, 1-D and 3-D inputs, else 1); ``dtype`` casts the input first.

    >>> ember.softmax(ember.tensor([[1.0, 1.0], [0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """,
)
@functor("Softmax")
def softmax(input, dim, _stacklevel, dtype):
    dim = _implicit_dim(input.ndim) if dim is None else wrap_dim(dim, input.ndim, "softmax")
    return dispatch(_SOFTMAX, (input,), {"dim": dim, "dtype": dtype})[0]


declare(
    "log_softmax",
    "Tensor (Tensor input, Int? dim=None, Int _stacklevel=3, *, DType? dtype=None) => LogSoftmax",
    method=True,
    doc="""
    log(softmax(x)) along ``dim``, computed as x - max - log(sum(exp(x - max))).

    >>> [f"{v:.4f}" for v in ember.log_softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()]
    ['-0.6931', '-0.6931']
    """,
)
@functor("LogSoftmax")
def log_softmax(input, dim, _stacklevel, dtype):
    dim = _implicit_dim(input.ndim) if dim is None else wrap_dim(dim, input.ndim, "log_softmax")
    return dispatch(_LOG_SOFTMAX, (input,), {"dim": dim, "dtype": dtype})[0]


declare(
    "softmin",
    "Tensor (Tensor input, Int? dim=None, Int _stacklevel=3, *, DType? dtype=None) => Softmin",
    composite=True,
    doc="softmax(-input) along ``dim``.",
)
@functor("Softmin")
def softmin(input, dim, _stacklevel, dtype):
    F = _F()
    dim = _implicit_dim(input.ndim) if dim is None else dim
    return F.softmax(F.neg(input), dim, dtype=dtype)  # PyTorch negates before the cast (uint8 wraps)


# ---------------------------------------------------------------------------------------
# losses


def _loss_op(name: str, infer) -> OpExpr:
    op = OpExpr(name, ("input", "target"), ("out",))
    op.shape_rule(infer)
    return op


def _nll_infer(attrs, x, target, *weight):
    if attrs["reduction"] != "none" or x.ndim == 1:
        shape = ()
    else:
        shape = (x._shape[0], *x._shape[2:])
    dtype = _dt.promote_types(x._dtype, target._dtype) if attrs["probs"] else x._dtype
    return ((shape, dtype),)


_NLL = _loss_op("nll_loss", _nll_infer)
_CROSS_ENTROPY = _loss_op("cross_entropy", _nll_infer)

# A training loop's cross entropy (eager, recorded, (N, C) logits, class indices, mean): the
# loss and, as an auxiliary output, the softmax probabilities the forward computes anyway,
# laid out (C, N). Backward without create_graph then needs one scaled copy and a scatter
# (cross_entropy_probs_backward) instead of computing the softmax again.
_CROSS_ENTROPY_WITH_PROBS = OpExpr("cross_entropy_with_probs", ("input", "target"), ("out", "probs"))
_CROSS_ENTROPY_WITH_PROBS.aux_outputs = (1,)


@_CROSS_ENTROPY_WITH_PROBS.shape_rule
def _ce_with_probs_infer(attrs, x, target):
    return (((), x._dtype), ((x._shape[1], x._shape[0]), x._dtype))
_NLL.attr_key = _CROSS_ENTROPY.attr_key = lambda attrs: (attrs["reduction"] == "none", attrs["probs"])  # what the rule reads


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
        if not _is_int(target._dtype):
            if log_softmax_first and target.ndim == 0 and input.ndim == 1:
                raise RuntimeError(f"Expected floating point type for target with class probabilities, got {target._dtype.name}")
            raise RuntimeError(f"expected target dtype to be an integer type (class indices), but got {target._dtype.name}")
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


def _pointwise_infer(attrs, x, target, *weight):
    dtype = _dt.promote_types(x._dtype, target._dtype)
    if dtype.is_complex:  # only l1_loss gets here: |input - target| is real
        dtype = dtype.to_real()
    shape = broadcast_pair(x._shape, target._shape)
    if attrs["reduction"] == "none":
        return ((shape, dtype),)
    return (((), _dt.int64 if _is_int(dtype) else dtype),)  # an integer sum (l1_loss) is int64


_POINTWISE = {name: _loss_op(name, _pointwise_infer) for name in ("mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss")}


def _pointwise_loss(name, input, target, reduction, weight, weight_mean="weight_sum", **extra):
    dtype = _dt.promote_types(input._dtype, target._dtype)
    if not dtype.is_floating_point and not (dtype.is_complex and name == "l1_loss"):
        if name != "l1_loss" or not _is_int(dtype) or weight is not None:
            raise _not_implemented(name, dtype)
        if input._dtype is _dt.bool_ or target._dtype is _dt.bool_:
            raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                               "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
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


def _bce_infer(attrs, x, target, *rest):
    shape = x._shape
    for t in rest:
        shape = broadcast_pair(shape, t._shape)
    dtype = _dt.promote_types(x._dtype, target._dtype)
    return ((shape if attrs["reduction"] == "none" else (), dtype),)


_BCE = _loss_op("binary_cross_entropy", _bce_infer)
_BCE_LOGITS = _loss_op("binary_cross_entropy_with_logits", _bce_infer)


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
    inputs = [input, target]
    for arg, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            _check_expands("binary_cross_entropy_with_logits", arg, t, input._shape)
            inputs.append(t)
    attrs = {"reduction": reduction, "has_weight": weight is not None, "has_pos_weight": pos_weight is not None}
    return dispatch(_BCE_LOGITS, tuple(inputs), attrs)[0]


_KL_DIV = _loss_op("kl_div", _pointwise_infer)


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
    dtype = _dt.promote_types(input._dtype, target._dtype)
    _check_floating("kl_div", dtype)
    broadcast_pair(input._shape, target._shape)
    return dispatch(_KL_DIV, (input, target), {"reduction": reduction, "log_target": log_target})[0]


# ---------------------------------------------------------------------------------------
# linear, bilinear

_LINEAR = OpExpr("linear", ("input", "weight", "bias"), ("out",))


@_LINEAR.shape_rule
def _linear_infer(attrs, x, w, *bias):
    lead = x._shape[:-1]
    return (((*lead, w._shape[0]) if w.ndim == 2 else lead, x._dtype),)


def _check_numeric(op: str, dtype: _dt.DType) -> None:
    if dtype is _dt.bool_ or dtype is _dt.string:
        raise _not_implemented(op, dtype)


declare(
    "linear",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None) => Linear",
    doc="""
    input @ weight.T + bias over any leading dimensions.

    >>> ember.linear(ember.tensor([[1.0, 2.0]]), ember.tensor([[1.0, 1.0]]), ember.tensor([0.5])).tolist()
    [[3.5]]
    """,
)
@functor("Linear")
def linear(input, weight, bias):
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and {weight.ndim}D")
    if weight.ndim > 2:
        raise RuntimeError(f"linear(): weight must be 1-D or 2-D, but got a {weight.ndim}-D weight of size {list(weight._shape)}")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {input._dtype.name} != {weight._dtype.name}")
    _check_numeric("linear", input._dtype)
    k = input._shape[-1]
    if weight._shape[-1] != k:
        rows = math.prod(input._shape[:-1])
        wt = f"{weight._shape[1]}x{weight._shape[0]}" if weight.ndim == 2 else f"{weight._shape[0]}x1"
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {wt})")
    if bias is None:
        return dispatch(_LINEAR, (input, weight))[0]
    out_shape = input._shape[:-1] + ((weight._shape[0],) if weight.ndim == 2 else ())
    if bias._dtype is not input._dtype:
        raise RuntimeError(f"linear(): bias must have the same dtype as input, but got {bias._dtype.name} and {input._dtype.name}")
    try:
        fits = bias._shape == out_shape[-1:] or broadcast_pair(out_shape, bias._shape) == out_shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"linear(): bias of size {list(bias._shape)} cannot be added to the output of size {list(out_shape)}")
    return dispatch(_LINEAR, (input, weight, bias))[0]


_BILINEAR = OpExpr("bilinear", ("input1", "input2", "weight", "bias"), ("out",))


@_BILINEAR.shape_rule
def _bilinear_infer(attrs, x1, x2, w, *bias):
    return (((*x1._shape[:-1], w._shape[0]), x1._dtype),)


declare(
    "bilinear",
    "Tensor (Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) => Bilinear",
    doc="y[..., o] = input1 @ weight[o] @ input2 + bias[o].",
)
@functor("Bilinear")
def bilinear(input1, input2, weight, bias):
    if input1.ndim == 0 or input2.ndim == 0:
        raise RuntimeError("bilinear(): inputs must be at least 1-D")
    if input1._shape[:-1] != input2._shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1._shape[:-1])} and {list(input2._shape[:-1])}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.ndim}D")
    for i, t in ((1, input1), (2, input2)):
        if t._shape[-1] != weight._shape[i]:
            raise RuntimeError(f"bilinear(): input{i} size does not match weight size: got {t._shape[-1]} but expected {weight._shape[i]}")
    tensors = [input1, input2, weight] + ([bias] if bias is not None else [])
    if any(t._dtype is not input1._dtype for t in tensors):
        raise RuntimeError(f"bilinear(): expected all tensors to have the same dtype, got {[t._dtype.name for t in tensors]}")
    _check_numeric("bilinear", input1._dtype)
    if bias is not None and (bias.ndim != 1 or bias._shape[0] != weight._shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {list(bias._shape)} but expected [{weight._shape[0]}]")
    return dispatch(_BILINEAR, tuple(tensors))[0]


# ---------------------------------------------------------------------------------------
# convolution

_CONV = OpExpr("convolution", ("input", "weight", "bias"), ("out",))


def _conv_out_size(attrs, x, w) -> tuple:
    spatial, kernel = x._shape[2:], w._shape[2:]
    if attrs["transposed"]:
        return tuple((s - 1) * st - lo - hi + d * (k - 1) + op + 1
                     for s, k, st, (lo, hi), d, op in zip(spatial, kernel, attrs["stride"], attrs["padding"], attrs["dilation"],
                                                          attrs["output_padding"], strict=True))
    return tuple((s + lo + hi - d * (k - 1) - 1) // st + 1
                 for s, k, st, (lo, hi), d in zip(spatial, kernel, attrs["stride"], attrs["padding"], attrs["dilation"], strict=True))


@_CONV.shape_rule
def _conv_infer(attrs, x, w, *bias):
    c_out = w._shape[1] * attrs["groups"] if attrs["transposed"] else w._shape[0]
    if not attrs["transposed"] and x._shape[1] == 0:
        c_out = 0  # PyTorch: an input with no channels gives an output with no channels (its "empty" backend)
    return (((x._shape[0], c_out, *_conv_out_size(attrs, x, w)), x._dtype),)


# the weight gradient of a (non-transposed) convolution as its own primitive: one im2col and
# one matmul, where a convolution of the input by the output gradient has a skinny im2col
_CONV_BACKWARD_WEIGHT = OpExpr("convolution_backward_weight", ("input", "grad_output"), ("out",))


@_CONV_BACKWARD_WEIGHT.shape_rule
def _conv_backward_weight_infer(attrs, x, gout):
    return (((gout._shape[1], x._shape[1] // attrs["groups"], *attrs["kernel_size"]), x._dtype),)


def _int_tuple(value, n: int, arg: str, op: str) -> tuple:
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(
            f"expected {arg} to be a single integer value or a list of {n} values to match the convolution dimensions, "
            f"but got {arg}={list(value)}"
        )
    return value


def _convolution(name: str, nd: int, input, weight, bias, stride, padding, dilation, groups, transposed=False, output_padding=0):
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of size: {list(input._shape)}"
        )
    if weight.ndim != nd + 2:
        raise RuntimeError(f"{name}(): expected a {nd + 2}-D weight, but got weight of size {list(weight._shape)}")
    batched = input.ndim == nd + 2
    x = input if batched else input.unsqueeze(0)
    stride = _int_tuple(stride, nd, "stride", name)
    dilation = _int_tuple(dilation, nd, "dilation", name)
    output_padding = _int_tuple(output_padding, nd, "output_padding", name)
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("non-positive dilation is not supported")
    kernel = weight._shape[2:]
    if isinstance(padding, str):
        if transposed:
            raise TypeError(f"{name}(): argument 'padding' must be tuple of ints, not str")
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            totals = [d * (k - 1) for d, k in zip(dilation, kernel, strict=True)]
            pads = tuple((t // 2, t - t // 2) for t in totals)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        if isinstance(padding, bool) or not (isinstance(padding, int) or all(isinstance(p, int) and not isinstance(p, bool) for p in padding)):
            raise TypeError(f"{name}(): argument 'padding' must be tuple of ints or a string, not {padding!r}")
        pad = _int_tuple(padding, nd, "padding", name)
        if any(p < 0 for p in pad):
            raise RuntimeError("negative padding is not supported")
        pads = tuple((p, p) for p in pad)
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"Input type ({input._dtype.name}) and weight type ({weight._dtype.name}) should be the same")
    _check_numeric(name, input._dtype)
    c_in = x._shape[1]
    w_shape = list(weight._shape)
    if weight._shape[0] < groups:
        raise RuntimeError(
            f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of size {w_shape} instead"
        )
    if any(k == 0 for k in kernel) and (transposed or c_in):
        raise RuntimeError(f"{name}(): kernel size should be greater than zero, but got weight of size {w_shape}")
    if transposed:
        if c_in != weight._shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {w_shape}, expected input{list(x._shape)} to have {weight._shape[0]} channels, "
                f"but got {c_in} channels instead"
            )
        if weight._shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size {w_shape} instead")
        c_out = weight._shape[1] * groups
        if c_out == 0:
            raise RuntimeError(f"{name}(): non-empty weight tensor expected, but got weight of size {w_shape}")
        for op, s, d in zip(output_padding, stride, dilation, strict=True):
            if op < 0 or (op >= s and op >= d):
                raise RuntimeError(
                    f"output padding must be smaller than either stride or dilation, but got output_padding={list(output_padding)}, "
                    f"stride={list(stride)}, dilation={list(dilation)}"
                )
    else:
        if c_in != weight._shape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {w_shape}, expected input{list(x._shape)} to have {weight._shape[1] * groups} "
                f"channels, but got {c_in} channels instead"
            )
        if weight._shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size {w_shape} instead")
        c_out = weight._shape[0]
        padded = [s + lo + hi for s, (lo, hi) in zip(x._shape[2:], pads, strict=True)]
        effective = [d * (k - 1) + 1 for d, k in zip(dilation, kernel, strict=True)]
        if any(p < e for p, e in zip(padded, effective, strict=True)):
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                f"Kernel size: ({' x '.join(map(str, effective))}). Kernel size can't be greater than actual input size"
            )
    inputs = (x, weight)
    if bias is not None:
        if bias._dtype is not input._dtype:
            raise RuntimeError(f"Input type ({input._dtype.name}) and bias type ({bias._dtype.name}) should be the same")
        if bias.ndim != 1 or bias._shape[0] != c_out:
            raise RuntimeError(
                f"Given weight of size {w_shape}, expected bias to be 1-dimensional with {c_out} elements, "
                f"but got bias of size {list(bias._shape)} instead"
            )
        inputs = (x, weight, bias)
    attrs = {"stride": stride, "padding": pads, "dilation": dilation, "groups": groups, "transposed": transposed,
             "output_padding": output_padding if transposed else (0,) * nd}
    if transposed:
        o_size = _conv_out_size(attrs, x, weight)
        if any(o <= 0 for o in o_size):
            raise RuntimeError(
                f"Given input size per channel: ({' x '.join(map(str, x._shape[2:]))}). "
                f"Calculated output size per channel: ({' x '.join(map(str, o_size))}). Output size is too small"
            )
    y = dispatch(_CONV, inputs, attrs)[0]
    return y if batched else y.squeeze(0)


declare(
    "conv1d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, Object padding=0, IntList dilation=1, Int groups=1) => Conv1d",
    op="convolution",
    doc="""
    1-D convolution (cross-correlation) of (N, C, L) or (C, L) input; ``padding`` may be ints, 'same' or 'valid'.
    """,
)
declare(
    "conv2d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, Object padding=0, IntList dilation=1, Int groups=1) => Conv2d",
    op="convolution",
    doc="""
    2-D convolution (cross-correlation) of (N, C, H, W) or (C, H, W) input with stride, padding
    (ints, 'same' or 'valid'), dilation and groups: im2col and one batched matmul.

    >>> x = ember.ones((1, 1, 3, 3))
    >>> ember.conv2d(x, ember.ones((1, 1, 2, 2))).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """,
)
declare(
    "conv3d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, Object padding=0, IntList dilation=1, Int groups=1) => Conv3d",
    op="convolution",
    doc="3-D convolution of (N, C, D, H, W) or (C, D, H, W) input.",
)
declare(
    "conv_transpose1d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, IntList padding=0, IntList output_padding=0, Int groups=1, IntList dilation=1) => ConvTranspose1d",
    op="convolution",
    doc="1-D transposed convolution; ``weight`` is (C_in, C_out / groups, kL).",
)
declare(
    "conv_transpose2d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, IntList padding=0, IntList output_padding=0, Int groups=1, IntList dilation=1) => ConvTranspose2d",
    op="convolution",
    doc="""
    2-D transposed convolution (the gradient of conv2d); ``weight`` is (C_in, C_out / groups, kH, kW).

    >>> ember.conv_transpose2d(ember.ones((1, 1, 1, 1)), ember.ones((1, 1, 2, 2)), stride=2).shape
    ember.Size([1, 1, 2, 2])
    """,
)
declare(
    "conv_transpose3d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, IntList padding=0, IntList output_padding=0, Int groups=1, IntList dilation=1) => ConvTranspose3d",
    op="convolution",
    doc="3-D transposed convolution.",
)
def _conv_functor(name: str, nd: int):
    def run(input, weight, bias, stride, padding, dilation, groups):
        return _convolution(name, nd, input, weight, bias, stride, padding, dilation, groups)

    def run_transposed(input, weight, bias, stride, padding, output_padding, groups, dilation):
        return _convolution(name.replace("conv", "conv_transpose"), nd, input, weight, bias, stride, padding, dilation, groups, True,
                            output_padding)

    functor(f"Conv{nd}d")(run)
    functor(f"ConvTranspose{nd}d")(run_transposed)


for _nd in (1, 2, 3):
    _conv_functor(f"conv{_nd}d", _nd)


# ---------------------------------------------------------------------------------------
# pooling


def _pool_out(size: int, k: int, p: int, s: int, d: int, ceil: bool) -> int:
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil else 0)) // s + 1
    if ceil and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_tuple(value, nd: int, arg: str, name: str) -> tuple:
    value = tuple(value)
    if len(value) == 1:
        return value * nd
    if len(value) != nd:
        raise RuntimeError(f"{name}: {arg} must either be a single int, or a tuple of {nd} ints")
    return value


def _pool_setup(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode):
    if input.ndim not in (nd + 1, nd + 2) or any(s == 0 for s in input._shape[-nd - 1:]):
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    kernel = _pool_tuple(kernel_size, nd, "kernel_size", name)
    stride = kernel if stride is None or len(stride) == 0 else _pool_tuple(stride, nd, "stride", name)
    padding = _pool_tuple(padding, nd, "padding", name)
    dilation = _pool_tuple(dilation, nd, "dilation", name)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{name}(): kernel_size must be greater than zero, but got {list(kernel)}")
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"{name}(): dilation must be greater than zero, but got {list(dilation)}")
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        if p < 0 or p > k // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, kernel_size={k} and dilation={d}")
    spatial = input._shape[-nd:]
    o_size = tuple(_pool_out(s, k, p, st, d, ceil_mode) for s, k, p, st, d in zip(spatial, kernel, padding, stride, dilation, strict=True))
    if any(o < 1 for o in o_size):
        c = input._shape[-nd - 1]
        raise RuntimeError(
            f"Given input size: ({c}x{'x'.join(map(str, spatial))}). Calculated output size: ({c}x{'x'.join(map(str, o_size))}). "
            "Output size is too small"
        )
    batched = input.ndim == nd + 2
    x = input if batched else input.unsqueeze(0)
    attrs = {"kernel_size": kernel, "stride": stride, "padding": padding, "dilation": dilation, "output_size": o_size}
    return x, batched, attrs


_MAX_POOL = OpExpr("max_pool", ("input",), ("out",))
_MAX_POOL_INDICES = OpExpr("max_pool_with_indices", ("input",), ("out", "indices"))


@_MAX_POOL.shape_rule
def _max_pool_infer(attrs, x):
    return ((x._shape[:2] + attrs["output_size"], x._dtype),)


@_MAX_POOL_INDICES.shape_rule
def _max_pool_indices_infer(attrs, x):
    shape = x._shape[:2] + attrs["output_size"]
    return ((shape, x._dtype), (shape, _dt.int64))


declare(
    "max_pool1d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, IntList dilation=1, Bool ceil_mode=False, Bool return_indices=False) => MaxPool1d",
    op=("max_pool", "max_pool_with_indices"),
    doc="""
    1-D max pooling; with ``return_indices`` returns (values, indices into the flattened input length).
    """,
)
declare(
    "max_pool2d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, IntList dilation=1, Bool ceil_mode=False, Bool return_indices=False) => MaxPool2d",
    op=("max_pool", "max_pool_with_indices"),
    doc="""
    2-D max pooling (stride defaults to kernel_size; padding counts as -inf); with ``return_indices``
    returns (values, indices into each flattened H*W plane).

    >>> ember.max_pool2d(ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]), 2).tolist()
    [[[[4.0]]]]
    """,
)
declare(
    "max_pool3d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, IntList dilation=1, Bool ceil_mode=False, Bool return_indices=False) => MaxPool3d",
    op=("max_pool", "max_pool_with_indices"),
    doc="3-D max pooling.",
)
def _max_pool_functor(nd: int):
    name = f"max_pool{nd}d"

    def run(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        x, batched, attrs = _pool_setup(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode)
        if input._dtype.is_complex or input._dtype is _dt.string:
            raise _not_implemented(name, input._dtype)
        if not return_indices:
            y = dispatch(_MAX_POOL, (x,), attrs)[0]
            return y if batched else y.squeeze(0)
        y, idx = dispatch(_MAX_POOL_INDICES, (x,), attrs)
        return (y, idx) if batched else (y.squeeze(0), idx.squeeze(0))

    functor(f"MaxPool{nd}d")(run)


# max pooling's input gradient, recomputing the winning tap of every window in one pass
_MAX_POOL_BACKWARD = OpExpr("max_pool_backward", ("grad_output", "input"), ("out",))


@_MAX_POOL_BACKWARD.shape_rule
def _max_pool_backward_infer(attrs, g, x):
    return ((x._shape, g._dtype),)


_AVG_POOL = OpExpr("avg_pool", ("input",), ("out",))
_AVG_POOL.shape_rule(_max_pool_infer)


declare(
    "avg_pool1d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, Bool ceil_mode=False, Bool count_include_pad=True) => AvgPool1d",
    op="avg_pool",
    doc="1-D average pooling.",
)
declare(
    "avg_pool2d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, Bool ceil_mode=False, Bool count_include_pad=True, Int? divisor_override=None) => AvgPool2d",
    op="avg_pool",
    doc="""
    2-D average pooling; ``count_include_pad`` counts zero padding in the divisor.

    >>> ember.avg_pool2d(ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]), 2).tolist()
    [[[[2.5]]]]
    """,
)
declare(
    "avg_pool3d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, Bool ceil_mode=False, Bool count_include_pad=True, Int? divisor_override=None) => AvgPool3d",
    op="avg_pool",
    doc="3-D average pooling.",
)
def _avg_pool_functor(nd: int):
    name = f"avg_pool{nd}d"

    def run(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override=None):
        x, batched, attrs = _pool_setup(name, nd, input, kernel_size, stride, padding, (1,), ceil_mode)
        if input._dtype.is_complex or input._dtype is _dt.bool_ or input._dtype is _dt.string:
            raise _not_implemented(name, input._dtype)
        if divisor_override is not None and divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        attrs.update(count_include_pad=count_include_pad, divisor_override=divisor_override)
        y = dispatch(_AVG_POOL, (x,), attrs)[0]
        return y if batched else y.squeeze(0)

    functor(f"AvgPool{nd}d")(run)


_ADAPTIVE_AVG_POOL = OpExpr("adaptive_avg_pool", ("input",), ("out",))
_ADAPTIVE_AVG_POOL.shape_rule(_max_pool_infer)


def _adaptive_output_size(name: str, nd: int, output_size, spatial) -> tuple:
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * nd
    try:
        sizes = tuple(output_size)
    except TypeError:
        raise TypeError(f"{name}(): argument 'output_size' must be an int or a tuple of {nd} ints, not {type(output_size).__name__}") from None
    if len(sizes) == 1:
        sizes = sizes * nd
    if len(sizes) != nd:
        raise ValueError(f"{name}(): output_size must be an int or a tuple of {nd} ints, but got {output_size!r}")
    out = []
    for s, o in zip(spatial, sizes, strict=True):
        if o is None:
            out.append(s)
        elif isinstance(o, bool) or not hasattr(o, "__index__"):
            raise TypeError(f"{name}(): output_size must contain ints or None, but got {output_size!r}")
        elif int(o) < 0:
            raise RuntimeError(f"{name}(): elements of output_size must be greater than or equal to 0 but received {list(sizes)}")
        else:
            out.append(int(o))
    return tuple(out)


declare(
    "adaptive_avg_pool1d",
    "Tensor (Tensor input, Object output_size) => AdaptiveAvgPool1d",
    op="adaptive_avg_pool",
    doc="Average pooling to a fixed output length.",
)
declare(
    "adaptive_avg_pool2d",
    "Tensor (Tensor input, Object output_size) => AdaptiveAvgPool2d",
    op="adaptive_avg_pool",
    doc="""
    Average pooling to a fixed output size (an int, or a pair whose None entries keep the input size).

    >>> ember.adaptive_avg_pool2d(ember.ones((1, 2, 5, 7)), 1).shape
    ember.Size([1, 2, 1, 1])
    """,
)
declare(
    "adaptive_avg_pool3d",
    "Tensor (Tensor input, Object output_size) => AdaptiveAvgPool3d",
    op="adaptive_avg_pool",
    doc="3-D average pooling to a fixed output size.",
)
def _adaptive_avg_pool_functor(nd: int):
    name = f"adaptive_avg_pool{nd}d"

    def run(input, output_size):
        if input.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {list(input._shape)}")
        # PyTorch's 1-D and 2-D pools allow empty batch and channel dimensions, its 3-D pool only an empty first one
        for i in range(1, input.ndim) if nd == 3 else range(input.ndim - nd, input.ndim):
            if input._shape[i] == 0:
                raise RuntimeError(
                    f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {list(input._shape)} "
                    f"with dimension {i} being empty"
                )
        o_size = _adaptive_output_size(name, nd, output_size, input._shape[-nd:])
        if nd == 3 or (input.numel() and math.prod(o_size)):  # 1-D, 2-D: dtype checked only where something is computed
            _check_floating(name, input._dtype)
        batched = input.ndim == nd + 2
        x = input if batched else input.unsqueeze(0)
        y = dispatch(_ADAPTIVE_AVG_POOL, (x,), {"output_size": o_size})[0]
        return y if batched else y.squeeze(0)

    functor(f"AdaptiveAvgPool{nd}d")(run)


for _nd in (1, 2, 3):
    _max_pool_functor(_nd)
    _avg_pool_functor(_nd)
    _adaptive_avg_pool_functor(_nd)


# ---------------------------------------------------------------------------------------
# normalization

_BATCH_NORM = OpExpr("batch_norm", ("input", "running_mean", "running_var", "weight", "bias"), ("out", "mean", "var"))


@_BATCH_NORM.shape_rule
def _batch_norm_infer(attrs, x, *params):
    stat = ((x._shape[1],), _stat_dtype(x._dtype))
    return ((x._shape, x._dtype), stat, stat)


def _check_param_dtype(op: str, arg: str, t, dtype: _dt.DType) -> None:
    if t is not None and t._dtype is not dtype and not (dtype in _HALF and t._dtype is _dt.float32):
        raise RuntimeError(f"{op}(): mixed dtypes: {arg} is {t._dtype.name} but input is {dtype.name}; parameters must have the input's dtype")


declare(
    "batch_norm",
    "Tensor (Tensor input, Tensor? running_mean, Tensor? running_var, Tensor? weight=None, Tensor? bias=None, Bool training=False, Float momentum=0.1, Float eps=1e-05) => BatchNorm",
    doc="""
    Batch normalization over (N, C, ...) per channel. Training mode normalizes with batch statistics
    and updates ``running_mean`` / ``running_var`` in place (unbiased variance for the estimate).

    >>> rm, rv = ember.zeros(1), ember.ones(1)
    >>> y = ember.batch_norm(ember.tensor([[1.0], [3.0]]), rm, rv, training=True)
    >>> [f"{v:.4f}" for v in y.flatten().tolist()], f"{rm.item():.4f}", f"{rv.item():.4f}"
    (['-1.0000', '1.0000'], '0.2000', '1.1000')
    """,
)
@functor("BatchNorm")
def batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps):
    empty = input.numel() == 0  # PyTorch checks dtypes in its kernel: an empty input of any dtype passes
    if not empty:
        _check_floating("batch_norm", input._dtype)
    if input.ndim < 2:
        raise ValueError(f"batch_norm(): expected an input of at least 2 dimensions (N, C, ...), but got input of size {list(input._shape)}")
    c = input._shape[1]
    for arg, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{arg} should contain {c} elements not {t.numel()}")
        if not empty:
            _check_param_dtype("batch_norm", arg, t, input._dtype)
    n = input.numel() // c if c else 0
    if training and n == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {_size(input._shape)}")
    inputs = [input]
    if not training:
        if running_mean is None:
            raise RuntimeError("running_mean must be defined in evaluation mode")
        if running_var is None:
            raise RuntimeError("running_var must be defined in evaluation mode")
        inputs += [running_mean, running_var]
    if weight is not None:
        inputs.append(weight)
    if bias is not None:
        inputs.append(bias)
    attrs = {"training": training, "eps": float(eps), "has_weight": weight is not None, "has_bias": bias is not None}
    y, mean, var = dispatch(_BATCH_NORM, tuple(inputs), attrs)
    if training and n > 1:  # running statistics: updated in place, unbiased variance
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.detach() * momentum)  # running statistics take no gradient
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var.detach() * (momentum * n / (n - 1)))
    return y


def _normalized_shape_check(op, input, normalized_shape, weight, bias):
    ns = tuple(normalized_shape)
    k = len(ns)
    if k == 0:
        raise RuntimeError(
            "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []"
        )
    if input.ndim < k or input._shape[-k:] != ns:
        raise RuntimeError(
            f"Given normalized_shape={list(ns)}, expected input with shape [*, {', '.join(map(str, ns))}], but got input of size{list(input._shape)}"
        )
    for arg, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            if t._shape != ns:
                raise RuntimeError(
                    f"Expected {arg} to be of same shape as normalized_shape, but got {arg} of shape {list(t._shape)} and normalized_shape = {list(ns)}"
                )
            _check_param_dtype(op, arg, t, input._dtype)
    return k


_LAYER_NORM = OpExpr("layer_norm", ("input", "weight", "bias"), ("out",))
_RMS_NORM = OpExpr("rms_norm", ("input", "weight"), ("out",))
_GROUP_NORM = OpExpr("group_norm", ("input", "weight", "bias"), ("out",))


def _same_infer(attrs, x, *params):
    return ((x._shape, x._dtype),)


_LAYER_NORM.shape_rule(_same_infer)
_RMS_NORM.shape_rule(_same_infer)
_GROUP_NORM.shape_rule(_same_infer)


declare(
    "layer_norm",
    "Tensor (Tensor input, IntList normalized_shape, Tensor? weight=None, Tensor? bias=None, Float eps=1e-05) => LayerNorm",
    doc="Normalize over the trailing ``normalized_shape`` dimensions, then scale and shift.",
)
@functor("LayerNorm")
def layer_norm(input, normalized_shape, weight, bias, eps):
    _check_floating("LayerNormKernelImpl", input._dtype)
    k = _normalized_shape_check("layer_norm", input, normalized_shape, weight, bias)
    inputs = (input, *tuple(t for t in (weight, bias) if t is not None))
    attrs = {"ndim": k, "eps": float(eps), "has_weight": weight is not None, "has_bias": bias is not None}
    return dispatch(_LAYER_NORM, inputs, attrs)[0]


declare(
    "rms_norm",
    "Tensor (Tensor input, IntList normalized_shape, Tensor? weight=None, Float? eps=None) => RmsNorm",
    doc="""
    input / sqrt(mean(input**2) + eps) over the trailing ``normalized_shape`` dimensions, times ``weight``.
    """,
)
@functor("RmsNorm")
def rms_norm(input, normalized_shape, weight, eps):
    _check_floating("rms_norm", input._dtype)
    k = _normalized_shape_check("rms_norm", input, normalized_shape, weight, None)
    if eps is None:
        eps = _dt.finfo(_dt.float64 if input._dtype is _dt.float64 else _dt.float32).eps
    inputs = (input,) if weight is None else (input, weight)
    return dispatch(_RMS_NORM, inputs, {"ndim": k, "eps": float(eps)})[0]


declare(
    "group_norm",
    "Tensor (Tensor input, Int num_groups, Tensor? weight=None, Tensor? bias=None, Float eps=1e-05) => GroupNorm",
    doc="""
    Normalize (N, C, ...) over groups of C / num_groups channels, then a per-channel scale and shift.
    """,
)
@functor("GroupNorm")
def group_norm(input, num_groups, weight, bias, eps):
    _check_floating("group_norm", input._dtype)
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    c = input._shape[1]
    if num_groups > 0 and input._shape[0] * c // num_groups * math.prod(input._shape[2:]) == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {[input._shape[0] * c // num_groups, num_groups, *input._shape[2:]]}")
    if num_groups <= 0 or c % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of shape {list(input._shape)} and "
            f"num_groups={num_groups}"
        )
    for arg, t in (("weight", weight), ("bias", bias)):
        if t is not None:
            if t.ndim != 1 or t._shape[0] != c:
                raise RuntimeError(
                    f"Expected {arg} to be a vector of size equal to the number of channels in input, but got {arg} of shape "
                    f"{list(t._shape)} and input of shape {list(input._shape)}"
                )
            _check_param_dtype("group_norm", arg, t, input._dtype)
    inputs = (input, *tuple(t for t in (weight, bias) if t is not None))
    attrs = {"num_groups": num_groups, "eps": float(eps), "has_weight": weight is not None, "has_bias": bias is not None}
    return dispatch(_GROUP_NORM, inputs, attrs)[0]


# ---------------------------------------------------------------------------------------
# dropout

_DROPOUT = OpExpr("dropout", ("input",), ("out", "mask"))


@_DROPOUT.shape_rule
def _dropout_infer(attrs, x):
    return ((x._shape, x._dtype), (attrs["mask_shape"], _dt.bool_))


def _dropout(name, input, p, training, inplace, generator, mask_shape):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"{name}(): expected a floating point input, but got {input._dtype.name}")
    attrs = {"p": float(p), "generator": generator or default_generator, "mask_shape": tuple(mask_shape)}
    outputs = None
    if inplace:
        outputs = (input, empty_tensor(tuple(mask_shape), _dt.bool_, input.device))
    return dispatch(_DROPOUT, (input,), attrs, outputs)[0]


declare(
    "dropout",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout",
    op="dropout",
    doc="""
    Zero each element with probability ``p`` and scale the rest by 1 / (1 - p) (training only).
    Draws from ``generator`` or the default generator.

    >>> ember.dropout(ember.ones(3), p=0.0).tolist()
    [1.0, 1.0, 1.0]
    """,
)
@functor("Dropout")
def dropout(input, p, training, inplace, generator):
    return _dropout("dropout", input, p, training, inplace, generator, input._shape)


declare(
    "dropout1d",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout1d",
    op="dropout",
    doc="Zero whole channels of (N, C, L) or (C, L) input with probability ``p``.",
)
declare(
    "dropout2d",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout2d",
    op="dropout",
    doc="Zero whole channels of (N, C, H, W) or (C, H, W) input with probability ``p``.",
)
declare(
    "dropout3d",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout3d",
    op="dropout",
    doc="Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p``.",
)
def _feature_dropout_functor(nd: int):
    name = f"dropout{nd}d"

    def run(input, p, training, inplace, generator):
        if input.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D input, but received a {input.ndim}D input")
        lead = input.ndim - nd
        return _dropout(name, input, p, training, inplace, generator, input._shape[:lead] + (1,) * nd)

    functor(f"Dropout{nd}d")(run)


for _nd in (1, 2, 3):
    _feature_dropout_functor(_nd)


# ---------------------------------------------------------------------------------------
# embedding, one_hot

_EMBEDDING = OpExpr("embedding", ("weight", "indices"), ("out",))
_EMBEDDING_RENORM = OpExpr("embedding_renorm", ("weight", "indices"), ("weight_out",))
_EMBEDDING_RENORM.differentiable = False  # max_norm renormalises rows in place, under no_grad, as PyTorch does


@_EMBEDDING.shape_rule
def _embedding_infer(attrs, w, idx):
    return ((idx._shape + w._shape[1:], w._dtype),)


@_EMBEDDING_RENORM.shape_rule
def _embedding_renorm_infer(attrs, w, idx):
    return ((w._shape, w._dtype),)


declare(
    "embedding",
    "Tensor (Tensor input, Tensor weight, Int? padding_idx=None, Float? max_norm=None, Float norm_type=2.0, Bool scale_grad_by_freq=False, Bool sparse=False) => Embedding",
    op=("embedding", "embedding_renorm"),
    doc="""
    Rows of ``weight`` at the integer ids in ``input``; ``max_norm`` renormalizes the used rows in place.

    >>> ember.embedding(ember.tensor([1]), ember.tensor([[0.0], [5.0]])).tolist()
    [[5.0]]
    """,
)
@functor("Embedding")
def embedding(input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse):
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if not _is_int(input._dtype):
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have an integer dtype (Long, Int), but got {input._dtype.name} instead "
            "(while checking arguments for embedding)"
        )
    if padding_idx is not None and not -weight._shape[0] <= padding_idx < weight._shape[0]:
        raise ValueError("Padding_idx must be within num_embeddings")
    if max_norm is not None:  # as PyTorch: the renormalization is no part of the graph
        attrs = {"max_norm": float(max_norm), "norm_type": float(norm_type)}
        with no_grad():
            dispatch(_EMBEDDING_RENORM, (weight, input), attrs, (weight,))
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight._shape[0]
    attrs = {"padding_idx": padding_idx, "scale_grad_by_freq": bool(scale_grad_by_freq)}
    return dispatch(_EMBEDDING, (weight, input), attrs)[0]


_ONE_HOT = OpExpr("one_hot", ("input",), ("out",))


@_ONE_HOT.shape_rule
def _one_hot_infer(attrs, x):
    return (((*x._shape, attrs["num_classes"]), _dt.int64),)


declare(
    "one_hot",
    "Tensor (Tensor tensor, Int num_classes=-1) => OneHot",
    differentiable=False,
    doc="""
    int64 one-hot encoding along a new last dimension (``num_classes=-1``: max + 1).

    >>> ember.one_hot(ember.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """,
)
@functor("OneHot")
def one_hot(tensor, num_classes):
    if not _is_int(tensor._dtype):
        raise RuntimeError(f"one_hot is only applicable to index tensor of integer type (LongTensor), but got {tensor._dtype.name}")
    if num_classes == -1:
        if tensor.numel() == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        if tensor.is_meta:
            raise RuntimeError("one_hot(): num_classes must be given for meta tensors (it would be read from the data)")
        num_classes = max(int(tensor._host_array().max()) + 1, 0)
    elif num_classes < 0:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return dispatch(_ONE_HOT, (tensor,), {"num_classes": num_classes})[0]


# ---------------------------------------------------------------------------------------
# interpolate

_INTERPOLATE = OpExpr("interpolate", ("input",), ("out",))
_INTERPOLATE.shape_rule(_max_pool_infer)

_MODES_BY_DIM = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_ALL_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"


def _per_dim(value, n: int, scale: bool, spatial) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            what, got, letter = ("scale_factor", "scale_factor of shape", "s") if scale else ("output", "output size of", "o")
            raise ValueError(
                f"Input and {what} must have the same number of spatial dimensions, but got input with spatial dimensions of "
                f"{list(spatial)} and {got} {tuple(value)}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                f"{'scale_factor' if scale else 'output size'} in ({letter}1, {letter}2, ...,{letter}K) format."
            )
        return list(value)
    return [value] * n


declare(
    "interpolate",
    'Tensor (Tensor input, Object size=None, Object scale_factor=None, String mode="nearest", Bool? align_corners=None, Bool? recompute_scale_factor=None, Bool antialias=False) => Interpolate',
    doc="""
    Resample (N, C, ...) input by ``size`` or ``scale_factor``: nearest, nearest-exact, linear,
    bilinear, bicubic, trilinear or area.

    >>> ember.interpolate(ember.tensor([[[1.0, 2.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """,
)
@functor("Interpolate")
def interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor, antialias):
    nd = input.ndim - 2
    if (mode not in ("nearest", "nearest-exact", "area") and mode not in _MODES_BY_DIM) or nd not in (1, 2, 3):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: {_ALL_MODES} (got {mode})"
        )
    if mode in _MODES_BY_DIM and _MODES_BY_DIM[mode] != nd:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_MODES_BY_DIM[mode] + 2}D input")
    if mode in ("nearest", "nearest-exact", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not supported")
    spatial = input._shape[2:]
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [int(s) for s in _per_dim(size, nd, False, spatial)]
        scales = [None] * nd
    elif scale_factor is not None:
        scales = [float(s) for s in _per_dim(scale_factor, nd, True, spatial)]
        sizes = [math.floor(s * f) for s, f in zip(spatial, scales, strict=True)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = [None] * nd
    if any(s <= 0 for s in spatial) or any(o <= 0 for o in sizes):
        raise RuntimeError(
            f"Input and output sizes should be greater than 0, but got input ({', '.join(map(str, spatial))}) output ({', '.join(map(str, sizes))})"
        )
    if mode == "area":
        F = _F()
        return getattr(F, f"adaptive_avg_pool{nd}d")(input, tuple(sizes))
    if mode not in ("nearest", "nearest-exact"):
        _check_floating(f"upsample_{mode}{nd}d", input._dtype)
    elif input._dtype is _dt.string or input._dtype.is_complex:
        raise _not_implemented(f"upsample_nearest{nd}d", input._dtype)
    attrs = {"mode": mode, "output_size": tuple(sizes), "scales": tuple(scales), "align_corners": bool(align_corners)}
    return dispatch(_INTERPOLATE, (input,), attrs)[0]


# ---------------------------------------------------------------------------------------
# attention

_SDPA = OpExpr("scaled_dot_product_attention", ("query", "key", "value", "attn_mask"), ("out",))


@_SDPA.shape_rule
def _sdpa_infer(attrs, q, k, v, *mask):
    rep = attrs["gqa_repeat"]
    kb, vb = k._shape[:-2], v._shape[:-2]
    if rep != 1:
        kb = (*kb[:-1], kb[-1] * rep)
        vb = (*vb[:-1], vb[-1] * rep)
    batch = broadcast_pair(broadcast_pair(q._shape[:-2], kb), vb)
    return (((*batch, q._shape[-2], v._shape[-1]), q._dtype),)


declare(
    "scaled_dot_product_attention",
    "Tensor (Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, Float dropout_p=0.0, Bool is_causal=False, Float? scale=None, Bool enable_gqa=False, *, Generator? generator=None) => ScaledDotProductAttention",
    doc="""
    softmax(query @ key.T * scale + mask) @ value; a bool mask marks the allowed positions, a float
    mask is added; rows with no allowed position give zeros.
    """,
)
@functor("ScaledDotProductAttention")
def scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, generator):
    q, k, v = query, key, value
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise RuntimeError(
            f"Expected query, key, and value to all be at least 2 dimensional, but got query.dim: {q.ndim} key.dim: {k.ndim} "
            f"and value.dim: {v.ndim} instead."
        )
    if not (q._dtype is k._dtype is v._dtype):
        raise RuntimeError(
            f"Expected query, key, and value to have the same dtype, but got query.dtype: {q._dtype.name} key.dtype: {k._dtype.name} "
            f"and value.dtype: {v._dtype.name} instead."
        )
    if q._dtype is _dt.bool_ or not (q._dtype.is_floating_point or _is_int(q._dtype)):
        raise _not_implemented("scaled_dot_product_attention", q._dtype)
    if q._shape[-1] != k._shape[-1]:
        raise RuntimeError(f"scaled_dot_product_attention(): query and key must have the same embedding size, got {q._shape[-1]} and {k._shape[-1]}")
    if k._shape[-2] != v._shape[-2]:
        raise RuntimeError(f"scaled_dot_product_attention(): key and value must have the same sequence length, got {k._shape[-2]} and {v._shape[-2]}")
    if not 0.0 <= dropout_p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    rep = 1
    if enable_gqa and q.ndim >= 3 and k.ndim >= 3:
        hq, hk, hv = q._shape[-3], k._shape[-3], v._shape[-3]
        if hk != hv or (hk == 0 and hq != 0) or (hk and hq % hk):
            raise RuntimeError(
                f"Number of heads in key and value must divide the number of heads in query, got query heads {hq}, key heads {hk}, value heads {hv}"
            )
        rep = hq // hk if hk else 1
    inputs = (q, k, v)
    if attn_mask is not None:
        if attn_mask._dtype is not _dt.bool_ and attn_mask._dtype is not q._dtype:
            raise RuntimeError(
                f"Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {attn_mask._dtype.name} "
                f"and query.dtype: {q._dtype.name} instead."
            )
        if is_causal:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
        inputs = (q, k, v, attn_mask)
    if scale is None:  # with no embedding the scores are all 0 whatever the scale (PyTorch's 1/sqrt(0) included)
        scale = 1 / math.sqrt(q._shape[-1]) if q._shape[-1] else 1.0
    attrs = {"scale": float(scale), "is_causal": is_causal,
             "dropout_p": float(dropout_p), "gqa_repeat": rep, "has_mask": attn_mask is not None,
             "generator": (generator or default_generator) if dropout_p > 0 else None}
    out_shape = _sdpa_infer(attrs, q, k, v)[0][0]
    if attn_mask is not None:
        scores = (*out_shape[:-1], k._shape[-2])
        if broadcast_pair(scores, attn_mask._shape) != scores:
            raise RuntimeError(f"scaled_dot_product_attention(): attn_mask of size {list(attn_mask._shape)} cannot be broadcast to the attention scores of size {list(scores)}")
    if _is_int(q._dtype) and math.prod(out_shape) and k._shape[-2]:
        # PyTorch accepts integers only where nothing is computed: an empty output, or no keys (zeros)
        raise _not_implemented("scaled_dot_product_attention", q._dtype)
    return dispatch(_SDPA, inputs, attrs)[0]


# ---------------------------------------------------------------------------------------
# derivatives, written with ember's ops (so they differentiate again); ctx.inputs and
# ctx.outputs are the saved tensors, ctx.input_meta their (shape, dtype)


def _needs(ctx, i: int) -> bool:
    """Whether input ``i`` of the node wants a gradient (its edge leads somewhere)."""
    edges = ctx._node.next_functions
    return i < len(edges) and edges[i][0] is not None


def _as_dtype(t, dtype):
    return t if t is None or t._dtype is dtype else t.to(dtype)


def _const(array, dtype):
    from .._core.tensor import tensor

    return tensor(array, dtype=dtype)


def _reduce_grad(g, reduction: str, count):
    """The per-element gradient scale of a reduced loss: ``g`` itself, or ``g / count`` for mean."""
    return g / count if reduction == "mean" else g


# --- softmax


@_SOFTMAX.grad_rule(saves="outputs")
def _softmax_grad(ctx, g):
    (y,) = ctx.outputs
    dim = ctx.attrs["dim"]
    gx = y * (g - (g * y).sum(dim=dim, keepdim=True)) if y.ndim else g * 0
    return (_as_dtype(gx, ctx.input_meta[0][1]),)


@_LOG_SOFTMAX.grad_rule(saves="outputs")
def _log_softmax_grad(ctx, g):
    (y,) = ctx.outputs
    dim = ctx.attrs["dim"]
    gx = g - y.exp() * g.sum(dim=dim, keepdim=True) if y.ndim else g * 0
    return (_as_dtype(gx, ctx.input_meta[0][1]),)


# --- nll_loss, cross_entropy


# cross entropy's input gradient in one kernel, for backward without create_graph: softmax, the
# target's -1 and the scale in one pass instead of six dispatched ops (the composite below is what
# double backward and graph-mode gradients differentiate)
_CE_BACKWARD = OpExpr("cross_entropy_backward", ("grad_output", "input", "target"), ("out",))
_CE_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_CE_BACKWARD.attr_key = lambda attrs: attrs["reduction"]


@_CE_BACKWARD.shape_rule
def _ce_backward_infer(attrs, g, x, target):
    return ((x._shape, x._dtype),)


_CE_PROBS_BACKWARD = OpExpr("cross_entropy_probs_backward", ("grad_output", "probs", "target"), ("out",))
_CE_PROBS_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)


@_CE_PROBS_BACKWARD.shape_rule
def _ce_probs_backward_infer(attrs, g, probs, target):
    return (((probs._shape[1], probs._shape[0]), probs._dtype),)


@_CROSS_ENTROPY_WITH_PROBS.grad_rule(saves="both")
def _ce_with_probs_grad(ctx, g, _probs_grad=None):
    """(probs - one_hot) * g / N from the saved probabilities; under create_graph the composite
    formula over the saved logits, which differentiates again."""
    if not grad_recording() and g._dtype is ctx.input_meta[0][1]:
        target = ctx.inputs[1]
        probs = ctx.outputs[1]
        return (dispatch(_CE_PROBS_BACKWARD, (g, probs, target))[0], None)
    return _nll_grad(ctx, g)


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
    if 0 <= ignore < n_classes and (target._host_array() == ignore).any():
        return None  # some targets are ignored: the general formula masks them
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
        if reduction == "mean":
            scale = g / wt.sum()
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


_NLL.grad_rule(saves="inputs")(_nll_grad)
_CROSS_ENTROPY.grad_rule(saves="inputs")(_nll_grad)


# --- pointwise losses


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


# --- linear, bilinear


# linear's gradients in one kernel, for backward without create_graph: one dispatch in place of
# a matmul, a transpose, a matmul and a sum (the composite below is what double backward and
# graph-mode gradients differentiate). ``output_mask`` says which of the three to compute.
_LINEAR_BACKWARD = OpExpr("linear_backward", ("grad_output", "input", "weight"), ("grad_input", "grad_weight", "grad_bias"))
_LINEAR_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_LINEAR_BACKWARD.attr_key = lambda attrs: attrs["output_mask"]


@_LINEAR_BACKWARD.shape_rule
def _linear_backward_infer(attrs, g, x, w):
    specs = ((x._shape, x._dtype), (w._shape, w._dtype), ((w._shape[0],), w._dtype))
    return tuple(spec for spec, need in zip(specs, attrs["output_mask"], strict=True) if need)


def _linear_fast_grad(ctx, g, x, w, bias):
    """The common case in one kernel: a 2-D weight, one float32/float64 dtype throughout, a
    bias of the output's width (or none); ``None`` when the case does not apply."""
    dtype = x._dtype
    if grad_recording() or w.ndim != 2 or dtype not in (_dt.float32, _dt.float64) or w._dtype is not dtype or g._dtype is not dtype:
        return None
    if bias and (bias[0]._shape != (w._shape[0],) or bias[0]._dtype is not dtype):
        return None
    edges = ctx._node.next_functions  # (_needs, inlined: this runs for every linear layer)
    mask = (edges[0][0] is not None, edges[1][0] is not None, bool(bias) and edges[2][0] is not None)
    grads = [None, None, None]
    if any(mask):
        results = dispatch(_LINEAR_BACKWARD, (g, x, w), {"output_mask": mask})
        k = 0
        for i in range(3):
            if mask[i]:
                grads[i] = results[k]
                k += 1
    return tuple(grads) if bias else (grads[0], grads[1])


@_LINEAR.grad_rule(saves="inputs")
def _linear_grad(ctx, g):
    F = _F()
    x, w, *bias = ctx.inputs
    fast = _linear_fast_grad(ctx, g, x, w, bias)
    if fast is not None:
        return fast
    k = x._shape[-1]
    rows = math.prod(x._shape[:-1])
    grad_x = grad_w = None
    if w.ndim == 2:
        if _needs(ctx, 0):
            grad_x = F.matmul(g, w)  # (..., out) @ (out, in)
        if _needs(ctx, 1):
            if x.ndim == 2:
                grad_w = F.matmul(g.mT, x)  # (out, rows) @ (rows, in)
            else:
                grad_w = F.matmul(g.reshape(rows, w._shape[0]).mT, x.reshape(rows, k))
    else:
        if _needs(ctx, 0):
            grad_x = g.unsqueeze(-1) * w
        if _needs(ctx, 1):
            grad_w = F.linear(x.reshape(rows, k).t(), g.reshape(rows))
    grads = (grad_x, grad_w)
    if bias:
        gb = None
        if _needs(ctx, 2):
            b_shape = bias[0]._shape
            gb = g.sum(0) if g.ndim == 2 and b_shape == g._shape[1:] else sum_to(g, b_shape)
        grads += (gb,)
    return grads


@_BILINEAR.grad_rule(saves="inputs")
def _bilinear_grad(ctx, g):
    F = _F()
    x1, x2, w, *bias = ctx.inputs
    o, i1, i2 = w._shape
    rows = math.prod(x1._shape[:-1])
    a, b, gg = x1.reshape(rows, i1), x2.reshape(rows, i2), g.reshape(rows, o)
    grads = (
        F.einsum("ro,oij,rj->ri", gg, w, b).reshape(x1._shape) if _needs(ctx, 0) else None,
        F.einsum("ro,oij,ri->rj", gg, w, a).reshape(x2._shape) if _needs(ctx, 1) else None,
        F.einsum("ro,ri,rj->oij", gg, a, b) if _needs(ctx, 2) else None,
    )
    if bias:
        grads += (gg.sum(0) if _needs(ctx, 3) else None,)
    return grads


# --- convolution: the input gradient is the transposed convolution (and vice versa), the
# weight gradient a convolution of the input by the output gradient (batch and channels swapped)


def _conv_weight_grad(inp, gout, attrs, kernel):
    """d conv(inp, w) / d w contracted with ``gout``: (C_gout, C_inp / groups, *kernel)."""
    sub = {"stride": attrs["stride"], "padding": attrs["padding"], "dilation": attrs["dilation"], "groups": attrs["groups"],
           "kernel_size": tuple(kernel)}
    return dispatch(_CONV_BACKWARD_WEIGHT, (inp, gout), sub)[0]


def _conv_input_grad(g, w, attrs, spatial):
    """d conv(x, w) / d x contracted with ``g`` (a transposed convolution) for an input of ``spatial`` size."""
    kernel = w._shape[2:]
    op = tuple(s - ((o - 1) * st - lo - hi + d * (k - 1) + 1)
               for s, o, st, (lo, hi), d, k in zip(spatial, g._shape[2:], attrs["stride"], attrs["padding"], attrs["dilation"], kernel,
                                                   strict=True))
    sub = {"stride": attrs["stride"], "padding": attrs["padding"], "dilation": attrs["dilation"], "groups": attrs["groups"],
           "transposed": True, "output_padding": op}
    return dispatch(_CONV, (g, w), sub)[0]


@_CONV_BACKWARD_WEIGHT.grad_rule(saves="inputs")
def _conv_backward_weight_grad(ctx, gg):
    """The weight gradient is bilinear in (input, grad_output): its derivatives are the
    convolution's input gradient and the convolution itself, with ``gg`` as the weight."""
    x, gout = ctx.inputs
    attrs = ctx.attrs
    grad_x = _conv_input_grad(gout, gg, attrs, x._shape[2:]) if _needs(ctx, 0) else None
    grad_g = None
    if _needs(ctx, 1):
        sub = {"stride": attrs["stride"], "padding": attrs["padding"], "dilation": attrs["dilation"], "groups": attrs["groups"],
               "transposed": False, "output_padding": (0,) * len(attrs["kernel_size"])}
        grad_g = dispatch(_CONV, (x, gg), sub)[0]
        if grad_g._shape[2:] != gout._shape[2:]:
            grad_g = grad_g[(slice(None), slice(None), *(slice(0, s) for s in gout._shape[2:]))]
    return grad_x, grad_g


@_CONV.grad_rule(saves="inputs")
def _convolution_grad(ctx, g):
    x, w, *bias = ctx.inputs
    attrs = ctx.attrs
    kernel = w._shape[2:]
    nd = len(kernel)
    spatial = x._shape[2:]
    grad_x = grad_w = None
    if attrs["transposed"]:
        if _needs(ctx, 0):
            sub = {**attrs, "transposed": False, "output_padding": (0,) * nd}
            grad_x = dispatch(_CONV, (g, w), sub)[0]
            if grad_x._shape[2:] != spatial:
                grad_x = grad_x[(slice(None), slice(None), *(slice(0, s) for s in spatial))]
        if _needs(ctx, 1):
            grad_w = _conv_weight_grad(g, x, attrs, kernel)
    else:
        if _needs(ctx, 0):
            grad_x = _conv_input_grad(g, w, attrs, spatial)
        if _needs(ctx, 1):
            grad_w = _conv_weight_grad(x, g, attrs, kernel)
    grads = (grad_x, grad_w)
    if bias:
        grads += (g.sum(dim=(0, *range(2, g.ndim))) if _needs(ctx, 2) else None,)
    return grads


# --- pooling


def _scatter_windows(x_shape, idx, g):
    """Gradients ``g`` at the flat spatial positions ``idx`` of an input of ``x_shape``."""
    F = _F()
    n, c = x_shape[:2]
    flat = F.zeros((n, c, math.prod(x_shape[2:])), dtype=g._dtype)
    return flat.scatter_add(2, idx.reshape(n, c, -1), g.reshape(n, c, -1)).reshape(x_shape)


@_MAX_POOL.grad_rule(saves="inputs")
def _max_pool_grad(ctx, g):
    (x,) = ctx.inputs
    return (dispatch(_MAX_POOL_BACKWARD, (g, x), ctx.attrs)[0],)


@_MAX_POOL_BACKWARD.grad_rule(saves="inputs")
def _max_pool_backward_grad(ctx, gg):
    """Linear in ``grad_output`` (gathered back at the winning positions); piecewise constant
    in ``input`` (no gradient)."""
    g, x = ctx.inputs
    grad_g = None
    if _needs(ctx, 0):
        _, idx = dispatch(_MAX_POOL_INDICES, (x.detach(),), ctx.attrs)
        n, c = x._shape[:2]
        grad_g = gg.reshape(n, c, -1).gather(2, idx.reshape(n, c, -1)).reshape(g._shape)
    # zeros, not None: the engine only walks on past a node that receives a gradient
    grad_x = _F().zeros_like(x) if _needs(ctx, 1) else None
    return grad_g, grad_x


@_MAX_POOL_INDICES.grad_rule(saves="outputs")
def _max_pool_indices_grad(ctx, g, _g_idx=None):
    _, idx = ctx.outputs
    return (_scatter_windows(ctx.input_meta[0][0], idx, g),)


@_AVG_POOL.grad_rule(saves="none")
def _avg_pool_grad(ctx, g):
    import numpy as np

    attrs = ctx.attrs
    shape, dtype = ctx.input_meta[0]
    n, c = shape[:2]
    spatial, o_size = shape[2:], g._shape[2:]
    kernel, stride, padding = attrs["kernel_size"], attrs["stride"], attrs["padding"]
    nd = len(kernel)
    if attrs["divisor_override"] is not None:
        gs = g / attrs["divisor_override"]
    else:
        divisor = np.ones(())
        for s, k, st, p, o in zip(spatial, kernel, stride, padding, o_size, strict=True):
            start = np.arange(o) * st - p
            end = np.minimum(start + k, s + p)
            count = end - start if attrs["count_include_pad"] else np.minimum(end, s) - np.maximum(start, 0)
            divisor = np.multiply.outer(divisor, count.astype(np.float64))
        gs = g / _const(divisor, dtype)
    pads, ops = [], []
    for s, k, st, p, o in zip(spatial, kernel, stride, padding, o_size, strict=True):
        need = (o - 1) * st + k - p - s
        pads.append((p, max(need, 0)))
        ops.append(max(-need, 0))
    sub = {"stride": stride, "padding": tuple(pads), "dilation": (1,) * nd, "groups": 1, "transposed": True, "output_padding": tuple(ops)}
    ones = _F().ones((1, 1, *kernel), dtype=dtype)
    grad = dispatch(_CONV, (gs.reshape(n * c, 1, *o_size), ones), sub)[0]
    return (grad.reshape(shape),)


def _apply_matrices(t, mats):
    """Multiply the trailing ``len(mats)`` axes of ``t`` by one (out, in) matrix each (ember ops)."""
    F = _F()
    nd = len(mats)
    for i, m in enumerate(mats):
        axis = t.ndim - nd + i
        t = F.linear(t.movedim(axis, -1), m).movedim(-1, axis)
    return t


def _np_dtype(dtype):
    import numpy as np

    return np.dtype(np.float64) if dtype is _dt.float64 else np.dtype(np.float32)


@_ADAPTIVE_AVG_POOL.grad_rule(saves="none")
def _adaptive_avg_pool_grad(ctx, g):
    from ..kernels.cpu.nn import _adaptive_matrix

    shape, dtype = ctx.input_meta[0]
    nd = len(ctx.attrs["output_size"])
    ct = _np_dtype(dtype)
    mats = [_const(_adaptive_matrix(s, o, ct).T.copy(), dtype) for s, o in zip(shape[-nd:], g._shape[-nd:], strict=True)]
    return (_apply_matrices(g, mats),)


@_INTERPOLATE.grad_rule(saves="none")
def _interpolate_grad(ctx, g):
    import numpy as np

    from ..kernels.cpu.nn import _linear_matrix, _nearest_index

    attrs = ctx.attrs
    shape, dtype = ctx.input_meta[0]
    mode = attrs["mode"]
    spatial, o_size, scales = shape[2:], g._shape[2:], attrs["scales"]
    if mode in ("nearest", "nearest-exact"):
        F = _F()
        grad = g
        for i in reversed(range(len(spatial))):
            idx = _const(np.asarray(_nearest_index(spatial[i], o_size[i], scales[i], mode == "nearest-exact"), np.int64), _dt.int64)
            target = list(grad._shape)
            target[2 + i] = spatial[i]
            grad = F.zeros(tuple(target), dtype=grad._dtype).index_add(2 + i, idx, grad)
        return (grad,)
    ct = _np_dtype(dtype)
    mats = [_const(_linear_matrix(s, o, sc, attrs["align_corners"], mode == "bicubic", ct).T.copy(), dtype)
            for s, o, sc in zip(spatial, o_size, scales, strict=True)]
    return (_apply_matrices(g, mats),)


# --- normalization


def _normalize_backward(gxh, xhat, rstd, dims):
    """d/dx of xhat = (x - mean) * rstd over ``dims``, contracted with ``gxh``."""
    return rstd * (gxh - gxh.mean(dim=dims, keepdim=True) - xhat * (gxh * xhat).mean(dim=dims, keepdim=True))


@_BATCH_NORM.grad_rule(saves="both")
def _batch_norm_grad(ctx, g, g_mean=None, g_var=None):
    attrs = ctx.attrs
    inputs = list(ctx.inputs)
    x = inputs.pop(0)
    c = x._shape[1]
    bshape = (c,) + (1,) * (x.ndim - 2)
    axes = (0, *range(2, x.ndim))
    i = 1
    rm = rv = None
    if not attrs["training"]:
        rm, rv = inputs.pop(0), inputs.pop(0)
        i = 3
    weight = inputs.pop(0) if attrs["has_weight"] else None
    i_w = i if weight is not None else None
    i_b = (i + 1 if weight is not None else i) if attrs["has_bias"] else None
    eps = attrs["eps"]
    grads = [None] * (1 + (0 if attrs["training"] else 2) + attrs["has_weight"] + attrs["has_bias"])
    if attrs["training"]:
        _, mean, var = ctx.outputs
        mean, var = _as_dtype(mean, x._dtype).reshape(bshape), _as_dtype(var, x._dtype).reshape(bshape)
    else:
        mean, var = _as_dtype(rm, x._dtype).reshape(bshape), _as_dtype(rv, x._dtype).reshape(bshape)
    rstd = (var + eps).rsqrt()
    xc = x - mean
    xhat = xc * rstd
    w = None if weight is None else _as_dtype(weight, x._dtype).reshape(bshape)
    gxh = g if w is None else g * w
    if _needs(ctx, 0):
        if attrs["training"]:
            gx = _normalize_backward(gxh, xhat, rstd, axes)
            count = math.prod(x._shape) // c
            if g_mean is not None:
                gx = gx + _as_dtype(g_mean, x._dtype).reshape(bshape) / count
            if g_var is not None:
                gx = gx + _as_dtype(g_var, x._dtype).reshape(bshape) * 2 * xc / count
        else:
            gx = gxh * rstd
        grads[0] = gx
    if not attrs["training"]:
        if _needs(ctx, 1):
            grads[1] = _as_dtype(-(gxh * rstd).sum(dim=axes), rm._dtype)
        if _needs(ctx, 2):
            grads[2] = _as_dtype((gxh * xc).sum(dim=axes) * (-0.5) * rstd.reshape(c) ** 3, rv._dtype)
    if i_w is not None and _needs(ctx, i_w):
        grads[i_w] = _as_dtype((g * xhat).sum(dim=axes), weight._dtype)
    if i_b is not None and _needs(ctx, i_b):
        grads[i_b] = _as_dtype(g.sum(dim=axes), ctx.input_meta[i_b][1])
    return tuple(grads)


@_LAYER_NORM.grad_rule(saves="inputs")
def _layer_norm_grad(ctx, g):
    attrs = ctx.attrs
    x, *params = ctx.inputs
    k = attrs["ndim"]
    dims = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    mean = x.mean(dim=dims, keepdim=True)
    xc = x - mean
    rstd = ((xc * xc).mean(dim=dims, keepdim=True) + attrs["eps"]).rsqrt()
    xhat = xc * rstd
    weight = params.pop(0) if attrs["has_weight"] else None
    gxh = g if weight is None else g * weight
    grads = [_normalize_backward(gxh, xhat, rstd, dims) if _needs(ctx, 0) else None]
    if weight is not None:
        grads.append((g * xhat).sum(dim=lead) if _needs(ctx, 1) and lead else (g * xhat) if _needs(ctx, 1) else None)
    if attrs["has_bias"]:
        i = len(grads)
        grads.append((g.sum(dim=lead) if lead else g) if _needs(ctx, i) else None)
    return tuple(grads)


@_RMS_NORM.grad_rule(saves="inputs")
def _rms_norm_grad(ctx, g):
    x, *params = ctx.inputs
    k = ctx.attrs["ndim"]
    dims = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    r = ((x * x).mean(dim=dims, keepdim=True) + ctx.attrs["eps"]).rsqrt()
    weight = params[0] if params else None
    gw = g if weight is None else g * weight
    grads = [r * (gw - x * (r * r) * (gw * x).mean(dim=dims, keepdim=True)) if _needs(ctx, 0) else None]
    if weight is not None:
        gwt = g * x * r
        grads.append((gwt.sum(dim=lead) if lead else gwt) if _needs(ctx, 1) else None)
    return tuple(grads)


@_GROUP_NORM.grad_rule(saves="inputs")
def _group_norm_grad(ctx, g):
    attrs = ctx.attrs
    x, *params = ctx.inputs
    n, c = x._shape[:2]
    groups = attrs["num_groups"]
    bshape = (c,) + (1,) * (x.ndim - 2)
    axes = (0, *range(2, x.ndim))
    xg = x.reshape(n, groups, -1)
    mean = xg.mean(dim=2, keepdim=True)
    xc = xg - mean
    rstd = ((xc * xc).mean(dim=2, keepdim=True) + attrs["eps"]).rsqrt()
    xhat = xc * rstd
    weight = params.pop(0) if attrs["has_weight"] else None
    gxh = g if weight is None else g * weight.reshape(bshape)
    grads = [_normalize_backward(gxh.reshape(n, groups, -1), xhat, rstd, (2,)).reshape(x._shape) if _needs(ctx, 0) else None]
    if weight is not None:
        grads.append((g * xhat.reshape(x._shape)).sum(dim=axes) if _needs(ctx, 1) else None)
    if attrs["has_bias"]:
        i = len(grads)
        grads.append(g.sum(dim=axes) if _needs(ctx, i) else None)
    return tuple(grads)


# --- dropout, embedding


@_DROPOUT.grad_rule(saves="outputs")
def _dropout_grad(ctx, g, _g_mask=None):
    _, mask = ctx.outputs
    p = ctx.attrs["p"]
    return (g * mask * (0.0 if p >= 1 else 1 / (1 - p)),)


@_EMBEDDING.grad_rule(saves="inputs")
def _embedding_grad(ctx, g):
    F = _F()
    _, idx = ctx.inputs
    (v, d), dtype = ctx.input_meta[0]
    flat = idx.reshape(-1)
    rows = g.reshape(-1, d)
    pad = ctx.attrs.get("padding_idx")
    if pad is not None:
        rows = rows * (flat != pad).unsqueeze(-1)
    if ctx.attrs.get("scale_grad_by_freq"):
        counts = F.zeros((v,), dtype=dtype).index_add(0, flat, F.ones(flat._shape, dtype=dtype))
        rows = rows / F.take(counts, flat).unsqueeze(-1)
    return (F.zeros((v, d), dtype=dtype).index_add(0, flat, rows), None)


# --- attention


@_SDPA.grad_rule(saves="inputs")
def _sdpa_grad(ctx, g):
    F = _F()
    attrs = ctx.attrs
    if attrs["dropout_p"] > 0:
        raise NotImplementedError("the derivative of scaled_dot_product_attention with dropout_p > 0 is not implemented (its mask is not saved)")
    q, k, v, *mask = ctx.inputs
    rep = attrs["gqa_repeat"]
    kr = k.repeat_interleave(rep, dim=-3) if rep != 1 else k
    vr = v.repeat_interleave(rep, dim=-3) if rep != 1 else v
    scale = attrs["scale"]
    s = F.matmul(q, kr.transpose(-1, -2)) * scale
    length, src_len = q._shape[-2], k._shape[-2]
    if mask:
        m = mask[0]
        s = F.where(m, s, float("-inf")) if m._dtype is _dt.bool_ else s + m
    if attrs["is_causal"]:
        s = F.where(_F().ones((length, src_len), dtype=_dt.bool_).tril(), s, float("-inf"))
    p = F.softmax(s, -1)
    p = F.where(F.isnan(p), 0.0, p)  # fully masked rows are zeros
    dp = F.matmul(g, vr.transpose(-1, -2))
    ds = p * (dp - (dp * p).sum(dim=-1, keepdim=True))

    def unrepeat(t, shape):
        if rep != 1:
            t = sum_to(t, (*t._shape[:-3], shape[-3] * rep, *t._shape[-2:]))
            t = t.reshape(*t._shape[:-3], shape[-3], rep, *t._shape[-2:]).sum(dim=-3)
        return sum_to(t, shape)

    grads = [
        sum_to(F.matmul(ds, kr) * scale, q._shape) if _needs(ctx, 0) else None,
        unrepeat(F.matmul(ds.transpose(-1, -2), q) * scale, k._shape) if _needs(ctx, 1) else None,
        unrepeat(F.matmul(p.transpose(-1, -2), g), v._shape) if _needs(ctx, 2) else None,
    ]
    if mask:
        grads.append(sum_to(ds, mask[0]._shape) if mask[0]._dtype is not _dt.bool_ and _needs(ctx, 3) else None)
    return tuple(grads)
