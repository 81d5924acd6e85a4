"""TensorFlow 1's API on ember's graph mode: ``import ember.compat.v1 as tf``.

Names here mean what they mean in TensorFlow 1: ``tf.equal`` is element-wise, ``tf.nn.conv2d``
takes NHWC, an integer constant is int32, a Python number used as an operand becomes a
``Const`` node. Graphs, sessions and variables are ember's (``ember.graph``); the ops are
ember's ops, recorded as nodes with TensorFlow's op types.
"""

from __future__ import annotations

from ...graph import (
    Graph,
    InteractiveSession,
    Operation,
    Session,
    TensorShape,
    control_dependencies,
    get_default_graph,
    get_default_session,
    global_variables,
    global_variables_initializer,
    gradients,
    group,
    identity,
    name_scope,
    no_op,
    placeholder_with_default,
    reset_default_graph,
    trainable_variables,
    variables_initializer,
)
from . import nn
