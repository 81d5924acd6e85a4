import gc

import numpy as np
import pytest

import ember
from ember.memory import (
    ALIGNMENT,
    HUGE_PAGE_THRESHOLD,
    CachingAllocator,
    CPUAllocator,
    from_blob,
    get_allocator,
    memory_stats,
    reset_peak_memory_stats,
    using_allocator,
)


def stats():
    return memory_stats("cpu")


@pytest.mark.parametrize("nbytes", [1, 63, 64, 1000, 4096 + 3, HUGE_PAGE_THRESHOLD + 5])
def test_cpu_blocks_are_aligned_and_sized(nbytes):
    p = CPUAllocator().allocate(nbytes)
    assert p.address % ALIGNMENT == 0
    assert p.buffer.nbytes == nbytes
    assert p.buffer.ctypes.data == p.address
    p.buffer[:] = 7  # writable, really ours
    assert int(p.buffer.sum()) == 7 * nbytes


@pytest.mark.parametrize("factory", [CPUAllocator, CachingAllocator])
def test_statistics_follow_allocations_and_frees(factory):
    allocator = factory()
    gc.collect()
    before = stats()
    reset_peak_memory_stats()
    p = allocator.allocate(1000)
    q = allocator.allocate(24)
    mid = stats()
    assert mid["allocated_bytes.current"] - before["allocated_bytes.current"] == 1024
    assert mid["num_allocs"] - before["num_allocs"] == 2
    assert mid["allocated_bytes.peak"] >= before["allocated_bytes.current"] + 1024
    del p, q
    gc.collect()
    after = stats()
    assert after["allocated_bytes.current"] == before["allocated_bytes.current"]
    assert after["num_frees"] - before["num_frees"] == 2
    assert after["allocated_bytes.peak"] == mid["allocated_bytes.peak"]
    reset_peak_memory_stats()
    assert stats()["allocated_bytes.peak"] == after["allocated_bytes.current"]


def test_zero_byte_tensors_allocate_nothing():
    gc.collect()
    before = stats()["num_allocs"]
    for allocator in (CPUAllocator(), CachingAllocator()):
        assert allocator.allocate(0).buffer.nbytes == 0
    t = ember.zeros(0, 5)
    assert t.numel() == 0 and t.numpy().shape == (0, 5)
    assert stats()["num_allocs"] == before


@pytest.mark.parametrize("factory", [CPUAllocator, CachingAllocator])
def test_memory_lives_while_a_numpy_view_lives(factory):
    with using_allocator(factory()):
        t = ember.zeros(100, dtype=ember.int64)
    frees = stats()["num_frees"]
    view = t.numpy()[10:20]
    del t
    gc.collect()
    assert stats()["num_frees"] == frees, "freed while a NumPy view still used it"
    view[:] = 5
    # A new allocation of the same size must not alias the live view.
    with using_allocator(factory()):
        other = ember.zeros(100, dtype=ember.int64)
    assert not np.shares_memory(other.numpy(), view)
    assert view.tolist() == [5] * 10
    del view
    gc.collect()
    assert stats()["num_frees"] == frees + 1


def test_caching_allocator_reuses_blocks_and_empties_its_cache():
    cache = CachingAllocator()
    p = cache.allocate(3000)
    address = p.address
    del p
    gc.collect()
    assert stats()["cached_bytes.current"] >= 3072
    again = cache.allocate(2900)  # same 512-byte size class
    assert again.address == address
    del again
    gc.collect()
    cached = stats()["cached_bytes.current"]
    kept_outputs = get_allocator("cpu")._kept_bytes  # the default allocator's kept op outputs go too
    ember.empty_cache()
    assert stats()["cached_bytes.current"] == cached - 3072 - kept_outputs
    fresh = cache.allocate(3000)
    assert fresh.buffer.nbytes == 3000


def test_caching_allocator_as_the_scoped_default():
    cache = CachingAllocator()
    with using_allocator(cache):
        t = ember.ones(10)
        assert t.untyped_storage().allocator is cache
    assert ember.ones(10).untyped_storage().allocator is not cache


def test_from_blob_keeps_owner_alive_and_releases_once():
    released = []
    owner = np.arange(16, dtype=np.uint8)
    p = from_blob(owner.ctypes.data, 16, owner, released.append)
    view = p.buffer[4:8]
    del p, owner
    gc.collect()
    assert released == []
    assert view.tolist() == [4, 5, 6, 7]
    del view
    gc.collect()
    assert len(released) == 1 and released[0].tolist() == list(range(16))


def test_from_blob_read_only():
    owner = np.arange(4, dtype=np.uint8)
    p = from_blob(owner.ctypes.data, 4, owner, readonly=True)
    assert not p.buffer.flags.writeable


@pytest.mark.parametrize(("nbytes", "error"), [(-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_sizes(nbytes, error):
    with pytest.raises(error, match="allocate\\(\\): argument 'nbytes'"):
        CPUAllocator().allocate(nbytes)


def test_meta_never_allocates():
    gc.collect()
    before = stats()["num_allocs"]
    t = ember.empty(1 << 40, device="meta")  # a terabyte of nothing
    assert t.shape == (1 << 40,) and t.device == ember.device("meta")
    assert stats()["num_allocs"] == before


def test_kernel_outputs_are_counted_until_their_last_holder_dies():
    gc.collect()
    base = stats()
    x = ember.ones(10)  # a kernel output (the fill kernel), 40 bytes
    y = x + 1
    assert stats()["allocated_bytes.current"] - base["allocated_bytes.current"] == 80
    v = y[2:]  # an ember view keeps the block counted
    del y
    gc.collect()
    assert stats()["allocated_bytes.current"] - base["allocated_bytes.current"] == 80
    escaped = v.numpy()  # a NumPy view escapes: the block stays counted while it lives
    del v
    gc.collect()
    assert stats()["allocated_bytes.current"] - base["allocated_bytes.current"] == 80
    assert escaped.tolist() == [2.0] * 8
    del escaped, x
    gc.collect()
    after = stats()
    assert after["allocated_bytes.current"] == base["allocated_bytes.current"]
    assert after["num_frees"] - base["num_frees"] == 2
