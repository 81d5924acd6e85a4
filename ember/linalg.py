"""``ember.linalg``: the linear-algebra functions of the schema (entries named ``linalg.*``)."""

from __future__ import annotations

from ._core.errors import LinAlgError
from .ops.functional import NAMESPACES as _NAMESPACES

# The schema is the list of names (entries named "linalg.<name>"); no hand-kept copy here.
globals().update(_NAMESPACES.get("linalg", {}))
__all__ = ["LinAlgError", *sorted(_NAMESPACES.get("linalg", {}))]
