"""all, any, count_nonzero against PyTorch (result dtypes bool, uint8 and int64, every dtype)."""

import pytest
from hypothesis import given, strategies as st

import ember
from tests._oracle import needs_torch

from ._helpers import SETTINGS, check_dim_reduction


@needs_torch
@pytest.mark.parametrize("name", ["all", "any", "count_nonzero"])
@SETTINGS
@given(data=st.data())
def test_dim_reductions_match_torch(name, data):
    check_dim_reduction(name, data)


@pytest.mark.parametrize("name", ["all", "any"])
def test_an_empty_dim_list_reduces_nothing(name):
    # torch's all/any read dim=() as no dim (its sum and mean read it as every dim)
    x = ember.tensor([[1.0, 0.0], [2.0, 3.0]])
    result = getattr(ember, name)(x, ())
    assert result.shape == x.shape and result.dtype is ember.bool
    assert result.tolist() == (x != 0).tolist()
    assert getattr(ember, name)(x).shape == ()
    assert ember.sum(x, ()).shape == ()
