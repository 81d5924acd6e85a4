"""Indexing ops: each op's schema entry, functor, inference rule and derivative, side by side.

``t[key]`` and ``t[key] = value`` follow NumPy: basic keys (ints, slices, None, ...) give a view
(the ``getitem`` view op); integer or boolean tensors, arrays and lists make the key advanced,
and the result is a copy (the ``index`` primitive over the basic part's view, with NumPy's rule
for where the indexed dimensions go). Boolean masks become integer indices (``nonzero``) first,
as in PyTorch. Out-of-bounds indices raise ``IndexError``; negative ones count from the end.

By idea: ``keys.py`` (what a key means), ``getitem.py`` (``t[key]``, ``t[key] = value``, index,
index_put), ``gather_scatter.py`` (gather/scatter/take_along_dim, take/put), ``index_select.py``
(index_select/index_add/index_copy/index_fill), ``masked.py`` (masked_fill/select/scatter,
nonzero), ``sorting.py`` (sort/argsort/topk/kthvalue, unique, searchsorted/bucketize). Each
primitive's kernel is in the module of the same name under ``ember/kernels/cpu/indexing/``.

>>> import ember
>>> t = ember.tensor([[0, 1, 2], [3, 4, 5]])
>>> t[:, [2, 0]].tolist()
[[2, 0], [5, 3]]
>>> t[t.numpy() > 2].tolist()
[3, 4, 5]
"""

from . import getitem, gather_scatter, index_select, masked, sorting, membership  # noqa: F401  # isort: skip - declares in this order
from . import keys
from .keys import IndexKey, index_result_shape

__all__ = ["IndexKey", "gather_scatter", "getitem", "index_result_shape", "index_select", "keys", "masked", "sorting"]
