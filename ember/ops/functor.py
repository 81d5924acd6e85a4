"""Functors: the first stop of an op after the functional API.

A functor does the op's argument checks and op-specific logic (in-place, defaults, choosing
the primitive) and hands primitives to ``dispatch``. It is registered under the name that the
schema's ``=> Name`` refers to, and built once: OneFlow's ``ReluFunctor`` builds its
``OpExpr`` in its constructor, ember's family modules build theirs at import.

>>> @functor("DocExampleIdentity")
... def identity(x):
...     return x
>>> FUNCTORS["DocExampleIdentity"] is identity
True
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["FUNCTORS", "functor"]

FUNCTORS: dict[str, Callable] = {}


def functor(name: str) -> Callable:
    """Decorator: register a function (or a class, instantiated once) as functor ``name``."""

    def register(obj):
        if name in FUNCTORS:
            raise ValueError(f"functor {name!r} is registered twice")
        FUNCTORS[name] = obj() if isinstance(obj, type) else obj
        return obj

    return register
