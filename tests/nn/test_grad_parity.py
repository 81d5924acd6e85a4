"""Layer gradients against torch.nn: torch's weights loaded, the same float64 input and upstream gradient,
then the input's gradient and every parameter's ``.grad`` compared."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests._oracle import require_torch

torch = require_torch()

# torch's own warnings (oneDNN without LSTM projections, nested tensors) are not ours
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

RTOL, ATOL = 1e-6, 1e-10


def _rng(seed=0):
    return np.random.default_rng(seed)


def _flatten(out):
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flatten(o)]
    return [] if out is None else [out]


def _grad_parity(module, tmodule, inputs, *, grad_inputs=None, kwargs=None, train=False, seed=0):
    """Run ``inputs`` (numpy arrays) through both modules, backprop one random gradient per output, compare.

    ``grad_inputs``: the indices of the inputs that require grad (default: every floating input).
    ``kwargs``: extra keyword arguments, numpy arrays among them converted for each library.
    """
    rng = _rng(seed)
    tmodule.double()
    module.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tmodule.state_dict().items()})
    module.train(train)
    tmodule.train(train)
    kwargs = kwargs or {}
    if grad_inputs is None:
        grad_inputs = [i for i, x in enumerate(inputs) if np.issubdtype(x.dtype, np.floating)]

    def convert(lib_tensor, x, grad):
        t = lib_tensor(x)
        return t.requires_grad_(True) if grad else t

    e_in = [convert(ember.tensor, x, i in grad_inputs) for i, x in enumerate(inputs)]
    t_in = [convert(torch.from_numpy, x.copy(), i in grad_inputs) for i, x in enumerate(inputs)]
    e_kw = {k: ember.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    t_kw = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    e_out, t_out = _flatten(module(*e_in, **e_kw)), _flatten(tmodule(*t_in, **t_kw))
    assert len(e_out) == len(t_out)
    grads = [rng.standard_normal(tuple(t.shape)) for t in t_out]
    for e, t in zip(e_out, t_out, strict=True):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=RTOL, atol=ATOL)
    sum(((e * ember.tensor(g)).sum() for e, g in zip(e_out, grads, strict=True))).backward()
    torch.autograd.backward(t_out, [torch.from_numpy(g) for g in grads])

    for i in grad_inputs:
        assert e_in[i].grad is not None, f"input {i} has no grad"
        np.testing.assert_allclose(e_in[i].grad.numpy(), t_in[i].grad.numpy(), rtol=RTOL, atol=ATOL, err_msg=f"input {i}")
    t_params = dict(tmodule.named_parameters())
    e_params = dict(module.named_parameters())
    assert list(e_params) == list(t_params)
    for name, tp in t_params.items():
        ep = e_params[name]
        if tp.grad is None:
            assert ep.grad is None or not np.any(ep.grad.numpy()), name
            continue
        assert ep.grad is not None, f"{name} has no grad"
        np.testing.assert_allclose(ep.grad.numpy(), tp.grad.numpy(), rtol=RTOL, atol=ATOL, err_msg=name)
    if train:  # running statistics follow the same update
        for key, value in tmodule.state_dict().items():
            np.testing.assert_allclose(module.state_dict()[key].numpy(), value.numpy(), rtol=RTOL, atol=ATOL, err_msg=key)


def _pair(name, *args, **kwargs):
    torch.manual_seed(0)
    factory = {} if "Pool" in name else {"dtype": ember.float64}  # pooling layers have no parameters and no dtype
    return getattr(nn, name)(*args, **factory, **kwargs), getattr(torch.nn, name)(*args, **kwargs)


def _x(*shape, seed=1):
    return _rng(seed).standard_normal(shape)


# -- recurrent --------------------------------------------------------------------------------------------------------

RNN_CASES = [
    ("RNN", {"nonlinearity": "tanh"}),
    ("RNN", {"nonlinearity": "relu"}),
    ("RNN", {"nonlinearity": "tanh", "bias": False}),
    ("LSTM", {}),
    ("LSTM", {"proj_size": 2}),
    ("GRU", {}),
    ("GRU", {"bias": False}),
]


@pytest.mark.parametrize("batch_first", [False, True], ids=["seq_first", "batch_first"])
@pytest.mark.parametrize("bidirectional", [False, True], ids=["uni", "bi"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "init_state"])
@pytest.mark.parametrize(
    ("name", "kwargs"), RNN_CASES, ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for n, kw in RNN_CASES]
)
def test_recurrent_grads(name, kwargs, batch_first, bidirectional, with_state):
    layers, n, seq, h_in, hidden = 2, 3, 4, 3, 5
    module, tmodule = _pair(name, h_in, hidden, num_layers=layers, batch_first=batch_first, bidirectional=bidirectional, **kwargs)
    x = _x(n, seq, h_in) if batch_first else _x(seq, n, h_in)
    inputs = [x]
    if with_state:
        d = 2 if bidirectional else 1
        h0 = _x(layers * d, n, kwargs.get("proj_size") or hidden, seed=2)
        if name == "LSTM":
            c0 = _x(layers * d, n, hidden, seed=3)
            # LSTM takes (h0, c0) as one argument: wrap both modules to take them separately
            module, tmodule = _StatePair(module), _StatePair(tmodule)
            inputs += [h0, c0]
        else:
            inputs.append(h0)
    _grad_parity(module, tmodule, inputs)


class _StatePair:
    """An LSTM called as lstm(x, h0, c0), so that h0 and c0 are separate inputs with their own grads."""

    def __init__(self, lstm):
        self.lstm = lstm

    def __call__(self, x, h0, c0):
        return self.lstm(x, (h0, c0))

    def __getattr__(self, name):
        return getattr(self.lstm, name)


def test_recurrent_unbatched_grads():
    for name in ("RNN", "LSTM", "GRU"):
        module, tmodule = _pair(name, 3, 4, bidirectional=True)
        _grad_parity(module, tmodule, [_x(5, 3)])


def test_lstm_proj_single_layer_with_state():
    module, tmodule = _pair("LSTM", 3, 6, proj_size=4, batch_first=True)
    _grad_parity(_StatePair(module), _StatePair(tmodule), [_x(2, 5, 3), _x(1, 2, 4, seed=2), _x(1, 2, 6, seed=3)])


# -- attention --------------------------------------------------------------------------------------------------------

L, S, N, E = 3, 4, 2, 8
CAUSAL = np.triu(np.ones((L, S), dtype=bool), 1)
PADDING = np.array([[False, False, False, True], [False, True, False, False]])
MASK3 = np.zeros((N * 2, L, S), dtype=bool)  # one (L, S) mask per batch entry and head
MASK3[0, :, 1] = MASK3[3, 1, :2] = True

MHA_CASES = [
    ({}, {}),
    ({"batch_first": True}, {}),
    ({}, {"attn_mask": CAUSAL}),
    ({"batch_first": True}, {"attn_mask": _x(L, S, seed=4)}),
    ({}, {"attn_mask": _x(N * 2, L, S, seed=4)}),
    ({}, {"key_padding_mask": PADDING}),
    ({"batch_first": True}, {"key_padding_mask": PADDING, "attn_mask": CAUSAL}),
    ({}, {"key_padding_mask": np.where(PADDING, -1.5, 0.0)}),
    ({}, {"need_weights": False}),
    ({}, {"attn_mask": MASK3}),
    ({"batch_first": True}, {"attn_mask": np.where(CAUSAL, -np.inf, 0.0), "key_padding_mask": np.where(PADDING, -np.inf, 0.0)}),
    ({"add_bias_kv": True, "add_zero_attn": True}, {"attn_mask": MASK3, "key_padding_mask": PADDING}),
    ({"kdim": 3, "vdim": 5, "add_bias_kv": True, "add_zero_attn": True}, {"key_padding_mask": PADDING}),
    ({"batch_first": True, "bias": False, "add_bias_kv": True}, {"need_weights": False}),
    ({}, {"average_attn_weights": False}),
    ({"add_bias_kv": True}, {"attn_mask": CAUSAL, "key_padding_mask": PADDING}),
    ({"add_zero_attn": True}, {"attn_mask": CAUSAL, "key_padding_mask": PADDING}),
    ({"add_bias_kv": True, "add_zero_attn": True, "batch_first": True}, {"average_attn_weights": False}),
    ({"bias": False}, {}),
    ({"kdim": 3, "vdim": 5}, {"key_padding_mask": PADDING}),
]


@pytest.mark.parametrize(("ctor", "call"), MHA_CASES, ids=[f"case{i}" for i in range(len(MHA_CASES))])
def test_multihead_attention_grads(ctor, call):
    module, tmodule = _pair("MultiheadAttention", E, 2, **ctor)
    kdim, vdim = ctor.get("kdim", E), ctor.get("vdim", E)
    if ctor.get("batch_first"):
        q, k, v = _x(N, L, E), _x(N, S, kdim, seed=5), _x(N, S, vdim, seed=6)
    else:
        q, k, v = _x(L, N, E), _x(S, N, kdim, seed=5), _x(S, N, vdim, seed=6)
    _grad_parity(module, tmodule, [q, k, v], kwargs=call)


def test_multihead_self_attention_grads():
    """The same tensor as query, key and value: the three gradient paths add up."""
    module, tmodule = _pair("MultiheadAttention", E, 4, batch_first=True)

    class Self:
        def __init__(self, m, mask):
            self.m, self.mask = m, mask

        def __call__(self, x):
            return self.m(x, x, x, attn_mask=self.mask)

        def __getattr__(self, name):
            return getattr(self.m, name)

    mask = np.triu(np.ones((L, L), dtype=bool), 1)
    _grad_parity(Self(module, ember.tensor(mask)), Self(tmodule, torch.from_numpy(mask)), [_x(N, L, E)])


def test_multihead_attention_unbatched_grads():
    module, tmodule = _pair("MultiheadAttention", E, 2)
    _grad_parity(module, tmodule, [_x(L, E), _x(S, E, seed=5), _x(S, E, seed=6)], kwargs={"attn_mask": CAUSAL})


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_layer_grads(norm_first, activation, batch_first):
    module, tmodule = _pair("TransformerEncoderLayer", E, 2, dim_feedforward=16, norm_first=norm_first, activation=activation,
                            batch_first=batch_first)  # fmt: skip
    x = _x(N, 5, E) if batch_first else _x(5, N, E)
    _grad_parity(module, tmodule, [x])


def test_transformer_encoder_layer_masked_grads():
    module, tmodule = _pair("TransformerEncoderLayer", E, 2, dim_feedforward=16, batch_first=True)
    mask = np.triu(np.ones((S, S), dtype=bool), 1)
    _grad_parity(module, tmodule, [_x(N, S, E)], kwargs={"src_mask": mask, "src_key_padding_mask": PADDING})


# -- other layers -----------------------------------------------------------------------------------------------------

LAYER_CASES = [
    ("BatchNorm1d", (3,), {}, [(6, 3)], True),
    ("BatchNorm1d", (3,), {}, [(4, 3, 5)], True),
    ("BatchNorm1d", (3,), {"affine": False}, [(6, 3)], True),
    ("BatchNorm2d", (3,), {}, [(4, 3, 5, 5)], True),
    ("BatchNorm2d", (3,), {"momentum": None}, [(2, 3, 4, 3)], True),
    ("BatchNorm2d", (3,), {}, [(4, 3, 5, 5)], False),
    ("LayerNorm", (6,), {}, [(2, 3, 6)], False),
    ("LayerNorm", ((3, 6),), {"bias": False}, [(2, 3, 6)], False),
    ("LayerNorm", (6,), {"elementwise_affine": False}, [(2, 3, 6)], False),
    ("Conv1d", (2, 4, 3), {"stride": 2, "padding": 1}, [(2, 2, 9)], False),
    ("Conv1d", (4, 4, 3), {"groups": 2, "dilation": 2, "bias": False}, [(2, 4, 11)], False),
    ("Conv2d", (3, 4, 3), {"padding": 1}, [(2, 3, 6, 6)], False),
    ("Conv2d", (4, 6, 3), {"groups": 2, "padding": "same", "padding_mode": "circular"}, [(2, 4, 6, 6)], False),
    ("Conv2d", (2, 3, (3, 2)), {"stride": (2, 1), "dilation": 2, "padding_mode": "reflect", "padding": 1}, [(1, 2, 9, 8)], False),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1}, [(2, 4, 5, 5)], False),
    ("ConvTranspose2d", (4, 6, (3, 2)), {"groups": 2, "dilation": (1, 2)}, [(2, 4, 4, 5)], False),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [(2, 3, 7, 7)], False),
    ("MaxPool2d", (2,), {"stride": 1, "ceil_mode": True}, [(2, 3, 5, 5)], False),
    ("MaxPool2d", (2,), {"dilation": 2}, [(1, 2, 7, 7)], False),
    ("AvgPool2d", (2,), {}, [(2, 3, 6, 6)], False),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "count_include_pad": False}, [(2, 3, 7, 7)], False),
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1, "ceil_mode": True}, [(2, 3, 6, 6)], False),
    ("AdaptiveAvgPool2d", ((3, 2),), {}, [(2, 3, 7, 5)], False),
    ("AdaptiveAvgPool2d", (4,), {}, [(2, 3, 6, 9)], False),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "shapes", "train"), LAYER_CASES, ids=[c[0] for c in LAYER_CASES])
def test_layer_grads(name, args, kwargs, shapes, train):
    module, tmodule = _pair(name, *args, **kwargs)
    if name.startswith("BatchNorm") and not train:  # eval mode uses running statistics: make them non-trivial
        with torch.no_grad():
            tmodule.running_mean.uniform_(-1, 1)
            tmodule.running_var.uniform_(0.5, 2)
    _grad_parity(module, tmodule, [_x(*s, seed=i + 1) for i, s in enumerate(shapes)], train=train)


@pytest.mark.parametrize(
    "kwargs", [{}, {"padding_idx": 2}, {"scale_grad_by_freq": True}, {"padding_idx": 0, "scale_grad_by_freq": True}]
)
def test_embedding_grads(kwargs):
    module, tmodule = _pair("Embedding", 10, 3, **kwargs)
    idx = np.array([[1, 2, 9, 2], [0, 0, 3, 1]])
    _grad_parity(module, tmodule, [idx])


# -- edge cases -------------------------------------------------------------------------------------------------------


class _Call:
    """A module called with a fixed argument pattern: ``fn(module, *inputs)``."""

    def __init__(self, module, fn):
        self.module, self.fn = module, fn

    def __call__(self, *inputs):
        return self.fn(self.module, *inputs)

    def __getattr__(self, name):
        return getattr(self.module, name)


def test_lstm_unbatched_with_state_grads():
    module, tmodule = _pair("LSTM", 3, 5, num_layers=2, proj_size=3, bidirectional=True)
    _grad_parity(_StatePair(module), _StatePair(tmodule), [_x(4, 3), _x(4, 3, seed=2), _x(4, 5, seed=3)])


def test_gru_unbatched_with_state_grads():
    module, tmodule = _pair("GRU", 3, 5, num_layers=2)
    _grad_parity(module, tmodule, [_x(4, 3), _x(2, 5, seed=2)])


def test_cross_attention_shared_key_value_grads():
    """key is value: both projections' gradients land on one tensor."""
    module, tmodule = _pair("MultiheadAttention", E, 2, batch_first=True)
    fn = lambda m, q, kv: m(q, kv, kv)  # noqa: E731
    _grad_parity(_Call(module, fn), _Call(tmodule, fn), [_x(N, L, E), _x(N, S, E, seed=5)])


def test_multihead_attention_is_causal_grads():
    module, tmodule = _pair("MultiheadAttention", E, 2)
    mask = np.triu(np.ones((L, L), dtype=bool), 1)
    x = _x(L, N, E)
    _grad_parity(module, tmodule, [x, x.copy(), x.copy()], kwargs={"attn_mask": mask, "is_causal": True})


def test_transformer_encoder_stack_grads():
    torch.manual_seed(0)
    tlayer = torch.nn.TransformerEncoderLayer(E, 2, dim_feedforward=16, batch_first=True, norm_first=True)
    tmodule = torch.nn.TransformerEncoder(tlayer, 2, norm=torch.nn.LayerNorm(E), enable_nested_tensor=False)
    layer = nn.TransformerEncoderLayer(E, 2, dim_feedforward=16, batch_first=True, norm_first=True, dtype=ember.float64)
    module = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(E, dtype=ember.float64), enable_nested_tensor=False)
    _grad_parity(module, tmodule, [_x(N, 5, E)], kwargs={"mask": np.triu(np.ones((5, 5), dtype=bool), 1)})


def test_max_pool_ties_grads():
    """Equal values in a window: the gradient goes to one of them (the first, as in torch), not to all."""
    x = np.floor(_x(2, 2, 6, 6) * 1.5)
    for kwargs in (
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 1, "padding": 1},
        {"kernel_size": 3, "stride": 2, "ceil_mode": True},
    ):
        _grad_parity(nn.MaxPool2d(**kwargs), torch.nn.MaxPool2d(**kwargs), [x])


def test_max_pool_ties_constant_input_grads():
    x = np.ones((1, 1, 4, 4))
    _grad_parity(nn.MaxPool2d(2, stride=1), torch.nn.MaxPool2d(2, stride=1), [x])


def test_max_pool_return_indices_grads():
    fn = lambda m, x: m(x)[0]  # noqa: E731
    _grad_parity(_Call(nn.MaxPool2d(2, return_indices=True), fn), _Call(torch.nn.MaxPool2d(2, return_indices=True), fn),
                 [_x(2, 3, 6, 6)])  # fmt: skip


def test_avg_pool_divisor_override_grads():
    kwargs = {"kernel_size": 3, "stride": 2, "padding": 1, "divisor_override": 4}
    _grad_parity(nn.AvgPool2d(**kwargs), torch.nn.AvgPool2d(**kwargs), [_x(2, 3, 7, 7)])


def test_conv_same_even_kernel_grads():
    for name, shape in (("Conv1d", (2, 3, 8)), ("Conv2d", (2, 3, 7, 6))):
        module, tmodule = _pair(name, 3, 4, 4 if name == "Conv1d" else (2, 4), padding="same", dilation=1)
        _grad_parity(module, tmodule, [_x(*shape)])


def test_conv_transpose_output_size_grads():
    module, tmodule = _pair("ConvTranspose2d", 3, 2, 3, stride=2, padding=1)
    fn = lambda m, x: m(x, output_size=[10, 10])  # noqa: E731
    _grad_parity(_Call(module, fn), _Call(tmodule, fn), [_x(2, 3, 5, 5)])


def test_batchnorm_without_running_stats_eval_grads():
    module, tmodule = _pair("BatchNorm2d", 3, track_running_stats=False)
    _grad_parity(module, tmodule, [_x(4, 3, 3, 3)])


def test_embedding_max_norm_grads():
    module, tmodule = _pair("Embedding", 10, 3, max_norm=1.0)
    _grad_parity(module, tmodule, [np.array([[1, 2, 9, 2], [0, 0, 3, 1]])])


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_train_mode_grads(norm_first):
    """Train mode with dropout=0: torch's training path, with a key padding mask."""
    module, tmodule = _pair("TransformerEncoderLayer", E, 2, dim_feedforward=16, dropout=0.0, norm_first=norm_first)
    padding = np.array([[False, False, False, True, True], [False, False, False, False, False]])
    _grad_parity(module, tmodule, [_x(5, N, E)], train=True, kwargs={"src_key_padding_mask": padding})


def test_transformer_encoder_layer_unbatched_grads():
    module, tmodule = _pair("TransformerEncoderLayer", E, 2, dim_feedforward=16, activation="gelu")
    _grad_parity(module, tmodule, [_x(5, E)])


def test_recurrent_dropout_off_in_eval_and_train_without_dropout():
    module, tmodule = _pair("LSTM", 3, 4, num_layers=3, dropout=0.5)
    _grad_parity(module, tmodule, [_x(4, 2, 3)])  # eval: no dropout between layers
    module, tmodule = _pair("GRU", 3, 4, num_layers=2, bidirectional=True)
    _grad_parity(module, tmodule, [_x(4, 2, 3)], train=True)


def test_gradients_accumulate_over_two_backward_passes():
    module, tmodule = _pair("LSTM", 3, 4, num_layers=2)
    _grad_parity(module, tmodule, [_x(3, 2, 3)])
    _grad_parity(module, tmodule, [_x(3, 2, 3, seed=7)], seed=3)  # .grad now holds the sum of both passes
