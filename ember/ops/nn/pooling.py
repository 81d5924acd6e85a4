"""Pooling over (N, C, *spatial) or unbatched (C, *spatial) input: max_pool1d/2d/3d (with
indices on request), avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d and adaptive_max_pool1d/2d/3d
(with indices on request).

Max pooling's input gradient is a primitive of its own (``max_pool_backward``: every window's
winning tap, found again in one pass); in training on disjoint windows inside the input, the
forward (``max_pool_taps``) keeps each window's winning tap and ``max_pool_taps_backward``
scatters the gradient there without reading the input again; average pooling's is a transposed convolution by a
kernel of ones; adaptive pooling's applies the transposes of the per-axis averaging matrices
(``adaptive_matrix``) that its CPU kernel applies forward; adaptive max pooling always finds its
indices and routes the gradient through them, as PyTorch's does. Kernels:
``ember/kernels/cpu/nn/pooling.py``.

>>> adaptive_matrix(4, 2, np.dtype(np.float64)).tolist()
[[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]]
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ...dispatch.grad_mode import is_grad_enabled
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import _apply_matrices, _check_floating, _const, _needs, _not_implemented, _np_dtype
from .conv import _CONV

declare = schema_family("nn", namespaces=("nn.functional",))

__all__ = ["adaptive_matrix"]


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


def _empty_pool_message(name: str, nd: int, shape: tuple) -> str:
    """PyTorch's words for a pooling input with an empty non-batch dimension (each kernel has its own)."""
    if nd == 3:
        where = "max_pool3d_with_indices_out_cpu_template" if name.startswith("max") else name
        first = next(i for i, s in enumerate(shape[-4:]) if s == 0)  # PyTorch says 0 whichever it is
        return (
            f"{where}(): Expected input's non-batch dimensions to have positive length, but input has a shape of "
            f"{list(shape)} and non-batch dimension {first} has length zero!"
        )
    if name == "avg_pool1d":  # PyTorch pools 1-D through 2-D: the message shows the unsqueezed shape
        shape, nd = (*shape[:-1], 1, shape[-1]), 2
    prefix = "max_pool1d: " if name == "max_pool1d" else ""
    return f"{prefix}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional 0 dim batch size for input, but got:{list(shape)}"


def _pool_setup(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode):
    if input.ndim not in (nd + 1, nd + 2):
        if name == "max_pool1d":
            raise RuntimeError(_empty_pool_message(name, nd, input._shape))
        raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    if any(s == 0 for s in input._shape[-nd - 1 :]):  # a zero batch passes, an empty channel or spatial dim does not
        raise RuntimeError(_empty_pool_message(name, nd, input._shape))
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


# ---------------------------------------------------------------------------------------
# max pooling


def _max_pool_functor(nd: int):
    name = f"max_pool{nd}d"

    def run(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
        x, batched, attrs = _pool_setup(name, nd, input, kernel_size, stride, padding, dilation, ceil_mode)
        if input._dtype.is_complex or input._dtype is _dt.string:
            raise _not_implemented(name, input._dtype)
        if not return_indices:  # PyTorch's Python wrapper tests its truth, any object
            y = dispatch(_MAX_POOL_TAPS if _keeps_taps(x, attrs) else _MAX_POOL, (x,), attrs)[0]
            return y if batched else y.squeeze(0)
        y, idx = dispatch(_MAX_POOL_INDICES, (x,), attrs)
        return (y, idx) if batched else (y.squeeze(0), idx.squeeze(0))

    return run


declare(
    "max_pool1d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, IntList dilation=1, Bool ceil_mode=False, Object return_indices=False) => MaxPool1d",
    op=("max_pool", "max_pool_with_indices", "max_pool_taps"),
    doc="""
    1-D max pooling; with ``return_indices`` returns (values, indices into the flattened input length).
    """,
)
functor("MaxPool1d")(_max_pool_functor(1))

declare(
    "max_pool2d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, IntList dilation=1, Bool ceil_mode=False, Object return_indices=False) => MaxPool2d",
    op=("max_pool", "max_pool_with_indices", "max_pool_taps"),
    doc="""
    2-D max pooling (stride defaults to kernel_size; padding counts as -inf); with ``return_indices``
    returns (values, indices into each flattened H*W plane).

    >>> ember.max_pool2d(ember.tensor([[[[1.0, 2.0], [3.0, 4.0]]]]), 2).tolist()
    [[[[4.0]]]]
    """,
)
functor("MaxPool2d")(_max_pool_functor(2))

declare(
    "max_pool3d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, IntList dilation=1, Bool ceil_mode=False, Object return_indices=False) => MaxPool3d",
    op=("max_pool", "max_pool_with_indices", "max_pool_taps"),
    doc="3-D max pooling.",
)
functor("MaxPool3d")(_max_pool_functor(3))


_MAX_POOL = OpExpr("max_pool", ("input",), ("out",))
_MAX_POOL_INDICES = OpExpr("max_pool_with_indices", ("input",), ("out", "indices"))


@_MAX_POOL.shape_rule
def _max_pool_infer(attrs, x):
    return ((x._shape[:2] + attrs["output_size"], x._dtype),)


@_MAX_POOL_INDICES.shape_rule
def _max_pool_indices_infer(attrs, x):
    shape = x._shape[:2] + attrs["output_size"]
    return ((shape, x._dtype), (shape, _dt.int64))


@_MAX_POOL.grad_rule(saves="inputs")
def _max_pool_grad(ctx, g):
    (x,) = ctx.inputs
    return (dispatch(_MAX_POOL_BACKWARD, (g, x), ctx.attrs)[0],)


@_MAX_POOL_INDICES.grad_rule(saves="outputs")
def _max_pool_indices_grad(ctx, g, _g_idx=None):
    _, idx = ctx.outputs
    return (_scatter_windows(ctx.input_meta[0][0], idx, g),)


def _scatter_windows(x_shape, idx, g):
    """Gradients ``g`` at the flat spatial positions ``idx`` of an input of ``x_shape``."""
    F = _F()
    n, c = x_shape[:2]
    flat = F.zeros((n, c, math.prod(x_shape[2:])), dtype=g._dtype)
    m = math.prod(idx._shape[2:])  # not -1: an empty batch leaves it ambiguous
    return flat.scatter_add(2, idx.reshape(n, c, m), g.reshape(n, c, m)).reshape(x_shape)


# training on disjoint windows inside the input (2x2 stride 2, say): the forward keeps each
# window's winning tap (int8), so the backward scatters the gradient without reading the input
_MAX_POOL_TAPS = OpExpr("max_pool_taps", ("input",), ("out", "taps"))
_MAX_POOL_TAPS_BACKWARD = OpExpr("max_pool_taps_backward", ("grad_output", "taps"), ("out",))
_MAX_POOL_TAPS_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)


def _keeps_taps(x, attrs) -> bool:
    """Whether this max pooling records a gradient over disjoint windows inside its input."""
    if not (x.requires_grad and is_grad_enabled() and x._dtype.is_floating_point):
        return False
    kernel, stride, dilation = attrs["kernel_size"], attrs["stride"], attrs["dilation"]
    return (math.prod(kernel) < 127 and not any(attrs["padding"])
            and all(st >= d * (k - 1) + 1 and (o - 1) * st + d * (k - 1) < s
                    for k, st, d, o, s in zip(kernel, stride, dilation, attrs["output_size"], x._shape[2:], strict=True)))


@_MAX_POOL_TAPS.shape_rule
def _max_pool_taps_infer(attrs, x):
    shape = x._shape[:2] + attrs["output_size"]
    return ((shape, x._dtype), (shape, _dt.int8))


@_MAX_POOL_TAPS.grad_rule(saves=("input", "taps"))
def _max_pool_taps_grad(ctx, g, _g_taps=None):
    x = ctx.inputs[0]
    if is_grad_enabled():  # create_graph: the differentiable primitive, from the input
        return (dispatch(_MAX_POOL_BACKWARD, (g, x), ctx.attrs)[0],)
    taps = ctx.outputs[1]
    return (dispatch(_MAX_POOL_TAPS_BACKWARD, (g, taps), {**ctx.attrs, "input_size": x._shape})[0],)


@_MAX_POOL_TAPS_BACKWARD.shape_rule
def _max_pool_taps_backward_infer(attrs, g, taps):
    return ((attrs["input_size"], g._dtype),)


# max pooling's input gradient, recomputing the winning tap of every window in one pass
_MAX_POOL_BACKWARD = OpExpr("max_pool_backward", ("grad_output", "input"), ("out",))


@_MAX_POOL_BACKWARD.shape_rule
def _max_pool_backward_infer(attrs, g, x):
    return ((x._shape, g._dtype),)


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


# ---------------------------------------------------------------------------------------
# average pooling


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

    return run


declare(
    "avg_pool1d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, Bool ceil_mode=False, Bool count_include_pad=True) => AvgPool1d",
    op="avg_pool",
    doc="1-D average pooling.",
)
functor("AvgPool1d")(_avg_pool_functor(1))

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
functor("AvgPool2d")(_avg_pool_functor(2))

declare(
    "avg_pool3d",
    "Tensor (Tensor input, IntList kernel_size, IntList? stride=None, IntList padding=0, Bool ceil_mode=False, Bool count_include_pad=True, Int? divisor_override=None) => AvgPool3d",
    op="avg_pool",
    doc="3-D average pooling.",
)
functor("AvgPool3d")(_avg_pool_functor(3))


_AVG_POOL = OpExpr("avg_pool", ("input",), ("out",))
_AVG_POOL.shape_rule(_max_pool_infer)


@_AVG_POOL.grad_rule(saves="none")
def _avg_pool_grad(ctx, g):
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


# ---------------------------------------------------------------------------------------
# adaptive average pooling


def _size_count_error(name: str, nd: int, count: int) -> RuntimeError:
    """PyTorch's words for an output_size of the wrong length (each pool has its own)."""
    if nd == 1:
        return RuntimeError(f"{name}() argument 'output_size' should contain one int (got {count})")
    if name.startswith("adaptive_max"):
        return RuntimeError(f"{name}(): internal error: output_size.size() must be {nd}")
    return RuntimeError(f"{name}: output_size must be {nd}")


def _adaptive_output_size(name: str, nd: int, output_size, spatial) -> tuple:
    """``output_size`` as ``nd`` ints: one int stands for all; for 2-D and 3-D a None entry keeps
    the input's size (PyTorch's 1-D pools take ints only)."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * nd
    try:
        sizes = tuple(output_size)
    except TypeError:
        raise TypeError(f"{name}(): argument 'output_size' must be an int or a tuple of {nd} ints, not {type(output_size).__name__}") from None
    if len(sizes) != nd:
        raise _size_count_error(name, nd, len(sizes))
    out = []
    for s, o in zip(spatial, sizes, strict=True):
        if o is None and nd > 1:
            out.append(s)
        elif isinstance(o, bool) or not hasattr(o, "__index__"):
            raise TypeError(f"{name}(): argument 'output_size' must be a tuple of ints{'' if nd == 1 else ' or None'}, but got {output_size!r}")
        elif int(o) < 0:
            raise RuntimeError(f"{name}(): elements of output_size must be greater than or equal to 0 but received {list(sizes)}")
        else:
            out.append(int(o))
    return tuple(out)


def _adaptive_avg_pool_functor(nd: int):
    name = f"adaptive_avg_pool{nd}d"

    def run(input, output_size):
        # PyTorch's shortcut: an output of all ones is the mean over the last nd dims, taken before
        # (and instead of) the pool's own checks, so any input with nd dims passes (the 1-D pool
        # checks its 2 or 3 dims first); an empty window gives NaN, as mean does
        if input.ndim >= (2 if nd == 1 else nd) and input.ndim <= (3 if nd == 1 else math.inf):
            o_size = _adaptive_output_size(name, nd, output_size, input._shape[-nd:])
            if all(o == 1 for o in o_size):
                return input.mean(dim=tuple(range(-nd, 0)), keepdim=True)
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

    return run


declare(
    "adaptive_avg_pool1d",
    "Tensor (Tensor input, Object output_size) => AdaptiveAvgPool1d",
    op="adaptive_avg_pool",
    doc="Average pooling to a fixed output length.",
)
functor("AdaptiveAvgPool1d")(_adaptive_avg_pool_functor(1))

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
functor("AdaptiveAvgPool2d")(_adaptive_avg_pool_functor(2))

declare(
    "adaptive_avg_pool3d",
    "Tensor (Tensor input, Object output_size) => AdaptiveAvgPool3d",
    op="adaptive_avg_pool",
    doc="3-D average pooling to a fixed output size.",
)
functor("AdaptiveAvgPool3d")(_adaptive_avg_pool_functor(3))


_ADAPTIVE_AVG_POOL = OpExpr("adaptive_avg_pool", ("input",), ("out",))
_ADAPTIVE_AVG_POOL.shape_rule(_max_pool_infer)


@_ADAPTIVE_AVG_POOL.grad_rule(saves="none")
def _adaptive_avg_pool_grad(ctx, g):
    shape, dtype = ctx.input_meta[0]
    nd = len(ctx.attrs["output_size"])
    ct = _np_dtype(dtype)
    mats = [_const(adaptive_matrix(s, o, ct).T.copy(), dtype) for s, o in zip(shape[-nd:], g._shape[-nd:], strict=True)]
    return (_apply_matrices(g, mats),)


def adaptive_matrix(size: int, out: int, ct: np.dtype) -> np.ndarray:
    """The (out, size) matrix of adaptive average pooling along one axis: row ``i`` averages
    the inputs from floor(i * size / out) to ceil((i + 1) * size / out), PyTorch's windows."""
    i = np.arange(out)
    start = (i * size) // out
    end = -((-(i + 1) * size) // out)
    j = np.arange(size)
    inside = (j >= start[:, None]) & (j < end[:, None])
    return inside.astype(ct) / (end - start).astype(ct)[:, None]


# ---------------------------------------------------------------------------------------
# adaptive max pooling


def _adaptive_max_pool_functor(nd: int):
    name = f"adaptive_max_pool{nd}d"

    def run(input, output_size, return_indices=False):
        if input.ndim not in (nd + 1, nd + 2):
            if nd == 1:
                raise RuntimeError(
                    f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
                    f"(while checking arguments for {name})"
                )
            raise RuntimeError(f"{name}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input._shape)}")
        for i in range(1, input.ndim):  # PyTorch: every dimension but the first may not be empty
            if input._shape[i] == 0:
                raise RuntimeError(
                    f"{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes "
                    f"{list(input._shape)} with dimension {i} being empty"
                )
        o_size = _adaptive_output_size(name, nd, output_size, input._shape[-nd:])
        return_indices = bool(return_indices)  # PyTorch's Python wrapper tests its truth, any object
        if not input._dtype.is_floating_point:  # 1-D pools through PyTorch's 2-D kernel, and say so
            raise _not_implemented(f"adaptive_max_pool{max(nd, 2)}d" + ("_cpu" if nd == 3 else ""), input._dtype)
        batched = input.ndim == nd + 2
        x = input if batched else input.unsqueeze(0)
        y, idx = dispatch(_ADAPTIVE_MAX_POOL, (x,), {"output_size": o_size})
        if not batched:
            y, idx = y.squeeze(0), idx.squeeze(0)
        return (y, idx) if return_indices else y

    return run


declare(
    "nn.functional.adaptive_max_pool1d",  # torch.adaptive_max_pool1d (a tuple, always) is not this
    "Tensor (Tensor input, IntList output_size, Object return_indices=False) => AdaptiveMaxPool1d",
    op="adaptive_max_pool",
    doc="""
    Max pooling to a fixed output length: window ``i`` of ``L`` inputs spans floor(i * L / out)
    to ceil((i + 1) * L / out); with ``return_indices`` also the position of each maximum.

    >>> y, i = ember.nn.functional.adaptive_max_pool1d(ember.tensor([[[1.0, 5.0, 2.0, 4.0]]]), 2, True)
    >>> y.tolist(), i.tolist()
    ([[[5.0, 4.0]]], [[[1, 3]]])
    """,
)
functor("AdaptiveMaxPool1d")(_adaptive_max_pool_functor(1))

declare(
    "adaptive_max_pool2d",
    "Tensor (Tensor input, Object output_size, Object return_indices=False) => AdaptiveMaxPool2d",
    op="adaptive_max_pool",
    doc="""
    Max pooling to a fixed output size (an int, or a pair whose None entries keep the input
    size); with ``return_indices`` also each maximum's index into the flattened H * W plane.

    >>> ember.nn.functional.adaptive_max_pool2d(ember.arange(16.0).reshape(1, 4, 4), (2, None)).shape
    ember.Size([1, 2, 4])
    """,
)
functor("AdaptiveMaxPool2d")(_adaptive_max_pool_functor(2))

declare(
    "adaptive_max_pool3d",
    "Tensor (Tensor input, Object output_size, Object return_indices=False) => AdaptiveMaxPool3d",
    op="adaptive_max_pool",
    doc="3-D max pooling to a fixed output size (None entries keep the input size).",
)
functor("AdaptiveMaxPool3d")(_adaptive_max_pool_functor(3))


_ADAPTIVE_MAX_POOL = OpExpr("adaptive_max_pool", ("input",), ("out", "indices"))
_ADAPTIVE_MAX_POOL.shape_rule(_max_pool_indices_infer)


@_ADAPTIVE_MAX_POOL.grad_rule(saves="outputs")
def _adaptive_max_pool_grad(ctx, g, _g_idx=None):
    """PyTorch's adaptive_max_pool backward: each output's gradient added at its maximum's index."""
    _, idx = ctx.outputs
    return (_scatter_windows(ctx.input_meta[0][0], idx, g),)
