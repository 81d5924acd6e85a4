"""Graph mode: TensorFlow 1's Graph and Session on ember's one op system.

Inside ``with graph.as_default():`` the lazy interpreter records every ember op as an
Operation; a Session compiles what the fetches need into a plan and runs the same kernels as
eager mode. See ``docs/architecture.md`` (graph mode) for the journey.

The package is built in floors; a module imports only from the floors below it:

1. ``symbolic.py`` (partial shapes), ``elementwise.py`` (which primitives are elementwise),
   ``export.py`` + ``proto/`` (GraphDef and DOT of a graph, read through its attributes),
   ``errors.py`` (TensorFlow's error classes), ``gfile.py`` (its file API, local paths),
   ``crc32c.py``, ``checkpoint/`` (TensorFlow's V2 checkpoint files and their state file);
2. the IR and recording: ``tensor.py`` (GraphTensor, the values), ``lazy.py`` (the lazy
   interpreter, which records into any graph it is given), ``graph.py`` (Operation, Graph,
   names and scopes, the default graph and the default session; ``as_default`` installs the
   lazy interpreter), ``sources.py`` (constants, placeholders, variables);
3. executors, ``run/``: ``plan.py`` (the general one), ``static.py`` (kernels on planned
   arrays), ``specialize.py`` (a plan per fed shapes), ``row_split.py``, ``fused.py`` (a chain
   of elementwise kernels as one program);
4. ``passes/``: graph rewrites (the fusion pass makes ``run/fused.py`` programs);
5. ``gradients.py``, then ``func_graph.py`` (the sub-graphs control flow nodes hold),
   ``flow_ops.py`` (stop_gradient, Print, Assert), ``control_flow.py`` (cond, case,
   while_loop) and ``control_flow_grad.py`` (their gradients), ``run_metadata.py`` (RunOptions
   traces and deadlines), then ``session.py`` (Session and its feed/fetch conversion registry),
   then ``compile.py`` (``ember.compile``);
6. ``train/`` (optimizers, global step, learning-rate schedules); ``py_func.py`` (Python functions as nodes); ``summary_encode.py`` (histograms,
   PNG, WAV), ``summary_ops.py`` (summary nodes and their kernels), ``summary.py``
   (FileWriter and ``tf.summary``); ``gfile.py``; ``saver.py`` (``Saver`` on ``checkpoint/``).
"""

from . import (
    checkpoint,
    control_flow_grad as control_flow_grad,  # registers the gradients of If and While
    errors,
    gfile,
    py_func,
    saver,
    summary,
    train,
)
from .compile import CompiledFunction, compile  # noqa: A004 - ember.compile, as torch.compile
from .control_flow import case, cond, while_loop
from .errors import FailedPreconditionError
from .export import to_dot, write_graph
from .flow_ops import stop_gradient
from .gradients import gradients
from .graph import (
    Graph,
    Operation,
    control_dependencies,
    get_default_graph,
    get_default_session,
    name_scope,
    reset_default_graph,
)
from .passes import optimize
from .saver import Saver
from .session import InteractiveSession, Session, register_session_run_conversion_functions
from .sources import (
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
from .symbolic import TensorShape
from .tensor import GraphTensor, is_symbolic_tensor

__all__ = [
    "CompiledFunction",
    "FailedPreconditionError",
    "Graph",
    "GraphTensor",
    "InteractiveSession",
    "Operation",
    "Saver",
    "Session",
    "TensorShape",
    "Variable",
    "assign",
    "assign_add",
    "assign_sub",
    "case",
    "checkpoint",
    "compile",
    "cond",
    "constant",
    "control_dependencies",
    "errors",
    "gfile",
    "py_func",
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
    "register_session_run_conversion_functions",
    "reset_default_graph",
    "saver",
    "stop_gradient",
    "summary",
    "to_dot",
    "train",
    "trainable_variables",
    "variables_initializer",
    "while_loop",
    "write_graph",
]
