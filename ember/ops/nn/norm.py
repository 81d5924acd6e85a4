"""Normalization: batch_norm (batch statistics in training, updating the running estimates
in place), layer_norm, rms_norm and group_norm, each with optional affine parameters.

Half-type inputs keep their statistics in float32 and accept float32 parameters, as PyTorch
does. Kernels: ``ember/kernels/cpu/nn/norm.py``.

>>> import ember
>>> [f"{v:.3f}" for v in ember.layer_norm(ember.tensor([1.0, 3.0]), (2,)).tolist()]
['-1.000', '1.000']
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ...dispatch.grad_mode import is_grad_enabled
from .. import sbp_rules
from ..common import grad_recording
from ..functor import functor
from ..schema import schema_family
from ._common import _as_dtype, _check_floating, _needs, _size

declare = schema_family("nn", namespaces=("nn.functional",))


_HALF = (_dt.float16, _dt.bfloat16)


def _stat_dtype(dtype: _dt.DType) -> _dt.DType:
    """Statistics of half-type inputs are float32, as PyTorch keeps them."""
    return _dt.float32 if dtype in _HALF else dtype


def _check_param_dtype(op: str, arg: str, t, dtype: _dt.DType) -> None:
    if t is not None and t._dtype is not dtype and not (dtype in _HALF and t._dtype is _dt.float32):
        raise RuntimeError(f"{op}(): mixed dtypes: {arg} is {t._dtype.name} but input is {dtype.name}; parameters must have the input's dtype")


def _normalize_backward(gxh, xhat, rstd, dims):
    """d/dx of xhat = (x - mean) * rstd over ``dims``, contracted with ``gxh``."""
    return rstd * (gxh - gxh.mean(dim=dims, keepdim=True) - xhat * (gxh * xhat).mean(dim=dims, keepdim=True))


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
        if t is not None and arg.startswith("running") and t.ndim != 1:  # the running statistics are updated in place, per channel
            raise RuntimeError(f"batch_norm(): {arg} must be 1-D with {c} elements, but got a tensor of size {list(t._shape)}")
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


_BATCH_NORM = OpExpr("batch_norm", ("input", "running_mean", "running_var", "weight", "bias"), ("out", "mean", "var"))


@_BATCH_NORM.shape_rule
def _batch_norm_infer(attrs, x, *params):
    stat = ((x._shape[1],), _stat_dtype(x._dtype))
    return ((x._shape, x._dtype), stat, stat)


# PyTorch's native_batch_norm saves its input, parameters and statistics, never its output: so
# BatchNorm followed by ReLU(inplace=True) works. (Inputs are positional: in training without
# running statistics the kept positions also take the bias, which nothing writes in place.)
@_BATCH_NORM.grad_rule(saves=("input", "running_mean", "running_var", "weight", "mean", "var"))
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
    if attrs["training"] and not is_grad_enabled():
        # a first-order backward: one fused kernel (a create_graph backward takes the
        # differentiable composite below). The engine hands zeros for the unused statistics'
        # gradients; the kernel folds them into its per-channel constants at no cost.
        _, mean, var = ctx.outputs
        ins = [g, x, mean, var] + [t for t in (weight, g_mean, g_var) if t is not None]
        flags = {"eps": eps, "has_weight": weight is not None, "has_g_mean": g_mean is not None, "has_g_var": g_var is not None}
        gx, gw, gb = dispatch(_BATCH_NORM_BACKWARD, tuple(ins), flags)
        if _needs(ctx, 0):
            grads[0] = gx
        if i_w is not None and _needs(ctx, i_w):
            grads[i_w] = _as_dtype(gw, weight._dtype)
        if i_b is not None and _needs(ctx, i_b):
            grads[i_b] = _as_dtype(gb, ctx.input_meta[i_b][1])
        return tuple(grads)
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


# training-mode batch norm's input, weight and bias gradients from the saved statistics, in one
# kernel; first-order only (no grad rule: a create_graph backward uses the composite formula)
_BATCH_NORM_BACKWARD = OpExpr(
    "batch_norm_backward", ("grad_output", "input", "mean", "var", "weight", "grad_mean", "grad_var"), ("grad_input", "grad_weight", "grad_bias")
)


@_BATCH_NORM_BACKWARD.shape_rule
def _batch_norm_backward_infer(attrs, g, x, *stats):
    stat = ((x._shape[1],), x._dtype)
    return ((x._shape, x._dtype), stat, stat)


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


def _same_infer(attrs, x, *params):
    return ((x._shape, x._dtype),)


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


_LAYER_NORM = OpExpr("layer_norm", ("input", "weight", "bias"), ("out",)).tag(sbp=sbp_rules.nn.norm)
_LAYER_NORM.shape_rule(_same_infer)


# layer_norm's gradients in one kernel, for backward without create_graph: one dispatch in place
# of about fifteen (the composite below is what double backward and global tensors differentiate).
# ``output_mask`` says which of input, weight and bias gradients to compute.
_LAYER_NORM_BACKWARD = OpExpr("layer_norm_backward", ("grad_output", "input", "weight"), ("grad_input", "grad_weight", "grad_bias"))
_LAYER_NORM_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_LAYER_NORM_BACKWARD.attr_key = lambda attrs: (attrs["ndim"], attrs["output_mask"])


@_LAYER_NORM_BACKWARD.shape_rule
def _layer_norm_backward_infer(attrs, g, x, *weight):
    params = (x._shape[x.ndim - attrs["ndim"] :], x._dtype)
    return tuple(spec for spec, need in zip(((x._shape, x._dtype), params, params), attrs["output_mask"], strict=True) if need)


def _layer_norm_backward(ctx, g):
    """The one-kernel gradients, or None where the composite must run (a graph recorded, global
    tensors, or dtypes that differ)."""
    attrs = ctx.attrs
    x, *params = ctx.inputs
    if grad_recording() or x.is_global or g._dtype is not x._dtype or g._shape != x._shape:
        return None
    if any(meta[1] is not x._dtype for meta in ctx.input_meta[1:]):
        return None
    has_w, has_b = attrs["has_weight"], attrs["has_bias"]
    mask = (_needs(ctx, 0), has_w and _needs(ctx, 1), has_b and _needs(ctx, 1 + has_w))
    inputs = (g, x, params[0]) if has_w else (g, x)
    results = iter(dispatch(_LAYER_NORM_BACKWARD, inputs, {"ndim": attrs["ndim"], "eps": attrs["eps"], "output_mask": mask}) if any(mask) else ())
    grads = [next(results) if mask[0] else None]
    if has_w:
        grads.append(next(results) if mask[1] else None)
    if has_b:
        grads.append(next(results) if mask[2] else None)
    return tuple(grads)


@_LAYER_NORM.grad_rule(saves="inputs")
def _layer_norm_grad(ctx, g):
    fast = _layer_norm_backward(ctx, g)
    if fast is not None:
        return fast
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


_RMS_NORM = OpExpr("rms_norm", ("input", "weight"), ("out",)).tag(sbp=sbp_rules.nn.norm)
_RMS_NORM.shape_rule(_same_infer)


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


_GROUP_NORM = OpExpr("group_norm", ("input", "weight", "bias"), ("out",))
_GROUP_NORM.shape_rule(_same_infer)


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
