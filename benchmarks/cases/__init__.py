"""The benchmark cases. Importing a module registers its cases; add a module here to add cases."""

from . import (
    checkpoint,
    ddp,
    distributed,
    dlpack,
    fusion,
    global_ops,
    global_tensor,
    graph,
    interop,
    memory,
    multiprocessing,
    ops,
    peak_memory,
    tensor_parallel,
    tensorproto,
    tf_checkpoint,
    tf_compat,
    training,
    views,
)

__all__ = [
    "checkpoint", "ddp", "distributed", "dlpack", "fusion", "global_ops", "global_tensor", "graph", "interop", "memory", "multiprocessing", "ops", "peak_memory",
    "tensor_parallel", "tensorproto", "tf_checkpoint", "tf_compat", "training", "views",
]  # fmt: skip
