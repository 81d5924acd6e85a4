"""``ember.linalg``: the linear-algebra functions of the schema (entries named ``linalg.*``)."""

from __future__ import annotations

from .ops.functional import NAMESPACES as _NAMESPACES
from .ops.linalg import LinAlgError

# The schema is the list of names (entries named "linalg.<name>"); no hand-kept copy here.
globals().update(_NAMESPACES.get("linalg", {}))
__all__ = ["LinAlgError", *sorted(_NAMESPACES.get("linalg", {}))]
