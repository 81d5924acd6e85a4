"""Elementwise fusion: connected groups of elementwise ops become one ``Fused`` node.

Rule: walking the nodes in order, an elementwise node (``graph.elementwise.is_elementwise``:
unary and binary math, comparisons, ``where``, ``clamp``... and their ``*_scalar`` forms) joins
the groups of its elementwise producers, merging them, so chains and trees
(``relu(a * b + c) * 0.5``, ``(a * b) + (c * d)``) become one group. A join is refused when it
would make the group non-convex: a path that leaves the group and comes back
(``y = exp(x); z = y + sum(y)``: ``sum`` needs ``y`` before ``z`` can run) would be a cycle once
the group is one node. The check is exact and cheap: every node carries the bit sets of its
ancestors and descendants (Python ints), and a group ``M`` is convex when
``ancestors(M) & descendants(M) & ~M`` is empty. If groups that are each convex still form a
cycle between them, the largest group on it is dissolved.

A group of two or more nodes becomes one node of type ``Fused``: its inputs are the values the
group reads from outside, its outputs the group's values that something outside reads or that
are fetched (the same values: consumers need no rewiring). ``attrs["program"]`` is a
``FusedKernel``: at run time it builds (and caches per input shapes: sizes unknown when the
graph was built are known then) a ``FusedProgram`` that runs the chain chunk by chunk through
cache-sized scratch buffers, writing each output into a fresh ``ember.empty`` tensor.

A group that reads a variable directly (``VariableV2``'s output: the plan reads it when the
step runs) is refused any member that comes after an assignment: its members read the
variable at their own times, the fused node would read it once.

Not fused: fed nodes, nodes with control inputs, random ops, nodes with symbolic attributes
(the plan evaluates those per run; a program's attributes are fixed), inputs or outputs of
unknown rank, ops called with fewer tensor inputs than their primitive declares.
"""

from __future__ import annotations

from ..._core.threads import get_num_threads
from ...ops import functional as F
from ..elementwise import is_elementwise
from ..run.fused import FusedProgram
from .rewrite import WRITES, RGraph, is_random

__all__ = ["FusedKernel", "run"]

NAME = "fusion"
_PROGRAM_CACHE = 16


class FusedKernel:
    """The runtime of a ``Fused`` node: a ``FusedProgram`` per signature of input shapes."""

    def __init__(self, steps: list, in_dtypes: list, outputs: list, names: list) -> None:
        self.steps = steps  # (op_expr, refs, attrs), refs ("in", i) / ("step", j)
        self.in_dtypes = in_dtypes
        self.outputs = outputs  # step indices
        self.names = names  # the fused nodes' names, for reports
        self._programs: dict = {}

    def program(self, shapes: tuple) -> FusedProgram:
        threads = get_num_threads()  # ember.set_num_threads: the chunks of a large program are split over them
        prog = self._programs.get((shapes, threads))
        if prog is None:
            prog = FusedProgram(self.steps, list(zip(shapes, self.in_dtypes, strict=True)), self.outputs, threads=threads)
            if len(self._programs) >= _PROGRAM_CACHE:
                self._programs.clear()
            self._programs[(shapes, threads)] = prog
        return prog

    def __call__(self, inputs: list) -> list:
        """Run on eager tensors; fresh output tensors."""
        prog = self.program(tuple([tuple(t._shape) for t in inputs]))
        outs = [F.empty(shape, dtype=dtype) for shape, dtype in prog.output_specs]
        prog([t._numpy_view() for t in inputs], [o._numpy_view() for o in outs])
        return outs

    def run_step(self, step, values: list) -> None:
        """The plan's executor hook: read ``values[step.ins]``, write ``values[step.outs]``."""
        outs = self([values[s] for s in step.ins])
        for s, o in zip(step.outs, outs, strict=True):
            values[s] = o

    def __repr__(self) -> str:
        return f"FusedKernel({' -> '.join(op.name for op, _, _ in self.steps)})"

    def __reduce__(self):
        return (FusedKernel, (self.steps, self.in_dtypes, self.outputs, self.names))


def _fusible(node) -> bool:
    op = node.op_expr
    if op is None or node.frozen or node.control_inputs or not is_elementwise(op) or is_random(node):
        return False
    if len(node.inputs) != len(op.inputs) or len(node.outputs) != 1 or node.symbolic:
        return False
    return node.outputs[0].static.rank is not None and all(v.static.rank is not None for v in node.inputs)


def _bits(nodes: list, index: dict) -> tuple[list, list]:
    n = len(nodes)
    anc = [0] * n
    for i, node in enumerate(nodes):
        a = 0
        for v in node.inputs:
            j = index[v.node]
            a |= anc[j] | (1 << j)
        for c in node.control_inputs:
            j = index[c]
            a |= anc[j] | (1 << j)
        anc[i] = a
    desc = [0] * n
    for i in range(n - 1, -1, -1):
        node = nodes[i]
        d = 0
        for v in node.outputs:
            for u in v.uses:
                j = index[u]
                d |= desc[j] | (1 << j)
        for u in node.control_users:
            j = index[u]
            d |= desc[j] | (1 << j)
        desc[i] = d
    return anc, desc


def _groups(g: RGraph) -> list[list]:
    nodes = g.nodes
    index = {n: i for i, n in enumerate(nodes)}
    fusible = [_fusible(n) for n in nodes]
    if sum(fusible) < 2:
        return []
    anc, desc = _bits(nodes, index)
    writes = 0  # the assignments: a group that reads a variable directly must not come after one
    for i, node in enumerate(nodes):
        if node.type in WRITES:
            writes |= 1 << i
    reads_var = [any(v.node.type == "VariableV2" for v in node.inputs) for node in nodes]

    def ok(m, u, d, r):  # convex, and no variable read moved past an assignment
        return not (u & d & ~m) and not (r and u & writes)
    group_of: dict = {}  # node index -> group id
    groups: dict = {}  # group id -> [members bits, ancestors, descendants, member list]
    for i, node in enumerate(nodes):
        if not fusible[i]:
            continue
        cands = []
        for v in node.inputs:
            gid = group_of.get(index[v.node])
            if gid is not None and gid not in cands:
                cands.append(gid)
        bit = 1 << i

        def merged(gids):
            m, u, d, r = bit, anc[i], desc[i], reads_var[i]  # noqa: B023 - used right here
            for gid in gids:
                gm, gu, gd, _, gr = groups[gid]
                m |= gm
                u |= gu
                d |= gd
                r = r or gr
            return m, u, d, r

        chosen = None
        if cands:
            if ok(*merged(cands)):
                chosen = cands
            else:
                for gid in cands:
                    if ok(*merged([gid])):
                        chosen = [gid]
                        break
        if chosen:
            m, u, d, r = merged(chosen)
            keep_id = chosen[0]
            members = groups[keep_id][3]
            for gid in chosen[1:]:
                for j in groups[gid][3]:
                    group_of[j] = keep_id
                members.extend(groups.pop(gid)[3])
            members.append(i)
            group_of[i] = keep_id
            groups[keep_id] = [m, u, d, members, r]
        else:
            group_of[i] = i
            groups[i] = [bit, anc[i], desc[i], [i], reads_var[i]]
    result = [sorted(v[3]) for v in groups.values() if len(v[3]) >= 2]
    return [[nodes[i] for i in members] for members in _acyclic(nodes, index, result)]


def _acyclic(nodes: list, index: dict, groups: list) -> list:
    """Drop groups until contracting the rest makes no cycle between groups."""
    while groups:
        rep = list(range(len(nodes)))
        for k, members in enumerate(groups):
            for i in members:
                rep[i] = -1 - k
        edges: dict = {}
        for i, node in enumerate(nodes):
            r = rep[i]
            deps = {rep[index[v.node]] for v in node.inputs} | {rep[index[c]] for c in node.control_inputs}
            deps.discard(r)
            edges.setdefault(r, set()).update(deps)
        indeg = {r: len(d) for r, d in edges.items()}
        users: dict = {}
        for r, deps in edges.items():
            for d in deps:
                users.setdefault(d, []).append(r)
        ready = [r for r, k in indeg.items() if k == 0]
        done = 0
        while ready:
            r = ready.pop()
            done += 1
            for u in users.get(r, ()):
                indeg[u] -= 1
                if indeg[u] == 0:
                    ready.append(u)
        if done == len(indeg):
            return groups
        stuck = [-1 - r for r, k in indeg.items() if k > 0 and r < 0]
        worst = max(stuck, key=lambda k: len(groups[k]))
        groups = [m for k, m in enumerate(groups) if k != worst]
    return groups


def _fuse(g: RGraph, members: list, keep) -> bool:
    member_set = set(members)
    produced = {v: (k, v) for k, m in enumerate(members) for v in m.outputs}
    inputs: list = []
    in_index: dict = {}
    steps = []
    for m in members:
        refs = []
        for v in m.inputs:
            if v.node in member_set:
                refs.append(("step", produced[v][0]))
            else:
                if v not in in_index:
                    in_index[v] = len(inputs)
                    inputs.append(v)
                refs.append(("in", in_index[v]))
        steps.append((m.op_expr, tuple(refs), dict(m.attrs)))
    out_values = []
    out_steps = []
    for k, m in enumerate(members):
        v = m.outputs[0]
        if v in keep or any(u not in member_set for u in v.uses):
            out_values.append(v)
            out_steps.append(k)
    if not out_values:
        return False
    kernel = FusedKernel(steps, [v.dtype for v in inputs], out_steps, [m.name for m in members])
    fused = g.new_node("Fused", inputs, {"program": kernel, "ops": tuple(m.type for m in members)}, [], name=f"{members[-1].name}/fused")
    g.insert_before(members[-1], fused)
    for m in members:
        g.redirect_control(m, fused)
        g.remove(m)
    for k, v in enumerate(out_values):
        v.node = fused
        v.index = k
        fused.outputs.append(v)
    return True


def run(g: RGraph, keep) -> int:
    g.compact()
    groups = _groups(g)
    fused = []
    for members in groups:
        if _fuse(g, members, keep):
            fused.append(members)
    if fused:
        g.toposort()
        sizes: dict = {}
        for m in fused:
            sizes[len(m)] = sizes.get(len(m), 0) + 1
        big = max(fused, key=len)
        example = " -> ".join(n.type for n in big[:6]) + (" ..." if len(big) > 6 else "")
        counts = ", ".join(f"{c} of {k} ops" for k, c in sorted(sizes.items(), reverse=True))
        g.log(NAME, f"{len(fused)} group{'s' if len(fused) != 1 else ''} fused ({counts}; e.g. {example})")
    return sum(len(m) for m in fused)
