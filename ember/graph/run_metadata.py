"""``Session.run(..., options=RunOptions(...), run_metadata=RunMetadata())``: traces and deadlines.

``RunOptions.trace_level`` above ``NO_TRACE`` times every node the run executes and reports it
in ``run_metadata.step_stats`` (one ``DeviceStepStats`` for the CPU, a ``NodeExecStats`` per
node that computes, constants and variables being read rather than run: start time since the epoch, duration, TensorFlow's timeline label ``name = Type(inputs)``,
each output's dtype and shape). ``output_partition_graphs`` puts the ``GraphDef`` of what the
run executed (after the graph passes) in ``partition_graphs``. ``timeout_in_ms`` above 0 is a
deadline checked after each node: past it, the run stops with ``DeadlineExceededError`` (a
kernel already running is not interrupted). A traced or timed run goes through the general
executor, so its timings are those of node-by-node execution.

>>> import ember
>>> from ember.graph.proto import RunMetadata, RunOptions
>>> with ember.Graph().as_default() as g:
...     x = ember.placeholder(ember.float32, shape=(), name="x")
...     y = x * 2.0
>>> metadata, options = RunMetadata(), RunOptions(trace_level=RunOptions.FULL_TRACE)
>>> ember.Session(graph=g).run(y, {x: 3.0}, options=options, run_metadata=metadata)
np.float32(6.0)
>>> [n.node_name for n in metadata.step_stats.dev_stats[0].node_stats]
['mul']
"""

from __future__ import annotations

import threading
import time

from .errors import DeadlineExceededError
from .export import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER, node_def, node_input_name
from .proto import GraphDef, NodeExecStats, RunMetadata, RunOptions

__all__ = ["CPU_DEVICE", "RunTracer", "as_run_options", "finish", "partition_graph", "prepare"]

CPU_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def as_run_options(options) -> RunOptions:
    """``options`` as ember's RunOptions: itself, or a copy of TensorFlow's (same fields)."""
    if isinstance(options, RunOptions):
        return options
    if not hasattr(options, "SerializeToString"):
        raise TypeError(f"Session.run(): options must be a RunOptions protobuf, got {type(options).__name__}")
    return RunOptions.FromString(options.SerializeToString())


class RunTracer:
    """What the executor reports each node to (``Plan.run``'s ``monitor``): its timing, when the
    run is traced, and the deadline."""

    __slots__ = ("deadline_ns", "node_stats", "tracing")

    def __init__(self, tracing: bool, timeout_in_ms: int) -> None:
        self.tracing = tracing
        self.deadline_ns = time.monotonic_ns() + timeout_in_ms * 1_000_000 if timeout_in_ms > 0 else None
        self.node_stats: list = []

    def after_step(self, op, outputs: list, start_ns: int) -> None:
        """Called by the executor after node ``op`` ran (from ``start_ns``, ``time.time_ns()``)."""
        end_ns = time.time_ns()
        if self.tracing:
            self.node_stats.append(_node_stats(op, outputs, start_ns, end_ns))
        if self.deadline_ns is not None and time.monotonic_ns() > self.deadline_ns:
            raise DeadlineExceededError(None, op, "Timed out waiting for notification")

    def fill(self, run_metadata, plan, options: RunOptions) -> None:
        """Write what the run recorded into ``run_metadata`` (ember's RunMetadata or TensorFlow's)."""
        out = RunMetadata()
        if self.tracing:
            device = out.step_stats.dev_stats.add(device=CPU_DEVICE)
            device.node_stats.extend(self.node_stats)
            device.thread_names[threading.get_ident() & 0xFFFFFFFF] = threading.current_thread().name
        if options.output_partition_graphs:
            out.partition_graphs.append(partition_graph(plan))
        _write(run_metadata, out)


def _write(run_metadata, out: RunMetadata) -> None:
    if isinstance(run_metadata, RunMetadata):
        run_metadata.CopyFrom(out)
    else:  # TensorFlow's or TensorBoard's class: the same fields, another pool
        run_metadata.ParseFromString(out.SerializeToString())


def prepare(options, run_metadata) -> tuple:
    """(RunOptions, a RunTracer or None) for ``Session.run``'s arguments; the tracer is None
    when the run needs neither timings nor a deadline."""
    if run_metadata is not None and not hasattr(run_metadata, "ParseFromString"):
        raise TypeError(f"Session.run(): run_metadata must be a RunMetadata protobuf, got {type(run_metadata).__name__}")
    options = RunOptions() if options is None else as_run_options(options)
    tracing = run_metadata is not None and options.trace_level != RunOptions.NO_TRACE
    if not tracing and options.timeout_in_ms <= 0:
        return options, None
    return options, RunTracer(tracing, options.timeout_in_ms)


def finish(run_metadata, tracer: RunTracer | None, plan, options: RunOptions) -> None:
    """Fill ``run_metadata`` after a run (empty when nothing was asked for, as TensorFlow)."""
    if run_metadata is None:
        return
    if tracer is None:
        tracer = RunTracer(False, 0)
    tracer.fill(run_metadata, plan, options)


def _node_stats(op, outputs: list, start_ns: int, end_ns: int) -> NodeExecStats:
    elapsed = end_ns - start_ns
    inputs = ", ".join(node_input_name(t) for t in op.inputs)
    stats = NodeExecStats(
        node_name=op.name,
        timeline_label=f"{op.name} = {op.type}({inputs})",
        all_start_micros=start_ns // 1000,
        op_end_rel_micros=elapsed // 1000,
        all_end_rel_micros=elapsed // 1000,
        all_start_nanos=start_ns,
        op_end_rel_nanos=elapsed,
        all_end_rel_nanos=elapsed,
        scheduled_micros=start_ns // 1000,
        scheduled_nanos=start_ns,
        thread_id=threading.get_ident() & 0xFFFFFFFF,
    )
    for slot, value in enumerate(outputs):
        if value is None:
            continue
        output = stats.output.add(slot=slot)
        output.tensor_description.dtype = value._dtype.tf_enum
        for size in value._shape:
            output.tensor_description.shape.dim.add(size=size)
    return stats


def partition_graph(plan) -> GraphDef:
    """The GraphDef of what a plan executes: its nodes and the placeholders it was fed through."""
    ops = set(plan.ops)
    ops.update(t._op for t in plan.feed_tensors)
    graph_def = GraphDef()
    graph_def.versions.producer = GRAPH_DEF_VERSION
    graph_def.versions.min_consumer = GRAPH_DEF_VERSION_MIN_CONSUMER
    for op in sorted(ops, key=lambda o: o._id):
        graph_def.node.append(node_def(op))
    return graph_def
