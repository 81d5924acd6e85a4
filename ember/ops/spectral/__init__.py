"""Spectral ops: the ``fft.`` namespace (PyTorch's ``torch.fft``), ``stft``/``istft`` and the windows.

``primitives`` holds the three FFT primitives (complex to complex, real to complex, complex to
real) with their inference rules and derivatives; ``transforms`` the public transforms written
on them (``fft``, ``rfft``, ``hfft``, their inverses, 2-d and n-d forms); ``helpers`` the
frequencies and shifts; ``stft`` the short-time transform and its inverse, and ``windows`` the
window functions they take. The kernels are in ``ember/kernels/cpu/spectral/``.

>>> import ember
>>> ember.fft.ifft(ember.fft.fft(ember.tensor([1.0, 2.0]))).real.tolist()
[1.0, 2.0]
"""

from . import helpers, primitives, stft, transforms, windows

__all__ = ["helpers", "primitives", "stft", "transforms", "windows"]
