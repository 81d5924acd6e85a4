"""Autograd: the interpreter that records backward nodes, the graph, the engine, grad modes.

``install()`` makes ``AutogradInterpreter(eager)`` the default interpreter and
``TENSOR_METHODS`` gives tensors ``backward``, ``retain_grad``, ``register_hook`` and ``data``;
``import ember`` does both. Derivatives live
beside their ops (``OpExpr.grad_rule`` in ``ember/ops/<family>.py``).

>>> import ember
>>> w = ember.tensor([[1.0, 2.0]], requires_grad=True)
>>> loss = (w @ ember.tensor([[3.0], [4.0]])).relu().sum()
>>> loss.backward()
>>> w.grad
tensor([[3., 4.]])
"""

from __future__ import annotations

from .._core.tensor import Tensor
from ..dispatch import grad_mode, interpreter as _interp
from ..dispatch.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from . import anomaly_mode, dot, engine, function, nodes
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .interpreter import AutogradInterpreter, note_write_site
from .nodes import AccumulateGrad, Node

__all__ = [
    "TENSOR_METHODS",
    "install",
    "AccumulateGrad",
    "AutogradInterpreter",
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "Node",
    "anomaly_mode",
    "backward",
    "detect_anomaly",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "set_detect_anomaly",
    "dot",
    "enable_grad",
    "engine",
    "function",
    "grad",
    "grad_mode",
    "gradcheck",
    "gradgradcheck",
    "nodes",
    "inference_mode",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "no_grad",
    "once_differentiable",
    "set_grad_enabled",
]

AUTOGRAD = AutogradInterpreter(_interp.EAGER)


def install() -> None:
    """Make ``AutogradInterpreter(eager)`` the default interpreter and note in-place write sites
    (for the "modified by an inplace operation" error). The package face calls this once."""
    _interp.set_default_interpreter(AUTOGRAD)
    if note_write_site not in _interp.INPLACE_WRITE_HOOKS:
        _interp.INPLACE_WRITE_HOOKS.append(note_write_site)


def _backward(self: Tensor, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Add the gradient of this tensor with respect to the graph's leaves into their ``.grad``."""
    backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)


def _retain_grad(self: Tensor) -> None:
    """Keep ``.grad`` for this non-leaf tensor too."""
    if not self._requires_grad:
        raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    if self.grad_fn is not None:
        engine.RETAINS_GRAD[self] = True


def _retains_grad(self: Tensor) -> bool:
    return self in engine.RETAINS_GRAD


def _register_hook(self: Tensor, hook):
    """``hook(grad)`` whenever this tensor's gradient is computed; may return a new one."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hooks = engine.TENSOR_HOOKS.setdefault(self, [])
    hooks.append(hook)
    return nodes._Handle(hooks, hook)


def _register_post_accumulate_grad_hook(self: Tensor, hook):
    """``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self.grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    hooks = engine.POST_ACCUMULATE_HOOKS.setdefault(self, [])
    hooks.append(hook)
    return nodes._Handle(hooks, hook)


def _get_data(self: Tensor) -> Tensor:
    return self.detach()


def _set_data(self: Tensor, value: Tensor) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
    self._storage, self._offset, self._shape, self._stride, self._dtype = value._storage, value._offset, value._shape, value._stride, value._dtype
    self._np_src = None


def _detach_(self: Tensor) -> Tensor:
    """Make this tensor a leaf that requires no grad, in place."""
    self.grad_fn = None
    self._requires_grad = False
    return self


# What autograd adds to every tensor; the package face binds it on Tensor (``ember._install``).
TENSOR_METHODS = {
    "backward": _backward,
    "retain_grad": _retain_grad,
    "retains_grad": property(_retains_grad),
    "register_hook": _register_hook,
    "register_post_accumulate_grad_hook": _register_post_accumulate_grad_hook,
    "data": property(_get_data, _set_data),
    "detach_": _detach_,
}
