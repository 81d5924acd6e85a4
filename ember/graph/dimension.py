"""TensorFlow's ``Dimension``: one size of a static shape, known or not (``tf.Dimension``).

``TensorShape.dims`` lists them, as TensorFlow's does; indexing a shape gives plain ints and
``None`` (TensorFlow 2's behaviour, which ``tf.compat.v1`` keeps unless v2 behaviour is turned
off). Arithmetic with an unknown side is unknown; comparisons with an unknown side are ``None``.

>>> Dimension(3) + 2, Dimension(None) * 2, Dimension(6) // Dimension(4), str(Dimension(None))
(Dimension(5), Dimension(None), Dimension(1), '?')
>>> Dimension(3) == 3, Dimension(None) == 3, Dimension(3).value
(True, None, 3)
"""

from __future__ import annotations

import operator

__all__ = ["Dimension", "as_dimension", "dimension_value"]


def _check_value(value):
    if value is None:
        return None
    if isinstance(value, Dimension):
        return value._value
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(
            f"Dimension value must be integer or None or have an __index__ method, got value "
            f"'{value!r}' with type '{type(value)}'"
        ) from None
    if number < 0:
        raise ValueError(f"Dimension {number} must be >= 0")
    return int(number)


def _arithmetic(fn):
    def forward(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other._value))

    def reflected(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        return forward(other, self)

    return forward, reflected


class Dimension:
    """One dimension of a `TensorShape`: a non-negative int, or unknown (``value`` is None)."""

    __slots__ = ("_value",)

    def __init__(self, value) -> None:
        self._value = _check_value(value)

    @property
    def value(self) -> int | None:
        """The size, or None when unknown."""
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __int__(self) -> int:
        if self._value is None:
            raise TypeError("int() of an unknown Dimension: its value is None")
        return self._value

    def __index__(self) -> int:
        return self.__int__()

    def __bool__(self) -> bool:
        return bool(self._value)

    __hash__ = None  # TensorFlow's Dimension is unhashable: equality can be unknown

    def __reduce__(self):
        return Dimension, (self._value,)

    def is_compatible_with(self, other) -> bool:
        """Whether ``other`` could be the same size (either is unknown, or they are equal)."""
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other) -> Dimension:
        """The known one of two compatible dimensions; ValueError when both are known and differ."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return Dimension(self._value if self._value is not None else other._value)

    def _compare(self, other, fn):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other._value is None:
            return None
        return fn(self._value, other._value)

    def __eq__(self, other):
        return self._compare(other, operator.eq)

    def __ne__(self, other):
        return self._compare(other, operator.ne)

    def __lt__(self, other):
        return self._compare(other, operator.lt)

    def __le__(self, other):
        return self._compare(other, operator.le)

    def __gt__(self, other):
        return self._compare(other, operator.gt)

    def __ge__(self, other):
        return self._compare(other, operator.ge)

    __add__, __radd__ = _arithmetic(operator.add)
    __sub__, __rsub__ = _arithmetic(operator.sub)
    __mul__, __rmul__ = _arithmetic(operator.mul)
    __floordiv__, __rfloordiv__ = _arithmetic(operator.floordiv)
    __mod__, __rmod__ = _arithmetic(operator.mod)

    def __truediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: 'Dimension' and '{type(other).__name__}', please use // instead")

    def __rtruediv__(self, other):
        raise TypeError(f"unsupported operand type(s) for /: '{type(other).__name__}' and 'Dimension', please use // instead")


def as_dimension(value) -> Dimension:
    """``value`` as a `Dimension` (a Dimension is returned as it is)."""
    return value if isinstance(value, Dimension) else Dimension(value)


def dimension_value(dimension) -> int | None:
    """The int (or None) of a Dimension or of a plain size (``tf.compat.dimension_value``)."""
    return dimension._value if isinstance(dimension, Dimension) else dimension
