"""Start-method contexts whose processes know ember's reductions.

They are the standard library's contexts with one change: the ``Process`` classes live in this
module. A process started with ``spawn`` or ``forkserver`` unpickles its ``Process`` object first
thing, which imports this module and so ``ember.multiprocessing.reductions``: the child sends
ember tensors as shared-memory handles even if its own code never imports
``ember.multiprocessing``. (A forked child inherits the registration.) The start method itself is
the standard library's global one: ``set_start_method`` here and in ``multiprocessing`` are the same.

>>> ctx = get_context("spawn")
>>> ctx.get_start_method(), ctx.Process.__module__
('spawn', 'ember.multiprocessing.context')
"""

from __future__ import annotations

import multiprocessing as _mp
import multiprocessing.context as _ctx
import sys

from . import reductions  # noqa: F401 - registers ember's reductions

__all__ = ["DefaultContext", "ForkContext", "ForkServerContext", "Process", "SpawnContext", "get_context"]


class _EmberContext:
    """``get_context(method)`` on any ember context gives ember's context for that method."""

    def get_context(self, method: str | None = None):
        if method is None:
            return self
        return get_context(method)


class Process(_mp.process.BaseProcess):
    """A process of the current start method (``multiprocessing.Process``, ember's reductions loaded)."""

    _start_method = None

    @staticmethod
    def _Popen(process_obj):
        return _DEFAULT.get_context().Process._Popen(process_obj)

    @staticmethod
    def _after_fork():
        return _DEFAULT.get_context().Process._after_fork()


class SpawnProcess(_ctx.SpawnProcess):
    pass


class SpawnContext(_EmberContext, _ctx.SpawnContext):
    Process = SpawnProcess


_CONTEXTS: dict[str, _ctx.BaseContext] = {"spawn": SpawnContext()}

if sys.platform != "win32":

    class ForkProcess(_ctx.ForkProcess):
        pass

    class ForkServerProcess(_ctx.ForkServerProcess):
        pass

    class ForkContext(_EmberContext, _ctx.ForkContext):
        Process = ForkProcess

    class ForkServerContext(_EmberContext, _ctx.ForkServerContext):
        Process = ForkServerProcess

    _CONTEXTS["fork"] = ForkContext()
    _CONTEXTS["forkserver"] = ForkServerContext()


def get_context(method: str | None = None) -> _ctx.BaseContext:
    """The context for ``method`` (``"fork"``, ``"spawn"``, ``"forkserver"``; None: the current
    start method), with processes that send ember tensors as shared-memory handles.

    >>> get_context("fork").get_start_method()
    'fork'
    """
    if method is None:
        return _DEFAULT.get_context()
    context = _CONTEXTS.get(method)
    if context is None:
        raise ValueError(f"cannot find context for {method!r}")
    context._check_available()
    return context


class DefaultContext(_ctx.BaseContext):
    """The module-level face of ``ember.multiprocessing``: the standard library's default context
    (same start method), handing out ember's concrete contexts."""

    Process = Process

    def get_context(self, method: str | None = None) -> _ctx.BaseContext:
        if method is None:
            method = _mp.get_start_method()  # fixes the default, as multiprocessing.get_context() does
        return get_context(method)

    def get_start_method(self, allow_none: bool = False) -> str | None:
        return _mp.get_start_method(allow_none)

    def set_start_method(self, method: str | None, force: bool = False) -> None:
        _mp.set_start_method(method, force)

    def get_all_start_methods(self) -> list[str]:
        return _mp.get_all_start_methods()


_DEFAULT = DefaultContext()
