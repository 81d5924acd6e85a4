"""compat.v1 outside a graph: TensorFlow 2's eager tensors, and the seed's DLPack transcript."""

import numpy as np
import pytest

import ember
import ember.compat.v1 as tf


def test_the_seeds_dlpack_transcript():
    x = tf.constant(5)
    assert repr(x) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    r = tf.experimental.dlpack.to_dlpack(x)
    assert 'capsule object "dltensor"' in repr(r)
    x_other = tf.experimental.dlpack.from_dlpack(r)
    assert repr(x_other) == "<tf.Tensor: shape=(), dtype=int32, numpy=5>"
    x_other.add_(1)  # the same memory: no copy on the way
    assert x.item() == 6


def test_eager_tensors_print_and_compute_as_tensorflow_2():
    y = tf.constant([[1.5, 2.0]])
    assert str(y) == "tf.Tensor([[1.5 2. ]], shape=(1, 2), dtype=float32)"
    assert repr(tf.constant("ab")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>"
    assert repr(tf.constant(1.1)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.1>"
    z = 2 * y - 1
    assert isinstance(z, tf.EagerTensor) and z.dtype is tf.float32
    np.testing.assert_allclose(z.numpy(), [[2.0, 3.0]])
    assert (tf.constant([1, 2]) == 1).numpy().tolist() == [True, False]  # values, as TensorFlow 2's eager ==
    assert (tf.constant(7) / 2).dtype is tf.float64
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float64"):
        tf.constant(1.0) + tf.constant(1.0, dtype=tf.float64)
    assert tf.get_default_graph().get_operations() == []  # eager work leaves the default graph alone


def test_to_dlpack_refuses_graph_tensors():
    with tf.Graph().as_default():
        g = tf.constant(1.0)
    with pytest.raises(ValueError, match="graph tensor"):
        tf.experimental.dlpack.to_dlpack(g)
    assert isinstance(tf.experimental.dlpack.from_dlpack(np.ones(2)), ember.Tensor)
