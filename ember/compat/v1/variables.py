"""TensorFlow 1's variables and collections: ``tf.Variable``, ``GraphKeys``, ``get_collection``,
the variable lists (global, local, model, trainable) and their initializers and checks.

A variable is ember's graph ``Variable`` (a ``VariableV2`` node with its ``Assign`` initializer
and ``read`` identity). Here it takes TensorFlow's defaults: a Python integer initial value is
int32 (ember's graph ``constant`` makes int64, PyTorch's default), and ``collections`` say which
graph collections hold it. Collections are the graph's own lists, keyed by the strings of
``GraphKeys``.
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor as _EmberTensor
from ...graph import sources as _sources
from ...graph.graph import Operation, get_default_graph
from ...graph.symbolic import TensorShape, as_shape, probe_shape
from ...graph.tensor import GraphTensor
from .framework import TFOperators, infer_dtype, shape_text, v2_behavior

__all__ = [
    "GraphKeys",
    "assign",
    "assign_add",
    "assign_sub",
    "Variable",
    "VariableV1",
    "add_to_collection",
    "add_to_collections",
    "all_variables",
    "get_collection",
    "get_collection_ref",
    "global_variables",
    "initialize_all_variables",
    "initialize_local_variables",
    "initialize_variables",
    "is_variable_initialized",
    "local_variables",
    "local_variables_initializer",
    "model_variables",
    "moving_average_variables",
    "report_uninitialized_variables",
    "trainable_variables",
]


class GraphKeys:
    """The standard names of graph collections (TensorFlow's strings)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = "variables"
    LOCAL_VARIABLES = "local_variables"
    METRIC_VARIABLES = "metric_variables"
    MODEL_VARIABLES = "model_variables"
    TRAINABLE_VARIABLES = "trainable_variables"
    SUMMARIES = "summaries"
    QUEUE_RUNNERS = "queue_runners"
    TABLE_INITIALIZERS = "table_initializer"
    ASSET_FILEPATHS = "asset_filepaths"
    MOVING_AVERAGE_VARIABLES = "moving_average_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    CONCATENATED_VARIABLES = "concatenated_variables"
    SAVERS = "savers"
    WEIGHTS = "weights"
    BIASES = "biases"
    ACTIVATIONS = "activations"
    UPDATE_OPS = "update_ops"
    LOSSES = "losses"
    SAVEABLE_OBJECTS = "saveable_objects"
    RESOURCES = "resources"
    LOCAL_RESOURCES = "local_resources"
    TRAINABLE_RESOURCE_VARIABLES = "trainable_resource_variables"
    INIT_OP = "init_op"
    LOCAL_INIT_OP = "local_init_op"
    READY_OP = "ready_op"
    READY_FOR_LOCAL_INIT_OP = "ready_for_local_init_op"
    SUMMARY_OP = "summary_op"
    GLOBAL_STEP = "global_step"
    EVAL_STEP = "eval_step"
    TRAIN_OP = "train_op"
    COND_CONTEXT = "cond_context"
    WHILE_CONTEXT = "while_context"


# -- collections of the default graph ------------------------------------------------------------


def get_collection(key: str, scope: str | None = None) -> list:
    """The default graph's collection ``key`` (a copy), filtered by the ``scope`` regex if given."""
    return get_default_graph().get_collection(key, scope)


def get_collection_ref(key: str) -> list:
    """The default graph's collection ``key`` itself: appending to it adds to the collection."""
    return get_default_graph().get_collection_ref(key)


def add_to_collection(name: str, value) -> None:
    """Append ``value`` to the default graph's collection ``name``."""
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value) -> None:
    """Append ``value`` to each of the default graph's collections ``names`` (once each)."""
    get_default_graph().add_to_collections(names, value)


def global_variables(scope: str | None = None) -> list:
    """The default graph's global variables (those a ``Saver`` saves), filtered by the ``scope`` regex."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables() -> list:
    """Deprecated TensorFlow alias of ``global_variables()``."""
    return global_variables()


def trainable_variables(scope: str | None = None) -> list:
    """The default graph's trainable variables (what optimizers update), filtered by the ``scope`` regex."""
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list:
    """The default graph's local variables (per-process state such as metric counters), filtered by ``scope``."""
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list:
    """The default graph's model variables (the ``model_variables`` collection), filtered by ``scope``."""
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list:
    """The variables an ``ExponentialMovingAverage`` tracks, filtered by ``scope``."""
    return get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def local_variables_initializer() -> Operation:
    """One operation initialising every local variable (a no-op when there are none)."""
    return _sources.variables_initializer(local_variables(), name="init")


def initialize_variables(var_list, name: str = "init") -> Operation:
    """Deprecated TensorFlow alias of ``variables_initializer``."""
    return _sources.variables_initializer(var_list, name=name)


def initialize_all_variables() -> Operation:
    """Deprecated TensorFlow alias of ``global_variables_initializer()``."""
    return _sources.global_variables_initializer()


def initialize_local_variables() -> Operation:
    """Deprecated TensorFlow alias of ``local_variables_initializer()``."""
    return local_variables_initializer()


# -- tf.Variable ---------------------------------------------------------------------------------------


def _tf_initial_value(value, dtype):
    """A Python value as TensorFlow converts it (``framework``'s rule: integers as int32, int64
    where they do not fit, floats as float32); NumPy arrays and tensors keep their dtype."""
    if callable(value):  # called inside the variable's scope; what it returns is converted the same way
        return lambda: _tf_initial_value(value(), dtype)
    if dtype is not None or isinstance(value, (np.ndarray, np.generic, _EmberTensor)):
        return value
    if isinstance(value, (bool, int, float, complex, str, bytes, list, tuple)):
        inferred = infer_dtype(value)
        return np.asarray(value, dtype=object if inferred is _dt.string else inferred.numpy_dtype)
    return value


class Variable(TFOperators, _sources.Variable):
    """TensorFlow 1's ``tf.Variable``: ember's graph variable with TensorFlow's dtype defaults.

    >>> import ember.compat.v1 as tf
    >>> with tf.Graph().as_default():
    ...     v = tf.Variable(3, name="counter")
    >>> v.name, v.dtype.name, v.shape
    ('counter:0', 'int32', TensorShape([]))
    """

    __slots__ = ("_constraint",)

    def __new__(cls, initial_value=None, trainable=None, collections=None, validate_shape: bool = True, caching_device=None, name=None,
                variable_def=None, dtype=None, expected_shape=None, import_scope=None, constraint=None, use_resource=None,
                synchronization=None, aggregation=None, shape=None):  # fmt: skip
        if variable_def is not None:
            raise NotImplementedError("Variable(): building a variable from a VariableDef (variable_def=) is not supported")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        trainable = True if trainable is None else trainable
        if shape is not None and not as_shape(shape).is_fully_defined():
            validate_shape = False  # TensorFlow's way to declare a variable whose shape may change
        value = _tf_initial_value(initial_value, dtype)
        self = _sources.Variable.__new__(
            cls, value, trainable=trainable, name=name, dtype=dtype, validate_shape=validate_shape, collections=collections
        )
        self._constraint = constraint
        return self

    @property
    def constraint(self):
        return self._constraint

    def __repr__(self) -> str:
        ref = "" if v2_behavior() else "_ref"
        return f"<tf.Variable '{self.name}' shape={shape_text(self._static)} dtype={self._dtype.name}{ref}>"

    __str__ = __repr__


VariableV1 = Variable


# -- initialisation checks -----------------------------------------------------------------------------


def is_variable_initialized(variable) -> GraphTensor:
    """A bool scalar tensor: whether ``variable`` holds a value in the session that runs it."""
    if not isinstance(variable, _sources.Variable):
        raise TypeError(f"is_variable_initialized(): expected a Variable, got {type(variable).__name__}")
    graph = variable.graph
    op = graph.create_op("IsVariableInitialized", (variable,), {"dtype": variable._dtype}, [((), TensorShape([]), _dt.bool_)],
                         name="IsVariableInitialized")  # fmt: skip
    return op.outputs[0]


def report_uninitialized_variables(var_list=None, name: str = "report_uninitialized_variables") -> GraphTensor:
    """A 1-D string tensor of the names of the variables of ``var_list`` (default: the global and
    local ones) that hold no value in the session that runs it."""
    graph = get_default_graph()
    if var_list is None:
        var_list = global_variables() + local_variables()
    var_list = list(var_list)
    for v in var_list:
        if not isinstance(v, _sources.Variable):
            raise TypeError(f"report_uninitialized_variables(): expected Variables, got {type(v).__name__}")
    op = graph.create_op(
        "ReportUninitializedVariables",
        tuple(var_list),
        {},
        [(probe_shape(TensorShape([None])), TensorShape([None]), _dt.string)],
        name=name,
    )
    return op.outputs[0]


# -- state ops ------------------------------------------------------------------------------------------


def _check_ref(ref, op: str) -> None:
    if not isinstance(ref, _sources.Variable):
        raise TypeError(f"{op}(): 'ref' must be a Variable, got {type(ref).__name__}")


def assign(ref, value, validate_shape=None, use_locking=None, name=None) -> GraphTensor:
    """``ref = value``; the output is the new value (``validate_shape=False`` is refused where
    the shapes differ: an ember variable's shape is fixed)."""
    _check_ref(ref, "assign")
    return ref.assign(value, name=name)


def assign_add(ref, value, use_locking=None, name=None) -> GraphTensor:
    """``ref += value``; the output is the new value."""
    _check_ref(ref, "assign_add")
    return ref.assign_add(value, name=name)


def assign_sub(ref, value, use_locking=None, name=None) -> GraphTensor:
    """``ref -= value``; the output is the new value."""
    _check_ref(ref, "assign_sub")
    return ref.assign_sub(value, name=name)
