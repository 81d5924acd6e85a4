"""TensorFlow 1's API on ember's graph mode: ``import ember.compat.v1 as tf``.

Names here mean what they mean in TensorFlow 1: ``tf.equal`` is element-wise, ``tf.nn.conv2d``
takes NHWC, an integer constant is int32, a Python number used as an operand becomes a
``Const`` node. Graphs, sessions and variables are ember's (``ember.graph``); the ops are
ember's ops, recorded as nodes with TensorFlow's op types. ``framework.py`` is the base: the
graph and tensor classes with TensorFlow's operators, constants, conversion and naming.
"""

# ruff: noqa: F401 - this module is a namespace: every import is a public name of it

from __future__ import annotations

from ..._core.dtype import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ...graph import (
    InteractiveSession,
    Operation,
    Session,
    TensorShape,
    control_dependencies,
    errors,
    get_default_graph,
    get_default_session,
    global_variables_initializer,
    gradients,
    group,
    identity,
    no_op,
    placeholder,
    placeholder_with_default,
    variables_initializer,
)
from ...graph.errors import OpError
from ...graph.proto import Event, HistogramProto, LogMessage, RunMetadata, RunOptions, SessionLog, Summary, SummaryMetadata
from ...graph.py_func import numpy_function, py_func
from . import experimental, gfile, summary
from .config import ConfigProto, GPUOptions, GraphOptions, OptimizerOptions
from .framework import (
    EagerTensor,
    Graph,
    Tensor,
    constant,
    convert_to_tensor,
    device,
    disable_eager_execution,
    disable_v2_behavior,
    enable_eager_execution,
    enable_v2_behavior,
    executing_eagerly,
    name_scope,
    reset_default_graph,
)
from .platform import app, flags, logging

bool = bool_  # noqa: A001 - TensorFlow's name
half = float16
double = float64
from . import initializers, random, train
from .clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm
from .initializers import (
    constant_initializer,
    glorot_normal_initializer,
    glorot_uniform_initializer,
    identity_initializer,
    ones_initializer,
    orthogonal_initializer,
    random_normal_initializer,
    random_uniform_initializer,
    truncated_normal_initializer,
    variance_scaling_initializer,
    zeros_initializer,
)
from .random_ops import get_seed, multinomial, random_normal, random_shuffle, random_uniform, set_random_seed, truncated_normal
from .variable_scope import AUTO_REUSE, VariableScope, get_local_variable, get_variable, get_variable_scope, variable_scope
from .variables import (
    GraphKeys,
    Variable,
    VariableV1,
    add_to_collection,
    add_to_collections,
    all_variables,
    get_collection,
    get_collection_ref,
    global_variables,
    initialize_all_variables,
    initialize_local_variables,
    initialize_variables,
    is_variable_initialized,
    local_variables,
    local_variables_initializer,
    model_variables,
    moving_average_variables,
    report_uninitialized_variables,
    trainable_variables,
)
