"""``ember.cuda``: what a PyTorch program asks of CUDA, answered for a machine where ember has none.

Programs start with ``device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`` and
seed every generator with ``torch.cuda.manual_seed_all``; here the answers are those of PyTorch
without a GPU: not available, no devices, seeding and cache-emptying do nothing, and the calls
that need a device refuse with an ``AssertionError``, as PyTorch's do.

>>> ember.cuda.is_available(), ember.cuda.device_count()
(False, 0)
"""

from __future__ import annotations

from typing import NoReturn

__all__ = [
    "current_device", "device_count", "empty_cache", "get_device_name", "get_device_properties", "is_available",
    "is_bf16_supported", "is_initialized", "manual_seed", "manual_seed_all", "max_memory_allocated", "memory_allocated",
    "memory_reserved", "seed", "seed_all", "set_device", "synchronize",
]  # fmt: skip


def _no_cuda() -> NoReturn:
    raise AssertionError("ember has no CUDA backend (only 'cpu' and 'meta' devices can hold tensors)")


def is_available() -> bool:
    """Whether a CUDA device can hold tensors: never, in this build."""
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's generator: nothing to seed, as in PyTorch without a GPU."""


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's generator: nothing to seed."""


def seed() -> None:
    pass


def seed_all() -> None:
    pass


def empty_cache() -> None:
    """Release cached CUDA memory: there is none (``ember.empty_cache`` releases the CPU cache)."""


def memory_allocated(device=None) -> int:
    return 0


def max_memory_allocated(device=None) -> int:
    return 0


def memory_reserved(device=None) -> int:
    return 0


def synchronize(device=None) -> NoReturn:
    _no_cuda()


def current_device() -> NoReturn:
    _no_cuda()


def set_device(device) -> NoReturn:
    _no_cuda()


def get_device_name(device=None) -> NoReturn:
    _no_cuda()


def get_device_properties(device=None) -> NoReturn:
    _no_cuda()
