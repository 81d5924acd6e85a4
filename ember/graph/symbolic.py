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
(TensorShape([None, 3]), '(?, 3)', TensorShape(None))
"""

from __future__ import annotations

import itertools
import operator

__all__ = ["PROBE", "SymInt", "SymFloat", "TensorShape", "as_shape", "evaluate", "has_symbols", "probe_shape", "static_of", "unknown_dim"]

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
    """A static shape that may be partial: known rank with unknown sizes, or unknown rank."""

    __slots__ = ("_dims",)

    def __init__(self, dims) -> None:
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        else:
            if isinstance(dims, int):
                dims = (dims,)
            out = []
            for d in dims:
                if d is None or isinstance(d, SymInt):
                    out.append(None)
                elif isinstance(d, bool) or not isinstance(d, int) or d < -1:
                    raise ValueError(f"TensorShape: a dimension must be a non-negative int or None, got {d!r}")
                else:
                    out.append(None if d == -1 else int(d))
            self._dims = tuple(out)

    @property
    def rank(self) -> int | None:
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self) -> list | None:
        return None if self._dims is None else list(self._dims)

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def is_compatible_with(self, other) -> bool:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(a is None or b is None or a == b for a, b in zip(self._dims, other._dims, strict=True))

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

    def num_elements(self) -> int | None:
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return TensorShape(None) if isinstance(key, slice) else None
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other) -> bool:
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __repr__(self) -> str:
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)})"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        inner = ", ".join("?" if d is None else str(d) for d in self._dims)
        return f"({inner},)" if len(self._dims) == 1 else f"({inner})"


def as_shape(shape) -> TensorShape:
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def probe_shape(static: TensorShape) -> tuple:
    """The concrete stand-in shape that functors and rules see for a static shape."""
    if static.rank is None:
        return ()
    return tuple(unknown_dim() if d is None else d for d in static.dims)


def static_of(shape: tuple) -> TensorShape:
    """The static shape of an inferred shape: SymInts (and lost probe sizes) are unknown."""
    return TensorShape([None if isinstance(d, SymInt) or (d and d % PROBE == 0) else d for d in shape])
