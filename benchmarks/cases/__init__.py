"""The benchmark cases. Importing a module registers its cases; add a module here to add cases."""

from . import interop, memory, ops, training, views

__all__ = ["interop", "memory", "ops", "training", "views"]
