"""How an elementwise kernel is made: compute dtypes, NumPy's error state, and the factories
``ufunc1``/``map1`` (one input) and ``ufunc2``/``map2`` (tensor-tensor and tensor-scalar).

NumPy's ufuncs write into ``out`` directly and handle broadcasting, strides and overlapping
input/output (in-place ops). As PyTorch does, a kernel computes in the *promoted* dtype of its
inputs (after the op's own rule, e.g. integers -> default float for ``sqrt``), then casts into
the output, which ``out=`` may have made wider. float16 and bfloat16 compute in float32 (PyTorch's
"opmath" type) and round once. The common case (all dtypes equal) is one ufunc call.

NumPy warns on floating-point events (``0/0``, overflow); PyTorch does not, so the kernels run
with NumPy's error reporting off (``quiet``), except the hot ``add``/``sub``/``mul`` fast paths,
which cannot afford the context switch.

>>> common_and_compute(RULES["float"], True, np.dtype(np.int8), np.dtype(np.float16))
(dtype('float16'), dtype('float32'))
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ....dispatch.opexpr import register_kernel

__all__ = [
    "BOOL", "EMBER", "F32", "F64", "KIND", "LOW", "RULES", "cast", "common_and_compute", "compute_dtype", "map1", "map2",
    "quiet", "register", "scalar_array", "ufunc1", "ufunc2",
]  # fmt: skip

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
BOOL = np.dtype(np.bool_)
LOW = frozenset({np.dtype(np.float16), _dt.bfloat16.numpy_dtype})  # the dtypes that compute in float32
EMBER = {d.numpy_dtype: d for d in _dt.ALL_DTYPES if d is not _dt.string}  # NumPy dtype -> ember dtype
KIND = {n: d.kind for n, d in EMBER.items()}  # NumPy calls bfloat16's kind 'V'

# --- NumPy's floating-point error reporting, off inside kernels --------------------------
try:  # the context variable behind np.errstate: setting it directly costs ~0.1 us, errstate ~1 us
    from numpy._core._ufunc_config import _extobj_contextvar as _EXTOBJ

    with np.errstate(all="ignore"):
        _IGNORE = _EXTOBJ.get()
except (ImportError, AttributeError):  # pragma: no cover - other NumPy versions
    _EXTOBJ = None


def quiet(kernel):
    """``kernel`` with NumPy's floating-point warnings off."""
    if _EXTOBJ is None:  # pragma: no cover

        def wrapped(outs, ins, attrs):
            with np.errstate(all="ignore"):
                return kernel(outs, ins, attrs)

    else:

        def wrapped(outs, ins, attrs):
            token = _EXTOBJ.set(_IGNORE)
            try:
                return kernel(outs, ins, attrs)
            finally:
                _EXTOBJ.reset(token)

    wrapped.__name__ = wrapped.__qualname__ = kernel.__name__
    wrapped.__wrapped__ = kernel
    return wrapped


# --- compute dtypes ---------------------------------------------------------------------


def _same(e: _dt.DType) -> _dt.DType:
    return e


def _float(e: _dt.DType) -> _dt.DType:
    return e if e.is_floating_point or e.is_complex else _dt.get_default_dtype()


def _bool_to_long(e: _dt.DType) -> _dt.DType:
    return _dt.int64 if e is _dt.bool_ else e


RULES = {"same": _same, "float": _float, "long": _bool_to_long}


def compute_dtype(np_dtype: np.dtype, lower: bool = True) -> np.dtype:
    """The dtype a kernel computes in: float32 for float16 and bfloat16 (when ``lower``)."""
    return F32 if lower and np_dtype in LOW else np_dtype


def common_and_compute(rule, lower: bool, *dtypes) -> tuple[np.dtype, np.dtype]:
    """(common, compute) NumPy dtypes of inputs of these NumPy dtypes and Python scalars: the
    common dtype is PyTorch's: the promoted one after the op's rule (float for true division
    of integers); the compute dtype is float32 in place of float16 and bfloat16."""
    common = rule(_dt.result_type(*[EMBER[d] if isinstance(d, np.dtype) else d for d in dtypes])).numpy_dtype
    return common, compute_dtype(common, lower)


def pair_common_and_compute(rule, lower: bool, a: np.ndarray, b: np.ndarray) -> tuple[np.dtype, np.dtype]:
    """``common_and_compute`` of two arrays by PyTorch's rule: a 0-d one next to a dimensioned
    one counts only when of a higher category, so both are cast to the result's dtype first
    (an int8 0-d -1 shifted by uint8 tensors is 255 first, as in PyTorch)."""
    dims = [EMBER[x.dtype] for x in (a, b) if x.ndim]
    zeros = [EMBER[x.dtype] for x in (a, b) if not x.ndim]
    common = rule(_dt.promote_groups(dims, zeros)).numpy_dtype
    return common, compute_dtype(common, lower)


def _pair_key(a: np.ndarray, b: np.ndarray) -> tuple:
    return (a.dtype, b.dtype, not a.ndim, not b.ndim, _dt.get_default_dtype())


def _scalar_key(x) -> tuple:
    return (type(x), _dt.get_default_dtype())


def cast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``a`` in ``dtype``, without a copy when it already is."""
    return a if a.dtype is dtype or a.dtype == dtype else a.astype(dtype)


def scalar_array(s, promoted: np.dtype, ct: np.dtype, op: str = "scalar") -> np.ndarray:
    """A Python scalar as a 0-d array: first of the common dtype (PyTorch casts the scalar to
    it: ``uint8_t < -3`` compares with 253), then of the compute dtype."""
    if isinstance(s, int) and not isinstance(s, bool) and promoted.kind in "iu":
        if not -(2**63) <= s < 2**64:  # PyTorch holds a scalar as int64 or uint64; past both it refuses
            raise OverflowError(f"{op}(): int too big to convert: {s} fits neither int64 nor uint64")
        info = np.iinfo(promoted)
        s = (s - int(info.min)) % (int(info.max) - int(info.min) + 1) + int(info.min)
    arr = np.asarray(s).astype(promoted)
    return arr if promoted == ct else arr.astype(ct)


def _kernel_name(fn, name: str):
    fn.__name__ = fn.__qualname__ = f"{name}_cpu"
    return fn


def register(name: str, fn, *, silent: bool = True) -> None:
    """Register ``fn`` as the CPU kernel of ``name`` (``silent``: NumPy's warnings off)."""
    register_kernel(name)(quiet(_kernel_name(fn, name)) if silent else _kernel_name(fn, name))


# --- unary ------------------------------------------------------------------------------


def ufunc1(name: str, ufunc: np.ufunc, rule: str = "same", *, lower: bool = True) -> None:
    """A unary kernel from a ufunc: one call when the input has the output's dtype."""
    rule_fn = RULES[rule]
    cache: dict = {}

    def kernel(outs, ins, attrs):
        y = outs[0]
        x = ins[0]
        if x.dtype is y.dtype:
            try:
                ufunc(x, out=y)
                return
            except TypeError:  # no loop for this dtype (bfloat16): compute in float32
                pass
        key = (x.dtype, _dt.get_default_dtype())
        ct = cache.get(key)
        if ct is None:
            ct = cache[key] = common_and_compute(rule_fn, lower, x.dtype)[1]
        ufunc(x, out=y, dtype=ct, casting="unsafe")

    register(name, kernel)


def map1(name: str, fn, rule: str = "same", *, lower: bool = True) -> None:
    """A unary kernel from ``fn(x, attrs) -> array``; ``x`` arrives in the compute dtype."""
    rule_fn = RULES[rule]
    cache: dict = {}

    def kernel(outs, ins, attrs):
        x = ins[0]
        key = (x.dtype, _dt.get_default_dtype())
        ct = cache.get(key)
        if ct is None:
            ct = cache[key] = common_and_compute(rule_fn, lower, x.dtype)[1]
        np.copyto(outs[0], fn(cast(x, ct), attrs), casting="unsafe")

    register(name, kernel)


# --- binary -----------------------------------------------------------------------------


def ufunc2(
    name: str, ufunc: np.ufunc, rule: str = "same", *, lower: bool = True, bool_out: bool = False, silent: bool = True
) -> None:
    """Tensor-tensor and tensor-scalar kernels from a binary ufunc.

    Fast path: inputs already of the output dtype (``bool_out``: of one dtype), one call.
    Otherwise inputs are cast to their promoted dtype (as PyTorch does: ``int32`` 2049 next
    to a float16 is 2048), then computed in the op's compute dtype and cast into the output.
    """
    rule_fn = RULES[rule]
    cache: dict = {}

    def kernel(outs, ins, attrs):
        out = outs[0]
        a, b = ins
        dt = out.dtype
        if (a.dtype is dt and b.dtype is dt) or (bool_out and a.dtype is b.dtype):
            try:
                ufunc(a, b, out=out)
                return
            except TypeError:
                pass
        slow(out, a, b)

    def slow(out, a, b):
        key = _pair_key(a, b)
        types = cache.get(key)
        if types is None:
            types = cache[key] = pair_common_and_compute(rule_fn, lower, a, b)
        promoted, ct = types
        ufunc(cast(a, promoted), cast(b, promoted), out=out, signature=(ct, ct, None), casting="unsafe")

    def kernel_scalar(outs, ins, attrs):
        out = outs[0]
        a = ins[0]
        s = attrs["other"]
        # (comparisons: an int scalar next to integers wraps into their dtype first, as in PyTorch)
        if a.dtype is out.dtype or (bool_out and (type(s) is not int or KIND[a.dtype] not in "iu")):
            try:
                ufunc(a, s, out=out)
                return
            except (TypeError, OverflowError):  # no loop, or an int scalar out of the dtype's range
                pass
        slow_scalar(out, a, s)

    def slow_scalar(out, a, s):
        key = (a.dtype, *_scalar_key(s))
        types = cache.get(key)
        if types is None:
            types = cache[key] = common_and_compute(rule_fn, lower, a.dtype, s)
        promoted, ct = types
        ufunc(cast(a, promoted), scalar_array(s, promoted, ct, name), out=out, signature=(ct, ct, None), casting="unsafe")

    if not silent:  # the hot arithmetic: warnings off only on the slow paths
        slow, slow_scalar = quiet(slow), quiet(slow_scalar)
    register(name, kernel, silent=silent)
    register(name + "_scalar", kernel_scalar, silent=silent)


def map2(name: str, fn, rule: str = "same", *, lower: bool = True, scalar: bool = True, finish=None, first=None) -> None:
    """Tensor-tensor (and tensor-scalar) kernels from ``fn(a, b, attrs) -> array``; ``a`` and
    ``b`` arrive in the compute dtype (a scalar as a 0-d array). ``finish(out)``, if given,
    runs on the output after the store, i.e. in the result dtype. ``first(outs, ins, attrs)``,
    if given, is tried before the tensor-tensor kernel: True when it wrote the output."""
    rule_fn = RULES[rule]
    cache: dict = {}

    def kernel(outs, ins, attrs):
        if first is not None and first(outs, ins, attrs):
            return
        a, b = ins
        key = _pair_key(a, b)
        types = cache.get(key)
        if types is None:
            types = cache[key] = pair_common_and_compute(rule_fn, lower, a, b)
        promoted, ct = types
        np.copyto(outs[0], fn(cast(cast(a, promoted), ct), cast(cast(b, promoted), ct), attrs), casting="unsafe")
        if finish is not None:
            finish(outs[0])

    def kernel_scalar(outs, ins, attrs):
        a = ins[0]
        s = attrs["other"]
        key = (a.dtype, *_scalar_key(s))
        types = cache.get(key)
        if types is None:
            types = cache[key] = common_and_compute(rule_fn, lower, a.dtype, s)
        promoted, ct = types
        np.copyto(outs[0], fn(cast(cast(a, promoted), ct), scalar_array(s, promoted, ct, name), attrs), casting="unsafe")
        if finish is not None:
            finish(outs[0])

    register(name, kernel)
    if scalar:
        register(name + "_scalar", kernel_scalar)
