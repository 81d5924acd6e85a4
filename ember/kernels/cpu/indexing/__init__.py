"""CPU kernels of the indexing ops, one module per module of ``ember/ops/indexing/``.

Every kernel checks its indices against the sizes they address before NumPy sees them, by its
op's rule (``ember.ops.indexing._common.check_index_range``): out-of-range indices raise
PyTorch's error (never wrap around, never read outside memory); negative ones count from the end
only in the ops where PyTorch counts them so (``t[idx]``, take, put, index_fill, take_along_dim).
"""

from . import gather_scatter, getitem, index_select, masked, sorting

__all__ = ["gather_scatter", "getitem", "index_select", "masked", "sorting"]
