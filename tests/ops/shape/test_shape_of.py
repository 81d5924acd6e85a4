"""shape_of: a tensor's shape as a 1-d integer tensor, eagerly and read at run time in a graph."""

import numpy as np
import pytest

import ember
from ember.ops.shape.shape_of import shape_of


def test_eager_shape_of_every_rank_and_dtype():
    assert shape_of(ember.zeros(2, 3, 4)).tolist() == [2, 3, 4]
    assert shape_of(ember.zeros(())).tolist() == [] and shape_of(ember.zeros(0, 5)).tolist() == [0, 5]
    assert shape_of(ember.zeros(2, 3)).dtype is ember.int64
    assert shape_of(ember.zeros(2, 3).t(), ember.int32).tolist() == [3, 2]
    with pytest.raises(TypeError, match="shape_of\\(\\): dtype must be int32 or int64"):
        shape_of(ember.zeros(2), ember.float32)


def test_graph_shape_of_a_partly_known_placeholder_is_its_fed_shape():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float32, (None, 3))
        s = shape_of(x, ember.int32)
        doubled = shape_of(ember.cat([x, x]))
        with ember.Session() as sess:
            for rows in (1, 4):
                got, got2 = sess.run([s, doubled], {x: np.zeros((rows, 3), np.float32)})
                assert got.tolist() == [rows, 3] and got.dtype == np.int32 and got2.tolist() == [2 * rows, 3]
    assert s.shape.as_list() == [2] and s.op.type == "shape_of"
