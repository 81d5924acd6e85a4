"""The symbolic tensor of graph mode: an output of an Operation, with no value until a Session
runs it.

``GraphTensor`` subclasses ember's ``Tensor``, so the generated functions' type tests, the
functors and the inference rules take it unchanged: the one op library serves both modes. Its
``_shape`` is what the rules compute with (``SymInt`` probes where a size is unknown, see
``symbolic.py``); its static shape, with ``None`` there, is ``shape`` / ``get_shape()``. Its
storage is a lazy one that refuses to allocate, so anything that asks for values gets an error
that says why instead of memory.

This module is the lowest floor of the IR: it knows its ``Operation`` only through the
attributes it reads (``graph.py`` imports this module, never the other way).
"""

from __future__ import annotations

import contextlib
import threading

from .._core import dtype as _dt
from .._core.device import CPU
from .._core.shape import contiguous_strides
from .._core.storage import Storage
from .._core.tensor import Tensor
from .symbolic import TensorShape, as_shape, probe_shape

__all__ = ["GraphTensor", "SymbolicStorage", "ember_operators", "ember_operators_active", "is_symbolic_tensor", "symbolic_storage"]


class _OperatorMode(threading.local):
    def __init__(self) -> None:
        self.depth = 0


_OPERATORS = _OperatorMode()


@contextlib.contextmanager
def ember_operators():
    """Python operators on graph tensors mean ember's inside the block, whatever class a graph
    gives its tensors: ember's own code (derivative rules, a namespace's functions) is written
    with them, while ``ember.compat.v1``'s tensors give user code TensorFlow's."""
    _OPERATORS.depth += 1
    try:
        yield
    finally:
        _OPERATORS.depth -= 1


def ember_operators_active() -> bool:
    return _OPERATORS.depth > 0


class SymbolicStorage(Storage):
    """The storage of a graph tensor: sized for inference's bounds checks, never allocated."""

    __slots__ = ("_owner",)

    def __init__(self, nbytes: int, holds_objects: bool, owner: str) -> None:
        super().__init__(nbytes, device=CPU, lazy=True, holds_objects=holds_objects, reserve=False)
        self._allocator = None  # it never allocates, whichever allocator is in use around it
        self._owner = owner

    def _materialize(self):
        raise RuntimeError(
            f"{self._owner}: a graph tensor has no value until a Session runs it "
            f"(use sess.run(tensor) or tensor.eval() inside a session)"
        )


def symbolic_storage(shape: tuple, dtype: _dt.DType, owner: str) -> SymbolicStorage:
    """A never-allocated storage as large as a contiguous ``shape`` of ``dtype`` (``owner`` names
    the tensor in the error raised when something asks it for values)."""
    n = 1
    for s in shape:
        n *= int(s)
    return SymbolicStorage(n * dtype.itemsize, dtype is _dt.string, owner)


class GraphTensor(Tensor):
    """One output of an operation in a graph (TensorFlow's ``tf.Tensor`` in graph mode)."""

    __slots__ = ("_index", "_op", "_static")

    # Whether an op using this tensor reads the snapshot made with it (``_read``) instead: a
    # TensorFlow 1 variable (``ember.compat.v1``'s) is read through its "read" identity.
    reads_snapshot = False

    @classmethod
    def _make(cls, op, index: int, shape: tuple, static: TensorShape, dtype: _dt.DType) -> GraphTensor:
        t = object.__new__(cls)
        t._bind(op, index, shape, static, dtype)
        return t

    def _bind(self, op, index: int, shape: tuple, static: TensorShape, dtype: _dt.DType) -> None:
        self._op = op
        self._index = index
        self._static = static
        self._shape = tuple(shape)
        self._stride = contiguous_strides(self._shape)
        self._offset = 0
        self._dtype = dtype
        self._storage = symbolic_storage(self._shape, dtype, f"{op.name}:{index}")
        self._base = None
        self._np = self._np_src = None
        self._requires_grad = False
        self.grad = None
        self.grad_fn = None

    @property
    def _rank_known(self) -> bool:
        # promotion counts a tensor of unknown rank as dimensioned, never as 0-d
        return self._static.rank is not None

    # -- TensorFlow's attributes ------------------------------------------------------

    @property
    def name(self) -> str:
        return f"{self._op.name}:{self._index}"

    @property
    def op(self):
        return self._op

    @property
    def graph(self):
        return self._op.graph

    @property
    def value_index(self) -> int:
        return self._index

    @property
    def shape(self) -> TensorShape:
        return self._static

    def get_shape(self) -> TensorShape:
        return self._static

    def set_shape(self, shape) -> None:
        """Refine the static shape with what the caller knows (TensorFlow's merge)."""
        new = self._static.merge_with(as_shape(shape))
        if new.rank is not None and self._static.rank is None:
            if self.consumers():  # their rules ran on the rank-less stand-in: they would not match
                raise ValueError(
                    f"set_shape(): {self.name} has an unknown rank and is already used by {self.consumers()[0].name}; "
                    f"give it its shape before using it"
                )
            self._static = new
            self._shape = probe_shape(new)
            self._stride = contiguous_strides(self._shape)
            self._storage = symbolic_storage(self._shape, self._dtype, self.name)
            return
        self._static = new
        self._shape = tuple(s if new_d is None else new_d for s, new_d in zip(self._shape, new._dims or (), strict=False)) or self._shape
        self._stride = contiguous_strides(self._shape)

    def consumers(self) -> list:
        """The operations that take this tensor as an input."""
        return [op for op in self._op._consumers if any(t is self for t in op.inputs)]

    def eval(self, feed_dict=None, session=None):
        """This tensor's value in ``session`` (default: the default session)."""
        return self._op._evaluate(self, feed_dict, session, "Tensor.eval()")

    # -- no values here ------------------------------------------------------------------

    def _numpy_view(self):
        raise RuntimeError(
            f"Tensor {self.name!r} is a graph tensor: it has no value until a Session runs it "
            f"(use sess.run(tensor) or tensor.eval()); ops that use it are built inside `with graph.as_default():`"
        )

    def __bool__(self) -> bool:
        raise TypeError(
            "Using a graph Tensor as a Python bool is not allowed. Use `if t is not None:` to test whether a tensor "
            "is defined, and ember ops such as ember.where to branch on its value."
        )

    def __iter__(self):
        dims = self._static._dims
        if not dims or dims[0] is None:
            raise TypeError(f"Cannot iterate over a tensor with unknown first dimension ({self.name}).")
        return super().__iter__()

    def __len__(self) -> int:
        dims = self._static._dims
        if not dims or dims[0] is None:
            raise TypeError(f"len() is not supported for a tensor with unknown first dimension ({self.name})")
        return dims[0]

    def __index__(self) -> int:
        raise TypeError(f"Tensor {self.name!r} is a graph tensor and cannot be used as a Python index")

    def __repr__(self) -> str:
        # TensorFlow leaves the shape out when even the rank is unknown.
        if self._static.rank is None:
            return f'Tensor("{self.name}", dtype={self._dtype.name})'
        return f'Tensor("{self.name}", shape={self._static}, dtype={self._dtype.name})'

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        raise TypeError(f"cannot pickle graph tensor {self.name!r}: run it in a Session and pickle the value")

    def __deepcopy__(self, memo):
        return self  # a node of a graph is not copied with the objects that refer to it

    def __copy__(self):
        return self

    def __dlpack__(self, *args, **kwargs):
        self._numpy_view()


def is_symbolic_tensor(t) -> bool:
    return isinstance(t, GraphTensor)
