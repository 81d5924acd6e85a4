"""PyTorch's legacy tensor types: ``FloatTensor``, ``LongTensor``, ... one per dtype.

They are constructors and ``isinstance`` tests, not classes of tensors: every tensor is a
``Tensor``, and ``isinstance(t, FloatTensor)`` asks whether ``t`` is a float32 tensor in host
memory (PyTorch answers through a metaclass too). ``FloatTensor(2, 3)`` is uninitialized,
``FloatTensor([1, 2])`` copies data, ``FloatTensor(t)`` aliases a float32 tensor.

The legacy name of a tensor (``t.type()``) is spelled with PyTorch's prefix,
``'torch.FloatTensor'``, because programs compare it with that string; ember accepts both
``'torch.'`` and ``'ember.'`` where it reads a name.

>>> FloatTensor(2, 3).shape
ember.Size([2, 3])
>>> LongTensor([1.7, 2]).tolist()
[1, 2]
>>> isinstance(tensor([1.0]), FloatTensor), isinstance(tensor([1]), FloatTensor)
(True, False)
>>> legacy_name(tensor([1, 2]))
'torch.LongTensor'
"""

from __future__ import annotations

import warnings

from . import dtype as _dt
from .tensor import Tensor, _legacy_new, tensor  # noqa: F401 - tensor serves the doctest

__all__ = [
    "LEGACY_TYPES",
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "TensorType",
    "legacy_dtype",
    "legacy_name",
    "set_default_tensor_type",
]

# The prefix of legacy names ember writes; both are read.
PREFIX = "torch"
_PREFIXES = ("torch", "ember")


class TensorType(type):
    """The metaclass of the legacy types (PyTorch's ``torch.tensortype``)."""

    dtype: _dt.DType

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor) and obj._dtype is cls.dtype and obj._storage._device.type == "cpu"

    def __subclasscheck__(cls, sub: type) -> bool:
        return sub is cls

    def __repr__(cls) -> str:
        return f"<class 'ember.{cls.__name__}'>"

    def __call__(cls, *args, device=None, **unexpected):
        if unexpected:
            raise TypeError(
                f"{cls.__name__}(): unexpected keyword argument {next(iter(unexpected))!r}: the legacy constructor takes sizes or data and device= only (for a dtype use ember.tensor or ember.empty)"
            )
        if device is not None and str(device).partition(":")[0] != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: {str(device).partition(':')[0]} was passed"
            )
        return _legacy_new(args, device, cls.dtype, cls.__name__)


def _legacy_type(name: str, dtype: _dt.DType) -> TensorType:
    doc = f"Legacy constructor and isinstance test of {dtype} host tensors: ``{name}(*sizes)``, ``{name}(data)``."
    return TensorType(name, (), {"dtype": dtype, "is_cuda": False, "is_sparse": False, "__module__": "ember", "__doc__": doc})


FloatTensor = _legacy_type("FloatTensor", _dt.float32)
DoubleTensor = _legacy_type("DoubleTensor", _dt.float64)
HalfTensor = _legacy_type("HalfTensor", _dt.float16)
BFloat16Tensor = _legacy_type("BFloat16Tensor", _dt.bfloat16)
ByteTensor = _legacy_type("ByteTensor", _dt.uint8)
CharTensor = _legacy_type("CharTensor", _dt.int8)
ShortTensor = _legacy_type("ShortTensor", _dt.int16)
IntTensor = _legacy_type("IntTensor", _dt.int32)
LongTensor = _legacy_type("LongTensor", _dt.int64)
BoolTensor = _legacy_type("BoolTensor", _dt.bool_)
ComplexFloatTensor = _legacy_type("ComplexFloatTensor", _dt.complex64)
ComplexDoubleTensor = _legacy_type("ComplexDoubleTensor", _dt.complex128)

# Legacy name (without prefix) -> dtype; the unsigned wide and string dtypes have names but no constructor.
LEGACY_TYPES = {
    t.__name__: t
    for t in (FloatTensor, DoubleTensor, HalfTensor, BFloat16Tensor, ByteTensor, CharTensor, ShortTensor,
              IntTensor, LongTensor, BoolTensor, ComplexFloatTensor, ComplexDoubleTensor)
}  # fmt: skip
_NAMES = {t.dtype: name for name, t in LEGACY_TYPES.items()}
_NAMES.update({_dt.uint16: "UInt16Tensor", _dt.uint32: "UInt32Tensor", _dt.uint64: "UInt64Tensor", _dt.string: "StringTensor"})
_DTYPES = {name: dtype for dtype, name in _NAMES.items()}


def legacy_name(t: Tensor) -> str:
    """``'torch.FloatTensor'``, ``'torch.meta.LongTensor'``: what ``t.type()`` returns."""
    device = t._storage._device.type
    return f"{PREFIX}.{'' if device == 'cpu' else device + '.'}{_NAMES[t._dtype]}"


def legacy_dtype(spec: object, op: str) -> _dt.DType:
    """The dtype a legacy spelling names: a legacy type, ``'torch.LongTensor'`` (or ``'ember.'``), a dtype."""
    if isinstance(spec, TensorType):
        return spec.dtype
    if isinstance(spec, _dt.DType):
        return spec
    if isinstance(spec, str):
        prefix, _, name = spec.rpartition(".")
        if prefix in _PREFIXES and name in _DTYPES:
            return _DTYPES[name]
        if prefix.partition(".")[0] in _PREFIXES and name in _DTYPES:
            raise RuntimeError(f"{op}(): ember has no {prefix.partition('.')[2]} device for the type {spec!r}")
        raise ValueError(f"invalid type: {spec!r}")
    raise TypeError(f"{op}(): dtype must be a type, str, or dtype object, got {type(spec).__name__}")


def set_default_tensor_type(t: TensorType | str) -> None:
    """Deprecated in PyTorch (as there): sets the default dtype from a floating legacy type.

    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     set_default_tensor_type("torch.DoubleTensor")
    >>> _dt.get_default_dtype()
    ember.float64
    >>> _dt.set_default_dtype(_dt.float32)
    """
    dtype = legacy_dtype(t, "set_default_tensor_type")
    if not isinstance(t, (TensorType, str)):
        raise TypeError("invalid type object: only floating-point types are supported as the default type")
    if not dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    warnings.warn(
        "set_default_tensor_type() is deprecated as of PyTorch 2.1, please use set_default_dtype() and set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    _dt.set_default_dtype(dtype)
