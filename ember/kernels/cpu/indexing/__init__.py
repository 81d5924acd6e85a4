"""CPU kernels of the indexing ops, one module per module of ``ember/ops/indexing/``.

Every kernel checks its indices against the sizes they address before NumPy sees them
(``_common.check_bounds``): out-of-bounds indices raise ``IndexError`` with PyTorch's message
(never wrap around, never read outside memory); negative ones count from the end.
"""

from . import gather_scatter, getitem, index_select, masked, sorting

__all__ = ["gather_scatter", "getitem", "index_select", "masked", "sorting"]
