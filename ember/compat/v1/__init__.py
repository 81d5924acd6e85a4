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
from . import experimental, gfile, initializers, layers, losses, nn, random, summary, train
from .clip_ops import clip_by_global_norm, clip_by_norm, clip_by_value, global_norm
from .config import ConfigProto, GPUOptions, GraphOptions, OptimizerOptions
from .control_flow_ops import (
    Assert,
    Print,
    case,
    cond,
    debugging,
    print_v2 as print,  # noqa: A004 - TensorFlow's name
    stop_gradient,
    tuple_ as tuple,  # noqa: A004 - TensorFlow's name
    while_loop,
)
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
from .gradients_impl import UnconnectedGradients, gradients, hessians
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
from .platform import app, flags, logging
from .random_ops import get_seed, multinomial, random_normal, random_shuffle, random_uniform, set_random_seed, truncated_normal
from .variable_scope import AUTO_REUSE, VariableScope, get_local_variable, get_variable, get_variable_scope, variable_scope
from .variables import (
    GraphKeys,
    Variable,
    VariableV1,
    add_to_collection,
    add_to_collections,
    all_variables,
    assign,
    assign_add,
    assign_sub,
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

bool = bool_  # noqa: A001 - TensorFlow's name
half = float16
double = float64

from ...graph.flow_ops import (  # noqa: E402 - TensorFlow's assert_* at the top level too
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_less,
    assert_less_equal,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
)
