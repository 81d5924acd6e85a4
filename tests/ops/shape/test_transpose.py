"""transpose/permute/movedim and t/T/mT: views with the dimensions reordered, and their
derivatives (gradcheck)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
from ember.autograd import gradcheck
from tests.ops._arrays import leaf


def test_array_api_spellings():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    t = ember.from_numpy(x)
    assert ember.permute_dims(t, (3, 2, 1, 0)).shape == (3, 1, 2, 1)
    assert ember.matrix_transpose(t).shape == (1, 2, 3, 1)
    assert ember.swapaxes(t, 1, 3).shape == (1, 3, 1, 2)
    assert ember.moveaxis(t, 0, -1).shape == (2, 1, 3, 1)


def test_view_errors_keep_their_messages():
    t = ember.zeros(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        t.transpose(0, 2)


def test_T_still_warns_on_more_than_two_dims():
    with pytest.warns(UserWarning, match="deprecated"):
        ember.zeros(2, 3, 4).T
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.zeros(2, 3).T.shape == (3, 2)


# -- derivatives ------------------------------------------------------------------------------

CASES = {
    "transpose": ((2, 3, 4), lambda x: x.transpose(0, -1)),
    "permute": ((2, 3, 4), lambda x: x.permute(2, 0, 1)),
    "movedim": ((2, 3, 4), lambda x: x.movedim((0, 1), (2, 0))),
    "t": ((2, 3), lambda x: x.t()),
    "T": ((2, 3), lambda x: x.T),
    "mT": ((2, 3, 4), lambda x: x.mT),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name):
    shape, fn = CASES[name]
    assert gradcheck(fn, (leaf(shape),))
