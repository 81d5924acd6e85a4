"""all_reduce, reduce, broadcast, reduce_scatter and barrier on 2 ranks, every dtype against NumPy.

Each test body runs on every rank (see conftest.py); the inputs of all ranks are known to
each, so each rank checks its own result against the NumPy computation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import ember
import ember.distributed as dist

from ._data import DTYPES, OPS, expected, rank_input, same, tensor_of, valid

pytestmark = pytest.mark.mpi(n=2)

SHAPE = (3, 5)


def _all_inputs(shape, dtype) -> list[np.ndarray]:
    return [rank_input(r, shape, dtype) for r in range(dist.get_world_size())]


def test_all_reduce_every_dtype_and_op():
    rank = dist.get_rank()
    for dtype in DTYPES:
        for op in OPS:
            t = tensor_of(rank_input(rank, SHAPE, dtype))
            if not valid(dtype, op):
                with pytest.raises(ValueError, match=op):
                    dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
                continue
            version = t._version
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            same(t, expected(_all_inputs(SHAPE, dtype), dtype, op))
            assert t._version > version, "an in-place collective must bump the version counter"


def test_all_reduce_non_contiguous_and_0d_and_empty():
    rank = dist.get_rank()
    for dtype in (ember.float32, ember.bfloat16, ember.int64, ember.complex64):
        base = tensor_of(rank_input(rank, (5, 3), dtype))
        view = base.t()  # non-contiguous: copied in, reduced, written back through the view
        dist.all_reduce(view)
        same(base, expected(_all_inputs((5, 3), dtype), dtype, "SUM"))
    scalar = ember.tensor(float(rank + 1))
    dist.all_reduce(scalar, op=dist.ReduceOp.MAX)
    assert scalar.item() == dist.get_world_size()
    empty = ember.zeros(0, 4)
    dist.all_reduce(empty)
    assert empty.shape == (0, 4)


def test_all_reduce_large_goes_in_chunks():
    # The job runs with EMBER_DIST_CHUNK_BYTES=4096: this tensor is reduced in 25 pieces.
    rank = dist.get_rank()
    for dtype in (ember.float32, ember.float16):
        t = tensor_of(rank_input(rank, (25_000,), dtype))
        dist.all_reduce(t, op=dist.ReduceOp.AVG)
        same(t, expected(_all_inputs((25_000,), dtype), dtype, "AVG"))


def test_all_reduce_async_work():
    rank = dist.get_rank()
    t = tensor_of(rank_input(rank, (20_000,), ember.float32))
    work = dist.all_reduce(t, async_op=True)
    assert isinstance(work, dist.Work)
    assert work.wait() is True
    assert work.is_completed() and work.is_success()
    assert work.result() == [t]
    same(t, expected(_all_inputs((20_000,), ember.float32), ember.float32, "SUM"))
    half = tensor_of(rank_input(rank, SHAPE, ember.bfloat16))
    work = dist.all_reduce(half, op=dist.ReduceOp.AVG, async_op=True)
    while not work.is_completed():
        pass
    same(half, expected(_all_inputs(SHAPE, ember.bfloat16), ember.bfloat16, "AVG"))


def test_reduce_every_dtype_to_each_root():
    rank, size = dist.get_rank(), dist.get_world_size()
    for dst in range(size):
        for dtype in DTYPES:
            op = "SUM" if dtype is not ember.bool else "MAX"
            mine = rank_input(rank, SHAPE, dtype)
            t = tensor_of(mine)
            dist.reduce(t, dst=dst, op=getattr(dist.ReduceOp, op))
            same(t, expected(_all_inputs(SHAPE, dtype), dtype, op) if rank == dst else mine)


def test_broadcast_every_dtype_from_each_source():
    rank, size = dist.get_rank(), dist.get_world_size()
    for src in range(size):
        for dtype in DTYPES:
            t = tensor_of(rank_input(rank, SHAPE, dtype))
            dist.broadcast(t, src=src)
            same(t, rank_input(src, SHAPE, dtype))
    big = tensor_of(rank_input(rank, (9_000,), ember.float64)).t()  # chunked; a 1-d .t() is itself
    work = dist.broadcast(big, group_src=size - 1, async_op=True)
    work.wait()
    same(big, rank_input(size - 1, (9_000,), ember.float64))


def test_reduce_scatter_tensor_and_list():
    rank, size = dist.get_rank(), dist.get_world_size()
    for dtype in DTYPES:
        op = "SUM" if dtype is not ember.bool else "BOR"
        full = [rank_input(r, (size * 2, 3), dtype) for r in range(size)]
        out = ember.zeros(2, 3, dtype=dtype)
        dist.reduce_scatter_tensor(out, tensor_of(full[rank]), op=getattr(dist.ReduceOp, op))
        same(out, expected(full, dtype, op)[2 * rank : 2 * rank + 2])
    # uneven pieces: rank r receives r + 1 rows
    rows = [r + 1 for r in range(size)]
    inputs = [[rank_input(r * 10 + i, (rows[i], 2), ember.float32) for i in range(size)] for r in range(size)]
    out = ember.zeros(rows[rank], 2)
    dist.reduce_scatter(out, [tensor_of(a) for a in inputs[rank]])
    same(out, expected([inputs[r][rank] for r in range(size)], ember.float32, "SUM"))
    work = dist.reduce_scatter(out, [tensor_of(a) for a in inputs[rank]], op=dist.ReduceOp.MAX, async_op=True)
    work.wait()
    same(out, expected([inputs[r][rank] for r in range(size)], ember.float32, "MAX"))


def test_barrier_blocking_async_and_with_timeout():
    dist.barrier()
    work = dist.barrier(async_op=True)
    assert work.wait()
    dist.barrier(timeout=10.0)
    dist.monitored_barrier(timeout=10.0)


def test_bad_use_gets_clear_errors():
    t = ember.zeros(4)
    with pytest.raises(TypeError, match="argument 'tensor' must be a Tensor"):
        dist.all_reduce([1.0, 2.0])
    with pytest.raises(TypeError, match="string tensor"):
        dist.all_reduce(ember.tensor([b"a", b"b"]))
    with pytest.raises(ValueError, match="Global rank 7 is not part of group WORLD"):
        dist.broadcast(t, src=7)
    with pytest.raises(ValueError, match="Must specify src or group_src"):
        dist.broadcast(t)
    with pytest.raises(ValueError, match="Can't specify both"):
        dist.broadcast(t, src=0, group_src=0)
    with pytest.raises(ValueError, match=r"RedOpType\.MAX on complex"):
        dist.all_reduce(ember.zeros(2, dtype=ember.complex64), op=dist.ReduceOp.MAX)
    with pytest.raises(ValueError, match="non-integral dtype"):
        dist.all_reduce(t, op=dist.ReduceOp.BXOR)
    with pytest.raises(ValueError, match=r"of shape \[6\] or \[2, 3\].*got input of shape \[5\]"):
        dist.reduce_scatter_tensor(ember.zeros(3), ember.zeros(5))
    with pytest.raises(ValueError, match="different dtypes"):
        dist.reduce_scatter_tensor(ember.zeros(2), ember.zeros(4, dtype=ember.float64))
    with pytest.raises(RuntimeError, match="more than one element"):
        dist.all_reduce(ember.zeros(1).expand(3))
    with pytest.raises(TypeError, match="argument 'op' must be a ReduceOp"):
        dist.all_reduce(t, op="sum")


def test_collectives_appear_in_trace_and_timeline(tmp_path):
    rank = dist.get_rank()
    t = ember.ones(256)
    with ember.trace() as tr:
        dist.all_reduce(t)
        u = t * 2
        dist.broadcast(u, src=0, async_op=True).wait()
    names = [j.function for j in tr.journeys]
    assert names == ["distributed.all_reduce", "__mul__", "distributed.broadcast"], names
    first = tr.journeys[0]
    assert first.details["bytes"] == 1024 and first.details["group"] == "WORLD" and first.times["functional"] > 0
    assert tr.journeys[2].details["async"] is True
    path = tmp_path / f"tl{rank}.json"
    with dist.timeline(str(path)) as tl:
        dist.all_reduce(t)
        with dist.record_span("bucket 0", category="ddp", params=3):
            dist.all_reduce(t, async_op=True).wait()
    spans = [e for e in tl.events if e["ph"] == "X"]
    assert [(e["name"], e["cat"]) for e in spans] == [("all_reduce", "collective"), ("all_reduce", "collective"), ("bucket 0", "ddp")]
    assert spans[0]["args"]["bytes"] == 1024 and spans[0]["pid"] == rank and spans[2]["args"] == {"params": 3}
    assert json.loads(path.read_text())["traceEvents"][0]["args"]["name"] == f"rank {rank}"
