"""Small elementwise composites PyTorch programs call by name: addcmul and addcdiv (the fused forms
hand-written optimizers use, with their in-place methods), clamp_min and clamp_max, deg2rad and
rad2deg. Each is written with other ops, so autograd, dtypes and broadcasting come from those.

>>> v = ember.zeros(2)
>>> v.addcmul_(ember.tensor([1.0, 2.0]), ember.tensor([3.0, 4.0]), value=0.5).tolist()
[1.5, 4.0]
>>> ember.rad2deg(ember.tensor([math.pi], dtype=ember.float64)).item()
180.0
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ..args import scalar_tensor_like
from ..common import functional as _F
from ..functor import FUNCTORS, functor
from ..schema import schema_family

declare = schema_family("elementwise")


def _promoted(op: str, value, *tensors) -> list:
    """The operands in their common dtype, as PyTorch computes the fused op in it."""
    if isinstance(value, float) and all(not (t.dtype.is_floating_point or t.dtype.is_complex) for t in tensors):
        raise RuntimeError(f"{op}(): for integral input tensors, argument alpha must not be a floating point number.")
    dtype = _dt.result_type_of(tensors, op=op)
    return [t if t.dtype is dtype else t.to(dtype) for t in tensors]


declare(
    "addcmul",
    "Tensor (Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1) => Addcmul",
    method=True,
    out=True,
    inplace="addcmul_",
    composite=True,
    doc="""
    input + value * tensor1 * tensor2, broadcast together.

    >>> ember.addcmul(ember.tensor([1.0]), ember.tensor([2.0]), ember.tensor([3.0]), value=2).tolist()
    [13.0]
    """,
)


@functor("Addcmul")
def addcmul(input, tensor1, tensor2, value=1, out=None):
    input, tensor1, tensor2 = _promoted("addcmul", value, input, tensor1, tensor2)
    F = _F()
    product = F.mul(tensor1, tensor2)
    return F.add(input, product if value == 1 else F.mul(product, value), out=out)


declare(
    "addcdiv",
    "Tensor (Tensor input, Tensor tensor1, Tensor tensor2, *, Scalar value=1) => Addcdiv",
    method=True,
    out=True,
    inplace="addcdiv_",
    composite=True,
    doc="""
    input + value * tensor1 / tensor2 (true division; integer tensor1 and tensor2 are refused, as in PyTorch).

    >>> ember.addcdiv(ember.tensor([1.0]), ember.tensor([3.0]), ember.tensor([2.0]), value=-1).tolist()
    [-0.5]
    """,
)


@functor("Addcdiv")
def addcdiv(input, tensor1, tensor2, value=1, out=None):
    if not (tensor1.dtype.is_floating_point or tensor1.dtype.is_complex) and not (
        tensor2.dtype.is_floating_point or tensor2.dtype.is_complex
    ):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future release addcdiv will perform a true division of tensor1 and tensor2. "
            "The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs "
            "and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes."
        )
    input, tensor1, tensor2 = _promoted("addcdiv", value, input, tensor1, tensor2)
    F = _F()
    quotient = F.div(tensor1, tensor2)
    return F.add(input, quotient if value == 1 else F.mul(quotient, value), out=out)


declare(
    "clamp_min",
    ["Tensor (Tensor input, Tensor min) => ClampMin", "Tensor (Tensor input, Scalar min) => ClampMin"],
    method=True,
    out=True,
    inplace="clamp_min_",
    composite=True,
    doc="clamp(input, min=min).",
)


@functor("ClampMin")
def clamp_min(input, min, out=None):
    return _F().clamp(input, min=min, out=out)


declare(
    "clamp_max",
    ["Tensor (Tensor input, Tensor max) => ClampMax", "Tensor (Tensor input, Scalar max) => ClampMax"],
    method=True,
    out=True,
    inplace="clamp_max_",
    composite=True,
    doc="clamp(input, max=max).",
)


@functor("ClampMax")
def clamp_max(input, max, out=None):
    return _F().clamp(input, max=max, out=out)


def _angle(op: str, input, factor: float, out):
    if input.dtype.is_complex:
        raise RuntimeError(f"{op} is not supported for complex tensors.")
    F = _F()
    x = input if input.dtype.is_floating_point else input.to(_dt.get_default_dtype())
    return F.mul(x, factor, out=out)


declare(
    "deg2rad",
    "Tensor (Tensor input) => Deg2rad",
    method=True,
    out=True,
    inplace="deg2rad_",
    composite=True,
    doc="Degrees to radians: input * pi / 180.",
)


@functor("Deg2rad")
def deg2rad(input, out=None):
    return _angle("deg2rad", input, math.pi / 180.0, out)


declare(
    "rad2deg",
    "Tensor (Tensor input) => Rad2deg",
    method=True,
    out=True,
    inplace="rad2deg_",
    composite=True,
    doc="Radians to degrees: input * 180 / pi.",
)


@functor("Rad2deg")
def rad2deg(input, out=None):
    return _angle("rad2deg", input, 180.0 / math.pi, out)


declare(
    "heaviside",
    "Tensor (Tensor input, Tensor values) => Heaviside",
    method=True,
    out=True,
    inplace="heaviside_",
    composite=True,
    differentiable=False,
    doc="""
    The step function: 0 where input < 0 (and NaN), ``values`` where input == 0, 1 where input > 0.

    >>> ember.heaviside(ember.tensor([-1.0, 0.0, 2.0]), ember.tensor([0.5])).tolist()
    [0.0, 0.5, 1.0]
    """,
)


@functor("Heaviside")
def heaviside(input, values, out=None):
    if input.dtype.is_complex or values.dtype.is_complex:
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    F = _F()
    return F.where(F.eq(input, 0), values, F.gt(input, 0).to(input.dtype), out=out)


declare(
    "float_power",
    [
        "Tensor (Tensor input, Tensor exponent) => FloatPower",
        "Tensor (Tensor input, Scalar exponent) => FloatPowerScalar",
        "Tensor (Scalar input, Tensor exponent) => FloatPowerScalarBase",
    ],
    method=True,
    out=True,
    composite=True,
    doc="""
    pow computed in double precision: float64, or complex128 when either operand is complex.

    >>> ember.float_power(ember.tensor([2]), 2).dtype
    ember.float64
    """,
)


def _double(*operands) -> _dt.DType:
    complex_ = any(o.dtype.is_complex if hasattr(o, "dtype") else isinstance(o, complex) for o in operands)
    return _dt.complex128 if complex_ else _dt.float64


@functor("FloatPower")
def float_power(input, exponent, out=None):
    dtype = _double(input, exponent)
    return _F().pow(input.to(dtype), exponent.to(dtype), out=out)


@functor("FloatPowerScalar")
def float_power_scalar(input, exponent, out=None):
    dtype = _double(input, exponent)
    return _F().pow(input.to(dtype), complex(exponent) if dtype.is_complex else float(exponent), out=out)


@functor("FloatPowerScalarBase")
def float_power_scalar_base(input, exponent, out=None):
    dtype = _double(input, exponent)
    return _F().pow(complex(input) if dtype.is_complex else float(input), exponent.to(dtype), out=out)


declare(
    "rsub",
    [
        "Tensor (Tensor input, Tensor other, *, Scalar alpha=1) => Rsub",
        "Tensor (Tensor input, Scalar other, *, Scalar alpha=1) => RsubScalar",
    ],
    composite=True,
    doc="""
    other - alpha * input (sub with its operands swapped).

    >>> ember.rsub(ember.tensor([1, 2]), 5).tolist()
    [4, 3]
    """,
)


@functor("Rsub")
def rsub(input, other, alpha=1):
    return _F().sub(other, input, alpha=alpha)


@functor("RsubScalar")
def rsub_scalar(input, other, alpha=1):
    return _F().sub(scalar_tensor_like(other, input), input, alpha=alpha)


declare(
    "dist",
    "Tensor (Tensor input, Tensor other, Scalar p=2) => Dist",
    method=True,
    composite=True,
    doc="""
    The p-norm of input - other (broadcast), as ``linalg.vector_norm``.

    >>> ember.dist(ember.tensor([1.0, 2.0]), ember.tensor([4.0, 6.0])).item()
    5.0
    """,
)


@functor("Dist")
def dist(input, other, p=2):
    difference = _F().sub(input, other)
    # torch answers 0 for no elements whatever p is (nan included); the 2-norm of nothing is that 0
    return FUNCTORS["LinalgVectorNorm"](difference, p if difference.numel() else 2)
