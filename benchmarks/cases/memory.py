"""Allocation: a fresh block from the system against a block reused from the caching allocator.

Every call's tensor dies at once. With the default CPU allocator a large block is an mmap
returned to the system on death, so each call touches fresh pages (faults/call shows it);
with a CachingAllocator the previous call's block comes back from the cache, already touched.
"""

import numpy as np
from harness import Compare, Impl, case, torch

import ember
from ember.memory import CachingAllocator, using_allocator


def _impls(n: int, ember_dtype, numpy_dtype, torch_dtype, value) -> dict:
    cache = CachingAllocator()  # one per case: warmed by the warm-up, dropped with the case
    impls = {
        "ember": lambda: ember.empty(n, dtype=ember_dtype).fill_(value),
        "ember[caching]": Impl(lambda: ember.empty(n, dtype=ember_dtype).fill_(value), scope=lambda: using_allocator(cache)),
        "numpy": lambda: np.empty(n, numpy_dtype).fill(value),
    }
    if torch is not None:
        impls["torch"] = lambda: torch.empty(n, dtype=getattr(torch, torch_dtype)).fill_(value)
    return impls


@case(
    "memory/alloc+fill_(1) 64MiB u8",
    compare=(Compare("fresh/cached", "ember", "ember[caching]", target=3.0),),
    note="first write to fresh memory: page faults and kernel zeroing dominate; numpy and ember advise huge pages, torch does not",
)
def _alloc_large():
    return _impls(64 << 20, ember.uint8, np.uint8, "uint8", 1)


@case(
    "memory/alloc+fill_(0) 256 f32",
    compare=(Compare("default/caching", "ember", "ember[caching]"),),
    note="> 1 means the caching allocator is faster for small tensors (an argument for making it the CPU default)",
)
def _alloc_small():
    return _impls(256, ember.float32, np.float32, "float32", 0)
