"""``tf.cond``, ``tf.case``, ``tf.while_loop`` and the flow ops, with TensorFlow's conversions.

Graph mode's control flow (``ember.graph.control_flow``, ``flow_ops``) does the work: one ``If``
or ``While`` node holding its branches or body as function graphs. What this layer adds is
TensorFlow's meaning of Python values: a number in ``loop_vars`` or returned by a branch or a
body becomes a tensor the way ``tf.constant`` makes it (an int is int32), and the functions run
in the user's world of TensorFlow operators.
"""

from __future__ import annotations

import types

from ..._core.tensor import Tensor as _EmberTensor
from ...graph import control_flow as _cf, flow_ops as _flow
from ...graph.control_flow import flatten, pack_sequence_as
from ...graph.graph import Operation
from .framework import convert_to_tensor

__all__ = ["Assert", "Print", "case", "cond", "debugging", "print_v2", "stop_gradient", "tuple_", "while_loop"]


def _as_tensors(structure):
    """``structure`` with its Python numbers and arrays made tensors as TensorFlow makes them."""
    leaves = flatten(structure)
    converted = [v if isinstance(v, _EmberTensor | Operation) or v is None else convert_to_tensor(v) for v in leaves]
    return pack_sequence_as(structure, converted)


def _converting(fn):
    if not callable(fn):
        return fn  # the graph layer refuses it with TensorFlow's message

    def call(*args):
        return _as_tensors(fn(*args))

    return call


def cond(pred, true_fn=None, false_fn=None, strict: bool = False, name: str | None = None, fn1=None, fn2=None):
    """``true_fn()`` when ``pred`` holds at run time, else ``false_fn()`` (``fn1``/``fn2``:
    TensorFlow 1's deprecated names); only the branch taken runs."""
    true_fn = fn1 if true_fn is None else true_fn
    false_fn = fn2 if false_fn is None else false_fn
    return _cf.cond(pred, _converting(true_fn), _converting(false_fn), strict=strict, name=name)


def case(pred_fn_pairs, default=None, exclusive: bool = False, strict: bool = False, name: str = "case"):
    """The function of the first pair whose predicate holds, else ``default``."""
    pairs = pred_fn_pairs.items() if isinstance(pred_fn_pairs, dict) else pred_fn_pairs
    pairs = [(p, _converting(f)) for p, f in pairs]
    return _cf.case(
        pairs, default=_converting(default) if default is not None else None, exclusive=exclusive, strict=strict, name=name
    )


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations: int = 10, back_prop: bool = True,
               swap_memory: bool = False, name: str | None = None, maximum_iterations=None, return_same_structure: bool = False):  # fmt: skip
    """Repeat ``body`` on the loop variables while ``cond`` holds."""
    return _cf.while_loop(
        cond, _converting(body), _as_tensors(loop_vars), shape_invariants=shape_invariants, parallel_iterations=parallel_iterations,
        back_prop=back_prop, swap_memory=swap_memory, name=name, maximum_iterations=maximum_iterations,
        return_same_structure=return_same_structure,
    )  # fmt: skip


stop_gradient = _flow.stop_gradient
tuple_ = _flow.tuple_
Print = _flow.Print
print_v2 = _flow.print_v2
Assert = _flow.Assert

_ASSERTS = ("assert_equal", "assert_none_equal", "assert_less", "assert_less_equal", "assert_greater", "assert_greater_equal",
            "assert_positive", "assert_negative", "assert_non_negative", "assert_non_positive")  # fmt: skip

debugging = types.ModuleType("debugging", "``tf.debugging``: run-time assertions.")
debugging.Assert = Assert
for _name in _ASSERTS:
    setattr(debugging, _name, getattr(_flow, _name))
