"""Grad modes: whether ops record backward nodes, per thread and scoped.

``no_grad``, ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` work as context
managers and as decorators, like PyTorch's.

>>> import ember
>>> x = ember.ones(2, requires_grad=True)
>>> with ember.no_grad():
...     (x * 2).requires_grad
False
>>> is_grad_enabled()
True
"""

from __future__ import annotations

import contextlib
import threading

__all__ = ["enable_grad", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "set_grad_enabled"]


class _GradState(threading.local):
    def __init__(self) -> None:
        self.enabled = True
        self.inference = False


state = _GradState()


def is_grad_enabled() -> bool:
    """Whether ops record backward nodes on this thread now."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class set_grad_enabled(contextlib.ContextDecorator):
    """Turn recording on or off: at once (``set_grad_enabled(False)``) and, as a context
    manager or decorator, restored afterwards."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'mode' must be bool, not {type(mode).__name__}")
        self.previous = state.enabled
        self.mode = mode
        state.enabled = mode

    def __enter__(self) -> None:
        state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        state.enabled = self.previous


class _GradModeScope(contextlib.ContextDecorator):
    mode = True

    def __enter__(self) -> None:
        self.previous = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        state.enabled = self.previous


class no_grad(_GradModeScope):
    """Record nothing inside the block (evaluation, optimizer steps, initialisation).

    >>> import ember
    >>> @no_grad()
    ... def doubled(t):
    ...     return t * 2
    >>> doubled(ember.ones(1, requires_grad=True)).requires_grad
    False
    """

    mode = False


class enable_grad(_GradModeScope):
    """Record inside the block, even within ``no_grad``."""

    mode = True


class inference_mode(contextlib.ContextDecorator):
    """``no_grad`` for pure inference (``inference_mode(False)`` leaves the mode alone)."""

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        self.previous = (state.enabled, state.inference)
        if self.mode:
            state.enabled, state.inference = False, True

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference = self.previous
