"""dispatch(op, inputs, attrs) and the interpreters it hands ops to.

``dispatch`` asks the current thread's mode for its interpreter and calls ``apply``. The mode
is scoped: ``with interpreter_scope(interp):`` installs an interpreter for a block (graph
mode, the autograd wrapper, tracing) and restores the previous one after it, on this thread
only. Outside any scope, ops run on the eager-local interpreter: the seed's
``NaiveInterpret``, which checks devices, infers output metadata with the op's own rule,
allocates outputs from the device's allocator and hands the kernel to the device's stream.

>>> from ember.dispatch import current_interpreter
>>> current_interpreter().name, current_interpreter().inner.name  # autograd wraps eager
('autograd', 'eager-local')
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Iterator

import numpy as np

from .._core import dtype as _dt
from .._core.allocator import ALLOCATORS
from .._core.device import CPU, Device
from .._core.shape import INT64_MAX, check_size, contiguous_strides
from .._core.storage import Storage
from .._core.tensor import Tensor
from . import vm
from .layout import output_strides
from .opexpr import OpExpr

__all__ = [
    "EagerLocalInterpreter", "Interpreter", "OutputSpec", "current_interpreter", "default_interpreter", "dispatch", "eager_default_interpreter", "interpreter_scope",
    "new_output", "running_eagerly", "set_default_interpreter",
]  # fmt: skip

NO_ATTRS: dict = {}
_LONG_ROAD = vm.LONG_ROAD


class Interpreter:
    """Runs (or records) one primitive op. Subclasses: eager-local, and later lazy (graph),
    autograd (a wrapper around another interpreter) and global (distributed)."""

    name = "interpreter"

    def apply(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        """Run ``op`` on ``inputs``; write into ``outputs`` when given (in-place, ``out=``)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class OutputSpec:
    """Inferred metadata of one output, computed once per repeated signature."""

    __slots__ = ("dtype", "nbytes", "np_dtype", "shape", "stride")

    def __init__(self, shape: tuple, dtype: _dt.DType, op: str = "") -> None:
        self.shape = shape
        self.dtype = dtype
        self.np_dtype = dtype.numpy_dtype
        self.stride = contiguous_strides(shape)
        n = 1
        for s in shape:
            n *= s
        self.nbytes = n * dtype.itemsize
        if not 0 <= self.nbytes <= INT64_MAX:  # an output no memory can hold (arange(0, 2**62), eye(2**40))
            check_size(shape, entry_name(op), dtype.itemsize)

    def __repr__(self) -> str:
        return f"{tuple(self.shape)} {self.dtype}"


GENERATED_FILENAME = "<ember.ops.functional>"  # the code objects of the generated public functions


def entry_name(primitive: str) -> str:
    """The public function the user called, for an error found below it: the outermost generated
    function (``ember.*``, Tensor methods and operators, ``ember.nn.functional``) on the stack, so
    a primitive serving several (``tri_indices``: tril/triu_indices; ``fill``: zeros_like, ones_like...)
    is named as the user wrote it; ``primitive`` when none is (a graph's run). Cold path only: it
    walks the frames when the error is raised."""
    name = None
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == GENERATED_FILENAME:
            name = frame.f_code.co_name
        frame = frame.f_back
    if name is None:
        return primitive
    return name.removeprefix("Tensor_").strip("_")  # Tensor.new_zeros is generated as Tensor_new_zeros; __add__: add


_INFER_CACHE_LIMIT = 8192
# Attribute values the inference cache keeps as they are: immutable builtins and the framework's
# own descriptors. Anything else is a user's object (a str or float subclass, bytes of a string
# tensor's element, an array, a tensor) that a key would keep alive after its tensor dies.
_PLAIN_TYPES = frozenset({type(None), bool, int, float, complex, str, _dt.DType, Device})
_TOKEN_LIMIT = 64  # elements of a tuple or list attribute a key may copy


def attr_tokens(values: tuple) -> tuple | None:
    """``values`` as a cache key that holds no user object: subclasses of the builtin scalars
    become the builtin's value (the key keeps their class beside), tuples and short lists of
    such are copied; None when a value cannot be keyed so (bytes, arrays, tensors, long
    sequences): the rule then runs uncached.

    >>> class Name(str): ...
    >>> attr_tokens((Name("x"), [1, 2]))
    ('x', ('list', (1, 2)))
    >>> attr_tokens((b"data",)) is None
    True
    """
    for v in values:  # the common case first: dims and sizes, tuples of ints, are kept as they are
        t = type(v)
        if t is tuple:
            if not _PLAIN_TYPES.issuperset(map(type, v)):
                break
        elif t not in _PLAIN_TYPES:
            break
    else:
        return values
    out = []
    for v in values:
        t = type(v)
        if t in _PLAIN_TYPES:
            out.append(v)
        elif t is tuple or t is list:
            if len(v) > _TOKEN_LIMIT:
                return None
            inner = attr_tokens(tuple(v))
            if inner is None:
                return None
            out.append(inner if t is tuple else ("list", inner))
        elif isinstance(v, bool | int | float | complex | str):
            base = next(b for b in (bool, int, float, complex, str) if isinstance(v, b))
            out.append(base(v))
        else:
            return None
    return tuple(out)


class EagerLocalInterpreter(Interpreter):
    """Run now, on this process's devices."""

    name = "eager-local"

    def __init__(self) -> None:
        self._cache: dict = {}
        # The decision per signature for the common road (one fresh output, a kernel, no view):
        # same key as the inference cache, value (spec, device, elementwise, strided).
        self._plans: dict = {}

    def clear_caches(self) -> None:
        """Forget every inferred signature (the default dtype changed, say)."""
        self._cache.clear()
        self._plans.clear()

    def infer(self, op: OpExpr, inputs: tuple, attrs: dict) -> tuple[OutputSpec, ...]:
        """The op's inference rule, cached per (op, input shapes and dtypes, attributes)."""
        n = len(inputs)
        if n == 1:
            x = inputs[0]
            key = (op, x._shape, x._dtype)
        elif n == 2:
            a, b = inputs
            key = (op, a._shape, a._dtype, b._shape, b._dtype)
        elif n == 3:
            a, b, c = inputs
            key = (op, a._shape, a._dtype, b._shape, b._dtype, c._shape, c._dtype)
        else:
            key = (op, *[(t._shape, t._dtype) for t in inputs])
        if attrs:
            if op.attr_key is not None:
                key = (key, op.attr_key(attrs))
            else:
                values = tuple(attrs.values())
                types = tuple(map(type, values))
                if not _PLAIN_TYPES.issuperset(types):  # a user's object must not live on in the cache
                    values = attr_tokens(values)
                    if values is None:
                        return tuple(OutputSpec(tuple(s), d) for s, d in op.infer(attrs, *inputs))
                key = (key, values, types)  # 2 and 2.0 are equal keys but infer differently (the classes, never the values)
        try:
            specs = self._cache.get(key)
        except TypeError:  # an unhashable attribute: infer every time
            return tuple(OutputSpec(tuple(s), d, op.name) for s, d in op.infer(attrs, *inputs))
        if specs is None:
            specs = tuple(OutputSpec(tuple(s), d, op.name) for s, d in op.infer(attrs, *inputs))
            if len(self._cache) >= _INFER_CACHE_LIMIT:
                self._cache.clear()
            self._cache[key] = specs
        return specs

    def apply(self, op: OpExpr, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        # This is every eager op's road, so it is written flat: each call saved is ~60 ns.
        # 0. the short road: a signature seen before, with its decision cached (_plan)
        n = len(inputs)
        if outputs is None and (n == 2 or n == 1) and (not attrs or op.attr_key is not None):
            a = inputs[0]
            if n == 2:
                b = inputs[1]
                key = (op, a._shape, a._dtype, b._shape, b._dtype)
            else:
                b = a
                key = (op, a._shape, a._dtype)
            try:
                plan = self._plans.get(key if not attrs else (key, op.attr_key(attrs)))
            except TypeError:  # an unhashable attribute key: the rule runs every time, below
                plan = None
            if plan is not None:
                spec, device, elementwise, strided = plan
                storage_a, storage_b = a._storage, b._storage
                if storage_a._device is device and storage_b._device is device:
                    if elementwise and (a._stride != spec.stride or a._shape != spec.shape):
                        out = _output_like_inputs(spec, inputs, device)
                    else:
                        out = new_output(spec, device)
                    data = storage_a._data
                    x = a._np if a._np_src is data and data is not None else a._numpy_view()
                    if n == 2:
                        data = storage_b._data
                        ins = (x, b._np if b._np_src is data and data is not None else b._numpy_view())
                    else:
                        ins = (x,)
                    if not strided:
                        ins = tuple([x if x.flags.c_contiguous else np.ascontiguousarray(x) for x in ins])
                    kernel = op.kernels[device._type]
                    if _LONG_ROAD[0]:
                        (vm._mode.streams.get(device) or vm.stream_for(device)).launch(op, kernel, (out._np,), ins, attrs)
                    else:
                        kernel((out._np,), ins, attrs)
                    return (out,)
        # 1. one device for all inputs (a one-input view has nothing to compare)
        if n == 1 and op.view is not None:
            return op.view(attrs, inputs[0])
        if n:
            device = inputs[0]._storage._device
            if n == 2:
                if inputs[1]._storage._device is not device:
                    _device_mismatch(device, inputs[1]._storage._device, 1)
            else:
                for i in range(1, n):
                    if inputs[i]._storage._device is not device:
                        _device_mismatch(device, inputs[i]._storage._device, i)
        else:
            device = attrs.get("device") or CPU
        if op.view is not None:
            return op.view(attrs, *inputs)
        # 2. output metadata from the op's rule, cached per signature
        if n == 2 and not attrs:
            a, b = inputs
            specs = self._cache.get((op, a._shape, a._dtype, b._shape, b._dtype)) or self.infer(op, inputs, attrs)
        elif n == 2 and op.attr_key is not None:
            a, b = inputs
            try:
                specs = self._cache.get(((op, a._shape, a._dtype, b._shape, b._dtype), op.attr_key(attrs)))
            except TypeError:  # an unhashable attribute key: infer() infers every time
                specs = None
            specs = specs or self.infer(op, inputs, attrs)
        elif n == 3 and (not attrs or op.attr_key is not None):  # linear, and derivatives' kernels
            a, b, c = inputs
            key = (op, a._shape, a._dtype, b._shape, b._dtype, c._shape, c._dtype)
            try:
                specs = self._cache.get((key, op.attr_key(attrs)) if attrs else key)
            except TypeError:
                specs = None
            specs = specs or self.infer(op, inputs, attrs)
        elif n == 1:
            a = inputs[0]
            if not attrs:
                specs = self._cache.get((op, a._shape, a._dtype)) or self.infer(op, inputs, attrs)
            elif op.attr_key is not None:
                try:
                    specs = self._cache.get(((op, a._shape, a._dtype), op.attr_key(attrs)))
                except TypeError:  # an unhashable key: a value-dependent rule that must run every time
                    specs = None
                specs = specs or self.infer(op, inputs, attrs)
            else:
                specs = self.infer(op, inputs, attrs)
        else:
            specs = self.infer(op, inputs, attrs)
        # 3. outputs from the device's allocator (or the caller's, for in-place and out=)
        if outputs is None:
            if len(specs) == 1:
                spec = specs[0]
                if op.elementwise and n:  # the inputs' layout, unless the first is contiguous of the output's shape
                    a = inputs[0]
                    if a._stride != spec.stride or a._shape != spec.shape:
                        outputs = (_output_like_inputs(spec, inputs, device),)
                    else:
                        outputs = (new_output(spec, device),)
                else:
                    outputs = (new_output(spec, device),)
            else:
                outputs = tuple([new_output(spec, device) for spec in specs])
            written = None
        else:
            _check_outputs(op, specs, outputs, device)
            written = outputs
        device_type = device._type
        if device_type == "meta":
            _bump_versions(written)
            return outputs  # meta tensors: inference ran, no kernel does
        kernel = op.kernels.get(device_type)
        if kernel is None:
            raise NotImplementedError(f"{op.name}: no kernel for device type '{device_type}' (registered: {sorted(op.kernels) or 'none'})")
        if written is None and (n == 2 or n == 1) and len(specs) == 1 and outputs[0]._np is not None:
            _plan(self, op, inputs, attrs, specs[0], device)
        # 4. NumPy views for the kernel (cached on each tensor), contiguous where the kernel needs it
        if n == 2:
            a, b = inputs
            data = a._storage._data
            x = a._np if a._np_src is data and data is not None else a._numpy_view()
            data = b._storage._data
            ins = (x, b._np if b._np_src is data and data is not None else b._numpy_view())
        elif n == 1:
            a = inputs[0]
            data = a._storage._data
            ins = (a._np if a._np_src is data and data is not None else a._numpy_view(),)
        else:
            ins = tuple([t._np if t._np_src is t._storage._data and t._np_src is not None else t._numpy_view() for t in inputs])
        if not op.strided:
            ins = tuple([x if x.flags.c_contiguous else np.ascontiguousarray(x) for x in ins])
        if written is None and len(outputs) == 1:
            fresh = outputs[0]
            outs = (fresh._np if fresh._np is not None else fresh._numpy_view(),)  # made with its view
        else:
            outs = tuple([t._numpy_view() for t in outputs])
        # 5. an instruction on the device's stream: a plain call while every stream is synchronous
        if _LONG_ROAD[0]:
            (vm._mode.streams.get(device) or vm.stream_for(device)).launch(op, kernel, outs, ins, attrs)
        else:
            kernel(outs, ins, attrs)
        if written is not None:
            _bump_versions(written)  # after the launch: a kernel that raised wrote nothing
        return outputs


def _plan(interp: EagerLocalInterpreter, op: OpExpr, inputs: tuple, attrs: dict, spec: OutputSpec, device: Device) -> None:
    """Cache the decision for this signature, when its inference may be cached at all (its
    attributes are none, or keyed by the op's ``attr_key``) and its output is a plain array."""
    if attrs and op.attr_key is None:
        return
    a = inputs[0]
    key = (op, a._shape, a._dtype) if len(inputs) == 1 else (op, a._shape, a._dtype, inputs[1]._shape, inputs[1]._dtype)
    try:
        key = key if not attrs else (key, op.attr_key(attrs))
        plans = interp._plans
        if len(plans) >= _INFER_CACHE_LIMIT:
            plans.clear()
        plans[key] = (spec, device, op.elementwise, op.strided)
    except TypeError:  # an unhashable attribute key: nothing to cache
        pass


def _device_mismatch(first: Device, other: Device, position: int) -> None:
    raise RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{first} (positional 0) and {other} (positional {position})!"
    )


def new_output(spec: OutputSpec, device: Device) -> Tensor:
    """A fresh contiguous tensor for one output, its NumPy view cached for the kernel."""
    out = object.__new__(Tensor)
    allocator = ALLOCATORS.get(device._type)
    if allocator is None or spec.dtype is _dt.string:  # meta (and cuda, which fails): the slow road
        # meta stays lazy; a device without an allocator (cuda here) fails now, saying why
        storage = Storage(spec.nbytes, device=device, lazy=device._type == "meta", holds_objects=spec.dtype is _dt.string)
        out._np = out._np_src = None
    else:
        data, array = allocator.allocate_array(spec.nbytes, spec.shape, spec.np_dtype)
        storage = object.__new__(Storage)  # Storage._from_dataptr, inlined: this is the hot path
        storage._nbytes = spec.nbytes
        storage._device = device
        storage._allocator = data.allocator
        storage._data = data
        storage._readonly = False
        storage._holds_objects = False
        storage._version = 0
        out._np = array
        out._np_src = data
    out._storage = storage
    out._offset = 0
    out._shape = spec.shape
    out._stride = spec.stride
    out._dtype = spec.dtype
    out._base = None
    out._requires_grad = False
    out.grad = None
    out.grad_fn = None
    return out


def _output_like_inputs(spec: OutputSpec, inputs: tuple, device: Device) -> Tensor:
    """A fresh output laid out as the inputs are (a transposed input gives a transposed output)."""
    strides = output_strides(spec.shape, [(t._shape, t._stride) for t in inputs])
    if strides == spec.stride:
        return new_output(spec, device)
    order = sorted(range(len(strides)), key=lambda d: -strides[d])  # outermost dim first
    memory = _MEMORY_SPECS.get((spec, strides))
    if memory is None:
        if len(_MEMORY_SPECS) >= 1024:
            _MEMORY_SPECS.clear()
        memory = _MEMORY_SPECS[(spec, strides)] = OutputSpec(tuple(spec.shape[d] for d in order), spec.dtype)
    out = new_output(memory, device)  # contiguous in memory order, then seen in the logical order
    out._shape = spec.shape
    out._stride = strides
    if out._np is not None:
        out._np = out._np.transpose([order.index(d) for d in range(len(order))])
    return out


_MEMORY_SPECS: dict = {}


def _check_outputs(op: OpExpr, specs: tuple, outputs: tuple, device: Device) -> None:
    """In-place and ``out=`` results must have the inferred shape and a dtype it casts to."""
    for spec, out in zip(specs, outputs, strict=True):
        if out._shape != spec.shape:
            raise RuntimeError(
                f"{op.name}(): output with shape {list(out._shape)} doesn't match the broadcast shape {list(spec.shape)}"
            )
        if out._dtype is not spec.dtype and not _dt.can_cast_result(spec.dtype, out._dtype):
            raise RuntimeError(f"{op.name}(): result type {spec.dtype.name} can't be cast to the desired output type {out._dtype.name}")
        if out._storage._device is not device and out._storage._device != device:
            raise RuntimeError(
                f"Expected all tensors to be on the same device, but found at least two devices, {device} (input) and {out.device} (output)!"
            )
        out._check_writable(op.name)


def _bump_versions(outputs: tuple | None) -> None:
    """In-place writes bump their storage's version counter (autograd checks it)."""
    if outputs is not None:
        for out in outputs:
            out._storage._version += 1
        for hook in INPLACE_WRITE_HOOKS:
            hook(outputs)


# ---------------------------------------------------------------------------------------
# the mode: which interpreter this thread dispatches to


EAGER = EagerLocalInterpreter()
# Inferred dtypes depend on the default dtype (int -> float ops): a change empties the cache.
_dt.DEFAULT_DTYPE_LISTENERS.append(EAGER.clear_caches)


_DEFAULT: list[Interpreter] = [EAGER]  # what a thread dispatches to outside any scope
# The default that runs ops: the same as _DEFAULT, except while a recorder is the default
# (TensorFlow 1's implicit graph), when it is what ops that must run now still go to.
_EAGER_DEFAULT: list[Interpreter] = [EAGER]


class _Mode(threading.local):
    def __init__(self) -> None:
        self.interpreter: Interpreter = _DEFAULT[0]


_mode = _Mode()


def set_default_interpreter(interpreter: Interpreter, *, records: bool = False) -> Interpreter:
    """Make ``interpreter`` what every thread dispatches to outside a scope (the autograd
    wrapper around the eager interpreter installs itself so); returns the previous default.
    ``records``: it records ops rather than running them (TensorFlow 1's implicit default graph);
    the eager default stays what ``eager_default_interpreter`` returns."""
    previous = _DEFAULT[0]
    _DEFAULT[0] = interpreter
    if not records:
        _EAGER_DEFAULT[0] = interpreter
    if _mode.interpreter is previous:
        _mode.interpreter = interpreter
    return previous


# Called with the tensors an in-place op or out= wrote (autograd notes where it happened).
INPLACE_WRITE_HOOKS: list = []


def current_interpreter() -> Interpreter:
    """The interpreter that ``dispatch`` uses on this thread now."""
    return _mode.interpreter


def default_interpreter() -> Interpreter:
    """What a thread dispatches to outside any ``interpreter_scope`` (autograd around eager)."""
    return _DEFAULT[0]


def eager_default_interpreter() -> Interpreter:
    """The default that runs ops (autograd around eager), even while a graph records by default."""
    return _EAGER_DEFAULT[0]


def running_eagerly() -> bool:
    """Whether this thread dispatches to the eager default interpreter: no graph is being built
    or traced (a ``no_grad`` block is still eager)."""
    return _mode.interpreter is _EAGER_DEFAULT[0]


@contextlib.contextmanager
def interpreter_scope(interpreter: Interpreter) -> Iterator[Interpreter]:
    """Dispatch to ``interpreter`` inside the block (this thread only), then restore."""
    if not isinstance(interpreter, Interpreter):
        raise TypeError(f"interpreter_scope(): expected an Interpreter, got {type(interpreter).__name__}")
    previous = _mode.interpreter
    _mode.interpreter = interpreter
    try:
        yield interpreter
    finally:
        _mode.interpreter = previous


def dispatch(op: OpExpr, inputs: tuple, attrs: dict = NO_ATTRS, outputs: tuple | None = None) -> tuple:
    """Hand a primitive op to the current interpreter; returns the tuple of outputs."""
    return _mode.interpreter.apply(op, inputs, attrs, outputs)
