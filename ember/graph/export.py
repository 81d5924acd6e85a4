"""Exporting a graph: TensorFlow's ``GraphDef``, ``write_graph`` and Graphviz DOT.

``as_graph_def`` spells the graph as TensorFlow does, so TensorBoard (and TensorFlow's own
``GraphDef`` parser) read it: inputs are ``"node"``, ``"node:1"`` and ``"^node"`` for control
inputs; types are ``DataType`` attributes (``dtype`` on sources, ``T`` on the rest); a
``Const`` carries its ``value`` as a ``TensorProto``; a ``Placeholder`` its ``shape`` with ``-1``
for unknown sizes. The primitive's own attributes follow, mapped by Python type. The function
graphs control flow nodes hold (``If`` branches, ``While`` bodies) are ``func`` attributes naming
``FunctionDef``s of the graph's ``library``.
"""

from __future__ import annotations

import math
import os

from google.protobuf import text_format

from .._core import dtype as _dt
from .._core.dtype import DType
from .._core.tensor import Tensor
from ..interop.proto.convert import to_proto
from .proto import AttrValue, FunctionDef, GraphDef, NodeDef, TensorShapeProto
from .symbolic import SymFloat, SymInt, TensorShape

__all__ = ["GRAPH_DEF_VERSION", "as_graph_def", "attr_value", "function_def", "node_def", "node_input_name", "to_dot", "write_graph"]

# ember's producer version. Readers check only that producer >= their min and that
# min_consumer <= their own version; TensorBoard checks neither.
GRAPH_DEF_VERSION = 1
GRAPH_DEF_VERSION_MIN_CONSUMER = 0

# Sources whose type attribute TensorFlow calls "dtype"; every other op gets "T".
_DTYPE_ATTR_OPS = {"Const", "Placeholder", "PlaceholderWithDefault", "VariableV2", "Variable", "VarHandleOp"}


def node_input_name(tensor) -> str:
    """TensorFlow's spelling of a data input: ``"op"`` for output 0, else ``"op:i"``."""
    index = tensor.value_index
    return tensor.op.name if index == 0 else f"{tensor.op.name}:{index}"


def _shape_proto(shape, proto: TensorShapeProto | None = None) -> TensorShapeProto:
    """A TensorShapeProto of a TensorShape or sequence: ``-1`` for an unknown size, ``unknown_rank``."""
    proto = TensorShapeProto() if proto is None else proto
    proto.MergeFrom((shape if isinstance(shape, TensorShape) else TensorShape(shape)).as_proto())
    return proto


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor)


def _scalar_kind(x) -> str | None:
    """The ListValue field a tuple element belongs in (bool before int: bool is an int)."""
    if isinstance(x, bool):
        return "b"
    if isinstance(x, int):
        return "i"
    if isinstance(x, float):
        return "f"
    if isinstance(x, (str, bytes)):
        return "s"
    if isinstance(x, DType):
        return "type"
    if isinstance(x, TensorShape):
        return "shape"
    return None


def _list_value(attr: AttrValue, kind: str, items) -> None:
    target = getattr(attr.list, kind)
    if kind == "i":
        target.extend(-1 if isinstance(x, SymInt) else int(x) for x in items)
    elif kind == "f":
        target.extend(math.nan if isinstance(x, SymFloat) else float(x) for x in items)
    elif kind == "b":
        target.extend(bool(x) for x in items)
    elif kind == "s":
        target.extend(x.encode() if isinstance(x, str) else x for x in items)
    elif kind == "type":
        target.extend(x.tf_enum for x in items)
    else:
        for x in items:
            _shape_proto(x, target.add())


def attr_value(value) -> AttrValue | None:
    """The AttrValue of a Python attribute value, or None for ``None`` (the attribute is left out).

    int -> i, float -> f, bool -> b, str -> s, DType -> type, TensorShape -> shape, eager
    Tensor -> tensor, tuple -> list (ints with floats become floats); an unknown size (SymInt)
    is ``-1``. Anything else (complex, device, nested tuples) is its ``str`` in ``s``.
    """
    if value is None:
        return None
    attr = AttrValue()
    kind = _scalar_kind(value)
    if isinstance(value, (tuple, list)):
        kinds = {_scalar_kind(x) for x in value}
        if kinds == {"i", "f"}:
            kinds = {"f"}
        if not value:
            attr.list.SetInParent()
        elif len(kinds) == 1 and None not in kinds:
            _list_value(attr, kinds.pop(), value)
        elif all(_is_tensor(x) for x in value):
            for x in value:
                attr.list.tensor.add().CopyFrom(_tensor_proto(x))
        else:
            attr.s = str(value).encode()
    elif kind == "b":
        attr.b = value
    elif kind == "i":
        attr.i = -1 if isinstance(value, SymInt) else int(value)
    elif kind == "f":
        attr.f = math.nan if isinstance(value, SymFloat) else float(value)
    elif kind == "s":
        attr.s = value.encode() if isinstance(value, str) else value
    elif kind == "type":
        attr.type = value.tf_enum
    elif kind == "shape":
        _shape_proto(value, attr.shape)
    elif _is_tensor(value):
        attr.tensor.CopyFrom(_tensor_proto(value))
    elif getattr(value, "is_function_graph", False):  # a cond branch, a loop body: in the library
        attr.func.name = value.name
    else:
        attr.s = str(value).encode()
    return attr


def _tensor_proto(tensor):
    # TensorFlow's Const keeps strings in string_val; numbers as compact bytes.
    return to_proto(tensor, "fields" if tensor.dtype is _dt.string else "content")


def node_def(op, add_shapes: bool = False) -> NodeDef:
    """One operation as a NodeDef (``Operation.node_def``), without building the whole GraphDef."""
    node = NodeDef(name=op.name, op=op.type, device=op.device or "")
    node.input.extend(node_input_name(t) for t in op.inputs)
    node.input.extend(f"^{c.name}" for c in op.control_inputs)
    attrs = dict(op.attrs)
    type_key = "dtype" if op.type in _DTYPE_ATTR_OPS else "T"
    if type_key not in attrs:
        typed = op.outputs or op.inputs
        if typed:
            attrs[type_key] = typed[0].dtype
    if len({t.dtype for t in op.outputs}) > 1:  # e.g. max over a dim: values and int64 indices
        attrs.setdefault("out_types", tuple(t.dtype for t in op.outputs))
    if op.type in ("Placeholder", "PlaceholderWithDefault", "VariableV2") and "shape" in attrs:
        attrs["shape"] = TensorShape(None) if attrs["shape"] is None else attrs["shape"]
        if not isinstance(attrs["shape"], TensorShape):
            attrs["shape"] = TensorShape(attrs["shape"])
    for key, value in attrs.items():
        attr = attr_value(value)
        if attr is not None:
            node.attr[key].CopyFrom(attr)
    if add_shapes:
        shapes = node.attr["_output_shapes"].list
        shapes.SetInParent()
        for out in op.outputs:
            _shape_proto(out.get_shape(), shapes.shape.add())
    return node


def as_graph_def(graph, from_version: int | None = None, add_shapes: bool = False) -> GraphDef:
    """The graph as a TensorFlow ``GraphDef`` message (``Graph.as_graph_def``).

    ``add_shapes`` adds each node's static output shapes as the ``_output_shapes`` attribute, as
    TensorFlow does; ``from_version`` keeps only the operations created after the graph's
    ``version`` had that value (the version counts operations, so that is a position).
    """
    graph_def = GraphDef()
    graph_def.versions.producer = GRAPH_DEF_VERSION
    graph_def.versions.min_consumer = GRAPH_DEF_VERSION_MIN_CONSUMER
    ops = []
    for position, op in enumerate(graph.get_operations()):
        if from_version is not None and position < from_version:
            continue
        graph_def.node.append(node_def(op, add_shapes))
        ops.append(op)
    for function in _functions(ops):
        graph_def.library.function.append(function_def(function, add_shapes))
    return graph_def


def _functions(ops: list) -> list:
    """The function graphs the attributes of ``ops`` hold, nested ones included, each once."""
    found: list = []
    seen: set = set()
    stack = [v for op in ops for v in op.attrs.values() if getattr(v, "is_function_graph", False)]
    while stack:
        fg = stack.pop(0)
        if id(fg) in seen:
            continue
        seen.add(id(fg))
        found.append(fg)
        stack.extend(v for op in fg.get_operations() for v in op.attrs.values() if getattr(v, "is_function_graph", False))
    return found


def function_def(fg, add_shapes: bool = False):
    """A function graph as TensorFlow's ``FunctionDef``: its input placeholders are the arguments,
    its nodes' inputs ``"arg"`` or ``"node:output:i"``, ``ret`` maps ``output_k`` to a tensor."""
    function = FunctionDef()
    function.signature.name = fg.name
    args = {id(t): t.op.name for t in fg.inputs}
    for t in fg.inputs:
        function.signature.input_arg.add(name=t.op.name, type=t.dtype.tf_enum)

    def ref(t) -> str:
        return args.get(id(t)) or f"{t.op.name}:output:{t.value_index}"

    for op in fg.get_operations():
        if op.type == "Placeholder" and op.outputs and id(op.outputs[0]) in args:
            continue
        node = node_def(op, add_shapes)
        del node.input[:]
        node.input.extend(ref(t) for t in op.inputs)
        node.input.extend(f"^{c.name}" for c in op.control_inputs)
        function.node_def.append(node)
    for k, t in enumerate(fg.outputs):
        function.signature.output_arg.add(name=f"output_{k}", type=t.dtype.tf_enum)
        function.ret[f"output_{k}"] = ref(t)
    return function


def _as_graph_def_message(graph_or_graph_def, add_shapes: bool = False):
    if isinstance(graph_or_graph_def, GraphDef) or hasattr(graph_or_graph_def, "node"):
        return graph_or_graph_def
    return as_graph_def(graph_or_graph_def, add_shapes=add_shapes)


def write_graph(graph_or_graph_def, logdir: str | os.PathLike, name: str, as_text: bool = True) -> str:
    """Writes the GraphDef to ``logdir/name`` (text format or binary) and returns the path.

    Like ``tf.io.write_graph``: the directory is created; the file is replaced atomically so a
    reader never sees half a graph.
    """
    graph_def = _as_graph_def_message(graph_or_graph_def)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(os.fspath(logdir), name)
    data = text_format.MessageToString(graph_def).encode() if as_text else graph_def.SerializeToString()
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return path


# ------------------------------------------------------------------------------------ DOT

def _dot_str(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _edge_label(tensor) -> str:
    shape = tensor.get_shape()
    dtype = tensor.dtype
    return f"{shape} {dtype.name if isinstance(dtype, DType) else dtype}"


def to_dot(graph, name: str = "G") -> str:
    """The graph in Graphviz's DOT language: one box per operation (name and type), an edge per
    data input labelled with the tensor's shape and dtype, dashed control edges, and a cluster
    per name scope (nested scopes nest)."""
    ops = list(graph.get_operations())
    tree: dict = {}  # scope name -> subtree; "\0ops" holds the operations directly inside
    for op in ops:
        node = tree
        for part in op.name.split("/")[:-1]:
            node = node.setdefault(part, {})
    for op in ops:  # an op named like a scope ("v" beside "v/read") goes inside it, as TensorBoard draws it
        node = tree
        for part in op.name.split("/"):
            if part not in node:
                break
            node = node[part]
        node.setdefault("\0ops", []).append(op)
    lines = [f"digraph {_dot_str(name)} {{", '  node [shape=box, style=rounded, fontsize=10];',
             "  edge [fontsize=9];"]
    counter = [0]

    def emit(node: dict, prefix: str, indent: str) -> None:
        for op in node.get("\0ops", []):
            label = f"{op.name.rsplit('/', 1)[-1]}\n{op.type}"
            lines.append(f"{indent}{_dot_str(op.name)} [label={_dot_str(label)}, tooltip={_dot_str(op.name)}];")
        for part, child in node.items():
            if part == "\0ops":
                continue
            counter[0] += 1
            lines.append(f"{indent}subgraph cluster_{counter[0]} {{")
            lines.append(f"{indent}  label={_dot_str(part)}; tooltip={_dot_str(prefix + part)}; style=rounded;")
            emit(child, f"{prefix}{part}/", indent + "  ")
            lines.append(f"{indent}}}")

    emit(tree, "", "  ")
    for op in ops:
        for tensor in op.inputs:
            lines.append(f"  {_dot_str(tensor.op.name)} -> {_dot_str(op.name)} [label={_dot_str(_edge_label(tensor))}];")
        for control in op.control_inputs:
            lines.append(f"  {_dot_str(control.name)} -> {_dot_str(op.name)} [style=dashed];")
    lines.append("}")
    return "\n".join(lines) + "\n"
