"""``ember.linalg``: the linear-algebra functions of the schema (entries named ``linalg.*``)."""

from __future__ import annotations

from ._core.errors import LinAlgError
from .ops.functional import NAMESPACES, export_to

# The schema is the list of names (entries named "linalg.<name>"); no hand-kept copy here.
__all__ = ["LinAlgError", *export_to(globals(), NAMESPACES["linalg"])]
