"""Memory: the allocator contract, the CPU, caching and shared-memory allocators, from-blob, statistics.

>>> import ember
>>> with ember.memory.using_allocator(ember.memory.CachingAllocator()):
...     t = ember.empty(1000)
>>> t.untyped_storage().allocator
CachingAllocator(device='cpu')
"""

from ._core.allocator import (
    ALIGNMENT,
    HUGE_PAGE_THRESHOLD,
    Allocator,
    CachingAllocator,
    CPUAllocator,
    DataPtr,
    empty_cache,
    from_blob,
    get_allocator,
    memory_stats,
    reset_peak_memory_stats,
    set_allocator,
    using_allocator,
)
from ._core.shared_memory import SharedMemoryAllocator

__all__ = [
    "ALIGNMENT",
    "HUGE_PAGE_THRESHOLD",
    "Allocator",
    "CPUAllocator",
    "CachingAllocator",
    "DataPtr",
    "SharedMemoryAllocator",
    "empty_cache",
    "from_blob",
    "get_allocator",
    "memory_stats",
    "reset_peak_memory_stats",
    "set_allocator",
    "using_allocator",
]
