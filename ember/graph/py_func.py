"""Python functions as graph nodes: TensorFlow 1's ``py_func`` and ``numpy_function``.

``py_func(func, inp, Tout)`` makes a ``PyFunc`` node: when a Session runs it, ``func`` is
called with its inputs' values as NumPy arrays and its results become the node's outputs, each
checked against the dtype the caller promised (TensorFlow's error when it differs). The outputs'
shapes are unknown, as in TensorFlow; ``set_shape`` gives them one before they are used. The
node is never folded or merged with another (it may have effects), and has no gradient.

>>> import ember, numpy as np
>>> with ember.Graph().as_default() as g:
...     x = ember.graph.placeholder(ember.float32, shape=(3,))
...     y = py_func(lambda a: np.sort(a)[::-1].copy(), [x], ember.float32)
>>> ember.Session(graph=g).run(y, {x: [2.0, 3.0, 1.0]}).tolist()
[3.0, 2.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import tensor
from ..interop.numpy import from_numpy
from .errors import InvalidArgumentError, OutOfRangeError, ResourceExhaustedError, UnimplementedError, UnknownError
from .gradients import register_gradient
from .graph import get_default_graph
from .lazy import LazyInterpreter
from .run.plan import register_graph_kernel
from .sources import constant
from .symbolic import TensorShape
from .tensor import GraphTensor

__all__ = ["numpy_function", "py_func"]

_FUNCS: dict = {}  # token -> function (kept for the process's lifetime, as TensorFlow's registry)

# What a Python exception raised by the function becomes (TensorFlow's mapping); others: UnknownError.
_ERRORS = {ValueError: InvalidArgumentError, TypeError: InvalidArgumentError, StopIteration: OutOfRangeError,
           IndexError: OutOfRangeError, MemoryError: ResourceExhaustedError, NotImplementedError: UnimplementedError}  # fmt: skip


def py_func(func, inp, Tout, stateful: bool = True, name: str | None = None):
    """A node that runs ``func`` on its inputs' NumPy values at each Session run; ``Tout`` is a
    dtype (one output) or a list of dtypes."""
    if not callable(func):
        raise TypeError(f"py_func(): func must be callable, got {type(func).__name__}")
    single = not isinstance(Tout, list | tuple)
    dtypes = [_dt.as_dtype(t, op="py_func", arg="Tout") for t in ([Tout] if single else Tout)]
    graph = get_default_graph()
    recorder = LazyInterpreter(graph)
    inputs = tuple(recorder.capture(t if isinstance(t, GraphTensor) else constant(t)) for t in (inp or ()))
    # The function stays in the process's table under a token, as TensorFlow's: the node's
    # attributes are data (a GraphDef can hold them; passes copy them), not the callable.
    token = f"pyfunc_{len(_FUNCS)}"
    _FUNCS[token] = func
    attrs = {"token": token, "Tin": tuple(t._dtype for t in inputs), "Tout": tuple(dtypes)}
    kind = "PyFunc" if stateful else "PyFuncStateless"
    op = graph.create_op(kind, inputs, attrs, [((), TensorShape(None), d) for d in dtypes], name=name or "PyFunc")
    return op.outputs[0] if single else list(op.outputs)


def numpy_function(func, inp, Tout, stateful: bool = True, name: str | None = None):
    """``py_func`` under TensorFlow 2's name."""
    return py_func(func, inp, Tout, stateful=stateful, name=name or "PyFunc")


def _run(op, inputs) -> tuple:
    args = [t.numpy() if t._dtype is not _dt.string else t._host_array() for t in inputs]
    try:
        results = _FUNCS[op.attrs["token"]](*args)
    except Exception as error:  # the function's own error, raised as TensorFlow raises it from a run
        kind = next((e for cls, e in _ERRORS.items() if isinstance(error, cls)), UnknownError)
        raise kind(None, op, f"{type(error).__name__}: {error}\n\t [[{{{{node {op.name}}}}}]]") from error
    dtypes = op.attrs["Tout"]
    if not isinstance(results, list | tuple):
        results = [results]
    if len(results) != len(dtypes):
        raise InvalidArgumentError(None, op, f"pyfunc returned {len(results)} values, but expects {len(dtypes)}")
    out = []
    for i, (value, dtype) in enumerate(zip(results, dtypes, strict=True)):
        array = np.asarray(value, dtype=object) if dtype is _dt.string else np.asarray(value)
        if dtype is not _dt.string and array.dtype != dtype.numpy_dtype:
            got = _dt.as_dtype(array.dtype).name if array.dtype.kind in "biufcb" else str(array.dtype)
            token = op.attrs["token"]
            raise InvalidArgumentError(
                None, op, f"{i}-th value returned by {token} is {_tf_name(got)}, but expects {_tf_name(dtype.name)}"
            )
        if dtype is _dt.string:
            out.append(tensor(array, dtype=_dt.string))
        else:
            out.append(from_numpy(np.ascontiguousarray(array) if array.flags.writeable else array.copy()))
    return tuple(out)


def _tf_name(name: str) -> str:
    return {"float64": "double", "float32": "float", "float16": "half"}.get(name, name)


def _no_gradient(op, grads, needs):
    raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})")


register_graph_kernel("PyFunc", _run)
register_graph_kernel("PyFuncStateless", _run)
register_gradient("PyFunc")(_no_gradient)
register_gradient("PyFuncStateless")(_no_gradient)
