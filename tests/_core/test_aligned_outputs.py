"""Op outputs start on 64-byte boundaries, and the kept (reused) small outputs are never handed
out again while anything can still see their memory."""

import gc

import numpy as np
import pytest

import ember
from ember.memory import ALIGNMENT, get_allocator, memory_stats


def _aligned(t) -> bool:
    return t.data_ptr() % ALIGNMENT == 0


@pytest.mark.parametrize(
    "dtype", [ember.float32, ember.float16, ember.bfloat16, ember.float64, ember.int8, ember.bool, ember.complex64]
)
def test_op_outputs_are_64_byte_aligned_for_every_size(dtype):
    for n in [1, 2, 3, 5, 7, 16, 33, 100, 257, 1000, 70_000]:
        x = ember.ones(n, dtype=dtype)
        outputs = [x.clone(), ember.zeros(n, dtype=dtype), ember.empty(n, dtype=dtype), x.reshape(1, n).contiguous()]
        if dtype is not ember.bool:
            outputs += [x + x, x * 2, ember.abs(x)]
        for out in outputs:
            assert _aligned(out), (n, dtype, out.data_ptr() % ALIGNMENT)


def test_outputs_of_other_roads_are_aligned():
    a = ember.randn(3, 4)
    results = [
        a @ ember.randn(4, 5),
        a.sum(0),
        a.t().contiguous(),
        ember.cat([a, a]),
        ember.tensor([1.0, 2.0, 3.0]),
        ember.arange(10),
        ember.relu(a),
        a.t() + 1.0,
        a.half() + a.half(),
    ]
    assert all(_aligned(t) for t in results)


def test_a_kept_output_is_not_reused_while_a_numpy_view_of_it_lives():
    a, b = ember.ones(100), ember.full((100,), 2.0)
    c = a + b
    view = c.numpy()  # escapes: the user holds the memory
    address = c.data_ptr()
    del c
    gc.collect()
    others = [a * 5.0 for _ in range(8)]  # same shape and dtype: would take a kept block
    assert all(t.data_ptr() != address for t in others)
    assert view.tolist() == [3.0] * 100


def test_a_kept_output_is_not_reused_while_an_internal_view_of_its_array_lives():
    a = ember.ones(100)
    c = a + a
    inner = c._numpy_view()[10:]  # a NumPy view made inside ember (as a queued kernel holds one)
    address = c.data_ptr()
    del c
    others = [a * 7.0 for _ in range(8)]
    assert all(t.data_ptr() != address for t in others)
    assert inner.tolist() == [2.0] * 90


def test_a_tensor_view_keeps_the_block_and_its_values():
    a = ember.ones(100)
    c = a + a
    tail = c[50:]
    address = c.data_ptr()
    del c
    others = [a * 3.0 for _ in range(8)]
    assert all(t.data_ptr() != address for t in others)
    assert tail.tolist() == [2.0] * 50


def test_freed_outputs_are_reused_and_counted():
    a = ember.ones(64)
    gc.collect()
    first = a + a
    address = first.data_ptr()
    before = memory_stats()["allocated_bytes.current"]
    del first  # nothing else sees it: it is kept
    assert memory_stats()["allocated_bytes.current"] == before - 256
    assert memory_stats()["cached_bytes.current"] >= 256
    again = a * 3.0
    assert again.data_ptr() == address and again.tolist() == [3.0] * 64  # fully rewritten
    assert memory_stats()["allocated_bytes.current"] == before


def test_async_stream_outputs_stay_correct_with_reuse():
    a = ember.arange(100, dtype=ember.float32)
    with ember.vm.asynchronous():
        results = []
        for i in range(50):
            y = a + float(i)
            y = y * 2.0  # the first y dies while its kernel may still be queued
            results.append(y)
        values = [r.tolist() for r in results]
    expected = [((np.arange(100, dtype=np.float32) + i) * 2).tolist() for i in range(50)]
    assert values == expected


def test_kept_bytes_stay_within_their_bounds_and_empty_cache_releases_them():
    allocator = get_allocator("cpu")
    xs = [ember.ones(1000 + i) for i in range(50)]  # 50 shapes
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
