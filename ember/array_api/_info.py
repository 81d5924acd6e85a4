"""Inspection: ``__array_namespace_info__``, what this namespace supports (devices, dtypes, capabilities)."""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.device import device as _device
from .._core.dtype import (
    bool_,
    complex64,
    complex128,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

# The standard's dtype kinds and the ember dtypes of each (bfloat16 and float16 are not the standard's).
_KINDS = {
    "bool": (bool_,),
    "signed integer": (int8, int16, int32, int64),
    "unsigned integer": (uint8, uint16, uint32, uint64),
    "real floating": (float32, float64),
    "complex floating": (complex64, complex128),
}
_KINDS["integral"] = _KINDS["signed integer"] + _KINDS["unsigned integer"]
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


class __array_namespace_info__:
    """What this namespace supports: ``xp.__array_namespace_info__().dtypes()``...

    >>> import ember.array_api as xp
    >>> list(xp.__array_namespace_info__().dtypes(kind="real floating"))
    ['float32', 'float64']
    """

    def capabilities(self):
        """Whether boolean indexing and data-dependent output shapes work, and the most dimensions an array may have."""
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": 64,  # NumPy 2's limit, which ember's CPU arrays inherit
        }

    def default_device(self):
        """The device arrays are created on when none is given: the CPU."""
        return _device("cpu")

    def default_dtypes(self, *, device=None):
        """The dtypes the creation functions pick when none is given (the real and complex ones follow ember's default)."""
        self._check_device(device)
        return {
            "real floating": _dt.get_default_dtype(),
            "complex floating": _dt.get_default_complex_dtype(),
            "integral": int64,
            "indexing": int64,
        }

    def dtypes(self, *, device=None, kind=None):
        """The standard's dtypes ember has, by name, of one kind, of several, or (None) all of them."""
        self._check_device(device)
        if kind is None:
            kinds = ("bool", "numeric")
        elif isinstance(kind, str):
            kinds = (kind,)
        else:
            kinds = tuple(kind)
        out = {}
        for k in kinds:
            if k not in _KINDS:
                raise ValueError(f"dtypes(): unsupported kind {k!r}; expected one of {', '.join(map(repr, _KINDS))}")
            out.update((d.name, d) for d in _KINDS[k])
        return out

    def devices(self):
        """The devices this namespace creates arrays on."""
        return (_device("cpu"),)

    @staticmethod
    def _check_device(device):
        if device is not None and _device(device) not in (_device("cpu"),):
            raise ValueError(f"device {device} is not one of this namespace's devices (cpu)")
