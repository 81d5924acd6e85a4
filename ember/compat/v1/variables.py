"""TensorFlow 1's collections and variable lists: ``GraphKeys``, ``get_collection``, the global,
local, model and trainable variables, their initializers and the initialisation checks.

Collections are the graph's own lists, keyed by the strings of ``GraphKeys``; ``tf.Variable``
itself is ``framework.Variable`` (``collections=`` says which lists hold it).
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...graph import sources as _sources
from ...graph.graph import Operation, get_default_graph
from ...graph.symbolic import TensorShape, probe_shape
from ...graph.tensor import GraphTensor
from .framework import Variable

__all__ = [
    "GraphKeys",
    "assign",
    "assign_add",
    "assign_sub",
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
    get_default_graph().add_to_collection(name, value)


def add_to_collections(names, value) -> None:
    get_default_graph().add_to_collections(names, value)


def global_variables(scope: str | None = None) -> list:
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


def all_variables() -> list:
    """Deprecated TensorFlow alias of ``global_variables()``."""
    return global_variables()


def trainable_variables(scope: str | None = None) -> list:
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list:
    return get_collection(GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list:
    return get_collection(GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list:
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
