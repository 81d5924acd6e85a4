"""Op outputs from ``CPUAllocator.ALIGN_FROM`` bytes on start on 64-byte boundaries, and the
kept (reused) outputs are never handed out again while anything can still see their memory."""

import gc

import numpy as np
import pytest

import ember
from ember.memory import ALIGNMENT, CPUAllocator, get_allocator, memory_stats

N = CPUAllocator.ALIGN_FROM // 4 + 10  # float32 elements of an output that is aligned and kept


def _aligned(t) -> bool:
    return t.data_ptr() % ALIGNMENT == 0


@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float16, ember.bfloat16, ember.float64, ember.int8, ember.bool, ember.complex64]
)
def test_op_outputs_are_64_byte_aligned_for_every_size(dtype):
    first = CPUAllocator.ALIGN_FROM // dtype.itemsize
    for n in [first, first + 1, first + 3, first + 33, 70_000, 300_001, (CPUAllocator.KEEP_LIMIT >> 1) + 5]:
        x = ember.ones(n, dtype=dtype)
        outputs = [x.clone(), ember.zeros(n, dtype=dtype), ember.empty(n, dtype=dtype), x.reshape(1, n).contiguous()]
        if dtype is not ember.bool:
            outputs += [x + x, x * 2, ember.abs(x)]
        for out in outputs:
            if out.nbytes >= CPUAllocator.ALIGN_FROM:  # (abs of a complex input: half the bytes)
                assert _aligned(out), (n, dtype, out.data_ptr() % ALIGNMENT)
            else:
                assert out.dtype is not dtype


def test_outputs_of_other_roads_are_aligned():
    a = ember.randn(64, 128)
    results = [
        a @ ember.randn(128, 64),
        a.sum(1, keepdim=True).expand(64, 128).contiguous(),
        a.t().contiguous(),
        ember.cat([a, a]),
        ember.tensor([1.0] * N),
        ember.arange(N),
        ember.relu(a),
        a.t() + 1.0,
        a.half() + a.half(),
        ember.empty(N),
        ember.zeros(N),
    ]
    assert all(_aligned(t) for t in results)


def test_small_outputs_stay_plain_numpy_arrays():
    out = ember.ones(100) + 1  # below ALIGN_FROM: malloc's alignment, not kept
    assert type(out._storage._data).__name__ == "_ArrayBlock" and out.data_ptr() % 16 == 0


def test_a_kept_output_is_not_reused_while_a_numpy_view_of_it_lives():
    a, b = ember.ones(N), ember.full((N,), 2.0)
    c = a + b
    view = c.numpy()  # escapes: the user holds the memory
    address = c.data_ptr()
    del c
    gc.collect()
    others = [a * 5.0 for _ in range(8)]  # same shape and dtype: would take a kept block
    assert all(t.data_ptr() != address for t in others)
    assert view.tolist() == [3.0] * N


def test_a_kept_output_is_not_reused_while_an_internal_view_of_its_array_lives():
    a = ember.ones(N)
    c = a + a
    inner = c._numpy_view()[10:]  # a NumPy view made inside ember (as a queued kernel holds one)
    address = c.data_ptr()
    del c
    others = [a * 7.0 for _ in range(8)]
    assert all(t.data_ptr() != address for t in others)
    assert inner.tolist() == [2.0] * (N - 10)


def test_a_tensor_view_keeps_the_block_and_its_values():
    a = ember.ones(N)
    c = a + a
    tail = c[N - 50 :]
    address = c.data_ptr()
    del c
    others = [a * 3.0 for _ in range(8)]
    assert all(t.data_ptr() != address for t in others)
    assert tail.tolist() == [2.0] * 50


def test_freed_outputs_are_reused_and_counted():
    a = ember.ones(N)
    gc.collect()
    first = a + a
    address = first.data_ptr()
    before = memory_stats()["allocated_bytes.current"]
    del first  # nothing else sees it: it is kept
    assert memory_stats()["allocated_bytes.current"] == before - 4 * N
    assert memory_stats()["cached_bytes.current"] >= 4 * N
    again = a * 3.0
    assert again.data_ptr() == address and again.tolist() == [3.0] * N  # fully rewritten
    assert memory_stats()["allocated_bytes.current"] == before


def test_async_stream_outputs_stay_correct_with_reuse():
    a = ember.arange(N, dtype=ember.float32)
    with ember.vm.asynchronous():
        results = []
        for i in range(50):
            y = a + float(i)
            y = y * 2.0  # the first y dies while its kernel may still be queued
            results.append(y)
        values = [r.tolist() for r in results]
    expected = [((np.arange(N, dtype=np.float32) + i) * 2).tolist() for i in range(50)]
    assert values == expected


def test_kept_bytes_stay_within_their_bounds_and_empty_cache_releases_them():
    allocator = get_allocator("cpu")
    xs = [ember.ones(N + i) for i in range(50)]  # 50 shapes
    outs = [[x * 2.0 for _ in range(6)] for x in xs]
    del outs
    gc.collect()
    assert allocator._kept_bytes <= allocator.KEEP_TOTAL
    assert all(len(kept) <= allocator.KEEP_PER_SIGNATURE for kept in allocator._kept.values())
    cached = memory_stats()["cached_bytes.current"]
    kept = allocator._kept_bytes
    assert kept > 0
    ember.empty_cache()
    assert allocator._kept_bytes == 0 and memory_stats()["cached_bytes.current"] == cached - kept
