"""Samplers of integers and indicators: ``randint``, ``random_``, ``randperm``, ``bernoulli`` and
``multinomial``.
"""

from __future__ import annotations

import operator

from ..._core import dtype as _dt
from ..._core.shape import Size
from ...dispatch import OpExpr, dispatch
from ..args import to_int_list
from ..creation import broadcastable_to, check_kinds
from ..functor import functor
from ..schema import schema_family
from ._common import FLOATING, RANDOM_OPS, generator_for, global_sample, sample, sample_into, sampler

declare = schema_family("random")

RANDINT = sampler("randint")
RANDPERM = sampler("randperm")
BERNOULLI_SCALAR = sampler("bernoulli_scalar")


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
    "Tensor (Int? low=None, Object high=None, IntList? size=None, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Randint",
    differentiable=False,
    doc="""
    Integers drawn uniformly from [low, high): randint(high, size) or randint(low, high, size); int64 unless dtype says otherwise.

    >>> _ = ember.manual_seed(0)
    >>> x = ember.randint(3, 5, (4,)); x.dtype, sorted(set(x.tolist())) <= [3, 4]
    (ember.int64, True)
    """,
)
@functor("Randint")
def randint(low=None, high=None, size=None, generator=None, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    """``randint(high, size)`` or ``randint(low, high, size)``."""
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
    if placement is not None or sbp is not None:
        return global_sample(RANDINT, "randint", size, dtype, device, generator, {"low": low, "high": high}, requires_grad, placement, sbp)
    return sample(RANDINT, "randint", size, dtype, device, generator, {"low": low, "high": high}, requires_grad)


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
    return sample(RANDINT, "randint_like", input._shape, dtype, device, generator, {"low": low, "high": high}, requires_grad)


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
    return sample_into(RANDINT, self, generator, {"low": low, "high": high})


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
    return sample(RANDPERM, "randperm", (n,), dtype, device, generator, {}, requires_grad)


# --- bernoulli, multinomial ---------------------------------------------------------------

BERNOULLI = OpExpr("bernoulli", ("p",), ("out",))
RANDOM_OPS["bernoulli"] = BERNOULLI


@BERNOULLI.shape_rule
def _infer_bernoulli(attrs, p):
    check_kinds("bernoulli", "p", p._dtype, FLOATING)
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
    attrs = {"shape": None, "dtype": None, "generator": generator_for(generator, input._storage._device)}
    return dispatch(BERNOULLI, (input,), attrs, None if out is None else (out,))[0]


@functor("BernoulliScalar")
def bernoulli_scalar(input, p, generator=None, out=None):
    _check_p("bernoulli", p)
    if out is not None:
        return sample_into(BERNOULLI_SCALAR, out, generator, {"p": p})
    return sample(BERNOULLI_SCALAR, "bernoulli", input._shape, input._dtype, input._storage._device, generator, {"p": p})


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
    attrs = {"shape": self._shape, "dtype": self._dtype, "generator": generator_for(generator, self._storage._device)}
    return dispatch(BERNOULLI, (p,), attrs, (self,))[0]


@functor("BernoulliInplace")
def bernoulli_inplace(self, p=0.5, generator=None):
    check_kinds("bernoulli_", "self", self._dtype, ("bool", "integral", "real floating"))
    _check_p("bernoulli_", p)
    return sample_into(BERNOULLI_SCALAR, self, generator, {"p": p})


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
    attrs = {"num_samples": num_samples, "replacement": replacement, "generator": generator_for(generator, input._storage._device)}
    return dispatch(MULTINOMIAL, (input,), attrs, None if out is None else (out,))[0]
