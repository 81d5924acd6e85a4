"""Graph-only ops that pass values through or check them when the graph runs: ``stop_gradient``,
``tuple``, ``Print`` and ``print``, ``Assert`` and the ``assert_*`` checks.

Each is a node of TensorFlow's type (``StopGradient``, ``Print``, ``PrintV2``, ``Assert``) run by an
executor registered on the plans; ``Print`` and ``StopGradient`` return their input's value. A
failed ``Assert`` raises ``InvalidArgumentError`` (a ``ValueError``) with TensorFlow's message.
Tensors are printed TensorFlow's way: ``Print`` and ``Assert`` the first ``summarize`` elements
(``[1 2 3...]``), ``print`` the first and last ``summarize`` of each dimension.
"""

from __future__ import annotations

import sys
import weakref

import numpy as np

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ..ops import functional as F
from .errors import InvalidArgumentError
from .gradients import register_gradient
from .graph import Operation, get_default_graph
from .run.plan import register_executor
from .sources import constant, group, identity
from .tensor import GraphTensor

__all__ = [
    "Assert",
    "Print",
    "assert_equal",
    "assert_greater",
    "assert_greater_equal",
    "assert_less",
    "assert_less_equal",
    "assert_negative",
    "assert_non_negative",
    "assert_non_positive",
    "assert_none_equal",
    "assert_positive",
    "print_v2",
    "stop_gradient",
    "tuple_",
]


def _tensor(value) -> GraphTensor:
    graph = get_default_graph()
    if isinstance(value, Tensor):
        return graph._make_interpreter().capture(value)
    return constant(value)


def _template(data) -> tuple:
    """The data as (strings kept as text, tensors as input positions) and the tensors."""
    template, tensors = [], []
    for d in data:
        if isinstance(d, (str, bytes)):
            template.append(d if isinstance(d, str) else d.decode())
        else:
            template.append(len(tensors))
            tensors.append(_tensor(d))
    return tuple(template), tensors


# -- stop_gradient and tuple ----------------------------------------------------------------------------


def stop_gradient(input, name: str | None = None):  # noqa: A002 - TensorFlow's name
    """``input``'s value; gradients treat it as a constant.

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     x = ember.placeholder(ember.float32, shape=())
    ...     (dx,) = ember.gradients(x * stop_gradient(x), [x])
    >>> float(ember.Session(graph=g).run(dx, {x: 3.0}))
    3.0
    """
    x = _tensor(input)
    op = get_default_graph().create_op(
        "StopGradient", (x,), {"T": x._dtype}, [(x._shape, x._static, x._dtype)], name=name or "StopGradient"
    )
    return op.outputs[0]


def tuple_(tensors, control_inputs=None, name: str | None = None) -> list:
    """The tensors (None stays None), each available only after all of them are computed (and
    ``control_inputs`` have run): TensorFlow's ``tf.tuple``."""
    graph = get_default_graph()
    with graph.name_scope(name or "tuple"):
        present = [t for t in tensors if t is not None]
        gate = group(*present, *(control_inputs or ()))
        with graph.control_dependencies([gate]):
            return [None if t is None else identity(t, name="control_dependency") for t in tensors]


# -- printing ---------------------------------------------------------------------------------------------


def _number(v) -> str:
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode(errors="replace")
    if isinstance(v, (float, np.floating)):
        return f"{v:g}"
    if isinstance(v, (bool, np.bool_)):
        return "1" if v else "0"
    return str(v)


def summarize(array: np.ndarray, n: int) -> str:
    """TensorFlow's ``SummarizeValue``: the first ``n`` elements (all when ``n`` < 0), the
    dimensions after the first in brackets, ``...`` where it stops."""
    flat = array.reshape(-1)
    if array.ndim == 0:
        return _number(flat[0])
    limit = flat.size if n < 0 else min(n, flat.size)
    out: list = []
    position = [0]

    def dim(d: int) -> None:
        if d == array.ndim - 1:
            for i in range(array.shape[d]):
                if position[0] >= limit:
                    out.append("...")
                    return
                out.append((" " if i else "") + _number(flat[position[0]]))
                position[0] += 1
            return
        for _ in range(array.shape[d]):
            opened = position[0] < limit
            if opened:
                out.append("[")
            dim(d + 1)
            if opened:
                out.append("]")

    dim(0)
    if limit < flat.size and array.ndim > 1:
        out.append("...")
    return "".join(out)


def _format_numpy(array: np.ndarray, n: int) -> str:
    """``tf.print``'s format: the first and last ``n`` of each dimension, numbers as ``%g``."""
    if array.ndim == 0:
        return _number(array[()])
    return np.array2string(
        array, separator=" ", threshold=max(2 * n, 1) if n >= 0 else sys.maxsize, edgeitems=max(n, 1), formatter={"all": _number}
    )


def Print(
    input_, data, message: str | None = None, first_n: int | None = None, summarize: int | None = None, name: str | None = None
):
    """``input_``'s value; when it is computed, ``message`` and ``data`` are printed to stderr."""
    x = _tensor(input_)
    template, tensors = _template(data or [])
    attrs = {
        "T": x._dtype,
        "message": message or "",
        "first_n": -1 if first_n is None else int(first_n),
        "summarize": 3 if summarize is None else int(summarize),
        "template": template,
    }
    op = get_default_graph().create_op("Print", (x, *tensors), attrs, [(x._shape, x._static, x._dtype)], name=name or "Print")
    return op.outputs[0]


_STREAMS = ("stderr", "stdout")


def print_v2(
    *inputs, output_stream=sys.stderr, summarize: int = 3, sep: str = " ", end: str = "\n", name: str | None = None
) -> Operation:
    """TensorFlow 2's ``tf.print`` in a graph: a ``PrintV2`` operation that prints the inputs when it
    runs (fetch it, or make it a control dependency)."""
    stream = "stdout" if output_stream is sys.stdout else "stderr" if output_stream is sys.stderr else output_stream
    if stream not in _STREAMS:
        raise ValueError(
            f"Unsupported output stream, logging level, or file.{output_stream}. Supported streams are sys.stdout, sys.stderr"
        )
    template, tensors = _template(inputs)
    attrs = {"output_stream": stream, "summarize": int(summarize), "sep": sep, "end": end, "template": template}
    return get_default_graph().create_op("PrintV2", tuple(tensors), attrs, [], name=name or "PrintV2")


_PRINTED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # session -> {print node name: times printed}


def _run_print(step, values: list, session) -> None:
    op = step.op
    attrs = op.attrs
    counts = _PRINTED.setdefault(session, {}) if attrs["first_n"] >= 0 else None
    if counts is None or counts.get(op.name, 0) < attrs["first_n"]:
        if counts is not None:
            counts[op.name] = counts.get(op.name, 0) + 1
        parts = [
            d if isinstance(d, str) else summarize(values[step.ins[1 + d]]._host_array(), attrs["summarize"])
            for d in attrs["template"]
        ]
        sys.stderr.write(attrs["message"] + "".join(f"[{p}]" for p in parts) + "\n")
    values[step.outs[0]] = values[step.ins[0]]


def _run_print_v2(step, values: list, session) -> None:
    attrs = step.op.attrs
    parts = [
        d if isinstance(d, str) else _format_numpy(values[step.ins[d]]._host_array(), attrs["summarize"])
        for d in attrs["template"]
    ]
    stream = sys.stdout if attrs["output_stream"] == "stdout" else sys.stderr
    stream.write(attrs["sep"].join(parts) + attrs["end"])


def _run_pass_through(step, values: list, session) -> None:
    values[step.outs[0]] = values[step.ins[0]]


# -- assertions -----------------------------------------------------------------------------------------------


def Assert(condition, data, summarize: int | None = None, name: str | None = None) -> Operation:
    """An operation that raises ``InvalidArgumentError`` when it runs and ``condition`` is false,
    with ``data`` in the message."""
    graph = get_default_graph()
    with graph.name_scope(name or "Assert"):
        c = _tensor(condition)
        if c._dtype is not _dt.bool_ or c._static.rank not in (None, 0):
            raise ValueError(
                f"Assert(): condition must be a scalar bool tensor, got {c.name} of dtype {c._dtype.name} and shape {c._static}"
            )
        template, tensors = _template(data)
        attrs = {"summarize": 3 if summarize is None else int(summarize), "template": template}
        return graph.create_op("Assert", (c, *tensors), attrs, [], name="Assert")


def _run_assert(step, values: list, session) -> None:
    if bool(values[step.ins[0]]._host_array()):
        return
    attrs = step.op.attrs
    parts = [
        d if isinstance(d, str) else summarize(values[step.ins[1 + d]]._host_array(), attrs["summarize"])
        for d in attrs["template"]
    ]
    raise InvalidArgumentError(
        None, step.op, "assertion failed: " + " ".join(f"[{p}]" for p in parts) + f"\n\t [[node {step.op.name}]]"
    )


def _check(name: str, test, x, y, relation: str, message, summarize, default_name: str) -> Operation:
    graph = get_default_graph()
    with graph.name_scope(name or default_name):
        x = _tensor(x)
        y = None if y is None else _tensor(y)
        holds = F.all(test(x) if y is None else test(x, y))
        data = ([message] if message else []) + [f"Condition {relation} did not hold element-wise:", f"x ({x.name}) = ", x]
        if y is not None:
            data += [f"y ({y.name}) = ", y]
        return Assert(holds, data, summarize=summarize)


def _binary(relation: str, test, default_name: str):
    def check(x, y, data=None, summarize=None, message=None, name=None) -> Operation:
        return _check(name, test, x, y, relation, message, summarize, default_name)

    check.__name__ = default_name
    check.__doc__ = (
        f"An ``Assert`` that ``{relation}`` holds element-wise when the graph runs (TensorFlow's ``tf.{default_name}``)."
    )
    return check


def _unary(relation: str, test, default_name: str):
    def check(x, data=None, summarize=None, message=None, name=None) -> Operation:
        return _check(name, test, x, None, relation, message, summarize, default_name)

    check.__name__ = default_name
    check.__doc__ = (
        f"An ``Assert`` that ``{relation}`` holds element-wise when the graph runs (TensorFlow's ``tf.{default_name}``)."
    )
    return check


assert_equal = _binary("x == y", F.eq, "assert_equal")
assert_none_equal = _binary("x != y", F.ne, "assert_none_equal")
assert_less = _binary("x < y", F.lt, "assert_less")
assert_less_equal = _binary("x <= y", F.le, "assert_less_equal")
assert_greater = _binary("x > y", F.gt, "assert_greater")
assert_greater_equal = _binary("x >= y", F.ge, "assert_greater_equal")
assert_positive = _unary("x > 0", lambda x: F.gt(x, 0), "assert_positive")
assert_negative = _unary("x < 0", lambda x: F.lt(x, 0), "assert_negative")
assert_non_negative = _unary("x >= 0", lambda x: F.ge(x, 0), "assert_non_negative")
assert_non_positive = _unary("x <= 0", lambda x: F.le(x, 0), "assert_non_positive")


def assert_at_most_one_true(preds: list, name: str) -> Operation:
    """An ``Assert`` that at most one of the bool scalars ``preds`` holds (``case(exclusive=True)``)."""
    graph = get_default_graph()
    with graph.name_scope("exclusive"):
        count = F.sum(F.stack([_tensor(p).to(_dt.int32) for p in preds]))
        return Assert(
            F.le(count, 1), [f"Input error: exclusive=True in {name}: more than 1 conditions were true: ", F.stack(list(preds))]
        )


register_executor("StopGradient", _run_pass_through)
register_executor("Print", _run_print)
register_executor("PrintV2", _run_print_v2)
register_executor("Assert", _run_assert)


@register_gradient("StopGradient")
def _stop_gradient_grad(op, grads, needs):
    return (None,)


@register_gradient("Print")
def _print_grad(op, grads, needs):
    return (grads[0],) + (None,) * (len(op.inputs) - 1)
