"""Shape ops: each op's schema entry, functor, inference rule and derivative, side by side.

Two kinds live here:

- **View ops** (``view``, ``transpose``, ``narrow``, ``split``...): primitives whose rule is a
  ``view_rule`` calling the metadata implementation in ``ember/_core/views.py``. No kernel, no
  copy; the result shares the input's storage (``view_op.py`` makes them). By idea:
  ``reshape.py`` (new shapes), ``transpose.py`` (reordered dims), ``slicing.py`` (parts).
- **Copying ops** (``cat``, ``flip``, ``roll``, ``repeat``, ``pad``, ``tril``...): primitives with
  an inference rule here and a kernel in the module of the same name under
  ``ember/kernels/cpu/shape/``, or composites of other ops (``stack``, ``rot90``, ``tile``...):
  ``join.py``, ``flip.py``, ``repeat.py``, ``pad.py``, ``diagonals.py``.

>>> import ember
>>> x = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> x.transpose(0, 1).tolist()
[[0, 3], [1, 4], [2, 5]]
>>> ember.cat([x, x], dim=1).shape
ember.Size([2, 6])
"""

from . import reshape, transpose, slicing, join, flip, repeat, pad, diagonals, broadcasting  # noqa: F401 - isort: skip - declares in this order
from . import shape_of, view_op
from ._common import positions, scatter_back
from .reshape import TENSOR_METHODS
from .view_op import VIEW_OPS, run_view

__all__ = [
    "TENSOR_METHODS", "VIEW_OPS", "diagonals", "flip", "join", "pad", "positions", "repeat", "reshape", "run_view", "scatter_back", "shape_of", "slicing", "transpose",
    "view_op",
]  # fmt: skip
