"""Layers against torch.nn: the same repr text, and the same forward with torch's weights loaded."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from tests._oracle import require_torch

# torch's own warnings (implicit softmax dim, oneDNN without LSTM projections) are not ours
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

def _torch():
    return require_torch()


def _load_from_torch(module, tmodule):
    module.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in tmodule.state_dict().items()})


def _to_np(out):
    if isinstance(out, tuple):
        return tuple(_to_np(o) for o in out)
    return None if out is None else np.asarray(out.detach().numpy())


def _check(module, tmodule, *inputs, atol=1e-5, **kwargs):
    torch = _torch()
    _load_from_torch(module, tmodule)
    module.eval()
    tmodule.eval()
    got = module(*(ember.tensor(x) for x in inputs), **kwargs)
    with torch.no_grad():
        want = tmodule(*(torch.from_numpy(x) for x in inputs), **kwargs)
    _assert_close(_to_np(got), _to_np(want), atol)


def _assert_close(got, want, atol):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            _assert_close(g, w, atol)
    elif want is None:
        assert got is None
    else:
        np.testing.assert_allclose(got, want, atol=atol, rtol=1e-4)


# (ember/torch constructor name, args, kwargs): the reprs must be the same text
REPR_CASES = [
    ("Identity", (), {}),
    ("Linear", (3, 4), {"bias": False}),
    ("Bilinear", (2, 3, 4), {}),
    ("Conv1d", (2, 4, 3), {"stride": 2, "padding": 1, "bias": False}),
    ("Conv2d", (3, 6, (3, 5)), {"dilation": 2, "groups": 3, "padding_mode": "reflect"}),
    ("Conv2d", (2, 2, 3), {"padding": "same"}),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "output_padding": 1}),
    ("MaxPool1d", (3,), {}),
    ("MaxPool2d", (2,), {"stride": 1, "ceil_mode": True}),
    ("AvgPool2d", (3,), {"padding": 1}),
    ("AvgPool1d", (3,), {}),
    ("AdaptiveAvgPool2d", ((5, 7),), {}),
    ("BatchNorm1d", (4,), {"momentum": None}),
    ("BatchNorm2d", (4,), {"affine": False, "track_running_stats": False}),
    ("LayerNorm", ((3, 4),), {"elementwise_affine": False}),
    ("LayerNorm", (4,), {"bias": False}),
    ("RMSNorm", (4,), {}),
    ("GroupNorm", (2, 4), {"bias": False}),
    ("BatchNorm2d", (4,), {"bias": False}),
    ("GroupNorm", (2, 4), {}),
    ("Dropout", (0.2,), {}),
    ("Dropout2d", (), {"inplace": True}),
    ("Embedding", (10, 3), {"padding_idx": -1, "max_norm": 1.0}),
    ("RNN", (3, 4), {"num_layers": 2, "nonlinearity": "relu"}),
    ("LSTM", (3, 4), {"bidirectional": True, "batch_first": True, "proj_size": 2}),
    ("GRU", (3, 4), {"bias": False, "dropout": 0.5, "num_layers": 2}),
    ("MultiheadAttention", (8, 2), {}),
    ("MultiheadAttention", (8, 2), {"kdim": 4, "vdim": 6, "bias": False}),
    ("TransformerEncoderLayer", (8, 2), {"dim_feedforward": 16}),
    ("ReLU", (), {"inplace": True}),
    ("GELU", (), {"approximate": "tanh"}),
    ("SiLU", (), {}),
    ("Tanh", (), {}),
    ("Sigmoid", (), {}),
    ("Softmax", (), {}),
    ("LogSoftmax", (), {"dim": 1}),
    ("LeakyReLU", (), {}),
    ("ELU", (), {"alpha": 0.5, "inplace": True}),
    ("Softplus", (), {"beta": 2}),
    ("Hardtanh", (), {}),
    ("Flatten", (), {}),
    ("Unflatten", (1, (2, 3)), {}),
    ("CrossEntropyLoss", (), {"label_smoothing": 0.1}),
    ("BCEWithLogitsLoss", (), {}),
    ("KLDivLoss", (), {"reduction": "batchmean"}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), REPR_CASES, ids=[c[0] for c in REPR_CASES])
def test_repr_matches_torch(name, args, kwargs):
    torch = _torch()
    assert repr(getattr(nn, name)(*args, **kwargs)) == repr(getattr(torch.nn, name)(*args, **kwargs))


def test_container_reprs_match_torch():
    torch = _torch()
    for lib in (nn, torch.nn):
        lib.model = lib.Sequential(lib.Conv2d(1, 2, 3), lib.ModuleList([lib.ReLU(), lib.ReLU(), lib.Tanh()]),
                                   lib.ModuleDict({"a": lib.Sequential(lib.Linear(2, 2))}))  # fmt: skip
    assert repr(nn.model) == repr(torch.nn.model)
    assert repr(nn.ParameterList([nn.Parameter(ember.zeros(2, 3))])).replace("ember", "torch") == repr(
        torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(2, 3))])
    )
    del nn.model, torch.nn.model


RNG = np.random.default_rng(0)


def _x(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


FORWARD_CASES = [
    ("Linear", (5, 3), {}, [(2, 4, 5)]),
    ("Bilinear", (2, 3, 4), {}, [(5, 2), (5, 3)]),
    ("Conv1d", (2, 4, 3), {"stride": 2, "padding": 1}, [(2, 2, 9)]),
    ("Conv2d", (4, 6, 3), {"groups": 2, "padding": "same", "padding_mode": "circular"}, [(2, 4, 6, 6)]),
    ("Conv2d", (2, 3, (3, 2)), {"stride": (2, 1), "dilation": 2, "padding_mode": "reflect", "padding": 1}, [(1, 2, 9, 8)]),
    ("ConvTranspose2d", (4, 2, 3), {"stride": 2, "padding": 1, "output_padding": 1}, [(2, 4, 5, 5)]),
    ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [(2, 3, 7, 7)]),
    ("AvgPool2d", (2,), {}, [(2, 3, 6, 6)]),
    ("AdaptiveAvgPool2d", ((3, 2),), {}, [(2, 3, 7, 5)]),
    ("BatchNorm2d", (3,), {}, [(4, 3, 5, 5)]),
    ("LayerNorm", (6,), {}, [(2, 3, 6)]),
    ("GroupNorm", (2, 4), {}, [(2, 4, 3, 3)]),
    ("GELU", (), {"approximate": "tanh"}, [(3, 4)]),
    ("LeakyReLU", (0.2,), {}, [(3, 4)]),
    ("ELU", (), {}, [(3, 4)]),
    ("Softplus", (2.0, 5.0), {}, [(3, 4)]),
    ("Softmax", (), {}, [(2, 3, 4)]),
    ("LogSoftmax", (-1,), {}, [(2, 3, 4)]),
    ("RNN", (3, 4), {"num_layers": 2, "bidirectional": True}, [(5, 2, 3)]),
    ("RNN", (3, 4), {"nonlinearity": "relu", "batch_first": True}, [(2, 5, 3)]),
    ("LSTM", (3, 4), {"num_layers": 2, "batch_first": True, "bidirectional": True}, [(2, 5, 3)]),
    ("LSTM", (3, 4), {"proj_size": 2}, [(5, 3)]),
    ("GRU", (3, 4), {"num_layers": 2, "bidirectional": True}, [(5, 2, 3)]),
    ("GRU", (3, 4), {"batch_first": True}, [(2, 5, 3), (1, 2, 4)]),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "shapes"), FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_forward_matches_torch(name, args, kwargs, shapes):
    torch = _torch()
    torch.manual_seed(0)
    _check(getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs), *(_x(*s) for s in shapes))


def test_embedding_matches_torch():
    torch = _torch()
    emb, temb = nn.Embedding(10, 3, padding_idx=2), torch.nn.Embedding(10, 3, padding_idx=2)
    assert emb.weight[2].tolist() == [0.0, 0.0, 0.0]
    _load_from_torch(emb, temb)
    idx = np.array([[1, 2, 9], [0, 0, 3]])
    np.testing.assert_allclose(emb(ember.tensor(idx)).detach().numpy(), temb(torch.from_numpy(idx)).detach().numpy())


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_matches_torch(batch_first):
    torch = _torch()
    torch.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, batch_first=batch_first, add_bias_kv=True)
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, add_bias_kv=True)
    q, k = (_x(3, 2, 8), _x(4, 2, 8)) if not batch_first else (_x(2, 3, 8), _x(2, 4, 8))
    mask = np.triu(np.ones((3, 4), dtype=bool), 1)
    padding = np.array([[False, False, False, True], [False, False, False, False]])
    kwargs = {"attn_mask": mask, "key_padding_mask": padding, "average_attn_weights": False}
    _load_from_torch(m, tm)
    got = m(ember.tensor(q), ember.tensor(k), ember.tensor(k), **{a: ember.tensor(b) if isinstance(b, np.ndarray) else b
                                                                  for a, b in kwargs.items()})  # fmt: skip
    with torch.no_grad():
        want = tm(torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(k),
                  **{a: torch.from_numpy(b) if isinstance(b, np.ndarray) else b for a, b in kwargs.items()})  # fmt: skip
    _assert_close(_to_np(got), _to_np(want), 1e-5)


def test_multihead_attention_kdim_vdim_unbatched():
    torch = _torch()
    torch.manual_seed(0)
    m, tm = nn.MultiheadAttention(8, 4, kdim=3, vdim=5), torch.nn.MultiheadAttention(8, 4, kdim=3, vdim=5)
    _check(m, tm, _x(3, 8), _x(6, 3), _x(6, 5))


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_matches_torch(norm_first):
    torch = _torch()
    torch.manual_seed(0)
    kwargs = {"dim_feedforward": 16, "batch_first": True, "norm_first": norm_first, "activation": "gelu"}
    layer, tlayer = nn.TransformerEncoderLayer(8, 2, **kwargs), torch.nn.TransformerEncoderLayer(8, 2, **kwargs)
    assert [n for n, _ in layer.named_parameters()] == [n for n, _ in tlayer.named_parameters()]
    _check(layer, tlayer, _x(2, 5, 8))


LOSS_CASES = [
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, (4, 5), "class"),
    ("NLLLoss", {"reduction": "sum"}, (4, 5), "class"),
    ("MSELoss", {}, (4, 5), "same"),
    ("L1Loss", {"reduction": "none"}, (4, 5), "same"),
    ("SmoothL1Loss", {"beta": 0.5}, (4, 5), "same"),
    ("BCELoss", {}, (4, 5), "prob"),
    ("BCEWithLogitsLoss", {}, (4, 5), "prob"),
    ("KLDivLoss", {"reduction": "batchmean"}, (4, 5), "prob"),
]


@pytest.mark.parametrize(("name", "kwargs", "shape", "target"), LOSS_CASES, ids=[c[0] for c in LOSS_CASES])
def test_losses_match_torch(name, kwargs, shape, target):
    torch = _torch()
    x = _x(*shape)
    if name == "BCELoss":
        x = 1 / (1 + np.exp(-x))
    y = {"class": RNG.integers(0, shape[1], shape[0]), "same": _x(*shape), "prob": RNG.random(shape).astype(np.float32)}[target]
    got = getattr(nn, name)(**kwargs)(ember.tensor(x), ember.tensor(y))
    want = getattr(torch.nn, name)(**kwargs)(torch.from_numpy(x), torch.from_numpy(y))
    np.testing.assert_allclose(got.numpy(), want.numpy(), atol=1e-5, rtol=1e-5)


def test_batchnorm_running_stats_match_torch():
    torch = _torch()
    bn, tbn = nn.BatchNorm1d(3, momentum=None), torch.nn.BatchNorm1d(3, momentum=None)
    for _ in range(3):
        x = _x(8, 3)
        bn(ember.tensor(x))
        tbn(torch.from_numpy(x))
    for key, value in tbn.state_dict().items():
        np.testing.assert_allclose(bn.state_dict()[key].numpy(), value.numpy(), rtol=1e-5, atol=1e-6)
