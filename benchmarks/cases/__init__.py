"""The benchmark cases. Importing a module registers its cases; add a module here to add cases."""

from . import checkpoint, ddp, dlpack, fusion, graph, interop, memory, multiprocessing, ops, tensorproto, training, views

__all__ = ["checkpoint", "ddp", "dlpack", "fusion", "graph", "interop", "memory", "multiprocessing", "ops", "tensorproto", "training", "views"]
