"""The backward graph: one node per recorded op, one ``AccumulateGrad`` per leaf.

A node's ``next_functions`` are ``(node, output_nr)`` pairs, one per input of the op it
undoes: the input's own ``grad_fn`` (and which of its outputs the input was), the leaf's
``AccumulateGrad``, or ``(None, 0)`` for an input that needs no gradient — the shape of
PyTorch's graph, so it reads the same:

>>> import ember
>>> x = ember.ones(2, requires_grad=True)
>>> y = (x * 2).relu()
>>> y.grad_fn
<ReluBackward0>
>>> y.grad_fn.next_functions
((<MulBackward0>, 0),)
>>> y.grad_fn.next_functions[0][0].next_functions
((<AccumulateGrad>, 0),)
>>> [tuple(t.shape) for t in y.grad_fn.saved_tensors]  # relu keeps its output
[(2,)]
"""

from __future__ import annotations

import itertools
import weakref

from .._core.tensor import Tensor

__all__ = ["AccumulateGrad", "Node", "OpNode", "accumulate_grad_node", "backward_name"]

_SEQUENCE = itertools.count()

FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have already "
    "been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). "
    "Specify retain_graph=True if you need to backward through the graph a second time or if you need to access "
    "saved tensors after calling backward."
)


class Node:
    """A function of the backward graph: gradients of its outputs in, of its inputs out."""

    __slots__ = ("__weakref__", "_post_hooks", "_pre_hooks", "next_functions", "sequence_nr")

    def __init__(self, next_functions: tuple = ()) -> None:
        self.next_functions = next_functions
        self.sequence_nr = next(_SEQUENCE)  # later nodes run first, as in PyTorch's engine
        self._pre_hooks = self._post_hooks = ()  # lists once a hook is registered: most nodes never get one

    def name(self) -> str:
        return type(self).__name__

    def apply(self, grads: tuple) -> tuple:
        raise NotImplementedError

    def register_hook(self, hook):
        """``hook(grad_inputs, grad_outputs)`` after the node runs; may return new grad_inputs."""
        if not self._post_hooks:
            self._post_hooks = []
        self._post_hooks.append(hook)
        return _Handle(self._post_hooks, hook)

    def register_prehook(self, hook):
        """``hook(grad_outputs)`` before the node runs; may return new grad_outputs."""
        if not self._pre_hooks:
            self._pre_hooks = []
        self._pre_hooks.append(hook)
        return _Handle(self._pre_hooks, hook)

    def __repr__(self) -> str:
        return f"<{self.name()}>"


class _Handle:
    """What ``register_hook`` returns: ``.remove()`` takes the hook away again."""

    def __init__(self, hooks: list, hook) -> None:
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def backward_name(op_name: str) -> str:
    """``relu`` -> ``ReluBackward0``; a scalar form is the same function (``MulBackward0``), and so is
    cross entropy that keeps its probabilities (``CrossEntropyBackward0``)."""
    name = _NAMES.get(op_name)
    if name is None:
        base = op_name.removesuffix("_scalar").removesuffix("_with_probs").strip("_")  # an op's variants share its name
        name = _NAMES[op_name] = "".join(part.capitalize() for part in base.split("_")) + "Backward0"
    return name


_NAMES: dict[str, str] = {}


def save_tensor(tensor: Tensor) -> tuple:
    """A tensor an op's derivative needs, with the version it had when saved: a plain
    ``(tensor, version)`` pair (an object per saved tensor cost 90 ns more on every recorded op)."""
    return (tensor, tensor._storage._version)


class OpNode(Node):
    """The backward of one recorded primitive: its derivative, attributes and saved tensors."""

    __slots__ = ("_input_meta", "attrs", "op", "output_meta", "saved_inputs", "saved_outputs")

    def __init__(self, op, attrs: dict, next_functions: tuple, saved_inputs, saved_outputs, input_meta, output_meta) -> None:
        # Node.__init__, inlined: one of these is made for every recorded op
        self.next_functions = next_functions
        self.sequence_nr = next(_SEQUENCE)
        self._pre_hooks = self._post_hooks = ()
        self.op = op
        self.attrs = attrs
        self.saved_inputs = saved_inputs  # tuple of (tensor, version) | None, or None once freed
        self.saved_outputs = saved_outputs
        self._input_meta = input_meta  # (shape, dtype) per input; None: read off the saved inputs when asked
        self.output_meta = output_meta

    @property
    def input_meta(self) -> tuple:
        """(shape, dtype) per input: for zero gradients and checks."""
        meta = self._input_meta
        if meta is None:
            meta = self._input_meta = tuple([(t._shape, t._dtype) for t, _ in self.saved_inputs])
        return meta

    def name(self) -> str:
        return backward_name(self.op.name)

    @property
    def saved_tensors(self) -> tuple:
        """The tensors this node keeps for its derivative (inputs, then outputs), version-checked."""
        kept = self.unpack(self.saved_inputs or ()) + self.unpack(self.saved_outputs or ())
        return tuple([t for t in kept if t is not None])  # (a partial save holds None for the others)

    def __getattr__(self, name: str):
        """PyTorch's names for saved values: ``_saved_self`` (the first input), ``_saved_<input>``
        by the op's input names, ``_saved_result`` (the first output)."""
        if not name.startswith("_saved_"):
            raise AttributeError(name)
        key = name.removeprefix("_saved_")
        op = self.op
        if self.saved_inputs is None and self.saved_outputs is None and _needs_saved(op) and key not in self.attrs:
            raise RuntimeError(FREED)
        if key == "result" and self.saved_outputs is not None:
            return self.unpack(self.saved_outputs)[0]
        if self.saved_inputs is not None:
            names = op.inputs
            if key == "self" and names:
                return self.unpack(self.saved_inputs)[0]
            if key in names:
                return self.unpack(self.saved_inputs)[names.index(key)]
        if key in self.attrs:  # a scalar operand travels as an attribute: x * 2.5 saves other=2.5
            return self.attrs[key]
        raise AttributeError(f"'{self.name()}' object has no attribute '{name}' (it saved: inputs {op.inputs if self.saved_inputs is not None else ()}"
                             f"{', result' if self.saved_outputs is not None else ''})")

    def unpack(self, saved: tuple | None) -> tuple:
        if saved is None:
            raise RuntimeError(FREED)
        return unpack_saved(self, saved)

    def release(self) -> None:
        if self._input_meta is None and self.saved_inputs is not None:
            self.input_meta  # noqa: B018 - read off the saved inputs before they go
        self.saved_inputs = self.saved_outputs = None

    def apply(self, grads: tuple) -> tuple:
        if self.saved_inputs is None and self.saved_outputs is None and _needs_saved(self.op):
            raise RuntimeError(FREED)
        for g in grads:  # (`None in grads` would compare each tensor with None, elementwise)
            if g is None:
                grads = self._zeros_for_missing(grads)
                break
        result = self.op.derivative(Context(self), *grads)
        if type(result) is not tuple:
            result = (result,)
        # each gradient has its input's dtype (PyTorch's validate_outputs): no float64 leaks into a float32 leaf
        meta = self._input_meta or self.input_meta
        for i, g in enumerate(result):
            if g is not None and i < len(meta) and g._dtype is not meta[i][1]:
                return _cast_to_inputs(result, meta)
        return result

    def _zeros_for_missing(self, grads: tuple) -> tuple:
        """An output nobody used has gradient zero (integer and auxiliary outputs keep None)."""
        from ..ops import functional

        aux = self.op.aux_outputs
        return tuple(
            functional.zeros(shape, dtype=dtype) if g is None and (dtype.is_floating_point or dtype.is_complex) and i not in aux else g
            for i, (g, (shape, dtype)) in enumerate(zip(grads, self.output_meta, strict=False))
        )


def _cast_to_inputs(result: tuple, meta: tuple) -> tuple:
    return tuple(
        g if g is None or g._dtype is m[1] or not (m[1].is_floating_point or m[1].is_complex) else g.to(m[1])
        for g, m in zip(result, meta, strict=False)
    )


def unpack_saved(node: Node, saved: tuple) -> tuple:
    """The saved tensors back, each checked against the version it was saved at."""
    out = []
    for item in saved:
        if item is None:
            out.append(None)
            continue
        t, version = item
        if t._storage._version != version:
            raise RuntimeError(_modified_message(node, t, version))
        out.append(t)
    return tuple(out)


def _needs_saved(op) -> bool:
    return getattr(op.derivative, "saves", "inputs") != "none"


class Context:
    """What a derivative sees: the saved inputs and outputs (version-checked) and attributes."""

    __slots__ = ("_node", "attrs")

    def __init__(self, node: OpNode) -> None:
        self._node = node
        self.attrs = node.attrs

    @property
    def inputs(self) -> tuple:
        return self._node.unpack(self._node.saved_inputs)

    @property
    def outputs(self) -> tuple:
        return self._node.unpack(self._node.saved_outputs)

    @property
    def input_meta(self) -> tuple:
        return self._node.input_meta

    @property
    def output_meta(self) -> tuple:
        return self._node.output_meta


def _modified_message(node: OpNode, tensor: Tensor, expected: int) -> str:
    where = WRITE_SITES.get(tensor._storage)
    site = f" It was modified in place at {where}." if where else ""
    return (
        f"one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[{tensor.dtype} {list(tensor.shape)}], which is saved by {node.name()}, is at version "
        f"{tensor._storage._version}; expected version {expected} instead.{site}"
    )


# storage -> "file:line" of its last in-place write, for the storages autograd saved tensors of
# (marked by their ``_watched`` slot)
WRITE_SITES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class AccumulateGrad(Node):
    """The end of the road for a leaf: adds the arriving gradient into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        super().__init__(())
        self.variable = variable

    def apply(self, grads: tuple) -> tuple:
        return ()


class TensorMap:
    """A weak map keyed by tensor identity. (``WeakKeyDictionary`` compares keys with ``==``,
    which for tensors is elementwise and has no truth value.)"""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: dict[int, tuple] = {}

    def _forget(self, key: int):
        return lambda ref: self._items.pop(key, None)

    def get(self, t, default=None):
        item = self._items.get(id(t))
        return item[1] if item is not None and item[0]() is t else default

    def __setitem__(self, t, value) -> None:
        self._items[id(t)] = (weakref.ref(t, self._forget(id(t))), value)

    def setdefault(self, t, value):
        current = self.get(t, _MISSING)
        if current is _MISSING:
            self[t] = value
            return value
        return current

    def __contains__(self, t) -> bool:
        return self.get(t, _MISSING) is not _MISSING

    def discard(self, t) -> None:
        self._items.pop(id(t), None)

    def items(self):
        return [(ref(), value) for ref, value in list(self._items.values()) if ref() is not None]

    def __len__(self) -> int:
        return len(self._items)


_MISSING = object()
_ACCUMULATORS = TensorMap()


def accumulate_grad_node(leaf: Tensor) -> AccumulateGrad:
    """The one AccumulateGrad of a leaf (kept while the leaf lives)."""
    node = _ACCUMULATORS.get(leaf)
    if node is None:
        node = _ACCUMULATORS[leaf] = AccumulateGrad(leaf)
    return node
