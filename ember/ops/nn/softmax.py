"""softmax, log_softmax and softmin along one dimension.

``dim=None`` takes PyTorch's legacy choice; the dtype is checked only where something is
computed, as PyTorch's kernel does (an empty integer tensor passes). Kernels:
``ember/kernels/cpu/nn/softmax.py``.

>>> import ember
>>> ember.softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()
[0.5, 0.5]
"""

from __future__ import annotations

import math

from ..._core.shape import wrap_dim
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import functional as _F, grad_recording
from ..functor import functor
from ..schema import schema_family
from ._common import _as_dtype, _check_floating

declare = schema_family("nn", namespaces=("nn.functional",))


def _implicit_dim(ndim: int) -> int:
    """PyTorch's legacy softmax dim when none is given."""
    return 0 if ndim in (0, 1, 3) else 1


def _softmax_op(name: str) -> OpExpr:
    op = OpExpr(name, ("input",), ("out",))

    @op.shape_rule
    def infer(attrs, x):
        dtype = attrs["dtype"] or x._dtype
        if math.prod(x._shape):  # PyTorch checks the dtype in the kernel: an empty tensor of any dtype passes
            _check_floating(name, dtype)
        return ((x._shape, dtype),)

    return op


declare(
    "softmax",
    "Tensor (Tensor input, Int? dim=None, Int _stacklevel=3, *, DType? dtype=None) => Softmax",
    method=True,
    namespaces=("nn.functional", "special"),
    doc="""
    exp(x) / sum(exp(x)) along ``dim``, numerically stable. ``dim=None`` takes PyTorch's legacy
    choice (0 for 0-D, 1-D and 3-D inputs, else 1); ``dtype`` casts the input first.

    >>> ember.softmax(ember.tensor([[1.0, 1.0], [0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """,
    tf="Softmax",
)
@functor("Softmax")
def softmax(input, dim, _stacklevel, dtype):
    dim = _implicit_dim(input.ndim) if dim is None else wrap_dim(dim, input.ndim, "softmax")
    return dispatch(_SOFTMAX, (input,), {"dim": dim, "dtype": dtype})[0]


_SOFTMAX = _softmax_op("softmax").tag(row_wise="features", sbp=sbp_rules.nn.softmax)


# softmax's input gradient in one kernel, for backward without create_graph: one dispatch in
# place of four (the formula below is what double backward and global tensors differentiate)
_SOFTMAX_BACKWARD = OpExpr("softmax_backward", ("grad_output", "output"), ("grad_input",))
_SOFTMAX_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_SOFTMAX_BACKWARD.attr_key = lambda attrs: None  # the rule reads no attribute


@_SOFTMAX_BACKWARD.shape_rule
def _softmax_backward_infer(attrs, g, y):
    return ((y._shape, y._dtype),)


@_SOFTMAX.grad_rule(saves="outputs")
def _softmax_grad(ctx, g):
    (y,) = ctx.outputs
    dim = ctx.attrs["dim"]
    fast = not grad_recording() and not y.is_global and y.ndim and g._dtype is y._dtype and g._shape == y._shape
    if fast and y._dtype is ctx.input_meta[0][1]:
        return (dispatch(_SOFTMAX_BACKWARD, (g, y), {"dim": dim})[0],)
    gx = y * (g - (g * y).sum(dim=dim, keepdim=True)) if y.ndim else g * 0
    return (_as_dtype(gx, ctx.input_meta[0][1]),)


declare(
    "log_softmax",
    "Tensor (Tensor input, Int? dim=None, Int _stacklevel=3, *, DType? dtype=None) => LogSoftmax",
    method=True,
    namespaces=("nn.functional", "special"),
    doc="""
    log(softmax(x)) along ``dim``, computed as x - max - log(sum(exp(x - max))).

    >>> [f"{v:.4f}" for v in ember.log_softmax(ember.tensor([0.0, 0.0]), dim=0).tolist()]
    ['-0.6931', '-0.6931']
    """,
    tf="LogSoftmax",
)
@functor("LogSoftmax")
def log_softmax(input, dim, _stacklevel, dtype):
    dim = _implicit_dim(input.ndim) if dim is None else wrap_dim(dim, input.ndim, "log_softmax")
    return dispatch(_LOG_SOFTMAX, (input,), {"dim": dim, "dtype": dtype})[0]


_LOG_SOFTMAX = _softmax_op("log_softmax").tag(row_wise="features", sbp=sbp_rules.nn.softmax)


@_LOG_SOFTMAX.grad_rule(saves="outputs")
def _log_softmax_grad(ctx, g):
    (y,) = ctx.outputs
    dim = ctx.attrs["dim"]
    gx = g - y.exp() * g.sum(dim=dim, keepdim=True) if y.ndim else g * 0
    return (_as_dtype(gx, ctx.input_meta[0][1]),)


declare(
    "softmin",
    "Tensor (Tensor input, Int? dim=None, Int _stacklevel=3, *, DType? dtype=None) => Softmin",
    composite=True,
    doc="softmax(-input) along ``dim``.",
)
@functor("Softmin")
def softmin(input, dim, _stacklevel, dtype):
    F = _F()
    dim = _implicit_dim(input.ndim) if dim is None else dim
    return F.softmax(F.neg(input), dim, dtype=dtype)  # PyTorch negates before the cast (uint8 wraps)
