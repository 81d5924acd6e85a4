"""The short-time Fourier transform and its inverse: PyTorch's ``stft`` and ``istft``.

Composites, as in PyTorch: ``stft`` pads the signal (``center``), cuts it into frames of
``n_fft`` every ``hop_length`` (``unfold``), weighs each frame by the window and transforms it
(``fft.rfft``, or ``fft.fft`` for a complex signal or window); ``istft`` transforms the frames
back, weighs them by the window again and overlap-adds them, dividing by the overlap-added
squared window. Gradients come from the ops they are written with.

>>> import ember
>>> x = ember.arange(8.0)
>>> spec = ember.stft(x, 4, window=ember.hann_window(4), return_complex=True)
>>> spec.shape
ember.Size([3, 9])
>>> [round(v, 4) for v in ember.istft(spec, 4, window=ember.hann_window(4), length=8).tolist()]
[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
"""

from __future__ import annotations

from ...dispatch.grad_mode import no_grad
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from .transforms import fft_fft, fft_ifft, fft_irfft, fft_rfft

declare = schema_family("spectral")


def _fail(op: str, message: str):
    raise RuntimeError(f"{op}: {message}")


def _centered_window(window, win_length: int, n_fft: int, like):
    """The window (ones when None) zero-padded on both sides to ``n_fft`` points."""
    F = _F().FUNCTIONS
    if window is None:
        dtype = like._dtype.to_real() if like._dtype.is_complex else like._dtype
        window = F["ones"]((win_length,), dtype=dtype)
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return F["pad"](window, [left, n_fft - win_length - left])


def _overlap_add(frames, hop_length: int, length: int):
    """``frames`` (batch, n_frames, n_fft) summed into (batch, length) signals, frame ``t`` starting at ``t * hop_length``."""
    F = _F().FUNCTIONS
    batch, n_frames, n_fft = frames._shape
    starts = F["arange"](n_frames).unsqueeze(1) * hop_length
    index = (starts + F["arange"](n_fft).unsqueeze(0)).reshape(-1)
    zeros = F["zeros"]((batch, length), dtype=frames._dtype)
    return F["index_add"](zeros, 1, index, frames.reshape(batch, n_frames * n_fft))


declare(
    "stft",
    "Tensor (Tensor input, Int n_fft, Int? hop_length=None, Int? win_length=None, Tensor? window=None, Bool center=True, String pad_mode='reflect', Bool normalized=False, Bool? onesided=None, Bool? return_complex=None) => Stft",
    method=True, composite=True,
    doc="""
    The short-time Fourier transform: (``n_fft // 2 + 1`` or ``n_fft``) frequencies by frames, per signal.

    >>> ember.stft(ember.ones(8), 4, hop_length=2, return_complex=True).shape
    ember.Size([3, 5])
    """,
)  # fmt: skip
@functor("Stft")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect", normalized=False,
         onesided=None, return_complex=None):  # fmt: skip
    complex_signal = input._dtype.is_complex or (window is not None and window._dtype.is_complex)
    if return_complex is None and not complex_signal:
        raise RuntimeError(
            "stft requires the return_complex parameter be given for real inputs, and will further require that "
            "return_complex=True in a future PyTorch release."
        )
    if not (input._dtype.is_floating_point or input._dtype.is_complex):
        _fail("stft", "expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        _fail("stft", f"expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    x = input if input.ndim == 2 else input.unsqueeze(0)
    if center:  # pad reads a 3-d (batch, channel, time) tensor for reflect and replicate
        pad = n_fft // 2
        x = _F().FUNCTIONS["pad"](x.unsqueeze(0), [pad, pad], pad_mode).squeeze(0)
    length = x._shape[1]
    if n_fft <= 0 or n_fft > length:
        _fail("stft", f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        _fail("stft", f"expected hop_length > 0, but got hop_length={hop_length}")
    if win_length <= 0 or win_length > n_fft:
        _fail("stft", f"expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if window is not None and (window.ndim != 1 or window._shape[0] != win_length):
        _fail("stft", f"expected a 1D window tensor of size equal to win_length={win_length}, but got window with size {list(window._shape)}")
    frames = x.unfold(-1, n_fft, hop_length)  # (batch, n_frames, n_fft)
    if window is not None or win_length < n_fft:
        frames = frames * _centered_window(window, win_length, n_fft, x)
    onesided = not frames._dtype.is_complex if onesided is None else onesided
    if frames._dtype.is_complex and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = (fft_rfft if onesided else fft_fft)(frames, None, -1, norm).transpose(1, 2)
    if input.ndim == 1:
        spectrum = spectrum.squeeze(0)
    if return_complex is False:  # PyTorch's deprecated real view: (..., 2) of real and imaginary parts
        return _F().FUNCTIONS["stack"]([spectrum.real, spectrum.imag], -1)
    return spectrum


declare(
    "istft",
    "Tensor (Tensor input, Int n_fft, Int? hop_length=None, Int? win_length=None, Tensor? window=None, Bool center=True, Bool normalized=False, Bool? onesided=None, Int? length=None, Bool return_complex=False) => Istft",
    method=True, composite=True,
    doc="""
    The inverse of ``stft``: the signal whose short-time transform is ``input`` (trimmed or zero-padded to ``length``).

    >>> spec = ember.stft(ember.arange(6.0), 4, hop_length=1, return_complex=True)
    >>> [round(v, 4) for v in ember.istft(spec, 4, hop_length=1).tolist()]
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    """,
)  # fmt: skip
@functor("Istft")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False, onesided=None,
          length=None, return_complex=False):  # fmt: skip
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not input._dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with return_complex=True.")
    if input.numel() == 0:
        _fail("istft", "input tensor cannot be empty")
    if input.ndim not in (2, 3):
        _fail("istft", f"expected a tensor with 2 or 3 dimensions of complex dtype, but got {input.ndim}")
    fft_size, n_frames = input._shape[-2], input._shape[-1]
    onesided = fft_size != n_fft if onesided is None else onesided
    expected = n_fft // 2 + 1 if onesided else n_fft
    if fft_size != expected:
        what = "n_fft / 2 + 1 when onesided=True" if onesided else "n_fft when onesided=False"
        _fail("istft", f"expected the frequency dimension (3rd to the last) of the input tensor to match {what}, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        _fail("istft", "expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        _fail("istft", "expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window._shape[0] != win_length):
        _fail("istft", "Invalid window shape. window has to be 1D and length of `win_length`")
    window = _centered_window(window, win_length, n_fft, input)
    spectra = (input if input.ndim == 3 else input.unsqueeze(0)).transpose(1, 2)  # (batch, n_frames, fft_size)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = fft_ifft(spectra, None, -1, norm)
    else:
        if window._dtype.is_complex:
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            spectra = spectra.narrow(-1, 0, n_fft // 2 + 1)
        frames = fft_irfft(spectra, n_fft, -1, norm)
    total = n_fft + hop_length * (n_frames - 1)
    signal = _overlap_add(frames * window, hop_length, total)
    envelope = _overlap_add((window * window).expand(1, n_frames, n_fft), hop_length, total)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else total - n_fft // 2 if center else total
    signal = signal[:, start:end]
    envelope = envelope[:, start:end]
    with no_grad():
        if envelope.numel() and bool((envelope.abs().amin() < 1e-11).item()):
            _fail("istft", "window overlap add min: 1")
    signal = signal / envelope
    if input.ndim == 2:
        signal = signal.squeeze(0)
    if end > total:  # the signal asked for is longer than the frames cover: zeros at the tail
        signal = _F().FUNCTIONS["pad"](signal, [0, end - total])
    return signal


__all__ = ["istft", "stft"]
