"""Errors that more than one layer raises, defined on the lowest floor that raises them.

``LinAlgError`` comes from the linear-algebra kernels and from the ops' checks alike; users
know it as ``ember.linalg.LinAlgError`` (PyTorch's ``torch.linalg.LinAlgError``).
"""

from __future__ import annotations

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError):
    """A linear-algebra routine that failed on its input (singular, not positive-definite)."""


LinAlgError.__module__ = "ember.linalg"
