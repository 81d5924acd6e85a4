"""Random ops: sampling functors, their primitives and inference rules.

Every op takes ``generator=None`` (the default is ``ember.default_generator``, seeded by
``ember.manual_seed``) and hands the ``Generator`` to its kernel as an attribute; the kernel
draws from ``generator.numpy()`` (NumPy's PCG64), so the same seed gives the same values on
every run. Samplers without tensor inputs dispatch with ``inputs=()``: ``rand`` and the
in-place ``uniform_`` are one primitive, without and with an output. Kernels are in
``ember/kernels/cpu/random.py``.
"""

from . import integers, real
from ._common import RANDOM_OPS

__all__ = ["RANDOM_OPS", "integers", "real"]
