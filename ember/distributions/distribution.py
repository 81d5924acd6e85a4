"""The ``Distribution`` base class: shapes, argument and sample validation, sampling entry points.

A distribution has a ``batch_shape`` (independent, differently parametrized copies) and an
``event_shape`` (the shape of one draw). ``sample(sample_shape)`` gives a tensor of shape
``sample_shape + batch_shape + event_shape``. Validation is on by default, as in PyTorch:
parameters are checked against ``arg_constraints`` when the distribution is made, and values
given to ``log_prob``/``cdf`` against its ``support``.
"""

from __future__ import annotations

from numbers import Number
from typing import ClassVar

from .._core.dtype import get_default_dtype
from .._core.shape import Size, broadcast_shapes
from .._core.tensor import Tensor, tensor
from ..dispatch.grad_mode import no_grad
from . import constraints

NO_SHAPE = Size()  # the default sample and batch shape, shared (a Size is immutable)


def broadcast_all(*values: Tensor | Number) -> tuple[Tensor, ...]:
    """Tensors of one broadcast shape; numbers take the first tensor's dtype (else the default)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of Number, ember.Tensor or objects implementing __torch_function__."
        )
    dtype = next((v.dtype for v in values if isinstance(v, Tensor)), get_default_dtype())
    tensors = [v if isinstance(v, Tensor) else tensor(v, dtype=dtype) for v in values]
    shape = broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


class Distribution:
    """The base of every distribution; subclasses set ``arg_constraints``, ``support`` and the methods."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = True
    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}
    support: constraints.Constraint | None = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn validation on or off for distributions made from now on."""
        if value not in (True, False):
            raise ValueError(f"set_default_validate_args(): expected a bool, got {value!r}")
        Distribution._validate_args = value

    def __init__(self, batch_shape=NO_SHAPE, event_shape=NO_SHAPE, validate_args: bool | None = None) -> None:
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if not self._validate_args:
            return
        for param, constraint in self.arg_constraints.items():
            if constraints.is_dependent(constraint) or param not in self.__dict__:
                continue  # parameters computed lazily from the given one are not checked twice
            value = self.__dict__[param]
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) of distribution "
                    f"{self!r} to satisfy the constraint {constraint!r}, but found invalid values:\n{_show(value)}"
                )

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape=NO_SHAPE) -> Tensor:
        """A draw of shape ``sample_shape + batch_shape + event_shape``, outside autograd."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=NO_SHAPE) -> Tensor:
        """A reparametrized draw: gradients flow to the parameters."""
        raise NotImplementedError(f"{type(self).__name__} does not implement rsample")

    def sample_n(self, n: int) -> Tensor:
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement log_prob")

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement cdf")

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement icdf")

    def entropy(self) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement entropy")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} does not implement enumerate_support")

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def expand(self, batch_shape, _instance=None) -> Distribution:
        """The same distribution over a larger batch, its parameters expanded (not copied)."""
        new = _instance if _instance is not None else type(self).__new__(type(self))
        batch_shape = Size(batch_shape)
        for name in self._expand_params():
            if name in self.__dict__:
                value = self.__dict__[name]
                setattr(new, name, value.expand(batch_shape + value.shape[len(self._batch_shape) :]))
        for name, value in self.__dict__.items():
            if name not in new.__dict__:
                setattr(new, name, value)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _expand_params(self) -> tuple[str, ...]:
        return tuple(self.arg_constraints)

    def _extended_shape(self, sample_shape=NO_SHAPE) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = value.dim() - len(self._event_shape)
        if value.shape[event_start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {value.shape} vs {self._event_shape}.")
        expected = self._extended_shape()
        for i, j in zip(reversed(value.shape), reversed(expected), strict=False):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {value.shape} vs {expected}.")
        if not bool(self.support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the support "
                f"({self.support!r}) of the distribution {self!r}, but found invalid values:\n{_show(value)}"
            )

    def __repr__(self) -> str:
        shown = [name for name in self.arg_constraints if name in self.__dict__]
        return f"{type(self).__name__}({', '.join(f'{name}: {_show_param(self.__dict__[name])}' for name in shown)})"


def _show(value: Tensor) -> object:
    """A tensor as PyTorch's f-strings print it: a 0-d one as its Python number."""
    return value.item() if value.dim() == 0 else value


def _show_param(value: Tensor) -> object:
    """A parameter in a distribution's repr: its value if it has one element, else its size."""
    return _show(value) if value.numel() == 1 else value.size()
