"""logical_not, logical_and, logical_or, logical_xor against PyTorch."""

from __future__ import annotations

import pytest

from tests._oracle import needs_torch
from tests.ops.elementwise._helpers import (
    BINARY_INPLACE_DTYPES,
    binary_matches_torch,
    check_binary_inplace_method,
    check_unary_inplace_method,
    unary_matches_torch,
)

test_unary_matches_torch = unary_matches_torch(["logical_not"])
test_binary_matches_torch = binary_matches_torch(["logical_and", "logical_or", "logical_xor"])


@needs_torch
@pytest.mark.parametrize("name", ["logical_not"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_unary_inplace_methods_match_torch(name, dtype):
    check_unary_inplace_method(name, dtype)


@needs_torch
@pytest.mark.parametrize("name", ["logical_or"])
@pytest.mark.parametrize("dtypes", BINARY_INPLACE_DTYPES)
def test_binary_inplace_methods_match_torch(name, dtypes):
    check_binary_inplace_method(name, dtypes)
