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



def export_to(namespace: dict, functions: dict) -> list[str]:
    """Bind generated functions as names of a public namespace; returns the names for ``__all__``.

    The schema is the list of names, so the namespaces that show them (``ember``, ``ember.linalg``,
    ``ember.nn.functional``, this module) bind them through this one helper, never by a hand-kept
    copy of the list.
    """
    namespace.update(functions)
    return sorted(functions)


__all__ = ["FUNCTIONS", "METHODS", "NAMESPACES", "export_to", *export_to(globals(), FUNCTIONS)]
