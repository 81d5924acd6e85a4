"""``isin``: whether each element occurs among the test elements (sorted once, then searched).

>>> import ember
>>> ember.isin(ember.tensor([1, 2, 3]), ember.tensor([2, 3])).tolist()
[False, True, True]
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ..args import scalar_tensor_like
from ..common import functional as _F
from ..functor import functor
from ..reduction import torch_name
from ..schema import schema_family

declare = schema_family("indexing")


def _check(x: Tensor) -> None:
    if x._dtype is _dt.bool_ or x._dtype.is_complex or x._dtype is _dt.string:
        raise RuntimeError(f"Unsupported input type encountered for isin(): {torch_name(x._dtype)}")


def _isin(elements: Tensor, test: Tensor, invert: bool) -> Tensor:
    _check(elements)
    _check(test)
    F = _F()
    common = _dt.promote_types(elements._dtype, test._dtype)
    pool = F.sort(test.reshape(-1).to(common)).values
    flat = elements.reshape(-1).to(common)
    n = pool._shape[0]
    if n == 0:
        found = F.zeros(flat._shape, dtype=_dt.bool_)
    else:
        at = F.clamp(F.searchsorted(pool, flat), max=n - 1)
        found = F.eq(F.gather(pool, 0, at), flat)  # NaN never equals, so never found
    found = found.reshape(elements._shape)
    return F.logical_not(found) if invert else found


declare(
    "isin",
    [
        "Tensor (Tensor elements, Tensor test_elements, *, Bool assume_unique=False, Bool invert=False) => Isin",
        "Tensor (Scalar elements, Tensor test_elements, *, Bool assume_unique=False, Bool invert=False) => IsinScalarElement",
        "Tensor (Tensor elements, Scalar test_elements, *, Bool assume_unique=False, Bool invert=False) => IsinScalarTest",
    ],
    differentiable=False, composite=True,
    doc="""
    A bool tensor of ``elements``' shape: True where the element occurs in ``test_elements``
    (``invert=True`` flips it). Both are promoted to a common dtype first; NaN is never found.

    >>> ember.isin(ember.tensor([[1, 2]]), 2, invert=True).tolist()
    [[True, False]]
    """,
)
@functor("Isin")
def isin(elements, test_elements, assume_unique=False, invert=False):
    return _isin(elements, test_elements, invert)


@functor("IsinScalarElement")
def isin_scalar_element(elements, test_elements, assume_unique=False, invert=False):
    return _isin(scalar_tensor_like(elements, test_elements), test_elements, invert)


@functor("IsinScalarTest")
def isin_scalar_test(elements, test_elements, assume_unique=False, invert=False):
    return _isin(elements, scalar_tensor_like(test_elements, elements), invert)
