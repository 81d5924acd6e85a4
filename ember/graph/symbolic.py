"""Unknown dimensions: ``SymInt`` and TensorFlow's ``TensorShape``.

The op system's inference rules and functors compute with concrete shapes. A graph tensor
whose static shape is ``(None, 3)`` still has to go through them, so its internal ``_shape``
holds a ``SymInt`` where the static shape has ``None``: an ``int`` whose value is a probe (a
large prime no real tensor here has) and which carries an expression of the unknown sizes it
came from. Arithmetic on it keeps the expression (``3 * n``, ``n // 2``), so an attribute that
a functor computes from a shape (a reshape target, a mean's divisor) is recorded as an
expression and evaluated when the plan runs and the sizes are known. Comparisons see the
probe value, as a tracer's guards would.

>>> n = unknown_dim()
>>> m = n * 3 // 2
>>> isinstance(m, SymInt), evaluate(m, {n.var: 4})
(True, 6)
>>> TensorShape([None, 3]), str(TensorShape([None, 3])), TensorShape(None)
(TensorShape([None, 3]), '(None, 3)', TensorShape(None))
"""

from __future__ import annotations

import itertools
import math
import operator
from collections.abc import Iterable

import numpy as np
from google.protobuf import message as _message

from ..interop.proto.messages import TensorShapeProto
from .dimension import Dimension

__all__ = [
    "PROBE", "Dimension", "SymFloat", "SymInt", "TensorShape", "as_shape", "evaluate", "has_symbols", "probe_shape",
    "static_of", "unknown_dim", "unknown_shape",
]

# The value an unknown dimension takes while functors and rules run: prime and large, so a
# size derived from it is recognisable (a multiple of it) when an expression was lost.
PROBE = 720_720

_VARS = itertools.count(1)


class _Expr:
    """An expression over unknown sizes: a variable, a constant, or an operator on two."""

    __slots__ = ("args", "fn")

    def __init__(self, fn, args: tuple) -> None:
        self.fn = fn  # None for a variable (args = (id,)), else a binary function
        self.args = args

    def eval(self, env: dict):
        if self.fn is None:
            return env[self.args[0]]
        a, b = self.args
        return self.fn(a.eval(env) if isinstance(a, _Expr) else a, b.eval(env) if isinstance(b, _Expr) else b)

    def variables(self) -> set:
        if self.fn is None:
            return {self.args[0]}
        out = set()
        for a in self.args:
            if isinstance(a, _Expr):
                out |= a.variables()
        return out


def _expr(x):
    return x.expr if isinstance(x, (SymInt, SymFloat)) else x


def _lift(fn, a, b):
    """``fn(a, b)`` on the probe values, carrying the expression when either side has one."""
    value = fn(a.real if isinstance(a, (SymInt, SymFloat)) else a, b.real if isinstance(b, (SymInt, SymFloat)) else b)
    expr = _Expr(fn, (_expr(a), _expr(b)))
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return SymInt(value, expr)
    if isinstance(value, float):
        return SymFloat(value, expr)
    return value


def _binary(fn):
    def forward(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return _lift(fn, self, other)

    def reflected(self, other):
        if not isinstance(other, (int, float)):
            return NotImplemented
        return _lift(fn, other, self)

    return forward, reflected


class SymInt(int):
    """An unknown size: an ``int`` (its probe value) with the expression it came from."""

    def __new__(cls, value: int, expr: _Expr) -> SymInt:
        self = super().__new__(cls, value)
        self.expr = expr
        return self

    @property
    def var(self):
        """The variable of a plain unknown size (``unknown_dim()``), else None."""
        return self.expr.args[0] if self.expr.fn is None else None

    __add__, __radd__ = _binary(operator.add)
    __sub__, __rsub__ = _binary(operator.sub)
    __mul__, __rmul__ = _binary(operator.mul)
    __floordiv__, __rfloordiv__ = _binary(operator.floordiv)
    __truediv__, __rtruediv__ = _binary(operator.truediv)
    __mod__, __rmod__ = _binary(operator.mod)

    def __neg__(self):
        return _lift(operator.mul, self, -1)

    def __pos__(self):
        return self

    def __hash__(self) -> int:
        # Not the probe's hash: caches keyed by shapes (view layouts) must not hand one unknown
        # size's result to another that merely has the same probe value.
        return hash((PROBE, id(self.expr)))

    def __eq__(self, other) -> bool:
        return int.__eq__(self, other)

    def __repr__(self) -> str:
        return "?"

    __str__ = __repr__

    def __reduce__(self):  # a traced attribute pickles as its probe: it has no meaning outside the graph
        return (int, (int(self),))


class SymFloat(float):
    """A float computed from an unknown size (a mean's ``1 / n``)."""

    def __new__(cls, value: float, expr: _Expr) -> SymFloat:
        self = super().__new__(cls, value)
        self.expr = expr
        return self

    __add__, __radd__ = _binary(operator.add)
    __sub__, __rsub__ = _binary(operator.sub)
    __mul__, __rmul__ = _binary(operator.mul)
    __truediv__, __rtruediv__ = _binary(operator.truediv)

    def __neg__(self):
        return _lift(operator.mul, self, -1)

    def __repr__(self) -> str:
        return "?"


def unknown_dim() -> SymInt:
    """A fresh unknown size."""
    return SymInt(PROBE, _Expr(None, (next(_VARS),)))


def evaluate(value, env: dict):
    """``value`` with every symbolic number evaluated under ``env`` (variable -> size); walks
    tuples and lists."""
    if isinstance(value, (SymInt, SymFloat)):
        return value.expr.eval(env)
    if isinstance(value, tuple):
        return tuple([evaluate(v, env) for v in value])
    if isinstance(value, list):
        return [evaluate(v, env) for v in value]
    if isinstance(value, slice):
        return slice(evaluate(value.start, env), evaluate(value.stop, env), evaluate(value.step, env))
    if isinstance(getattr(value, "items", None), tuple):  # an indexing key: ints, slices, None, Ellipsis
        return type(value)(evaluate(value.items, env), value.simple)
    return value


def has_symbols(value) -> bool:
    """Whether ``value`` (a number, or tuples, lists, dicts, slices and indexing keys of them)
    holds a symbolic number."""
    if isinstance(value, (SymInt, SymFloat)):
        return True
    if isinstance(value, (tuple, list)):
        return any(has_symbols(v) for v in value)
    if isinstance(value, dict):
        return any(has_symbols(v) for v in value.values())
    if isinstance(value, slice):
        return has_symbols((value.start, value.stop, value.step))
    items = getattr(value, "items", None)
    return isinstance(items, tuple) and has_symbols(items)


def looks_derived(value) -> bool:
    """A plain number that is probably a probe size whose expression was lost on the way
    (a multiple of the probe, or a small fraction of one)."""
    if isinstance(value, (SymInt, SymFloat, bool)):
        return False
    if isinstance(value, int):
        return value != 0 and value % PROBE == 0
    if isinstance(value, float) and value == value and 0 < abs(value) < 1:
        k = value * PROBE
        return abs(k - round(k)) < 1e-3 and 0 < abs(round(k)) <= 4096
    if isinstance(value, (tuple, list)):
        return any(looks_derived(v) for v in value)
    return False


class TensorShape:
    """A static shape that may be partial: known rank with unknown sizes, or unknown rank.

    TensorFlow's ``TensorShape`` as ``tf.compat.v1`` has it: indexing and iteration give ints
    and ``None``, ``dims`` gives `Dimension` objects, and it converts to and from
    ``TensorShapeProto`` (``-1`` for an unknown size, ``unknown_rank`` for an unknown rank).

    >>> s = TensorShape([None, 3])
    >>> s[1], s.dims, s.concatenate([2]), s.merge_with([4, None])
    (3, [Dimension(None), Dimension(3)], TensorShape([None, 3, 2]), TensorShape([4, 3]))
    >>> TensorShape(s.as_proto()) == s, TensorShape(TensorShape(None).as_proto())
    (True, TensorShape(None))
    """

    __slots__ = ("_dims",)

    def __init__(self, dims) -> None:
        if type(dims) is tuple or type(dims) is list:  # the common case (every recorded op): checked inline
            self._dims = tuple([d if type(d) is int and d >= 0 else _size(d) for d in dims])
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, _message.Message):
            self._dims = _dims_of_proto(dims)
        else:
            if isinstance(dims, (int, Dimension, np.integer)):
                dims = (dims,)
            elif isinstance(dims, (str, bytes)) or not isinstance(dims, Iterable):
                raise TypeError(f"TensorShape: failed to convert {dims!r} to a shape: a shape is a single dimension "
                                f"(e.g. 10) or an iterable of dimensions (e.g. [1, 10, None])")
            self._dims = tuple([_size(d) for d in dims])

    # ------------------------------------------------------------------ reading

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> list[Dimension] | None:
        """The dimensions as `Dimension` objects (TensorFlow's ``dims``), or None for an unknown rank."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self) -> list:
        """The sizes as ints and ``None``; ValueError for an unknown rank."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    @classmethod
    def experimental_from_proto(cls, proto) -> TensorShape:
        """``TensorShape(proto)``, TensorFlow 2's spelling."""
        return cls(proto)

    def experimental_as_proto(self) -> TensorShapeProto:
        """``as_proto()``, TensorFlow 2's spelling."""
        return self.as_proto()

    def as_proto(self) -> TensorShapeProto:
        """This shape as a ``TensorShapeProto``: ``-1`` for an unknown size, ``unknown_rank`` for an unknown rank."""
        if self._dims is None:
            return TensorShapeProto(unknown_rank=True)
        return TensorShapeProto(dim=[TensorShapeProto.Dim(size=-1 if d is None else d) for d in self._dims])

    def num_elements(self) -> int | None:
        """The number of elements, or None unless the shape is fully defined."""
        if not self.is_fully_defined():
            return None
        return math.prod(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # ------------------------------------------------------------------ combining

    def is_compatible_with(self, other) -> bool:
        """Whether both could describe the same tensor (unknown ranks and sizes match anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):  # TensorFlow's message shows ``other`` as given
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other) -> TensorShape:
        """The most specific shape compatible with both; ValueError when they conflict."""
        other = as_shape(other)
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims, strict=True)])

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape both are compatible with: sizes that differ become unknown,
        and so does the rank when the ranks differ."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims, strict=True)])

    def concatenate(self, other) -> TensorShape:
        """This shape's dimensions followed by ``other``'s (unknown if either rank is)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def is_subtype_of(self, other) -> bool:
        """Whether every tensor of this shape also has shape ``other`` (TensorFlow 2's tracing order)."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

    def most_specific_common_supertype(self, others) -> TensorShape:
        """The most specific shape that this one and every one of ``others`` are subtypes of."""
        others = [as_shape(o) for o in others]
        if self._dims is None or any(o._dims is None or len(o._dims) != len(self._dims) for o in others):
            return TensorShape(None)
        return TensorShape([d if all(o._dims[i] == d for o in others) else None for i, d in enumerate(self._dims)])

    def __add__(self, other) -> TensorShape:
        return self.concatenate(other)

    __concat__ = concatenate

    def __radd__(self, other) -> TensorShape:
        return as_shape(other).concatenate(self)

    def with_rank(self, rank: int) -> TensorShape:
        """This shape merged with an unknown shape of ``rank``; ValueError for another rank."""
        try:
            return self.merge_with(unknown_shape(rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_has_rank(self, rank: int) -> None:
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def assert_same_rank(self, other) -> None:
        other = as_shape(other)
        if self._dims is not None and other._dims is not None and len(self._dims) != len(other._dims):
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    # ------------------------------------------------------------------ Python protocol

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[operator.index(key)]
        if not isinstance(key, slice):
            return None
        # An unknown rank keeps only what a slice's bounds say about the result's rank.
        if key.step is not None:
            raise ValueError("Steps are not yet handled")
        start = 0 if key.start is None else key.start
        if key.stop is None or start < 0 or key.stop < 0:
            return TensorShape(None)
        return unknown_shape(max(key.stop - start, 0))

    def __eq__(self, other) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else list(self._dims),)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join(UNKNOWN_SIZE_TEXT[0] if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"


# How an unknown size prints: TensorFlow 2's "(None, 3)"; ember.compat.v1.disable_v2_behavior()
# switches to TensorFlow 1's "(?, 3)".
UNKNOWN_SIZE_TEXT = ["None"]


def _size(d) -> int | None:
    """One dimension of a shape being built: an int, or None (also for -1 and an unknown SymInt)."""
    if d is None or isinstance(d, SymInt):
        return None
    if isinstance(d, Dimension):
        return d.value
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
        raise TypeError(f"TensorShape: a dimension must be an int or None, got {d!r} of type {type(d).__name__}")
    if d < -1:
        raise ValueError(f"TensorShape: a dimension must be >= 0 (or -1 or None for unknown), got {d}")
    return None if d == -1 else int(d)


def _dims_of_proto(proto) -> tuple | None:
    """The sizes of a ``TensorShapeProto`` (ember's, or another library's with TensorFlow's fields)."""
    if proto.DESCRIPTOR.name != "TensorShapeProto":
        raise TypeError(f"TensorShape: a protobuf message must be a TensorShapeProto, not {proto.DESCRIPTOR.full_name}")
    if proto.unknown_rank:
        return None
    return tuple([_size(d.size) for d in proto.dim])


def as_shape(shape) -> TensorShape:
    """``shape`` as a `TensorShape` (a TensorShape is returned as it is)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank: int | None = None) -> TensorShape:
    """A shape of unknown sizes: of ``rank`` dimensions, or of unknown rank (``tf.TensorShape(None)``)."""
    return TensorShape(None if rank is None else [None] * rank)


def probe_shape(static: TensorShape) -> tuple:
    """The concrete stand-in shape that functors and rules see for a static shape."""
    if static.rank is None:
        return ()
    return tuple(unknown_dim() if d is None else d for d in static.as_list())


def static_of(shape: tuple) -> TensorShape:
    """The static shape of an inferred shape: SymInts (and lost probe sizes) are unknown."""
    return TensorShape([None if isinstance(d, SymInt) or (d and d % PROBE == 0) else d for d in shape])
