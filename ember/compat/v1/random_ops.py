"""TensorFlow 1's random ops as graph nodes: ``random_uniform``, ``random_normal``,
``truncated_normal``, ``random_shuffle``, ``multinomial`` / ``random.categorical``, with
TensorFlow's seeds.

Each node is one of ember's samplers under TensorFlow's op type (``RandomUniform``,
``RandomStandardNormal``, ``TruncatedNormal``, ``RandomUniformInt``, ``Multinomial``), holding a
generator of its own: every run of the node draws the next values of that stream. The stream
comes from TensorFlow's seed rule (``get_seed``): the graph-level seed (``set_random_seed``)
with the op's ``seed``, or with the op's position in the graph where the op has none, so a
program gives the same values each time it runs, and two ops without op seeds draw different
streams; with neither seed the stream is seeded from the operating system. The values are not
TensorFlow's (another generator), only their distributions are.

A difference from TensorFlow: a stream belongs to the node, not to a session, so a second
session on the same graph continues the stream rather than restarting it.
"""

from __future__ import annotations

import secrets

import numpy as np

from ..._core import dtype as _dt
from ..._core.device import CPU
from ..._core.generator import Generator
from ...graph.graph import get_default_graph
from ...graph.sources import constant, identity
from ...graph.symbolic import SymInt, TensorShape, as_shape
from ...graph.tensor import GraphTensor
from ...ops import functional as F
from ...ops.random.integers import MULTINOMIAL, RANDINT, RANDPERM
from ...ops.random.real import NORMAL, UNIFORM

__all__ = [
    "categorical",
    "get_seed",
    "multinomial",
    "random_normal",
    "random_shuffle",
    "random_uniform",
    "set_random_seed",
    "truncated_normal",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_UNIFORM_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


def set_random_seed(seed) -> None:
    """Set the default graph's seed: every random op made afterwards draws a repeatable stream.

    >>> import ember.compat.v1 as tf
    >>> def draw():
    ...     with tf.Graph().as_default() as g:
    ...         tf.set_random_seed(7)
    ...         x = tf.random_uniform([3])
    ...     return tf.Session(graph=g).run(x).tolist()
    >>> draw() == draw()
    True
    """
    get_default_graph().seed = None if seed is None else int(seed)


def get_seed(op_seed):
    """The (graph seed, op seed) pair an op with ``op_seed`` uses: TensorFlow's rule."""
    graph = get_default_graph()
    if graph.seed is not None:
        if op_seed is None:
            op_seed = len(graph.get_operations())  # the op's position: ops without seeds differ
        seeds = (int(graph.seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    return (0, _MAXINT32) if seeds == (0, 0) else seeds


def _stream(seed, seed2) -> Generator:
    """A generator of its own for one node (seeded from the OS when there is no seed)."""
    if seed is None and seed2 is None:
        return Generator(CPU).manual_seed(secrets.randbits(63))
    return Generator(CPU).manual_seed((int(seed) << 32) | int(seed2))


def _static_shape(shape, op: str) -> tuple:
    """A random op's output shape: known when the graph is built, or a graph tensor's probe shape
    (``x._shape``, where an unknown size is a ``SymInt`` the plan binds when ``x``'s placeholder
    is fed), so a draw shaped like a batch of unknown size is still a seeded node."""
    if isinstance(shape, tuple) and any(isinstance(d, SymInt) for d in shape):
        return shape
    if isinstance(shape, GraphTensor):
        if shape.op.type != "Const":
            raise NotImplementedError(
                f"{op}(): the shape must be known when the graph is built (a list, a TensorShape or a constant), "
                f"got the computed tensor {shape.name}"
            )
        shape = shape.op.attrs["value"].tolist()
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    static = as_shape(shape)
    if not static.is_fully_defined():
        raise ValueError(f"{op}(): the shape must be fully defined, got {static}")
    dims = tuple(static.as_list())
    if any(d < 0 for d in dims):
        raise ValueError(f"{op}(): the shape cannot have negative dimensions, got {list(dims)}")
    return dims


def _dtype(dtype, op: str, allowed: tuple) -> _dt.DType:
    dtype = _dt.as_dtype(dtype, op=op, arg="dtype")
    if dtype.name not in allowed:
        raise ValueError(f"Invalid dtype {dtype.name!r} for {op}(): expected one of {', '.join(allowed)}")
    return dtype


def _sampler(tf_type: str, op_expr, shape: tuple, dtype, params: dict, seed, name: str) -> GraphTensor:
    graph = get_default_graph()
    seed1, seed2 = get_seed(seed)
    attrs = {"shape": shape, "dtype": dtype, "device": CPU, "generator": _stream(seed1, seed2), **params,
             "seed": seed1 or 0, "seed2": seed2 or 0}  # fmt: skip
    static = TensorShape([None if isinstance(d, SymInt) else d for d in shape])
    op = graph.create_op(op_expr.name, (), attrs, [(shape, static, dtype)], name=name, op_expr=op_expr)
    op._tf_type = tf_type  # the sampler runs it; TensorFlow's type names it (TruncatedNormal is the normal sampler with a bound)
    return op.outputs[0]


def _operand(value, dtype, name: str):
    return value if isinstance(value, GraphTensor) else constant(value, dtype=dtype, name=name)


def random_uniform(shape, minval=0, maxval=None, dtype=_dt.float32, seed=None, name=None) -> GraphTensor:
    """Uniform values in [minval, maxval) (maxval defaults to 1 for floats; integers need it)."""
    dtype = _dtype(dtype, "random_uniform", _UNIFORM_DTYPES)
    dims = _static_shape(shape, "random_uniform")
    graph = get_default_graph()
    integer = not dtype.is_floating_point
    if maxval is None:
        if integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype.name!r}")
        maxval = 1
    with graph.as_default(), graph.name_scope(name or "random_uniform") as scope:
        if integer:
            low, high = _int_bound(minval, "minval"), _int_bound(maxval, "maxval")
            if low >= high:
                raise ValueError(f"random_uniform(): Need minval < maxval: {low} >= {high}")
            draw = _sampler("RandomUniformInt", RANDINT, dims, dtype, {"low": low, "high": high}, seed, "RandomUniformInt")
            return identity(draw, name=scope)
        low = _operand(minval, dtype, "min")
        high = _operand(maxval, dtype, "max")
        draw = _sampler("RandomUniform", UNIFORM, dims, dtype, {"low": 0.0, "high": 1.0}, seed, "RandomUniform")
        return identity(draw * (high - low) + low, name=scope)


def _int_bound(value, what: str) -> int:
    if isinstance(value, GraphTensor):
        if value.op.type != "Const":
            raise NotImplementedError(
                f"random_uniform(): an integer {what} must be known when the graph is built, got {value.name}"
            )
        value = value.op.attrs["value"].item()
    return int(value)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None) -> GraphTensor:
    """Normal values of the given mean and standard deviation."""
    dtype = _dtype(dtype, "random_normal", _FLOAT_DTYPES)
    dims = _static_shape(shape, "random_normal")
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "random_normal") as scope:
        mean, stddev = _operand(mean, dtype, "mean"), _operand(stddev, dtype, "stddev")
        draw = _sampler("RandomStandardNormal", NORMAL, dims, dtype, {"mean": 0.0, "std": 1.0}, seed, "RandomStandardNormal")
        return identity(draw * stddev + mean, name=scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None) -> GraphTensor:
    """Normal values, drawn again wherever they fall more than two standard deviations out."""
    dtype = _dtype(dtype, "truncated_normal", _FLOAT_DTYPES)
    dims = _static_shape(shape, "truncated_normal")
    graph = get_default_graph()
    with graph.as_default(), graph.name_scope(name or "truncated_normal") as scope:
        mean, stddev = _operand(mean, dtype, "mean"), _operand(stddev, dtype, "stddev")
        params = {"mean": 0.0, "std": 1.0, "truncate": 2.0}
        draw = _sampler("TruncatedNormal", NORMAL, dims, dtype, params, seed, "TruncatedNormal")
        return identity(draw * stddev + mean, name=scope)


def random_shuffle(value, seed=None, name=None) -> GraphTensor:
    """``value`` with its first dimension in a random order (a new order each run)."""
    graph = get_default_graph()
    if not isinstance(value, GraphTensor):
        with graph.as_default():
            value = constant(value)
    if value.shape.rank is None or value.shape.rank == 0 or value.shape.as_list()[0] is None:
        raise ValueError(f"random_shuffle(): the first dimension of the value must be known, got shape {value.shape}")
    n = value.shape.as_list()[0]
    with graph.as_default(), graph.name_scope(name or "RandomShuffle") as scope:
        order = _sampler("RandomShuffle", RANDPERM, (n,), _dt.int64, {}, seed, "permutation")
        return identity(F.index_select(value, 0, order), name=scope)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None) -> GraphTensor:
    """``num_samples`` class indices per row of ``logits`` ([batch, classes], unnormalised log-probabilities)."""
    graph = get_default_graph()
    if not isinstance(logits, GraphTensor):
        with graph.as_default():
            logits = constant(logits, dtype=_dt.float32)
    if logits.shape.rank != 2:
        raise ValueError(f"multinomial(): logits should be a matrix [batch_size, num_classes], got shape {logits.shape}")
    out_dtype = _dtype(_dt.int64 if output_dtype is None else output_dtype, "multinomial", ("int32", "int64"))
    num_samples = int(num_samples)
    with graph.as_default(), graph.name_scope(name or "multinomial") as scope:
        probs = F.softmax(logits, -1)
        seed1, seed2 = get_seed(seed)
        attrs = {
            "num_samples": num_samples,
            "replacement": True,
            "generator": _stream(seed1, seed2),
            "seed": seed1 or 0,
            "seed2": seed2 or 0,
        }
        shape = (probs._shape[0], num_samples)
        node = graph.create_op(MULTINOMIAL.name, (probs,), attrs, [(shape, TensorShape([logits.shape[0], num_samples]), _dt.int64)],
                               name="Multinomial", op_expr=MULTINOMIAL)  # fmt: skip
        node._tf_type = "Multinomial"
        draw = node.outputs[0]
        if out_dtype is not _dt.int64:
            draw = draw.to(out_dtype)
        return identity(draw, name=scope)


def categorical(logits, num_samples, dtype=None, seed=None, name=None) -> GraphTensor:
    """``tf.random.categorical``: ``multinomial`` with ``dtype`` for the indices."""
    return multinomial(logits, num_samples, seed=seed, name=name or "categorical", output_dtype=dtype)
