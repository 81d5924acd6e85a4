"""The static plan: a plan whose shapes are all known, run on NumPy arrays with planned memory.

When every tensor of a plan has a known shape, everything the eager interpreter decides per
call (devices, inference, output allocation, the stream) can be decided once. This executor
does that: each step becomes the op's CPU kernel with its input and output arrays fixed in
advance, views become precomputed layouts over their root buffer, and intermediate buffers
are assigned by liveness, so two intermediates whose lifetimes do not overlap share memory
(the graph's memory planning). What leaves the plan (fetches, values written back into
captured tensors, gradients) gets fresh memory each run, except an elementwise result that is
written back into a tensor nothing later reads: that one is computed in place.
"""

from __future__ import annotations

import numpy as np

from ..._core import dtype as _dt
from ..._core.device import CPU
from ..._core.shape import contiguous_strides
from ..._core.tensor import Tensor, empty_tensor, make_tensor
from ...dispatch.interpreter import EAGER, OutputSpec, new_output
from ...interop.numpy import from_numpy
from ..elementwise import is_elementwise
from ..symbolic import SymInt, evaluate
from ..tensor import symbolic_storage
from .row_split import split_rows

__all__ = ["ArrayPlan", "NotStatic", "wrap"]


class NotStatic(Exception):
    """This plan needs the general executor (unknown sizes, variables, graph-only ops)."""


def _template(shape: tuple, dtype: _dt.DType) -> Tensor:
    """A contiguous tensor of ``shape`` on a storage that never allocates (view rules read
    only the layout)."""
    return make_tensor(symbolic_storage(shape, dtype, "plan template"), 0, shape, contiguous_strides(shape), dtype)


class _Layout:
    """A view slot: where its elements sit in its root slot's buffer."""

    __slots__ = ("dtype", "offset", "root", "shape", "strides")

    def __init__(self, root: int, t: Tensor) -> None:
        self.root = root
        self.offset = t._offset * t._dtype.itemsize
        self.shape = tuple(t._shape)
        self.strides = tuple(s * t._dtype.itemsize for s in t._stride)
        self.dtype = t._dtype.numpy_dtype

    def view(self, root: np.ndarray) -> np.ndarray:
        return np.ndarray(self.shape, self.dtype, root, self.offset, self.strides)


class ArrayPlan:
    """A compiled plan over arrays; ``run(feeds)`` takes and returns NumPy arrays."""

    def __init__(self, plan, write_targets: dict | None = None, row_feeds: tuple = (), env: dict | None = None) -> None:
        """``plan``: a general ``Plan``. ``write_targets`` maps a fetch slot to the feed slot whose
        tensor receives it (a write-back): computed in place when safe. ``row_feeds``: indices of
        the feeds whose first dimension is a batch of independent rows (the arguments); a plan
        that computes every fetch row by row from them runs in blocks of rows (``row_split.py``).
        ``env``: sizes of the unknown dimensions (from the fed shapes), for a plan specialised to them."""
        write_targets = write_targets or {}
        self.env = env
        templates: dict = {}
        consts: dict = {}
        for s, value in enumerate(plan.template):
            if value is not None:
                array = value._numpy_view()
                if not array.flags.c_contiguous:  # (not ascontiguousarray: it makes a 0-d array 1-d)
                    array = array.copy(order="C")
                consts[s] = array
                templates[s] = _template(tuple(array.shape), value._dtype)
        feed_slots = plan.feed_slots
        for step in plan.steps:
            if step.kind not in ("primitive", "Identity", "Fused") or step.reads:
                raise NotStatic(step.op.kind)
            for t, s in zip(step.op.inputs, step.ins, strict=True):
                self._meta(t, s, templates, env)
        for s, t in zip(feed_slots, plan.feed_tensors, strict=True):
            self._meta(t, s, templates, env)
        self.steps = []
        self._next_slot = plan.nslots  # slots for the intermediates of unfused programs
        roots: dict = {}  # slot -> root slot (itself for a buffer)
        layouts: dict = {}
        for s in templates:
            roots[s] = s
        for i, step in enumerate(plan.steps):
            op = step.op
            if step.kind == "Identity":
                self.steps.append(("alias", step.ins[0], step.outs[0], None, None))
                roots[step.outs[0]] = roots[step.ins[0]]
                if step.ins[0] in layouts:
                    layouts[step.outs[0]] = layouts[step.ins[0]]
                templates[step.outs[0]] = templates[step.ins[0]]
                continue
            ins_t = tuple(templates[s] for s in step.ins)
            if step.kind == "Fused":  # a chain of elementwise ops run as one program
                fused = op.attrs["program"]
                program = fused.program(tuple(t._shape for t in ins_t))
                if program.mode == "whole":  # small arrays: the member kernels called directly cost less
                    self._unfuse(fused, step, ins_t, templates, roots, i)
                    continue
                for s, (shape, dtype) in zip(step.outs, program.output_specs, strict=True):
                    templates[s] = _template(tuple(shape), dtype)
                    roots[s] = s
                self.steps.append(("kernel", step.ins, step.outs, _fused_kernel(program), ({}, True, i, True, "Fused")))
                continue
            expr = op.op_expr
            if expr.view is not None:
                outs_t = expr.view(step.attrs if not step.symbolic else _evaluate_attrs(step.attrs, env), *ins_t)
                for s, t in zip(step.outs, outs_t, strict=True):
                    root = roots[step.ins[0]]
                    roots[s] = root
                    layouts[s] = _Layout(root, t)
                    templates[s] = t
                self.steps.append(("view", step.ins[0], step.outs, None, None))
                continue
            attrs = step.attrs if not step.symbolic else _evaluate_attrs(step.attrs, env)
            specs = EAGER.infer(expr, ins_t, attrs)
            for s, spec in zip(step.outs, specs, strict=True):
                templates[s] = _template(spec.shape, spec.dtype)
                roots[s] = s
            kernel = expr.kernels.get("cpu")
            if kernel is None:
                raise NotStatic(f"{expr.name} has no CPU kernel")
            self.steps.append(("kernel", step.ins, step.outs, kernel, (attrs, expr.strided, i, is_elementwise(expr), expr.name)))
        self.nslots = max(plan.nslots, self._next_slot)
        self.templates = templates
        self.roots = roots
        self.layouts = layouts
        self.consts = consts
        self.feed_slots = feed_slots
        self.fetch_slots = plan.fetch_slots
        self._assign_memory(plan, write_targets)
        self._compile()
        if row_feeds and not write_targets:
            split_rows(self, [self.feed_slots[k] for k in row_feeds])

    def _unfuse(self, fused, step, ins_t: tuple, templates: dict, roots: dict, i: int) -> None:
        """A fused program's member ops as kernel steps of their own (each output a slot)."""
        slots = {}
        for j, (expr, refs, attrs) in enumerate(fused.steps):
            ins = tuple(step.ins[r[1]] if r[0] == "in" else slots[r[1]] for r in refs)
            if j in fused.outputs:
                out = step.outs[fused.outputs.index(j)]
            else:
                out = self._next_slot
                self._next_slot += 1
            slots[j] = out
            (spec,) = EAGER.infer(expr, tuple(templates[s] for s in ins), attrs)
            if spec.dtype is _dt.string:
                raise NotStatic("a string result: planned buffers are raw bytes, strings are Python objects")
            templates[out] = _template(spec.shape, spec.dtype)
            roots[out] = out
            self.steps.append(("kernel", ins, (out,), expr.kernels["cpu"], (attrs, expr.strided, i, True, expr.name)))

    @staticmethod
    def _meta(t, s: int, templates: dict, env: dict | None = None) -> None:
        if s in templates:
            return
        shape = tuple(t._shape)
        if t._static.rank is None or t._dtype is _dt.string:  # strings: Python objects, not planned bytes
            raise NotStatic(t.name)
        if any(isinstance(d, SymInt) for d in shape):
            if env is None:
                raise NotStatic(t.name)
            try:
                shape = tuple(int(d) for d in evaluate(shape, env))
            except KeyError:  # a size only the run knows (data-dependent)
                raise NotStatic(t.name) from None
        templates[s] = _template(shape, t._dtype)

    def _assign_memory(self, plan, write_targets: dict) -> None:
        """Give every kernel output a buffer: shared by liveness for intermediates, fresh per run
        for what leaves the plan, the target itself for a safe in-place write-back."""
        steps = self.steps
        last_use: dict = {}
        for i, (kind, ins, _outs, _, _info) in enumerate(steps):
            for s in (ins if kind == "kernel" else (ins,)):
                last_use[self.roots[s]] = i
        escaping = {self.roots[s] for s in self.fetch_slots}
        feed_index = {s: k for k, s in enumerate(self.feed_slots)}
        free: dict = {}  # nbytes -> list of buffers
        pending: list = []  # (last use, nbytes, buffer)
        self.fixed: dict = {}  # slot -> array (planned intermediates)
        self.fresh: dict = {}  # slot -> (shape, np dtype): allocated per run
        self.inplace: dict = {}  # slot -> index of the feed it is computed into
        self.peak_bytes = 0
        live_bytes = 0
        for i, (kind, ins, outs, _, info) in enumerate(steps):
            for entry in [p for p in pending if p[0] < i]:  # buffers whose last reader ran: reusable
                pending.remove(entry)
                free.setdefault(entry[1], []).append(entry[2])
                live_bytes -= entry[1]
            if kind != "kernel":
                continue
            for s in outs:
                t = self.templates[s]
                shape, np_dtype = t._shape, t._dtype.numpy_dtype
                nbytes = int(np.prod(shape, dtype=np.int64)) * np_dtype.itemsize
                target = write_targets.get(s)
                if target is not None and info[3] and self._inplace_safe(i, s, target, ins):
                    self.inplace[s] = feed_index[target]
                    continue
                if s in escaping or nbytes == 0:
                    self.fresh[s] = (shape, np_dtype)
                    continue
                pool = free.get(nbytes)
                buffer = pool.pop() if pool else np.empty(nbytes, np.uint8)
                live_bytes += nbytes
                self.peak_bytes = max(self.peak_bytes, live_bytes)
                self.fixed[s] = buffer.view(np_dtype).reshape(shape)
                pending.append((last_use.get(s, i), nbytes, buffer))

    def _inplace_safe(self, i: int, s: int, target: int, ins: tuple) -> bool:
        """Writing step ``i``'s output into the fed ``target`` is safe when nothing after step
        ``i`` reads the target's old value and the shapes and dtypes agree."""
        t_out, t_in = self.templates[s], self.templates[target]
        if t_out._shape != t_in._shape or t_out._dtype is not t_in._dtype:
            return False
        root = self.roots[target]
        for kind, later_ins, _, _, _ in self.steps[i + 1:]:
            for r in later_ins if kind == "kernel" else (later_ins,):
                if self.roots[r] == root:
                    return False
        return True

    def _compile(self) -> None:
        """Write the plan as one straight-line Python function: a line per kernel, arrays and
        attributes bound as constants (a loop over steps cost ~1.7 us a step, this ~0.5)."""
        env = {"NEW": new_output, "CPU": CPU, "ascontiguousarray": np.ascontiguousarray}
        lines = ["def run(feeds):"]
        if self.feed_slots:
            lines.append(f"    {', '.join(f'v{s}' for s in self.feed_slots)}, = feeds")
        for s, array in self.consts.items():
            env[f"c{s}"] = array
            lines.append(f"    v{s} = c{s}")
        contiguous = set(self.consts) | set(self.feed_slots)
        owners = {}
        for i, (kind, ins, outs, kernel, info) in enumerate(self.steps):
            if kind == "kernel":
                for s in outs:
                    if s in self.fixed:
                        env[f"b{s}"] = self.fixed[s]
                        lines.append(f"    v{s} = b{s}")
                    elif s in self.inplace:
                        lines.append(f"    v{s} = v{self.feed_slots[self.inplace[s]]}")
                    else:
                        shape, _ = self.fresh[s]
                        env[f"spec{s}"] = OutputSpec(shape, self.templates[s]._dtype)
                        lines.append(f"    t{s} = NEW(spec{s}, CPU); v{s} = t{s}._np")
                        owners[s] = f"t{s}"
                    contiguous.add(s)
                args = []
                for s in ins:
                    if not info[1] and s not in contiguous:
                        args.append(f"(v{s} if v{s}.flags.c_contiguous else ascontiguousarray(v{s}))")
                    else:
                        args.append(f"v{s}")
                env[f"k{i}"], env[f"a{i}"] = kernel, info[0]
                lines.append(f"    k{i}([{', '.join(f'v{s}' for s in outs)}], [{', '.join(args)}], a{i})")
            elif kind == "view":
                for s in outs:
                    env[f"L{s}"] = self.layouts[s]
                    lines.append(f"    v{s} = L{s}.view(v{self.layouts[s].root})")
            else:
                lines.append(f"    v{outs} = v{ins}")
                if ins in contiguous:
                    contiguous.add(outs)
        fetched = ", ".join(f"(v{s}, {owners.get(s, 'None')})" for s in self.fetch_slots)
        lines.append(f"    return [{fetched}]")
        source = "\n".join(lines) + "\n"
        exec(compile(source, "<ember.graph.plan>", "exec"), env)  # code generated from the plan above
        self.source = source
        self.run = env["run"]


def _evaluate_attrs(attrs: dict, env: dict | None) -> dict:
    if env is None:
        raise NotStatic("attributes computed from unknown sizes")
    try:
        return {k: evaluate(v, env) for k, v in attrs.items()}
    except KeyError:
        raise NotStatic("attributes computed from sizes only the run knows") from None


def _fused_kernel(program):
    def fused(outs, ins, attrs):
        program(ins, outs)

    return fused


def wrap(array: np.ndarray, owner: Tensor | None = None) -> Tensor:
    """An ember tensor for a result: its own fresh tensor, else a copy of the array."""
    if owner is not None:
        return owner
    return tensor_of(np.array(array, order="C"))


def tensor_of(array: np.ndarray) -> Tensor:
    """An ember tensor over a result array; a string result (an object array, which NumPy's
    buffer protocol cannot share) is copied into a string tensor."""
    if array.dtype == object:
        out = empty_tensor(array.shape, _dt.string)
        out._host_array()[...] = array
        return out
    return from_numpy(array)
