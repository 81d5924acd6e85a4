"""CPU kernels of the spectral ops: NumPy's ``numpy.fft`` (pocketfft), in float32 or float64.

One module per ops module of ``ember/ops/spectral/`` that has primitives: ``primitives``.
"""

from . import primitives

__all__ = ["primitives"]
