"""A tensor's shape as a 1-d integer tensor: the primitive ``shape_of`` (TensorFlow's ``Shape``).

In eager mode a shape is known and ``tensor(x.shape)`` would do; in graph mode a size may be
unknown until the graph runs (a placeholder of shape ``(None, 3)``), so the shape is a node
whose kernel reads the run-time array's shape. It has no derivative: a shape is an integer.

>>> import ember
>>> shape_of(ember.zeros(2, 3)).tolist()
[2, 3]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import OpExpr
from ._common import run

__all__ = ["SHAPE_OF", "shape_of"]

SHAPE_OF = OpExpr("shape_of", ("input",), ("out",))
SHAPE_OF.differentiable = False  # an integer result: gradients stop here


@SHAPE_OF.shape_rule
def _infer_shape_of(attrs, x):
    return (((len(x._shape),), attrs["dtype"]),)


def shape_of(input, dtype: _dt.DType = _dt.int64):
    """``input``'s shape as a 1-d tensor of ``dtype`` (int32 or int64), computed when it runs."""
    if dtype not in (_dt.int32, _dt.int64):
        raise TypeError(f"shape_of(): dtype must be int32 or int64, got {dtype}")
    if dtype is _dt.int32 and any(int(n) >= 2**31 for n in input._shape if n is not None):
        raise ValueError(f"shape_of(): a size of {tuple(input._shape)} does not fit int32; use int64")
    return run(SHAPE_OF, (input,), {"dtype": dtype})
