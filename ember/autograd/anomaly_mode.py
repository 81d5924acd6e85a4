"""Anomaly detection for backward passes, as ``torch.autograd.detect_anomaly``/``set_detect_anomaly``.

While it is on, every backward node remembers the forward stack that created it, a node whose
backward raises has that stack shown as a warning, and (``check_nan``) a node that returns a
gradient holding NaN raises ``RuntimeError: Function 'XBackward0' returned nan values in its 0th output.``

>>> import warnings
>>> x = ember.tensor([-1.0], requires_grad=True)
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with ember.autograd.detect_anomaly():
...         x.sqrt().sum().backward()
Traceback (most recent call last):
RuntimeError: Function 'SqrtBackward0' returned nan values in its 0th output.
"""

from __future__ import annotations

import functools
import traceback
import warnings
import weakref

from .._core.tensor import Tensor
from ..ops import functional as F

# [enabled, check_nan]: one list the engine reads once per node
STATE = [False, True]
_FORWARD_STACKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on."""
    return STATE[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection also checks backward outputs for NaN."""
    return STATE[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turns anomaly detection on or off for the whole process."""
    STATE[0], STATE[1] = bool(enabled), bool(check_nan)


class detect_anomaly:
    """Context manager (and decorator) that turns anomaly detection on inside it.

    It slows every operation down (each records its stack): use it to find where a NaN appears."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._previous: tuple[bool, bool] | None = None
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled for debugging.",
            stacklevel=2,
        )

    def __enter__(self) -> None:
        self._previous = (STATE[0], STATE[1])
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        set_anomaly_enabled(*self._previous)

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return wrapper


class set_detect_anomaly:
    """Sets anomaly detection on or off: at once when called, and back to the previous setting when
    used as a context manager and left."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._previous = (STATE[0], STATE[1])
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc) -> None:
        set_anomaly_enabled(*self._previous)


def record_forward_stack(node) -> None:
    """Remembers where ``node`` was created (called for each new node while detection is on)."""
    _FORWARD_STACKS[node] = traceback.format_stack()[:-2]  # without the interpreter's own frames


def _warn_forward_stack(node) -> None:
    stack = _FORWARD_STACKS.get(node)
    if stack is None:
        warnings.warn(
            f"Error detected in {node.name()}. No forward pass information available. Enable detect anomaly during "
            "forward pass for more information.",
            stacklevel=3,
        )
        return
    warnings.warn(
        f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{''.join(stack)}", stacklevel=3
    )


def checked_apply(node, grads: tuple, apply) -> tuple:
    """``apply(node, grads)``, with the node's forward stack shown when it raises and, with
    ``check_nan``, a RuntimeError when one of its outputs holds NaN."""
    try:
        grad_inputs = apply(node, grads)
    except Exception:
        _warn_forward_stack(node)
        raise
    if STATE[1]:
        for i, g in enumerate(grad_inputs):
            if isinstance(g, Tensor) and (g.dtype.is_floating_point or g.dtype.is_complex) and F.isnan(g.detach()).any().item():
                _warn_forward_stack(node)
                raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    return grad_inputs
