"""The dtypes an elementwise op accepts and the dtype it gives.

An op names the array-API kinds it accepts (``ember.isdtype``'s names); ``check_kinds``
refuses any other dtype with PyTorch's kind of message, naming the op and the argument. The
result rules map the (promoted) input dtype to the output dtype: ``to_float`` for ``sqrt`` of
integers, ``to_bool`` for predicates and comparisons.

>>> from ember._core import dtype
>>> check_kinds("bitwise_and", "other", dtype.float32, BITS)
Traceback (most recent call last):
TypeError: bitwise_and(): argument 'other' must have a bool or integral dtype, got ember.float32
>>> to_float(dtype.int8), to_real(dtype.complex128)
(ember.float32, ember.float64)
"""

from __future__ import annotations

from ..._core import dtype as _dt

__all__ = [
    "ALL", "BITS", "EQUALITY", "FLOATING", "INEXACT", "INTEGER", "NUMERIC", "REAL", "REAL_NO_BOOL",
    "bool_to_long", "check_kinds", "check_pair", "same", "to_bool", "to_float", "to_real", "to_real_float",
]  # fmt: skip

# dtype kinds, as array-API kind names (``ember.isdtype``)
ALL = ("bool", "numeric")
NUMERIC = ("numeric",)
REAL = ("bool", "integral", "real floating")  # everything but complex
REAL_NO_BOOL = ("integral", "real floating")
FLOATING = ("real floating",)
INEXACT = ("real floating", "complex floating")
INTEGER = ("integral",)
BITS = ("bool", "integral")
EQUALITY = (*ALL, _dt.string)  # == and != also compare strings (with strings: promotion refuses a mix)


def _kinds_text(kinds: tuple) -> str:
    names = [k if isinstance(k, str) else k.name for k in kinds]
    return " or ".join(names).replace("numeric", "numeric (integer, floating or complex)")


def check_kinds(op: str, arg: str, dtype: _dt.DType, kinds: tuple) -> None:
    """Refuse ``dtype`` unless it is one of the array-API ``kinds``; the message names the op
    and the argument: ``bitwise_and(): argument 'other' must have a bool or integral dtype,
    got ember.float32``."""
    if not _dt.isdtype(dtype, kinds):
        text = _kinds_text(kinds)
        raise TypeError(f"{op}(): argument '{arg}' must have {'an' if text[0] in 'aeiou' else 'a'} {text} dtype, got {dtype}")


def check_pair(op: str, a: _dt.DType, b: _dt.DType, promoted: _dt.DType, kinds: tuple, names=("input", "other")) -> None:
    """Refuse two operands whose ``promoted`` dtype is not of ``kinds``, naming the one at fault."""
    if _dt.isdtype(promoted, kinds):
        return
    for dtype, arg in ((a, names[0]), (b, names[1])):
        check_kinds(op, arg, dtype, kinds)
    check_kinds(op, names[0], promoted, kinds)


# result rules: the output dtype from the (promoted) input dtype


def same(dtype: _dt.DType) -> _dt.DType:
    """The input dtype itself (``neg``, ``relu``, ``add``...)."""
    return dtype


def to_float(dtype: _dt.DType) -> _dt.DType:
    """Integers and bool compute in the default float dtype (PyTorch's rule for exp, sqrt...)."""
    return dtype if dtype.is_floating_point or dtype.is_complex else _dt.get_default_dtype()


def to_real(dtype: _dt.DType) -> _dt.DType:
    """Complex to its real counterpart (``abs``); real dtypes unchanged."""
    return dtype.to_real()


def to_real_float(dtype: _dt.DType) -> _dt.DType:
    """A real floating dtype (``angle``): integers to the default float, complex to its real part."""
    return to_float(dtype).to_real()


def to_bool(dtype: _dt.DType) -> _dt.DType:
    """bool, whatever the input (predicates and comparisons)."""
    return _dt.bool_


def bool_to_long(dtype: _dt.DType) -> _dt.DType:
    """int64 for bool, as PyTorch's ``square`` (``pow(bool, 2)``); other dtypes unchanged."""
    return _dt.int64 if dtype is _dt.bool_ else dtype
