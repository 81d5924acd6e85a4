"""``tf.nn``'s convolutions and pooling: TensorFlow's layouts (NHWC / NWC by default, filters
HWIO), its strides and ksize lists, and its padding: "VALID", explicit pairs, or "SAME", where the
output has ceil(in / stride) positions and the padding it takes is split with the odd one after.

ember's kernels are channels-first, so a channels-last input goes in as a transposed view and
the result comes out as a contiguous NHWC copy (a view there made graph plans fall back from the
static executor: 1.27x the NCHW train step before, 1.07-1.12x after; benchmarks/cases/tf_compat.py).
Padding that ember's ops cannot take
(one-sided) is made by ``pad`` first; pooling pads with -inf (max) or divides by the count of
real elements (average), as TensorFlow does.
"""

from __future__ import annotations

import math

import numpy as np

from ...._core.tensor import Tensor
from ....graph.sources import constant
from ....ops import functional as F
from ._common import convert, convert_like, named, op_scope, rank_of, static_shape

__all__ = [
    "atrous_conv2d",
    "avg_pool",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv3d",
    "convolution",
    "depth_to_space",
    "depthwise_conv2d",
    "max_pool",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "separable_conv2d",
    "space_to_depth",
]

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_MAX_POOL = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
_AVG_POOL = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}
_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}
# the TensorFlow node type a function's result shows (its node is ember's transpose back to NHWC)
_TF_TYPES = {
    "Conv2D": "Conv2D",
    "Conv3D": "Conv3D",
    "depthwise": "DepthwiseConv2dNative",
    "MaxPool": "MaxPool",
    "MaxPool2d": "MaxPool",
    "MaxPool3D": "MaxPool3D",
    "AvgPool": "AvgPool",
    "AvgPool2D": "AvgPool",
    "AvgPool3D": "AvgPool3D",
}


def _channels_last(data_format: str | None, nd: int, op: str) -> bool:
    last, first = _FORMATS[nd]
    if data_format is None or data_format == last:
        return True
    if data_format == first:
        return False
    raise ValueError(f"{op}(): data_format must be {last!r} or {first!r}, got {data_format!r}")


def _spatial(arg, nd: int, channels_last: bool, op: str, what: str, default: int | None = None) -> list[int]:
    """A window attribute (strides, ksize, dilations) as one int per spatial dimension; TensorFlow
    takes an int, a list of 1, of ``nd`` or of ``nd + 2`` (then batch and channels must be 1)."""
    if arg is None:
        if default is None:
            raise ValueError(f"{op}(): {what} is required")
        return [default] * nd
    values = [int(arg)] * nd if isinstance(arg, (int, np.integer)) else [int(v) for v in arg]
    if len(values) == 1:
        values = values * nd
    elif len(values) == nd + 2:
        outer = (values[0], values[-1]) if channels_last else (values[0], values[1])
        if outer != (1, 1):
            raise ValueError(f"{op}(): {what} in the batch and depth dimensions must be 1, got {list(arg)}")
        values = values[1:-1] if channels_last else values[2:]
    elif len(values) != nd:
        raise ValueError(f"{op}(): {what} must be an int or a list of 1, {nd} or {nd + 2} ints, got {list(arg)}")
    if any(v < 1 for v in values):
        raise ValueError(f"{op}(): {what} must be positive, got {list(arg)}")
    return values


def _pads(padding, sizes, kernel, strides, dilations, channels_last: bool, op: str) -> list[tuple[int, int]]:
    """(before, after) per spatial dimension for TensorFlow's ``padding``."""
    nd = len(kernel)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return [(0, 0)] * nd
        if mode != "SAME":
            raise ValueError(f"{op}(): padding must be 'SAME', 'VALID' or a list of pairs, got {padding!r}")
        pads = []
        for size, k, s, d in zip(sizes, kernel, strides, dilations, strict=True):
            if size is None:
                raise ValueError(
                    f"{op}(): padding='SAME' needs the spatial dimensions known when the graph is built, got {sizes}"
                )
            out = -(-size // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            pads.append((total // 2, total - total // 2))
        return pads
    pairs = [tuple(int(v) for v in p) for p in padding]
    if len(pairs) != nd + 2 or any(len(p) != 2 for p in pairs):
        raise ValueError(f"{op}(): explicit padding must be {nd + 2} pairs, got {padding!r}")
    outer = (pairs[0], pairs[-1]) if channels_last else (pairs[0], pairs[1])
    if outer != ((0, 0), (0, 0)):
        raise ValueError(f"{op}(): explicit padding in the batch and depth dimensions must be 0, got {padding!r}")
    return pairs[1:-1] if channels_last else pairs[2:]


def _to_first(x: Tensor, channels_last: bool) -> Tensor:
    return F.movedim(x, -1, 1) if channels_last else x


def _from_first(x: Tensor, channels_last: bool) -> Tensor:
    return F.movedim(x, 1, -1).contiguous() if channels_last else x


def _torch_pad(pads: list[tuple[int, int]]) -> tuple[int, ...]:
    """``pad``'s argument (last dimension first) from (before, after) per spatial dimension."""
    return tuple(v for pair in reversed(pads) for v in pair)


def _conv(x, filters, strides, padding, dilations, data_format, nd: int, op: str, name, default_name: str):
    x = convert(x, op, "input")
    w = convert_like(filters, x, op, "filters")
    if rank_of(x) != nd + 2:
        raise ValueError(f"{op}(): input must be of rank {nd + 2}, got shape {static_shape(x)}")
    if rank_of(w) != nd + 2:
        raise ValueError(f"{op}(): filters must be of rank {nd + 2}, got shape {static_shape(w)}")
    last = _channels_last(data_format, nd, op)
    strides = _spatial(strides, nd, last, op, "strides")
    dilations = _spatial(dilations, nd, last, op, "dilations", default=1)
    if any(s > 1 for s in strides) and any(d > 1 for d in dilations):
        raise ValueError(f"{op}(): strides > 1 are not supported together with dilations > 1 (TensorFlow's rule)")
    shape = static_shape(x)
    sizes = shape[1:-1] if last else shape[2:]
    depth = shape[-1] if last else shape[1]
    wshape = static_shape(w)
    kernel, in_depth = wshape[:nd], wshape[nd]
    if depth is not None and depth % in_depth:
        raise ValueError(f"{op}(): Depth of input ({depth}) is not a multiple of input depth of filter ({in_depth})")
    groups = 1 if depth is None else depth // in_depth
    pads = _pads(padding, sizes, kernel, strides, dilations, last, op)
    with op_scope(name, default_name) as scope:
        xf = _to_first(x, last)
        weight = F.permute(w, (nd + 1, nd, *range(nd)))  # HWIO -> OIHW
        if all(a == b for a, b in pads):
            y = _CONV[nd](xf, weight, None, strides, [a for a, _ in pads], dilations, groups)
        else:
            y = _CONV[nd](F.pad(xf, _torch_pad(pads)), weight, None, strides, 0, dilations, groups)
        return named(_from_first(y, last), scope, _TF_TYPES.get(default_name))


def conv2d(
    input,  # noqa: A002 - TensorFlow's name
    filter=None,  # noqa: A002 - TensorFlow's name
    strides=None,
    padding=None,
    use_cudnn_on_gpu=True,
    data_format="NHWC",
    dilations=None,
    name=None,
    filters=None,
):
    """2-D convolution of an NHWC ``input`` with an HWIO ``filter``.

    ``strides`` and ``dilations`` are an int or a list of 1, 2 or 4; ``padding`` is "SAME",
    "VALID" or a list of 4 (before, after) pairs.

    >>> import numpy as np, ember.compat.v1 as tf
    >>> x = np.ones((1, 4, 4, 1), np.float32); w = np.ones((2, 2, 1, 1), np.float32)
    >>> tf.nn.conv2d(x, w, strides=2, padding="SAME").shape
    ember.Size([1, 2, 2, 1])
    """
    filters = _one_of(filter, filters, "conv2d", "filter", "filters")
    return _conv(input, filters, strides, padding, dilations, data_format, 2, "conv2d", name, "Conv2D")


def conv1d(
    value=None,
    filters=None,
    stride=None,
    padding=None,
    use_cudnn_on_gpu=None,
    data_format=None,
    name=None,
    input=None,  # noqa: A002 - TensorFlow's name
    dilations=None,
):
    """1-D convolution of an NWC ``value`` with a WIO ``filters``."""
    value = _one_of(value, input, "conv1d", "value", "input")
    return _conv(value, filters, stride, padding, dilations, data_format, 1, "conv1d", name, "conv1d")


def _one_of(a, b, op: str, first: str, second: str):
    if a is not None and b is not None:
        raise ValueError(f"{op}(): cannot specify both '{first}' and '{second}'")
    if a is None and b is None:
        raise ValueError(f"{op}(): '{first}' is required")
    return a if a is not None else b


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None, dilations=None):  # noqa: A002 - TensorFlow's names
    """Each input channel convolved with its own ``channel_multiplier`` filters: ``filter`` is
    [h, w, in_channels, channel_multiplier] and output channel ``c * multiplier + m`` comes
    from input channel c and filter m."""
    x = convert(input, "depthwise_conv2d", "input")
    w = convert_like(filter, x, "depthwise_conv2d", "filter")
    kh, kw, cin, mult = static_shape(w)
    dilations = dilations if dilations is not None else rate
    grouped = F.reshape(w, (kh, kw, 1, cin * mult))  # groups = cin, one input channel per group
    return _conv(x, grouped, strides, padding, dilations, data_format, 2, "depthwise_conv2d", name, "depthwise")


def conv2d_transpose(
    value=None,
    filter=None,  # noqa: A002 - TensorFlow's name
    output_shape=None,
    strides=None,
    padding="SAME",
    data_format="NHWC",
    name=None,
    input=None,  # noqa: A002 - TensorFlow's name
    filters=None,
    dilations=None,
):
    """The gradient of ``conv2d`` with respect to its input: ``filter`` is [h, w, out_channels,
    in_channels] and ``output_shape`` the shape of the result (the input of that conv2d); its
    spatial dimensions and channels must be known when the graph is built (its batch may be a
    tensor)."""
    op = "conv2d_transpose"
    x = convert(_one_of(value, input, op, "value", "input"), op, "value")
    w = convert_like(_one_of(filter, filters, op, "filter", "filters"), x, op, "filter")
    last = _channels_last(data_format, 2, op)
    strides = _spatial(strides, 2, last, op, "strides")
    dilations = _spatial(dilations, 2, last, op, "dilations", default=1)
    if output_shape is None:
        raise ValueError(f"{op}(): output_shape is required")
    if isinstance(output_shape, Tensor):
        raise ValueError(
            f"{op}(): output_shape must be a list (its batch entry may be a tensor); a tensor's values are not known when the graph is built"
        )
    out_shape = list(output_shape)
    if len(out_shape) != 4:
        raise ValueError(f"{op}(): output_shape must have 4 elements, got {out_shape}")
    out_sizes = out_shape[1:3] if last else out_shape[2:]
    out_depth = out_shape[3] if last else out_shape[1]
    if any(isinstance(v, Tensor) for v in [*out_sizes, out_depth]):
        raise ValueError(f"{op}(): the spatial and channel entries of output_shape must be ints, got {out_shape}")
    out_sizes = [int(v) for v in out_sizes]
    kh, kw, f_out, f_in = static_shape(w)
    shape = static_shape(x)
    in_sizes = shape[1:3] if last else shape[2:]
    in_depth = shape[3] if last else shape[1]
    if int(out_depth) != f_out or (in_depth is not None and in_depth != f_in):
        raise ValueError(
            f"{op}(): filter {static_shape(w)} needs {f_in} input and {f_out} output channels, "
            f"got input channels {in_depth} and output_shape {out_shape}"
        )
    # the forward conv2d of an output_shape-sized input must give the input's sizes
    pads = _pads(padding, out_sizes, [kh, kw], strides, dilations, last, op)
    crop = []
    for size, n_in, k, s, d, (before, after) in zip(out_sizes, in_sizes, (kh, kw), strides, dilations, pads, strict=True):
        expected = (size + before + after - (k - 1) * d - 1) // s + 1
        if n_in is not None and expected != n_in:
            raise ValueError(
                f"{op}(): output_shape {out_shape} with padding {padding!r} would come from an input of size {expected}, not {n_in}"
            )
        full = (n_in - 1) * s + (k - 1) * d + 1 if n_in is not None else None
        if full is None:
            raise ValueError(f"{op}(): the input's spatial dimensions must be known when the graph is built, got {shape}")
        crop.append((-before, size - (full - before)))
    with op_scope(name, "conv2d_transpose") as scope:
        weight = F.permute(w, (3, 2, 0, 1))  # [h, w, out, in] -> [in, out, h, w]
        y = F.conv_transpose2d(_to_first(x, last), weight, None, strides, 0, 0, 1, dilations)
        if any(c != (0, 0) for c in crop):
            y = F.pad(y, _torch_pad(crop))
        return named(_from_first(y, last), scope, "Conv2DBackpropInput")


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC", dilations=None, name=None, filters=None):  # noqa: A002 - TensorFlow's names
    """3-D convolution of an NDHWC ``input`` with a DHWIO ``filter``; ``strides`` a list of 5."""
    filters = _one_of(filter, filters, "conv3d", "filter", "filters")
    return _conv(input, filters, strides, padding, dilations, data_format, 3, "conv3d", name, "Conv3D")


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None, data_format=None, filters=None,  # noqa: A002
                dilations=None):  # fmt: skip
    """The N-D convolution the input's rank asks for (conv1d, conv2d or conv3d)."""
    filters = _one_of(filter, filters, "convolution", "filter", "filters")
    if dilation_rate is not None and dilations is not None:
        raise ValueError("convolution(): cannot specify both 'dilation_rate' and 'dilations'")
    nd = rank_of(convert(input, "convolution", "input")) - 2
    if nd not in _CONV:
        raise ValueError(f"convolution(): input must be of rank 3, 4 or 5, got shape {static_shape(input)}")
    strides = 1 if strides is None else strides
    return _conv(
        input, filters, strides, padding, dilation_rate or dilations, data_format, nd, "convolution", name, "convolution"
    )


def atrous_conv2d(value, filters, rate, padding, name=None):
    """``conv2d`` with stride 1 and every ``rate``-th input taken by the filter (dilation)."""
    return _conv(value, filters, 1, padding, int(rate), "NHWC", 2, "atrous_conv2d", name, "convolution")


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None, name=None, data_format=None,  # noqa: A002
                     dilations=None):  # fmt: skip
    """``depthwise_conv2d`` then a 1x1 ``conv2d`` with ``pointwise_filter`` [1, 1, in * multiplier, out]."""
    with op_scope(name, "separable_conv2d") as scope:
        depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding, rate, None, data_format, dilations)
        return named(conv2d(depthwise, pointwise_filter, 1, "VALID", data_format=data_format or "NHWC"), scope)


def space_to_depth(input, block_size, name=None, data_format="NHWC"):  # noqa: A002 - TensorFlow's names
    """Each block_size x block_size spatial block moved into the channels (NHWC), in the order
    (row in block, column in block, channel)."""
    x = convert(input, "space_to_depth", "input")
    _, h, w, c = _nhwc_dims(x, data_format, "space_to_depth")
    b = int(block_size)
    if h is None or w is None or h % b or w % b:
        raise ValueError(f"space_to_depth(): height and width ({h}, {w}) must be known and divisible by block_size {b}")
    with op_scope(name, "SpaceToDepth") as scope:
        y = F.reshape(_to_nhwc(x, data_format), (-1, h // b, b, w // b, b, c))
        y = F.reshape(F.permute(y, (0, 1, 3, 2, 4, 5)), (-1, h // b, w // b, b * b * c))
        return named(_from_nhwc(y, data_format), scope)


def depth_to_space(input, block_size, name=None, data_format="NHWC"):  # noqa: A002 - TensorFlow's names
    """The inverse of ``space_to_depth``: channels moved into block_size x block_size spatial blocks."""
    x = convert(input, "depth_to_space", "input")
    _, h, w, c = _nhwc_dims(x, data_format, "depth_to_space")
    b = int(block_size)
    if h is None or w is None or c is None or c % (b * b):
        raise ValueError(f"depth_to_space(): the depth {c} must be known and divisible by block_size**2 = {b * b}")
    with op_scope(name, "DepthToSpace") as scope:
        y = F.reshape(_to_nhwc(x, data_format), (-1, h, w, b, b, c // (b * b)))
        y = F.reshape(F.permute(y, (0, 1, 3, 2, 4, 5)), (-1, h * b, w * b, c // (b * b)))
        return named(_from_nhwc(y, data_format), scope)


def _nhwc_dims(x: Tensor, data_format: str, op: str) -> list:
    if rank_of(x) != 4:
        raise ValueError(f"{op}(): input must be of rank 4, got shape {static_shape(x)}")
    shape = static_shape(x)
    return shape if _channels_last(data_format, 2, op) else [shape[0], *shape[2:], shape[1]]


def _to_nhwc(x: Tensor, data_format: str) -> Tensor:
    return x if data_format == "NHWC" else F.movedim(x, 1, -1)


def _from_nhwc(x: Tensor, data_format: str) -> Tensor:
    return x if data_format == "NHWC" else F.movedim(x, -1, 1).contiguous()


def _pool(value, ksize, strides, padding, data_format, name, kind: str, op: str, default_name: str):
    x = convert(value, op, "value")
    nd = rank_of(x) - 2
    if nd not in (1, 2, 3):
        raise ValueError(f"{op}(): input must be of rank 3, 4 or 5, got shape {static_shape(x)}")
    last = _channels_last(data_format, nd, op)
    kernel = _spatial(ksize, nd, last, op, "ksize")
    strides = _spatial(strides, nd, last, op, "strides")
    shape = static_shape(x)
    sizes = shape[1:-1] if last else shape[2:]
    pads = _pads(padding, sizes, kernel, strides, [1] * nd, last, op)
    with op_scope(name, default_name) as scope:
        xf = _to_first(x, last)
        if kind == "max":
            if all(a == b for a, b in pads):
                y = _MAX_POOL[nd](xf, kernel, strides, [a for a, _ in pads])
            else:
                y = _MAX_POOL[nd](F.pad(xf, _torch_pad(pads), value=-math.inf), kernel, strides)
        elif all(a == b for a, b in pads):  # ember's count_include_pad=False is TensorFlow's average
            y = _AVG_POOL[nd](xf, kernel, strides, [a for a, _ in pads], False, False)
        else:
            y = F.mul(
                _AVG_POOL[nd](F.pad(xf, _torch_pad(pads)), kernel, strides), _count_correction(sizes, kernel, strides, pads, x)
            )
        return named(_from_first(y, last), scope, _TF_TYPES.get(default_name))


def _count_correction(sizes, kernel, strides, pads, like: Tensor) -> Tensor:
    """window size / real elements in the window, per output position: turns an average over
    a zero-padded window into TensorFlow's average over the real elements."""
    factor = np.ones((), np.float64)
    for size, k, s, (before, after) in zip(sizes, kernel, strides, pads, strict=True):
        starts = np.arange((size + before + after - k) // s + 1) * s - before
        real = np.minimum(starts + k, size) - np.maximum(starts, 0)
        factor = np.multiply.outer(factor, k / real)
    return constant(factor.astype(like.dtype.numpy_dtype))


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002 - TensorFlow's names
    """The maximum over each window; SAME padding never wins (it is -inf)."""
    value = _one_of(value, input, "max_pool", "value", "input")
    return _pool(value, ksize, strides, padding, data_format, name, "max", "max_pool", "MaxPool")


def _pool_of_rank(rank: int, input, ksize, strides, padding, data_format, name, kind: str, op: str, default_name: str):  # noqa: A002
    if rank_of(convert(input, op, "input")) != rank:
        raise ValueError(f"{op}(): input must be of rank {rank}, got shape {static_shape(input)}")
    return _pool(input, ksize, strides, padding, data_format, name, kind, op, default_name)


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002 - TensorFlow's names
    """``max_pool`` of a 3-D (NWC) input."""
    return _pool_of_rank(3, input, ksize, strides, padding, data_format, name, "max", "max_pool1d", "MaxPool1d")


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002 - TensorFlow's names
    """``max_pool`` of a 4-D input."""
    return _pool_of_rank(4, input, ksize, strides, padding, data_format, name, "max", "max_pool2d", "MaxPool2d")


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002 - TensorFlow's names
    """``max_pool`` of a 5-D (NDHWC) input."""
    return _pool_of_rank(5, input, ksize, strides, padding, data_format, name, "max", "max_pool3d", "MaxPool3D")


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002 - TensorFlow's names
    """The mean over each window, of the real elements only where SAME padding reaches past the edge."""
    value = _one_of(value, input, "avg_pool", "value", "input")
    return _pool(value, ksize, strides, padding, data_format, name, "avg", "avg_pool", "AvgPool")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002 - TensorFlow's names
    """``avg_pool`` of a 3-D (NWC) input."""
    return _pool_of_rank(3, input, ksize, strides, padding, data_format, name, "avg", "avg_pool1d", "AvgPool1D")


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002 - TensorFlow's names
    """``avg_pool`` of a 4-D input."""
    return _pool_of_rank(4, input, ksize, strides, padding, data_format, name, "avg", "avg_pool2d", "AvgPool2D")


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002 - TensorFlow's names
    """``avg_pool`` of a 5-D (NDHWC) input."""
    return _pool_of_rank(5, input, ksize, strides, padding, data_format, name, "avg", "avg_pool3d", "AvgPool3D")
