"""The eager-global interpreter: an op whose inputs are global tensors (OneFlow's
``EagerGlobalInterpreter``, the seed's third interpreter).

For ``apply(op, inputs, attrs)`` it

1. checks that every tensor input is global on one placement (a 0-d local tensor counts as
   broadcast: the same constant on every rank);
2. infers the logical outputs with the op's own rule, on the logical inputs;
3. asks the op's SBP rule (``op.sbp_rule``, one mesh dimension at a time; a rule marked
   ``needs_ranks`` is also told the mesh dimension's size) for a signature; an op without a
   rule, or one the rule declines, has its inputs boxed to broadcast and runs whole, and the
   trace says so (``journey.details["rule"]``);
4. boxes the inputs whose layout differs;
5. runs the op on each hosted rank's pieces with the eager-local interpreter (the same kernel),
   or with the signature's ``run`` where it has one (the first mesh dimension's that does), the
   attributes rewritten for the piece by its ``local_attrs`` where it has them;
6. wraps the pieces as global outputs, checking that each has the shape its layout gives.

Autograd wraps it as it wraps the local one: derivatives are ops, so they come back here. It is
installed on the first global tensor (``activate``); until then local ops pay nothing.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from ..._core import dtype as _dt
from ..._core.shape import contiguous_strides
from ...dispatch import interpreter as _interp, sbp as _sbp
from ...dispatch.interpreter import EAGER, Interpreter
from ...dispatch.sbp import Signature, broadcast
from ...dispatch.trace import _Recorder, note as _trace_note
from . import layout
from .boxing import BOXING_LOG_LISTENERS, box
from .global_tensor import GlobalTensor, make_global

__all__ = ["GLOBAL", "EagerGlobalInterpreter", "activate", "deactivate"]

_NO_RULE = "no SBP rule: boxed to broadcast"


class EagerGlobalInterpreter(Interpreter):
    name = "eager-global"

    def __init__(self) -> None:
        self.fallbacks: dict[str, int] = {}  # ops that ran whole for want of a rule, by name

    def apply(self, op, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        tracing = _trace_open()
        start = time.perf_counter() if tracing else 0.0
        ref = _reference(op, inputs, outputs)
        p, world = ref._placement, ref._world
        for t in inputs:
            if type(t) is not GlobalTensor:  # a 0-d constant joins as broadcast, anything else is refused
                inputs = tuple([_as_global(t, ref, op, i) for i, t in enumerate(inputs)])
                break
        if outputs is not None:
            for i, out in enumerate(outputs):
                if type(out) is not GlobalTensor:
                    raise RuntimeError(
                        f"{op.name}(): the output (argument {i}) is a local tensor but the inputs are global on {p!r}: "
                        "write into a global tensor, or use to_local()"
                    )
        plan = _plan(op, inputs, attrs, p, world)
        metas, signatures, out_sbp, ranks = plan.metas, plan.signatures, plan.out_sbp, plan.ranks
        if plan.note is not None:
            self.fallbacks[op.name] = self.fallbacks.get(op.name, 0) + 1
        steps: list = []  # the boxing steps, for the trace
        if tracing:
            BOXING_LOG_LISTENERS.append(lambda *step: steps.append(step))
        try:
            boxed = tuple(
                t if t._sbp == want else _scalar_pieces(box(t, want)) for t, want in zip(inputs, plan.in_sbps, strict=True)
            )
        finally:
            if tracing:
                BOXING_LOG_LISTENERS.pop()
        local_attrs, run = plan.local_attrs, plan.run
        results: dict = {}
        for rank, coord, want in ranks:
            pieces = tuple([t._pieces[rank] for t in boxed])
            a = attrs
            if local_attrs is not None:
                a = local_attrs(attrs, [x._shape for x in pieces], list(want))
            if run is not None:
                info = {
                    "op": op,
                    "placement": p,
                    "rank": rank,
                    "coord": coord,
                    "signatures": signatures,
                    "inputs": boxed,
                    "metas": metas,
                }
                results[rank] = tuple(run(_local_apply, pieces, a, info))
            else:
                results[rank] = EAGER.apply(op, pieces, a)
        made = []
        for j, (shape, dtype) in enumerate(metas):
            pieces = {}
            for rank, _, want in ranks:
                piece = results[rank][j]
                if piece._shape != want[j]:
                    raise RuntimeError(
                        f"{op.name}(): the SBP signature {_describe(signatures)} gave rank {rank} a piece of shape "
                        f"{list(piece._shape)}, where its layout {out_sbp[j]} of {list(shape)} says {list(want[j])}: "
                        "the op's SBP rule is wrong"
                    )
                pieces[rank] = piece
            made.append(make_global(pieces, shape, dtype, p, out_sbp[j], world, plan.strides[j]))
        if op.view is not None and len(made) == 1 and len(inputs) == 1:
            made[0]._base = inputs[0]
        if outputs is not None:
            made = _write_into(op, outputs, made)
        if tracing:
            _trace_note(
                op.name,
                op.name,
                "eager-global",
                "",
                [(t._shape, t._dtype) for t in inputs],
                (time.perf_counter() - start) * 1e6,
                signature=_describe(signatures),
                boxing=steps,
                placement=repr(p),
                rule=plan.note or getattr(op.sbp_rule, "__name__", ""),
            )
        return tuple(made)


class _Plan:
    """What one call's metadata decides, kept per signature of the call: the logical outputs, the
    SBP signatures, each input's layout, each output's, and per hosted rank its coordinate and the
    shapes its output pieces must have."""

    __slots__ = ("in_sbps", "local_attrs", "metas", "note", "out_sbp", "ranks", "run", "signatures", "strides")


_PLANS: dict = {}
_PLAN_LIMIT = 4096
_dt.DEFAULT_DTYPE_LISTENERS.append(_PLANS.clear)  # inferred dtypes depend on the default dtype


def _plan(op, inputs: tuple, attrs: dict, p, world) -> _Plan:
    try:
        key = (
            op,
            p,
            world,
            tuple([(t._shape, t._dtype, t._sbp) for t in inputs]),
            tuple([(k, v, type(v)) for k, v in attrs.items()]) if attrs else (),
        )
        plan = _PLANS.get(key)
    except TypeError:  # an unhashable attribute: plan every time
        key, plan = None, None
    if plan is not None:
        return plan
    plan = _Plan()
    plan.metas = metas = _logical_outputs(op, inputs, attrs)
    plan.strides = [contiguous_strides(m[0]) for m in metas]
    plan.signatures, plan.note = signatures, _ = _signatures(op, attrs, inputs, len(metas), p)
    plan.in_sbps = tuple(tuple(sig.inputs[i] for sig in signatures) for i in range(len(inputs)))
    plan.out_sbp = out_sbp = [tuple(sig.outputs[j] for sig in signatures) for j in range(len(metas))]
    # a rewrite or a run works on the piece whatever the other mesh dims did: take the first
    plan.local_attrs = next((s.local_attrs for s in signatures if s.local_attrs is not None), None)
    plan.run = next((s.run for s in signatures if s.run is not None), None)
    ranks = []
    for rank in world.hosted(p.rank_list()):
        coord = p.coordinate(rank)
        ranks.append((rank, coord, tuple(layout.piece_shape(m[0], out_sbp[j], p.mesh_shape, coord) for j, m in enumerate(metas))))
    plan.ranks = tuple(ranks)
    if key is not None:
        if len(_PLANS) >= _PLAN_LIMIT:
            _PLANS.clear()
        _PLANS[key] = plan
    return plan


def _scalar_pieces(t: GlobalTensor) -> GlobalTensor:
    """Boxing a 0-d tensor hands back 1-element 1-d pieces (np.ascontiguousarray promotes 0-d
    arrays, boxing.py): give them their 0-d shape again before a kernel sees them."""
    if t._shape == () and any(p._shape != () for p in t._pieces.values()):
        pieces = {r: p.reshape(()) for r, p in t._pieces.items()}
        return make_global(pieces, (), t._dtype, t._placement, t._sbp, t._world)
    return t


def _local_apply(op, inputs: tuple, attrs: dict) -> tuple:
    return EAGER.apply(op, tuple(inputs), attrs)


def _trace_open() -> bool:
    return isinstance(sys.getprofile(), _Recorder)


def _describe(signatures) -> str:
    if not signatures:
        return "()"
    if len(signatures) == 1:
        return repr(signatures[0])
    return " x ".join(repr(s) for s in signatures)


def _reference(op, inputs: tuple, outputs) -> GlobalTensor:
    """The first global tensor among the inputs (or outputs), whose placement all must share."""
    ref = None
    for t in (*inputs, *outputs) if outputs else inputs:
        if type(t) is GlobalTensor:
            if ref is None:
                ref = t
            elif t._placement is not ref._placement and t._placement != ref._placement:
                raise RuntimeError(
                    f"{op.name}(): expected all global tensors on one placement, but found {ref._placement!r} and "
                    f"{t._placement!r}: move one with .to_global(placement=..., sbp=...)"
                )
    if ref is None:
        raise RuntimeError(f"{op.name}(): the global interpreter got no global tensor")
    return ref


def _as_global(t, ref: GlobalTensor, op, i: int) -> GlobalTensor:
    if type(t) is GlobalTensor:
        return t
    if t._shape == () and t._storage._device.type == "cpu":  # a constant: the same on every rank
        world = ref._world
        pieces = dict.fromkeys(world.hosted(ref._placement.rank_list()), t)
        return make_global(pieces, (), t._dtype, ref._placement, (broadcast,) * ref._placement.ndim, world)
    raise RuntimeError(
        f"{op.name}(): expected all tensors to be global, but input {i} is a local tensor of shape {list(t._shape)} "
        f"and another is global on {ref._placement!r} with sbp {ref._sbp}: make it global with "
        ".to_global(placement, sbp), or take the global one's to_local()"
    )


def _logical_outputs(op, inputs: tuple, attrs: dict) -> list:
    if op.view is not None:
        views = op.view(attrs, *inputs)
        return [(tuple(v._shape), v._dtype) for v in views]
    return [(tuple(s.shape), s.dtype) for s in EAGER.infer(op, inputs, attrs)]


def _signatures(op, attrs: dict, inputs: tuple, n_out: int, p):
    """One signature per mesh dimension, or broadcast everywhere (with a note saying why)."""
    rule = op.sbp_rule
    metas = tuple((t._shape, t._dtype) for t in inputs)
    out = []
    if rule is not None:
        for d in range(p.ndim):
            sbps = tuple(t._sbp[d] for t in inputs)
            if getattr(rule, "needs_ranks", False):
                # the size a rule counts pieces of is the logical one: a dim split on two mesh dims
                # (nested pieces) is not what it reasons about, so it declines
                sig = None if _nested(inputs, d) else rule(attrs, metas, sbps, p.mesh_shape[d])
            else:
                sig = rule(attrs, metas, sbps)
            if sig is None:
                break
            if len(sig.outputs) != n_out:  # a rule written for one output: the same layout for each
                sig = Signature(
                    sig.inputs,
                    sig.outputs * n_out if len(sig.outputs) == 1 else sig.outputs,
                    local_attrs=sig.local_attrs,
                    run=sig.run,
                )
            out.append(sig)
        else:
            return out, None
    whole = Signature((broadcast,) * len(inputs), (broadcast,) * n_out)
    return [whole] * p.ndim, _NO_RULE if rule is None else "the rule declined: boxed to broadcast"


def _nested(inputs: tuple, d: int) -> bool:
    """Whether an input's split on mesh dim ``d`` splits a dim another mesh dim splits too."""
    for t in inputs:
        e = t._sbp[d]
        if e.is_split and any(k != d and other == e for k, other in enumerate(t._sbp)):
            return True
    return False


def _write_into(op, outputs: tuple, made: list) -> list:
    """In-place and out=: the destination keeps its layout; the result is boxed to it and copied."""
    for dst, src in zip(outputs, made, strict=True):
        if dst._shape != src._shape:
            raise RuntimeError(
                f"{op.name}(): output with shape {list(dst._shape)} doesn't match the broadcast shape {list(src._shape)}"
            )
        src = box(src, dst._sbp)
        for rank, piece in dst._pieces.items():
            target = piece._numpy_view()
            np.copyto(target, src._pieces[rank]._numpy_view(), casting="unsafe")
            piece._storage._version += 1
        dst._storage._version += 1
    return list(outputs)


GLOBAL = EagerGlobalInterpreter()


class _Route:
    """What autograd (or the default) hands ops to once global tensors exist: global inputs go to
    the global interpreter, the rest to the eager-local one. Not an Interpreter itself, so
    traces show the interpreter that really ran."""

    name = "route"

    def apply(self, op, inputs: tuple, attrs: dict, outputs: tuple | None = None) -> tuple:
        for t in inputs:
            if type(t) is GlobalTensor:
                return GLOBAL.apply(op, inputs, attrs, outputs)
        if outputs is not None:
            for t in outputs:
                if type(t) is GlobalTensor:
                    return GLOBAL.apply(op, inputs, attrs, outputs)
        return EAGER.apply(op, inputs, attrs, outputs)


_ROUTE = _Route()


def deactivate() -> None:
    """Hand ops straight to the eager-local interpreter again (tests that made global tensors
    leave the usual stack behind them; a later global tensor activates the route again)."""
    _sbp.ACTIVE[0] = False
    default = _interp.default_interpreter()
    if default is _ROUTE:
        _interp.set_default_interpreter(EAGER)
    elif getattr(default, "inner", None) is _ROUTE:
        default.inner = EAGER


def activate() -> None:
    """Send global inputs to the global interpreter from now on (idempotent)."""
    _sbp.ACTIVE[0] = True
    default = _interp.default_interpreter()
    if default is EAGER:
        _interp.set_default_interpreter(_ROUTE)  # type: ignore[arg-type]
    elif getattr(default, "inner", None) is EAGER:
        default.inner = _ROUTE
