"""dropout, and dropout1d/2d/3d, which zero whole channels: a keep-mask drawn from the
generator, kept as an output for the derivative. Kernel: ``ember/kernels/cpu/nn/dropout.py``.

>>> import ember
>>> ember.dropout(ember.ones(3), p=1.0).tolist()
[0.0, 0.0, 0.0]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.generator import default_generator
from ..._core.tensor import empty_tensor
from ...dispatch import OpExpr, dispatch
from ..common import grad_recording
from ..functor import functor
from ..schema import schema_family

declare = schema_family("nn", namespaces=("nn.functional",))


def _dropout(name, input, p, training, inplace, generator, mask_shape):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    if not input._dtype.is_floating_point:
        raise RuntimeError(f"{name}(): expected a floating point input, but got {input._dtype.name}")
    attrs = {"p": float(p), "generator": generator or default_generator, "mask_shape": tuple(mask_shape)}
    outputs = None
    if inplace:
        outputs = (input, empty_tensor(tuple(mask_shape), _dt.bool_, input.device))
    return dispatch(_DROPOUT, (input,), attrs, outputs)[0]


declare(
    "dropout",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout",
    op="dropout",
    doc="""
    Zero each element with probability ``p`` and scale the rest by 1 / (1 - p) (training only).
    Draws from ``generator`` or the default generator.

    >>> ember.dropout(ember.ones(3), p=0.0).tolist()
    [1.0, 1.0, 1.0]
    """,
)
@functor("Dropout")
def dropout(input, p, training, inplace, generator):
    return _dropout("dropout", input, p, training, inplace, generator, input._shape)


_DROPOUT = OpExpr("dropout", ("input",), ("out", "mask"))


@_DROPOUT.shape_rule
def _dropout_infer(attrs, x):
    return ((x._shape, x._dtype), (attrs["mask_shape"], _dt.bool_))


# the input gradient in one kernel, for backward without create_graph: one dispatch in place of
# two products, the first of them promoting the bool mask (the formula is what double backward
# differentiates)
_DROPOUT_BACKWARD = OpExpr("dropout_backward", ("grad_output", "mask"), ("grad_input",))
_DROPOUT_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_DROPOUT_BACKWARD.attr_key = lambda attrs: None  # the rule reads no attribute


@_DROPOUT_BACKWARD.shape_rule
def _dropout_backward_infer(attrs, g, mask):
    return ((g._shape, g._dtype),)


@_DROPOUT.grad_rule(saves=("mask",))  # the mask only: dropout(inplace=True) may be written over
def _dropout_grad(ctx, g, _g_mask=None):
    _, mask = ctx.outputs
    p = ctx.attrs["p"]
    scale = 0.0 if p >= 1 else 1 / (1 - p)
    if not grad_recording() and g._dtype.is_floating_point and (g._shape, g._dtype) == tuple(ctx.input_meta[0]):
        return (dispatch(_DROPOUT_BACKWARD, (g, mask), {"scale": scale})[0],)
    return (g * mask * scale,)


def _feature_dropout_functor(nd: int):
    name = f"dropout{nd}d"

    def run(input, p, training, inplace, generator):
        if input.ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"{name}: Expected {nd + 1}D or {nd + 2}D input, but received a {input.ndim}D input")
        lead = input.ndim - nd
        return _dropout(name, input, p, training, inplace, generator, input._shape[:lead] + (1,) * nd)

    return run


declare(
    "dropout1d",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout1d",
    op="dropout",
    doc="Zero whole channels of (N, C, L) or (C, L) input with probability ``p``.",
)
functor("Dropout1d")(_feature_dropout_functor(1))

declare(
    "dropout2d",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout2d",
    op="dropout",
    doc="Zero whole channels of (N, C, H, W) or (C, H, W) input with probability ``p``.",
)
functor("Dropout2d")(_feature_dropout_functor(2))

declare(
    "dropout3d",
    "Tensor (Tensor input, Float p=0.5, Bool training=True, Bool inplace=False, *, Generator? generator=None) => Dropout3d",
    op="dropout",
    doc="Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p``.",
)
functor("Dropout3d")(_feature_dropout_functor(3))
