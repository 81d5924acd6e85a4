"""Python data (numbers, nested sequences, NumPy scalars, one-element tensors) as a NumPy array
of the dtype ``ember.tensor`` gives it, with PyTorch's rules: what dtype is inferred, which values
are refused, which wrap.

The common case is NumPy's own parse (``np.asarray``), taken whenever it cannot have changed a
value or the dtype: floats, small integers, bools. The rest goes through :func:`_walk`, which reads
the data element by element as ``torch.tensor`` does: integers stay exact (``uint64`` above 2**63,
integers past 2**53 that a float64 detour would round), a literal that does not fit the dtype is an
error, strings are refused unless the data is all strings.

>>> import numpy as np
>>> array_from_data([1, 2**64 - 1], _dt.uint64, "tensor", type(None))[0].tolist()
[1, 18446744073709551615]
>>> array_from_data([1, 300], _dt.int8, "tensor", type(None))
Traceback (most recent call last):
...
RuntimeError: tensor(): value 300 cannot be converted to type ember.int8 without overflow
"""

from __future__ import annotations

import numbers
from itertools import chain

import numpy as np

from . import dtype as _dt

__all__ = ["array_from_data", "check_fill_value", "check_literal", "overflow_error", "to_bytes_array"]

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1
_EXACT_FLOAT = 2.0**53  # every integer below this in magnitude survives a float64 detour
_INT_BOUNDS = {d: (int(np.iinfo(d.numpy_dtype).min), int(np.iinfo(d.numpy_dtype).max)) for d in _dt.ALL_DTYPES if d.kind in "iu"}
_SEQUENCES = (list, tuple)
_SHORT = 32  # up to this many numbers, Python's max(map(abs, ...)) is quicker than NumPy's


def overflow_error(op: str, dtype: _dt.DType, value) -> RuntimeError:
    return RuntimeError(f"{op}(): value {value!r} cannot be converted to type {dtype} without overflow")


def array_from_data(data, target: _dt.DType | None, op: str, tensor_type: type) -> tuple[np.ndarray, _dt.DType]:
    """NumPy array of ``data`` and the ember dtype it gets (``target`` when given); the array's
    own dtype may be wider than the result's (the caller's copy casts). ``tensor_type`` is
    ``Tensor``, whose one-element instances count as scalars inside sequences."""
    if isinstance(data, np.ndarray) or (isinstance(data, np.generic) and not isinstance(data, (np.str_, np.bytes_))):
        return _from_numpy(np.asarray(data), target, op)
    first, depth = _first_leaf(data)
    if isinstance(first, tensor_type):
        return _walk(data, target, op, tensor_type)  # tensors take part in inference with their own dtype
    # Python floats only (the common case, known at C speed): NumPy's parse needs no dtype discovery
    floats = target is None and depth and type(first) is float and _only_python_numbers(data, depth, _PYTHON_REALS)
    try:
        array = np.asarray(data, dtype=np.float64) if floats and (depth > 1 or len(data) > _SHORT) else np.asarray(data)
    except (ValueError, TypeError, OverflowError):
        return _walk(data, target, op, tensor_type)  # ragged, one-element tensors among numbers...: its errors
    kind = array.dtype.kind
    if kind in "OUSu" or (kind == "c" and target is not None and target.kind not in "cb"):
        return _walk(data, target, op, tensor_type)
    peak = None
    if kind == "f" and (target is None or target.kind in "iu") and array.size:
        peak = float(max(map(abs, data))) if array.ndim == 1 and len(data) <= _SHORT else np.abs(array).max()
        if not peak < _EXACT_FLOAT:
            return _walk(data, target, op, tensor_type)  # integers a float64 detour may have rounded (or inf/nan)
    if target is None:
        inferred = _dt.from_numpy_dtype(array.dtype)
        if isinstance(first, (np.float64, np.complex128)):
            return array, inferred  # a double among the data makes the result double, as in PyTorch
        if not floats and kind in "fc" and not _only_python_numbers(data, array.ndim, _PYTHON_NUMBERS):
            return _walk(data, target, op, tensor_type)  # a double (NumPy scalar, tensor) past the first: promotion
        if inferred is _dt.float64:
            inferred = _dt.get_default_dtype()
        elif inferred is _dt.complex128:
            inferred = _dt.get_default_complex_dtype()
        return _narrowed(array, inferred, peak), inferred
    if target is _dt.string:
        raise TypeError(f"{op}(): cannot make a {target} tensor from {array.dtype} data")
    if target.kind in "iu" and array.size and not _fits(array, target):
        return _walk(data, target, op, tensor_type)  # names the first value that does not fit
    if target.kind == "b" and kind == "c":
        array = array != 0  # a purely imaginary value is true
    return _narrowed(array, target, peak), target


_LARGEST = {d: float(_dt.finfo(d).max) for d in _dt.ALL_DTYPES if d.kind in "fc"}


def _narrowed(array: np.ndarray, dtype: _dt.DType, peak) -> np.ndarray:
    """``array`` cast down to a narrower float dtype, where values past its range become inf as
    in PyTorch, without NumPy's overflow warning (``peak``: the largest magnitude, when known)."""
    if dtype.kind not in "fc" or array.dtype.itemsize <= dtype.itemsize or (peak is not None and peak <= _LARGEST[dtype]):
        return array
    with np.errstate(over="ignore", invalid="ignore"):
        return array.astype(dtype.numpy_dtype)


def _first_leaf(data) -> tuple:
    """The first scalar of nested sequences and its depth: it stands for the common lists of tensors
    or NumPy scalars, whose own dtypes take part in the inference where NumPy's parse would lose them."""
    depth = 0
    while isinstance(data, _SEQUENCES) and data:
        data = data[0]
        depth += 1
    return data, depth


def _only_python_numbers(data, depth: int, kinds: frozenset) -> bool:
    """Whether every leaf ``depth`` sequences deep in ``data`` is a Python number of ``kinds``
    (False for ragged data too). Only then does a float64/complex128 parse stand for the default
    dtypes: any other leaf (a NumPy double, a tensor) may make the result double, as in PyTorch.
    Python's ``sum`` answers at C speed: it stays a Python number only while every term is one (a
    NumPy scalar or a tensor makes it one of theirs)."""
    if depth == 1 and len(data) <= _SHORT:
        return {*map(type, data)} <= kinds
    flat = data
    for _ in range(depth - 1):
        flat = chain.from_iterable(flat)
    try:
        with np.errstate(all="ignore"):  # NumPy doubles summing past their range
            return type(sum(flat)) in kinds
    except Exception:
        return False


_PYTHON_REALS = frozenset({float, int, bool})
_PYTHON_NUMBERS = _PYTHON_REALS | {complex}


def _fits(array: np.ndarray, target: _dt.DType) -> bool:
    """Vectorised form of :func:`check_literal` for an array NumPy parsed exactly (bool, int64, small floats)."""
    low, high = _INT_BOUNDS[target]
    if array.dtype.kind == "f":
        return bool(np.isfinite(array).all()) and float(array.min()) >= low and float(array.max()) <= high
    lo, hi = int(array.min()), int(array.max())
    if target.kind == "u" and target is not _dt.uint64:
        return hi <= high and -lo <= high  # PyTorch wraps negatives as two's complement
    return lo >= low and hi <= high


def _from_numpy(array: np.ndarray, target: _dt.DType | None, op: str) -> tuple[np.ndarray, _dt.DType]:
    """An array keeps its dtype; its values are cast to ``target`` as ``Tensor.to`` would."""
    if array.dtype.kind in "SU":
        array = to_bytes_array(array)
    elif array.dtype == object:
        flat = array.reshape(-1)
        if not all(isinstance(x, (bytes, str)) for x in flat):
            raise TypeError(f"{op}(): can't convert a numpy.object_ array that does not hold only str/bytes")
        array = to_bytes_array(array)
    if target is None:
        return array, _dt.string if array.dtype == object else _dt.from_numpy_dtype(array.dtype, op=op, arg="data")
    if (target is _dt.string) != (array.dtype == object):
        raise TypeError(f"{op}(): cannot make a {target} tensor from {array.dtype} data")
    return array, target


# --- the element-by-element reading ---------------------------------------------------------------


def _walk(data, target: _dt.DType | None, op: str, tensor_type: type) -> tuple[np.ndarray, _dt.DType]:
    shape = _shape_of(data, tensor_type)
    leaves: list = []
    _flatten(data, shape, 0, leaves, tensor_type)
    if leaves and all(isinstance(x, (bytes, str)) for x in leaves):
        if target is not None and target is not _dt.string:
            raise TypeError(f"{op}(): cannot make a {target} tensor from str data")
        return to_bytes_array(np.array(leaves, dtype=object).reshape(shape)), _dt.string
    if target is _dt.string:
        bad = next(x for x in leaves if not isinstance(x, (bytes, str)))
        raise TypeError(f"{op}(): a string tensor takes bytes or str values, not {type(bad).__name__}")
    dtype = target or _infer(leaves, op, tensor_type)
    values = [check_literal(_scalar_of(x, tensor_type), dtype, op) for x in leaves]
    carrier = dtype.numpy_dtype if dtype.kind in "iub" else np.complex128 if dtype.kind == "c" else np.float64
    return _narrowed(np.array(values, dtype=carrier).reshape(shape), dtype, None), dtype


def _shape_of(data, tensor_type: type) -> tuple:
    shape = []
    while isinstance(data, _SEQUENCES) or (isinstance(data, np.ndarray) and data.ndim):
        shape.append(len(data))
        if not len(data):
            break
        data = data[0]
    return tuple(shape)


def _flatten(data, shape: tuple, dim: int, out: list, tensor_type: type) -> None:
    if dim == len(shape):
        if isinstance(data, _SEQUENCES) or (isinstance(data, np.ndarray) and data.ndim):
            raise TypeError(
                f"'{type(data).__name__}' object cannot be interpreted as a number (at dim {dim}: the data is ragged)"
            )
        out.append(data[()] if isinstance(data, np.ndarray) else data)
        return
    if not (isinstance(data, _SEQUENCES) or (isinstance(data, np.ndarray) and data.ndim)):
        raise TypeError(
            f"expected a sequence of length {shape[dim]} at dim {dim}, not {type(data).__name__} (the data is ragged)"
        )
    if len(data) != shape[dim]:
        raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})")
    for item in data:
        _flatten(item, shape, dim + 1, out, tensor_type)


def _scalar_of(x, tensor_type: type):
    if isinstance(x, tensor_type):
        if x.numel() != 1:
            raise ValueError(f"only one element tensors can be converted to Python scalars (this one has {x.numel()})")
        return x.item()
    return x


def _dtype_of_leaf(x, op: str, tensor_type: type) -> _dt.DType:
    if isinstance(x, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(x, tensor_type):
        return x.dtype
    if isinstance(x, np.generic) and not isinstance(x, (np.str_, np.bytes_)):
        return _dt.from_numpy_dtype(x.dtype, op=op, arg="data")
    if isinstance(x, numbers.Integral):
        return _dt.int64
    if isinstance(x, numbers.Real):
        return _dt.get_default_dtype()
    if isinstance(x, numbers.Complex):
        return _dt.get_default_complex_dtype()
    if isinstance(x, (str, bytes)):
        raise TypeError(
            f"new(): invalid data type '{type(x).__name__}' ({op}() makes a string tensor only from data that is all str/bytes, or with dtype=ember.string)"
        )
    raise RuntimeError(
        f"Could not infer dtype of {type(x).__name__} ({op}() takes numbers, sequences of them, arrays and tensors)"
    )


def _infer(leaves: list, op: str, tensor_type: type) -> _dt.DType:
    """PyTorch's inference: the promotion of every element's type (a Python float is the default dtype)."""
    if not leaves:
        return _dt.get_default_dtype()
    seen = {}
    for x in leaves:
        seen.setdefault(type(x), x)  # one element per Python type: same type, same dtype (tensors aside)
    dtype = None
    for x in leaves if any(issubclass(t, tensor_type) for t in seen) else seen.values():
        d = _dtype_of_leaf(x, op, tensor_type)
        dtype = d if dtype is None else _dt.promote_types(dtype, d)
    return dtype


def check_literal(value, dtype: _dt.DType, op: str):
    """``value`` (an element of ``ember.tensor``'s data) as an exact Python scalar of ``dtype``,
    refused where PyTorch refuses it: overflow, NaN/inf into integers, complex into real dtypes."""
    kind = dtype.kind
    if kind == "b" and (isinstance(value, (numbers.Number, np.generic)) or (hasattr(value, "__bool__") and value is not None)):
        return bool(value)
    if kind == "f" and not isinstance(value, (numbers.Number, np.generic, str, bytes)) and hasattr(value, "__float__"):
        return float(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, (numbers.Number, np.generic)):
        raise TypeError(f"{op}(): a {dtype} tensor takes numbers, not {type(value).__name__}")
    if isinstance(value, (complex, np.complexfloating)) and kind != "c":
        what = "an integer" if kind in "iu" else "a real number"
        raise TypeError(f"{op}(): 'complex' value {value!r} cannot be converted to {dtype} (must be {what}, not complex)")
    if kind == "c":
        return complex(value)
    if kind == "f":
        try:
            return float(value)
        except OverflowError:
            raise OverflowError(f"{op}(): int too large to convert to float ({value})") from None
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return _float_to_int(value, dtype, op)
    value = int(value)
    if dtype is _dt.uint64:
        if value < 0:
            raise OverflowError(f"{op}(): can't convert negative int to unsigned ({value} into uint64)")
        if value > _UINT64_MAX:
            raise OverflowError(f"{op}(): int too big to convert ({value} into uint64)")
        return value
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise ValueError(f"{op}(): Overflow when unpacking long long: {value} does not fit int64")
    return _int_to_int(value, dtype, op)


def _float_to_int(value, dtype: _dt.DType, op: str) -> int:
    """PyTorch's check, made in floating point: truncation toward zero of a value within the dtype's range."""
    low, high = _INT_BOUNDS[dtype]
    if not float(low) <= value <= float(high) or (dtype is _dt.uint64 and value >= 2.0**64):  # NaN fails too
        raise overflow_error(op, dtype, value)
    out = int(value)
    return out if out <= high else low  # float(2**63 - 1) is 2**63, which int64 wraps to its minimum


def _int_to_int(value: int, dtype: _dt.DType, op: str) -> int:
    low, high = _INT_BOUNDS[dtype]
    if dtype.kind == "u" and -high <= value < 0:
        return value + high + 1  # PyTorch wraps negatives into unsigned dtypes as two's complement
    if not low <= value <= high:
        raise overflow_error(op, dtype, value)
    return value


def check_fill_value(value, dtype: _dt.DType, op: str):
    """A scalar argument written into a ``dtype`` tensor (``full``, ``fill_``, ``x[i] = v``,
    ``masked_fill``...) as a Python scalar of ``dtype``, with PyTorch's checks for scalars: a float
    past float32's range is refused, an imaginary part into a real dtype too, integers wrap into
    unsigned dtypes from as low as minus the dtype's maximum."""
    kind = dtype.kind
    if kind == "b":
        return bool(value)
    if isinstance(value, (complex, np.complexfloating)) and kind != "c":
        if value.imag != 0:
            raise overflow_error(op, dtype, value)
        value = value.real
    if isinstance(value, (bool, np.bool_)):
        return _to_kind(int(value), kind)
    if isinstance(value, (int, np.integer)):
        value = int(value)
        if not _INT64_MIN <= value <= _UINT64_MAX:
            raise OverflowError(f"{op}(): int too big to convert ({value} fits neither int64 nor uint64)")
        if kind in "fc":
            return _to_kind(_checked_float(value, dtype, op), kind)
        if dtype is _dt.uint64:
            return value + 2**64 if value < 0 else value
        return _int_to_int(value, dtype, op)
    if kind in "iu":
        return _float_to_int(value, dtype, op)
    return _to_kind(_checked_float(value, dtype, op), kind)


def _checked_float(value, dtype: _dt.DType, op: str):
    """PyTorch's check of a scalar into a float dtype narrower than float64 (float32, float16,
    bfloat16): a finite value past the dtype's largest is refused; inf and NaN pass."""
    if dtype.kind == "f" and dtype is not _dt.float64 and abs(value) > _LARGEST[dtype] and abs(value) != np.inf:
        raise overflow_error(op, dtype, value)
    return value


def _to_kind(value, kind: str):
    return complex(value) if kind == "c" else float(value) if kind == "f" else int(value)


def to_bytes_array(array: np.ndarray) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    flat_in = array.reshape(-1)
    flat_out = out.reshape(-1)
    for i, x in enumerate(flat_in):
        flat_out[i] = x.encode("utf-8") if isinstance(x, str) else bytes(x)
    return out
