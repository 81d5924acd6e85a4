"""Fused elementwise programs: a chain of elementwise primitives run as one kernel.

Graph mode finds chains such as ``relu(a * b + c) * 0.5`` and hands them here as a
:class:`FusedProgram`: a list of steps, each one an elementwise primitive applied to program
inputs or earlier steps. The program runs every step's own CPU kernel (the eager kernel, so
promotion, casting and edge cases are exactly eager mode's), but never materializes a
full-size intermediate:

- **Chunked** (outputs larger than one chunk): the broadcast output is cut into cache-sized
  chunks, and the whole chain runs on one chunk before the next. Intermediates live in small
  scratch buffers (one per live value and dtype, reused in place across steps, chunks and
  calls), so main memory sees the inputs once and the outputs once. A chunk's scratch buffers
  together fill the core's L2 (its size read from the OS: ``_core/caches.py``), but a chunk
  has at least 64K elements, as each costs a few microseconds of Python. With ``threads`` > 1
  the chunks are dealt out in contiguous runs on ember's pool (``_core/threads.py``), each
  run with a scratch of its own. Inputs of any
  strides and broadcast shapes are read through strided views; dimensions that every operand
  walks alike are merged first (NumPy's iterator does the same), so a bias of shape (200,)
  against (64, 200) chunks along rows and a contiguous chain chunks along one flat axis.
- **Whole** (at most one chunk: the small arrays of a small model's training step): one
  kernel call per step on whole arrays, into the same reused scratch buffers. No slicing.

Steps whose result is smaller than the program's broadcast shape (``exp(bias)`` before it is
added to a matrix) run whole before the chunk loop; the chunked steps then read them as
broadcast operands.

Measured (``benchmarks/run.py --filter fusion --threads 1``; 2-core shared AMD EPYC VM, NumPy
2.4, medians): ``relu(a * b + c) * 0.5`` on 16M float32 takes 12.8 ms into a preallocated output
(17 ms allocating it: a fresh 64 MiB faults its pages in), against NumPy step by step 31 ms,
NumPy writing every step into a preallocated output (whole-array evaluation with buffer
reuse, the other candidate mechanism) 19 ms, PyTorch the same way 16 ms, ember eager 42 ms.
One pass of ``np.add(a, b, out=o)`` takes 6.3 ms, so streaming 3 inputs and 1 output costs
~8 ms; the rest is the in-cache passes, which one thread cannot overlap with memory traffic
(``threads=2`` splits the chunks: 8.4-12 ms on the shared cores). Chunk size: 64K float32
~1.2x slower than 256K (Python's per-chunk calls), 512K-1M no better. 64x200 float32 (one
chunk): 9 us, NumPy step by step 10.3 us, ember eager 22 us.

Every step runs its op's own CPU kernel, so a fused chain computes exactly what eager mode
computes, and a kernel made faster is faster here too (``relu``'s compares against cached zero
rows: NumPy's ``maximum`` against a 0-d zero has no SIMD loop).

>>> import numpy as np, ember
>>> from ember.dispatch import OP_REGISTRY as ops
>>> prog = FusedProgram(
...     [(ops["mul"], (("in", 0), ("in", 1)), {}), (ops["add"], (("step", 0), ("in", 2)), {}),
...      (ops["relu"], (("step", 1),), {}), (ops["mul_scalar"], (("step", 2),), {"other": 0.5})],
...     [((4,), ember.float32)] * 3, [3])
>>> a = np.array([1, -2, 3, 4], np.float32)
>>> prog([a, a, -a])[0].tolist()
[0.0, 3.0, 3.0, 6.0]
"""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..._core.allocator import HUGE_PAGE_THRESHOLD, get_allocator
from ..._core.caches import cache_sizes
from ..._core.threads import parallel_map
from ...ops import functional as F
from ..elementwise import is_elementwise

__all__ = ["MIN_CHUNK_ELEMS", "FusedProgram", "default_chunk_elems"]

# A chunk's temporaries (its scratch buffers) fill the core's L2 at most, but a chunk is never
# under 64K elements: each chunk costs ~4-7 us of Python (views, one kernel call per step).
# Measured (16M float32 relu(a*b+c)*0.5, 1 thread, CPU time, 512 KiB L2): 16K float32 per chunk
# 2.60x a one-pass np.add, 32K 2.37x, 64K 2.32x, 128K (the L2) 2.14x, 256K-512K 2.24x.
MIN_CHUNK_ELEMS = 1 << 16
_PLAN_CACHE_LIMIT = 16

# ---------------------------------------------------------------------------------------
# kernels


def default_chunk_elems(itemsize: int, buffers: int) -> int:
    """Elements per chunk when ``buffers`` scratch buffers of ``itemsize`` bytes each are live
    in a chunk: together they fill the L2 (read from the OS), never under MIN_CHUNK_ELEMS.

    >>> default_chunk_elems(4, 1) >= MIN_CHUNK_ELEMS
    True
    """
    return max(MIN_CHUNK_ELEMS, cache_sizes()[2] // (max(1, buffers) * max(1, itemsize)))


def _contiguous_inputs(kernel):
    def run(outs, ins, attrs):
        kernel(outs, tuple([x if x.flags.c_contiguous else np.ascontiguousarray(x) for x in ins]), attrs)

    return run


def _empty(shape: tuple, np_dtype: np.dtype) -> np.ndarray:
    """An output array: large ones from ember's allocator (huge pages, or the caching
    allocator's free blocks), small ones from NumPy (malloc reuses them warm)."""
    nbytes = math.prod(shape) * np_dtype.itemsize
    if nbytes >= HUGE_PAGE_THRESHOLD:
        return np.ndarray(shape, np_dtype, get_allocator("cpu").allocate(nbytes).buffer)
    return np.empty(shape, np_dtype)


def _broadcast_strides(a: np.ndarray, shape: tuple) -> tuple:
    """``a``'s strides once broadcast to ``shape`` (0 along broadcast dimensions)."""
    lead = len(shape) - a.ndim
    return tuple(0 if i < lead or (a.shape[i - lead] == 1 and d != 1) else a.strides[i - lead] for i, d in enumerate(shape))


def _collapse(shape: tuple, strides: list[tuple]) -> tuple[tuple, list[tuple]]:
    """Drop size-1 dimensions and merge neighbours that every operand walks alike."""
    out_shape: list[int] = []
    out_strides: list[list[int]] = [[] for _ in strides]
    for i, d in enumerate(shape):
        if d == 1:
            continue
        if out_shape and all(s[-1] == st[i] * d for s, st in zip(out_strides, strides, strict=True)):
            out_shape[-1] *= d
            for s, st in zip(out_strides, strides, strict=True):
                s[-1] = st[i]
        else:
            out_shape.append(d)
            for s, st in zip(out_strides, strides, strict=True):
                s.append(st[i])
    return tuple(out_shape), [tuple(s) for s in out_strides]


def _chunks(shape: tuple, chunk_elems: int) -> list[tuple[tuple, tuple]]:
    """``(index, chunk shape)`` pairs that tile ``shape`` (collapsed, no 1s) in C order: the
    trailing axes whole, one axis cut in near-equal blocks, leading axes one index at a time."""
    k = len(shape) - 1
    inner = 1
    while k >= 0 and inner * shape[k] <= chunk_elems:
        inner *= shape[k]
        k -= 1
    if k < 0:
        return [((), shape)]
    rows = max(1, chunk_elems // inner)
    blocks = -(-shape[k] // rows)
    rows = -(-shape[k] // blocks)
    out = []
    for lead in np.ndindex(*shape[:k]):
        for r in range(0, shape[k], rows):
            stop = min(r + rows, shape[k])
            out.append(((*lead, slice(r, stop)), (stop - r, *shape[k + 1 :])))
    return out


class _Plan:
    """The chunk geometry for one set of operand strides."""

    __slots__ = ("chunks", "shape", "strides")

    def __init__(self, shape, strides, chunks):
        self.shape = shape
        self.strides = strides
        self.chunks = chunks


class _Scratch:
    """One caller's scratch: whole-shape buffers of the steps that run whole, and flat
    chunk buffers (with their views per chunk shape) of the steps that run chunked."""

    __slots__ = ("chunk_flat", "chunk_views", "whole")

    def __init__(self, whole_keys, chunk_keys, chunk_elems):
        self.whole = [np.empty(shape, dt) for shape, dt in whole_keys]
        self.chunk_flat = [np.empty(chunk_elems, dt) for dt in chunk_keys]
        self.chunk_views: dict[tuple, list] = {}

    def views(self, shape: tuple) -> list:
        v = self.chunk_views.get(shape)
        if v is None:
            n = math.prod(shape)
            v = self.chunk_views[shape] = [b[:n].reshape(shape) for b in self.chunk_flat]
        return v


# ---------------------------------------------------------------------------------------
# the program


def _compile(plan: list):
    """``run(frame)`` making the plan's kernel calls, unrolled: one line per step, with the
    kernels and attributes bound as constants (a loop over the plan costs ~0.3 us a step more)."""
    env: dict = {}
    lines = ["def run(f):"]
    for j, (kernel, ins, out, attrs) in enumerate(plan):
        env[f"k{j}"], env[f"a{j}"] = kernel, attrs
        args = "".join(f"f[{i}], " for i in ins)
        lines.append(f"    k{j}((f[{out}],), ({args}), a{j})")
    if not plan:
        lines.append("    pass")
    exec(compile("\n".join(lines), "<fused elementwise program>", "exec"), env)  # our own generated code
    return env["run"]


def _slot_allocator(keys: list):
    """A pool of buffers by key: take(key) reuses a released buffer (the last released
    first: still in cache) or makes a new one; keys[i] is buffer i's key."""
    free: dict = {}

    def take(key) -> int:
        pool = free.get(key)
        if pool:
            return pool.pop()
        keys.append(key)
        return len(keys) - 1

    def release(key, slot: int) -> None:
        free.setdefault(key, []).append(slot)

    return take, release


class FusedProgram:
    """A chain of elementwise primitives run as one kernel over NumPy arrays.

    ``steps``: ``(op, args, attrs)`` per step, ``op`` an elementwise ``OpExpr`` (see
    :func:`is_elementwise`), ``args`` a tuple of refs, ``("in", i)`` for the i-th program input
    or ``("step", j)`` for an earlier step's result, ``attrs`` the primitive's attributes.
    ``inputs``: ``(shape, dtype)`` of each program input (concrete shapes, ember dtypes).
    ``outputs``: the step indices whose results leave the program, in order.

    Each step's shape and dtype come from its op's inference rule (run here on meta tensors,
    so a dtype the op refuses fails now, with the op's own message). Steps that no output
    needs are dropped.

    ``prog(in_arrays, out_arrays=None)`` checks the arrays' shapes and dtypes, runs the chain
    and returns the output arrays: fresh ones, or ``out_arrays`` (each of its output's exact
    shape and dtype, any strides; one that overlaps an input is written through a temporary).
    A program may be called from several threads at once: each call takes its own scratch.
    """

    def __init__(
        self, steps: Sequence, inputs: Sequence, outputs: Sequence[int], *, chunk_bytes: int | None = None, threads: int = 1
    ) -> None:
        self.input_specs = [(tuple(int(d) for d in shape), dtype) for shape, dtype in inputs]
        n_in = len(self.input_specs)
        outputs = [int(o) for o in outputs]
        if not outputs:
            raise ValueError("FusedProgram: at least one output is needed")
        if len(set(outputs)) != len(outputs):
            raise ValueError(f"FusedProgram: outputs name a step twice: {outputs}")

        # 1. inference, step by step, on meta tensors
        metas = [F.empty(shape, dtype=dtype, device="meta") for shape, dtype in self.input_specs]
        specs = list(self.input_specs)  # (shape, dtype) per value: inputs, then steps
        parsed = []
        for j, step in enumerate(steps):
            op, args, attrs = step
            attrs = dict(attrs or {})
            if not is_elementwise(op):
                raise ValueError(f"FusedProgram: step {j} ({getattr(op, 'name', op)!r}) is not an elementwise primitive")
            if len(args) != len(op.inputs):
                raise ValueError(f"FusedProgram: step {j} ({op.name}) takes {len(op.inputs)} inputs, got {len(args)}")
            ids = []
            for ref in args:
                kind, i = ref
                if kind == "in" and 0 <= i < n_in:
                    ids.append(i)
                elif kind == "step" and 0 <= i < j:
                    ids.append(n_in + i)
                else:
                    raise ValueError(
                        f"FusedProgram: step {j} ({op.name}): bad reference {ref!r} (inputs: {n_in}, earlier steps: {j})"
                    )
            (shape, dtype), *rest = op.infer(attrs, *[metas[i] for i in ids])
            shape = tuple(int(d) for d in shape)
            if rest:
                raise ValueError(f"FusedProgram: step {j} ({op.name}) has more than one output")
            expected = np.broadcast_shapes(*[specs[i][0] for i in ids])
            if shape != expected:
                raise ValueError(
                    f"FusedProgram: step {j} ({op.name}) gives shape {shape}, not the broadcast {expected} of its inputs: not elementwise"
                )
            specs.append((shape, dtype))
            metas.append(F.empty(shape, dtype=dtype, device="meta"))
            parsed.append((op, ids, attrs))
        for o in outputs:
            if not 0 <= o < len(parsed):
                raise ValueError(f"FusedProgram: output {o} is not a step index (steps: {len(parsed)})")

        # 2. dead steps out; last use of every value
        needed = {n_in + o for o in outputs}
        for j in range(len(parsed) - 1, -1, -1):
            if n_in + j in needed:
                needed.update(parsed[j][1])
        live = [j for j in range(len(parsed)) if n_in + j in needed]
        self.steps = [(parsed[j][0], parsed[j][2]) for j in live]
        self.output_specs = [specs[n_in + o] for o in outputs]
        self._out_np = [(shape, dtype.numpy_dtype) for shape, dtype in self.output_specs]
        self._in_np = [(shape, dtype.numpy_dtype) for shape, dtype in self.input_specs]
        shapes = [specs[n_in + j][0] for j in live]
        self.shape = np.broadcast_shapes(*shapes)  # every step's shape broadcasts to it
        out_index = {n_in + o: k for k, o in enumerate(outputs)}

        itemsize = max(specs[v][1].numpy_dtype.itemsize for v in range(len(specs)) if v < n_in or v - n_in in live)
        # (from the caches: sized for one scratch buffer now, refined below once their count is known)
        self.chunk_elems = default_chunk_elems(itemsize, 1) if chunk_bytes is None else max(1, chunk_bytes // max(itemsize, 1))
        size = math.prod(self.shape)
        chunked = size > self.chunk_elems
        # steps of the full shape run chunked; smaller ones (and everything, when small) whole
        main = [j for j in live if chunked and specs[n_in + j][0] == self.shape]
        pre = [j for j in live if j not in set(main)]
        self.mode = "chunked" if main else "whole"

        main_values = {n_in + j for j in main}
        last_use: dict[int, int] = {}
        for j in live:
            for i in parsed[j][1]:
                last_use[i] = j
        # inputs and whole-step results that chunked steps read: operands of the chunk loop
        external = sorted({i for j in main for i in parsed[j][1] if i not in main_values})
        for i in external:
            last_use[i] = len(parsed)  # read until the chunk loop ends

        # 3. the whole-array steps: frame = inputs + outputs + whole scratch
        n_out = len(outputs)
        whole_keys: list = []
        frame_of: dict[int, int] = {i: i for i in range(n_in)}
        frame_of.update({v: n_in + k for v, k in out_index.items()})
        self._pre = self._schedule(pre, parsed, specs, n_in, out_index, last_use, frame_of, n_in + n_out, whole_keys, True)

        # 4. the chunked steps: frame = operand chunks (external values, then outputs) + chunk scratch
        operands = external + [n_in + j for j in main if n_in + j in out_index]
        self._operands = [frame_of[v] for v in operands]  # whole-frame index of each operand's array
        self._operand_writes = [v in out_index for v in operands]
        chunk_frame = {v: p for p, v in enumerate(operands)}
        chunk_keys: list = []
        self._main = self._schedule(main, parsed, specs, n_in, out_index, last_use, chunk_frame, len(operands), chunk_keys, False)
        if chunk_bytes is None and chunk_keys:
            self.chunk_elems = default_chunk_elems(itemsize, len(chunk_keys))  # only smaller: a chunked program stays chunked
        self._run_pre = _compile(self._pre)
        self._run_main = _compile(self._main)
        self._out_alloc = [(shape, dt, math.prod(shape) * dt.itemsize < HUGE_PAGE_THRESHOLD) for shape, dt in self._out_np]
        self.threads = max(1, int(threads))
        self._whole_keys = whole_keys
        self._chunk_keys = chunk_keys
        self._pool: list[_Scratch] = []
        self._plans: dict[tuple, _Plan] = {}

    def _schedule(self, order, parsed, specs, n_in, out_index, last_use, frame_of, base, keys, whole) -> list:
        """``(kernel, input frame indices, output frame index, attrs)`` per step of ``order``;
        results that leave the program are already in ``frame_of``, the others get scratch
        buffers (``keys`` collects one key per buffer), reused as soon as their value dies:
        a step whose operand dies there writes over it (in place, exactly aliased, which every
        elementwise kernel supports: eager in-place ops do the same)."""
        take, release = _slot_allocator(keys)

        def key(v):
            shape, dtype = specs[v]
            return (shape, dtype.numpy_dtype) if whole else dtype.numpy_dtype

        plan = []
        for j in order:
            op, ids, attrs = parsed[j]
            v = n_in + j
            for i in dict.fromkeys(ids):  # operands dying here free their buffers first
                if i >= n_in and last_use[i] == j and i not in out_index:
                    release(key(i), frame_of[i] - base)
            if v not in out_index:
                frame_of[v] = base + take(key(v))
            kernel = op.kernels["cpu"]  # the op's own kernel, as eager mode runs it
            if not op.strided:
                kernel = _contiguous_inputs(kernel)
            plan.append((kernel, tuple(frame_of[i] for i in ids), frame_of[v], attrs))
        return plan

    # -----------------------------------------------------------------------------------

    def __call__(self, in_arrays: Sequence[np.ndarray], out_arrays: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
        if len(in_arrays) != len(self._in_np):
            raise ValueError(f"FusedProgram: expected {len(self._in_np)} input arrays, got {len(in_arrays)}")
        for a, (shape, dt) in zip(in_arrays, self._in_np):  # noqa: B905 - lengths checked; this is the hot path
            if type(a) is not np.ndarray or a.shape != shape or (a.dtype is not dt and a.dtype != dt):
                self._check_inputs(in_arrays)
        if out_arrays is None:
            outs = [np.empty(shape, dt) if small else _empty(shape, dt) for shape, dt, small in self._out_alloc]
        else:
            outs = self._check_outs(in_arrays, out_arrays)
            if outs is None:  # an output overlaps an input: compute into fresh arrays, then copy
                for o, f in zip(out_arrays, self(in_arrays), strict=True):
                    np.copyto(o, f)
                return list(out_arrays)
        pool = self._pool
        scratch = pool.pop() if pool else self._new_scratch()
        frame = [*in_arrays, *outs, *scratch.whole]
        self._run_pre(frame)
        if self._main:
            self._run_chunks(frame, scratch)
        pool.append(scratch)  # (a kernel that raised leaves its scratch to the garbage collector)
        return outs

    def _new_scratch(self) -> _Scratch:
        return _Scratch(self._whole_keys, self._chunk_keys, self.chunk_elems)

    def _check_inputs(self, in_arrays) -> None:
        for k, (a, (shape, dt)) in enumerate(zip(in_arrays, self._in_np, strict=True)):
            if not isinstance(a, np.ndarray):
                raise TypeError(f"FusedProgram: input {k} must be a NumPy array, got {type(a).__name__}")
            if a.shape != shape or a.dtype != dt:
                raise ValueError(f"FusedProgram: input {k} must have shape {shape} and dtype {dt}, got {a.shape} {a.dtype}")

    def _check_outs(self, in_arrays, out_arrays) -> list | None:
        if len(out_arrays) != len(self._out_np):
            raise ValueError(f"FusedProgram: expected {len(self._out_np)} output arrays, got {len(out_arrays)}")
        for k, (o, (shape, dt)) in enumerate(zip(out_arrays, self._out_np, strict=True)):
            if not isinstance(o, np.ndarray) or o.shape != shape or (o.dtype is not dt and o.dtype != dt):
                got = f"{o.shape} {o.dtype}" if isinstance(o, np.ndarray) else type(o).__name__
                raise ValueError(f"FusedProgram: output {k} must be an array of shape {shape} and dtype {dt}, got {got}")
            if not o.flags.writeable:
                raise ValueError(f"FusedProgram: output {k} is read-only")
            for a in in_arrays:
                if np.may_share_memory(o, a) and o.size and a.size:
                    return None
        return list(out_arrays)

    def _run_chunks(self, frame: list, scratch: _Scratch) -> None:
        arrays = [frame[i] for i in self._operands]
        key = tuple([a.strides for a in arrays])
        plan = self._plans.get(key)
        if plan is None:
            strides = [_broadcast_strides(a, self.shape) for a in arrays]
            cshape, cstrides = _collapse(self.shape, strides)
            plan = _Plan(cshape, cstrides, _chunks(cshape, self.chunk_elems))
            if len(self._plans) >= _PLAN_CACHE_LIMIT:
                self._plans.clear()
            self._plans[key] = plan
        # a 0-d operand stays 0-d: the kernels promote it as eager mode does (weak next to a tensor)
        views = [
            as_strided(a, plan.shape, s, writeable=w) if a.ndim else a
            for a, s, w in zip(arrays, plan.strides, self._operand_writes, strict=True)
        ]
        chunks = plan.chunks
        if min(self.threads, len(chunks)) <= 1:
            self._run_chunk_range(views, chunks, scratch)
            return
        # more threads: contiguous runs of chunks on ember's pool, each run with a scratch of its
        # own from the program's pool, reused across calls (NumPy's loops release the GIL)
        caller = threading.get_ident()  # the calling thread takes the first run, with the call's scratch

        def run(chunk_run: list) -> list:
            if threading.get_ident() == caller:
                self._run_chunk_range(views, chunk_run, scratch)
                return []
            return self._run_pooled(views, chunk_run)

        parallel_map(run, chunks, threads=self.threads)

    def _run_pooled(self, views: list, chunks: list) -> list:
        pool = self._pool
        scratch = pool.pop() if pool else self._new_scratch()  # list.pop/append: atomic under the GIL
        self._run_chunk_range(views, chunks, scratch)
        pool.append(scratch)  # (a kernel that raised leaves its scratch to the garbage collector)
        return []

    def _run_chunk_range(self, views: list, chunks: list, scratch: _Scratch) -> None:
        run = self._run_main
        for index, shape in chunks:
            frame = [v[index] if v.ndim else v for v in views]
            frame += scratch.views(shape)
            run(frame)

    def __repr__(self) -> str:
        ops = " -> ".join(op.name for op, _ in self.steps)
        return f"FusedProgram({ops}; shape={self.shape}, {self.mode}, {len(self.input_specs)} in, {len(self.output_specs)} out)"
