"""Shared storages inside one process: moving into shared memory, the allocator scope, handles,
the multiprocessing pickler's rules, and plain pickling left as it was."""

import copy
import os
import pickle
import subprocess
import sys
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import ember
import ember.multiprocessing as emp
from ember.nn import Parameter


def fork_roundtrip(obj):
    return ForkingPickler.loads(ForkingPickler.dumps(obj))


def our_names() -> list[str]:
    return [n for n in os.listdir("/dev/shm") if n.startswith("ember_") and f"_{os.getpid()}_" in n]


@pytest.fixture(params=sorted(emp.get_all_sharing_strategies()))
def strategy(request):
    old = emp.get_sharing_strategy()
    emp.set_sharing_strategy(request.param)
    yield request.param
    emp.set_sharing_strategy(old)


def test_share_memory_keeps_values_and_moves_every_view(strategy):
    t = ember.arange(12.0).reshape(3, 4)
    view = t[1:, ::2]
    assert not t.is_shared()
    old_ptr = t.data_ptr()
    assert t.share_memory_() is t
    assert t.is_shared() and view.is_shared()
    assert t.data_ptr() != old_ptr
    assert t.tolist() == np.arange(12.0).reshape(3, 4).tolist()
    view[0, 0] = -1.0
    assert t[1, 0].item() == -1.0
    ptr = t.data_ptr()
    t.share_memory_()  # already shared: nothing moves
    assert t.data_ptr() == ptr


def test_list_shared_reports_strategy_owner_and_size(strategy):
    before_names, before = set(our_names()), set(emp.list_shared())
    t = ember.zeros(8, dtype=ember.float64).share_memory_()
    (new,) = set(emp.list_shared()) - before
    assert (new.nbytes, new.creator_pid, new.strategy, new.created_here) == (64, os.getpid(), strategy, True)
    if strategy == "file_descriptor":
        assert isinstance(new.handle, int)
        assert set(our_names()) <= before_names  # a descriptor segment never has a name
    else:
        assert set(our_names()) - before_names == {new.handle.lstrip("/")}
    del t


def test_shared_memory_scope_makes_kernel_outputs_shared_and_restores():
    before = ember.memory.get_allocator()
    with emp.shared_memory() as allocator:
        a = ember.randn(5)
        b = ember.stack([a, a * 2])
        c = b.sum(0)
        e = ember.empty(0)
        assert ember.memory.get_allocator() is allocator
    assert all(x.is_shared() for x in (a, b, c, e))
    assert ember.memory.get_allocator() is before
    assert not (ember.randn(3) + 1).is_shared()
    with pytest.raises(ValueError, match="boom"), emp.shared_memory():
        raise ValueError("boom")
    assert ember.memory.get_allocator() is before


def test_strategy_errors_name_the_choices():
    with pytest.raises(ValueError, match=r"set_sharing_strategy\(\).*'file_system'.*got 'posix'"):
        emp.set_sharing_strategy("posix")
    with pytest.raises(ValueError, match=r"SharedMemoryAllocator\(\): argument .strategy."):
        with emp.shared_memory("nope"):
            pass


def test_forking_pickler_sends_a_handle_and_keeps_one_storage_per_segment(strategy):
    base = ember.arange(10.0)
    a, b = fork_roundtrip((base[:4], base[6:]))
    assert base.is_shared()  # moved on send: later sends are free
    assert a.untyped_storage() is b.untyped_storage() is base.untyped_storage()
    c = fork_roundtrip(base[2:3])  # a later message: the same storage again
    assert c.untyped_storage() is base.untyped_storage()
    assert (b.storage_offset(), b.shape, b.stride()) == (6, (4,), (1,))


def test_requires_grad_rules_and_parameters():
    leaf = ember.ones(3, requires_grad=True)
    assert fork_roundtrip(leaf).requires_grad
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor which requires_grad"):
        ForkingPickler.dumps(leaf * 2)
    assert not fork_roundtrip((leaf * 2).detach()).requires_grad
    param = Parameter(ember.zeros(2, 2))
    back = fork_roundtrip(param)
    assert type(back) is Parameter and back.requires_grad
    assert back.untyped_storage() is param.untyped_storage()
    frozen = fork_roundtrip(Parameter(ember.zeros(1), requires_grad=False))
    assert type(frozen) is Parameter and not frozen.requires_grad


def test_meta_and_string_tensors_travel_by_value():
    meta = fork_roundtrip(ember.empty(2, 3, device="meta"))
    assert meta.is_meta and meta.shape == (2, 3) and not meta.is_shared()
    words = ember.tensor([b"ab", b"c"])
    back = fork_roundtrip(words)
    assert back.tolist() == [b"ab", b"c"] and not back.is_shared()
    with pytest.raises(RuntimeError, match="string storage holds Python objects"):
        words.share_memory_()


def test_plain_pickle_and_deepcopy_still_copy():
    t = ember.arange(4.0).share_memory_()
    for copied in (pickle.loads(pickle.dumps(t)), pickle.loads(pickle.dumps(t, protocol=5)), copy.deepcopy(t)):
        assert not copied.is_shared()
        assert copied.tolist() == t.tolist()
        copied[0] = 9.0
        assert t[0].item() == 0.0


def test_shared_storage_refuses_resize():
    s = ember.Storage(8).share_memory_()
    with pytest.raises(RuntimeError, match="not resizable"):
        s.resize_(16)


def test_zero_byte_tensors_are_shared_and_travel():
    t = ember.empty(0).share_memory_()
    assert t.is_shared()
    back = fork_roundtrip(t)
    assert back.shape == (0,) and back.is_shared()


def test_share_filename_of_a_sent_descriptor_segment_is_refused():
    if "file_descriptor" not in emp.get_all_sharing_strategies():
        pytest.skip("no memfd on this system")
    s = ember.Storage(8, allocator=emp.SharedMemoryAllocator("file_descriptor"))
    s._share_fd_()
    with pytest.raises(RuntimeError, match=r"_share_filename_\(\).*file descriptor.*set_sharing_strategy\('file_system'\)"):
        s._share_filename_()
    t = ember.ones(2).share_memory_()  # never left this process: it moves to a named segment
    _, name, nbytes = t.untyped_storage()._share_filename_()
    assert name.startswith(b"/ember_") and nbytes == 8 and t.tolist() == [1.0, 1.0]


def test_seed_handles_map_the_same_memory_in_another_process():
    """Seed 003: share_memory_(), storage()._share_filename_(), then another process maps the
    handle with Storage._new_shared_filename and writes; likewise _share_fd_ / _new_shared_fd."""
    tensor_a = ember.ones((5, 5))
    assert not tensor_a.is_shared()
    tensor_a = tensor_a.share_memory_()
    assert tensor_a.is_shared()
    tuple_info = tensor_a.storage()._share_filename_()
    tensor_b = ember.full((3,), 2.0).share_memory_()
    fd, nbytes = tensor_b.untyped_storage()._share_fd_()
    code = (
        "import ember\n"
        f"storage = ember.Storage._new_shared_filename(*{tuple_info!r})\n"
        "tensor_a = ember.Tensor(storage).view((5, 5))\n"
        "print(tensor_a.sum().item())\n"
        "tensor_a[4, 4] = 7.0\n"
        f"b = ember.Tensor(ember.Storage._new_shared_fd({fd}, {nbytes}))\n"
        "print(b.tolist())\n"
        "b[0] = -2.0\n"
    )
    out = subprocess.run([sys.executable, "-c", code], pass_fds=(fd,), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == ["25.0", "[2.0, 2.0, 2.0]"]
    assert tensor_a[4, 4].item() == 7.0
    assert tensor_b.tolist() == [-2.0, 2.0, 2.0]
    assert ember.Storage._new_shared_filename(*tuple_info) is tensor_a.untyped_storage()
