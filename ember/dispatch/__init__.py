"""OpExpr, dispatch, the interpreters and the VM: how an op gets from a functor to a kernel."""

from . import vm
from .interpreter import (
    NO_ATTRS,
    EagerLocalInterpreter,
    Interpreter,
    current_interpreter,
    dispatch,
    interpreter_scope,
)
from .opexpr import OP_REGISTRY, OpExpr, get_op, register_kernel
from .trace import Trace, explain, trace

__all__ = [
    "NO_ATTRS",
    "OP_REGISTRY",
    "EagerLocalInterpreter",
    "Interpreter",
    "OpExpr",
    "Trace",
    "current_interpreter",
    "dispatch",
    "explain",
    "get_op",
    "interpreter_scope",
    "register_kernel",
    "trace",
    "vm",
]
