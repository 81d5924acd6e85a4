import copy
import gc
import pickle

import numpy as np
import pytest

import ember
from ember import Storage
from ember.memory import memory_stats


def test_storage_is_untyped_bytes():
    s = Storage(8)
    assert s.nbytes() == len(s) == s.size() == 8 and s.element_size() == 1
    s.fill_(3)
    assert s.tolist() == [3] * 8
    assert s.device == ember.device("cpu") and not s.is_shared()


def test_lazy_storage_allocates_on_first_use():
    gc.collect()
    before = memory_stats()["num_allocs"]
    t = ember.empty(1000)
    s = t.untyped_storage()
    assert not s.is_allocated and memory_stats()["num_allocs"] == before
    t.fill_(2.0)  # the first write brings memory (caffe2's mutable_data)
    assert s.is_allocated and memory_stats()["num_allocs"] == before + 1
    assert t.tolist() == [2.0] * 1000


def test_memory_returns_when_the_last_view_dies():
    gc.collect()
    base = memory_stats()["allocated_bytes.current"]
    t = ember.zeros(1000, dtype=ember.float64)
    views = [t[::2], t.view(10, 100).T, t.view(ember.uint8)]
    del t
    gc.collect()
    assert memory_stats()["allocated_bytes.current"] == base + 8000
    views[2][0] = 1
    assert views[0][0].item() != 0.0  # the byte write is visible through another view
    del views
    gc.collect()
    assert memory_stats()["allocated_bytes.current"] == base


def test_copy_resize_and_clone():
    a = Storage(4).fill_(1)
    b = Storage(4).copy_(a)
    assert b.tolist() == [1, 1, 1, 1]
    b.resize_(6)
    assert b.nbytes() == 6 and b.tolist()[:4] == [1, 1, 1, 1]
    b.resize_(2)
    assert b.tolist() == [1, 1]
    c = a.clone()
    c.fill_(9)
    assert a.tolist() == [1, 1, 1, 1] and c.data_ptr() != a.data_ptr()


def test_resize_is_seen_by_tensors_over_the_storage():
    t = ember.tensor([1, 2, 3], dtype=ember.int32)
    t.untyped_storage().resize_(24)
    assert t.tolist() == [1, 2, 3]
    grown = t.as_strided((6,), (1,))
    assert grown[:3].tolist() == [1, 2, 3]


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: Storage(-1), ValueError, "non-negative"),
        (lambda: Storage(2.0), TypeError, "must be int"),
        (lambda: Storage(2).fill_(256), ValueError, r"int in \[0, 255\]"),
        (lambda: Storage(2).copy_(Storage(3)), RuntimeError, "size mismatch"),
        (lambda: Storage(2).copy_(b"ab"), TypeError, "must be Storage"),
        (lambda: Storage(2, device="meta").tolist(), RuntimeError, "meta device"),
    ],
)
def test_bad_input(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_meta_storage():
    s = Storage(1 << 30, device="meta")
    assert s.data_ptr() == 0 and s.nbytes() == 1 << 30 and s.is_meta
    assert "meta" in repr(s)


def test_string_storage_runs_element_constructors():
    t = ember.empty(3, dtype=ember.string)
    assert t.tolist() == [b"", b"", b""]
    assert t.untyped_storage().nbytes() == 3 * 8


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickle_round_trip(protocol):
    s = Storage(5)
    s._buffer()[:] = np.arange(5, dtype=np.uint8)
    r = pickle.loads(pickle.dumps(s, protocol=protocol))
    assert r.tolist() == [0, 1, 2, 3, 4] and r.data_ptr() != s.data_ptr()
    r.fill_(0)  # the rebuilt storage is writable
    assert s.tolist() == [0, 1, 2, 3, 4]


def test_pickle_protocol5_out_of_band_is_zero_copy():
    s = Storage(64).fill_(5)
    buffers = []
    data = pickle.dumps(s, protocol=5, buffer_callback=buffers.append)
    assert len(buffers) == 1 and len(data) < 200  # the bytes travelled out of band
    r = pickle.loads(data, buffers=[bytearray(b.raw()) for b in buffers])
    assert r.tolist() == [5] * 64


def test_deepcopy_respects_memo():
    s = Storage(4).fill_(1)
    pair = copy.deepcopy([s, s])
    assert pair[0] is pair[1] and pair[0] is not s
