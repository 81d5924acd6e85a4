"""Devices: where a tensor's bytes live.

A device is a (type, index) pair, parsed from strings like PyTorch's ("cpu", "meta",
"cuda", "cuda:1"). Parsing never touches hardware: a CUDA device can be named anywhere,
and only allocating on it fails (there is no CUDA backend yet).

>>> device("cuda:1")
device(type='cuda', index=1)
>>> str(device("cpu"))
'cpu'
"""

from __future__ import annotations

__all__ = ["KNOWN_DEVICE_TYPES", "Device", "as_device", "device"]

# "meta" holds shape and dtype only: the caffe2 idea of lazy allocation taken to its end.
KNOWN_DEVICE_TYPES = ("cpu", "meta", "cuda")


_INTERNED: dict[tuple, Device] = {}


class Device:
    """A device type and an optional index; equal, hashable and printed like PyTorch's.

    There is one object per device: ``Device("cpu") is Device("cpu")``.
    """

    __slots__ = ("_index", "_type")

    def __new__(cls, type: str | Device, index: int | None = None) -> Device:  # noqa: A002
        cached = _INTERNED.get((type, index)) if isinstance(type, str) else None
        if cached is not None:
            return cached
        if isinstance(type, Device):
            if index is not None:
                raise ValueError("device(): cannot give an index together with a device object")
            return type
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str or device, not {_typename(type)}")
        name, sep, idx = type.strip().partition(":")
        if sep:
            if index is not None:
                raise ValueError(f"device(): type ({type!r}) must not include an index because index was passed explicitly: {index}")
            if not idx.isdigit():
                raise ValueError(f"device(): invalid device string {type!r}: expected 'type' or 'type:index' with a non-negative integer index")
            index = int(idx)
        if name not in KNOWN_DEVICE_TYPES:
            known = ", ".join(KNOWN_DEVICE_TYPES)
            raise ValueError(f"device(): expected one of {known} device type at start of device string: {type!r}")
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device(): argument 'index' must be int, not {_typename(index)}")
            if index < 0:
                raise ValueError(f"device(): device index must be non-negative, got {index}")
            if name == "cpu" and index != 0:
                raise ValueError(f"device(): cpu device index must be 0, got {index}")
        device = _INTERNED.get((name, index))
        if device is None:
            device = object.__new__(cls)
            device._type, device._index = name, index
            _INTERNED[(name, index)] = device
        _INTERNED[(type, index)] = device  # the spelling used, for the next lookup
        return device

    @property
    def type(self) -> str:
        return self._type

    @property
    def index(self) -> int | None:
        return self._index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            try:
                other = Device(other)
            except (TypeError, ValueError):
                return False
        if not isinstance(other, Device):
            return NotImplemented
        return self._type == other._type and self._index == other._index

    # Devices are interned (one object per device), so identity hashing agrees with __eq__
    # and dict lookups keyed by device never call Python code.
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type={self._type!r})"
        return f"device(type={self._type!r}, index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self):
        return (Device, (self._type, self._index))


device = Device

CPU = Device("cpu")
META = Device("meta")


def as_device(x: Device | str | int | None, *, op: str = "device", arg: str = "device") -> Device:
    """Normalise a device argument (a Device, a string, or None meaning cpu).

    >>> as_device(None)
    device(type='cpu')
    """
    if x is None:
        return CPU
    if type(x) is Device:
        return x
    if isinstance(x, str):
        if x == "cpu":
            return CPU
        if x == "meta":
            return META
        return Device(x)
    if isinstance(x, int) and not isinstance(x, bool):
        # PyTorch reads a bare int as a CUDA ordinal.
        return Device("cuda", x)
    raise TypeError(f"{op}(): argument '{arg}' must be a device or a device string such as 'cpu', not {_typename(x)}")


def _typename(x: object) -> str:
    return type(x).__name__
