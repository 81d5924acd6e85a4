"""Other frameworks' APIs, with their semantics, on ember's one op system.

``ember.compat.v1`` is TensorFlow 1's API (``import ember.compat.v1 as tf``): the top level of
ember keeps PyTorch's meanings (``ember.equal`` is one bool, ``ember.nn`` is PyTorch's), so the
names that mean something else in TensorFlow live here.
"""

from . import v1

__all__ = ["v1"]
