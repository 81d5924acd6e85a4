"""Row splitting: a static plan whose results are computed row by row runs in blocks of rows.

A forward pass over a batch (linear layers, elementwise ops, softmax over features) computes
row ``i`` of every result from row ``i`` of the inputs and whole weights. Running the plan on
a block of rows at a time keeps only a block's intermediates alive, so the peak memory of an
MLP's forward pass drops from two full activations to two blocks of them (the blocks stay
large enough for BLAS to run at full speed). Steps that touch no row (a weight's transpose)
run once before the blocks. Anything else in the plan (a reduction over the batch, a view of
a batched tensor, a write-back) leaves the plan as it is.
"""

from __future__ import annotations

import numpy as np

from ..._core.device import CPU
from ...dispatch.interpreter import OutputSpec, new_output
from ...dispatch.opexpr import OP_REGISTRY

__all__ = ["BLOCK_BYTES", "split_rows"]

BLOCK_BYTES = 512 * 1024  # per row-block intermediate: L2-sized, and >= 16 rows keep matmuls efficient
_MIN_ROWS = 16


def _row_rules(plan, row: set, batch: int):
    """The kernel steps split into (before-the-blocks steps, per-block steps), or None when a
    step mixes rows."""
    pre, per_block = [], []
    for step in plan.steps:
        kind, ins, outs, _, info = step
        if kind != "kernel":  # a view (ins: its base's slot) or an alias (ins, outs: one slot each)
            if ins in row:
                return None
            pre.append(step)
            continue
        touched = [k for k, s in enumerate(ins) if s in row]
        if not touched:
            pre.append(step)
            continue
        name = info[4]
        out_t = plan.templates[outs[0]]
        rank = len(out_t._shape)
        if not out_t._shape or out_t._shape[0] != batch or len(outs) != 1:
            return None
        row_wise = getattr(OP_REGISTRY.get(name), "row_wise", None)  # tagged beside the op
        if row_wise == "rows":  # input 0 is the rows, the others whole
            if touched != [0] or len(plan.templates[ins[0]]._shape) != 2:
                return None
        elif row_wise == "features":  # row-wise when the reduced dim is not the batch
            if info[0].get("dim") in (0, -rank):
                return None
        elif info[3] and name != "Fused":  # elementwise: rows meet whole operands that broadcast along the batch
            for k, s in enumerate(ins):
                shape = plan.templates[s]._shape
                if k in touched:
                    if len(shape) != rank or shape[0] != batch:
                        return None
                elif len(shape) == rank and shape[0] != 1:
                    return None
        else:
            return None
        row.add(outs[0])
        per_block.append(step)
    return pre, per_block


def split_rows(plan, row_feeds: list) -> bool:
    """Re-emit ``plan.run`` to work in blocks of rows when every fetch is computed row by row
    from ``row_feeds``; returns whether it did."""
    shapes = [plan.templates[s]._shape for s in row_feeds]
    if not shapes or any(not sh for sh in shapes) or len({sh[0] for sh in shapes}) != 1 or plan.inplace:
        return False
    batch = shapes[0][0]
    row = set(row_feeds)
    rules = _row_rules(plan, row, batch)
    if rules is None or not all(s in row for s in plan.fetch_slots) or set(plan.fetch_slots) & set(row_feeds):
        return False
    pre, per_block = rules
    if not per_block:
        return False
    row_bytes = max(plan.templates[s]._dtype.itemsize * int(np.prod(plan.templates[s]._shape[1:], dtype=np.int64)) for s in row)
    rows = max(_MIN_ROWS, BLOCK_BYTES // max(row_bytes, 1))
    if rows * 2 > batch:
        return False
    _emit(plan, pre, per_block, row_feeds, rows, batch)
    return True


def _block_buffers(plan, per_block: list, rows: int) -> tuple[dict, int]:
    """A block-sized buffer per intermediate row slot, shared by liveness."""
    fetched = set(plan.fetch_slots)
    last = {}
    for i, (_, ins, _, _, _) in enumerate(per_block):
        for s in ins:
            last[s] = i
    free: dict = {}
    pending: list = []
    buffers, live, peak = {}, 0, 0
    for i, (_, _, outs, _, _) in enumerate(per_block):
        for entry in [p for p in pending if p[0] < i]:
            pending.remove(entry)
            free.setdefault(entry[1], []).append(entry[2])
            live -= entry[1]
        for s in outs:
            if s in fetched:
                continue
            t = plan.templates[s]
            shape = (rows, *t._shape[1:])
            nbytes = int(np.prod(shape, dtype=np.int64)) * t._dtype.itemsize
            pool = free.get(nbytes)
            buffer = pool.pop() if pool else np.empty(nbytes, np.uint8)
            buffers[s] = buffer.view(t._dtype.numpy_dtype).reshape(shape)
            live += nbytes
            peak = max(peak, live)
            pending.append((last.get(s, i), nbytes, buffer))
    return buffers, peak


def _emit(plan, pre: list, per_block: list, row_feeds: list, rows: int, batch: int) -> None:
    buffers, block_peak = _block_buffers(plan, per_block, rows)
    env = {"NEW": new_output, "CPU": CPU, "ascontiguousarray": np.ascontiguousarray}
    lines = ["def run(feeds):"]
    if plan.feed_slots:
        lines.append(f"    {', '.join(f'f{s}' for s in plan.feed_slots)}, = feeds")
        lines += [f"    v{s} = f{s}" for s in plan.feed_slots if s not in row_feeds]
    for s, array in plan.consts.items():
        env[f"c{s}"] = array
        lines.append(f"    v{s} = c{s}")
    pre_bytes = 0
    for i, (kind, ins, outs, kernel, info) in enumerate(pre):
        if kind == "view":
            for s in outs:
                env[f"L{s}"] = plan.layouts[s]
                lines.append(f"    v{s} = L{s}.view(v{plan.layouts[s].root})")
            continue
        if kind != "kernel":
            lines.append(f"    v{outs} = v{ins}")
            continue
        for s in outs:
            env[f"b{s}"] = plan.fixed[s]
            pre_bytes += plan.fixed[s].nbytes
            lines.append(f"    v{s} = b{s}")
        env[f"p{i}"], env[f"pa{i}"] = kernel, info[0]
        args = ", ".join(f"v{s}" if info[1] else f"ascontiguousarray(v{s})" for s in ins)
        lines.append(f"    p{i}([{', '.join(f'v{s}' for s in outs)}], [{args}], pa{i})")
    for s in plan.fetch_slots:
        env[f"spec{s}"] = OutputSpec(plan.templates[s]._shape, plan.templates[s]._dtype)
        lines.append(f"    t{s} = NEW(spec{s}, CPU); F{s} = t{s}._np")
    lines.append(f"    for r0 in range(0, {batch}, {rows}):")
    lines.append(f"        r1 = min(r0 + {rows}, {batch}); n = r1 - r0")
    lines += [f"        v{s} = f{s}[r0:r1]" for s in row_feeds]
    fetched = set(plan.fetch_slots)
    for i, (_, ins, outs, kernel, info) in enumerate(per_block):
        for s in outs:
            if s in fetched:
                lines.append(f"        v{s} = F{s}[r0:r1]")
            else:
                env[f"B{s}"] = buffers[s]
                lines.append(f"        v{s} = B{s}[:n]")
        env[f"k{i}"], env[f"a{i}"] = kernel, info[0]
        lines.append(f"        k{i}([{', '.join(f'v{s}' for s in outs)}], [{', '.join(f'v{s}' for s in ins)}], a{i})")
    lines.append(f"    return [{', '.join(f'(F{s}, t{s})' for s in plan.fetch_slots)}]")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<ember.graph.plan (row blocks)>", "exec"), env)  # code generated from the plan above
    plan.source = source
    plan.run = env["run"]
    plan.peak_bytes = pre_bytes + block_peak
    plan.row_block = rows
