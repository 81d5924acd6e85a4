"""Graph mode: TensorFlow 1's Graph and Session on ember's one op system.

Inside ``with graph.as_default():`` the lazy interpreter records every ember op as an
Operation; a Session compiles what the fetches need into a plan and runs the same kernels as
eager mode. See ``docs/architecture.md`` (graph mode) for the journey.
"""

from . import summary, train
from .compile import CompiledFunction, compile  # noqa: A004 - ember.compile, as torch.compile
from .export import to_dot, write_graph
from .gradients import gradients
from .graph import Graph, Operation, control_dependencies, get_default_graph, name_scope, reset_default_graph
from .ops import (
    Variable,
    assign,
    assign_add,
    assign_sub,
    constant,
    global_variables,
    global_variables_initializer,
    group,
    identity,
    no_op,
    placeholder,
    placeholder_with_default,
    trainable_variables,
    variables_initializer,
)
from .passes import optimize
from .plan import FailedPreconditionError
from .session import InteractiveSession, Session, get_default_session
from .symbolic import TensorShape
from .tensor import GraphTensor, is_symbolic_tensor

__all__ = [
    "CompiledFunction",
    "FailedPreconditionError",
    "Graph",
    "GraphTensor",
    "InteractiveSession",
    "Operation",
    "Session",
    "TensorShape",
    "Variable",
    "assign",
    "assign_add",
    "assign_sub",
    "compile",
    "constant",
    "control_dependencies",
    "get_default_graph",
    "get_default_session",
    "global_variables",
    "gradients",
    "global_variables_initializer",
    "group",
    "identity",
    "is_symbolic_tensor",
    "name_scope",
    "no_op",
    "optimize",
    "placeholder",
    "placeholder_with_default",
    "reset_default_graph",
    "summary",
    "to_dot",
    "train",
    "trainable_variables",
    "variables_initializer",
    "write_graph",
]
