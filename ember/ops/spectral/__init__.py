"""Spectral ops: the ``fft.`` namespace (PyTorch's ``torch.fft``).

``primitives`` holds the three FFT primitives (complex to complex, real to complex, complex to
real) with their inference rules and derivatives; ``transforms`` the public transforms written
on them (``fft``, ``rfft``, ``hfft``, their inverses, 2-d and n-d forms); ``helpers`` the
frequencies and shifts; ``windows`` the window functions of short-time transforms. The kernels are in ``ember/kernels/cpu/spectral/``.

>>> import ember
>>> ember.fft.ifft(ember.fft.fft(ember.tensor([1.0, 2.0]))).real.tolist()
[1.0, 2.0]
"""

from . import helpers, primitives, transforms, windows

__all__ = ["helpers", "primitives", "transforms", "windows"]
