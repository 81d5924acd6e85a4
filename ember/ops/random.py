"""Random ops: sampling functors, their primitives and inference rules.

Every op takes ``generator=None`` (the default is ``ember.default_generator``, seeded by
``ember.manual_seed``) and hands the ``Generator`` to its kernel as an attribute; the kernel
draws from ``generator.numpy()`` (NumPy's PCG64), so the same seed gives the same values on
every run. Samplers without tensor inputs dispatch with ``inputs=()``: ``rand`` and the
in-place ``uniform_`` are one primitive, without and with an output. Kernels are in
``ember/kernels/cpu/random.py``.

>>> import ember
>>> _ = ember.manual_seed(0); a = ember.rand((3,)).tolist()
>>> _ = ember.manual_seed(0); ember.rand((3,)).tolist() == a
True
"""

from __future__ import annotations

import operator

from .._core import dtype as _dt
from .._core.device import CPU
from .._core.generator import Generator, default_generator
from .._core.shape import Size, check_size
from .._core.tensor import Tensor
from ..dispatch import OpExpr, dispatch
from .common import broadcast_pair
from .creation import broadcastable_to, check_kinds, check_requires_grad
from .functor import functor
from .schema import schema_family

declare = schema_family("random")

__all__ = ["RANDOM_OPS"]

RANDOM_OPS: dict[str, OpExpr] = {}
_FLOATING = ("real floating",)
_FLOAT_OR_COMPLEX = ("real floating", "complex floating")


def _sampler(name: str) -> OpExpr:
    """A primitive with no tensor inputs: attrs shape, dtype, device, generator and the
    distribution's parameters."""
    op = OpExpr(name, (), ("out",))

    @op.shape_rule
    def infer(attrs):
        return ((attrs["shape"], attrs["dtype"]),)

    RANDOM_OPS[name] = op
    return op


UNIFORM = _sampler("uniform")
NORMAL = _sampler("normal")
RANDINT = _sampler("randint")
RANDPERM = _sampler("randperm")
BERNOULLI_SCALAR = _sampler("bernoulli_scalar")
EXPONENTIAL = _sampler("exponential")
GEOMETRIC = _sampler("geometric")
LOG_NORMAL = _sampler("log_normal")
CAUCHY = _sampler("cauchy")


def _gen(generator, device) -> Generator:
    g = default_generator if generator is None else generator
    if device.type not in ("meta", g.device.type):
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found '{g.device.type}'")
    return g


def _sample(op: OpExpr, name: str, shape, dtype, device, generator, params: dict, requires_grad=False) -> Tensor:
    """A new tensor drawn by ``op``."""
    shape = tuple(shape)
    check_size(shape, name)
    device = CPU if device is None else device
    attrs = {"shape": shape, "dtype": dtype, "device": device, "generator": _gen(generator, device), **params}
    return check_requires_grad(dispatch(op, (), attrs)[0], requires_grad)


def _sample_into(op: OpExpr, out: Tensor, generator, params: dict) -> Tensor:
    """Draw into ``out`` in place."""
    device = out._storage._device
    attrs = {"shape": out._shape, "dtype": out._dtype, "device": device, "generator": _gen(generator, device), **params}
    return dispatch(op, (), attrs, (out,))[0]


def _float_dtype(op: str, dtype, kinds=_FLOAT_OR_COMPLEX) -> _dt.DType:
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    check_kinds(op, "dtype", dtype, kinds)
    return dtype


# --- uniform ----------------------------------------------------------------------------


declare(
    "rand",
    "Tensor (IntList size, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Rand",
    differentiable=False, op="uniform",
    doc="""
    Uniform samples in [0, 1) (real and imaginary parts for complex dtypes). The size is a tuple: rand((2, 3)).

    >>> _ = ember.manual_seed(0)
    >>> x = ember.rand((2, 3)); x.shape, all(0 <= v < 1 for v in x.flatten().tolist())
    (ember.Size([2, 3]), True)
    """,
)
@functor("Rand")
def rand(size, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = _float_dtype("rand", dtype)
    return _sample(UNIFORM, "rand", size, dtype, device, generator, {"low": 0.0, "high": 1.0}, requires_grad)


declare(
    "rand_like",
    "Tensor (Tensor input, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => RandLike",
    differentiable=False, op="uniform",
    doc="rand with input's shape, dtype and device.",
)
@functor("RandLike")
def rand_like(input, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = _float_dtype("rand_like", input._dtype if dtype is None else dtype)
    device = input._storage._device if device is None else device
    return _sample(UNIFORM, "rand_like", input._shape, dtype, device, generator, {"low": 0.0, "high": 1.0}, requires_grad)


declare(
    "Tensor.uniform_",
    "Tensor (Tensor input, Float low=0.0, Float high=1.0, *, Generator? generator=None) => Uniform_",
    method=True, differentiable=False, op="uniform",
    doc="Fill with uniform samples in [low, high).",
)
@functor("Uniform_")
def uniform_(self, low=0.0, high=1.0, generator=None):
    check_kinds("uniform_", "self", self._dtype, _FLOAT_OR_COMPLEX)
    if low > high:
        raise RuntimeError(f"uniform_(): expects to return a [from, to) range, but found from={low} > to={high}")
    return _sample_into(UNIFORM, self, generator, {"low": float(low), "high": float(high)})


# --- normal -----------------------------------------------------------------------------


def _check_std(op: str, std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"{op}(): expects std >= 0.0, but found std {std}")


declare(
    "randn",
    "Tensor (IntList size, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Randn",
    differentiable=False, op="normal",
    doc="Standard normal samples (a complex normal has variance 1 in all). The size is a tuple.",
)
@functor("Randn")
def randn(size, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = _float_dtype("randn", dtype)
    return _sample(NORMAL, "randn", size, dtype, device, generator, {"mean": 0.0, "std": 1.0}, requires_grad)


declare(
    "randn_like",
    "Tensor (Tensor input, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => RandnLike",
    differentiable=False, op="normal",
    doc="randn with input's shape, dtype and device.",
)
@functor("RandnLike")
def randn_like(input, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = _float_dtype("randn_like", input._dtype if dtype is None else dtype)
    device = input._storage._device if device is None else device
    return _sample(NORMAL, "randn_like", input._shape, dtype, device, generator, {"mean": 0.0, "std": 1.0}, requires_grad)


declare(
    "Tensor.normal_",
    "Tensor (Tensor input, Float mean=0.0, Float std=1.0, *, Generator? generator=None) => Normal_",
    method=True, differentiable=False, op="normal",
    doc="Fill with normal samples of the given mean and standard deviation.",
)
@functor("Normal_")
def normal_(self, mean=0.0, std=1.0, generator=None):
    check_kinds("normal_", "self", self._dtype, _FLOAT_OR_COMPLEX)
    _check_std("normal_", std)
    return _sample_into(NORMAL, self, generator, {"mean": float(mean), "std": float(std)})


NORMAL_TENSOR = OpExpr("normal_tensor", ("mean", "std"), ("out",))
RANDOM_OPS["normal_tensor"] = NORMAL_TENSOR


@NORMAL_TENSOR.shape_rule
def _infer_normal_tensor(attrs, mean, std):
    check_kinds("normal", "mean", mean._dtype, _FLOATING)
    check_kinds("normal", "std", std._dtype, _FLOATING)
    return ((broadcast_pair(mean._shape, std._shape), mean._dtype),)


def _normal_tensors(mean: Tensor, std: Tensor, generator, out):
    attrs = {"generator": _gen(generator, mean._storage._device)}
    return dispatch(NORMAL_TENSOR, (mean, std), attrs, None if out is None else (out,))[0]


def _scalar_tensor(value: float, like: Tensor) -> Tensor:
    from .creation import new_filled

    return new_filled((), like._dtype, like._storage._device, value, "normal")


declare(
    "normal",
    [
        "Tensor (Tensor mean, Tensor std, *, Generator? generator=None) => NormalTensorTensor",
        "Tensor (Tensor mean, Float std=1.0, *, Generator? generator=None) => NormalTensorFloat",
        "Tensor (Float mean, Tensor std, *, Generator? generator=None) => NormalFloatTensor",
        "Tensor (Float mean, Float std, IntList size, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => NormalFloatFloat",
    ],
    out=True, differentiable=False, op=("normal_tensor", "normal"),
    doc="""
    Normal samples with the given means and standard deviations (tensors broadcast together, or floats with a size).

    >>> ember.normal(ember.zeros(2, 1), ember.ones(3)).shape
    ember.Size([2, 3])
    """,
)
@functor("NormalTensorTensor")
def normal_tensor_tensor(mean, std, generator=None, out=None):
    return _normal_tensors(mean, std, generator, out)


@functor("NormalTensorFloat")
def normal_tensor_float(mean, std=1.0, generator=None, out=None):
    _check_std("normal", std)
    check_kinds("normal", "mean", mean._dtype, _FLOATING)
    return _normal_tensors(mean, _scalar_tensor(std, mean), generator, out)


@functor("NormalFloatTensor")
def normal_float_tensor(mean, std, generator=None, out=None):
    check_kinds("normal", "std", std._dtype, _FLOATING)
    return _normal_tensors(_scalar_tensor(mean, std), std, generator, out)


@functor("NormalFloatFloat")
def normal_float_float(mean, std, size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    _check_std("normal", std)
    params = {"mean": float(mean), "std": float(std)}
    if out is not None:
        if tuple(size) != out._shape:
            raise RuntimeError(f"normal(): output with shape {list(out._shape)} doesn't match the requested size {list(size)}")
        check_kinds("normal", "out", out._dtype, _FLOATING)
        return _sample_into(NORMAL, out, generator, params)
    dtype = _float_dtype("normal", dtype, _FLOATING)
    return _sample(NORMAL, "normal", size, dtype, device, generator, params, requires_grad)


# --- integers ---------------------------------------------------------------------------


def _int_bounds(dtype: _dt.DType) -> tuple[int, int]:
    """The values ``dtype`` holds exactly: its range for integers, +-2**digits for floats."""
    if dtype is _dt.bool_:
        return 0, 1
    if dtype.kind in "iu":
        info = _dt.iinfo(dtype)
        return int(info.min), int(info.max)
    digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dtype.name]
    return -(2**digits), 2**digits


def _check_range(op: str, low: int, high: int, dtype: _dt.DType) -> None:
    if low >= high:
        raise RuntimeError(f"{op}(): random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    lo, hi = _int_bounds(dtype)
    if not lo <= low <= hi:
        raise RuntimeError(f"{op}(): from={low} is out of bounds for {dtype}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"{op}(): to - 1 = {high - 1} is out of bounds for {dtype}")


def _as_int(value, op: str, arg: str) -> int:
    if isinstance(value, (bool, float)) or value is None:
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}(): argument '{arg}' must be int, not {type(value).__name__}") from None


declare(
    "randint",
    "Tensor (Int? low=None, Object high=None, IntList? size=None, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Randint",
    differentiable=False,
    doc="""
    Integers drawn uniformly from [low, high): randint(high, size) or randint(low, high, size); int64 unless dtype says otherwise.

    >>> _ = ember.manual_seed(0)
    >>> x = ember.randint(3, 5, (4,)); x.dtype, sorted(set(x.tolist())) <= [3, 4]
    (ember.int64, True)
    """,
)
@functor("Randint")
def randint(low=None, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False):
    """``randint(high, size)`` or ``randint(low, high, size)``."""
    from .args import to_int_list

    if size is None and isinstance(high, (tuple, list, Size)):
        size, high, low = high, low, 0  # randint(high, size)
    elif high is None:
        high, low = low, 0
    if size is None:
        raise TypeError("randint(): missing required argument 'size'")
    if low is None:
        low = 0
    low, high = _as_int(low, "randint", "low"), _as_int(high, "randint", "high")
    size = to_int_list(size, "randint", "size", 3)
    dtype = _dt.int64 if dtype is None else dtype
    check_kinds("randint", "dtype", dtype, ("bool", "integral", "real floating"))
    _check_range("randint", low, high, dtype)
    return _sample(RANDINT, "randint", size, dtype, device, generator, {"low": low, "high": high}, requires_grad)


declare(
    "randint_like",
    "Tensor (Tensor input, Int? low=None, Int? high=None, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => RandintLike",
    differentiable=False, op="randint",
    doc="""
    randint with input's shape, dtype and device; randint_like(input, high) or randint_like(input, low, high).
    """,
)
@functor("RandintLike")
def randint_like(input, low=None, high=None, generator=None, dtype=None, device=None, requires_grad=False):
    if high is None:
        if low is None:
            raise TypeError("randint_like(): missing required argument 'high'")
        low, high = 0, low
    low = 0 if low is None else low
    dtype = input._dtype if dtype is None else dtype
    check_kinds("randint_like", "dtype", dtype, ("bool", "integral", "real floating"))
    _check_range("randint_like", low, high, dtype)
    device = input._storage._device if device is None else device
    return _sample(RANDINT, "randint_like", input._shape, dtype, device, generator, {"low": low, "high": high}, requires_grad)


declare(
    "Tensor.random_",
    "Tensor (Tensor input, Int? low=None, Int? high=None, *, Generator? generator=None) => Random_",
    method=True, differentiable=False, op="randint",
    doc="""
    Fill with integers from [low, high): random_(high), random_(low, high), or random_() for every integer the dtype holds exactly from 0.

    >>> ember.zeros(3, dtype=ember.int8).random_(1, 2).tolist()
    [1, 1, 1]
    """,
)
@functor("Random_")
def random_(self, low=None, high=None, generator=None):
    """``random_()``: every value the dtype holds exactly from 0; ``random_(to)``; ``random_(from, to)``."""
    check_kinds("random_", "self", self._dtype, ("bool", "integral", "real floating"))
    if high is None:
        low, high = 0, (_int_bounds(self._dtype)[1] + 1 if low is None else low)
    low = 0 if low is None else low
    _check_range("random_", low, high, self._dtype)
    return _sample_into(RANDINT, self, generator, {"low": low, "high": high})


declare(
    "randperm",
    "Tensor (Int n, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => Randperm",
    differentiable=False,
    doc="""
    A random permutation of 0 .. n-1.

    >>> sorted(ember.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """,
)
@functor("Randperm")
def randperm(n, generator=None, dtype=None, device=None, requires_grad=False):
    if n < 0:
        raise RuntimeError(f"randperm(): n must be non-negative, got {n}")
    dtype = _dt.int64 if dtype is None else dtype
    check_kinds("randperm", "dtype", dtype, ("integral", "real floating"))
    if n > 0 and n - 1 > _int_bounds(dtype)[1]:
        raise RuntimeError(f"randperm(): n={n} is too large for {dtype}")
    return _sample(RANDPERM, "randperm", (n,), dtype, device, generator, {}, requires_grad)


# --- bernoulli, multinomial ---------------------------------------------------------------

BERNOULLI = OpExpr("bernoulli", ("p",), ("out",))
RANDOM_OPS["bernoulli"] = BERNOULLI


@BERNOULLI.shape_rule
def _infer_bernoulli(attrs, p):
    check_kinds("bernoulli", "p", p._dtype, _FLOATING)
    shape = attrs["shape"]
    if shape is None:
        return ((p._shape, p._dtype),)
    if not broadcastable_to(p._shape, shape):
        raise RuntimeError(f"bernoulli_(): p of shape {list(p._shape)} cannot be broadcast to the shape {list(shape)} of self")
    return ((shape, attrs["dtype"]),)


def _check_p(op: str, p: float) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"{op}(): expects p to be in [0, 1], but got p={p}")


declare(
    "bernoulli",
    [
        "Tensor (Tensor input, *, Generator? generator=None) => Bernoulli",
        "Tensor (Tensor input, Float p, *, Generator? generator=None) => BernoulliScalar",
    ],
    method=True, out=True, differentiable=False, op=("bernoulli", "bernoulli_scalar"),
    doc="""
    0/1 samples, 1 with probability input (elementwise), or with probability p in input's shape; input's dtype.

    >>> ember.bernoulli(ember.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """,
)
@functor("Bernoulli")
def bernoulli(input, generator=None, out=None):
    attrs = {"shape": None, "dtype": None, "generator": _gen(generator, input._storage._device)}
    return dispatch(BERNOULLI, (input,), attrs, None if out is None else (out,))[0]


@functor("BernoulliScalar")
def bernoulli_scalar(input, p, generator=None, out=None):
    _check_p("bernoulli", p)
    if out is not None:
        return _sample_into(BERNOULLI_SCALAR, out, generator, {"p": p})
    return _sample(BERNOULLI_SCALAR, "bernoulli", input._shape, input._dtype, input._storage._device, generator, {"p": p})


declare(
    "Tensor.bernoulli_",
    [
        "Tensor (Tensor input, Tensor p, *, Generator? generator=None) => BernoulliInplaceTensor",
        "Tensor (Tensor input, Float p=0.5, *, Generator? generator=None) => BernoulliInplace",
    ],
    method=True, differentiable=False, op=("bernoulli", "bernoulli_scalar"),
    doc="""
    Fill with 0/1 samples, 1 with probability p (a float, or a tensor broadcast to this shape).
    """,
)
@functor("BernoulliInplaceTensor")
def bernoulli_inplace_tensor(self, p, generator=None):
    check_kinds("bernoulli_", "self", self._dtype, ("bool", "integral", "real floating"))
    attrs = {"shape": self._shape, "dtype": self._dtype, "generator": _gen(generator, self._storage._device)}
    return dispatch(BERNOULLI, (p,), attrs, (self,))[0]


@functor("BernoulliInplace")
def bernoulli_inplace(self, p=0.5, generator=None):
    check_kinds("bernoulli_", "self", self._dtype, ("bool", "integral", "real floating"))
    _check_p("bernoulli_", p)
    return _sample_into(BERNOULLI_SCALAR, self, generator, {"p": p})


MULTINOMIAL = OpExpr("multinomial", ("probs",), ("out",))
RANDOM_OPS["multinomial"] = MULTINOMIAL


@MULTINOMIAL.shape_rule
def _infer_multinomial(attrs, probs):
    if probs.ndim not in (1, 2):
        raise RuntimeError(f"multinomial(): prob_dist must be 1 or 2 dim, got {probs.ndim}")
    if not probs._dtype.is_floating_point:
        raise RuntimeError(f"multinomial(): only supports floating-point dtypes for input, got {probs._dtype}")
    n = attrs["num_samples"]
    categories = probs._shape[-1]
    if n <= 0:
        raise RuntimeError(f"multinomial(): cannot sample n_sample <= 0 samples (got num_samples={n})")
    if not attrs["replacement"] and n > categories:
        raise RuntimeError(f"multinomial(): cannot sample n_sample > prob_dist.size(-1) samples without replacement ({n} > {categories})")
    if categories == 0:
        raise RuntimeError("multinomial(): number of categories cannot be zero")
    return (((*probs._shape[:-1], n), _dt.int64),)


declare(
    "multinomial",
    "Tensor (Tensor input, Int num_samples, Bool replacement=False, *, Generator? generator=None) => Multinomial",
    method=True, out=True, differentiable=False,
    doc="""
    Category indices drawn with the (unnormalised) probabilities of each row of input, with or without replacement.

    >>> ember.multinomial(ember.tensor([0.0, 1.0, 0.0]), 1).tolist()
    [1]
    """,
)
@functor("Multinomial")
def multinomial(input, num_samples, replacement=False, generator=None, out=None):
    attrs = {"num_samples": num_samples, "replacement": replacement, "generator": _gen(generator, input._storage._device)}
    return dispatch(MULTINOMIAL, (input,), attrs, None if out is None else (out,))[0]


# --- other in-place samplers --------------------------------------------------------------


declare(
    "Tensor.exponential_",
    "Tensor (Tensor input, Float lambd=1.0, *, Generator? generator=None) => Exponential_",
    method=True, differentiable=False, op="exponential",
    doc="Fill with exponential samples of rate lambd.",
)
@functor("Exponential_")
def exponential_(self, lambd=1.0, generator=None):
    if not self._dtype.is_floating_point:
        raise RuntimeError(f"exponential_(): the exponential distribution is continuous: the dtype must be floating point, got {self._dtype}")
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_(): expects lambda > 0.0, but found lambda={lambd}")
    return _sample_into(EXPONENTIAL, self, generator, {"lambd": float(lambd)})


declare(
    "Tensor.geometric_",
    "Tensor (Tensor input, Float p, *, Generator? generator=None) => Geometric_",
    method=True, differentiable=False, op="geometric",
    doc="Fill with geometric samples (the number of trials up to the first success, >= 1).",
)
@functor("Geometric_")
def geometric_(self, p, generator=None):
    check_kinds("geometric_", "self", self._dtype, ("integral", "real floating"))
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_(): expects p to be in (0, 1), but got p={p}")
    return _sample_into(GEOMETRIC, self, generator, {"p": float(p)})


declare(
    "Tensor.log_normal_",
    "Tensor (Tensor input, Float mean=1.0, Float std=2.0, *, Generator? generator=None) => LogNormal_",
    method=True, differentiable=False, op="log_normal",
    doc="Fill with samples of exp(N(mean, std)).",
)
@functor("LogNormal_")
def log_normal_(self, mean=1.0, std=2.0, generator=None):
    check_kinds("log_normal_", "self", self._dtype, _FLOATING)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_(): expects std > 0.0, but found std={std}")
    return _sample_into(LOG_NORMAL, self, generator, {"mean": float(mean), "std": float(std)})


declare(
    "Tensor.cauchy_",
    "Tensor (Tensor input, Float median=0.0, Float sigma=1.0, *, Generator? generator=None) => Cauchy_",
    method=True, differentiable=False, op="cauchy",
    doc="Fill with Cauchy samples.",
)
@functor("Cauchy_")
def cauchy_(self, median=0.0, sigma=1.0, generator=None):
    check_kinds("cauchy_", "self", self._dtype, _FLOATING)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_(): expects sigma > 0.0, but found sigma={sigma}")
    return _sample_into(CAUCHY, self, generator, {"median": float(median), "sigma": float(sigma)})
