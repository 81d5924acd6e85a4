"""broadcast_tensors and atleast_1d/2d/3d: views of their inputs with the shapes PyTorch gives.

>>> a, b = ember.broadcast_tensors(ember.tensor([[1], [2]]), ember.tensor([3, 4, 5]))
>>> a.shape, b.tolist()
(ember.Size([2, 3]), [[3, 4, 5], [3, 4, 5]])
>>> ember.atleast_2d(ember.tensor(1.0)).shape
ember.Size([1, 1])
"""

from __future__ import annotations

from ..._core.shape import broadcast_shapes
from ..common import functional as _F
from ..functor import functor
from ..schema import schema_family
from .join import _atleast

declare = schema_family("shape")


declare(
    "broadcast_tensors",
    "TensorList (TensorList tensors) => BroadcastTensors",
    composite=True,
    doc="The tensors expanded to their common broadcast shape (views, as expand).",
)


@functor("BroadcastTensors")
def broadcast_tensors(tensors):
    shape = broadcast_shapes(*(t.shape for t in tensors))
    F = _F()
    return tuple(t if tuple(t.shape) == tuple(shape) else F.broadcast_to(t, shape) for t in tensors)


for _n in (1, 2, 3):
    declare(
        f"atleast_{_n}d",
        [f"Tensor (Tensor input) => Atleast{_n}d", f"TensorList (TensorList input) => Atleast{_n}dList"],
        composite=True,
        doc=f"input viewed with at least {_n} dimension(s) (a list of tensors gives a list), as NumPy's atleast_{_n}d.",
    )
    functor(f"Atleast{_n}d")(lambda input, _k=_n: _atleast(input, _k))  # noqa: A006 - the entry's parameter name
    functor(f"Atleast{_n}dList")(lambda input, _k=_n: [_atleast(t, _k) for t in input])  # noqa: A006
