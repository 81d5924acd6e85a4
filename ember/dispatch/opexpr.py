"""OpExpr: a primitive op as the interpreters see it, and the registry of its rules.

An ``OpExpr`` is built once per primitive (OneFlow's ``OpBuilder("relu").Input("x").Output("y")``)
and carries everything an interpreter needs that does not depend on the call: the op type
name, input and output names, whether the kernel takes strided inputs, and the rules
registered beside the op in its family module:

- ``infer(attrs, *inputs) -> ((shape, dtype), ...)``: output metadata from input metadata
  (inputs are tensors; only their shape/dtype/device may be read). One pair per output.
- ``kernels[device_type](outs, ins, attrs)``: NumPy arrays in, written into ``outs``.
- ``view(attrs, *inputs) -> tensors``: for view ops, the metadata-only implementation.
- ``attr_key(attrs)``: optional, what of the attributes inference depends on (a cache key).
- ``derivative``: ``fn(ctx, *grad_outputs)``, registered with ``grad_rule`` beside the op.

What graph mode needs to know of a primitive is said on the primitive too, with ``tag(...)``
beside its registration, so graph/ keeps no tables of op names (TensorFlow's op type of a
primitive is a key of the schema entry that dispatches it, ``tf``): ``row_wise`` (``"rows"``: input 0 can be computed block of rows by
block, the others whole; ``"features"``: likewise unless it reduces dim 0), ``right_identity``
(the scalar ``s`` with ``op(x, s) == x``) and ``shape_role`` (``"permute"``, ``"reshape"`` or
``"identity_if_same_shape"``: how the algebraic pass folds it). Global tensors read ``sbp``, the
op's SBP rule (``ember/dispatch/sbp.py``, ``ember/ops/sbp_rules.py``).

>>> op = OpExpr("my_neg", ("x",), ("y",))
>>> op
OpExpr('my_neg', inputs=('x',), outputs=('y',))
"""

from __future__ import annotations

import types
from collections.abc import Callable

__all__ = ["OP_REGISTRY", "OpExpr", "get_op", "register_kernel"]


class OpExpr:
    """A primitive op: type name, input/output names, and its registered rules."""

    __slots__ = (
        "attr_key", "aux_outputs", "derivative", "differentiable", "elementwise", "infer", "inputs", "kernels", "name", "outputs",
        "right_identity", "row_wise", "sbp_rule", "shape_role", "strided", "view",
    )  # fmt: skip

    def __init__(self, name: str, inputs: tuple[str, ...], outputs: tuple[str, ...] = ("out",), *, strided: bool = True) -> None:
        if name in OP_REGISTRY:
            raise ValueError(f"OpExpr {name!r} is already registered")
        self.name = name
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.strided = strided
        self.infer: Callable | None = None
        # What of the attributes the inference rule reads, as a cache key (default: all values
        # and their types). A scalar op whose rule reads only the scalar's type says so here,
        # so `x * lr` hits the cache whatever lr is.
        self.attr_key: Callable | None = None
        self.view: Callable | None = None
        self.kernels: dict[str, Callable] = {}
        self.derivative: Callable | None = None
        self.differentiable = True  # the schema says otherwise for comparisons, argmax, indices...
        # Outputs that carry no gradient (a by-product the derivative reads, as ATen's
        # nll_loss_forward returns total_weight): autograd gives them no history.
        self.aux_outputs: tuple[int, ...] = ()
        # An element-wise primitive: its fresh output takes its inputs' memory layout
        # (TensorIterator's rule, dispatch/layout.py), not always the contiguous one.
        self.elementwise = False
        self.row_wise: str | None = None
        self.right_identity: float | None = None
        self.shape_role: str | None = None
        # The SBP rule for global tensors: fn(attrs, metas, sbps) -> Signature | None, one mesh
        # dimension at a time (metas: each input's logical (shape, dtype)). None: box to broadcast.
        self.sbp_rule: Callable | None = None
        OP_REGISTRY[name] = self

    def tag(self, *, row_wise: str | None = None, right_identity=None, shape_role: str | None = None,
            sbp: Callable | None = None, elementwise: bool | None = None) -> OpExpr:
        """Say what graph mode and global tensors need to know of this primitive (see the module's
        docstring; ``sbp`` is the SBP rule, ``ember/ops/sbp_rules.py``); returns it."""
        if row_wise not in (None, "rows", "features"):
            raise ValueError(f"OpExpr {self.name!r}: row_wise must be 'rows' or 'features', got {row_wise!r}")
        if shape_role not in (None, "permute", "reshape", "identity_if_same_shape"):
            raise ValueError(f"OpExpr {self.name!r}: unknown shape_role {shape_role!r}")
        self.row_wise = row_wise or self.row_wise
        self.right_identity = self.right_identity if right_identity is None else right_identity
        self.shape_role = shape_role or self.shape_role
        self.sbp_rule = sbp or self.sbp_rule
        self.elementwise = self.elementwise if elementwise is None else elementwise
        return self

    def shape_rule(self, fn: Callable) -> Callable:
        """Decorator: register the inference rule."""
        self.infer = fn
        return fn

    def grad_rule(self, saves: str | tuple = "inputs") -> Callable:
        """Decorator: register the derivative ``fn(ctx, *grad_outputs) -> grad per input``.

        ``saves`` says what the backward node keeps: "inputs", "outputs", "both" or "none", or
        a tuple of input and output names (``("input", "weight", "mean", "var")``): only those,
        as PyTorch's derivatives.yaml saves, so in-place writes to the others stay allowed.
        ``ctx.inputs`` / ``ctx.outputs`` give them back (version-checked; None for one not
        kept), ``ctx.attrs`` the attributes. Written with ember's ops, so it is itself
        differentiable.
        """
        keep_inputs = keep_outputs = None
        if not isinstance(saves, str):
            unknown = [n for n in saves if n not in self.inputs and n not in self.outputs]
            both = [n for n in saves if n in self.inputs and n in self.outputs]
            if unknown or both:
                raise ValueError(f"grad_rule of '{self.name}': saves names {unknown or both}, not exactly one input or output of {self}")
            # positions; a kept last input keeps every position from its own on (index's tensors)
            keep_inputs = frozenset(i for i, n in enumerate(self.inputs) if n in saves)
            tail = len(self.inputs) - 1 if self.inputs and self.inputs[-1] in saves else None
            keep_inputs = (keep_inputs, tail if tail is not None else 1 << 30)
            keep_outputs = frozenset(i for i, n in enumerate(self.outputs) if n in saves)
            saves = ("both" if keep_outputs else "inputs") if keep_inputs[0] else ("outputs" if keep_outputs else "none")

        def register(fn: Callable) -> Callable:
            fn.saves = saves
            fn.keep_inputs = keep_inputs  # None: every input (or output) when saves says so
            fn.keep_outputs = keep_outputs
            self.derivative = fn
            return fn

        return register

    def view_rule(self, fn: Callable) -> Callable:
        """Decorator: register a view op's metadata-only implementation."""
        self.view = fn
        return fn

    @property
    def is_view(self) -> bool:
        return self.view is not None

    def __repr__(self) -> str:
        return f"OpExpr({self.name!r}, inputs={self.inputs}, outputs={self.outputs})"

    def __reduce__(self):
        return (get_op, (self.name,))


OP_REGISTRY: dict[str, OpExpr] = {}


def get_op(name: str) -> OpExpr:
    try:
        return OP_REGISTRY[name]
    except KeyError:
        raise KeyError(f"no primitive op named {name!r}") from None


def _named_copy(fn: Callable, name: str) -> Callable:
    """``fn`` with its own code object named ``name`` (kernels made by one factory share a
    code object; tracebacks and traces tell them apart by the name)."""
    if not isinstance(fn, types.FunctionType) or fn.__code__.co_name == name:
        return fn
    code = fn.__code__.replace(co_name=name, co_qualname=name) if hasattr(fn.__code__, "co_qualname") else fn.__code__.replace(co_name=name)
    copy = types.FunctionType(code, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__qualname__ = name
    return copy


def register_kernel(op_name: str, device_type: str = "cpu") -> Callable:
    """Decorator: register ``fn(outs, ins, attrs)`` as ``op_name``'s kernel on a device type."""

    def register(fn: Callable) -> Callable:
        op = get_op(op_name)
        if device_type in op.kernels:
            raise ValueError(f"a {device_type} kernel for {op_name!r} is already registered")
        op.kernels[device_type] = _named_copy(fn, f"{op_name}_{device_type}")
        return fn

    return register
