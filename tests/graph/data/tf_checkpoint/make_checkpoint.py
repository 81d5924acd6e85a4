"""How the checkpoint beside this file was made: TensorFlow 2.21's ``tf.compat.v1.train.Saver``,
one variable per dtype a checkpoint carries (the values of ``VALUES`` in
``tests/graph/test_checkpoint_format.py``). Run with TensorFlow installed:
``python make_checkpoint.py <directory>``."""

import sys

import ml_dtypes
import numpy as np

VALUES = {
    "float16": np.array([1.5, -2.25], np.float16),
    "float32": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
    "float64": np.array(3.25),
    "bfloat16": np.array([1.0, -0.5, 3.0], ml_dtypes.bfloat16),
    "int8": np.array([-128, 127], np.int8),
    "int16": np.array([-3, 4], np.int16),
    "int32": np.array([[7]], np.int32),
    "int64": np.array([2**40, -1], np.int64),
    "uint8": np.array([0, 255], np.uint8),
    "uint16": np.array([65535], np.uint16),
    "bool": np.array([True, False, True]),
    "complex64": np.array([1 + 2j, -3j], np.complex64),
    "complex128": np.array([[1e300 + 1j]], np.complex128),
    "string": np.array([b"ab", b"", b"\xff\x00z"], dtype=object),
    "empty": np.zeros((0, 3), np.float32),
}


def main(directory: str) -> None:
    import tensorflow.compat.v1 as tf  # an optional peer: importing this file (doctest collection) must not need it

    tf.disable_eager_execution()
    with tf.Graph().as_default():
        for k, v in VALUES.items():
            tf.Variable(v, name="v/" + k)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            print(saver.save(sess, directory + "/model.ckpt", global_step=7, write_meta_graph=False, write_state=False))


if __name__ == "__main__":
    main(sys.argv[1])
