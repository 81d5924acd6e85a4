"""Activations: relu, silu, gelu, softplus, elu, leaky_relu, hardtanh.

Primitives with their own kernel and derivative (a composite would cost a dispatch per step);
``ember.nn.functional`` exposes them under PyTorch's names. The parameters are the primitives'
attributes and must be real numbers.

>>> ember.leaky_relu(ember.tensor([-2.0, 3.0]), 0.5).tolist()
[-1.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Callable

from ..._core import dtype as _dt
from ..._core.literals import check_fill_value
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import functional as _F, grad_recording
from ..schema import schema_family
from .factories import cj, unary, unary_grad
from .kinds import FLOATING, INEXACT, REAL_NO_BOOL

declare = schema_family("elementwise")

_INV_SQRT_2 = 0.7071067811865476
_INV_SQRT_2PI = 0.3989422804014327
_SQRT_2_OVER_PI = 0.7978845608028654
_GELU_C = 0.044715


def _real_attrs(*names) -> Callable:
    def check(attrs, dtype):
        for n in names:
            if isinstance(attrs[n], complex):
                raise TypeError(f"argument '{n}' must be a real number, not complex")

    return check


declare(
    "relu",
    "Tensor (Tensor input, *, Bool inplace=False) => ReluInplace",
    namespaces="nn.functional",
    method=True, inplace="relu_",
    doc="""
    max(input, 0), elementwise.

    >>> ember.relu(ember.tensor([-1.0, 0.5])).tolist()
    [0.0, 0.5]
    """,
    tf="Relu",
)
unary("relu", "Relu", kinds=REAL_NO_BOOL).tag(sbp=sbp_rules.monotone_unary)

# relu's input gradient in one kernel, for backward without create_graph: one dispatch in place
# of a comparison and a product (``g * (y > 0)`` is what double backward differentiates)
_THRESHOLD_BACKWARD = OpExpr("threshold_backward", ("grad_output", "output"), ("grad_input",)).tag(sbp=sbp_rules.threshold_backward, elementwise=True)
_THRESHOLD_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_THRESHOLD_BACKWARD.attr_key = lambda attrs: None  # the rule reads no attribute


@_THRESHOLD_BACKWARD.shape_rule
def _threshold_backward_infer(attrs, g, y):
    return ((y._shape, y._dtype),)


@unary_grad("relu", saves="outputs")
def _relu_grad(ctx, g):
    (y,) = ctx.outputs
    if not grad_recording() and g._dtype is y._dtype and y._dtype in (_dt.float32, _dt.float64) and g._shape == y._shape:
        return dispatch(_THRESHOLD_BACKWARD, (g, y), {"threshold": 0.0})[0]
    return g * (y <= 0).logical_not()  # NaN passes the gradient, as in PyTorch


declare("silu", "Tensor (Tensor input, *, Bool inplace=False) => SiluInplace", namespaces="nn.functional", inplace="silu_", doc="input * sigmoid(input).")
unary("silu", "Silu", kinds=INEXACT)


@unary_grad("silu")
def _silu_grad(ctx, g):
    (x,) = ctx.inputs
    s = _F().sigmoid(x)
    return g * cj(s * (1 + x * (1 - s)))


def _check_gelu(attrs, dtype):
    if attrs["approximate"] not in ("none", "tanh"):
        raise RuntimeError(f"gelu(): approximate argument must be either none or tanh, got {attrs['approximate']!r}")


declare(
    "gelu",
    "Tensor (Tensor input, *, String approximate='none') => Gelu",
    namespaces="nn.functional",
    doc="""
    input * Phi(input) (``approximate='tanh'``: the tanh approximation).

    >>> ember.gelu(ember.tensor([0.0, 10.0])).tolist()
    [0.0, 10.0]
    """,
)
unary("gelu", "Gelu", kinds=FLOATING, attrs=("approximate",), check=_check_gelu)


# gelu's input gradient in one kernel, for backward without create_graph (the formula below is
# what double backward differentiates): one dispatch in place of about ten
_GELU_BACKWARD = OpExpr("gelu_backward", ("grad_output", "input"), ("grad_input",)).tag(sbp=sbp_rules.threshold_backward, elementwise=True)
_GELU_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_GELU_BACKWARD.attr_key = lambda attrs: None  # the rule reads no attribute
_GELU_BACKWARD_DTYPES = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)


@_GELU_BACKWARD.shape_rule
def _gelu_backward_infer(attrs, g, x):
    return ((x._shape, x._dtype),)


@unary_grad("gelu")
def _gelu_grad(ctx, g):
    (x,) = ctx.inputs
    if not grad_recording() and g._dtype is x._dtype and x._dtype in _GELU_BACKWARD_DTYPES and g._shape == x._shape:
        return dispatch(_GELU_BACKWARD, (g, x), {"approximate": ctx.attrs["approximate"]})[0]
    F = _F()
    if ctx.attrs["approximate"] == "tanh":
        x2 = x * x
        t = F.tanh(_SQRT_2_OVER_PI * (x + _GELU_C * x2 * x))
        du = _SQRT_2_OVER_PI * (1 + 3 * _GELU_C * x2)
        return g * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)
    cdf = 0.5 * (1 + F.erf(x * _INV_SQRT_2))
    pdf = _INV_SQRT_2PI * F.exp(-0.5 * (x * x))
    return g * (cdf + x * pdf)


declare(
    "softplus",
    "Tensor (Tensor input, Scalar beta=1, Scalar threshold=20) => Softplus",
    namespaces="nn.functional",
    doc="log(1 + exp(beta * input)) / beta; linear where beta * input > threshold.",
    tf="Softplus",
)
unary("softplus", "Softplus", kinds=FLOATING, attrs=("beta", "threshold"), check=_real_attrs("beta", "threshold"))


@unary_grad("softplus")
def _softplus_grad(ctx, g):
    (x,) = ctx.inputs
    beta, threshold = ctx.attrs["beta"], ctx.attrs["threshold"]
    bx = x * beta
    return _F().where(bx > threshold, g, g * _F().sigmoid(bx))


declare(
    "elu",
    "Tensor (Tensor input, Scalar alpha=1.0, *, Bool inplace=False) => EluInplace",
    namespaces="nn.functional",
    inplace="elu_",
    doc="input where positive, alpha * (exp(input) - 1) elsewhere.",
    tf="Elu",
)
unary("elu", "Elu", kinds=FLOATING, attrs=("alpha",), check=_real_attrs("alpha"))


@unary_grad("elu")
def _elu_grad(ctx, g):
    (x,) = ctx.inputs
    return _F().where(x > 0, g, g * (ctx.attrs["alpha"] * _F().exp(x)))


declare(
    "leaky_relu",
    "Tensor (Tensor input, Scalar negative_slope=0.01, *, Bool inplace=False) => LeakyReluInplace",
    namespaces="nn.functional",
    inplace="leaky_relu_",
    doc="input where positive, negative_slope * input elsewhere.",
)
unary("leaky_relu", "LeakyRelu", kinds=FLOATING, attrs=("negative_slope",), check=_real_attrs("negative_slope"))


@unary_grad("leaky_relu")
def _leaky_relu_grad(ctx, g):
    (x,) = ctx.inputs
    return _F().where(x > 0, g, g * ctx.attrs["negative_slope"])


def _check_hardtanh(attrs, dtype):
    if attrs["min_val"] > attrs["max_val"]:
        raise ValueError(f"hardtanh(): min_val cannot be greater than max_val (got {attrs['min_val']} > {attrs['max_val']})")


def _check_hardtanh_all(attrs, dtype):
    _real_attrs("min_val", "max_val")(attrs, dtype)
    _check_hardtanh(attrs, dtype)
    if dtype.kind == "u" and int(attrs["min_val"]) < 0:
        raise RuntimeError("hardtanh(): cannot do hardtanh on an unsigned type with negative limits")
    for limit in (attrs["min_val"], attrs["max_val"]):
        if (type(limit) is int and dtype.kind in "iu") or dtype.kind == "f":
            check_fill_value(limit, dtype, "hardtanh")  # limits the dtype cannot hold are refused, not wrapped


declare(
    "hardtanh",
    "Tensor (Tensor input, Scalar min_val=-1.0, Scalar max_val=1.0, *, Bool inplace=False) => HardtanhInplace",
    namespaces="nn.functional",
    inplace="hardtanh_",
    doc="input clamped to [min_val, max_val].",
)
unary("hardtanh", "Hardtanh", kinds=REAL_NO_BOOL, attrs=("min_val", "max_val"), check=_check_hardtanh_all)


@unary_grad("hardtanh")
def _hardtanh_grad(ctx, g):
    (x,) = ctx.inputs
    inside = (x > ctx.attrs["min_val"]).logical_and(x < ctx.attrs["max_val"])
    return g * inside
