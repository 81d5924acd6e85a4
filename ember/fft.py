"""``ember.fft``: the discrete Fourier transforms of the schema (entries named ``fft.*``), PyTorch's ``torch.fft``.

>>> import ember
>>> ember.fft.rfft(ember.tensor([1.0, 0.0, -1.0, 0.0])).tolist()
[0j, (2+0j), 0j]
"""

from __future__ import annotations

from .ops.functional import NAMESPACES, export_to

# The schema is the list of names (entries named "fft.<name>"); no hand-kept copy here.
__all__ = export_to(globals(), NAMESPACES["fft"])
