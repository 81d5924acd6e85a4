"""``tf.experimental``: DLPack exchange of eager tensors (TensorFlow 2's ``tf.experimental.dlpack``).

The seed's DLPack example runs as written: ``to_dlpack(x)`` gives a ``"dltensor"`` capsule over
``x``'s memory and ``from_dlpack(capsule)`` a tensor over the same memory, without a copy.

>>> import ember.compat.v1 as tf
>>> x = tf.constant(5)
>>> r = tf.experimental.dlpack.to_dlpack(x)
>>> tf.experimental.dlpack.from_dlpack(r)
<tf.Tensor: shape=(), dtype=int32, numpy=5>
"""

from __future__ import annotations

import types

from ..._core.tensor import Tensor as _EmberTensor
from ...graph.tensor import GraphTensor
from ...interop.dlpack import from_dlpack as _from_dlpack
from .framework import EagerTensor

__all__ = ["dlpack"]


def to_dlpack(tf_tensor):
    """A ``"dltensor"`` capsule over an eager tensor's memory (consumed once by ``from_dlpack``)."""
    if isinstance(tf_tensor, GraphTensor):
        raise ValueError(f"to_dlpack(): {tf_tensor.name} is a graph tensor and has no memory yet; run it in a Session first")
    if not isinstance(tf_tensor, _EmberTensor):
        raise TypeError(f"to_dlpack(): expected an eager tensor, got {type(tf_tensor).__name__}")
    return tf_tensor.__dlpack__()


def from_dlpack(dlcapsule):
    """An eager tensor over a DLPack capsule's memory (or any object with ``__dlpack__``)."""
    return EagerTensor._wrap(_from_dlpack(dlcapsule))


dlpack = types.ModuleType("dlpack", "``tf.experimental.dlpack``: ``to_dlpack`` and ``from_dlpack``.")
dlpack.to_dlpack = to_dlpack
dlpack.from_dlpack = from_dlpack
