"""``tf.nn``'s activations, softmaxes and ``bias_add``, with TensorFlow's argument names and
defaults (``leaky_relu``'s alpha is 0.2, ``gelu`` is exact unless ``approximate=True``,
``softmax`` works along the last axis and takes TF1's ``dim`` as an alias of ``axis``)."""

from __future__ import annotations

from ...._core.tensor import Tensor
from ....nn._composite import relu6 as _relu6, selu as _selu, softsign as _softsign
from ....ops import functional as F
from ._common import convert, convert_like, named, op_scope, rank_of

__all__ = [
    "bias_add",
    "crelu",
    "elu",
    "gelu",
    "leaky_relu",
    "log_softmax",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "softmax",
    "softplus",
    "softsign",
    "swish",
    "tanh",
]


def relu(features, name=None):
    """max(features, 0).

    >>> import ember.compat.v1 as tf
    >>> tf.nn.relu([-1.0, 2.0]).tolist()
    [0.0, 2.0]
    """
    with op_scope(name, "Relu") as scope:
        return named(F.relu(convert(features, "relu", "features")), scope)


def relu6(features, name=None):
    """min(max(features, 0), 6)."""
    with op_scope(name, "Relu6") as scope:
        return named(_relu6(convert(features, "relu6", "features")), scope, "Relu6")


def elu(features, name=None):
    """features if > 0, else exp(features) - 1."""
    with op_scope(name, "Elu") as scope:
        return named(F.elu(convert(features, "elu", "features")), scope)


def selu(features, name=None):
    """Scaled elu with the self-normalizing constants."""
    with op_scope(name, "Selu") as scope:
        return named(_selu(convert(features, "selu", "features")), scope, "Selu")


def crelu(features, name=None, axis=-1):
    """relu(features) and relu(-features), concatenated along ``axis`` (which doubles)."""
    x = convert(features, "crelu", "features")
    with op_scope(name, "CRelu") as scope:
        return named(F.cat([F.relu(x), F.relu(F.neg(x))], axis), scope)


def leaky_relu(features, alpha=0.2, name=None):
    """features if > 0, else alpha * features (TensorFlow's default alpha is 0.2)."""
    x = convert(features, "leaky_relu", "features")
    if isinstance(alpha, (int, float)):
        with op_scope(name, "LeakyRelu") as scope:
            return named(F.leaky_relu(x, float(alpha)), scope, "LeakyRelu")
    with op_scope(name, "LeakyRelu") as scope:  # a tensor alpha: max(x, alpha * x) as TensorFlow writes it
        return named(F.maximum(x, F.mul(convert_like(alpha, x, "leaky_relu", "alpha"), x)), scope)


def sigmoid(x, name=None):
    """1 / (1 + exp(-x))."""
    with op_scope(name, "Sigmoid") as scope:
        return named(F.sigmoid(convert(x, "sigmoid", "x")), scope)


def tanh(x, name=None):
    """The hyperbolic tangent."""
    with op_scope(name, "Tanh") as scope:
        return named(F.tanh(convert(x, "tanh", "x")), scope)


def softplus(features, name=None):
    """log(exp(features) + 1)."""
    with op_scope(name, "Softplus") as scope:
        return named(F.softplus(convert(features, "softplus", "features")), scope)


def softsign(features, name=None):
    """features / (abs(features) + 1)."""
    with op_scope(name, "Softsign") as scope:
        return named(_softsign(convert(features, "softsign", "features")), scope, "Softsign")


def swish(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (also ``tf.nn.silu``)."""
    x = convert(features, "swish", "features")
    if not isinstance(beta, Tensor) and float(beta) == 1.0:
        with op_scope(name, "swish") as scope:
            return named(F.silu(x), scope)
    with op_scope(name, "swish") as scope:
        return named(F.mul(x, F.sigmoid(F.mul(x, convert_like(beta, x, "swish", "beta")))), scope)


silu = swish


def gelu(features, approximate=False, name=None):
    """features * P(X <= features) for a standard normal X; the tanh approximation when
    ``approximate`` is True."""
    x = convert(features, "gelu", "features")
    with op_scope(name, "Gelu") as scope:
        return named(F.gelu(x, approximate="tanh" if approximate else "none"), scope, "Gelu")


def _softmax_axis(axis, dim, rank: int, op: str) -> int:
    if dim is not None:
        if axis is not None:
            raise ValueError(f"{op}(): cannot specify both 'axis' and 'dim'")
        axis = dim
    axis = -1 if axis is None else int(axis)
    if not -rank <= axis < rank:
        raise ValueError(f"{op}(): axis {axis} is out of range for a tensor of rank {rank}")
    return axis


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits), axis), along the last axis unless told (TF1's ``dim`` is
    ``axis``)."""
    x = convert(logits, "softmax", "logits")
    with op_scope(name, "Softmax") as scope:
        return named(F.softmax(x, _softmax_axis(axis, dim, rank_of(x), "softmax")), scope)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits), axis)), along the last axis unless told."""
    x = convert(logits, "log_softmax", "logits")
    with op_scope(name, "LogSoftmax") as scope:
        return named(F.log_softmax(x, _softmax_axis(axis, dim, rank_of(x), "log_softmax")), scope)


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with the 1-D ``bias`` along the channels: the last axis for "NHWC" (the
    default, and any "N...C"), axis 1 for "NCHW" (any "NC...")."""
    x = convert(value, "bias_add", "value")
    b = convert_like(bias, x, "bias_add", "bias")
    if rank_of(b) != 1:
        raise ValueError(f"bias_add(): Shape must be rank 1 but is rank {rank_of(b)} for bias")
    if rank_of(x) < 2:
        raise ValueError(f"bias_add(): Shape must be at least rank 2 but is rank {rank_of(x)} for value")
    fmt = data_format or "NHWC"
    if fmt.startswith("NC"):
        b = F.reshape(b, (-1,) + (1,) * (rank_of(x) - 2))
    elif not (fmt.startswith("N") and fmt.endswith("C")):
        raise ValueError(f"bias_add(): data_format must be 'N...C' or 'NC...', got {data_format!r}")
    with op_scope(name, "BiasAdd") as scope:
        return named(F.add(x, b), scope, "BiasAdd")
