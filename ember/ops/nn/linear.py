"""linear (``input @ weight.T + bias`` over any leading dimensions) and bilinear
(``input1 @ weight[o] @ input2 + bias[o]``).

Backward without ``create_graph`` computes linear's gradients in one kernel
(``linear_backward``); with it, a composite of matmuls that differentiates again. Kernels:
``ember/kernels/cpu/nn/linear.py``.

>>> import ember
>>> ember.linear(ember.tensor([[1.0, 2.0]]), ember.tensor([[1.0, 1.0]])).tolist()
[[3.0]]
"""

from __future__ import annotations

import math

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from .. import sbp_rules
from ..common import broadcast_pair, functional as _F, grad_recording, sum_to
from ..functor import functor
from ..schema import schema_family
from ._common import _check_numeric, _needs

declare = schema_family("nn", namespaces=("nn.functional",))


declare(
    "linear",
    "Tensor (Tensor input, Tensor weight, Tensor? bias=None) => Linear",
    doc="""
    input @ weight.T + bias over any leading dimensions.

    >>> ember.linear(ember.tensor([[1.0, 2.0]]), ember.tensor([[1.0, 1.0]]), ember.tensor([0.5])).tolist()
    [[3.5]]
    """,
)
@functor("Linear")
def linear(input, weight, bias):
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and {weight.ndim}D")
    if weight.ndim > 2:
        raise RuntimeError(f"linear(): weight must be 1-D or 2-D, but got a {weight.ndim}-D weight of size {list(weight._shape)}")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {input._dtype.name} != {weight._dtype.name}")
    _check_numeric("linear", input._dtype)
    k = input._shape[-1]
    if weight._shape[-1] != k:
        rows = math.prod(input._shape[:-1])
        wt = f"{weight._shape[1]}x{weight._shape[0]}" if weight.ndim == 2 else f"{weight._shape[0]}x1"
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k} and {wt})")
    if bias is None:
        return dispatch(_LINEAR, (input, weight))[0]
    out_shape = input._shape[:-1] + ((weight._shape[0],) if weight.ndim == 2 else ())
    if bias._dtype is not input._dtype:
        raise RuntimeError(f"linear(): bias must have the same dtype as input, but got {bias._dtype.name} and {input._dtype.name}")
    try:
        fits = bias._shape == out_shape[-1:] or broadcast_pair(out_shape, bias._shape) == out_shape
    except RuntimeError:
        fits = False
    if not fits:
        raise RuntimeError(f"linear(): bias of size {list(bias._shape)} cannot be added to the output of size {list(out_shape)}")
    return dispatch(_LINEAR, (input, weight, bias))[0]


_LINEAR = OpExpr("linear", ("input", "weight", "bias"), ("out",)).tag(row_wise="rows", sbp=sbp_rules.linear)


@_LINEAR.shape_rule
def _linear_infer(attrs, x, w, *bias):
    lead = x._shape[:-1]
    return (((*lead, w._shape[0]) if w.ndim == 2 else lead, x._dtype),)


@_LINEAR.grad_rule(saves="inputs")
def _linear_grad(ctx, g):
    F = _F()
    x, w, *bias = ctx.inputs
    fast = _linear_fast_grad(ctx, g, x, w, bias)
    if fast is not None:
        return fast
    k = x._shape[-1]
    rows = math.prod(x._shape[:-1])
    grad_x = grad_w = None
    if w.ndim == 2:
        if _needs(ctx, 0):
            grad_x = F.matmul(g, w)  # (..., out) @ (out, in)
        if _needs(ctx, 1):
            if x.ndim == 2:
                grad_w = F.matmul(g.mT, x)  # (out, rows) @ (rows, in)
            else:
                grad_w = F.matmul(g.reshape(rows, w._shape[0]).mT, x.reshape(rows, k))
    else:
        if _needs(ctx, 0):
            grad_x = g.unsqueeze(-1) * w
        if _needs(ctx, 1):
            grad_w = F.linear(x.reshape(rows, k).t(), g.reshape(rows))
    grads = (grad_x, grad_w)
    if bias:
        gb = None
        if _needs(ctx, 2):
            b_shape = bias[0]._shape
            gb = g.sum(0) if g.ndim == 2 and b_shape == g._shape[1:] else sum_to(g, b_shape)
        grads += (gb,)
    return grads


def _linear_fast_grad(ctx, g, x, w, bias):
    """The common case in one kernel: a 2-D weight, one float32/float64 dtype throughout, a
    bias of the output's width (or none); ``None`` when the case does not apply."""
    dtype = x._dtype
    if grad_recording() or w.ndim != 2 or dtype not in (_dt.float32, _dt.float64) or w._dtype is not dtype or g._dtype is not dtype:
        return None
    if bias and (bias[0]._shape != (w._shape[0],) or bias[0]._dtype is not dtype):
        return None
    edges = ctx._node.next_functions  # (_needs, inlined: this runs for every linear layer)
    mask = (edges[0][0] is not None, edges[1][0] is not None, bool(bias) and edges[2][0] is not None)
    grads = [None, None, None]
    if any(mask):
        results = dispatch(_LINEAR_BACKWARD, (g, x, w), {"output_mask": mask})
        k = 0
        for i in range(3):
            if mask[i]:
                grads[i] = results[k]
                k += 1
    return tuple(grads) if bias else (grads[0], grads[1])


# linear's gradients in one kernel, for backward without create_graph: one dispatch in place of
# a matmul, a transpose, a matmul and a sum (the composite above is what double backward and
# graph-mode gradients differentiate). ``output_mask`` says which of the three to compute.
_LINEAR_BACKWARD = OpExpr("linear_backward", ("grad_output", "input", "weight"), ("grad_input", "grad_weight", "grad_bias")).tag(sbp=sbp_rules.linear_backward)
_LINEAR_BACKWARD.differentiable = False  # used only where no graph is recorded (grad mode off)
_LINEAR_BACKWARD.attr_key = lambda attrs: attrs["output_mask"]


@_LINEAR_BACKWARD.shape_rule
def _linear_backward_infer(attrs, g, x, w):
    specs = ((x._shape, x._dtype), (w._shape, w._dtype), ((w._shape[0],), w._dtype))
    return tuple(spec for spec, need in zip(specs, attrs["output_mask"], strict=True) if need)


declare(
    "bilinear",
    "Tensor (Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) => Bilinear",
    doc="y[..., o] = input1 @ weight[o] @ input2 + bias[o].",
)
@functor("Bilinear")
def bilinear(input1, input2, weight, bias):
    if input1.ndim == 0 or input2.ndim == 0:
        raise RuntimeError("bilinear(): inputs must be at least 1-D")
    if input1._shape[:-1] != input2._shape[:-1]:
        raise RuntimeError(f"bilinear(): input batch dimensions do not match: got {list(input1._shape[:-1])} and {list(input2._shape[:-1])}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.ndim}D")
    for i, t in ((1, input1), (2, input2)):
        if t._shape[-1] != weight._shape[i]:
            raise RuntimeError(f"bilinear(): input{i} size does not match weight size: got {t._shape[-1]} but expected {weight._shape[i]}")
    tensors = [input1, input2, weight] + ([bias] if bias is not None else [])
    if any(t._dtype is not input1._dtype for t in tensors):
        raise RuntimeError(f"bilinear(): expected all tensors to have the same dtype, got {[t._dtype.name for t in tensors]}")
    _check_numeric("bilinear", input1._dtype)
    if bias is not None and (bias.ndim != 1 or bias._shape[0] != weight._shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {list(bias._shape)} but expected [{weight._shape[0]}]")
    return dispatch(_BILINEAR, tuple(tensors))[0]


_BILINEAR = OpExpr("bilinear", ("input1", "input2", "weight", "bias"), ("out",))


@_BILINEAR.shape_rule
def _bilinear_infer(attrs, x1, x2, w, *bias):
    return (((*x1._shape[:-1], w._shape[0]), x1._dtype),)


@_BILINEAR.grad_rule(saves="inputs")
def _bilinear_grad(ctx, g):
    F = _F()
    x1, x2, w, *bias = ctx.inputs
    o, i1, i2 = w._shape
    rows = math.prod(x1._shape[:-1])
    a, b, gg = x1.reshape(rows, i1), x2.reshape(rows, i2), g.reshape(rows, o)
    grads = (
        F.einsum("ro,oij,rj->ri", gg, w, b).reshape(x1._shape) if _needs(ctx, 0) else None,
        F.einsum("ro,oij,ri->rj", gg, w, a).reshape(x2._shape) if _needs(ctx, 1) else None,
        F.einsum("ro,ri,rj->oij", gg, a, b) if _needs(ctx, 2) else None,
    )
    if bias:
        grads += (gg.sum(0) if _needs(ctx, 3) else None,)
    return grads
