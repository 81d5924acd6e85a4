"""isin."""

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, to_torch, torch


def test_isin_promotes_and_inverts():
    assert ember.isin(ember.tensor([1, 2, 3]), ember.tensor([2.5, 3.0])).tolist() == [False, False, True]
    assert ember.isin(ember.tensor([[1, 2]]), 2, invert=True).tolist() == [[True, False]]
    assert ember.isin(3, ember.tensor([1, 3])).item() is True
    assert ember.isin(ember.tensor([1.0]), ember.tensor([])).tolist() == [False]
    assert ember.isin(ember.tensor([1.0, float("nan")]), ember.tensor([float("nan"), 1.0])).tolist() == [True, False]


def test_isin_errors():
    with pytest.raises(TypeError, match="isin"):
        ember.isin(1, 2)
    with pytest.raises(RuntimeError, match="Unsupported input type encountered for isin\\(\\): Bool"):
        ember.isin(ember.tensor([True]), ember.tensor([1]))


@needs_torch
def test_isin_matches_torch():
    rng = np.random.default_rng(0)
    a, b = rng.integers(-5, 5, size=(4, 6)), rng.integers(-5, 5, size=(7,))
    for invert in (False, True):
        got = ember.isin(ember.tensor(a), ember.tensor(b), invert=invert).numpy()
        want = torch.isin(to_torch(ember.tensor(a)), to_torch(ember.tensor(b)), invert=invert).numpy()
        assert np.array_equal(got, want)
