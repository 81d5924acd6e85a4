"""The benchmark cases. Importing a module registers its cases; add a module here to add cases."""

from . import (
    checkpoint,
    conv,
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
    tensor_parallel,
    tensorproto,
    tf_checkpoint,
    tf_compat,
    training,
    views,
)

__all__ = [
    "checkpoint", "conv", "ddp", "distributed", "dlpack", "fusion", "global_ops", "global_tensor", "graph", "interop", "memory", "multiprocessing", "ops",
    "tensor_parallel", "tensorproto", "tf_checkpoint", "tf_compat", "training", "views",
]  # fmt: skip
