"""The reducer of DistributedDataParallel: gradients into buckets, buckets all-reduced as they fill.

Each parameter has a slot in a flat bucket buffer of its dtype. A post-accumulate-grad hook on
the parameter copies its new gradient into the slot, scaled by ``1 / world_size`` (so the sum the
all-reduce computes is the average), and when a bucket's last slot is filled the bucket starts a
non-blocking all-reduce, always in bucket order, so every rank issues the same collectives in the
same order. The first hook of a backward queues a callback on the autograd engine; when that
backward has finished, the callback waits for every bucket and writes the averages back into
``.grad`` (or, with ``gradient_as_bucket_view``, leaves ``.grad`` a view of the bucket, so there is
nothing to copy). Later hooks test the oldest bucket in flight, which is where MPI makes progress.

Parameters that get no gradient in a backward are either an error naming them, or, with
``find_unused_parameters``, contribute zeros; a parameter no rank produced a gradient for keeps its
``.grad`` as it was. Buckets are planned once more after the first synchronised backward, in the
order the gradients really arrived.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence

import numpy as np

from ... import distributed as dist
from ..._core import dtype as _dt
from ..._core.tensor import Tensor, tensor
from ...autograd import engine
from ...autograd.nodes import AccumulateGrad
from ...dispatch.grad_mode import no_grad
from ...ops import functional as F
from . import _buckets

__all__ = ["Bucket", "Reducer"]


class Bucket:
    """One flat buffer of gradients of one dtype, and where each parameter's slot lies in it."""

    __slots__ = ("array", "buffer", "completed_ns", "dtype", "index", "launched_ns", "nbytes", "offsets", "params", "pending", "views", "work")

    def __init__(self, index: int, params: list[int], shapes: list[tuple], dtype, allocate: bool) -> None:
        self.index = index
        self.params = params  # parameter positions, in slot order
        sizes = [int(np.prod(shape, dtype=np.int64)) for shape in shapes]
        self.offsets = np.cumsum([0, *sizes[:-1]]).tolist()
        self.nbytes = sum(sizes) * dtype.itemsize
        self.dtype = dtype
        self.buffer = self.array = None
        self.views: list[Tensor] = []
        if allocate:  # (a world of one rank averages nothing and needs no buffer)
            self.buffer = F.zeros(sum(sizes), dtype=dtype)
            self.array = self.buffer._host_array()
            self.views = [self.buffer[o : o + n].view(shape) for o, n, shape in zip(self.offsets, sizes, shapes, strict=True)]
        self.pending = len(params)
        self.work = None
        self.launched_ns = self.completed_ns = 0


class Reducer:
    """Bucketed, overlapped gradient averaging for the parameters of one DistributedDataParallel."""

    def __init__(
        self,
        params: Sequence[Tensor],
        names: Sequence[str],
        group,
        limits: list[int],
        gradient_as_bucket_view: bool,
        find_unused_parameters: bool,
        wants_sync: Callable[[], bool],
        on_iteration: Callable[[dict], None] | None = None,
    ) -> None:
        self.params = list(params)
        self.names = list(names)
        self.group = group
        self.world_size = dist.get_world_size(group)
        self.limits = limits
        self.as_view = gradient_as_bucket_view
        self.find_unused = find_unused_parameters
        self._wants_sync = wants_sync
        self._on_iteration = on_iteration
        self.buckets: list[Bucket] = []
        self._slot: list[tuple[Bucket, int]] = []  # per parameter: its bucket and slot
        self._plan(list(reversed(range(len(self.params)))))
        self._rebuilt = False
        self._ready_order: list[int] = []
        self._armed = False  # a forward with grad enabled ran since the last backward finished
        self._started = False  # this backward's first hook has run
        self._syncing = False
        self._ready = [False] * len(self.params)
        self._has_grad = [False] * len(self.params)
        self._unused_at_forward: list[int] = []
        self._next_bucket = 0
        self._oldest = 0  # the first launched bucket not yet seen complete
        self._backward_start_ns = 0
        ref = weakref.ref(self)
        self._handles = [p.register_post_accumulate_grad_hook(_hook(ref, i)) for i, p in enumerate(self.params)]
        weakref.finalize(self, _remove_all, self._handles)

    # -- the plan ---------------------------------------------------------------------------------

    def _plan(self, order: list[int]) -> None:
        """Bucket the parameters in ``order``; slots follow ``order`` inside each bucket."""
        sized = [(self.params[i].numel() * self.params[i].element_size(), self.params[i].dtype) for i in order]
        old = self._slot
        self.buckets, self._slot = [], [None] * len(self.params)  # type: ignore[list-item]
        for b, positions in enumerate(_buckets.plan_buckets(sized, self.limits)):
            members = [order[k] for k in positions]
            shapes = [tuple(self.params[i].shape) for i in members]
            bucket = Bucket(b, members, shapes, self.params[members[0]].dtype, allocate=self.world_size > 1)
            self.buckets.append(bucket)
            for slot, i in enumerate(members):
                self._slot[i] = (bucket, slot)
        if old and self.as_view:  # gradients that were views of the old buckets move into the new ones
            for i, p in enumerate(self.params):
                bucket, slot = old[i]
                if p.grad is not None and p.grad is bucket.views[slot]:
                    new_bucket, new_slot = self._slot[i]
                    new_bucket.views[new_slot].copy_(p.grad)
                    p.grad = new_bucket.views[new_slot]

    def bucket_plan(self) -> list[dict]:
        """The buckets in the order they are reduced: parameter names, bytes, dtype."""
        return [{"index": b.index, "bytes": b.nbytes, "dtype": b.dtype, "parameters": [self.names[i] for i in b.params]} for b in self.buckets]

    # -- one iteration ----------------------------------------------------------------------------

    def prepare_for_forward(self) -> None:
        """Before a forward with grad enabled: the previous backward must have finished; after the
        first synchronised backward the buckets are planned again in the order its gradients came."""
        if self._started and self.world_size == 1:
            self._reset()  # a backward that raised part-way: nothing was sent, nothing to agree on
        elif self._started:
            raise RuntimeError(
                "DistributedDataParallel: a forward started while the previous backward's gradient reduction had not finished "
                "(that backward raised an error part-way); the ranks may no longer agree, so training cannot go on from here"
            )
        if not self._rebuilt and self._ready_order:
            self._rebuilt = True
            if self.world_size > 1:
                # the ranks may have seen different orders: all take rank 0's, so their buckets match
                order = tensor(self._ready_order, dtype=_dt.int64)
                dist.broadcast(order, src=dist.get_global_rank(self.group, 0) if self.group is not None else 0, group=self.group)
                self._ready_order = order.tolist()
                if self._ready_order != [i for b in self.buckets for i in b.params]:
                    self._plan(self._ready_order)

    def prepare_for_backward(self, outputs) -> None:
        """A forward with grad enabled has produced ``outputs``: hooks count from now. With
        ``find_unused_parameters``, parameters the outputs do not depend on are noted now and
        marked at the start of backward, so their buckets need not wait for them."""
        if self.find_unused:
            reached = _leaves_reached(outputs)
            unused = [i for i, p in enumerate(self.params) if id(p) not in reached]
            if self._armed:  # a second forward before one backward: unused means unused by both
                unused = sorted(set(unused) & set(self._unused_at_forward))
            self._unused_at_forward = unused
            for node in {id(t.grad_fn): t.grad_fn for t in outputs if t.grad_fn is not None}.values():
                node.register_prehook(_start_hook(weakref.ref(self)))
        self._armed = True

    def _start_backward(self) -> None:
        self._started = True
        self._backward_start_ns = time.perf_counter_ns()
        self._syncing = bool(self._wants_sync())  # no_sync() is read here, at backward time
        engine.queue_callback(self._finish)
        if self._syncing and self.find_unused:
            for i in self._unused_at_forward:
                if not self._ready[i]:
                    self._mark_without_new_grad(i)

    def on_accumulate(self, i: int, param: Tensor) -> None:
        """The post-accumulate-grad hook of parameter ``i``."""
        if not self._armed:
            return  # a backward through no forward of this module (or a second one): local gradients
        if not self._started:
            self._start_backward()
        if not self._syncing:
            return
        if self._ready[i]:
            raise RuntimeError(
                f"DistributedDataParallel: parameter '{self.names[i]}' received a gradient after it was marked ready in this "
                "backward: with find_unused_parameters=True a parameter must reach the loss through the module's forward "
                "outputs only (it was used outside forward, or in two backward passes over one forward)"
            )
        self._has_grad[i] = True
        self._fill(i, param.grad)
        self._mark_ready(i)

    def _fill(self, i: int, grad: Tensor | None) -> None:
        """Put this rank's share of parameter ``i``'s gradient (``grad / world_size``) in its slot."""
        if self.world_size == 1:
            return  # nothing to average: no slot is used
        bucket, slot = self._slot[i]
        view = bucket.views[slot]
        scale = 1.0 / self.world_size
        if grad is None:
            view._host_array()[...] = 0
        elif grad is view:  # the gradient already lives in the slot (gradient_as_bucket_view)
            np.multiply(view._host_array(), scale, out=view._host_array())
        else:
            np.multiply(grad._host_array(), scale, out=view._host_array())
            if self.as_view:
                self.params[i].grad = view

    def _mark_without_new_grad(self, i: int) -> None:
        """Parameter ``i`` gets no gradient in this backward: what it holds from earlier goes in, or zeros."""
        grad = self.params[i].grad
        self._has_grad[i] = grad is not None
        self._fill(i, grad)
        self._mark_ready(i)

    def _mark_ready(self, i: int) -> None:
        self._ready[i] = True
        if not self._rebuilt:
            self._ready_order.append(i)
        if self.world_size == 1:
            return
        bucket = self._slot[i][0]
        bucket.pending -= 1
        if bucket.pending == 0 and bucket.index == self._next_bucket:
            self._launch_ready()
        elif self._oldest < self._next_bucket:
            self._poll()

    def _launch_ready(self) -> None:
        """Start the all-reduce of every full bucket whose predecessors have all started: the same
        order on every rank, whatever order the buckets filled in."""
        buckets = self.buckets
        while self._next_bucket < len(buckets) and buckets[self._next_bucket].pending == 0:
            bucket = buckets[self._next_bucket]
            bucket.launched_ns = time.perf_counter_ns()
            bucket.work = dist.all_reduce(bucket.buffer, op=dist.ReduceOp.SUM, group=self.group, async_op=True)
            self._next_bucket += 1

    def _poll(self) -> None:
        # MPI moves a non-blocking collective along only inside MPI calls: testing the oldest
        # bucket in flight from each hook is what lets it run while backward computes.
        while self._oldest < self._next_bucket:
            bucket = self.buckets[self._oldest]
            if not bucket.work.is_completed():
                return
            bucket.completed_ns = time.perf_counter_ns()
            self._oldest += 1

    def _finish(self) -> None:
        """The engine's callback once backward has finished: every bucket reduced, gradients averaged."""
        backward_end_ns = time.perf_counter_ns()
        try:
            if not self._syncing:
                return
            missing = [i for i, ready in enumerate(self._ready) if not ready]
            if missing and not self.find_unused:
                self._wait_launched()
                raise RuntimeError(_unused_message([self.names[i] for i in missing], dist.get_rank(self.group)))
            for i in missing:
                self._mark_without_new_grad(i)
            if self.world_size == 1:
                return
            waited_ns = self._wait_launched()
            has_grad = self._anyone_has_grad() if self.find_unused else None
            self._write_back(has_grad)
            if self._on_iteration is not None:
                self._on_iteration(self._iteration_record(backward_end_ns, waited_ns))
        finally:
            self._reset()

    def _wait_launched(self) -> int:
        """Wait for the launched buckets in order; the nanoseconds spent waiting."""
        waited = 0
        for bucket in self.buckets[: self._next_bucket]:
            if bucket.completed_ns == 0:
                t0 = time.perf_counter_ns()
                bucket.work.wait()
                bucket.completed_ns = time.perf_counter_ns()
                waited += bucket.completed_ns - t0
        return waited

    def _write_back(self, has_grad: list[bool] | None) -> None:
        """The averages become the gradients: copied into ``.grad``, or ``.grad`` is the slot's view.
        A parameter no rank had a gradient for keeps ``.grad`` as it was (None stays None)."""
        with no_grad():
            for bucket in self.buckets:
                for slot, i in enumerate(bucket.params):
                    if has_grad is not None and not has_grad[i]:
                        continue
                    p, view = self.params[i], bucket.views[slot]
                    if p.grad is view:
                        continue
                    if self.as_view or p.grad is None:
                        p.grad = view if self.as_view else view.clone()
                    else:
                        p.grad.copy_(view)

    def _anyone_has_grad(self) -> list[bool]:
        flags = tensor([int(h) for h in self._has_grad], dtype=_dt.int32)
        dist.all_reduce(flags, op=dist.ReduceOp.SUM, group=self.group)
        return [n > 0 for n in flags.tolist()]

    def _iteration_record(self, backward_end_ns: int, waited_ns: int) -> dict:
        return {
            "backward_start_ns": self._backward_start_ns,
            "backward_end_ns": backward_end_ns,
            "waited_ns": waited_ns,
            "buckets": [(b.index, b.nbytes, b.launched_ns, b.completed_ns) for b in self.buckets],
        }

    def _reset(self) -> None:
        self._armed = self._started = self._syncing = False
        self._ready = [False] * len(self.params)
        self._has_grad = [False] * len(self.params)
        self._unused_at_forward = []
        self._next_bucket = self._oldest = 0
        for bucket in self.buckets:
            bucket.pending = len(bucket.params)
            bucket.work = None
            bucket.launched_ns = bucket.completed_ns = 0
        if self._ready_order and not self._rebuilt and len(self._ready_order) != len(self.params):
            self._ready_order = []  # an unsynchronised or failed backward: learn the order from the next one


def _hook(reducer_ref, i: int):
    def on_accumulate(param: Tensor) -> None:
        reducer = reducer_ref()
        if reducer is not None:
            reducer.on_accumulate(i, param)

    return on_accumulate


def _start_hook(reducer_ref):
    def on_output_grad(grads):
        reducer = reducer_ref()
        if reducer is not None and reducer._armed and not reducer._started:
            reducer._start_backward()

    return on_output_grad


def _remove_all(handles) -> None:
    for handle in handles:
        handle.remove()


def _leaves_reached(outputs) -> set[int]:
    """ids of the leaves whose gradient the outputs' backward graph reaches."""
    reached: set[int] = set()
    seen: set[int] = set()
    stack = []
    for t in outputs:
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            reached.add(id(t))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if type(node) is AccumulateGrad:
            reached.add(id(node.variable))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return reached


def _unused_message(names: list[str], rank: int) -> str:
    return (
        f"DistributedDataParallel: this backward produced no gradient for {len(names)} parameter(s) on rank {rank}: "
        f"{', '.join(names)}. Every parameter that requires grad must take part in the loss. If some are left unused "
        "on purpose (a branch not taken, an output not in the loss), pass find_unused_parameters=True to "
        "DistributedDataParallel; to train without them, set their requires_grad to False before wrapping the module."
    )
