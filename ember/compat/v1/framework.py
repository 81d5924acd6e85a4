"""TensorFlow 1's graph framework: its Graph, tensors with TensorFlow's operators, constants,
conversion, name scopes and the eager switch.

A graph made here (``tf.Graph()``, or the implicit default graph after
``disable_eager_execution()``) is an ember ``Graph`` whose tensors are ``Tensor``: a graph
tensor whose Python operators follow TensorFlow rather than PyTorch. A Python number used as an
operand becomes a ``Const`` node of the other operand's dtype (``mul/y``), operands of two
dtypes are refused instead of promoted, ``/`` on integers is true division in float64 (float32
for 8- and 16-bit integers), ``==`` is identity (TensorFlow 1's graph tensors compare and hash
as objects; ``tf.equal`` compares values), and each operator's node is named as TensorFlow's
wrapper names it (``add``, ``truediv``, ``strided_slice``).

Naming: a TensorFlow function called with ``name="loss"`` makes its nodes inside the name
scope ``loss/`` and names its result node ``loss`` exactly; :func:`op_scope` does that for
every function of this namespace.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Iterator

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import Tensor as _EmberTensor
from ...graph import graph as _graph, symbolic as _symbolic
from ...graph.sources import constant as _graph_constant
from ...graph.tensor import GraphTensor, ember_operators, ember_operators_active
from ...ops import functional as F

__all__ = [
    "EagerTensor", "Graph", "TFOperators", "Tensor", "constant", "convert_to_tensor", "device", "disable_eager_execution", "disable_v2_behavior",
    "enable_eager_execution", "enable_v2_behavior", "executing_eagerly", "infer_dtype", "name_scope", "op_scope", "reset_default_graph", "shape_text", "v2_behavior",
]  # fmt: skip


# -- naming ----------------------------------------------------------------------------------


@contextlib.contextmanager
def op_scope(name: str | None, default: str, values=()) -> Iterator[_Scope]:
    """The name scope of one TensorFlow function: ``name`` (or ``default``) made unique; the
    result handed to ``scope.out(...)`` is renamed to the scope's own name ("loss", not
    "loss/Mean"), as TensorFlow names a function's result node. As in TensorFlow, the ops are
    made in the graph of the graph tensors among ``values`` (else the default graph)."""
    # Inside a graph scope the ops go to the default graph (a branch's function graph captures
    # outer tensors); outside one, to the graph of the inputs, as TensorFlow's name_scope(values).
    graph = None if _graph.in_graph_scope() else next((v.graph for v in values if isinstance(v, GraphTensor)), None)
    if graph is None:
        graph = _graph.get_default_graph()
        with graph.name_scope(name or default) as scope, ember_operators():
            yield _Scope(graph, scope, len(graph._ops))
        return
    with graph.as_default(), graph.name_scope(name or default) as scope, ember_operators():
        yield _Scope(graph, scope, len(graph._ops))


class _Scope:
    __slots__ = ("first", "graph", "name")

    def __init__(self, graph, name: str, first: int) -> None:
        self.graph = graph
        self.name = name  # "add_1/"
        self.first = first  # operations from this index on were made inside the scope

    def out(self, t, op_type: str | None = None):
        """``t`` with its node renamed to the scope's name (when made inside it); ``op_type``
        sets the node's TensorFlow type where its primitive alone does not say it (Conv2D)."""
        op = getattr(t, "_op", None)
        if op is not None and op.graph is self.graph and op._id >= self.first:
            if op_type is not None:
                op._tf_type = op_type
            target = self.name[:-1]
            if op.name != target and target not in self.graph._by_name:
                self.graph._rename(op, target)
        return t


# -- conversion ------------------------------------------------------------------------------


def infer_dtype(value) -> _dt.DType:
    """TensorFlow's dtype of a Python or NumPy value: float32 for Python floats, int32 for
    Python ints that fit (int64 otherwise), NumPy values keep theirs."""
    if isinstance(value, np.ndarray | np.generic):
        if value.dtype.kind in "OSU":
            return _dt.string
        return _dt.as_dtype(value.dtype, op="constant", arg="value")
    flat = list(_flatten(value))
    if not flat:
        return _dt.float32
    if any(isinstance(v, str | bytes) for v in flat):
        return _dt.string
    if all(isinstance(v, bool | np.bool_) for v in flat):
        return _dt.bool_
    if any(isinstance(v, complex) for v in flat):
        return _dt.complex128
    if any(isinstance(v, float | np.floating) for v in flat):
        return _dt.float32
    if all(isinstance(v, numbers.Integral) for v in flat):
        return _dt.int32 if all(-(2**31) <= int(v) < 2**31 for v in flat) else _dt.int64
    raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a supported type.")


def _flatten(value):
    if isinstance(value, list | tuple):
        for v in value:
            yield from _flatten(v)
    elif isinstance(value, np.ndarray):
        yield from value.ravel().tolist()
    else:
        yield value


def _check_compatible(value, dtype: _dt.DType) -> None:
    """TensorFlow's refusal to convert a Python value to a dtype of another kind (2.5 to int32)."""
    for v in _flatten(value):
        if isinstance(v, np.generic):
            v = v.item()
        ok = (
            (dtype is _dt.bool_ and isinstance(v, bool))
            or (dtype is _dt.string and isinstance(v, str | bytes))
            or (dtype.is_complex and isinstance(v, numbers.Number) and not isinstance(v, bool))
            or (dtype.is_floating_point and isinstance(v, numbers.Real) and not isinstance(v, bool))
            or (
                dtype not in (_dt.bool_, _dt.string)
                and not dtype.is_floating_point
                and not dtype.is_complex
                and isinstance(v, numbers.Integral)
                and not isinstance(v, bool)
            )
        )
        if not ok:
            raise TypeError(f"Expected {dtype.name}, but got {v!r} of type '{type(v).__name__}'.")


def constant(value, dtype=None, shape=None, name: str = "Const", verify_shape: bool = False):
    """A ``Const`` node holding ``value`` (TensorFlow's dtypes: a Python float is float32, an
    int int32); ``shape`` fills a scalar or reshapes a value with as many elements.

    >>> import ember.compat.v1 as tf
    >>> with tf.Graph().as_default():
    ...     tf.constant(3), tf.constant([1.5, 2.0], name="pair")
    (<tf.Tensor 'Const:0' shape=() dtype=int32>, <tf.Tensor 'pair:0' shape=(2,) dtype=float32>)
    """
    if isinstance(value, GraphTensor):
        raise TypeError(f"constant(): the value must be a Python/NumPy value, not the graph tensor {value.name}")
    if isinstance(value, _EmberTensor):
        value = value.numpy()
    if dtype is not None:
        dtype = _dt.as_dtype(dtype, op="constant", arg="dtype")
        if not isinstance(value, np.ndarray | np.generic):
            _check_compatible(value, dtype)
    else:
        dtype = infer_dtype(value)
    if verify_shape and shape is not None and tuple(np.shape(value)) != tuple(shape):
        raise TypeError(f"Expected Tensor's shape: {tuple(shape)}, got {tuple(np.shape(value))}.")
    out = _graph_constant(value, dtype=dtype, shape=shape, name=name)
    return out if isinstance(out, GraphTensor) else EagerTensor._wrap(out)


def convert_to_tensor(value, dtype=None, name: str | None = None, preferred_dtype=None, dtype_hint=None):
    """``value`` as a tensor of the default graph: a graph tensor as it is (its dtype checked
    against ``dtype``), anything else as a ``Const`` node (``dtype_hint`` is tried first)."""
    dtype = None if dtype is None else _dt.as_dtype(dtype, op="convert_to_tensor", arg="dtype")
    if isinstance(value, GraphTensor):
        if dtype is not None and value._dtype is not dtype:
            raise ValueError(
                f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype {value._dtype.name}: {value!r}"
            )
        return value
    hint = dtype_hint if dtype_hint is not None else preferred_dtype
    if dtype is None and hint is not None:
        hint = _dt.as_dtype(hint, op="convert_to_tensor", arg="dtype_hint")
        try:
            _check_compatible(value, hint)
            dtype = hint
        except TypeError:
            pass
    return constant(value, dtype=dtype, name=name or "Const")


# -- the tensor with TensorFlow's operators -------------------------------------------------

_V2_BEHAVIOR = [True]  # TensorFlow 2's compat.v1 prints (None, 3); after disable_v2_behavior, (?, 3)


def v2_behavior() -> bool:
    """Whether TensorFlow 2's printing is on (off after ``disable_v2_behavior()``)."""
    return _V2_BEHAVIOR[0]


def shape_text(shape) -> str:
    """A static shape as TensorFlow prints it: ``(None, 3)``, or TensorFlow 1's ``(?, 3)`` after
    ``disable_v2_behavior()``; ``<unknown>`` for an unknown rank."""
    return str(shape)


def _is_int(dtype: _dt.DType) -> bool:
    return dtype not in (_dt.bool_, _dt.string) and not dtype.is_floating_point and not dtype.is_complex


def _truediv(x, y, scope):
    """TensorFlow's ``/``: integers are cast to float first (float32 for 8/16-bit, else float64)."""
    if _is_int(x._dtype):
        to = _dt.float32 if x._dtype.itemsize <= 2 else _dt.float64
        x, y = _cast(x, to), _cast(y, to)
    return F.div(x, y)


def _cast(x, dtype):
    with op_scope(None, "Cast", (x,)) as scope:
        return scope.out(x.to(dtype), "Cast")


def _and(x, y, scope):
    return F.logical_and(x, y) if x._dtype is _dt.bool_ else F.bitwise_and(x, y)


def _or(x, y, scope):
    return F.logical_or(x, y) if x._dtype is _dt.bool_ else F.bitwise_or(x, y)


def _xor(x, y, scope):
    return F.logical_xor(x, y) if x._dtype is _dt.bool_ else F.bitwise_xor(x, y)


_OPERATORS_EMBER = ember_operators_active

_BINARY = {  # dunder -> (TensorFlow's node name, TensorFlow's op type, the computation)
    "add": ("add", "AddV2", lambda x, y, s: F.add(x, y)),
    "sub": ("sub", "Sub", lambda x, y, s: F.sub(x, y)),
    "mul": ("mul", "Mul", lambda x, y, s: F.mul(x, y)),
    "truediv": ("truediv", "RealDiv", _truediv),
    "floordiv": ("floordiv", "FloorDiv", lambda x, y, s: F.floor_divide(x, y)),
    "mod": ("mod", "FloorMod", lambda x, y, s: F.remainder(x, y)),
    "pow": ("pow", "Pow", lambda x, y, s: F.pow(x, y)),
    "matmul": ("matmul", "MatMul", lambda x, y, s: F.matmul(x, y)),
    "and": ("and", "LogicalAnd", _and),
    "or": ("or", "LogicalOr", _or),
    "xor": ("xor", "LogicalXor", _xor),
    "lt": ("Less", "Less", lambda x, y, s: F.lt(x, y)),
    "le": ("LessEqual", "LessEqual", lambda x, y, s: F.le(x, y)),
    "gt": ("Greater", "Greater", lambda x, y, s: F.gt(x, y)),
    "ge": ("GreaterEqual", "GreaterEqual", lambda x, y, s: F.ge(x, y)),
}


def binary_op(kind: str, x, y, reverse: bool = False, name: str | None = None):
    """TensorFlow's operator ``kind`` of ``x`` and ``y`` (``reverse``: ``y`` is the tensor and
    ``x`` the other operand, as in ``2.0 * t``)."""
    node_name, op_type, compute = _BINARY[kind]
    tensor, other = (y, x) if reverse else (x, y)
    if not isinstance(other, _EmberTensor) and tensor._dtype is not _dt.string:
        try:
            _check_compatible(other, tensor._dtype)
        except TypeError as error:
            arg = "x" if reverse else "y"
            raise TypeError(
                f"Expected {tensor._dtype.name} passed to parameter '{arg}' of op '{op_type}', got {other!r} of type "
                f"'{type(other).__name__}' instead. Error: {error}"
            ) from None
    if not _graph.in_graph_scope() and not isinstance(x, GraphTensor) and not isinstance(y, GraphTensor):
        return _eager_binary(compute, x, y, reverse, op_type)
    with op_scope(name, node_name, (x, y)) as scope:
        if reverse:
            x = convert_to_tensor(x, dtype_hint=y._dtype, name="x")
        else:
            y = convert_to_tensor(y, dtype_hint=x._dtype, name="y")
        if x._dtype is not y._dtype:
            raise TypeError(
                f"Input 'y' of '{op_type}' Op has type {y._dtype.name} that does not match type {x._dtype.name} of argument 'x'."
            )
        return scope.out(compute(x, y, scope))


def _eager_binary(compute, x, y, reverse: bool, op_type: str):
    """An operator of eager tensors (TensorFlow 2's eager mode): the same rules, computed now."""
    if reverse:
        x = constant(x, dtype=y._dtype)
    else:
        y = constant(y, dtype=x._dtype) if not isinstance(y, _EmberTensor) else y
    if x._dtype is not y._dtype:
        raise TypeError(
            f"Input 'y' of '{op_type}' Op has type {y._dtype.name} that does not match type {x._dtype.name} of argument 'x'."
        )
    return EagerTensor._wrap(compute(x, y, None))


def _dunder(kind: str, reverse: bool = False):
    ember_method = getattr(_EmberTensor, f"__{'r' if reverse else ''}{kind}__")

    def method(self, other):
        if _OPERATORS_EMBER():  # inside ember's own code: ember's operators
            return ember_method(self, other)
        if isinstance(other, _EmberTensor) and not isinstance(other, GraphTensor) and isinstance(self, GraphTensor):
            other = other.numpy()
        return binary_op(kind, other, self, reverse=True) if reverse else binary_op(kind, self, other)

    method.__name__ = f"__{'r' if reverse else ''}{kind}__"
    method.__doc__ = f"TensorFlow's ``{kind}`` operator (a Python operand becomes a Const node)."
    return method


def _unary(node_name: str, compute):
    def method(self):
        if _OPERATORS_EMBER():
            return compute(self)
        if not isinstance(self, GraphTensor):
            return EagerTensor._wrap(compute(self))
        with op_scope(None, node_name, (self,)) as scope:
            return scope.out(compute(self))

    method.__name__ = f"__{node_name.lower()}__"
    return method


class TFOperators:
    """TensorFlow 1's Python operators for a graph tensor (mixed into compat's tensor classes)."""

    __slots__ = ()

    __add__, __radd__ = _dunder("add"), _dunder("add", True)
    __sub__, __rsub__ = _dunder("sub"), _dunder("sub", True)
    __mul__, __rmul__ = _dunder("mul"), _dunder("mul", True)
    __truediv__, __rtruediv__ = _dunder("truediv"), _dunder("truediv", True)
    __floordiv__, __rfloordiv__ = _dunder("floordiv"), _dunder("floordiv", True)
    __mod__, __rmod__ = _dunder("mod"), _dunder("mod", True)
    __pow__, __rpow__ = _dunder("pow"), _dunder("pow", True)
    __matmul__, __rmatmul__ = _dunder("matmul"), _dunder("matmul", True)
    __and__, __rand__ = _dunder("and"), _dunder("and", True)
    __or__, __ror__ = _dunder("or"), _dunder("or", True)
    __xor__, __rxor__ = _dunder("xor"), _dunder("xor", True)
    __lt__, __le__ = _dunder("lt"), _dunder("le")
    __gt__, __ge__ = _dunder("gt"), _dunder("ge")
    __neg__ = _unary("Neg", F.neg)
    __abs__ = _unary("Abs", F.abs)

    def __invert__(self):
        if _OPERATORS_EMBER():
            return _EmberTensor.__invert__(self)
        if not isinstance(self, GraphTensor):
            return EagerTensor._wrap(F.logical_not(self) if self._dtype is _dt.bool_ else F.bitwise_not(self))
        with op_scope(None, "LogicalNot" if self._dtype is _dt.bool_ else "Invert", (self,)) as scope:
            return scope.out(F.logical_not(self) if self._dtype is _dt.bool_ else F.bitwise_not(self))

    def __getitem__(self, index):
        if _OPERATORS_EMBER():
            return _EmberTensor.__getitem__(self, index)
        if not isinstance(self, GraphTensor):
            return EagerTensor._wrap(_EmberTensor.__getitem__(self, index))
        with op_scope(None, "strided_slice", (self,)) as scope:
            return scope.out(_EmberTensor.__getitem__(self, index), "StridedSlice")

    # TensorFlow 1's graph tensors are compared and hashed as objects (tf.equal compares values)
    def __eq__(self, other):
        return _EmberTensor.__eq__(self, other) if _OPERATORS_EMBER() else self is other

    def __ne__(self, other):
        return _EmberTensor.__ne__(self, other) if _OPERATORS_EMBER() else self is not other

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={shape_text(self._static)} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        static = self._static
        shape = "" if static.rank is None else f", shape={shape_text(static)}"
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'


class Tensor(TFOperators, GraphTensor):
    """A tensor of a TensorFlow 1 graph (``tf.Tensor``): an ember graph tensor with TensorFlow's
    operators."""

    __slots__ = ()


class EagerTensor(TFOperators, _EmberTensor):
    """A tensor of TensorFlow 2's eager mode (what ``tf.constant`` gives outside a graph): an ember
    tensor with TensorFlow's operators and printing (``==`` compares values, as TensorFlow 2's)."""

    __slots__ = ()

    @classmethod
    def _wrap(cls, t) -> EagerTensor:
        """``t`` (an ember tensor) seen as an EagerTensor: the same storage and view."""
        if type(t) is cls or not isinstance(t, _EmberTensor):
            return t
        out = object.__new__(cls)
        for slot in _EmberTensor.__slots__:
            if slot != "__weakref__" and hasattr(t, slot):
                object.__setattr__(out, slot, getattr(t, slot))
        return out

    def __eq__(self, other):
        if _OPERATORS_EMBER():
            return _EmberTensor.__eq__(self, other)
        return EagerTensor._wrap(F.eq(self, constant(other, dtype=self._dtype) if not isinstance(other, _EmberTensor) else other))

    def __ne__(self, other):
        if _OPERATORS_EMBER():
            return _EmberTensor.__ne__(self, other)
        return EagerTensor._wrap(F.ne(self, constant(other, dtype=self._dtype) if not isinstance(other, _EmberTensor) else other))

    __hash__ = object.__hash__

    def _value(self) -> np.ndarray:
        value = self.numpy()
        if self._dtype is _dt.string:  # TensorFlow's strings are bytes
            value = np.vectorize(lambda v: v.encode() if isinstance(v, str) else v, otypes=[object])(value)
        return value

    def __repr__(self) -> str:
        value = self._value()
        text = str(value) if value.ndim == 0 else repr(value)  # a 0-d value prints as the number: numpy=5
        return f"<tf.Tensor: shape={shape_text_of(self._shape)}, dtype={self._dtype.name}, numpy={text}>"

    def __str__(self) -> str:
        return f"tf.Tensor({self._value()}, shape={shape_text_of(self._shape)}, dtype={self._dtype.name})"


def shape_text_of(shape: tuple) -> str:
    return f"({shape[0]},)" if len(shape) == 1 else f"({', '.join(str(d) for d in shape)})"


class Graph(_graph.Graph):
    """``tf.Graph``: an ember graph whose tensors have TensorFlow's operators."""

    tensor_class = Tensor


# -- the eager switch --------------------------------------------------------------------------


def disable_eager_execution() -> None:
    """TensorFlow 1's mode: ops made outside any ``Graph.as_default()`` block become nodes of the
    default graph (a ``tf.Graph``), run by a ``Session``."""
    _graph.set_implicit_default_graph(True, graph_class=Graph)


def enable_eager_execution(config=None, device_policy=None, execution_mode=None) -> None:
    """Ops run eagerly again outside graph blocks (ember's own default)."""
    _graph.set_implicit_default_graph(False)


def disable_v2_behavior() -> None:
    """TensorFlow 1's behaviour: the implicit default graph (``disable_eager_execution``), and
    TensorFlow 1's printing of shapes (``(?, 3)``) and reference variables (``float32_ref``)."""
    _V2_BEHAVIOR[0] = False
    _symbolic.UNKNOWN_SIZE_TEXT[0] = "?"
    disable_eager_execution()


def enable_v2_behavior() -> None:
    _V2_BEHAVIOR[0] = True
    _symbolic.UNKNOWN_SIZE_TEXT[0] = "None"
    enable_eager_execution()


def executing_eagerly() -> bool:
    """Whether ops run now (False inside a graph block or with the implicit default graph)."""
    return not _graph.in_graph_scope()


def reset_default_graph() -> None:
    """A fresh default graph (a ``tf.Graph`` while the implicit default graph is on)."""
    _graph.reset_default_graph()


def name_scope(name, default_name=None, values=None):
    """TensorFlow 1's ``tf.name_scope(name, default_name=None, values=None)``: the scope
    ``name`` (or ``default_name`` when ``name`` is None), made unique; yields "scope/"."""
    if name is None and default_name is None:
        return _graph.get_default_graph().name_scope(None)
    return _graph.get_default_graph().name_scope(name if name is not None else default_name)


def device(device_name):
    """``tf.device``: the device of ops made in the block, recorded on each node (ember runs
    every node on its CPU device; the name is kept for the GraphDef)."""
    return _graph.get_default_graph().device(device_name)
