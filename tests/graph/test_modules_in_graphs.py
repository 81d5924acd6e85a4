"""nn modules called on placeholders with an unknown batch: the graph gives eager's results for
every batch size fed (their functors compute with sizes that keep their formula)."""

import numpy as np
import pytest

import ember
import ember.nn as nn


def _cases():
    ember.manual_seed(0)
    return {
        "conv-pool-flatten-linear": (
            nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 5)),
            (None, 3, 8, 8), lambda n: (n, 3, 8, 8),
        ),
        "batchnorm2d-eval": (nn.BatchNorm2d(3).eval(), (None, 3, 4, 4), lambda n: (n, 3, 4, 4)),
        "layernorm": (nn.LayerNorm(8), (None, 8), lambda n: (n, 8)),
        "groupnorm": (nn.GroupNorm(2, 4), (None, 4, 3), lambda n: (n, 4, 3)),
        "avgpool-adaptive": (nn.Sequential(nn.AvgPool2d(2), nn.AdaptiveAvgPool2d(1)), (None, 2, 8, 8), lambda n: (n, 2, 8, 8)),
        "activations": (nn.Sequential(nn.GELU(), nn.SiLU(), nn.Softplus(), nn.LogSoftmax(1)), (None, 6), lambda n: (n, 6)),
        "lstm-batch-first": (nn.LSTM(4, 3, batch_first=True), (None, 5, 4), lambda n: (n, 5, 4)),
        "gru": (nn.GRU(4, 3), (5, None, 4), lambda n: (5, n, 4)),
        "attention": (nn.MultiheadAttention(8, 2, batch_first=True), (None, 5, 8), lambda n: (n, 5, 8)),
        "transformer-layer": (nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True).eval(), (None, 5, 8), lambda n: (n, 5, 8)),
        "conv1d": (nn.Conv1d(2, 3, 3), (None, 2, 7), lambda n: (n, 2, 7)),
        "conv-transpose": (nn.ConvTranspose2d(2, 3, 2, stride=2), (None, 2, 3, 3), lambda n: (n, 2, 3, 3)),
        "embedding": (nn.Embedding(10, 4), (None, 3), lambda n: (n, 3)),
    }


CASES = _cases()


def _call(name, module, x):
    out = module(x, x, x) if name == "attention" else module(x)
    return out[0] if isinstance(out, tuple) else out


@pytest.mark.parametrize("name", sorted(CASES))
def test_module_in_a_graph_matches_eager_for_any_batch(name):
    module, placeholder_shape, feed_shape = CASES[name]
    dtype = ember.int64 if name == "embedding" else ember.float32
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(dtype, placeholder_shape)
        out = _call(name, module, x)
    assert None in out.shape.as_list()  # the unknown batch flows through
    rng = np.random.default_rng(0)
    sess = ember.Session(graph=g)
    for n in (2, 5):
        shape = feed_shape(n)
        feed = rng.integers(0, 10, shape) if name == "embedding" else rng.standard_normal(shape).astype(np.float32)
        with ember.no_grad():
            expected = _call(name, module, ember.from_numpy(feed)).numpy()
        np.testing.assert_allclose(sess.run(out, {x: feed}), expected, rtol=1e-5, atol=1e-6)
    sess.close()


def test_a_module_made_inside_a_graph_scope_has_eager_parameters():
    with ember.Graph().as_default() as g:
        layer = nn.Linear(3, 2)  # initialised now, in place: eager parameters, captured as constants when used
        y = layer(ember.placeholder(ember.float32, (None, 3)))
    assert not isinstance(layer.weight, ember.GraphTensor) and layer.weight.requires_grad
    with ember.Session(graph=g) as sess:
        got = sess.run(y, {y.op.graph.get_operations()[0].outputs[0]: np.ones((4, 3), np.float32)})
    with ember.no_grad():
        np.testing.assert_allclose(got, layer(ember.ones(4, 3)).numpy(), rtol=1e-6)


def test_an_rnn_over_an_unknown_number_of_steps_is_refused():
    with ember.Graph().as_default():
        x = ember.placeholder(ember.float32, (None, 2, 4))  # (steps, batch, features): unknown steps
        with pytest.raises(ValueError, match="number of time steps must be known"):
            nn.GRU(4, 3)(x)
