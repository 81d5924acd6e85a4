"""The discrete Fourier transforms of ``ember.fft`` (PyTorch's ``torch.fft``): ``fft``, ``ifft``,
``rfft``, ``irfft``, ``hfft``, ``ihfft`` and their 2-d and n-d forms.

Each function pads or trims its input to the requested sizes, then dispatches one or two of
the primitives in ``primitives``: a complex signal takes ``fft_c2c``, a real one ``fft_r2c``, a
Hermitian half-spectrum ``fft_c2r``. Results follow PyTorch: float32 gives complex64, float64
complex128, integers and bool compute in the default float dtype, float16 and bfloat16 are
refused (the CPU has no half-precision FFT).

>>> import ember
>>> x = ember.tensor([1.0, 2.0, 3.0, 4.0])
>>> ember.fft.rfft(x).tolist()
[(10+0j), (-2+2j), (-2+0j)]
>>> ember.fft.irfft(ember.fft.rfft(x), n=4).tolist()
[1.0, 2.0, 3.0, 4.0]
"""

from __future__ import annotations

from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family
from .primitives import (
    C2C,
    C2R,
    R2C,
    canonical_shape_and_dims,
    check_out_kind,
    check_points,
    fft_dim,
    norm_mode,
    promote,
    resize,
    run,
)

declare = schema_family("spectral")

_C2C_OR_R2C = ("fft_c2c", "fft_r2c")


def _refuse_complex(op: str, x, what: str = "a real input tensor") -> None:
    if x._dtype.is_complex:
        raise RuntimeError(f"{op} expects {what}, but got {torch_name(x._dtype)}")


# --- one dimension --------------------------------------------------------------------------


def _c2c_1d(op, x, n, dim, norm, forward, out):
    """fft/ifft: a complex signal through c2c, a real one through r2c with both halves."""
    check_out_kind(op, out, complex_=True)
    x = promote(x, complex_=False)
    d = fft_dim(dim, x.ndim, op)
    size = check_points(x._shape[d] if n is None else n)
    x = resize(x, (d,), (size,))
    mode = norm_mode(norm, forward)
    if x._dtype.is_complex:
        return run(C2C, x, {"dim": (d,), "normalization": mode, "forward": forward}, out)
    return run(R2C, x, {"dim": (d,), "normalization": mode, "onesided": False, "forward": forward}, out)


def _r2c_1d(op, x, n, dim, norm, forward, out):
    """rfft/ihfft: a real signal to its one-sided spectrum."""
    _refuse_complex(op, x)
    check_out_kind(op, out, complex_=True)
    x = promote(x, complex_=False)
    d = fft_dim(dim, x.ndim, op)
    size = check_points(x._shape[d] if n is None else n)
    x = resize(x, (d,), (size,))
    return run(R2C, x, {"dim": (d,), "normalization": norm_mode(norm, forward), "onesided": True, "forward": forward}, out)


def _c2r_1d(op, x, n, dim, norm, forward, out):
    """irfft/hfft: a one-sided Hermitian spectrum to the real signal of ``n`` points."""
    check_out_kind(op, out, complex_=False)
    x = promote(x, complex_=True)
    d = fft_dim(dim, x.ndim, op)
    size = check_points(2 * (x._shape[d] - 1) if n is None else n)
    if n is not None:
        x = resize(x, (d,), (size // 2 + 1,))
    attrs = {"dim": (d,), "normalization": norm_mode(norm, forward), "last_dim_size": size, "forward": forward}
    return run(C2R, x, attrs, out)


_ONE_DIM = "Tensor (Tensor input, Int? n=None, Int dim=-1, String? norm=None) => {}"

declare(
    "fft.fft", _ONE_DIM.format("FftFft"), out=True, op=_C2C_OR_R2C,
    doc="""
    The discrete Fourier transform along ``dim`` (``n`` points: zero-padded or trimmed).

    >>> ember.fft.fft(ember.tensor([0.0, 1.0, 0.0, 0.0])).tolist()
    [(1+0j), -1j, (-1+0j), 1j]
    """,
)  # fmt: skip
@functor("FftFft")
def fft_fft(input, n=None, dim=-1, norm=None, out=None):
    return _c2c_1d("fft", input, n, dim, norm, True, out)


declare(
    "fft.ifft", _ONE_DIM.format("FftIfft"), out=True, op=_C2C_OR_R2C,
    doc="""
    The inverse discrete Fourier transform along ``dim``: ``ifft(fft(x)) == x``.

    >>> ember.fft.ifft(ember.tensor([4j, 0, 0, 0])).tolist()
    [1j, 1j, 1j, 1j]
    """,
)  # fmt: skip
@functor("FftIfft")
def fft_ifft(input, n=None, dim=-1, norm=None, out=None):
    return _c2c_1d("ifft", input, n, dim, norm, False, out)


declare(
    "fft.rfft", _ONE_DIM.format("FftRfft"), out=True, op="fft_r2c",
    doc="""
    The Fourier transform of a real signal: its ``n // 2 + 1`` non-negative frequencies.

    >>> ember.fft.rfft(ember.tensor([1.0, 1.0, 1.0, 1.0])).tolist()
    [(4+0j), 0j, 0j]
    """,
)  # fmt: skip
@functor("FftRfft")
def fft_rfft(input, n=None, dim=-1, norm=None, out=None):
    return _r2c_1d("rfft", input, n, dim, norm, True, out)


declare(
    "fft.irfft", _ONE_DIM.format("FftIrfft"), out=True, op="fft_c2r",
    doc="""
    The inverse of ``rfft``: a real signal of ``n`` points (default ``2 * (m - 1)``) from its half spectrum.

    >>> ember.fft.irfft(ember.tensor([4.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """,
)  # fmt: skip
@functor("FftIrfft")
def fft_irfft(input, n=None, dim=-1, norm=None, out=None):
    return _c2r_1d("irfft", input, n, dim, norm, False, out)


declare(
    "fft.hfft", _ONE_DIM.format("FftHfft"), out=True, op="fft_c2r",
    doc="""
    The Fourier transform of a Hermitian-symmetric signal given by its first half: a real result.

    >>> ember.fft.hfft(ember.tensor([1.0, 0.0, 0.0])).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """,
)  # fmt: skip
@functor("FftHfft")
def fft_hfft(input, n=None, dim=-1, norm=None, out=None):
    return _c2r_1d("hfft", input, n, dim, norm, True, out)


declare(
    "fft.ihfft", _ONE_DIM.format("FftIhfft"), out=True, op="fft_r2c",
    doc="""
    The inverse of ``hfft``: the half spectrum (``n // 2 + 1`` points) whose ``hfft`` is the real input.

    >>> ember.fft.ihfft(ember.tensor([1.0, 1.0, 1.0, 1.0])).real.tolist()
    [1.0, 0.0, 0.0]
    """,
)  # fmt: skip
@functor("FftIhfft")
def fft_ihfft(input, n=None, dim=-1, norm=None, out=None):
    return _r2c_1d("ihfft", input, n, dim, norm, False, out)


# --- n dimensions -----------------------------------------------------------------------------


def _c2c_nd(op, x, s, dim, norm, forward, out):
    """fftn/ifftn: every input through c2c (a real one made complex, as PyTorch does)."""
    check_out_kind(op, out, complex_=True)
    sizes, dims = canonical_shape_and_dims(x, s, dim, op)
    x = resize(promote(x, complex_=True), dims, sizes)
    return run(C2C, x, {"dim": dims, "normalization": norm_mode(norm, forward), "forward": forward}, out)


def _r2c_nd(op, x, s, dim, norm, forward, out):
    """rfftn/ihfftn: the last of ``dims`` one-sided through r2c, the others through c2c."""
    _refuse_complex(op, x, "a real-valued input tensor")
    check_out_kind(op, out, complex_=True)
    sizes, dims = canonical_shape_and_dims(x, s, dim, op)
    if not dims:
        raise RuntimeError(f"{op} must transform at least one axis")
    x = resize(promote(x, complex_=False), dims, sizes)
    mode = norm_mode(norm, forward)
    if forward:  # rfftn: r2c computes every dim at once
        return run(R2C, x, {"dim": dims, "normalization": mode, "onesided": True, "forward": True}, out)
    half = run(R2C, x, {"dim": dims[-1:], "normalization": mode, "onesided": True, "forward": False}, None if len(dims) > 1 else out)
    if len(dims) == 1:
        return half
    return run(C2C, half, {"dim": dims[:-1], "normalization": mode, "forward": False}, out)


def _c2r_nd(op, x, s, dim, norm, forward, out):
    """irfftn/hfftn: c2c over all but the last of ``dims``, then c2r over the last."""
    check_out_kind(op, out, complex_=False)
    sizes, dims = canonical_shape_and_dims(x, s, dim, op)
    if not dims:
        raise RuntimeError(f"{op} must transform at least one axis")
    last = check_points(2 * (x._shape[dims[-1]] - 1) if s is None or s[-1] == -1 else sizes[-1])
    x = resize(promote(x, complex_=True), dims, (*sizes[:-1], last // 2 + 1))
    mode = norm_mode(norm, forward)
    attrs = {"dim": dims, "normalization": mode, "last_dim_size": last, "forward": forward}
    if not forward:  # irfftn: c2r computes every dim at once
        return run(C2R, x, attrs, out)
    if len(dims) > 1:  # hfftn: the Hermitian dim last, the others a plain transform first
        x = run(C2C, x, {"dim": dims[:-1], "normalization": mode, "forward": True})
    return run(C2R, x, {**attrs, "dim": dims[-1:]}, out)


_N_DIM = "Tensor (Tensor input, IntList? s=None, IntList? dim=None, String? norm=None) => {}"
_TWO_DIM = "Tensor (Tensor input, IntList? s=None, IntList dim=[-2, -1], String? norm=None) => {}"


def _declare_nd(name: str, functor_name: str, op, summary: str, impl, public: str, forward: bool, example: str) -> None:
    """One n-d transform and its 2-d form (``fft2`` is ``fftn`` over the last two dims by default);
    ``example`` is the result of both on ``[[1.0, 2.0], [3.0, 4.0]]``."""
    for suffix, signature in (("n", _N_DIM), ("2", _TWO_DIM)):
        fname = f"{functor_name}{suffix.upper()}"
        where = "over every dim" if suffix == "n" else "over the last two dims"
        doc = f"""
        {summary} ({where} by default).

        >>> ember.fft.{name}{suffix}(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
        {example}
        """
        declare(f"fft.{name}{suffix}", signature.format(fname), out=True, op=op, doc=doc)

        def transform(input, s=None, dim=None if suffix == "n" else (-2, -1), norm=None, out=None):
            return impl(public, input, s, dim, norm, forward, out)

        transform.__name__ = transform.__qualname__ = f"fft_{name}{suffix}"
        functor(fname)(transform)


_declare_nd(
    "fft", "FftFft", "fft_c2c", "The n-dimensional discrete Fourier transform", _c2c_nd, "fftn", True,
    "[[(10+0j), (-2+0j)], [(-4+0j), 0j]]",
)  # fmt: skip
_declare_nd(
    "ifft", "FftIfft", "fft_c2c", "The n-dimensional inverse discrete Fourier transform", _c2c_nd, "ifftn", False,
    "[[(2.5+0j), (-0.5+0j)], [(-1+0j), 0j]]",
)  # fmt: skip
_declare_nd(
    "rfft", "FftRfft", "fft_r2c", "The n-dimensional transform of a real signal, one-sided in the last dim", _r2c_nd,
    "rfftn", True, "[[(10+0j), (-2+0j)], [(-4+0j), 0j]]",
)  # fmt: skip
_declare_nd(
    "ihfft", "FftIhfft", _C2C_OR_R2C, "The inverse of hfftn: a real signal's half spectrum, one-sided in the last dim",
    _r2c_nd, "ihfftn", False, "[[(2.5-0j), (-0.5-0j)], [(-1+0j), 0j]]",
)  # fmt: skip
_declare_nd(
    "irfft", "FftIrfft", "fft_c2r", "The inverse of rfftn: the real signal of a half spectrum", _c2r_nd, "irfftn", False,
    "[[2.5, -0.5], [-1.0, 0.0]]",
)  # fmt: skip
_declare_nd(
    "hfft", "FftHfft", ("fft_c2c", "fft_c2r"), "The n-dimensional transform of a Hermitian signal given by its last-dim half",
    _c2r_nd, "hfftn", True, "[[10.0, -2.0], [-4.0, 0.0]]",
)  # fmt: skip
