"""Convolutions: conv1d/2d/3d and conv_transpose1d/2d/3d, all one ``convolution`` primitive.

The functors check arguments with PyTorch's messages and resolve the padding (ints, 'same' or
'valid') to (lo, hi) pairs. A convolution's input gradient is a transposed convolution (and
vice versa); its weight gradient is a primitive of its own, one im2col and one matmul.
Kernels: ``ember/kernels/cpu/nn/conv.py``.

>>> import ember
>>> ember.conv1d(ember.ones((1, 1, 3)), ember.ones((1, 1, 2))).tolist()
[[[2.0, 2.0]]]
"""

from __future__ import annotations

from ...dispatch import OpExpr, dispatch
from ..functor import functor
from ..schema import schema_family
from ._common import _check_numeric, _needs

declare = schema_family("nn", namespaces=("nn.functional",))


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

    return run


def _conv_transpose_functor(name: str, nd: int):
    def run(input, weight, bias, stride, padding, output_padding, groups, dilation):
        return _convolution(name, nd, input, weight, bias, stride, padding, dilation, groups, True, output_padding)

    return run


declare(
    "conv1d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, Object padding=0, IntList dilation=1, Int groups=1) => Conv1d",
    op="convolution",
    doc="""
    1-D convolution (cross-correlation) of (N, C, L) or (C, L) input; ``padding`` may be ints, 'same' or 'valid'.
    """,
)
functor("Conv1d")(_conv_functor("conv1d", 1))

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
functor("Conv2d")(_conv_functor("conv2d", 2))

declare(
    "conv3d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, Object padding=0, IntList dilation=1, Int groups=1) => Conv3d",
    op="convolution",
    doc="3-D convolution of (N, C, D, H, W) or (C, D, H, W) input.",
)
functor("Conv3d")(_conv_functor("conv3d", 3))

declare(
    "conv_transpose1d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, IntList padding=0, IntList output_padding=0, Int groups=1, IntList dilation=1) => ConvTranspose1d",
    op="convolution",
    doc="1-D transposed convolution; ``weight`` is (C_in, C_out / groups, kL).",
)
functor("ConvTranspose1d")(_conv_transpose_functor("conv_transpose1d", 1))

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
functor("ConvTranspose2d")(_conv_transpose_functor("conv_transpose2d", 2))

declare(
    "conv_transpose3d",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None, IntList stride=1, IntList padding=0, IntList output_padding=0, Int groups=1, IntList dilation=1) => ConvTranspose3d",
    op="convolution",
    doc="3-D transposed convolution.",
)
functor("ConvTranspose3d")(_conv_transpose_functor("conv_transpose3d", 3))


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


# the input gradient is the transposed convolution (and vice versa), the weight gradient a
# convolution of the input by the output gradient (batch and channels swapped)
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


def _conv_input_grad(g, w, attrs, spatial):
    """d conv(x, w) / d x contracted with ``g`` (a transposed convolution) for an input of ``spatial`` size."""
    kernel = w._shape[2:]
    op = tuple(s - ((o - 1) * st - lo - hi + d * (k - 1) + 1)
               for s, o, st, (lo, hi), d, k in zip(spatial, g._shape[2:], attrs["stride"], attrs["padding"], attrs["dilation"], kernel,
                                                   strict=True))
    sub = {"stride": attrs["stride"], "padding": attrs["padding"], "dilation": attrs["dilation"], "groups": attrs["groups"],
           "transposed": True, "output_padding": op}
    return dispatch(_CONV, (g, w), sub)[0]


def _conv_weight_grad(inp, gout, attrs, kernel):
    """d conv(inp, w) / d w contracted with ``gout``: (C_gout, C_inp / groups, *kernel)."""
    sub = {"stride": attrs["stride"], "padding": attrs["padding"], "dilation": attrs["dilation"], "groups": attrs["groups"],
           "kernel_size": tuple(kernel)}
    return dispatch(_CONV_BACKWARD_WEIGHT, (inp, gout), sub)[0]


# the weight gradient of a (non-transposed) convolution as its own primitive: one im2col and
# one matmul, where a convolution of the input by the output gradient has a skinny im2col
_CONV_BACKWARD_WEIGHT = OpExpr("convolution_backward_weight", ("input", "grad_output"), ("out",))


@_CONV_BACKWARD_WEIGHT.shape_rule
def _conv_backward_weight_infer(attrs, x, gout):
    return (((gout._shape[1], x._shape[1] // attrs["groups"], *attrs["kernel_size"]), x._dtype),)


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
