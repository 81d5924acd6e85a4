"""Functors: the first stop of an op after the functional API.

A functor does the op's argument checks and op-specific logic (in-place, defaults, choosing
the primitive) and hands primitives to ``dispatch``. It is registered under the name that the
schema's ``=> Name`` refers to, and built once: OneFlow's ``ReluFunctor`` builds its
``OpExpr`` in its constructor, ember's family modules build theirs at import.

>>> @functor("DocExampleIdentity")
... def identity(x):
...     return x
>>> FUNCTORS["DocExampleIdentity"](3)
3
"""

from __future__ import annotations

import types
from collections.abc import Callable

__all__ = ["FUNCTORS", "functor", "named_copy"]


def named_copy(fn: Callable, name: str) -> Callable:
    """A copy of ``fn`` whose code is named ``name``: functors and kernels made by a factory
    share one code object, and tracebacks and traces tell them apart by their code's name."""
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_name == name:
        return fn
    code = fn.__code__.replace(co_name=name, co_qualname=name) if hasattr(fn.__code__, "co_qualname") else fn.__code__.replace(co_name=name)
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__doc__ = fn.__doc__
    copy.__qualname__ = name
    copy.__module__ = fn.__module__
    return copy


class _Registry(dict):
    """Functors by schema name; registering gives each its own code object named after it."""

    def __setitem__(self, name: str, fn: Callable) -> None:
        if name in self:
            raise ValueError(f"functor {name!r} is registered twice")
        super().__setitem__(name, named_copy(fn, name))


FUNCTORS: dict[str, Callable] = _Registry()


def functor(name: str) -> Callable:
    """Decorator: register a function (or a class, instantiated once) as functor ``name``."""

    def register(obj):
        FUNCTORS[name] = obj() if isinstance(obj, type) else obj
        return obj

    return register
