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
from .common import broadcast_pair
from .functor import functor

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


@functor("Softmax")
def softmax(input, dim, _stacklevel, dtype):
    dim = _implicit_dim(input.ndim) if dim is None else wrap_dim(dim, input.ndim, "softmax")
    return dispatch(_SOFTMAX, (input,), {"dim": dim, "dtype": dtype})[0]


@functor("LogSoftmax")
def log_softmax(input, dim, _stacklevel, dtype):
    dim = _implicit_dim(input.ndim) if dim is None else wrap_dim(dim, input.ndim, "log_softmax")
    return dispatch(_LOG_SOFTMAX, (input,), {"dim": dim, "dtype": dtype})[0]


@functor("Softmin")
def softmin(input, dim, _stacklevel, dtype):
    from . import functional as F

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
    return dispatch(op, inputs, attrs)[0]


@functor("CrossEntropy")
def cross_entropy(input, target, weight, size_average, ignore_index, reduce, reduction, label_smoothing):
    reduction = _legacy_reduction(reduction, size_average, reduce, "cross_entropy")
    return _nll_like(_CROSS_ENTROPY, "cross_entropy", input, target, weight, ignore_index, reduction, label_smoothing, True)


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


@functor("MseLoss")
def mse_loss(input, target, size_average, reduce, reduction, weight):
    reduction = _legacy_reduction(reduction, size_average, reduce, "mse_loss")
    return _pointwise_loss("mse_loss", input, target, reduction, weight)


@functor("L1Loss")
def l1_loss(input, target, size_average, reduce, reduction, weight):
    reduction = _legacy_reduction(reduction, size_average, reduce, "l1_loss")
    return _pointwise_loss("l1_loss", input, target, reduction, weight)


@functor("SmoothL1Loss")
def smooth_l1_loss(input, target, size_average, reduce, reduction, beta):
    reduction = _legacy_reduction(reduction, size_average, reduce, "smooth_l1_loss")
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    return _pointwise_loss("smooth_l1_loss", input, target, reduction, None, beta=float(beta))


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
        fits = broadcast_pair(out_shape, bias._shape) == out_shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"linear(): bias of size {list(bias._shape)} cannot be added to the output of size {list(out_shape)}")
    return dispatch(_LINEAR, (input, weight, bias))[0]


_BILINEAR = OpExpr("bilinear", ("input1", "input2", "weight", "bias"), ("out",))


@_BILINEAR.shape_rule
def _bilinear_infer(attrs, x1, x2, w, *bias):
    return (((*x1._shape[:-1], w._shape[0]), x1._dtype),)


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


_AVG_POOL = OpExpr("avg_pool", ("input",), ("out",))
_AVG_POOL.shape_rule(_max_pool_infer)


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
            running_mean.mul_(1 - momentum).add_(mean * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var * (momentum * n / (n - 1)))
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


@functor("LayerNorm")
def layer_norm(input, normalized_shape, weight, bias, eps):
    _check_floating("LayerNormKernelImpl", input._dtype)
    k = _normalized_shape_check("layer_norm", input, normalized_shape, weight, bias)
    inputs = (input, *tuple(t for t in (weight, bias) if t is not None))
    attrs = {"ndim": k, "eps": float(eps), "has_weight": weight is not None, "has_bias": bias is not None}
    return dispatch(_LAYER_NORM, inputs, attrs)[0]


@functor("RmsNorm")
def rms_norm(input, normalized_shape, weight, eps):
    _check_floating("rms_norm", input._dtype)
    k = _normalized_shape_check("rms_norm", input, normalized_shape, weight, None)
    if eps is None:
        eps = _dt.finfo(_dt.float64 if input._dtype is _dt.float64 else _dt.float32).eps
    inputs = (input,) if weight is None else (input, weight)
    return dispatch(_RMS_NORM, inputs, {"ndim": k, "eps": float(eps)})[0]


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


@functor("Dropout")
def dropout(input, p, training, inplace, generator):
    return _dropout("dropout", input, p, training, inplace, generator, input._shape)


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


@_EMBEDDING.shape_rule
def _embedding_infer(attrs, w, idx):
    return ((idx._shape + w._shape[1:], w._dtype),)


@_EMBEDDING_RENORM.shape_rule
def _embedding_renorm_infer(attrs, w, idx):
    return ((w._shape, w._dtype),)


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
    if max_norm is not None:
        attrs = {"max_norm": float(max_norm), "norm_type": float(norm_type)}
        dispatch(_EMBEDDING_RENORM, (weight, input), attrs, (weight,))
    return dispatch(_EMBEDDING, (weight, input))[0]


_ONE_HOT = OpExpr("one_hot", ("input",), ("out",))


@_ONE_HOT.shape_rule
def _one_hot_infer(attrs, x):
    return (((*x._shape, attrs["num_classes"]), _dt.int64),)


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
        from . import functional as F

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
