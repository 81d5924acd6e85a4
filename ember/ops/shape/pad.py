"""``pad``: a copy with borders added (or cropped, for negative amounts) in one of PyTorch's four
modes: constant, reflect, replicate, circular.

>>> import ember
>>> ember.pad(ember.tensor([[1, 2]]), (1, 2), value=9).tolist()
[[9, 1, 2, 9, 9]]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..._core.literals import check_fill_value
from ...dispatch import OpExpr
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from ._common import in_shape, run, scatter_back

declare = schema_family("shape")

__all__: list[str] = []


declare(
    "pad",
    'Tensor (Tensor input, IntList pad, String mode="constant", Float? value=None) => Pad',
    namespaces="nn.functional",
    doc="""
    Padding (left, right) pairs for the last dim first, then the one before... (PyTorch's order).
    mode: constant (value, default 0; negative pads crop), reflect, replicate or circular.

    >>> ember.pad(ember.tensor([[1, 2]]), (1, 2), value=9).tolist()
    [[9, 1, 2, 9, 9]]
    >>> ember.pad(ember.tensor([[1., 2., 3.]]), (2, 1), mode="reflect").tolist()
    [[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]
    """,
)
@functor("Pad")
def pad(input, pad, mode="constant", value=None):
    if mode != "constant" and value is not None and value != 0:
        raise RuntimeError(f'pad(): Padding mode "{mode}" doesn\'t take in value argument.')
    return run(_PAD, (input,), {"pad": pad, "mode": mode, "value": 0 if value is None else value})


_PAD_MODES = ("constant", "reflect", "replicate", "circular")
_PAD = OpExpr("pad", ("input",), ("out",))


@_PAD.shape_rule
def _infer_pad(attrs, x):
    pad, mode = attrs["pad"], attrs["mode"]
    ndim = len(x._shape)
    if len(pad) % 2:
        raise RuntimeError(f"pad(): Padding length must be divisible by 2, got {len(pad)}")
    if len(pad) // 2 > ndim:
        raise RuntimeError(
            f"pad(): Padding length should be less than or equal to two times the input dimension but got padding length {len(pad)} and input of dimension {ndim}"
        )
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"pad(): Unrecognised padding mode {mode} (expected one of {', '.join(_PAD_MODES)})")
    if mode == "constant" and x._dtype is not _dt.string:
        check_fill_value(attrs["value"], x._dtype, "pad")  # the constant must fit the dtype, as a fill value does
    shape = list(x._shape)
    for i in range(len(pad) // 2):
        d = ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        size = shape[d]
        if mode == "reflect" and (left >= size or right >= size):
            raise RuntimeError(
                f"pad(): Padding size should be less than the corresponding input dimension, but got: padding ({left}, {right}) at dimension {d} of input {list(x._shape)}"
            )
        if mode == "circular" and (left > size or right > size):
            raise RuntimeError(
                f"pad(): Padding value causes wrapping around more than once (padding ({left}, {right}) at dimension {d} of size {size})"
            )
        if mode == "replicate" and size == 0 and (left > 0 or right > 0):
            raise RuntimeError(f"pad(): cannot replicate-pad dimension {d} of size 0")
        new = size + left + right
        if new < 0:
            raise RuntimeError(
                f"pad(): The input size {size}, plus negative padding {left} and {right} resulted in a negative output size, "
                f"which is invalid. Check dimension {d} of your input."
            )
        shape[d] = new
    return ((tuple(shape), x._dtype),)


@_PAD.grad_rule(saves="none")
def _pad_grad(ctx, g):
    pad, mode = ctx.attrs["pad"], ctx.attrs["mode"]
    shape = in_shape(ctx)
    if mode == "constant":
        return (_F().pad(g, tuple(-p for p in pad)),)
    # the other modes read some input elements several times: add g back where each was read
    base = _F().arange(math.prod(shape)).reshape(shape)
    pos = _F().pad(base, pad, mode=mode)
    return (scatter_back(g, pos, shape),)
