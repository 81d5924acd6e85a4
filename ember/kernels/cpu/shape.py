"""CPU kernels of the shape ops (the copying ones; view ops have no kernel).

Each writes into ``outs[0]``, which the interpreter allocated with the inferred shape and dtype
(or which is the input itself for the in-place variants: ``tril_``...). Inputs may be strided.
"""

from __future__ import annotations

import numpy as np

from ...dispatch.opexpr import register_kernel


def _copy(dst: np.ndarray, src: np.ndarray) -> None:
    if src.dtype.kind == "c" and dst.dtype.kind != "c":
        src = src.real
    np.copyto(dst, src, casting="unsafe")


def named(fn, name: str):
    """``fn`` under its own name and code object (``ember.trace`` tells kernels apart by code)."""
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)
    fn.__name__ = fn.__qualname__ = name
    return fn


def same_memory(a: np.ndarray, b: np.ndarray) -> bool:
    """The same elements at the same addresses (an in-place op's input and output)."""
    return a.ctypes.data == b.ctypes.data and a.strides == b.strides and a.shape == b.shape


@register_kernel("reshape_copy")
def reshape_copy(outs, ins, attrs):
    _copy(outs[0].reshape(ins[0].shape), ins[0])


@register_kernel("cat")
def cat(outs, ins, attrs):
    out = outs[0]
    arrays = [a for a in ins if not (a.ndim == 1 and a.shape[0] == 0)]
    if not arrays or out.size == 0:
        return
    d = attrs["dim"] % out.ndim
    if any(a.dtype.kind == "c" for a in arrays) and out.dtype.kind != "c":
        arrays = [a.real if a.dtype.kind == "c" else a for a in arrays]
    if all(a.dtype == out.dtype for a in arrays):
        np.concatenate(arrays, axis=d, out=out)
        return
    start = 0  # mixed dtypes (bfloat16 has no concatenate casts): one copy per piece
    for a in arrays:
        n = a.shape[d]
        np.copyto(out[(slice(None),) * d + (slice(start, start + n),)], a, casting="unsafe")
        start += n


@register_kernel("flip")
def flip(outs, ins, attrs):
    dims = attrs["dims"]
    x = ins[0]
    np.copyto(outs[0], np.flip(x, dims) if dims else x)


@register_kernel("roll")
def roll(outs, ins, attrs):
    x, out = ins[0], outs[0]
    dims = attrs["dims"]
    if x.size == 0:
        return
    if dims is None:
        np.copyto(out, np.roll(x, attrs["shifts"][0]))
    else:
        np.copyto(out, np.roll(x, attrs["shifts"], dims))


@register_kernel("repeat")
def repeat(outs, ins, attrs):
    out = outs[0]
    repeats = attrs["repeats"]
    x = ins[0]
    if out.size == 0:
        return
    x = x.reshape((1,) * (len(repeats) - x.ndim) + x.shape)
    # out (r0*s0, r1*s1, ...) seen as (r0, s0, r1, s1, ...), x broadcast into it: no temporary
    interleaved = tuple(v for r, s in zip(repeats, x.shape, strict=True) for v in (r, s))
    source = x.reshape(tuple(v for s in x.shape for v in (1, s)))
    np.copyto(out.reshape(interleaved), source)


@register_kernel("repeat_interleave")
def repeat_interleave(outs, ins, attrs):
    x, repeats = ins
    out = outs[0]
    if out.size == 0:
        return
    r = repeats.reshape(-1)
    if r.size == 1:
        r = r[0]
    elif r.min() < 0:
        raise RuntimeError("repeat_interleave(): repeats can not be negative")
    result = np.repeat(x, r, axis=attrs["dim"])
    if result.shape != out.shape:
        raise RuntimeError(
            f"repeat_interleave(): output_size {out.shape[attrs['dim']]} does not match the sum of repeats {result.shape[attrs['dim']]}"
        )
    np.copyto(out, result)


_NUMPY_PAD_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@register_kernel("pad")
def pad(outs, ins, attrs):
    x, out = ins[0], outs[0]
    pads, mode = attrs["pad"], attrs["mode"]
    ndim = x.ndim
    # (left, right) per dimension, first dimension first
    widths = [(0, 0)] * ndim
    for i in range(len(pads) // 2):
        widths[ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    # negative pads crop the input first
    crop = tuple(slice(max(-left, 0), x.shape[d] - max(-right, 0)) for d, (left, right) in enumerate(widths))
    x = x[crop]
    grow = [(max(left, 0), max(right, 0)) for left, right in widths]
    if out.size == 0:
        return
    if mode == "constant":
        out.fill(attrs["value"])
        inner = tuple(slice(left, left + n) for (left, _), n in zip(grow, x.shape, strict=True))
        _copy(out[inner], x)
    else:
        _copy(out, np.pad(x, grow, mode=_NUMPY_PAD_MODES[mode]))


def _triangle_kernel(lower: bool):
    def kernel(outs, ins, attrs):
        x, out = ins[0], outs[0]
        k = attrs["diagonal"]
        if not same_memory(x, out):  # in place (tril_) writes over its input
            _copy(out, x)
        rows, cols = out.shape[-2:]
        # zero where the kept triangle is not
        drop = ~np.tri(rows, cols, k, dtype=bool) if lower else np.tri(rows, cols, k - 1, dtype=bool)
        np.copyto(out, np.zeros((), out.dtype), where=drop)

    return kernel


register_kernel("tril")(named(_triangle_kernel(True), "tril_cpu"))
register_kernel("triu")(named(_triangle_kernel(False), "triu_cpu"))


@register_kernel("diag")
def diag(outs, ins, attrs):
    x, out = ins[0], outs[0]
    k = attrs["diagonal"]
    if x.ndim == 1:
        out.fill(0)
        n = x.shape[0]
        rows = np.arange(n) + max(-k, 0)
        out[rows, rows + k] = x
    else:
        np.copyto(out, np.diagonal(x, k))


@register_kernel("diag_embed")
def diag_embed(outs, ins, attrs):
    x, out = ins[0], outs[0]
    offset = attrs["offset"]
    ndim = out.ndim
    a, b = attrs["dim1"] % ndim, attrs["dim2"] % ndim
    out.fill(0)
    n = x.shape[-1]
    if out.size == 0 or n == 0:
        return
    o = np.moveaxis(out, (a, b), (-2, -1))
    rows = np.arange(n) + max(-offset, 0)
    o[..., rows, rows + offset] = x
