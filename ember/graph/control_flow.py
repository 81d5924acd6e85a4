"""TensorFlow 1's control flow in graph mode: ``cond``, ``case``, ``while_loop``.

Each is one functional node, as TensorFlow 2 builds them (control flow v2): ``If`` holds its two
branches and ``While`` its condition and body as function graphs (``func_graph.py``) in its
attributes; the tensors a branch or body uses from outside are captured and become the node's
inputs. The executors registered here run the sub-graphs' own plans: an ``If`` runs only the
branch its predicate picks, so the other branch's assignments and prints do not happen; a
``While`` runs its body while its condition holds (and ``maximum_iterations`` allows). The passes
see these nodes as graph-only ops: they copy them with their attributes and never look inside.

Gradients are in ``control_flow_grad.py``.
"""

from __future__ import annotations

from .._core import dtype as _dt
from .._core.tensor import Tensor
from ..dispatch.interpreter import EAGER, interpreter_scope
from .errors import InvalidArgumentError
from .flow_ops import assert_at_most_one_true
from .func_graph import FuncGraph, run_function
from .graph import Operation, get_default_graph
from .run.plan import register_executor
from .sources import constant
from .symbolic import TensorShape, as_shape, probe_shape
from .tensor import GraphTensor

__all__ = ["LoopHistory", "case", "cond", "flatten", "pack_sequence_as", "while_loop"]


# -- nested structures (TensorFlow's nest: lists, tuples, namedtuples, dicts by sorted key) -------


def flatten(structure) -> list:
    """The leaves of a nested structure, in TensorFlow's order."""
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, (list, tuple)) and not isinstance(structure, Tensor):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_sequence_as(structure, flat: list):
    """``flat`` (leaves) in the shape of ``structure``."""
    it = iter(flat)

    def pack(s):
        if isinstance(s, dict):
            packed = {k: pack(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        if isinstance(s, (list, tuple)) and not isinstance(s, Tensor):
            items = [pack(x) for x in s]
            return type(s)(*items) if hasattr(s, "_fields") else type(s)(items)
        return next(it)

    return pack(structure)


def _structure_mismatch(a, b) -> str | None:
    """Why two structures differ, in TensorFlow's words (None when they match)."""
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return f"The two structures don't have the same nested structure.\n\nFirst structure: type={type(a).__name__} str={a!r}\n\nSecond structure: type={type(b).__name__} str={b!r}"
        if sorted(a) != sorted(b):
            return (
                f"The two structures don't have the same nested structure.\n\nFirst structure: type=dict str={a!r}\n\nSecond structure: type=dict str={b!r}\n\n"
                f"More specifically: The two dictionaries don't have the same set of keys. First structure has keys type=list str={sorted(a)}, "
                f"while second structure has keys type=list str={sorted(b)}"
            )
        return next((m for k in sorted(a) if (m := _structure_mismatch(a[k], b[k]))), None)
    seq_a = isinstance(a, (list, tuple)) and not isinstance(a, Tensor)
    seq_b = isinstance(b, (list, tuple)) and not isinstance(b, Tensor)
    if seq_a != seq_b or (seq_a and len(a) != len(b)):
        return (
            f"The two structures don't have the same nested structure.\n\nFirst structure: type={type(a).__name__} str={a!r}\n\n"
            f"Second structure: type={type(b).__name__} str={b!r}"
        )
    if seq_a:
        return next((m for x, y in zip(a, b, strict=True) if (m := _structure_mismatch(x, y))), None)
    return None


# -- building function graphs ----------------------------------------------------------------------


def _as_tensor(value, where: str) -> GraphTensor:
    """A branch's or loop's value as a tensor of the default graph."""
    graph = get_default_graph()
    if isinstance(value, GraphTensor):
        return graph._make_interpreter().capture(value) if value.graph is not graph else value
    if value is None:
        raise TypeError(f"{where}: None values not supported.")
    if isinstance(value, Operation):  # TensorFlow 2's functions: an operation becomes True, after it runs
        with graph.control_dependencies([value]):
            return constant(True)
    if isinstance(value, Tensor):
        return graph._make_interpreter().capture(value)
    try:
        return constant(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{where}: could not convert {value!r} of type {type(value).__name__} to a Tensor ({error})") from None


def _trace(fg: FuncGraph, fn, args: list, where: str):
    """Call ``fn(*args)`` recording into ``fg``; its outputs become ``fg.outputs``; the structure."""
    with fg.as_default():
        result = fn(*args)
        if isinstance(result, (GraphTensor, Operation)) or not isinstance(result, (list, tuple, dict)):
            result_flat = [] if result is None else [result]
        else:
            result_flat = flatten(result)
        fg.outputs = [_as_tensor(v, where) for v in result_flat]
    return result


def _align_captures(graphs: list) -> list:
    """Give every function the captures of all (each takes the union, in one order): the outer
    tensors the holding node feeds them."""
    for g in graphs:
        for other in graphs:
            if other is not g:
                for outer, _ in list(other.captures):
                    g.capture(outer)
    order = [outer for outer, _ in graphs[0].captures]
    for g in graphs:
        position = {id(outer): inner for outer, inner in g.captures}
        n_args = len(g.inputs) - len(g.captures)
        g.inputs = g.inputs[:n_args] + [position[id(outer)] for outer in order]
        g.captures = [(outer, position[id(outer)]) for outer in order]
    return order


def _relaxed(a: TensorShape, b: TensorShape) -> TensorShape:
    """The most specific shape both ``a`` and ``b`` are instances of."""
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return TensorShape(None)
    return TensorShape([x if x == y else None for x, y in zip(a.dims, b.dims, strict=True)])


def _out_spec(static: TensorShape, dtype) -> tuple:
    return (probe_shape(static), static, dtype)


# -- cond and case -------------------------------------------------------------------------------------


def cond(pred, true_fn=None, false_fn=None, strict: bool = False, name: str | None = None):
    """``true_fn()`` if ``pred`` holds when the graph runs, else ``false_fn()``: one ``If`` node.

    Only the branch taken runs. Both branches return the same structure of tensors with the same
    dtypes; with ``strict=False`` (TensorFlow 1's default) a one-element list or tuple is
    returned as its element.

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     x = ember.placeholder(ember.float32, shape=())
    ...     y = cond(x > 0, lambda: x * 2.0, lambda: -x)
    >>> s = ember.Session(graph=g)
    >>> float(s.run(y, {x: 3.0})), float(s.run(y, {x: -5.0}))
    (6.0, 5.0)
    """
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name or "cond") as scope:
        pred = _as_tensor(pred, "cond()")
        if pred._dtype is not _dt.bool_:
            raise TypeError(f"cond(): pred must be a bool tensor, got {pred.name} of dtype {pred._dtype.name}")
        if pred._static.rank not in (None, 0):
            raise ValueError(
                f"Shape must be rank 0 but is rank {pred._static.rank} for '{scope.rstrip('/')}' (op: 'If') with input shapes: {pred._static}."
            )
        base = scope.rstrip("/").replace("/", "_")
        branches = [FuncGraph(f"{base}_true", graph), FuncGraph(f"{base}_false", graph)]
        results = [_trace(branches[0], true_fn, [], "cond()"), _trace(branches[1], false_fn, [], "cond()")]
        _check_branches(results, branches)
        captured = _align_captures(branches)
        outs = [
            _out_spec(_relaxed(a._static, b._static), a._dtype)
            for a, b in zip(branches[0].outputs, branches[1].outputs, strict=True)
        ]
        attrs = {
            "then_branch": branches[0],
            "else_branch": branches[1],
            "Tcond": _dt.bool_,
            "Tout": tuple(t._dtype for t in branches[0].outputs),
        }
        with graph.control_dependencies(_hoisted(branches)):
            op = graph.create_op("If", (pred, *captured), attrs, outs, name=scope)
    structure = results[0]
    if isinstance(structure, (GraphTensor, Operation)) or not isinstance(structure, (list, tuple, dict)):
        return None if structure is None else op.outputs[0]
    packed = pack_sequence_as(structure, list(op.outputs))
    if not strict and isinstance(packed, (list, tuple)) and not hasattr(packed, "_fields") and len(packed) == 1:
        return packed[0]
    return packed


def _hoisted(graphs: list) -> list:
    controls: list = []
    for g in graphs:
        controls.extend(c for c in g.outer_controls if c not in controls)
    return controls


def _check_branches(results: list, branches: list) -> None:
    true_out, false_out = results
    lengths = [len(b.outputs) for b in branches]
    if (true_out is None) != (false_out is None) or (lengths[0] != lengths[1] and (0 in lengths)):
        raise ValueError(
            f"Lengths of branch outputs of cond must match.\nlen(graphs[0].outputs): {lengths[0]}\nlen(graphs[1].outputs): {lengths[1]}\n"
        )
    details = _structure_mismatch(true_out, false_out)
    if details is None:
        for a, b in zip(branches[0].outputs, branches[1].outputs, strict=True):
            if a._dtype is not b._dtype:
                details = f"{a!r} and {b!r} have different types"
                break
    if details is not None:
        raise TypeError(
            "true_fn and false_fn arguments to tf.cond must have the same number, type, and overall structure of return values.\n\n"
            f"true_fn output: {true_out!r}\nfalse_fn output: {false_out!r}\n\nError details:\n{details}"
        )


def case(pred_fn_pairs, default=None, exclusive: bool = False, strict: bool = False, name: str = "case"):
    """The function of the first pair whose predicate holds (``default`` when none does), as
    nested ``cond``s; with ``exclusive=True`` an ``Assert`` checks at run time that at most one
    predicate holds.

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     x = ember.placeholder(ember.int64, shape=())
    ...     y = case([(x < 0, lambda: constant(-1)), (x > 0, lambda: constant(1))], default=lambda: constant(0))
    >>> [int(ember.Session(graph=g).run(y, {x: v})) for v in (-4, 0, 9)]
    [-1, 0, 1]
    """
    if isinstance(pred_fn_pairs, dict):
        pairs = list(pred_fn_pairs.items())
    elif isinstance(pred_fn_pairs, (list, tuple)):
        pairs = list(pred_fn_pairs)
    else:
        raise TypeError(f"pred_fn_pairs must be a list, tuple, or dict. Received: {pred_fn_pairs}")
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError(f"Each entry in pred_fn_pairs must be a 2-tuple. Received {pair}.")
        if not callable(pair[1]):
            raise TypeError(f"fn for pred {pair[0]} must be callable.")
    if not pairs and default is None:
        raise ValueError("pred_fn_pairs is empty and no default was given")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    graph = get_default_graph()
    with graph.name_scope(name):
        preds = [_as_tensor(p, "case()") for p, _ in pairs]
        if default is None:  # TensorFlow: the last pair is the default
            *pairs, (_, default) = pairs
            preds_for_branch = preds[:-1]
        else:
            preds_for_branch = preds
        controls = []
        if exclusive and len(preds) > 1:
            controls.append(assert_at_most_one_true(preds, "case"))
        with graph.control_dependencies(controls):
            return _nested_case(preds_for_branch, [fn for _, fn in pairs], default, strict)


def _nested_case(preds: list, fns: list, default, strict: bool):
    if not preds:
        return default()
    return cond(preds[0], fns[0], lambda: _nested_case(preds[1:], fns[1:], default, strict), strict=strict)


# -- while_loop --------------------------------------------------------------------------------------


def while_loop(
    cond,
    body,
    loop_vars,
    shape_invariants=None,
    parallel_iterations: int = 10,
    back_prop: bool = True,
    swap_memory: bool = False,
    name: str | None = None,
    maximum_iterations=None,
    return_same_structure: bool = False,
):
    """Repeat ``body`` while ``cond`` holds, from ``loop_vars``: one ``While`` node.

    ``loop_vars`` is a tensor or a nested structure of tensors; ``body`` returns the same
    structure. A loop variable keeps its shape across iterations unless ``shape_invariants``
    gives it a less specific one. ``maximum_iterations`` bounds the number of iterations.

    >>> import ember
    >>> with ember.Graph().as_default() as g:
    ...     n = ember.placeholder(ember.int64, shape=())
    ...     i, total = while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + i), (constant(0), constant(0)))
    >>> [int(v) for v in ember.Session(graph=g).run([i, total], {n: 5})]
    [5, 10]
    """
    if not callable(cond):
        raise TypeError("'cond' must be callable.")
    if not callable(body):
        raise TypeError("'body' must be callable.")
    if parallel_iterations < 1:
        raise TypeError("'parallel_iterations' must be a positive integer.")
    if loop_vars is None or (isinstance(loop_vars, (list, tuple, dict)) and not flatten(loop_vars)):
        raise ValueError("'loop_vars' must be provided.")
    graph = get_default_graph()
    single = isinstance(loop_vars, Tensor) or not isinstance(loop_vars, (list, tuple, dict))
    structure = [loop_vars] if single else loop_vars
    with graph.name_scope(name or "while") as scope:
        flat = [_as_tensor(v, "while_loop()") for v in flatten(structure)]
        invariants = _invariants(flat, shape_invariants, loop_vars, single)
        max_iter = None if maximum_iterations is None else _as_tensor(maximum_iterations, "while_loop()")
        if max_iter is not None and max_iter._static.rank not in (None, 0):
            raise ValueError(f"maximum_iterations must be a scalar, saw shape: {max_iter._static}")
        base = scope.rstrip("/").replace("/", "_")
        cond_g, body_g = FuncGraph(f"{base}_cond", graph), FuncGraph(f"{base}_body", graph)
        for fg in (cond_g, body_g):
            args = [fg.add_input(t._dtype, inv) for t, inv in zip(flat, invariants, strict=True)]
            packed = pack_sequence_as(structure, args)
            fn = cond if fg is cond_g else body
            result = _trace(fg, fn, list(packed) if not isinstance(packed, dict) else [packed], "while_loop()")
        _check_cond(cond_g)
        wrap = isinstance(structure, (list, tuple)) and len(structure) == 1 and not isinstance(result, (list, tuple))
        body_structure = [result] if wrap else result  # TensorFlow: one loop variable, returned bare
        _check_body(structure, body_structure, flat, invariants, body_g)
        captured = _align_captures([cond_g, body_g])
        attrs = {
            "cond": cond_g,
            "body": body_g,
            "T": tuple(t._dtype for t in flat),
            "output_shapes": tuple(invariants),
            "parallel_iterations": int(parallel_iterations),
            "n_loop_vars": len(flat),
            "has_maximum_iterations": max_iter is not None,
            "back_prop": bool(back_prop),
        }
        inputs = (*flat, *captured, *(() if max_iter is None else (max_iter,)))
        with graph.control_dependencies(_hoisted([cond_g, body_g])):
            op = graph.create_op(
                "While", inputs, attrs, [_out_spec(inv, t._dtype) for t, inv in zip(flat, invariants, strict=True)], name=scope
            )
    outputs = pack_sequence_as(structure, list(op.outputs))
    if return_same_structure:
        return outputs[0] if single else outputs
    return op.outputs[0] if len(flat) == 1 else outputs


def _flatten_up_to(structure, values) -> list:
    """The leaves of ``values`` where ``structure`` has leaves (a shape there is one leaf, even a list)."""
    if isinstance(structure, dict):
        if not isinstance(values, dict) or sorted(values) != sorted(structure):
            raise ValueError(f"shape_invariants must have the structure of loop_vars, got {values!r}")
        return [leaf for k in sorted(structure) for leaf in _flatten_up_to(structure[k], values[k])]
    if isinstance(structure, (list, tuple)) and not isinstance(structure, Tensor):
        if not isinstance(values, (list, tuple)) or len(values) != len(structure):
            raise ValueError(f"shape_invariants must have the structure of loop_vars, got {values!r}")
        return [leaf for s, v in zip(structure, values, strict=True) for leaf in _flatten_up_to(s, v)]
    return [values]


def _invariants(flat: list, shape_invariants, loop_vars, single: bool) -> list:
    if shape_invariants is None:
        return [t._static for t in flat]
    given = [shape_invariants] if single else _flatten_up_to(loop_vars, shape_invariants)
    if len(given) != len(flat):
        raise ValueError(f"shape_invariants has {len(given)} shapes for {len(flat)} loop variables")
    out = []
    for t, inv in zip(flat, given, strict=True):
        inv = as_shape(inv)
        if not inv.is_compatible_with(t._static):
            raise ValueError(
                f"The shape invariant specified for {t.name} is not compatible with the initial shape of the loop variable. It enters the loop with shape {t._static}, but the specified shape invariant is {inv}."
            )
        out.append(inv)
    return out


def _check_cond(cond_g: FuncGraph) -> None:
    outs = cond_g.outputs
    if len(outs) != 1 or outs[0]._dtype is not _dt.bool_ or outs[0]._static.rank not in (None, 0):
        got = ", ".join(f"{t.name} ({t._dtype.name}, shape {t._static})" for t in outs) or "nothing"
        raise TypeError(f"while_loop(): cond must return a scalar bool tensor, got {got}")


def _check_body(structure, result, flat: list, invariants: list, body_g: FuncGraph) -> None:
    details = _structure_mismatch(result, structure)
    if details is not None:
        raise ValueError(details)
    for t, inv, out in zip(flat, invariants, body_g.outputs, strict=True):
        if out._dtype is not t._dtype:
            raise TypeError(
                f"Loop var {t.name} enters the loop with type <dtype: '{t._dtype.name}'> but has type <dtype: '{out._dtype.name}'> after 1 iteration. "
                f"{t.name} type should remain constant."
            )
        if not inv.is_compatible_with(out._static) or (inv.rank is not None and out._static.rank is None):
            raise ValueError(
                f"Input tensor `{t.name}` enters the loop with shape {t._static}, but has shape {out._static} after one iteration. "
                "To allow the shape to vary across iterations, use the `shape_invariants` argument of tf.while_loop to specify a less-specific shape."
            )


# -- executors -------------------------------------------------------------------------------------------


def _truth(value, op) -> bool:
    if value.numel() != 1 or value.dim() != 0:
        raise InvalidArgumentError(
            None, op, f"The first input to an If node must be a scalar, got shape {list(value._shape)}\n\t [[node {op.name}]]"
        )
    return bool(value._host_array()[()])


def _run_if(step, values: list, session) -> None:
    op = step.op
    branch = op.attrs["then_branch"] if _truth(values[step.ins[0]], op) else op.attrs["else_branch"]
    results = run_function(branch, session, [values[s] for s in step.ins[1:]])
    n = len(op.attrs["Tout"])
    for s, r in zip(step.outs[:n], results[:n], strict=True):
        values[s] = r
    # values a gradient asked the branch to keep: the other branch's stay None (its gradient never reads them)
    for position, r in zip(branch.exposed, results[n:], strict=True):
        values[step.outs[position]] = r


def loop_frames(op, session, loop_vars: list, extra: list, max_iter, record: list | None = None) -> list:
    """Run a ``While`` node's loop from ``loop_vars`` (captured values ``extra``); with ``record``,
    append each iteration's (loop variables it started from, values its body kept for a gradient:
    what random ops drew). The final loop variables."""
    cond_g, body_g = op.attrs["cond"], op.attrs["body"]
    known = [shape.dims for shape in op.attrs["output_shapes"]]  # None: any rank
    n = len(known)
    count = 0
    while max_iter is None or count < max_iter:
        if not _truth(run_function(cond_g, session, loop_vars + extra)[0], op):
            break
        results = run_function(body_g, session, loop_vars + extra)
        if record is not None:
            record.append((loop_vars, results[n:]))
        loop_vars = results[:n]
        for t, dims in zip(loop_vars, known, strict=True):
            if dims is not None and (
                len(t._shape) != len(dims) or any(d is not None and d != size for d, size in zip(dims, t._shape, strict=True))
            ):
                raise InvalidArgumentError(
                    None,
                    op,
                    f"{op.name}: a loop variable has shape {list(t._shape)} after an iteration, outside its shape invariant {TensorShape(dims)}",
                )
        count += 1
    return loop_vars


def _run_while(step, values: list, session) -> None:
    op = step.op
    n = op.attrs["n_loop_vars"]
    ins = [values[s] for s in step.ins]
    max_iter = None
    if op.attrs["has_maximum_iterations"]:
        max_iter = int(ins.pop()._host_array()[()])
    record = [] if "history_output" in op.attrs else None  # a gradient reads each iteration's values
    with interpreter_scope(EAGER):
        results = loop_frames(op, session, ins[:n], ins[n:], max_iter, record=record)
    for s, r in zip(step.outs[:n], results, strict=True):
        values[s] = r
    if record is not None:
        values[step.outs[op.attrs["history_output"]]] = LoopHistory(record, results)


class LoopHistory:
    """The value of a ``While`` node's history output: per iteration, the loop variables it started
    from and the values its body kept (random draws), and the final loop variables: what the
    gradient, ``WhileGrad``, runs the body's gradient over."""

    __slots__ = ("final", "iterations")

    def __init__(self, iterations: list, final: list) -> None:
        self.iterations = iterations
        self.final = final


register_executor("If", _run_if)
register_executor("While", _run_while)
