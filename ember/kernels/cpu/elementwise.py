"""CPU kernels of the elementwise ops.

NumPy's ufuncs write into ``out`` directly and handle broadcasting, strides and overlapping
input/output (in-place ops). As PyTorch does, a kernel computes in the *promoted* dtype of its
inputs (after the op's own rule, e.g. integers -> default float for ``sqrt``), then casts into
the output, which ``out=`` may have made wider. float16 and bfloat16 compute in float32 (PyTorch's
"opmath" type) and round once. The common case (all dtypes equal) is one ufunc call.

NumPy warns on floating-point events (``0/0``, overflow); PyTorch does not, so the kernels run
with NumPy's error reporting off, except the hot ``add``/``sub``/``mul`` fast paths, which cannot
afford the context switch.
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...dispatch.opexpr import register_kernel

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)
_LOW = frozenset({np.dtype(np.float16), _dt.bfloat16.numpy_dtype})
_EMBER = {d.numpy_dtype: d for d in _dt.ALL_DTYPES if d is not _dt.string}
_KIND = {n: d.kind for n, d in _EMBER.items()}  # NumPy calls bfloat16's kind 'V'

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


def _lower(np_dtype: np.dtype, lower: bool) -> np.dtype:
    return _F32 if lower and np_dtype in _LOW else np_dtype


def _types(rule, lower: bool, *dtypes) -> tuple[np.dtype, np.dtype]:
    """(common, compute) NumPy dtypes of inputs of these NumPy dtypes and Python scalars: the
    common dtype is PyTorch's: the promoted one after the op's rule (float for true division
    of integers); the compute dtype is float32 in place of float16 and bfloat16."""
    common = rule(_dt.result_type(*[_EMBER[d] if isinstance(d, np.dtype) else d for d in dtypes])).numpy_dtype
    return common, _lower(common, lower)


def _scalar_key(x) -> tuple:
    return (type(x), _dt.get_default_dtype())


def _as(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    return a if a.dtype is dtype or a.dtype == dtype else a.astype(dtype)


def _scalar_array(s, promoted: np.dtype, ct: np.dtype) -> np.ndarray:
    """A Python scalar as a 0-d array: first of the common dtype (PyTorch casts the scalar to
    it: ``uint8_t < -3`` compares with 253), then of the compute dtype."""
    if isinstance(s, int) and not isinstance(s, bool) and promoted.kind in "iu":
        info = np.iinfo(promoted)
        s = (s - int(info.min)) % (int(info.max) - int(info.min) + 1) + int(info.min)
    arr = np.asarray(s).astype(promoted)
    return arr if promoted == ct else arr.astype(ct)


def _kernel_name(fn, name: str):
    fn.__name__ = fn.__qualname__ = f"{name}_cpu"
    return fn


def _register(name: str, fn, *, silent: bool = True) -> None:
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
            ct = cache[key] = _types(rule_fn, lower, x.dtype)[1]
        ufunc(x, out=y, dtype=ct, casting="unsafe")

    _register(name, kernel)


def map1(name: str, fn, rule: str = "same", *, lower: bool = True) -> None:
    """A unary kernel from ``fn(x, attrs) -> array``; ``x`` arrives in the compute dtype."""
    rule_fn = RULES[rule]
    cache: dict = {}

    def kernel(outs, ins, attrs):
        x = ins[0]
        key = (x.dtype, _dt.get_default_dtype())
        ct = cache.get(key)
        if ct is None:
            ct = cache[key] = _types(rule_fn, lower, x.dtype)[1]
        np.copyto(outs[0], fn(_as(x, ct), attrs), casting="unsafe")

    _register(name, kernel)


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
        key = (a.dtype, b.dtype, _dt.get_default_dtype())
        types = cache.get(key)
        if types is None:
            types = cache[key] = _types(rule_fn, lower, a.dtype, b.dtype)
        promoted, ct = types
        ufunc(_as(a, promoted), _as(b, promoted), out=out, signature=(ct, ct, None), casting="unsafe")

    def kernel_scalar(outs, ins, attrs):
        out = outs[0]
        a = ins[0]
        s = attrs["other"]
        # (comparisons: an int scalar next to integers wraps into their dtype first, as in PyTorch)
        if a.dtype is out.dtype or (bool_out and (type(s) is not int or _KIND[a.dtype] not in "iu")):
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
            types = cache[key] = _types(rule_fn, lower, a.dtype, s)
        promoted, ct = types
        ufunc(_as(a, promoted), _scalar_array(s, promoted, ct), out=out, signature=(ct, ct, None), casting="unsafe")

    if not silent:  # the hot arithmetic: warnings off only on the slow paths
        slow, slow_scalar = quiet(slow), quiet(slow_scalar)
    _register(name, kernel, silent=silent)
    _register(name + "_scalar", kernel_scalar, silent=silent)


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
        key = (a.dtype, b.dtype, _dt.get_default_dtype())
        types = cache.get(key)
        if types is None:
            types = cache[key] = _types(rule_fn, lower, a.dtype, b.dtype)
        promoted, ct = types
        np.copyto(outs[0], fn(_as(_as(a, promoted), ct), _as(_as(b, promoted), ct), attrs), casting="unsafe")
        if finish is not None:
            finish(outs[0])

    def kernel_scalar(outs, ins, attrs):
        a = ins[0]
        s = attrs["other"]
        key = (a.dtype, *_scalar_key(s))
        types = cache.get(key)
        if types is None:
            types = cache[key] = _types(rule_fn, lower, a.dtype, s)
        promoted, ct = types
        np.copyto(outs[0], fn(_as(_as(a, promoted), ct), _scalar_array(s, promoted, ct), attrs), casting="unsafe")
        if finish is not None:
            finish(outs[0])

    _register(name, kernel)
    if scalar:
        _register(name + "_scalar", kernel_scalar)


# ---------------------------------------------------------------------------------------
# erf and erfc: W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev
# approximations for the error function", Math. Comp. 23 (1969) 631-638; the constants of
# his SPECFUN routine CALERF), accurate to float64 rounding. Evaluated in float64.

_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERF_C = (
    5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
    8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
    2.15311535474403846e-8,
)  # fmt: skip
_ERF_D = (
    1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
    3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03,
)  # fmt: skip
_ERF_P = (
    3.05326634961232344e-1,
    3.60344899949804439e-1,
    1.25781726111229246e-1,
    1.60837851487422766e-2,
    6.58749161529837803e-4,
    1.63153871373020978e-2,
)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2, 2.33520497626869185e-3)
_SQRT_PI_INV = 0.56418958354775628695


def _erf_parts(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For float64 ``x``: (small, erf(x) where |x| <= 0.46875, erfc(|x|) elsewhere)."""
    y = np.abs(x)
    small = y <= 0.46875
    # |x| <= 0.46875: erf(x) = x * A(x^2) / B(x^2)
    z = np.where(small, y * y, 0.0)
    num = _ERF_A[4] * z
    den = z.copy()
    for i in range(3):
        num = (num + _ERF_A[i]) * z
        den = (den + _ERF_B[i]) * z
    erf_small = x * (num + _ERF_A[3]) / (den + _ERF_B[3])
    # 0.46875 < |x| <= 4: erfc(|x|) = exp(-x^2) C(|x|) / D(|x|)
    mid = np.where(small | (y > 4.0), 1.0, y)
    num = _ERF_C[8] * mid
    den = mid.copy()
    for i in range(7):
        num = (num + _ERF_C[i]) * mid
        den = (den + _ERF_D[i]) * mid
    erfc_mid = (num + _ERF_C[7]) / (den + _ERF_D[7])
    # |x| > 4: erfc(|x|) = exp(-x^2) (1/sqrt(pi) - P(1/x^2) / Q(1/x^2)) / |x|
    big = np.where(y > 4.0, y, 5.0)
    z = 1.0 / (big * big)
    num = _ERF_P[5] * z
    den = z.copy()
    for i in range(4):
        num = (num + _ERF_P[i]) * z
        den = (den + _ERF_Q[i]) * z
    erfc_big = (_SQRT_PI_INV - z * (num + _ERF_P[4]) / (den + _ERF_Q[4])) / big
    scaled = np.where(y <= 4.0, erfc_mid, erfc_big)
    # exp(-y^2) split as exp(-t^2) exp(-(y-t)(y+t)), t = y rounded down to 1/16, to keep accuracy
    t = np.trunc(y * 16.0) / 16.0
    erfc_abs = np.exp(-t * t) * np.exp(-(y - t) * (y + t)) * scaled
    erfc_abs = np.where(y > 27.3, 0.0, erfc_abs)  # below the smallest subnormal (and inf - inf)
    erfc_abs = np.where(np.isnan(y), y, erfc_abs)
    return small, erf_small, erfc_abs


def erf(x: np.ndarray) -> np.ndarray:
    """erf of a float64 array (Cody): |error| ~ 1e-16."""
    small, erf_small, erfc_abs = _erf_parts(x)
    big = np.where(x < 0, erfc_abs - 1.0, 1.0 - erfc_abs)
    return np.where(small, erf_small, big)


def erfc(x: np.ndarray) -> np.ndarray:
    """erfc of a float64 array (Cody), accurate in relative terms far into the tail."""
    small, erf_small, erfc_abs = _erf_parts(x)
    big = np.where(x < 0, 2.0 - erfc_abs, erfc_abs)
    return np.where(small, 1.0 - erf_small, big)


def _in64(fn):
    """``fn`` evaluated in float64, returned in the input's dtype."""

    def wrapped(x, attrs):
        return fn(x.astype(_F64, copy=False)).astype(x.dtype, copy=False)

    return wrapped


# ---------------------------------------------------------------------------------------
# unary kernels

for _name, _ufunc in {
    "neg": np.negative, "square": np.square, "bitwise_not": np.invert,
}.items():  # fmt: skip
    ufunc1(_name, _ufunc, "long" if _name == "square" else "same")
for _name, _ufunc in {
    "sqrt": np.sqrt, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2,
    "log10": np.log10, "log1p": np.log1p, "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "reciprocal": np.reciprocal,
}.items():  # fmt: skip
    ufunc1(_name, _ufunc, "float")


_ZEROS: dict = {}  # a 0-d zero per dtype: np.maximum(x, zero) is ~3x faster than np.maximum(x, 0)
_ZERO_ROWS: dict = {}  # zeros to compare arrays with elementwise: NumPy's maximum has no SIMD loop against a 0-d operand
_ZERO_ROWS_LIMIT = 1 << 18  # elements per call (1 MiB of float32): larger contiguous arrays go through in slices of this many
# (shape, dtype) -> _ZERO_ROWS shaped like x: slicing and reshaping it was ~1 us of a (64, 200) relu's ~3.5
_ZERO_VIEWS: dict = {}
_ZERO_VIEWS_LIMIT = 64


def relu(outs, ins, attrs):
    x, out = ins[0], outs[0]
    zeros = _ZERO_VIEWS.get((x.shape, x.dtype))
    if zeros is not None:
        np.maximum(x, zeros, out=out)
        return
    n = x.size
    if n == 0:
        return
    rows = _ZERO_ROWS.get(x.dtype)
    if rows is None:
        rows = _ZERO_ROWS[x.dtype] = np.zeros(_ZERO_ROWS_LIMIT, x.dtype)
    if n <= _ZERO_ROWS_LIMIT:  # (64, 200) float32: 1.8 us against 5.5 with the 0-d zero
        zeros = rows[:n].reshape(x.shape)
        if len(_ZERO_VIEWS) >= _ZERO_VIEWS_LIMIT:
            _ZERO_VIEWS.clear()
        _ZERO_VIEWS[(x.shape, x.dtype)] = zeros
        np.maximum(x, zeros, out=out)
        return
    if x.flags.c_contiguous and out.flags.c_contiguous:  # (256, 1024) float32: 40 us against 98
        flat_x, flat_out = x.reshape(-1), out.reshape(-1)
        for start in range(0, n, _ZERO_ROWS_LIMIT):
            stop = min(start + _ZERO_ROWS_LIMIT, n)
            np.maximum(flat_x[start:stop], rows[: stop - start], out=flat_out[start:stop])
        return
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = np.zeros((), x.dtype)
    np.maximum(x, zero, out=out)


register_kernel("relu")(relu)


def _sigmoid(x):
    if x.dtype.kind == "c":
        return 1 / (1 + np.exp(-x))
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


map1("rsqrt", lambda x, a: 1 / np.sqrt(x), "float")
map1("sigmoid", lambda x, a: _sigmoid(x), "float")
map1("silu", lambda x, a: x * _sigmoid(x))
map1("abs", lambda x, a: np.abs(x))
map1("erf", _in64(erf), "float")
map1("erfc", _in64(erfc), "float")

_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)


def _gelu(x, attrs):
    if attrs["approximate"] == "tanh":
        return 0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    x64 = x.astype(_F64, copy=False)
    return (0.5 * x64 * erfc(-x64 * _SQRT_HALF)).astype(x.dtype, copy=False)


def _softplus(x, attrs):
    beta, threshold = attrs["beta"], attrs["threshold"]
    bx = x * x.dtype.type(beta)
    return np.where(bx > threshold, x, np.logaddexp(0, bx) / x.dtype.type(beta))


def _hardtanh(x, attrs):
    lo, hi = attrs["min_val"], attrs["max_val"]
    if x.dtype.kind in "iu":
        lo, hi = int(lo), int(hi)
    return np.minimum(np.maximum(x, x.dtype.type(lo)), x.dtype.type(hi))


map1("gelu", _gelu)
map1("softplus", _softplus)
map1("elu", lambda x, a: np.where(x > 0, x, x.dtype.type(a["alpha"]) * np.expm1(x)))
map1("leaky_relu", lambda x, a: np.where(x > 0, x, x * x.dtype.type(a["negative_slope"])))
map1("hardtanh", _hardtanh)


def _sign(x, attrs):
    if _KIND[x.dtype] == "b":
        return x
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


def _sgn(x, attrs):
    if x.dtype.kind != "c":
        return _sign(x, attrs)
    r = np.abs(x)
    return np.where(r == 0, 0, x / np.where(r == 0, 1, r))


map1("sign", _sign, lower=False)
map1("sgn", _sgn)


def _integral_identity(ufunc):
    def fn(x, attrs):
        return x if x.dtype.kind in "iub" else ufunc(x)

    return fn


map1("floor", _integral_identity(np.floor))
map1("ceil", _integral_identity(np.ceil))
map1("trunc", _integral_identity(np.trunc))


def _round(x, attrs):
    if x.dtype.kind in "iub":
        return x
    decimals = attrs["decimals"]
    if decimals == 0:
        return np.rint(x)
    # PyTorch's formula: scale by 10**decimals, round half to even, unscale
    if decimals > 0:
        ten = x.dtype.type(10.0**decimals)
        return np.rint(x * ten) / ten
    ten = x.dtype.type(10.0**-decimals)
    return np.rint(x / ten) * ten


map1("round", _round)
map1("frac", lambda x, a: x - np.trunc(x))


def _float_test(ufunc, integral_value: bool):
    def fn(x, attrs):
        if _KIND[x.dtype] in "iub":
            return np.full(x.shape, integral_value)
        return ufunc(x)

    return fn


map1("isnan", _float_test(np.isnan, False), lower=False)
map1("isinf", _float_test(np.isinf, False), lower=False)
map1("isfinite", _float_test(np.isfinite, True), lower=False)


def _signbit(x, attrs):
    if _KIND[x.dtype] == "f":
        return np.signbit(x)
    if _KIND[x.dtype] == "i":
        return x < 0
    return np.zeros(x.shape, _BOOL)


map1("signbit", _signbit, lower=False)
map1("logical_not", lambda x, a: np.logical_not(x), lower=False)
map1("conj_physical", lambda x, a: np.conjugate(x) if _KIND[x.dtype] == "c" else x, lower=False)


def _angle(x, attrs):
    if x.dtype.kind == "c":
        return np.angle(x)
    return np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(math.pi), x.dtype.type(0)))


map1("angle", _angle, "float")


def _nan_to_num(x, attrs):
    kind = _KIND[x.dtype]
    if kind == "c":
        parts = x.real, x.imag
        out = np.empty_like(x)
        out.real, out.imag = (_nan_to_num(p, attrs) for p in parts)
        return out
    if kind != "f":
        return x
    info = np.finfo(x.dtype) if x.dtype not in _LOW else _dt.finfo(_EMBER[x.dtype])
    nan, posinf, neginf = attrs["nan"], attrs["posinf"], attrs["neginf"]
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    out = np.where(np.isnan(x), x.dtype.type(nan if nan is not None else 0.0), x)
    out = np.where(out == np.inf, x.dtype.type(posinf), out)
    return np.where(out == -np.inf, x.dtype.type(neginf), out)


map1("nan_to_num", _nan_to_num, lower=False)


@quiet
def clamp(outs, ins, attrs):
    x = ins[0]
    lo, hi = attrs["min"], attrs["max"]
    promoted, ct = _types(_same, True, x.dtype, *[v for v in (lo, hi) if v is not None])
    r = _as(_as(x, promoted), ct)
    if lo is not None:
        r = np.maximum(r, _scalar_array(lo, promoted, ct))
    if hi is not None:
        r = np.minimum(r, _scalar_array(hi, promoted, ct))
    np.copyto(outs[0], r, casting="unsafe")


register_kernel("clamp")(clamp)


# ---------------------------------------------------------------------------------------
# binary kernels

ufunc2("add", np.add, silent=False)
ufunc2("sub", np.subtract, silent=False)
ufunc2("mul", np.multiply, silent=False)
ufunc2("div", np.true_divide, "float")
for _name, _ufunc in {
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin, "hypot": np.hypot,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift,
}.items():  # fmt: skip
    ufunc2(_name, _ufunc)
ufunc2("nextafter", np.nextafter, lower=False)  # steps in the dtype's own grid
ufunc2("atan2", np.arctan2, "float")
ufunc2("copysign", np.copysign, "float")
for _name, _ufunc in {
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
}.items():  # fmt: skip
    ufunc2(_name, _ufunc, lower=False, bool_out=True)


def _logical(ufunc):
    def fn(a, b, attrs):
        return ufunc(a.astype(_BOOL, copy=False), b.astype(_BOOL, copy=False))

    return fn


for _name, _ufunc in {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}.items():
    map2(_name, _logical(_ufunc), lower=False)


def _int_checked(fn):
    """Integer division by zero: PyTorch raises ``RuntimeError: ZeroDivisionError``."""

    def checked(a, b, attrs):
        if a.dtype.kind in "iub" and a.size and not np.all(b):  # (an empty result divides nothing)
            raise RuntimeError("ZeroDivisionError")
        return fn(a, b)

    return checked


def _div_trunc(a, b):
    if a.dtype.kind in "iu":
        return (a - np.fmod(a, b)) // b
    return a / b  # truncated by _trunc_float_result once rounded to the result dtype


def _trunc_float_result(out: np.ndarray) -> None:
    # PyTorch rounds a float16/bfloat16 quotient to its dtype before truncating (9.99 -> 10 -> 10)
    if out.dtype.kind not in "iub":
        np.trunc(out, out=out)


map2("div_trunc", _int_checked(_div_trunc), finish=_trunc_float_result)
map2("floor_divide", _int_checked(np.floor_divide))
map2("remainder", _int_checked(np.remainder))
map2("fmod", _int_checked(np.fmod))


def _logaddexp(a, b, attrs):
    if a.dtype.kind != "c":
        return np.logaddexp(a, b)
    # complex: the operand with the larger real part factors out, as PyTorch's kernel does
    first = a.real >= b.real
    hi, lo = np.where(first, a, b), np.where(first, b, a)
    return hi + np.log1p(np.exp(lo - hi))


map2("logaddexp", _logaddexp)


def _pow(a, b, attrs):
    if a.dtype.kind == "b":  # x ** True is x, x ** False is True
        return a | ~b
    if a.dtype.kind == "i":
        negative = b < 0
        if np.any(negative):
            # integer ** negative integer, as C truncates 1 / a**|b|: 1 for 1, +-1 for -1, else 0
            a, b, negative = np.broadcast_arrays(a, b, negative)
            r = np.power(a, np.where(negative, 0, b))
            odd = (b & 1).astype(_BOOL)
            special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)).astype(a.dtype)
            return np.where(negative, special, r)
    return np.power(a, b)


map2("pow", _pow)


def _add_alpha(a, b, attrs):
    alpha = attrs["alpha"]
    if a.dtype.kind == "b":
        return a | (b & bool(alpha))
    return a + b * _scalar_array(alpha, a.dtype, a.dtype)


def _add_alpha_same_float(outs, ins, attrs) -> bool:
    """An optimizer's ``p.add_(g, alpha=-lr)``: one float32/float64 dtype throughout and a real
    alpha, in two ufunc calls (``b * alpha`` is a fresh temporary, so any aliasing is safe)."""
    out = outs[0]
    a, b = ins
    dtype = out.dtype
    alpha = attrs["alpha"]
    if a.dtype != dtype or b.dtype != dtype or dtype.kind != "f" or dtype.itemsize < 4:
        return False
    if type(alpha) is not float and not (type(alpha) is int and -(2**31) < alpha < 2**31):
        return False
    np.add(a, np.multiply(b, alpha, dtype=dtype), out=out)
    return True


map2("add_alpha", _add_alpha, scalar=False, first=_add_alpha_same_float)


@register_kernel("foreach_add_alpha")
def _foreach_add_alpha(outs, ins, attrs):
    """``self[i] += alpha * other[i]`` for each pair (the rule checked shapes and dtypes)."""
    alpha = float(attrs["alpha"])
    n = len(outs)
    for out, a, b in zip(outs, ins[:n], ins[n:], strict=True):
        if out.dtype.itemsize >= 4:
            np.add(a, np.multiply(b, alpha, dtype=out.dtype), out=out)
        else:  # float16 and bfloat16 compute in float32, as add_ does
            np.copyto(out, np.add(a, np.multiply(b, alpha, dtype=_F32), dtype=_F32), casting="unsafe")


@register_kernel("foreach_adam")
@quiet
def _foreach_adam(outs, ins, attrs):
    """Adam's step per parameter, each line the NumPy call of the op :class:`ember.optim.Adam`
    runs there (so the two agree bit for bit); the step count is read back as a Python number
    and the bias corrections are computed in double, as PyTorch does."""
    amsgrad = attrs["amsgrad"]
    n = len(ins) // (6 if amsgrad else 5)
    lr, beta1, beta2, eps, wd = attrs["lr"], attrs["beta1"], attrs["beta2"], attrs["eps"], attrs["weight_decay"]
    for i in range(n):  # outs: params, exp_avgs, exp_avg_sqs, steps (and maxima), the inputs' memory
        g = ins[n + i]
        p, m, v, step = outs[i], outs[n + i], outs[2 * n + i], outs[3 * n + i]
        dtype = p.dtype
        np.add(step, 1, out=step)  # step_t.add_(1)
        if attrs["maximize"]:
            g = np.negative(g)
        if wd != 0:
            if attrs["decoupled"]:
                np.multiply(p, 1 - lr * wd, out=p)  # p.mul_(1 - lr * wd)
            else:
                g = np.add(g, np.multiply(p, wd, dtype=dtype))  # grad.add(p, alpha=wd)
        _lerp_into(m, g, 1 - beta1)  # exp_avg.lerp_(grad, 1 - beta1)
        np.multiply(v, beta2, out=v)  # exp_avg_sq.mul_(beta2), then += (grad * grad) * (1 - beta2)
        np.add(v, np.multiply(np.multiply(g, g), 1 - beta2, dtype=dtype), out=v)
        t = float(step)
        step_size = lr / (1 - beta1**t)
        bias_correction2_sqrt = (1 - beta2**t) ** 0.5
        if amsgrad:
            vmax = outs[4 * n + i]
            np.maximum(vmax, v, out=vmax)
            v = vmax
        denom = np.true_divide(np.sqrt(v), bias_correction2_sqrt)
        np.add(denom, eps, out=denom)
        np.add(p, np.multiply(np.true_divide(m, denom), -step_size, dtype=dtype), out=p)  # addcdiv_(p, m, denom, -step_size)


def _lerp_into(a: np.ndarray, b: np.ndarray, weight: float) -> None:
    """``a = lerp(a, b, weight)`` in place, by :func:`_lerp`'s formula for a scalar weight."""
    w = np.asarray(weight).astype(a.dtype)
    d = b - a
    if abs(w) < 0.5:
        np.add(a, w * d, out=a)
    else:
        np.subtract(b, d * (1 - w), out=a)


@register_kernel("threshold_backward")
def _threshold_backward(outs, ins, attrs):
    """The gradient where the output is above the threshold, zero elsewhere (and where it is NaN)."""
    g, y = ins
    threshold = attrs["threshold"]
    if threshold == 0:  # relu's: a cached 0-d zero (NumPy converts a Python float on every call)
        threshold = _ZEROS.get(y.dtype)
        if threshold is None:
            threshold = _ZEROS[y.dtype] = np.zeros((), y.dtype)
    # the mask as floats first: multiplying by a bool array runs a slow casting loop (6.7 -> 4.5 us on 64x200)
    np.multiply(g, np.greater(y, threshold).astype(g.dtype), out=outs[0])


# ---------------------------------------------------------------------------------------
# three inputs and whole-tensor comparisons


@quiet
def where(outs, ins, attrs):
    c, a, b = ins
    promoted = _dt.promote_types(_EMBER[a.dtype], _EMBER[b.dtype]).numpy_dtype
    np.copyto(outs[0], np.where(c, _as(a, promoted), _as(b, promoted)), casting="unsafe")


register_kernel("where")(where)


def _lerp(a, b, w):
    # PyTorch's form: exact at both ends, monotone
    d = b - a
    return np.where(np.abs(w) < 0.5, a + w * d, b - d * (1 - w))


@quiet
def lerp(outs, ins, attrs):
    a, b, w = ins
    ct = _lower(a.dtype, True)
    np.copyto(outs[0], _lerp(_as(a, ct), _as(b, ct), _as(w, ct)), casting="unsafe")


@quiet
def lerp_scalar(outs, ins, attrs):
    a, b = ins
    ct = _lower(a.dtype, True)
    a, b, w = _as(a, ct), _as(b, ct), np.asarray(attrs["weight"]).astype(ct)
    d = b - a  # _lerp's formula, its branch chosen once for the one weight
    np.copyto(outs[0], a + w * d if np.abs(w) < 0.5 else b - d * (1 - w), casting="unsafe")


register_kernel("lerp")(lerp)
register_kernel("lerp_scalar")(lerp_scalar)


@quiet
def isclose(outs, ins, attrs):
    """PyTorch's formula: a == b, or |a - b| finite and <= atol + |rtol * b|, each step rounded to
    the dtype (integers compute in the default float dtype)."""
    a, b = ins
    dt = a.dtype if _KIND[a.dtype] in "fc" else _dt.get_default_dtype().numpy_dtype
    ct = _lower(dt, True)
    rnd = (lambda x: x.astype(dt).astype(ct)) if ct is not dt else (lambda x: x)
    rtol, atol = attrs["rtol"], attrs["atol"]
    close = a == b
    af, bf = _as(a, ct), _as(b, ct)
    if attrs["equal_nan"]:
        close |= np.isnan(af) & np.isnan(bf)
    if rtol or atol:
        allowed = rnd(atol + rnd(np.abs(rnd(rtol * bf))))
        actual = rnd(np.abs(rnd(af - bf)))
        close |= np.isfinite(actual) & (actual <= allowed)
    np.copyto(outs[0], close)


register_kernel("isclose")(isclose)
