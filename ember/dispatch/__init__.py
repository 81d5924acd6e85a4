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

__all__ = [
    "NO_ATTRS",
    "OP_REGISTRY",
    "EagerLocalInterpreter",
    "Interpreter",
    "OpExpr",
    "current_interpreter",
    "dispatch",
    "get_op",
    "interpreter_scope",
    "register_kernel",
    "vm",
]
