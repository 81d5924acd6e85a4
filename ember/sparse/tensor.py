"""``SparseTensor`` (TensorFlow's COO) and ``SparseTensorValue`` (what a Session returns for it).

Importing this module registers SparseTensor with ``Session.run`` (graph mode's feed/fetch
conversion registry): fetched, it gives a ``SparseTensorValue``; fed a ``SparseTensorValue``
(or an ``(indices, values, dense_shape)`` tuple), it feeds its component tensors.
"""

from __future__ import annotations

import collections
import contextlib

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor, tensor
from ..dispatch.interpreter import current_interpreter
from ..graph.graph import session_for
from ..graph.session import register_session_run_conversion_functions
from ..graph.symbolic import TensorShape
from ..kernels.cpu.sparse import check_indices
from .primitives import is_known, is_symbolic

__all__ = ["SparseTensor", "SparseTensorValue", "as_sparse", "graph_scope", "lazy_interpreter"]

SparseTensorValue = collections.namedtuple("SparseTensorValue", ["indices", "values", "dense_shape"])
SparseTensorValue.__doc__ = """A sparse tensor's value: NumPy ``indices``, ``values`` and ``dense_shape``
(what ``Session.run`` returns for a SparseTensor fetch, and what a sparse placeholder is fed)."""


def lazy_interpreter():
    """The lazy (graph-recording) interpreter this thread dispatches to, or None in eager mode."""
    interp = current_interpreter()
    while interp is not None:
        if interp.name == "lazy":
            return interp
        interp = getattr(interp, "inner", None)
    return None


def graph_scope(name: str | None, default: str):
    """In graph mode, a name scope ``name`` (or ``default``) around the ops a function records."""
    interp = lazy_interpreter()
    if interp is None:
        return contextlib.nullcontext()
    return interp.graph.name_scope(name or default)


def _capture(t: Tensor) -> Tensor:
    interp = lazy_interpreter()
    if interp is None or is_symbolic(t):
        return t
    return interp.capture(t)


def _convert(x, arg: str, *, index: bool, dtype=None) -> tuple[Tensor, np.ndarray | None]:
    """``x`` as a tensor (index arguments as int64), and its NumPy value when it was concrete."""
    if isinstance(x, Tensor):
        t = x
    else:
        if isinstance(x, SparseTensor):
            raise TypeError(f"SparseTensor(): argument '{arg}' must be a dense tensor, got a SparseTensor")
        t = tensor(x, dtype=dtype)
        if index and t.numel() == 0 and not _dt.isdtype(t._dtype, "integral"):
            t = tensor(np.zeros(t._shape, np.int64))  # [] : no indices at all
    if index:
        if t._dtype not in (_dt.int64, _dt.int32):
            raise TypeError(f"SparseTensor(): argument '{arg}' must have dtype int64 (or int32, converted), got {t._dtype}")
        if t._dtype is _dt.int32:
            t = t.to(_dt.int64) if is_symbolic(t) else tensor(t._host_array().astype(np.int64))
    value = None if is_symbolic(t) else t._host_array()
    return t, value


class SparseTensor:
    """A sparse tensor in COO form (TensorFlow's ``tf.SparseTensor``).

    ``indices``: int64 [N, rank], the coordinates of the N explicit values; ``values``: [N],
    any dtype; ``dense_shape``: int64 [rank]. Lists, NumPy arrays and ember tensors (eager or
    graph) are accepted; int32 indices are converted. Eagerly the indices are checked against
    the dense shape; ops that need TensorFlow's canonical (row-major, no repeats) order say so.

    >>> import ember
    >>> sp = SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    >>> sp.shape, sp.dtype
    ((3, 4), ember.float32)
    >>> ember.sparse.to_dense(sp).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    """

    __slots__ = ("__weakref__", "_dense_shape", "_indices", "_static", "_values")

    def __init__(self, indices, values, dense_shape) -> None:
        indices, idx_np = _convert(indices, "indices", index=True)
        values, _ = _convert(values, "values", index=False)
        dense_shape, shape_np = _convert(dense_shape, "dense_shape", index=True)
        if dense_shape.ndim != 1:
            raise ValueError(f"SparseTensor(): dense_shape must be 1-D [rank], got shape {list(dense_shape._shape)}")
        rank = dense_shape._shape[0]
        if indices.ndim == 1 and indices._shape[0] == 0 and is_known(rank) and idx_np is not None:
            indices = indices.reshape(0, rank)
            idx_np = idx_np.reshape(0, rank)
        if indices.ndim != 2:
            raise ValueError(f"SparseTensor(): indices must be 2-D [N, rank], got shape {list(indices._shape)}")
        if values.ndim != 1:
            raise ValueError(f"SparseTensor(): values must be 1-D [N], got shape {list(values._shape)}")
        n_idx, idx_rank = indices._shape
        n_val = values._shape[0]
        if is_known(n_idx) and is_known(n_val) and n_idx != n_val:
            raise ValueError(
                f"SparseTensor(): indices and values must have the same number of elements N: "
                f"indices has {n_idx} rows, values has {n_val} elements"
            )
        if is_known(idx_rank) and is_known(rank) and idx_rank != rank:
            raise ValueError(
                f"SparseTensor(): indices must have one column per dimension: dense_shape has rank {rank}, indices have {idx_rank} columns"
            )
        if not is_known(rank):
            rank = idx_rank
        if not is_known(rank):
            raise ValueError("SparseTensor(): the rank must be known statically (indices' second dimension or dense_shape's length)")
        rank = int(rank)
        if shape_np is None:
            shape_np = _const_value(dense_shape)
        if shape_np is not None:
            if (shape_np < 0).any():
                raise ValueError(f"SparseTensor(): dense_shape must be non-negative, got {shape_np.tolist()}")
            static = tuple(int(v) for v in shape_np)
            if idx_np is not None:
                check_indices("SparseTensor", idx_np, static)
        else:
            static = (None,) * rank
        self._indices = _capture(indices)
        self._values = _capture(values)
        self._dense_shape = _capture(dense_shape)
        self._static = static

    @classmethod
    def _from_parts(cls, indices: Tensor, values: Tensor, dense_shape: Tensor, static: tuple) -> SparseTensor:
        """Without checks: components an op made (they are consistent by construction)."""
        self = object.__new__(cls)
        self._indices, self._values, self._dense_shape, self._static = indices, values, dense_shape, tuple(static)
        return self

    @classmethod
    def from_value(cls, value) -> SparseTensor:
        """A SparseTensor from a ``SparseTensorValue`` (or a SparseTensor, returned as is)."""
        if isinstance(value, SparseTensor):
            return value
        if isinstance(value, SparseTensorValue):
            return cls(value.indices, value.values, value.dense_shape)
        raise TypeError(f"SparseTensor.from_value(): expected a SparseTensorValue, got {type(value).__name__}")

    # -- the components -----------------------------------------------------------------

    @property
    def indices(self) -> Tensor:
        """int64 [N, rank]: the coordinates of the explicit values."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """[N]: the explicit values."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """int64 [rank]: the shape of the dense tensor this represents."""
        return self._dense_shape

    @property
    def dtype(self) -> _dt.DType:
        return self._values._dtype

    @property
    def _symbolic(self) -> bool:
        return is_symbolic(self._values) or is_symbolic(self._indices) or is_symbolic(self._dense_shape)

    @property
    def shape(self):
        """The static dense shape: a tuple of ints eagerly, a (maybe partial) TensorShape in graph mode."""
        if self._symbolic:
            return TensorShape(self._static)
        return self._static

    def get_shape(self):
        """The static dense shape as a TensorShape (TensorFlow's ``get_shape``)."""
        return TensorShape(self._static)

    @property
    def ndim(self) -> int:
        return len(self._static)

    @property
    def graph(self):
        if not self._symbolic:
            raise AttributeError("SparseTensor.graph is meaningless in eager mode (its components are eager tensors)")
        return next(t for t in (self._values, self._indices, self._dense_shape) if is_symbolic(t)).graph

    @property
    def op(self):
        """The operation producing ``values`` (TensorFlow's ``SparseTensor.op``)."""
        if not is_symbolic(self._values):
            raise AttributeError("SparseTensor.op is meaningless in eager mode (its values are an eager tensor)")
        return self._values.op

    def with_values(self, new_values) -> SparseTensor:
        """The same indices and dense shape with other values (of the same length)."""
        values, _ = _convert(new_values, "values", index=False)
        if values.ndim != 1 or (is_known(values._shape[0]) and is_known(self._values._shape[0]) and values._shape[0] != self._values._shape[0]):
            raise ValueError(f"SparseTensor.with_values(): new values must have shape {list(self._values._shape)}, got {list(values._shape)}")
        return SparseTensor._from_parts(self._indices, _capture(values), self._dense_shape, self._static)

    def consumers(self) -> list:
        ops = []
        for t in (self._indices, self._values, self._dense_shape):
            if is_symbolic(t):
                ops.extend(op for op in t.consumers() if op not in ops)
        return ops

    def eval(self, feed_dict=None, session=None) -> SparseTensorValue:
        """This sparse tensor's value in ``session`` (default: the default session)."""
        return session_for(self.graph, session, "SparseTensor.eval()").run(self, feed_dict=feed_dict)

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self._indices!r}, values={self._values!r}, dense_shape={self._dense_shape!r})"

    def __bool__(self) -> bool:
        raise TypeError("The truth value of a SparseTensor is ambiguous: convert it with ember.sparse.to_dense first")

    def __len__(self) -> int:
        raise TypeError("len() of a SparseTensor is not defined: use sp.shape[0]")


def _const_value(t) -> np.ndarray | None:
    """The value of a graph tensor that is a Const node's output, else None."""
    op = getattr(t, "op", None)
    if op is None or getattr(op, "type", None) != "Const":
        return None
    value = op.attrs.get("value")
    if isinstance(value, Tensor):
        return np.asarray(value._host_array())
    return None if value is None else np.asarray(value)


def as_sparse(x, op: str, arg: str = "sp_input") -> SparseTensor:
    """``x`` as a SparseTensor (a SparseTensorValue is converted); TypeError otherwise."""
    if isinstance(x, SparseTensor):
        return x
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    raise TypeError(f"{op}(): argument '{arg}' must be a SparseTensor, got {type(x).__name__}")


def _fetch_components(sp: SparseTensor) -> tuple[list, object]:
    return [sp.indices, sp.values, sp.dense_shape], lambda values: SparseTensorValue(*values)


def _feed_components(sp: SparseTensor, value) -> list:
    if isinstance(value, SparseTensor) or not (isinstance(value, tuple) and len(value) == 3):
        raise TypeError(f"A SparseTensor is fed a SparseTensorValue or an (indices, values, dense_shape) tuple, got {type(value).__name__}")
    indices, values, dense_shape = value
    pairs = [(sp.indices, indices), (sp.values, values)]
    if sp.dense_shape.op.kind != "Const":  # a fully known dense shape is a constant of the graph
        pairs.append((sp.dense_shape, dense_shape))
    return pairs


register_session_run_conversion_functions(SparseTensor, _fetch_components, _feed_components)
