"""The functional API: one function per schema entry, generated at import.

``ember.ops.functional.add`` is the same object as ``ember.add``. The source of every
function is in :func:`ember.ops.codegen.generated_source`; tracebacks show it as
``<ember.ops.functional>``.
"""

from __future__ import annotations

from . import codegen
from .functor import FUNCTORS
from .schema import load_schema

GENERATED = codegen.build(load_schema(), FUNCTORS)
FUNCTIONS = GENERATED.functions
NAMESPACES = GENERATED.namespaces
METHODS = GENERATED.methods

# The schema is the list of names; this module re-exports them (no hand-kept copy).
globals().update(FUNCTIONS)
__all__ = sorted(FUNCTIONS)
