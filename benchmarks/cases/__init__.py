"""The benchmark cases. Importing a module registers its cases; add a module here to add cases."""

from . import checkpoint, dlpack, fusion, graph, interop, memory, multiprocessing, ops, tensorproto, training, views

__all__ = ["checkpoint", "dlpack", "fusion", "graph", "interop", "memory", "multiprocessing", "ops", "tensorproto", "training", "views"]
