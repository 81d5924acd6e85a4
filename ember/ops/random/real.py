"""Samplers of real numbers: ``rand``/``uniform_``, ``randn``/``normal_`` and ``normal`` with tensor
parameters, and the in-place ``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``.

>>> _ = ember.manual_seed(0); a = ember.rand((3,)).tolist()
>>> _ = ember.manual_seed(0); ember.rand((3,)).tolist() == a
True
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ...dispatch import OpExpr, dispatch
from ..common import broadcast_pair
from ..creation import check_kinds, new_filled
from ..functor import functor
from ..schema import schema_family
from ._common import (
    FLOAT_OR_COMPLEX,
    FLOATING,
    RANDOM_OPS,
    float_dtype,
    generator_for,
    global_sample,
    global_sample_like,
    sample,
    sample_into,
    sampler,
)

declare = schema_family("random")

UNIFORM = sampler("uniform")
NORMAL = sampler("normal")
EXPONENTIAL = sampler("exponential")
GEOMETRIC = sampler("geometric")
LOG_NORMAL = sampler("log_normal")
CAUCHY = sampler("cauchy")


# --- uniform ----------------------------------------------------------------------------


declare(
    "rand",
    "Tensor (IntList size, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Rand",
    differentiable=False, op="uniform",
    doc="""
    Uniform samples in [0, 1) (real and imaginary parts for complex dtypes). The size is a tuple: rand((2, 3)).

    >>> _ = ember.manual_seed(0)
    >>> x = ember.rand((2, 3)); x.shape, all(0 <= v < 1 for v in x.flatten().tolist())
    (ember.Size([2, 3]), True)
    """,
)
@functor("Rand")
def rand(size, generator=None, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    dtype = float_dtype("rand", dtype)
    if placement is not None or sbp is not None:
        return global_sample(UNIFORM, "rand", size, dtype, device, generator, {"low": 0.0, "high": 1.0}, requires_grad, placement, sbp)
    return sample(UNIFORM, "rand", size, dtype, device, generator, {"low": 0.0, "high": 1.0}, requires_grad)


declare(
    "rand_like",
    "Tensor (Tensor input, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => RandLike",
    differentiable=False, op="uniform",
    doc="rand with input's shape, dtype and device.",
)
@functor("RandLike")
def rand_like(input, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = float_dtype("rand_like", input._dtype if dtype is None else dtype)
    if input.is_global:
        return global_sample_like(UNIFORM, "rand_like", input, dtype, generator, {"low": 0.0, "high": 1.0}, requires_grad)
    device = input._storage._device if device is None else device
    return sample(UNIFORM, "rand_like", input._shape, dtype, device, generator, {"low": 0.0, "high": 1.0}, requires_grad)


declare(
    "Tensor.uniform_",
    "Tensor (Tensor input, Float low=0.0, Float high=1.0, *, Generator? generator=None) => Uniform_",
    method=True, differentiable=False, op="uniform",
    doc="Fill with uniform samples in [low, high).",
)
@functor("Uniform_")
def uniform_(self, low=0.0, high=1.0, generator=None):
    check_kinds("uniform_", "self", self._dtype, FLOAT_OR_COMPLEX)
    limit = _dt.finfo(self._dtype.to_real() if self._dtype.is_complex else self._dtype).max
    for name, bound in (("from", low), ("to", high)):
        if not -limit <= bound <= limit:  # nan included
            raise RuntimeError(f"uniform_(): {name}={bound} is out of bounds for {self._dtype.name}")
    if low > high:
        raise RuntimeError(f"uniform_(): expects to return a [from, to) range, but found from={low} > to={high}")
    if high - low > limit:
        raise RuntimeError(f"uniform_(): expects to-from <= {limit}, the largest {self._dtype.name}, but found to={high} and from={low}")
    return sample_into(UNIFORM, self, generator, {"low": float(low), "high": float(high)})


# --- normal -----------------------------------------------------------------------------


def _check_std(op: str, std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"{op}(): expects std >= 0.0, but found std {std}")


declare(
    "randn",
    "Tensor (IntList size, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False, Object placement=None, Object sbp=None) => Randn",
    differentiable=False, op="normal",
    doc="Standard normal samples (a complex normal has variance 1 in all). The size is a tuple.",
)
@functor("Randn")
def randn(size, generator=None, dtype=None, device=None, requires_grad=False, placement=None, sbp=None):
    dtype = float_dtype("randn", dtype)
    if placement is not None or sbp is not None:
        return global_sample(NORMAL, "randn", size, dtype, device, generator, {"mean": 0.0, "std": 1.0}, requires_grad, placement, sbp)
    return sample(NORMAL, "randn", size, dtype, device, generator, {"mean": 0.0, "std": 1.0}, requires_grad)


declare(
    "randn_like",
    "Tensor (Tensor input, *, Generator? generator=None, DType? dtype=None, Device? device=None, Bool requires_grad=False) => RandnLike",
    differentiable=False, op="normal",
    doc="randn with input's shape, dtype and device.",
)
@functor("RandnLike")
def randn_like(input, generator=None, dtype=None, device=None, requires_grad=False):
    dtype = float_dtype("randn_like", input._dtype if dtype is None else dtype)
    if input.is_global:
        return global_sample_like(NORMAL, "randn_like", input, dtype, generator, {"mean": 0.0, "std": 1.0}, requires_grad)
    device = input._storage._device if device is None else device
    return sample(NORMAL, "randn_like", input._shape, dtype, device, generator, {"mean": 0.0, "std": 1.0}, requires_grad)


declare(
    "Tensor.normal_",
    "Tensor (Tensor input, Float mean=0.0, Float std=1.0, *, Generator? generator=None) => Normal_",
    method=True, differentiable=False, op="normal",
    doc="Fill with normal samples of the given mean and standard deviation.",
)
@functor("Normal_")
def normal_(self, mean=0.0, std=1.0, generator=None):
    check_kinds("normal_", "self", self._dtype, FLOAT_OR_COMPLEX)
    _check_std("normal_", std)
    return sample_into(NORMAL, self, generator, {"mean": float(mean), "std": float(std)})


NORMAL_TENSOR = OpExpr("normal_tensor", ("mean", "std"), ("out",))
RANDOM_OPS["normal_tensor"] = NORMAL_TENSOR


@NORMAL_TENSOR.shape_rule
def _infer_normal_tensor(attrs, mean, std):
    check_kinds("normal", "mean", mean._dtype, FLOATING)
    check_kinds("normal", "std", std._dtype, FLOATING)
    return ((broadcast_pair(mean._shape, std._shape), mean._dtype),)


def _normal_tensors(mean: Tensor, std: Tensor, generator, out):
    attrs = {"generator": generator_for(generator, mean._storage._device)}
    return dispatch(NORMAL_TENSOR, (mean, std), attrs, None if out is None else (out,))[0]


def _scalar_tensor(value: float, like: Tensor) -> Tensor:
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
    check_kinds("normal", "mean", mean._dtype, FLOATING)
    return _normal_tensors(mean, _scalar_tensor(std, mean), generator, out)


@functor("NormalFloatTensor")
def normal_float_tensor(mean, std, generator=None, out=None):
    check_kinds("normal", "std", std._dtype, FLOATING)
    return _normal_tensors(_scalar_tensor(mean, std), std, generator, out)


@functor("NormalFloatFloat")
def normal_float_float(mean, std, size, generator=None, dtype=None, device=None, requires_grad=False, out=None):
    _check_std("normal", std)
    params = {"mean": float(mean), "std": float(std)}
    if out is not None:
        if tuple(size) != out._shape:
            raise RuntimeError(f"normal(): output with shape {list(out._shape)} doesn't match the requested size {list(size)}")
        check_kinds("normal", "out", out._dtype, FLOATING)
        return sample_into(NORMAL, out, generator, params)
    dtype = float_dtype("normal", dtype, FLOATING)
    return sample(NORMAL, "normal", size, dtype, device, generator, params, requires_grad)



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
    return sample_into(EXPONENTIAL, self, generator, {"lambd": float(lambd)})


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
    return sample_into(GEOMETRIC, self, generator, {"p": float(p)})


declare(
    "Tensor.log_normal_",
    "Tensor (Tensor input, Float mean=1.0, Float std=2.0, *, Generator? generator=None) => LogNormal_",
    method=True, differentiable=False, op="log_normal",
    doc="Fill with samples of exp(N(mean, std)).",
)
@functor("LogNormal_")
def log_normal_(self, mean=1.0, std=2.0, generator=None):
    check_kinds("log_normal_", "self", self._dtype, FLOATING)
    if not std > 0.0:
        raise RuntimeError(f"log_normal_(): expects std > 0.0, but found std={std}")
    return sample_into(LOG_NORMAL, self, generator, {"mean": float(mean), "std": float(std)})


declare(
    "Tensor.cauchy_",
    "Tensor (Tensor input, Float median=0.0, Float sigma=1.0, *, Generator? generator=None) => Cauchy_",
    method=True, differentiable=False, op="cauchy",
    doc="Fill with Cauchy samples.",
)
@functor("Cauchy_")
def cauchy_(self, median=0.0, sigma=1.0, generator=None):
    check_kinds("cauchy_", "self", self._dtype, FLOATING)
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_(): expects sigma > 0.0, but found sigma={sigma}")
    return sample_into(CAUCHY, self, generator, {"median": float(median), "sigma": float(sigma)})
