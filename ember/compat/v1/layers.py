"""``tf.layers``: TensorFlow 1's functional layers on ``get_variable``.

Each call opens a variable scope named ``name`` or, without one, the layer's default name made
unique in the current scope (``dense``, ``dense_1``, ...), and creates TensorFlow's variables
there: ``dense/kernel`` and ``dense/bias``, ``conv2d/kernel`` (HWIO), ``batch_normalization/gamma``,
``beta``, ``moving_mean``, ``moving_variance``. Kernels default to Glorot uniform and biases to
zeros; ``reuse=True`` shares an earlier call's variables. ``batch_normalization(training=True)``
puts its moving-average updates in the ``UPDATE_OPS`` collection, to be run with the train op.
"""

from __future__ import annotations

import contextlib
import numbers

from ..._core import dtype as _dt
from ..._core.tensor import Tensor
from ...graph.sources import assign_sub
from ...ops import functional as F
from . import nn
from .initializers import ones_initializer, zeros_initializer
from .nn._common import convert, op_scope, rank_of, static_shape
from .variable_scope import get_variable, variable_scope
from .variables import GraphKeys, add_to_collection, get_collection

__all__ = [
    "AveragePooling2D",
    "BatchNormalization",
    "Conv2D",
    "Conv2DTranspose",
    "Dense",
    "Dropout",
    "Flatten",
    "Layer",
    "MaxPooling2D",
    "average_pooling2d",
    "batch_normalization",
    "conv2d",
    "conv2d_transpose",
    "dense",
    "dropout",
    "flatten",
    "max_pooling2d",
]


@contextlib.contextmanager
def _layer_scope(name, default: str, reuse):
    with variable_scope(name, default_name=None if name else default, reuse=reuse) as scope:
        yield scope


def _finish(outputs: Tensor, activation, activity_regularizer) -> Tensor:
    if activation is not None:
        outputs = activation(outputs)
    if activity_regularizer is not None:
        loss = activity_regularizer(outputs)
        if loss is not None:
            add_to_collection(GraphKeys.REGULARIZATION_LOSSES, loss)
    return outputs


def _pair(value, what: str, layer: str) -> tuple[int, int]:
    if isinstance(value, numbers.Integral):
        return int(value), int(value)
    pair = tuple(int(v) for v in value)
    if len(pair) != 2:
        raise ValueError(f"{layer}(): The `{what}` argument must be a tuple of 2 integers. Received: {value!r}")
    return pair


def _padding(padding, layer: str) -> str:
    mode = str(padding).lower()
    if mode not in ("valid", "same"):
        raise ValueError(f'{layer}(): The `padding` argument must be one of "valid", "same". Received: {padding!r}')
    return mode.upper()


def _data_format(data_format, layer: str) -> str:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f'{layer}(): The `data_format` argument must be one of "channels_first", "channels_last". Received: {data_format!r}'
        )
    return "NHWC" if data_format == "channels_last" else "NCHW"


def _known(dim, what: str, layer: str) -> int:
    if dim is None:
        raise ValueError(f"{layer}(): The {what} dimension of the inputs should be defined. Found `None`.")
    return int(dim)


def dense(inputs, units, activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None,
          kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
          bias_constraint=None, trainable=True, name=None, reuse=None):  # fmt: skip
    """activation(inputs @ kernel + bias), ``kernel`` [in, units] applied to the last axis.

    >>> import numpy as np, ember.compat.v1 as tf
    >>> with tf.Graph().as_default():
    ...     y = tf.layers.dense(np.ones((2, 3), np.float32), 4)
    ...     [v.name for v in tf.trainable_variables()], y.shape.as_list()
    (['dense/kernel:0', 'dense/bias:0'], [2, 4])
    """
    x = convert(inputs, "dense", "inputs")
    depth = _known(static_shape(x)[-1] if rank_of(x) else None, "last", "dense")
    with _layer_scope(name, "dense", reuse):
        kernel = get_variable("kernel", [depth, int(units)], dtype=x.dtype, initializer=kernel_initializer,
                              regularizer=kernel_regularizer, trainable=trainable, constraint=kernel_constraint)  # fmt: skip
        outputs = F.matmul(x, kernel)
        if use_bias:
            bias = get_variable("bias", [int(units)], dtype=x.dtype, initializer=bias_initializer or zeros_initializer(),
                                regularizer=bias_regularizer, trainable=trainable, constraint=bias_constraint)  # fmt: skip
            outputs = nn.bias_add(outputs, bias)
        return _finish(outputs, activation, activity_regularizer)


def conv2d(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last", dilation_rate=(1, 1),
           activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
           bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None, trainable=True,
           name=None, reuse=None):  # fmt: skip
    """2-D convolution layer: ``kernel`` [kh, kw, in, filters], padding "valid" or "same"."""
    x = convert(inputs, "conv2d", "inputs")
    fmt = _data_format(data_format, "conv2d")
    if rank_of(x) != 4:
        raise ValueError(
            f"conv2d(): Input 0 of layer conv2d is incompatible with the layer: expected ndim=4, found ndim={rank_of(x)}"
        )
    depth = _known(static_shape(x)[-1 if fmt == "NHWC" else 1], "channel", "conv2d")
    kh, kw = _pair(kernel_size, "kernel_size", "conv2d")
    strides = _pair(strides, "strides", "conv2d")
    dilations = _pair(dilation_rate, "dilation_rate", "conv2d")
    mode = _padding(padding, "conv2d")
    with _layer_scope(name, "conv2d", reuse):
        kernel = get_variable("kernel", [kh, kw, depth, int(filters)], dtype=x.dtype, initializer=kernel_initializer,
                              regularizer=kernel_regularizer, trainable=trainable, constraint=kernel_constraint)  # fmt: skip
        outputs = nn.conv2d(x, kernel, strides, mode, data_format=fmt, dilations=dilations)
        if use_bias:
            bias = get_variable("bias", [int(filters)], dtype=x.dtype, initializer=bias_initializer or zeros_initializer(),
                                regularizer=bias_regularizer, trainable=trainable, constraint=bias_constraint)  # fmt: skip
            outputs = nn.bias_add(outputs, bias, data_format=fmt)
        return _finish(outputs, activation, activity_regularizer)


def conv2d_transpose(inputs, filters, kernel_size, strides=(1, 1), padding="valid", data_format="channels_last",
                     activation=None, use_bias=True, kernel_initializer=None, bias_initializer=None, kernel_regularizer=None,
                     bias_regularizer=None, activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                     trainable=True, name=None, reuse=None):  # fmt: skip
    """Transposed 2-D convolution layer: ``kernel`` [kh, kw, filters, in]; each spatial size
    becomes size * stride ("same") or size * stride + max(kernel - stride, 0) ("valid")."""
    x = convert(inputs, "conv2d_transpose", "inputs")
    fmt = _data_format(data_format, "conv2d_transpose")
    if rank_of(x) != 4:
        raise ValueError(f"conv2d_transpose(): expected inputs of rank 4, found rank {rank_of(x)}")
    shape = static_shape(x)
    depth = _known(shape[-1 if fmt == "NHWC" else 1], "channel", "conv2d_transpose")
    sizes = shape[1:3] if fmt == "NHWC" else shape[2:]
    kernel_hw = _pair(kernel_size, "kernel_size", "conv2d_transpose")
    strides = _pair(strides, "strides", "conv2d_transpose")
    mode = _padding(padding, "conv2d_transpose")
    out_hw = []
    for size, k, s in zip(sizes, kernel_hw, strides, strict=True):
        size = _known(size, "spatial", "conv2d_transpose")
        out_hw.append(size * s if mode == "SAME" else size * s + max(k - s, 0))
    out_shape = [None, *out_hw, int(filters)] if fmt == "NHWC" else [None, int(filters), *out_hw]
    with _layer_scope(name, "conv2d_transpose", reuse):
        kernel = get_variable("kernel", [*kernel_hw, int(filters), depth], dtype=x.dtype, initializer=kernel_initializer,
                              regularizer=kernel_regularizer, trainable=trainable, constraint=kernel_constraint)  # fmt: skip
        outputs = nn.conv2d_transpose(x, kernel, out_shape, strides, mode, data_format=fmt)
        if use_bias:
            bias = get_variable("bias", [int(filters)], dtype=x.dtype, initializer=bias_initializer or zeros_initializer(),
                                regularizer=bias_regularizer, trainable=trainable, constraint=bias_constraint)  # fmt: skip
            outputs = nn.bias_add(outputs, bias, data_format=fmt)
        return _finish(outputs, activation, activity_regularizer)


def _pooling(inputs, pool_size, strides, padding, data_format, name, kind: str, layer: str):
    x = convert(inputs, layer, "inputs")
    fmt = _data_format(data_format, layer)
    with op_scope(name, layer):
        pool = nn.max_pool if kind == "max" else nn.avg_pool
        return pool(x, _pair(pool_size, "pool_size", layer), _pair(strides, "strides", layer), _padding(padding, layer), fmt)


def max_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """The maximum over each ``pool_size`` window."""
    return _pooling(inputs, pool_size, strides, padding, data_format, name, "max", "max_pooling2d")


def average_pooling2d(inputs, pool_size, strides, padding="valid", data_format="channels_last", name=None):
    """The mean over each ``pool_size`` window (over the real elements only with "same")."""
    return _pooling(inputs, pool_size, strides, padding, data_format, name, "avg", "average_pooling2d")


def flatten(inputs, name=None, data_format="channels_last"):
    """Every dimension but the batch's folded into one (channels last first, as Keras orders it)."""
    x = convert(inputs, "flatten", "inputs")
    _data_format(data_format, "flatten")
    with op_scope(name, "flatten"):
        if data_format == "channels_first" and rank_of(x) > 2:
            x = F.movedim(x, 1, -1)
        if rank_of(x) == 1:
            return F.unsqueeze(x, 1)
        return F.flatten(x, 1)


def _as_training(training):
    """A Python bool, or a bool scalar tensor (a placeholder fed at run time)."""
    if isinstance(training, Tensor):
        if training.dtype is not _dt.bool_:
            raise TypeError(f"training must be a Python bool or a bool tensor, got a tensor of dtype {training.dtype.name}")
        return training
    return bool(training)


def dropout(inputs, rate=0.5, noise_shape=None, seed=None, training=False, name=None):
    """``tf.nn.dropout(inputs, rate=rate)`` when ``training`` (a bool or a bool tensor), else the inputs."""
    x = convert(inputs, "dropout", "inputs")
    training = _as_training(training)
    with op_scope(name, "dropout"):
        if training is False:
            return x
        dropped = nn.dropout(x, noise_shape=noise_shape, seed=seed, rate=rate)
        return dropped if training is True else F.where(training, dropped, x)


def batch_normalization(inputs, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True, beta_initializer=None,
                        gamma_initializer=None, moving_mean_initializer=None, moving_variance_initializer=None,
                        beta_regularizer=None, gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                        training=False, trainable=True, name=None, reuse=None, renorm=False, renorm_clipping=None,
                        renorm_momentum=0.99, fused=None, virtual_batch_size=None, adjustment=None):  # fmt: skip
    """Batch normalization over every axis but ``axis``: the batch's statistics when
    ``training`` (a bool or a bool tensor), else the moving averages. Training adds the updates
    ``moving = moving - (moving - batch) * (1 - momentum)`` to ``UPDATE_OPS``; the variance fed
    to them has Bessel's correction on the fused path (4-D inputs normalized over axis 1 or 3),
    not otherwise, as in TensorFlow."""
    if renorm or virtual_batch_size is not None or adjustment is not None:
        raise NotImplementedError("batch_normalization(): renorm, virtual_batch_size and adjustment are not supported")
    x = convert(inputs, "batch_normalization", "inputs")
    rank = rank_of(x)
    if not isinstance(axis, numbers.Integral) or not -rank <= axis < rank:
        raise ValueError(f"batch_normalization(): axis must be an int in [-{rank}, {rank}), got {axis!r}")
    axis %= rank
    depth = _known(static_shape(x)[axis], "normalized", "batch_normalization")
    reduce = [d for d in range(rank) if d != axis]
    fused_path = fused is not False and rank == 4 and axis in (1, 3)
    training = _as_training(training)
    with _layer_scope(name, "batch_normalization", reuse):

        def param(var_name, initializer, default, regularizer=None, constraint=None, trainable_param=trainable):
            return get_variable(var_name, [depth], dtype=x.dtype, initializer=initializer or default(),
                                regularizer=regularizer, trainable=trainable_param, constraint=constraint)  # fmt: skip

        gamma = param("gamma", gamma_initializer, ones_initializer, gamma_regularizer, gamma_constraint) if scale else None
        beta = param("beta", beta_initializer, zeros_initializer, beta_regularizer, beta_constraint) if center else None
        moving_mean = param("moving_mean", moving_mean_initializer, zeros_initializer, trainable_param=False)
        moving_variance = param("moving_variance", moving_variance_initializer, ones_initializer, trainable_param=False)
        shape = [1] * rank
        shape[axis] = depth

        def channel(v):
            return None if v is None else F.reshape(v, shape)

        if training is False:
            return nn.batch_normalization(
                x, channel(moving_mean), channel(moving_variance), channel(beta), channel(gamma), epsilon
            )
        mean, variance = nn.moments(x, reduce)
        update_variance = variance
        if fused_path:
            n = F.sum(F.ones_like(x), reduce)  # the batch may be unknown when the graph is built
            update_variance = F.mul(variance, F.div(n, F.clamp_min(F.sub(n, 1.0), 1.0)))
        decay = 1.0 - float(momentum)
        if training is not True:
            mean = F.where(training, mean, moving_mean)
            variance = F.where(training, variance, moving_variance)
            decay = F.where(training, decay, 0.0)
        outputs = nn.batch_normalization(x, channel(mean), channel(variance), channel(beta), channel(gamma), epsilon)
        for variable, value, update_name in (
            (moving_mean, mean, "AssignMovingAvg"),
            (moving_variance, update_variance, "AssignMovingAvg_1"),
        ):
            with op_scope(None, update_name):
                update = assign_sub(variable, F.mul(F.sub(variable, F.detach(value)), decay))
            add_to_collection(GraphKeys.UPDATE_OPS, update.op)
        return outputs


# -- the class forms: one layer object, its variables made on the first call and shared after ----------


class Layer:
    """A ``tf.layers`` layer object: the function form called with the constructor's arguments;
    the first call makes the variables in a scope of its own (``name`` or the default name made
    unique) and every later call shares them.

    >>> import numpy as np, ember.compat.v1 as tf
    >>> with tf.Graph().as_default():
    ...     layer = tf.layers.Dense(2, name="head")
    ...     a, b = layer(np.ones((1, 3), np.float32)), layer(np.zeros((4, 3), np.float32))
    ...     [v.name for v in layer.trainable_variables], b.shape.as_list()
    (['head/kernel:0', 'head/bias:0'], [4, 2])
    """

    _function = None
    _default_name = ""
    _has_variables = True

    def __init__(self, *args, name=None, **kwargs) -> None:
        self._args, self._kwargs = args, kwargs
        self._name = name
        self._scope = None
        self.updates: list = []

    @property
    def name(self) -> str:
        return self._scope.name if self._scope is not None else (self._name or self._default_name)

    def __call__(self, inputs, **kwargs):
        function = type(self)._function
        if not self._has_variables:
            return function(inputs, *self._args, name=self._name, **self._kwargs, **kwargs)
        reuse = True
        if self._scope is None:
            with variable_scope(self._name, default_name=None if self._name else self._default_name) as scope:
                self._scope = scope  # claims the unique name; the call below re-enters it
            reuse = None
        before = len(get_collection(GraphKeys.UPDATE_OPS))
        outputs = function(inputs, *self._args, name=self._scope, reuse=reuse, **self._kwargs, **kwargs)
        self.updates.extend(get_collection(GraphKeys.UPDATE_OPS)[before:])
        return outputs

    @property
    def variables(self) -> list:
        if self._scope is None:
            return []
        return [v for v in get_collection(GraphKeys.GLOBAL_VARIABLES) if v.op.name.startswith(self._scope.name + "/")]

    weights = variables

    @property
    def trainable_variables(self) -> list:
        trainable = {id(v) for v in get_collection(GraphKeys.TRAINABLE_VARIABLES)}
        return [v for v in self.variables if id(v) in trainable]

    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self) -> list:
        trainable = {id(v) for v in self.trainable_variables}
        return [v for v in self.variables if id(v) not in trainable]

    non_trainable_weights = non_trainable_variables

    def __getattr__(self, attr: str):
        # kernel, bias, gamma, beta, moving_mean, moving_variance: the variable of that name
        if attr.startswith("_"):
            raise AttributeError(attr)
        for v in self.variables:
            if v.op.name.rsplit("/", 1)[-1] == attr:
                return v
        raise AttributeError(f"{type(self).__name__} has no attribute {attr!r} (no variable of that name yet)")


class Dense(Layer):
    """``dense`` as a layer object: ``Dense(units, activation=..., ...)``."""

    _function = staticmethod(dense)
    _default_name = "dense"


class Conv2D(Layer):
    """``conv2d`` as a layer object: ``Conv2D(filters, kernel_size, ...)``."""

    _function = staticmethod(conv2d)
    _default_name = "conv2d"


class Conv2DTranspose(Layer):
    """``conv2d_transpose`` as a layer object."""

    _function = staticmethod(conv2d_transpose)
    _default_name = "conv2d_transpose"


class BatchNormalization(Layer):
    """``batch_normalization`` as a layer object; ``training`` is given at the call;
    ``updates`` lists the moving-average updates of its calls."""

    _function = staticmethod(batch_normalization)
    _default_name = "batch_normalization"


class MaxPooling2D(Layer):
    """``max_pooling2d`` as a layer object: ``MaxPooling2D(pool_size, strides, ...)``."""

    _function = staticmethod(max_pooling2d)
    _default_name = "max_pooling2d"
    _has_variables = False


class AveragePooling2D(Layer):
    """``average_pooling2d`` as a layer object."""

    _function = staticmethod(average_pooling2d)
    _default_name = "average_pooling2d"
    _has_variables = False


class Flatten(Layer):
    """``flatten`` as a layer object."""

    _function = staticmethod(flatten)
    _default_name = "flatten"
    _has_variables = False


class Dropout(Layer):
    """``dropout`` as a layer object: ``Dropout(rate)``, ``training`` given at the call."""

    _function = staticmethod(dropout)
    _default_name = "dropout"
    _has_variables = False
