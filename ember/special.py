"""``ember.special``: PyTorch's ``torch.special``, the special functions of the schema.

The schema is the list of names: entries named ``special.*`` (``special.i1``) and the top-level
entries that list ``special`` among their namespaces, under their own name or the one after a
colon (``"special:expit"`` on ``sigmoid``: ``torch.special.expit`` is ``torch.sigmoid``).

>>> ember.special.expit is ember.sigmoid, ember.special.gammaln is ember.lgamma
(True, True)
>>> ember.special.ndtr(ember.tensor([0.0])).tolist()
[0.5]
"""

from __future__ import annotations

from .ops.functional import FUNCTIONS, NAMESPACES, export_to
from .ops.schema import load_schema


def _schema_names() -> dict:
    """The functions this namespace shows, by their name here."""
    shown = dict(NAMESPACES.get("special", {}))
    for entry in load_schema():
        for namespace in entry.namespaces:
            space, _, name = namespace.partition(":")
            if space == "special":
                shown[name or entry.short_name] = FUNCTIONS[entry.python_name]
    return shown


__all__ = export_to(globals(), _schema_names())
