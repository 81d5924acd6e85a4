"""The three FFT primitives every ``fft.*`` function dispatches, as ATen's ``_fft_c2c``,
``_fft_r2c`` and ``_fft_c2r``, and what the public functions share to reach them.

- ``fft_c2c(x; dim, normalization, forward)``: complex to complex over ``dim``.
- ``fft_r2c(x; dim, normalization, onesided, forward)``: real to complex; ``onesided`` keeps the
  last transformed dim's ``n // 2 + 1`` non-redundant outputs; ``forward=False`` gives the
  inverse transform (the conjugate of the forward one, ``ifft``/``ihfft`` of a real signal).
- ``fft_c2r(x; dim, normalization, last_dim_size, forward)``: a one-sided Hermitian signal to a
  real one (``irfft``); ``forward=True`` transforms the conjugate instead (``hfft``).

``normalization`` is a scale, not a direction: 0 none, 1 ``1/sqrt(n)``, 2 ``1/n``, with ``n``
the product of the signal's sizes (the real side's for r2c/c2r). ``norm_mode`` turns the
user's ``norm`` string into it. The derivatives are PyTorch's (``derivatives.yaml``:
``fft_r2c_backward``, ``fft_c2r_backward``), written with these primitives so they differentiate
again.

>>> import ember
>>> ember.fft.fft(ember.tensor([1.0, 0.0, 0.0, 0.0])).tolist()
[(1+0j), (1+0j), (1+0j), (1+0j)]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.shape import wrap_dim
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import functional as _F
from ..reduction import torch_name

__all__ = [
    "C2C", "C2R", "R2C", "canonical_shape_and_dims", "check_out_kind", "check_points", "fft_dim", "norm_mode", "promote",
    "resize", "run",
]  # fmt: skip

NORMS = {None: (0, 2), "backward": (0, 2), "forward": (2, 0), "ortho": (1, 1)}  # (forward's scale, inverse's)


def norm_mode(norm, forward: bool) -> int:
    """PyTorch's ``norm_from_string``: the scale (0 none, 1 by sqrt(n), 2 by n) of a transform's direction."""
    if not isinstance(norm, str | None) or norm not in NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return NORMS[norm][0 if forward else 1]


def promote(x, *, complex_: bool):
    """PyTorch's ``promote_tensor_fft``: integers and bool go to the default float; float16 and
    bfloat16 are refused (the CPU has no half-precision FFT); ``complex_`` makes a real one complex."""
    dtype = x._dtype
    if dtype.is_complex:
        return x
    if not dtype.is_floating_point:
        dtype = _dt.get_default_dtype()
    if dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError(f"Unsupported dtype {torch_name(dtype)}")
    if complex_:
        dtype = dtype.to_complex()
    return x if dtype is x._dtype else x.to(dtype)


def fft_dim(dim: int, ndim: int, op: str) -> int:
    """``dim`` made non-negative; a 0-d tensor has no dim to transform (PyTorch's ``wrap_scalar=False``)."""
    if ndim == 0:
        wrap_dim(dim, 1, op)  # the type check and message of a bad dim first
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim, op)


def check_points(n: int) -> int:
    """``n``, the points of a transform, when there is at least one."""
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def resize(x, dims: tuple, sizes: tuple):
    """``x`` zero-padded or trimmed to ``sizes`` along ``dims`` (PyTorch's ``resize_fft_input``), with
    ember's ops so gradients flow through."""
    F = _F()
    for d, n in zip(dims, sizes, strict=True):
        have = x._shape[d]
        if n < have:
            x = F.FUNCTIONS["narrow"](x, d, 0, n)
        elif n > have:
            zeros = F.FUNCTIONS["zeros"]((*x._shape[:d], n - have, *x._shape[d + 1 :]), dtype=x._dtype)
            x = F.FUNCTIONS["cat"]([x, zeros], d)
    return x


def canonical_shape_and_dims(x, s, dim, op: str) -> tuple[tuple, tuple]:
    """PyTorch's ``canonicalize_fft_shape_and_dim_args``: the signal sizes and the dims of an n-d transform."""
    ndim = x.ndim
    dims = None
    if dim is not None:
        dims = tuple(fft_dim(d, ndim, op) for d in ([dim] if isinstance(dim, int) else dim))
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        s = tuple([s] if isinstance(s, int) else s)
        if dims is not None and len(dims) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        if dims is None:
            dims = tuple(range(ndim - len(s), ndim))
        sizes = tuple(x._shape[d] if n == -1 else n for n, d in zip(s, dims, strict=True))
    else:
        dims = tuple(range(ndim)) if dims is None else dims
        sizes = tuple(x._shape[d] for d in dims)
    for n in sizes:
        check_points(n)
    return sizes, dims


def check_out_kind(op: str, out, *, complex_: bool) -> None:
    """PyTorch's check of an ``out=`` tensor's kind: complex results need a complex one, real results a floating one."""
    if out is None:
        return
    if complex_ and not out._dtype.is_complex:
        raise RuntimeError(f"{op} expects a complex output tensor, but got {torch_name(out._dtype)}")
    if not complex_ and not out._dtype.is_floating_point:
        raise RuntimeError(f"{op} expects a floating point output tensor, but got {torch_name(out._dtype)}")


def run(op: OpExpr, x, attrs: dict, out=None):
    """Dispatch one primitive, into ``out`` when given."""
    if out is None:
        return dispatch(op, (x,), attrs)[0]
    return dispatch(op, (x,), attrs, (out,))[0]


def _attr_key(attrs: dict) -> tuple:
    return tuple(attrs.values())


# Global tensors: a split of a dim the transform does not touch passes, and so does a partial sum
# (the transforms are linear); a partial max or min is gathered first.
_ALONG_DIMS = sbp_rules.shape.along("dim", partials=("sum",))


# --- complex to complex -------------------------------------------------------------------------


C2C = OpExpr("fft_c2c", ("self",), ("out",)).tag(sbp=_ALONG_DIMS)
C2C.attr_key = _attr_key


@C2C.shape_rule
def _c2c_infer(attrs, x):
    if not x._dtype.is_complex:
        raise RuntimeError(f"fft_c2c expects a complex input tensor, but got {torch_name(x._dtype)}")
    return ((x._shape, x._dtype),)


@C2C.grad_rule(saves="none")
def _c2c_grad(ctx, g):
    a = ctx.attrs
    return (run(C2C, g, {"dim": a["dim"], "normalization": a["normalization"], "forward": not a["forward"]}),)


# --- real to complex ---------------------------------------------------------------------------


R2C = OpExpr("fft_r2c", ("self",), ("out",)).tag(sbp=_ALONG_DIMS)
R2C.attr_key = _attr_key


@R2C.shape_rule
def _r2c_infer(attrs, x):
    if x._dtype not in (_dt.float32, _dt.float64):
        raise RuntimeError(f"fft_r2c expects a float32 or float64 input tensor, but got {torch_name(x._dtype)}")
    shape = list(x._shape)
    if attrs["onesided"] and attrs["dim"]:
        last = attrs["dim"][-1]
        shape[last] = shape[last] // 2 + 1
    return ((tuple(shape), x._dtype.to_complex()),)


@R2C.grad_rule(saves="none")
def _r2c_grad(ctx, g):
    a = ctx.attrs
    dims = a["dim"]
    if not a["forward"]:  # the inverse is the forward transform's conjugate
        g = g.conj()
    if a["onesided"] and dims:  # the dropped half of the spectrum had no gradient: zeros
        last = dims[-1]
        g = resize(g, (last,), (ctx.input_meta[0][0][last],))
    full = run(C2C, g, {"dim": dims, "normalization": a["normalization"], "forward": False})
    return (_F().FUNCTIONS["real"](full),)


# --- complex to real ---------------------------------------------------------------------------


C2R = OpExpr("fft_c2r", ("self",), ("out",)).tag(sbp=_ALONG_DIMS)
C2R.attr_key = _attr_key


@C2R.shape_rule
def _c2r_infer(attrs, x):
    if not x._dtype.is_complex:
        raise RuntimeError(f"fft_c2r expects a complex input tensor, but got {torch_name(x._dtype)}")
    shape = list(x._shape)
    shape[attrs["dim"][-1]] = attrs["last_dim_size"]
    return ((tuple(shape), x._dtype.to_real()),)


@C2R.grad_rule(saves="none")
def _c2r_grad(ctx, g):
    a = ctx.attrs
    dims = a["dim"]
    half = run(R2C, g, {"dim": dims, "normalization": a["normalization"], "onesided": True, "forward": True})
    # each bin between DC and Nyquist stands for itself and its mirror image: twice the gradient
    last = dims[-1]
    bins = half._shape[last]
    doubled = g._shape[last] - bins
    if doubled > 0:
        F = _F().FUNCTIONS  # factories, so a global gradient's weights are global too (the ambient placement)
        pieces = [(1, 1.0), (doubled, 2.0), (bins - 1 - doubled, 1.0)]
        w = F["cat"]([F["full"]((k,), v, dtype=g._dtype) for k, v in pieces if k], 0)
        w = w.reshape((bins,) + (1,) * (half.ndim - 1 - last))
        half = half * w
    return (half.conj() if a["forward"] else half,)
