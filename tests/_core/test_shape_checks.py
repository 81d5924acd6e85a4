"""Sizes checked where shapes are made, and memory the system refuses named as such.

Every size here fails before any memory is touched: byte counts past int64, or 2**46 elements
(256 TiB of float32, past any machine's user address space, overcommit or not)."""

import errno

import numpy as np
import pytest

import ember
from ember._core import allocator as _alloc, shared_memory as _shm
from ember._core.shape import check_numel, check_size
from tests._oracle import needs_torch, torch

HUGE = (3, 2**61)  # 3 * 2**61 elements: the element count fits in int64, the bytes do not
UNMAPPABLE = 2**46  # elements: 2**48 bytes of float32


def test_check_size_in_pytorch_words():
    check_size((2, 3), "empty", 8)
    check_size((0, 2**30, 2**30), "empty", 4)  # empty, and its strides countable
    with pytest.raises(RuntimeError, match=r"empty\(\): Trying to create tensor with negative dimension -1: \[2, -1\]"):
        check_size((2, -1), "empty")
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[3, 2305843009213693952\]"):
        check_size(HUGE, "empty", 4)
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        check_size((2**60,), "empty", 8)  # the elements fit, their bytes do not
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        check_size((2**62, 2**62, 0), "empty", 1)  # a zero size does not hide the others' product
    check_numel((0, 2**62, 2**62), "expand")
    with pytest.raises(RuntimeError, match=r"expand\(\): numel: integer multiplication overflow"):
        check_numel((2**62, 2**62), "expand")


_T = ember.ones(2, 3)
FACTORIES = {
    "empty": lambda size: ember.empty(size),
    "zeros": lambda size: ember.zeros(size),
    "ones": lambda size: ember.ones(size),
    "full": lambda size: ember.full(size, 1.0),
    "rand": lambda size: ember.rand(size),
    "randn": lambda size: ember.randn(size),
    "randint": lambda size: ember.randint(3, size),
    "empty_strided": lambda size: ember.empty_strided(size, (1,) * len(size)),
    "new_empty": lambda size: _T.new_empty(size),
    "new_zeros": lambda size: _T.new_zeros(size),
    "new_ones": lambda size: _T.new_ones(size),
    "new_full": lambda size: _T.new_full(size, 2.0),
    "Tensor": lambda size: ember.Tensor(*size),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_every_factory_refuses_a_negative_size(name):
    with pytest.raises(RuntimeError, match=r"Trying to create tensor with negative dimension -1: \[2, -1\]"):
        FACTORIES[name]((2, -1))


@pytest.mark.parametrize("name", FACTORIES)
def test_every_factory_refuses_a_storage_past_int64(name):
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\[3, 2305843009213693952\]"):
        FACTORIES[name](HUGE)


VIEWS = {
    "expand": lambda: ember.ones(1).expand(2**62, 2**62),
    "broadcast_to": lambda: ember.broadcast_to(ember.ones(1), (2**40, 2**40, 2**40)),
    "reshape": lambda: ember.ones(0).reshape(2**62, 2**62, 0),
    "view": lambda: ember.ones(0).view(2**62, 2**62, 0),
}


@pytest.mark.parametrize("name", VIEWS)
def test_views_refuse_an_element_count_past_int64(name):
    with pytest.raises(RuntimeError, match=rf"{name}\(\): numel: integer multiplication overflow"):
        VIEWS[name]()


def test_a_huge_view_that_fits_is_still_a_view():
    big = ember.ones(1).expand(2**31, 2**31)
    assert big.shape == (2**31, 2**31) and big.stride() == (0, 0)
    assert ember.ones(1).expand(0, 2**62, 2**62).numel() == 0


OUTPUTS = {
    "repeat": lambda: _T.repeat(2**62, 2**62),
    "tile": lambda: _T.tile(2**62, 2**62),
    "arange": lambda: ember.arange(0, 2**62),
    "linspace": lambda: ember.linspace(0, 1, 2**62),
    "eye": lambda: ember.eye(2**40),
    "diag_embed": lambda: ember.diag_embed(_T, offset=2**40),
    "tril_indices": lambda: ember.tril_indices(2**40, 2**40),  # counted without memory
}


@pytest.mark.parametrize("name", OUTPUTS)
def test_op_outputs_past_int64_bytes_are_refused_by_their_shape(name):
    with pytest.raises(RuntimeError, match=r"Storage size calculation overflowed with sizes=\["):
        OUTPUTS[name]()


def test_tril_indices_counts_in_closed_form():
    for row, col, offset in [(3, 3, 0), (4, 2, -1), (2, 5, 3), (5, 5, -7), (0, 3, 0), (3, 4, 1)]:
        assert ember.tril_indices(row, col, offset).tolist() == [list(a) for a in np.tril_indices(row, offset, col)]
        assert ember.triu_indices(row, col, offset).tolist() == [list(a) for a in np.triu_indices(row, offset, col)]


def test_size_and_count_siblings():
    x = ember.ones(2, 3)
    with pytest.raises(RuntimeError, match="split_size be non-negative, but got split_size=-1"):
        x.split(-1)
    with pytest.raises(RuntimeError, match=r"only non-negative entries, but got split_sizes=\[3, -1\]"):
        x.split([3, -1])
    with pytest.raises(RuntimeError, match="size is -1 but must be >= 0"):
        x.unfold(0, -1, 1)
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        ember.arange(0, 10, 0)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ember.logspace(0, 1, -1)
    with pytest.raises(RuntimeError, match="n must be greater or equal to 0"):
        ember.eye(-1)
    with pytest.raises(RuntimeError, match="row must be non-negative"):
        ember.tril_indices(-1, 2)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        ember.repeat_interleave(ember.tensor([1, 2]), ember.tensor([-1, 2]))
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0 samples"):
        ember.multinomial(ember.tensor([0.5, 0.5]), 0)
    with pytest.raises(RuntimeError, match="expects 'from' to be less than 'to'"):
        ember.randint(3, 3, (2,))
    with pytest.raises(RuntimeError, match="selected index k out of range"):
        x.topk(4)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        x.kthvalue(0)
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        ember.diag_embed(x, dim1=0, dim2=0)


# ---------------------------------------------------------------------------------------
# memory the system refuses


def _refused(*args, **kwargs):
    raise OSError(errno.ENOMEM, "Cannot allocate memory")


def test_allocation_failure_names_bytes_device_and_allocator():
    nbytes = UNMAPPABLE * 4
    with pytest.raises(
        RuntimeError, match=rf"CPUAllocator: can't allocate memory: you tried to allocate {nbytes} bytes on device 'cpu'"
    ) as info:
        ember.zeros(UNMAPPABLE)
    assert isinstance(info.value.__cause__, (OSError, MemoryError))


@pytest.mark.parametrize("dtype", [ember.float32, ember.string])
def test_empty_refuses_when_made_memory_no_machine_has(dtype):
    # empty allocates on first use, but a size past memory and swap fails at once, as torch's does
    with pytest.raises(RuntimeError, match="can't allocate memory: you tried to allocate"):
        ember.empty(UNMAPPABLE, dtype=dtype)
    with pytest.raises(RuntimeError, match="no CUDA backend"):
        ember.empty(2, device=5)  # an int is a CUDA ordinal, as in torch


def test_empty_that_fails_on_first_use_says_so_by_name(monkeypatch):
    t = ember.empty(1000)  # lazily allocated, as documented: nothing to fail yet
    assert not t.untyped_storage().is_allocated
    monkeypatch.setattr(_alloc, "_fresh_block", _refused)
    with pytest.raises(RuntimeError, match="can't allocate memory: you tried to allocate"):
        t.fill_(1.0)


@pytest.mark.parametrize("allocator", [_alloc.CPUAllocator(), _alloc.CachingAllocator()], ids=["cpu", "caching"])
def test_every_cpu_allocator_names_a_refusal(allocator, monkeypatch):
    monkeypatch.setattr(_alloc, "_fresh_block", _refused)
    with pytest.raises(
        RuntimeError,
        match=rf"{type(allocator).__name__}: can't allocate memory: you tried to allocate \d+ bytes on device 'cpu' \(Cannot allocate memory\)",
    ):
        allocator.allocate(64 << 20)


def test_small_outputs_name_a_refusal(monkeypatch):
    def no_memory(*args, **kwargs):
        raise MemoryError("no memory")

    monkeypatch.setattr(_alloc.np, "empty", no_memory)
    with pytest.raises(RuntimeError, match=r"CPUAllocator: can't allocate memory: you tried to allocate 400 bytes"):
        _alloc.CPUAllocator().allocate_array(400, (100,), np.dtype(np.float32))


def test_shared_memory_allocator_names_a_refusal(monkeypatch):
    def full(nbytes):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_shm, "create_fd_segment", full)
    with pytest.raises(
        RuntimeError, match=r"SharedMemoryAllocator: can't allocate memory: you tried to allocate 4096 bytes .*No space left"
    ):
        _shm.SharedMemoryAllocator("file_descriptor").allocate(4096)


@needs_torch
def test_torch_refuses_the_same_sizes():
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        torch.empty(HUGE)
    with pytest.raises(RuntimeError, match="negative dimension"):
        torch.empty((2, -1))
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        torch.ones(1).expand(2**62, 2**62)


# --- a size error names the public function, not the primitive serving it ------------------------

_HUGE = 2**62
_ENTRY_CASES = {
    "tril_indices": lambda: ember.tril_indices(_HUGE, _HUGE),
    "triu_indices": lambda: ember.triu_indices(_HUGE, _HUGE),
    "zeros_like": lambda: ember.zeros_like(ember.ones(1).expand(_HUGE)),
    "full_like": lambda: ember.full_like(ember.ones(1).expand(_HUGE), 2.0),
    "clone": lambda: ember.ones(1).expand(_HUGE).clone(),
    "stack": lambda: ember.stack([ember.ones(1).expand(_HUGE)] * 4),
    "logspace": lambda: ember.logspace(0, 1, _HUGE),
    "add": lambda: ember.ones(1).expand(_HUGE) + 1,
}


@pytest.mark.parametrize("name", sorted(_ENTRY_CASES))
def test_size_error_names_the_public_function(name):
    with pytest.raises(RuntimeError, match=rf"^{name}\(\): Storage size calculation overflowed"):
        _ENTRY_CASES[name]()


@needs_torch
@pytest.mark.parametrize("name", ["tril_indices", "triu_indices"])
def test_tri_indices_size_error_like_torch(name):
    with pytest.raises(RuntimeError):
        getattr(torch, name)(_HUGE, _HUGE)
    with pytest.raises(RuntimeError, match=f"{name}"):
        getattr(ember, name)(_HUGE, _HUGE)
