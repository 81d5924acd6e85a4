"""all, any, count_nonzero against PyTorch (result dtypes bool, uint8 and int64, every dtype)."""

import pytest
from hypothesis import given, strategies as st

from tests._oracle import needs_torch

from ._helpers import SETTINGS, check_dim_reduction


@needs_torch
@pytest.mark.parametrize("name", ["all", "any", "count_nonzero"])
@SETTINGS
@given(data=st.data())
def test_dim_reductions_match_torch(name, data):
    check_dim_reduction(name, data)
