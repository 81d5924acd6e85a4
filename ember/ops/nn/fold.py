"""Sliding blocks: ``nn.functional.unfold`` (im2col) and ``nn.functional.fold`` (col2im).

``unfold`` turns a (N, C, H, W) image into the (N, C * kh * kw, L) matrix whose column ``l``
holds the ``l``-th kernel-sized block (zero-padded, dilated, strided; blocks in row-major
order); ``fold`` sums such columns back into an image, overlapping blocks adding up. Each is the
other's adjoint, so each one's derivative is the other. Both take an unbatched input too
((C, H, W) and (C * kh * kw, L)). The entries live in the ``nn.functional`` namespace only, as
in PyTorch (``ember.unfold`` is the Tensor view ``x.unfold(dim, size, step)``). Kernels:
``ember/kernels/cpu/nn/fold.py``.

>>> import ember
>>> F = ember.nn.functional
>>> F.unfold(ember.arange(4.0).reshape(1, 1, 2, 2), 1).tolist()
[[[0.0, 1.0, 2.0, 3.0]]]
>>> F.fold(ember.ones(1, 4, 4), (3, 3), 2).tolist()
[[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ..args import to_int_list
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family

declare = schema_family("nn")

__all__ = ["sliding_blocks"]


def sliding_blocks(size, kernel, dilation, padding, stride) -> tuple[int, int]:
    """How many blocks fit along each of the two spatial axes (may be < 1 for a bad call)."""
    return tuple(
        (s + 2 * p - (d * (k - 1) + 1)) // st + 1 for s, k, d, p, st in zip(size, kernel, dilation, padding, stride, strict=True)
    )


def _pair(fn: str, value, name: str, position: int) -> tuple[int, int]:
    """An int for both spatial axes, or exactly two ints (PyTorch's ``_pair``, then its size check)."""
    values = to_int_list(value, fn, name, position)
    if not isinstance(value, (list, tuple)) and not (isinstance(value, Tensor) and value.ndim == 1):
        return values * 2  # one int (or 0-d tensor) for both
    if len(values) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(values)}")
    return values


def _block_args(fn: str, kernel_size, dilation, padding, stride, first: int = 2) -> tuple:
    """The four block arguments as pairs, checked with PyTorch's messages."""
    names = ("kernel_size", "dilation", "padding", "stride")
    pairs = [
        _pair(fn, v, n, first + i) for i, (v, n) in enumerate(zip((kernel_size, dilation, padding, stride), names, strict=True))
    ]
    _check_block_args(*pairs)
    return tuple(pairs)


def _check_block_args(kernel, dilation, padding, stride) -> None:
    if min(kernel) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kernel_height: {kernel[0]} kernel_width: {kernel[1]}"
        )
    if min(stride) <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {stride[0]} stride_width: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
        )
    if min(padding) < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {padding[0]} pad_width: {padding[1]}")


def _check_dtype(op: str, dtype) -> None:
    # PyTorch's kernels take the floating, complex and bool dtypes, not the integers
    if dtype is _dt.string or _dt.isdtype(dtype, "integral"):
        raise NotImplementedError(f"\"{op}_out_cpu\" not implemented for '{torch_name(dtype)}'")


def _tuple(values) -> str:
    return f"({', '.join(map(str, values))})"


# --- unfold (im2col) ----------------------------------------------------------------------------

declare(
    "nn.functional.unfold",
    "Tensor (Tensor input, Object kernel_size, Object dilation=1, Object padding=0, Object stride=1) => Im2col",
    op="im2col",
    doc="""
    The kernel-sized blocks of a (N, C, H, W) or (C, H, W) input as columns: (N, C * kh * kw, L),
    L the number of blocks. Padding is zeros.

    >>> ember.nn.functional.unfold(ember.ones(2, 3, 5, 6), (2, 3), stride=2).shape
    ember.Size([2, 18, 4])
    """,
)


@functor("Im2col")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    kernel_size, dilation, padding, stride = _block_args("unfold", kernel_size, dilation, padding, stride)
    shape = input._shape
    if input.ndim not in (3, 4) or any(s == 0 for s in shape[-3:]):
        raise RuntimeError(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, "
            f"but got: {list(shape)}"
        )
    _check_dtype("im2col", input._dtype)
    blocks = sliding_blocks(shape[-2:], kernel_size, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size {_tuple(shape[-2:])}, kernel_size={_tuple(kernel_size)}, dilation={_tuple(dilation)}, "
            f"padding={_tuple(padding)}, calculated shape of the array of sliding blocks as {_tuple(blocks)}, "
            "but its components must be at least one."
        )
    batched = input.ndim == 4
    x = input if batched else input.unsqueeze(0)
    attrs = {"kernel_size": tuple(kernel_size), "dilation": tuple(dilation), "padding": tuple(padding), "stride": tuple(stride)}
    y = dispatch(_IM2COL, (x,), attrs)[0]
    return y if batched else y.squeeze(0)


_IM2COL = OpExpr("im2col", ("input",), ("out",))


@_IM2COL.shape_rule
def _im2col_infer(attrs, x):
    n, c, h, w = x._shape
    blocks = sliding_blocks((h, w), attrs["kernel_size"], attrs["dilation"], attrs["padding"], attrs["stride"])
    return (((n, c * math.prod(attrs["kernel_size"]), math.prod(blocks)), x._dtype),)


@_IM2COL.grad_rule(saves="none")
def _im2col_grad(ctx, g):
    shape, _ = ctx.input_meta[0]
    return (dispatch(_COL2IM, (g,), {**ctx.attrs, "output_size": tuple(shape[-2:])})[0],)


# --- fold (col2im) ------------------------------------------------------------------------------

declare(
    "nn.functional.fold",
    "Tensor (Tensor input, Object output_size, Object kernel_size, Object dilation=1, Object padding=0, Object stride=1) => Col2im",
    op="col2im",
    doc="""
    Sums (N, C * kh * kw, L) columns of blocks (or unbatched (C * kh * kw, L)) back into a
    (N, C, *output_size) image; where blocks overlap their values add up. The adjoint of unfold.

    >>> F = ember.nn.functional
    >>> x = ember.arange(12.0).reshape(1, 1, 3, 4)
    >>> bool((F.fold(F.unfold(x, 2, stride=2, padding=1), (3, 4), 2, stride=2, padding=1) == x).all())
    True
    """,
)


@functor("Col2im")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    output_size = _pair("fold", output_size, "output_size", 2)
    kernel_size, dilation, padding, stride = _block_args("fold", kernel_size, dilation, padding, stride, first=3)
    shape = input._shape
    if input.ndim not in (2, 3) or any(s == 0 for s in shape[-2:]):
        raise RuntimeError(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, "
            f"but got: {list(shape)}"
        )
    taps = math.prod(kernel_size)
    if shape[-2] % taps:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
            f"but got input.size(1)={shape[-2]} and kernel_size={_tuple(kernel_size)}."
        )
    blocks = sliding_blocks(output_size, kernel_size, dilation, padding, stride)
    given = (
        f"Given output_size={_tuple(output_size)}, kernel_size={_tuple(kernel_size)}, dilation={_tuple(dilation)}, "
        f"padding={_tuple(padding)}, stride={_tuple(stride)}"
    )
    if shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"{given}, expected size of input's dimension 2 to match the calculated number of sliding blocks "
            f"{blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got input.size(2)={shape[-1]}."
        )
    if min(blocks) < 1:
        raise RuntimeError(
            f"{given}, calculated shape of the array of sliding blocks as {_tuple(blocks)}, which is too small (non-positive)"
        )
    _check_dtype("col2im", input._dtype)
    batched = input.ndim == 3
    x = input if batched else input.unsqueeze(0)
    attrs = {
        "output_size": tuple(output_size), "kernel_size": tuple(kernel_size), "dilation": tuple(dilation),
        "padding": tuple(padding), "stride": tuple(stride),
    }  # fmt: skip
    y = dispatch(_COL2IM, (x,), attrs)[0]
    return y if batched else y.squeeze(0)


_COL2IM = OpExpr("col2im", ("input",), ("out",))


@_COL2IM.shape_rule
def _col2im_infer(attrs, x):
    n, rows, _ = x._shape
    return (((n, rows // math.prod(attrs["kernel_size"]), *attrs["output_size"]), x._dtype),)


@_COL2IM.grad_rule(saves="none")
def _col2im_grad(ctx, g):
    attrs = {k: ctx.attrs[k] for k in ("kernel_size", "dilation", "padding", "stride")}
    return (dispatch(_IM2COL, (g,), attrs)[0],)
