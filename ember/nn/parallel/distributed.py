"""DistributedDataParallel: one replica of a module per process, gradients averaged across them.

PyTorch's ``torch.nn.parallel.DistributedDataParallel`` over ``ember.distributed`` (MPI). At
construction the ranks check that they hold the same parameters and take rank 0's values; in
backward, gradients are averaged bucket by bucket while backward still runs (``_reducer.py``), and
``backward()`` returns once every bucket is reduced. Differences from PyTorch, each on purpose:

- ``no_sync()`` (and ``require_backward_grad_sync``) is read when backward starts, not at forward:
  wrapping only ``loss.backward()`` in ``no_sync()`` skips the reduction too.
- A backward that leaves a parameter without gradient raises at the end of that backward, naming
  the parameters (PyTorch notices only at the next forward, after the optimizer used unsynchronised
  gradients).
- Buffers are re-broadcast before a forward only when grad is enabled and synchronisation is on, so
  an evaluation under ``no_grad`` on rank 0 alone makes no collective call that the others miss.

Each synchronised backward is recorded (bucket plan, when each all-reduce started and was seen
finished, how long the end of backward waited): ``last_iteration()``, ``bucket_plan()``.
"""

from __future__ import annotations

import contextlib
import warnings
import weakref
from collections.abc import Iterator

from ... import distributed as dist
from ..._core.tensor import Tensor
from ...dispatch.grad_mode import is_grad_enabled, no_grad
from ...ops import functional as F
from ..modules.module import Module
from . import _buckets
from ._reducer import Reducer

__all__ = ["DistributedDataParallel"]

_BROADCAST_BUCKET_BYTES = 250 * _buckets.MIB  # PyTorch's coalescing limit for the start-up broadcast

_NOT_SUPPORTED = {
    "static_graph": False,
    "delay_all_reduce_named_params": None,
    "param_to_hook_all_reduce": None,
    "mixed_precision": None,
    "device_mesh": None,
    "skip_all_reduce_unused_params": False,
}


class DistributedDataParallel(Module):
    """Data parallelism across processes: wrap the model, train as usual, gradients come averaged.

    >>> import ember.distributed as dist
    >>> from ember.nn.parallel import DistributedDataParallel as DDP
    >>> dist.init_process_group()            # doctest: +SKIP
    >>> model = DDP(ember.nn.Linear(4, 2))   # doctest: +SKIP
    >>> model(ember.randn(8, 4)).sum().backward()  # doctest: +SKIP
    """

    def __init__(
        self,
        module: Module,
        device_ids=None,
        output_device=None,
        dim: int = 0,
        broadcast_buffers: bool | None = None,
        init_sync: bool = True,
        process_group=None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
        skip_all_reduce_unused_params: bool = False,
        bucket_cap_mb_list: list[float] | None = None,
        batched_grad_copy: bool = False,
        forward_sync_buffers: bool | None = None,
    ) -> None:
        super().__init__()
        given = {
            "static_graph": static_graph,
            "delay_all_reduce_named_params": delay_all_reduce_named_params,
            "param_to_hook_all_reduce": param_to_hook_all_reduce,
            "mixed_precision": mixed_precision,
            "device_mesh": device_mesh,
            "skip_all_reduce_unused_params": skip_all_reduce_unused_params,
        }
        for name, default in _NOT_SUPPORTED.items():
            if given[name] != default:
                raise NotImplementedError(f"DistributedDataParallel: {name}={given[name]!r} is not supported by ember yet (leave it at {default!r})")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an ember.nn.Module, got {type(module).__name__}")
        if check_reduction:
            warnings.warn(
                "The `check_reduction` argument in `DistributedDataParallel` module is deprecated. Please avoid using it.",
                FutureWarning,
                stacklevel=2,
            )
        forward_sync, init_sync_buffers = _buffer_sync_flags(broadcast_buffers, forward_sync_buffers)
        self.process_group = process_group
        world_size = dist.get_world_size(process_group)  # (raises when no process group is initialised)

        ignored = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        named = [(n, p) for n, p in module.named_parameters() if n not in ignored]
        trained = [(n, p) for n, p in named if p.requires_grad]
        if not trained:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient.")
        if device_ids or output_device is not None:
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with single-device/multiple-device "
                f"GPU modules or CPU modules, but got device_ids {device_ids}, output_device {output_device}, "
                f"and module parameters {sorted({str(p.device) for _, p in named})}."
            )
        devices = {p.device.type for _, p in named}
        if devices != {"cpu"}:
            raise ValueError(f"DistributedDataParallel: ember reduces gradients of CPU parameters, but the module's are on {sorted(devices)}")

        self.module = module
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.forward_sync_buffers = forward_sync
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.batched_grad_copy = batched_grad_copy  # (accepted; ember copies each gradient once either way)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.parameters_to_ignore = ignored
        self.world_size = world_size
        self._buffers_to_sync = [b for n, b in module.named_buffers() if n not in ignored]

        if init_sync:
            _verify_param_shapes(named, process_group)
            states = [p.detach() for _, p in named] + (self._buffers_to_sync if init_sync_buffers else [])
            _broadcast_coalesced(states, process_group)

        limits = _buckets.bucket_limits(bucket_cap_mb, bucket_cap_mb_list)
        self.bucket_bytes_cap = limits[-1]
        self._last_iteration: dict | None = None
        names = [n for n, _ in trained]
        self.reducer = Reducer(
            [p for _, p in trained],
            names,
            process_group,
            limits,
            gradient_as_bucket_view,
            find_unused_parameters,
            wants_sync=_SyncFlag(self),
            on_iteration=self._record_iteration,
        )

    @property
    def broadcast_buffers(self) -> bool:
        return self.forward_sync_buffers

    def forward(self, *inputs, **kwargs):
        grad = is_grad_enabled()
        if grad:
            self.reducer.prepare_for_forward()
        if self.require_forward_param_sync and grad and self.require_backward_grad_sync and self.forward_sync_buffers and self._buffers_to_sync:
            _broadcast_coalesced(self._buffers_to_sync, self.process_group)
        output = self.module(*inputs, **kwargs)
        if grad:
            self.reducer.prepare_for_backward(list(_find_tensors(output)) if self.find_unused_parameters else [])
        return output

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside this block, backward passes only accumulate gradients locally; the first synchronised
        backward after it averages what accumulated. Read when backward starts, so wrapping the
        backward alone (or the forward and the backward) both work.

        >>> ddp = DistributedDataParallel(model)  # doctest: +SKIP
        >>> with ddp.no_sync():                   # doctest: +SKIP
        ...     ddp(micro_batch).sum().backward()  # local accumulation
        >>> ddp(last_batch).sum().backward()      # doctest: +SKIP
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def bucket_plan(self) -> list[dict]:
        """The gradient buckets in the order they are all-reduced: parameter names, bytes, dtype."""
        return self.reducer.bucket_plan()

    def last_iteration(self) -> dict | None:
        """What the last synchronised backward did, in milliseconds from its first gradient:
        ``backward_ms`` (until its last node finished), ``waited_ms`` (how long the end of backward
        then waited for communication), ``hidden_fraction`` (of the all-reduce time, the share spent
        while backward was still computing) and per bucket ``start_ms``/``end_ms`` (its all-reduce
        issued, and seen complete). None before the first one, and in a world of one rank."""
        return self._last_iteration

    def _record_iteration(self, record: dict) -> None:
        start, end = record["backward_start_ns"], record["backward_end_ns"]
        buckets, spans = [], []
        for index, nbytes, launched, completed in record["buckets"]:
            buckets.append({"index": index, "bytes": nbytes, "start_ms": (launched - start) / 1e6, "end_ms": (completed - start) / 1e6})
            spans.append((launched, completed))
            _timeline_span(f"DDP bucket {index} all_reduce ({nbytes / _buckets.MIB:.2f} MiB)", launched, completed, nbytes, self.process_group)
        _timeline_span("DDP backward", start, end, 0, self.process_group)
        busy = _union_ns(spans)
        exposed = _union_ns([(max(a, end), b) for a, b in spans if b > end])
        self._last_iteration = {
            "backward_ms": (end - start) / 1e6,
            "waited_ms": record["waited_ns"] / 1e6,
            "communication_ms": busy / 1e6,
            "hidden_fraction": 1.0 - exposed / busy if busy else 0.0,
            "buckets": buckets,
        }

    def register_comm_hook(self, state, hook) -> None:
        raise NotImplementedError("DistributedDataParallel.register_comm_hook is not supported by ember yet: buckets are averaged with all_reduce")

    def join(self, *args, **kwargs):
        raise NotImplementedError(
            "DistributedDataParallel.join is not supported by ember yet: give every rank the same number of batches "
            "(DistributedSampler pads to equal lengths)"
        )


class _SyncFlag:
    """Reads ``require_backward_grad_sync`` of a DDP without keeping it alive (the reducer's hooks
    live on the parameters, which outlive a wrapper that was dropped)."""

    __slots__ = ("_ref",)

    def __init__(self, ddp: DistributedDataParallel) -> None:
        self._ref = weakref.ref(ddp)

    def __call__(self) -> bool:
        ddp = self._ref()
        return ddp is not None and ddp.require_backward_grad_sync


def _buffer_sync_flags(broadcast_buffers, forward_sync_buffers) -> tuple[bool, bool]:
    """(sync buffers before forward, sync them at construction), with PyTorch 2.13's deprecation of
    ``broadcast_buffers`` in favour of ``forward_sync_buffers``."""
    if broadcast_buffers is not None:
        if forward_sync_buffers is not None:
            warnings.warn(
                "Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` is deprecated and its "
                "value is ignored when `forward_sync_buffers` is provided.",
                FutureWarning,
                stacklevel=3,
            )
        else:
            warnings.warn(
                "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. Unlike `broadcast_buffers=False`, "
                "`forward_sync_buffers=False` still syncs buffers at init.",
                FutureWarning,
                stacklevel=3,
            )
    if forward_sync_buffers is not None:
        return bool(forward_sync_buffers), True
    effective = True if broadcast_buffers is None else bool(broadcast_buffers)
    return effective, effective


def _verify_param_shapes(named: list[tuple[str, Tensor]], group) -> None:
    """Every rank must hold the same parameters: the first that differs from rank 0's is named."""
    mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in named]
    everyone: list = [None] * dist.get_world_size(group)
    dist.all_gather_object(everyone, mine, group=group)
    reference = everyone[0]
    for rank, theirs in enumerate(everyone):
        if theirs == reference:
            continue
        for k in range(max(len(theirs), len(reference))):
            a = reference[k] if k < len(reference) else None
            b = theirs[k] if k < len(theirs) else None
            if a != b:
                raise RuntimeError(
                    f"DistributedDataParallel: the module differs across ranks: parameter #{k} is {_describe(b)} on rank {rank} "
                    f"but {_describe(a)} on rank 0 (rank {rank} has {len(theirs)} parameters, rank 0 has {len(reference)}); "
                    "every rank must build the same model"
                )


def _describe(entry) -> str:
    if entry is None:
        return "missing"
    name, shape, dtype = entry
    return f"'{name}' of shape {list(shape)} and dtype {dtype}"


def _broadcast_coalesced(tensors: list[Tensor], group) -> None:
    """Rank 0's values into every rank's tensors: one broadcast per dtype group of up to 250 MiB
    (a tensor alone in its group goes as it is, without a copy)."""
    if not tensors:
        return
    src = dist.get_global_rank(group, 0) if group is not None else 0
    groups: dict = {}
    for t in tensors:
        groups.setdefault(t.dtype, []).append(t)
    with no_grad():
        for same_dtype in groups.values():
            chunk: list[Tensor] = []
            size = 0
            for t in same_dtype:
                nbytes = t.numel() * t.element_size()
                if chunk and size + nbytes > _BROADCAST_BUCKET_BYTES:
                    _broadcast_chunk(chunk, src, group)
                    chunk, size = [], 0
                chunk.append(t)
                size += nbytes
            _broadcast_chunk(chunk, src, group)


def _broadcast_chunk(chunk: list[Tensor], src: int, group) -> None:
    if len(chunk) == 1 and chunk[0].is_contiguous():
        dist.broadcast(chunk[0], src=src, group=group)
        return
    flat = F.cat([t.reshape(-1) for t in chunk])
    dist.broadcast(flat, src=src, group=group)
    offset = 0
    for t in chunk:
        n = t.numel()
        t.copy_(flat[offset : offset + n].view(t.shape))
        offset += n


def _find_tensors(obj) -> Iterator[Tensor]:
    """The tensors inside a forward's output (nested tuples, lists, dicts)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _find_tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _find_tensors(item)


def _union_ns(spans: list[tuple[int, int]]) -> int:
    total, end = 0, None
    for a, b in sorted(spans):
        if end is None or a > end:
            total += b - a
            end = b
        elif b > end:
            total += b - end
            end = b
    return total


def _timeline_span(name: str, start_ns: int, end_ns: int, nbytes: int, group) -> None:
    # onto the per-rank timeline (ember.distributed.timeline), when one is open
    dist.record(name, start_ns / 1e9, end_ns / 1e9, category="ddp", bytes=nbytes)
