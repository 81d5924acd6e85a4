"""TensorFlow 1's initializers: callables ``(shape, dtype=None, partition_info=None)`` that build
the nodes of a variable's initial value (``get_variable`` calls them under ``<name>/Initializer``).

A random initializer builds a random op, so each run of the variable's initializer draws anew,
as in TensorFlow. The classes are TensorFlow's (``Zeros``, ``GlorotUniform``, ...), also under
their ``tf.*_initializer`` spellings and in ``tf.initializers`` / ``tf.keras.initializers``.
"""

from __future__ import annotations

import math

import numpy as np

from ..._core import dtype as _dt
from ...graph import sources as _sources
from ...graph.graph import get_default_graph
from ...ops import functional as F
from . import random_ops as _random, variables as _variables

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "Identity",
    "Initializer",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "constant",
    "constant_initializer",
    "global_variables",
    "glorot_normal",
    "glorot_uniform",
    "identity",
    "local_variables",
    "ones",
    "orthogonal",
    "random_normal",
    "random_uniform",
    "truncated_normal",
    "variables",
    "variance_scaling",
    "zeros",
    "glorot_normal_initializer",
    "glorot_uniform_initializer",
    "he_normal",
    "he_uniform",
    "identity_initializer",
    "lecun_normal",
    "lecun_uniform",
    "ones_initializer",
    "orthogonal_initializer",
    "random_normal_initializer",
    "random_uniform_initializer",
    "truncated_normal_initializer",
    "variance_scaling_initializer",
    "zeros_initializer",
]

# the standard deviation of a unit normal truncated to [-2, 2] (scipy.stats.truncnorm.std(-2, 2))
_TRUNCATED_STD = 0.87962566103423978


def _as_dtype(dtype, op: str) -> _dt.DType:
    return _dt.as_dtype(dtype, op=op, arg="dtype")


def _float_dtype(dtype, op: str) -> _dt.DType:
    dtype = _as_dtype(dtype, op)
    if not dtype.is_floating_point:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: <dtype: '{dtype.name}'>.")
    return dtype


def _dims(shape) -> list:
    return [int(d) for d in (shape.as_list() if hasattr(shape, "as_list") else shape)]


class Initializer:
    """The base: ``__call__(shape, dtype=None, partition_info=None)`` builds the value."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


class Zeros(Initializer):
    """All zeros."""

    def __init__(self, dtype=_dt.float32) -> None:
        self.dtype = _as_dtype(dtype, "zeros_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _as_dtype(dtype, "zeros_initializer")
        with get_default_graph().as_default():
            return _sources.constant(np.zeros(_dims(shape), dtype=dtype.numpy_dtype), dtype=dtype, name="zeros")

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """All ones."""

    def __init__(self, dtype=_dt.float32) -> None:
        self.dtype = _as_dtype(dtype, "ones_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _as_dtype(dtype, "ones_initializer")
        with get_default_graph().as_default():
            return _sources.constant(np.ones(_dims(shape), dtype=dtype.numpy_dtype), dtype=dtype, name="ones")

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """A given value: a scalar fills the shape; a shorter list is padded with its last element
    (TensorFlow 1's ``constant`` with a shape); a NumPy array of the shape is taken as it is."""

    def __init__(self, value=0, dtype=_dt.float32, verify_shape: bool = False) -> None:
        if not np.isscalar(value) and not isinstance(value, (list, tuple, np.ndarray)):
            raise TypeError(
                f"Invalid type for initial value: {type(value).__name__} (expected Python scalar, list or tuple of values, or numpy.ndarray)."
            )
        self.value = value
        self.dtype = _as_dtype(dtype, "constant_initializer")
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = self.dtype if dtype is None else _as_dtype(dtype, "constant_initializer")
        dims = _dims(shape)
        flat = np.asarray(self.value, dtype=dtype.numpy_dtype).reshape(-1)
        n = int(np.prod(dims, dtype=np.int64))
        verify = self._verify_shape if verify_shape is None else verify_shape
        if verify and list(np.shape(self.value)) != dims:
            raise TypeError(f"Expected Tensor's shape: {tuple(dims)}, got {np.shape(self.value)}.")
        if flat.size > n:
            raise ValueError(f"Too many elements provided. Takes at most {n}, but got {flat.size}.")
        if flat.size == 0 and n:
            raise ValueError("constant_initializer(): an empty value cannot fill a non-empty shape")
        if flat.size < n:
            flat = np.concatenate([flat, np.full(n - flat.size, flat[-1], dtype=flat.dtype)])
        with get_default_graph().as_default():
            return _sources.constant(flat.reshape(dims), dtype=dtype, name="Const")

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Uniform values in [minval, maxval)."""

    def __init__(self, minval=0.0, maxval=None, seed=None, dtype=_dt.float32) -> None:
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = _as_dtype(dtype, "random_uniform_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _as_dtype(dtype, "random_uniform_initializer")
        return _random.random_uniform(_dims(shape), self.minval, self.maxval, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Normal values of ``mean`` and ``stddev``."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=_dt.float32) -> None:
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = _float_dtype(dtype, "random_normal_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype, "random_normal_initializer")
        return _random.random_normal(_dims(shape), self.mean, self.stddev, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal values, drawn again beyond two standard deviations."""

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype, "truncated_normal_initializer")
        return _random.truncated_normal(_dims(shape), self.mean, self.stddev, dtype, seed=self.seed)


def _fans(dims: list) -> tuple:
    if len(dims) < 1:
        return 1, 1
    if len(dims) == 1:
        return dims[0], dims[0]
    receptive = int(np.prod(dims[:-2], dtype=np.int64)) if len(dims) > 2 else 1
    return dims[-2] * receptive, dims[-1] * receptive


class VarianceScaling(Initializer):
    """Values whose variance is ``scale`` over the fan (in, out or their mean): truncated normal
    (its standard deviation corrected for the truncation), untruncated normal, or uniform."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None, dtype=_dt.float32) -> None:
        if scale <= 0.0:
            raise ValueError(f"Argument `scale` must be a positive float. Received: {scale}")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Argument `mode` should be one of ('fan_in', 'fan_out', 'fan_avg'). Received: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(
                f"Argument `distribution` should be one of ('normal', 'uniform', 'truncated_normal', 'untruncated_normal'). Received: {distribution}"
            )
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = _float_dtype(dtype, "variance_scaling_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype, "variance_scaling_initializer")
        dims = _dims(shape)
        fan_in, fan_out = _fans(dims)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, fan)
        if self.distribution in ("normal", "truncated_normal"):
            return _random.truncated_normal(dims, 0.0, math.sqrt(scale) / _TRUNCATED_STD, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return _random.random_normal(dims, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return _random.random_uniform(dims, -limit, limit, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {
            "scale": self.scale,
            "mode": self.mode,
            "distribution": self.distribution,
            "seed": self.seed,
            "dtype": self.dtype.name,
        }


class GlorotUniform(VarianceScaling):
    """Uniform in ±sqrt(6 / (fan_in + fan_out)): ``get_variable``'s default for floats."""

    def __init__(self, seed=None, dtype=_dt.float32) -> None:
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with variance 2 / (fan_in + fan_out)."""

    def __init__(self, seed=None, dtype=_dt.float32) -> None:
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)

    def get_config(self) -> dict:
        return {"seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``, from the QR decomposition of a normal draw;
    more dimensions are flattened into the rows."""

    def __init__(self, gain=1.0, seed=None, dtype=_dt.float32) -> None:
        self.gain, self.seed = gain, seed
        self.dtype = _float_dtype(dtype, "orthogonal_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype, "orthogonal_initializer")
        dims = _dims(shape)
        if len(dims) < 2:
            raise ValueError(
                f"The tensor to initialize, specified by argument `shape` must be at least two-dimensional. Received shape={dims}"
            )
        rows = int(np.prod(dims[:-1], dtype=np.int64))
        cols = dims[-1]
        flat = (cols, rows) if rows < cols else (rows, cols)
        a = _random.random_normal(list(flat), dtype=dtype, seed=self.seed)
        with get_default_graph().as_default():
            q, r = F.qr(a)
            q = q * F.sign(F.diagonal(r))
            if rows < cols:
                q = q.transpose(0, 1)
            return q.reshape(dims) * self.gain

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=_dt.float32) -> None:
        self.gain = gain
        self.dtype = _float_dtype(dtype, "identity_initializer")

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _float_dtype(dtype, "identity_initializer")
        dims = _dims(shape)
        if len(dims) != 2:
            raise ValueError(f"Identity matrix initializer can only be used for 2D matrices. Received shape={dims}")
        with get_default_graph().as_default():
            return _sources.constant(np.eye(*dims, dtype=dtype.numpy_dtype) * self.gain, dtype=dtype, name="eye")

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}


def he_normal(seed=None) -> VarianceScaling:
    """He's initializer: ``VarianceScaling(2.0, "fan_in", "truncated_normal")``."""
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed=None) -> VarianceScaling:
    """He's initializer: ``VarianceScaling(2.0, "fan_in", "uniform")``."""
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed=None) -> VarianceScaling:
    """LeCun's initializer: ``VarianceScaling(1.0, "fan_in", "truncated_normal")``."""
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed=None) -> VarianceScaling:
    """LeCun's initializer: ``VarianceScaling(1.0, "fan_in", "uniform")``."""
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity

# the ``tf.initializers.*`` spellings
zeros = Zeros
ones = Ones
constant = Constant
random_uniform = RandomUniform
random_normal = RandomNormal
truncated_normal = TruncatedNormal
variance_scaling = VarianceScaling
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
orthogonal = Orthogonal
identity = Identity


def global_variables():
    """``tf.initializers.global_variables()``: one op initialising every global variable."""
    return _sources.global_variables_initializer()


def local_variables():
    """``tf.initializers.local_variables()``: one op initialising every local variable."""
    return _variables.local_variables_initializer()


def variables(var_list, name: str = "init"):
    """``tf.initializers.variables(var_list)``: one op initialising ``var_list``."""
    return _sources.variables_initializer(var_list, name=name)
