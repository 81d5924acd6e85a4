"""Utilities around the core: ``ember.utils.data`` (datasets, samplers, DataLoader).

>>> import ember.utils.data
>>> len(ember.utils.data.TensorDataset(ember.zeros(4, 2)))
4
"""

from . import data, dlpack

__all__ = ["data", "dlpack"]
