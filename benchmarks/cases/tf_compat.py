"""TensorFlow 1's API (``ember.compat.v1``) in graph mode: what TensorFlow's NHWC layout costs.

ember's convolution and pooling kernels are channels-first, so ``tf.nn.conv2d`` and the pools
transpose an NHWC input in and out. The case trains one small CNN written with ``tf.nn`` both
ways in one run: with TensorFlow's default layout (NHWC, transposes around each conv/pool) and
with ``data_format="NCHW"`` (no transposes), plus PyTorch's NCHW step where it is installed.
"""

import numpy as np
from harness import Compare, case, torch

import ember.compat.v1 as tf
from ember.graph import Graph, Session, Variable, assign_sub, placeholder
from ember.ops import functional as F


def _cnn_step(layout: str, x: np.ndarray, y: np.ndarray, weights: list[np.ndarray]):
    """One SGD step of conv3x3(16)-relu-maxpool-conv3x3(32)-relu-maxpool-dense(10), as a Session call."""
    nchw = layout == "NCHW"
    images = x.transpose(0, 3, 1, 2).copy() if nchw else x
    with Graph().as_default():
        px = placeholder("float32", images.shape)
        py = placeholder("int32", y.shape)
        w1, w2, w3 = (Variable(w) for w in weights)
        ksize = [1, 1, 2, 2] if nchw else [1, 2, 2, 1]
        h = tf.nn.relu(tf.nn.conv2d(px, w1, 1, "SAME", data_format=layout))
        h = tf.nn.max_pool(h, ksize, ksize, "VALID", data_format=layout)
        h = tf.nn.relu(tf.nn.conv2d(h, w2, 1, "SAME", data_format=layout))
        h = tf.nn.max_pool(h, ksize, ksize, "VALID", data_format=layout)
        if nchw:  # flatten in NHWC order, so both layouts compute the same function
            h = F.permute(h, (0, 2, 3, 1))
        logits = F.matmul(F.reshape(h, (x.shape[0], -1)), w3)
        loss = F.mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=py, logits=logits))
        grads = tf.gradients(loss, [w1, w2, w3])
        step = tf.group(*[assign_sub(w, F.mul(g, 0.01)) for w, g in zip((w1, w2, w3), grads, strict=True)])
        session = Session()
        session.run(tf.global_variables_initializer())
    return lambda: session.run([step, loss], {px: images, py: y})


@case(
    "compat/tf.nn CNN train step, 32x28x28x1, conv3x3(16)-pool-conv3x3(32)-pool-dense(10), NHWC vs NCHW",
    compare=(Compare("NHWC/NCHW", "ember[NHWC]", "ember[NCHW]"),),
    note="the NHWC column pays TensorFlow's layout (transposes around each conv and pool)",
)
def _tf_cnn():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 28, 28, 1)).astype(np.float32)
    y = rng.integers(0, 10, 32).astype(np.int32)
    weights = [
        (rng.standard_normal((3, 3, 1, 16)) * 0.3).astype(np.float32),
        (rng.standard_normal((3, 3, 16, 32)) * 0.1).astype(np.float32),
        (rng.standard_normal((7 * 7 * 32, 10)) * 0.02).astype(np.float32),
    ]
    impls = {"ember[NHWC]": _cnn_step("NHWC", x, y, weights), "ember[NCHW]": _cnn_step("NCHW", x, y, weights)}
    if torch is not None:
        tw1 = torch.tensor(weights[0].transpose(3, 2, 0, 1).copy(), requires_grad=True)
        tw2 = torch.tensor(weights[1].transpose(3, 2, 0, 1).copy(), requires_grad=True)
        tw3 = torch.tensor(weights[2], requires_grad=True)
        tx, ty = torch.from_numpy(x.transpose(0, 3, 1, 2).copy()), torch.from_numpy(y.astype(np.int64))
        tnf = torch.nn.functional

        def torch_step():
            h = tnf.max_pool2d(tnf.relu(tnf.conv2d(tx, tw1, padding=1)), 2)
            h = tnf.max_pool2d(tnf.relu(tnf.conv2d(h, tw2, padding=1)), 2)
            loss = tnf.cross_entropy(h.permute(0, 2, 3, 1).reshape(32, -1) @ tw3, ty)
            grads = torch.autograd.grad(loss, [tw1, tw2, tw3])
            with torch.no_grad():
                for w, g in zip((tw1, tw2, tw3), grads, strict=True):
                    w -= 0.01 * g
            return loss

        impls["torch"] = torch_step
    return impls
