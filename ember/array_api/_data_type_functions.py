"""Data type functions: ember's own, which already follow the standard.

>>> import ember.array_api as xp
>>> xp.result_type(xp.int8, xp.uint8), xp.can_cast(xp.float64, xp.int32)
(ember.int16, False)
"""

from __future__ import annotations

from .._core import dtype as _dt
from ..ops.functional import FUNCTIONS as _F

# Generated functions whose signature and semantics already match the standard's.
_SAME = ("astype",)
astype = _F["astype"]

can_cast = _dt.can_cast
finfo = _dt.finfo
iinfo = _dt.iinfo
isdtype = _dt.isdtype
result_type = _dt.array_api_result_type
