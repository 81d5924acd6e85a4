"""Watch ops travel: ``with ember.trace() as t:`` and ``ember.explain(fn, *args)``.

The trace observes the real road rather than asking each layer to report: it installs a
profile hook (``sys.setprofile``, this thread only) for the duration of the block and
recognises the layers by their code objects — the generated functional API, the registered
functors, the interpreters' ``apply``, the inference step, the allocators' ``allocate_array``,
the streams' ``launch`` and the registered kernels. Outside a trace nothing is installed, so
tracing costs nothing when off. Times are inclusive per hop and include the hook's own
overhead, so read them relative to each other.

>>> import ember
>>> x = ember.tensor([-1.0, 2.0])
>>> with ember.trace() as t:
...     y = ember.relu(x)
>>> [(j.function, j.functor, j.interpreter, j.op, j.kernel) for j in t.journeys]
[('relu', 'ReluInplace', 'autograd > eager-local', 'relu', 'relu[cpu]')]
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from .._core import allocator as _alloc
from .._core.tensor import Tensor
from . import interpreter as _interp, vm as _vm
from .opexpr import OP_REGISTRY

__all__ = ["Journey", "Trace", "explain", "note", "register_front_end", "trace"]

# The op layer above dispatch tells trace how to recognise its frames when it loads (an arrow
# down, where importing it from here would point up): the file of the generated functional
# API, the functors by name, and a function giving each generated function's public name.
_FRONT_END: dict = {"filename": None, "functors": {}, "public_names": dict}


def register_front_end(filename: str, functors: dict, public_names: Callable[[], dict]) -> None:
    """Called by ``ember.ops`` once the functional API is built."""
    _FRONT_END.update(filename=filename, functors=functors, public_names=public_names)


@dataclass
class Journey:
    """One public call's road: each hop's name and inclusive time in microseconds."""

    function: str = ""
    functor: str = ""
    interpreter: str = ""
    op: str = ""
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    allocations: list = field(default_factory=list)  # (nbytes, allocator class name)
    kernel: str = ""
    stream: str = ""
    times: dict = field(default_factory=dict)  # hop -> us
    dispatches: int = 0
    outer: object = None  # the first interpreter: dispatches count its calls
    details: dict = field(default_factory=dict)  # a step that is no op says what it did (bytes, group)

    def describe(self) -> str:
        """The journey as the seed's diagram: one layer per line, indented as it nests."""
        t = self.times
        if self.details:  # a step that dispatched no op (a collective): what it moved, where, how long
            what = ", ".join(f"{k} {v}" for k, v in self.details.items())
            return f"{'ember.' + self.function + '(' + _metas(self.inputs) + ')':<64} {self.interpreter:<16} {t.get('functional', 0.0):8.1f} us\n  {what}"
        rows = [
            (f"ember.{self.function}(...)", "functional API", t.get("functional")),
            (f"-> functor {self.functor}", "checks, op logic", t.get("functor")),
            (f"-> dispatch -> {self.interpreter} interpreter (op {self.op!r})", "interpreter", t.get("interpreter")),
            (f"   infer: {_metas(self.inputs)} -> {_metas(self.outputs)}", "inference" if "infer" in t else "inference (cached)", t.get("infer")),
        ]
        for nbytes, name in self.allocations:
            rows.append((f"   allocate {nbytes} B from {name}", "allocator", t.get("allocate")))
        if self.stream:
            rows.append((f"-> instruction on {self.stream}", "VM", t.get("launch")))
        if self.kernel:
            rows.append((f"-> kernel {self.kernel}", "kernel", t.get("kernel")))
        lines = []
        for depth, (text, layer, us) in enumerate(rows):
            indent = "  " * min(depth, 4)
            timing = f"{us:8.1f} us" if us is not None else " " * 11
            lines.append(f"{indent + text:<64} {layer:<16} {timing}")
        return "\n".join(lines)


def _metas(metas: list) -> str:
    return ", ".join(f"{list(s)} {d}" for s, d in metas) or "()"


class Trace:
    """The journeys recorded inside a ``with ember.trace():`` block."""

    def __init__(self) -> None:
        self.journeys: list[Journey] = []

    def table(self) -> str:
        head = f"{'#':>3}  {'function':<14}{'functor':<16}{'interpreter':<24}{'op':<14}{'outputs':<26}{'alloc':>9}  {'kernel':<18}{'total us':>9}{'kernel us':>10}"
        lines = [head, "-" * len(head)]
        for i, j in enumerate(self.journeys):
            alloc = sum(n for n, _ in j.allocations)
            total = j.times.get("functional", j.times.get("interpreter", 0.0))
            lines.append(
                f"{i:>3}  {j.function:<14}{j.functor:<16}{j.interpreter:<24}{j.op:<14}{_metas(j.outputs)[:25]:<26}"
                f"{alloc:>8}B  {j.kernel:<18}{total:>9.1f}{j.times.get('kernel', 0.0):>10.1f}"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return f"<Trace of {len(self.journeys)} journeys>"


class _Recorder:
    """The profile hook: classifies frames by code object and times each hop."""

    def __init__(self, result: Trace) -> None:
        self.result = result
        self.functional_file = _FRONT_END["filename"]
        # generated functions are named linalg_inv, Tensor_to: show the schema's linalg.inv, Tensor.to
        self.public_names = _FRONT_END["public_names"]()
        self.functors = {}
        for name, fn in _FRONT_END["functors"].items():
            code = getattr(fn, "__code__", None) or getattr(getattr(fn, "__call__", None), "__code__", None)  # noqa: B004
            if code is not None:
                self.functors.setdefault(code, name)
        self.kernels = {}
        self.views = {}
        for op in OP_REGISTRY.values():
            for device_type, kernel in op.kernels.items():
                if hasattr(kernel, "__code__"):
                    self.kernels[kernel.__code__] = f"{op.name}[{device_type}]"
            if op.view is not None and hasattr(op.view, "__code__"):
                self.views[op.view.__code__] = op.name
        self.applies = {cls.apply.__code__ for cls in _subclasses(_interp.Interpreter)}
        self.infers = {_interp.EagerLocalInterpreter.infer.__code__}
        self.allocates = {cls.allocate_array.__code__ for cls in _subclasses(_alloc.Allocator)}
        self.launches = {cls.launch.__code__ for cls in _subclasses(_vm.Stream)}
        self.stack: list[tuple[str, float, object]] = []
        self.current: Journey | None = None
        self.depth = 0

    def hop(self, frame) -> str | None:
        code = frame.f_code
        if code.co_filename == self.functional_file:
            return "functional"
        if code in self.functors:
            return "functor"
        if code in self.applies:
            return "interpreter"
        if code in self.infers:
            return "infer"
        if code in self.allocates:
            return "allocate"
        if code in self.launches:
            return "launch"
        if code in self.kernels or code in self.views:
            return "kernel"
        return None

    def __call__(self, frame, event: str, arg) -> None:
        if event == "call":
            kind = self.hop(frame)
            if kind is None:
                return
            journey = self.current
            if journey is None or (kind == "functional" and not self.stack):
                journey = self.current = Journey()
                self.result.journeys.append(journey)
            self._enter(kind, frame, journey)
            self.stack.append((kind, time.perf_counter(), frame))
        elif event == "return" and self.stack and self.stack[-1][2] is frame:
            kind, start, _ = self.stack.pop()
            journey = self.current
            elapsed = (time.perf_counter() - start) * 1e6
            if journey is not None:
                journey.times.setdefault(kind, elapsed)  # the outermost hop of each kind
                if kind == "infer" and arg is not None:
                    journey.outputs = [(s.shape, s.dtype) for s in arg]
                if kind == "interpreter" and arg is not None and not journey.outputs:
                    journey.outputs = [(t._shape, t._dtype) for t in arg if hasattr(t, "_shape")]
            if not self.stack:
                self.current = None

    def _enter(self, kind: str, frame, journey: Journey) -> None:
        f_locals = frame.f_locals
        if kind == "functional" and not journey.function:
            name = frame.f_code.co_name
            journey.function = self.public_names.get(name, name)
        elif kind == "functor" and not journey.functor:
            journey.functor = self.functors[frame.f_code]
        elif kind == "interpreter":
            interpreter = f_locals["self"]
            if not journey.interpreter:
                journey.interpreter = interpreter.name
                journey.outer = interpreter
                op = f_locals.get("op")
                journey.op = getattr(op, "name", "")
                journey.inputs = [(t._shape, t._dtype) for t in f_locals.get("inputs", ()) if hasattr(t, "_shape")]
            elif journey.interpreter.count(" > ") + 1 < _depth(journey.outer) and interpreter is not journey.outer:
                journey.interpreter += f" > {interpreter.name}"  # a wrapper and what it wraps: autograd > eager-local
            if interpreter is journey.outer:
                journey.dispatches += 1
        elif kind == "allocate":
            journey.allocations.append((f_locals.get("nbytes"), type(f_locals["self"]).__name__))
        elif kind == "launch" and not journey.stream:
            journey.stream = repr(f_locals["self"]).strip("<>")
        elif kind == "kernel" and not journey.kernel:
            code = frame.f_code
            journey.kernel = self.kernels.get(code) or f"{self.views[code]} (view: metadata only)"


def _depth(interpreter) -> int:
    """How many interpreters a wrapper chain has (autograd > eager-local: 2)."""
    depth = 1
    while getattr(interpreter, "inner", None) is not None:
        interpreter = interpreter.inner
        depth += 1
    return depth


def _subclasses(cls: type) -> list[type]:
    out, todo = [], [cls]
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.__subclasses__())
    return out


def trace(input: Tensor | None = None):  # noqa: A002 - PyTorch's name for the argument
    """``trace()``: record the journey of every op called in the block (this thread), a context
    manager. ``trace(matrix)``: PyTorch's ``torch.trace``, the sum of the matrix's diagonal, so
    programs written for PyTorch run unchanged.

    >>> ember.trace(ember.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    5.0
    """
    if input is None:
        return _record()
    if not isinstance(input, Tensor):
        raise TypeError(f"trace(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.trace()


@contextlib.contextmanager
def _record() -> Iterator[Trace]:
    result = Trace()
    recorder = _Recorder(result)
    previous = sys.getprofile()
    sys.setprofile(recorder)
    try:
        with _vm.long_road():  # every launch through its stream, where the recorder sees it
            yield result
    finally:
        sys.setprofile(previous)


def note(function: str, op: str, interpreter: str, kernel: str, inputs: list, us: float, **details) -> None:
    """Add a step that dispatches no op (a collective of ``ember.distributed``) to this thread's
    open trace, as a journey with its inclusive time and ``details``; nothing when none is open."""
    recorder = sys.getprofile()
    if isinstance(recorder, _Recorder):
        recorder.result.journeys.append(
            Journey(function=function, op=op, interpreter=interpreter, kernel=kernel, inputs=inputs, outputs=inputs,
                    times={"functional": us}, details=details)
        )


def explain(fn: Callable, *args, **kwargs):
    """Call ``fn(*args, **kwargs)`` and print each op's journey like the seed's diagram.

    >>> import ember
    >>> _ = ember.explain(ember.relu, ember.tensor([1.0]))  # doctest: +ELLIPSIS
    ember.relu(...)  ...functional API...
      -> functor ReluInplace  ...
    ...
    """
    with trace() as t:
        result = fn(*args, **kwargs)
    print("\n\n".join(j.describe() for j in t.journeys))
    return result
