"""DLPack both ways: ember as producer and consumer, against NumPy, PyTorch and JAX."""

import ctypes
import gc
import importlib.util
import os
import subprocess
import sys
import threading
import weakref

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, strategies as st

import ember
from ember.interop import _dlpack_c as C, dlpack as D
from ember.utils import dlpack as U
from tests._oracle import require_torch

NUMERIC = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
           np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128]
# NumPy's DLPack knows no bfloat16 (it raises a SystemError on one): PyTorch and JAX check that type.
NUMPY_DLPACK = [d for d in NUMERIC if d is not ml_dtypes.bfloat16]


def sample(dtype, shape=(2, 3)) -> np.ndarray:
    n = int(np.prod(shape))
    values = (np.arange(n) % 2 == 1) if dtype is np.bool_ else np.arange(n) + (1j if np.dtype(dtype).kind == "c" else 0)
    return np.asarray(values).astype(dtype).reshape(shape)


def capsule_flags(capsule) -> int:
    managed = C.capsule_get_pointer(capsule, C.NAME_VERSIONED)
    return C.DLManagedTensorVersioned.from_address(managed).flags


@pytest.fixture(autouse=True)
def _no_leaked_exports():
    before = D.live_exports()
    yield
    if D.live_exports() != before:  # a full collection costs ~0.1 s with torch loaded: only when needed
        gc.collect()
    assert D.live_exports() <= before, "an exported capsule's memory was never given back"


# -- NumPy ------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMPY_DLPACK, ids=lambda d: np.dtype(d).name)
def test_numpy_round_trip_every_dtype(dtype):
    base = sample(dtype)
    t = ember.from_numpy(base.copy())
    a = np.from_dlpack(t)
    assert a.dtype == base.dtype and a.shape == (2, 3) and np.array_equal(a, base)
    assert a.ctypes.data == t.data_ptr()  # zero copy
    back = ember.from_dlpack(a)
    assert back.dtype is t.dtype and back.data_ptr() == t.data_ptr() and np.array_equal(back.numpy(), base)
    e = ember.from_dlpack(base)
    assert e.dtype is t.dtype and e.data_ptr() == base.ctypes.data and np.array_equal(e.numpy(), base)


def test_numpy_writes_are_seen_both_ways():
    t = ember.zeros(2, 3)
    a = np.from_dlpack(t)
    a[1, 2] = 7
    assert t[1, 2].item() == 7
    t[0, 0] = 5
    assert a[0, 0] == 5
    b = np.zeros(4, dtype=np.int64)
    e = ember.from_dlpack(b)
    e[1] = 9
    assert b[1] == 9


@pytest.mark.parametrize("make", [
    lambda t: t.t(),
    lambda t: t[:, ::2],
    lambda t: t[1:, 1:],
    lambda t: t[1, 1:],
    lambda t: t.unsqueeze(1)[::2],
    lambda t: t.expand(2, 4, 6)[:, 1],
], ids=["transpose", "step", "offset", "row-offset", "unsqueeze-step", "expanded"])
def test_numpy_strides_and_offsets(make):
    t = make(ember.arange(24, dtype=ember.float32).view(4, 6))
    a = np.from_dlpack(t)
    assert a.shape == tuple(t.shape) and a.strides == tuple(s * 4 for s in t.stride())
    assert np.array_equal(a, t.numpy()) and a.ctypes.data == t.data_ptr()
    back = ember.from_dlpack(a)
    assert back.stride() == t.stride() and back.tolist() == t.tolist() and back.data_ptr() == t.data_ptr()


def test_numpy_views_with_offsets_and_negative_strides_import():
    base = np.arange(60.0).reshape(5, 12)
    for view in (base[1:, 3:], base[::-1], base[:, ::-2], base[::-2, 5::-3].T):
        t = ember.from_dlpack(view)
        assert t.tolist() == view.tolist() and t.stride() == tuple(s // 8 for s in view.strides)
        assert t.data_ptr() == view.__array_interface__["data"][0]


def test_negative_strides_export_a_copy_unless_copy_false():
    base = np.arange(6.0)
    t = ember.from_numpy(base[::-1])
    copied = t.__dlpack__(max_version=(1, 0))
    assert capsule_flags(copied) & C.FLAG_IS_COPIED
    a = np.from_dlpack(copied if False else t)  # default: a copy, which every consumer can read
    assert a.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0] and not np.shares_memory(a, base)
    del copied
    shared = np.from_dlpack(t, copy=False)  # NumPy reads negative strides: share on request
    assert shared.strides == (-8,) and np.shares_memory(shared, base) and shared.tolist() == a.tolist()


def test_zero_size_and_zero_dim():
    for t in (ember.zeros(0), ember.zeros(3, 0, 2), ember.tensor(4.5), ember.zeros(2, 3)[:, 3:]):
        a = np.from_dlpack(t)
        assert a.shape == tuple(t.shape) and a.tolist() == t.tolist()
        back = ember.from_dlpack(a)
        assert back.shape == t.shape and back.tolist() == t.tolist()
    e = ember.from_dlpack(np.full((), 2.5))
    assert e.shape == () and e.item() == 2.5
    e = ember.from_dlpack(np.zeros((0, 4), dtype=np.int16))
    assert e.shape == (0, 4) and e.dtype is ember.int16


def test_producer_deleted_before_consumer():
    t = ember.arange(5.0)
    storage_ref = weakref.ref(t.untyped_storage())
    a = np.from_dlpack(t)
    del t
    gc.collect()
    assert storage_ref() is None  # the export holds the memory, not the tensor object
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert D.live_exports() >= 1
    del a
    gc.collect()

    b = np.arange(4.0)
    ref = weakref.ref(b)
    e = ember.from_dlpack(b)
    del b
    gc.collect()
    assert ref() is not None and e.tolist() == [0.0, 1.0, 2.0, 3.0]
    view = e[1:]
    del e
    gc.collect()
    assert ref() is not None and view.tolist() == [1.0, 2.0, 3.0]
    del view
    gc.collect()
    assert ref() is None  # NumPy's deleter ran once the last ember view died


def test_capsule_consumed_twice():
    capsule = ember.ones(2).__dlpack__(max_version=(1, 0))
    t = ember.from_dlpack(capsule)
    assert C.capsule_get_name(capsule) == C.USED_VERSIONED
    with pytest.raises(ValueError, match="already consumed"):
        ember.from_dlpack(capsule)
    legacy = np.ones(2).__dlpack__()
    ember.from_dlpack(legacy)
    assert C.capsule_get_name(legacy) == C.USED_LEGACY
    with pytest.raises(ValueError, match="'used_dltensor'"):
        ember.from_dlpack(legacy)
    assert t.tolist() == [1.0, 1.0]


def test_capsule_never_consumed_releases_the_memory():
    arr = np.arange(3.0)
    ref = weakref.ref(arr)
    t = ember.from_numpy(arr)
    before = D.live_exports()
    capsules = [t.__dlpack__(), t.__dlpack__(max_version=(1, 0))]
    assert D.live_exports() == before + 2
    del t, arr
    gc.collect()
    assert ref() is not None  # the capsules keep the memory alive
    del capsules
    gc.collect()
    assert ref() is None and D.live_exports() == before


def test_read_only_both_ways():
    ro = np.arange(3.0)
    ro.flags.writeable = False
    t = ember.from_dlpack(ro)
    assert t.untyped_storage().is_readonly()
    with pytest.raises(RuntimeError, match="read-only"):
        t[0] = 1.0
    a = np.from_dlpack(t)  # NumPy asks for a versioned capsule, which says read-only
    assert not a.flags.writeable and a.tolist() == [0.0, 1.0, 2.0]
    assert capsule_flags(t.__dlpack__(max_version=(1, 0))) & C.FLAG_READ_ONLY
    with pytest.raises(BufferError, match="read-only"):
        t.__dlpack__()  # a legacy capsule cannot say read-only
    writable = np.from_dlpack(t, copy=True)
    assert writable.flags.writeable and writable.tolist() == [0.0, 1.0, 2.0]


def test_copy_true_and_false():
    t = ember.arange(4.0)
    capsule = t.__dlpack__(max_version=(1, 0), copy=True)
    assert capsule_flags(capsule) & C.FLAG_IS_COPIED
    copied = ember.from_dlpack(capsule)
    copied[0] = 100.0
    assert t[0].item() == 0.0
    assert not capsule_flags(t.__dlpack__(max_version=(1, 0), copy=False)) & C.FLAG_IS_COPIED
    a = np.from_dlpack(t, copy=True)
    a[1] = 50.0
    assert t[1].item() == 1.0
    b = np.arange(3.0)
    e = ember.from_dlpack(b, copy=True)
    e[0] = 9.0
    assert b[0] == 0.0
    shared = ember.from_dlpack(b, copy=False)
    shared[0] = 9.0
    assert b[0] == 9.0
    with pytest.raises(BufferError, match="copy=False"):
        t.__dlpack__(dl_device=(2, 0), copy=False)


def test_export_errors():
    t = ember.ones(2)
    with pytest.raises(BufferError, match="'stream' must be None"):
        t.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="kDLCUDA"):
        t.__dlpack__(dl_device=(2, 0))
    assert np.from_dlpack(t, device="cpu").tolist() == [1.0, 1.0]  # dl_device=(1, 0) is accepted
    with pytest.raises(BufferError, match="string"):
        ember.tensor([b"a", b"b"]).__dlpack__()
    meta = ember.empty(2, device="meta")
    with pytest.raises(BufferError, match="meta"):
        meta.__dlpack__()
    with pytest.raises(BufferError, match="meta"):
        meta.__dlpack_device__()
    with pytest.raises(RuntimeError, match=r"Can't export tensors that require gradient, use tensor.detach\(\)"):
        ember.ones(2, requires_grad=True).__dlpack__()
    assert np.from_dlpack(ember.ones(2, requires_grad=True).detach()).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="max_version"):
        t.__dlpack__(max_version=1)


def test_import_errors():
    with pytest.raises(TypeError, match="list"):
        ember.from_dlpack([1, 2])
    with pytest.raises(BufferError, match="device"):
        ember.from_dlpack(np.ones(2), device="cuda")

    class OnGPU:
        """A producer whose capsule says its memory is on a CUDA device. As NumPy's consumer,
        from_dlpack asks for the capsule without calling __dlpack_device__ first, and refuses it."""

        def __init__(self):
            self.capsule = ember.ones(2).__dlpack__(max_version=(1, 0))
            managed = C.DLManagedTensorVersioned.from_address(C.capsule_get_pointer(self.capsule, C.NAME_VERSIONED))
            managed.dl_tensor.device.device_type = C.kDLCUDA

        def __dlpack_device__(self):
            return (C.kDLCUDA, 0)

        def __dlpack__(self, **kwargs):
            return self.capsule

    before = D.live_exports()
    gpu = OnGPU()
    with pytest.raises(BufferError, match="kDLCUDA"):
        ember.from_dlpack(gpu)
    assert C.capsule_get_name(gpu.capsule) == C.NAME_VERSIONED  # not consumed: its destructor frees it
    del gpu
    gc.collect()
    assert D.live_exports() == before


def test_legacy_producer_without_keywords():
    class Legacy:
        def __init__(self, array):
            self.array = array

        def __dlpack_device__(self):
            return self.array.__dlpack_device__()

        def __dlpack__(self, stream=None):  # a producer from before DLPack 1.0
            return self.array.__dlpack__()

    base = np.arange(4, dtype=np.int32)
    t = ember.from_dlpack(Legacy(base))
    assert t.tolist() == [0, 1, 2, 3] and t.data_ptr() == base.ctypes.data


def test_version_negotiation():
    t = ember.ones(1)
    assert C.capsule_is_valid(t.__dlpack__(), C.NAME_LEGACY)
    assert C.capsule_is_valid(t.__dlpack__(max_version=(0, 8)), C.NAME_LEGACY)
    for asked, minor in (((1, 0), 0), ((1, 5), C.DLPACK_MINOR), ((2, 0), C.DLPACK_MINOR)):
        capsule = t.__dlpack__(max_version=asked)
        managed = C.DLManagedTensorVersioned.from_address(C.capsule_get_pointer(capsule, C.NAME_VERSIONED))
        assert (managed.version.major, managed.version.minor) == (1, minor)
        assert managed.dl_tensor.device.device_type == 1 and managed.dl_tensor.ndim == 1
        assert managed.dl_tensor.strides[0] == 1 and managed.dl_tensor.byte_offset == 0
        del managed, capsule


def test_vm_is_synchronised_before_export():
    x = ember.arange(1000.0)
    with ember.vm.asynchronous():
        y = x * 2 + 1
        a = np.from_dlpack(y)
        assert a[-1] == 1999.0


def test_deleter_from_another_thread():
    arrays = [np.from_dlpack(ember.arange(10.0)) for _ in range(20)]
    worker = threading.Thread(target=arrays.clear)
    worker.start()
    worker.join()
    gc.collect()
    assert not arrays


def test_exports_and_imports_alive_at_interpreter_exit():
    # Capsules, consumers' arrays and imported tensors that outlive every module must not crash
    # the interpreter's shutdown (the callbacks are kept alive for it).
    script = """if True:
        import numpy as np, ember
        t = ember.arange(5.0)
        capsules = [t.__dlpack__(max_version=(1, 0)), t.__dlpack__()]
        arrays = [np.from_dlpack(t), ember.from_dlpack(np.ones(3))]
        cycle = [arrays]; cycle.append(cycle)
        print("done")
    """
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0 and result.stdout.strip() == "done", result.stderr
    assert "Exception ignored" not in result.stderr and "Error" not in result.stderr, result.stderr


def test_array_api_namespace_serves_from_dlpack():
    xp = ember.ones(2).__array_namespace__()
    assert xp.from_dlpack is ember.from_dlpack
    assert xp.from_dlpack(np.arange(2.0)).tolist() == [0.0, 1.0]


# -- hand-made capsules: byte_offset, NULL strides, foreign types and devices -------------------


_KEEP: dict[int, tuple] = {}
_DELETED: list[int] = []


@C.MANAGED_DELETER
def _counting_deleter(address):
    _DELETED.append(address)
    _KEEP.pop(address, None)


def handmade(array, *, versioned=True, byte_offset=0, null_strides=False, dtype=None, device_type=1, major=1, flags=0):
    """A capsule over ``array`` written field by field, with a deleter that counts its calls."""
    _DELETED.clear()  # a freed struct's address may be reused by the next one: count per capsule
    managed = C.DLManagedTensorVersioned() if versioned else C.DLManagedTensor()
    ndim = array.ndim
    shape = (ctypes.c_int64 * max(ndim, 1))(*array.shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*(s // array.itemsize for s in array.strides))
    dl = managed.dl_tensor
    dl.data = array.__array_interface__["data"][0] - byte_offset
    dl.byte_offset = byte_offset
    dl.device = C.DLDevice(device_type, 0)
    dl.ndim = ndim
    dl.dtype = C.DLDataType(*(dtype or ember.from_numpy(array).dtype.dlpack))
    dl.shape = shape
    dl.strides = None if null_strides else strides
    managed.deleter = ctypes.cast(_counting_deleter, ctypes.c_void_p).value
    if versioned:
        managed.version = C.DLPackVersion(major, 0)
        managed.flags = flags
    address = ctypes.addressof(managed)
    _KEEP[address] = (managed, shape, strides, array)
    return C.capsule_new(address, C.NAME_VERSIONED if versioned else C.NAME_LEGACY, None), address


@pytest.mark.parametrize("versioned", [True, False])
def test_byte_offset_null_strides_and_one_deleter_call(versioned):
    base = np.arange(20, dtype=np.int32).reshape(4, 5)
    capsule, address = handmade(base, versioned=versioned, byte_offset=24, null_strides=True)
    t = ember.from_dlpack(capsule)
    assert t.tolist() == base.tolist() and t.stride() == (5, 1) and t.data_ptr() == base.ctypes.data
    view = t[1:, ::2]
    del t
    gc.collect()
    assert address not in _DELETED
    assert view.tolist() == base[1:, ::2].tolist()
    del view
    gc.collect()
    assert _DELETED.count(address) == 1


def test_negative_strides_import_from_handmade_capsule():
    base = np.arange(12.0).reshape(3, 4)
    capsule, address = handmade(base[::-1, ::-2])
    t = ember.from_dlpack(capsule)
    assert t.stride() == (-4, -2) and t.tolist() == base[::-1, ::-2].tolist()
    del t
    gc.collect()
    assert _DELETED.count(address) == 1


def test_read_only_flag_from_handmade_capsule():
    capsule, _ = handmade(np.arange(3.0), flags=C.FLAG_READ_ONLY)
    t = ember.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="read-only"):
        t.fill_(0)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"dtype": (10, 8, 1)}, "kDLFloat8_e4m3fn"),
    ({"dtype": (2, 32, 4)}, "lanes=4"),
    ({"dtype": (3, 64, 1)}, "kDLOpaqueHandle"),
    ({"device_type": 2}, "kDLCUDA"),
    ({"device_type": 8}, "kDLMetal"),
    ({"major": 2}, "DLPack 2.0"),
])
def test_unsupported_capsules_raise_buffer_error(kwargs, match):
    capsule, address = handmade(np.arange(4.0), **kwargs)
    with pytest.raises(BufferError, match=match):
        ember.from_dlpack(capsule)
    assert C.capsule_get_name(capsule) == C.NAME_VERSIONED  # not consumed: its owner still frees it
    _KEEP.pop(address)


def test_non_dlpack_capsule():
    with pytest.raises(ValueError, match=r"'ember\.capsule_type_probe'"):
        ember.from_dlpack(C.capsule_new(D._DELETER_ADDRESS, C.PROBE_NAME, None))


# -- PyTorch ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", NUMERIC, ids=lambda d: np.dtype(d).name)
def test_torch_round_trip_every_dtype(dtype):
    torch = require_torch()
    t = ember.from_numpy(sample(dtype))
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr() and str(tt.dtype) == f"torch.{t.dtype.name}"
    assert tt.tolist() == t.tolist()
    back = ember.from_dlpack(tt)
    assert back.dtype is t.dtype and back.data_ptr() == t.data_ptr()
    legacy = torch.utils.dlpack.from_dlpack(U.to_dlpack(t))
    assert legacy.data_ptr() == t.data_ptr()
    again = U.from_dlpack(torch.utils.dlpack.to_dlpack(legacy))
    assert again.data_ptr() == t.data_ptr() and again.dtype is t.dtype


def test_torch_layouts_writes_and_lifetimes():
    torch = require_torch()
    t = ember.arange(24, dtype=ember.float32).view(4, 6)
    for view in (t.t(), t[1:, ::2], t[2], ember.tensor(3.0), ember.zeros(0, 3)):
        tt = torch.from_dlpack(view)
        assert tt.shape == view.shape and tt.stride() == view.stride() and tt.tolist() == view.tolist()
    tt = torch.from_dlpack(t)
    tt[0, 0] = -1.0
    assert t[0, 0].item() == -1.0
    source = torch.arange(12.0).view(3, 4)
    e = ember.from_dlpack(source.t()[1:])
    assert e.stride() == (1, 4) and e.tolist() == source.t()[1:].tolist()
    e[0, 0] = 42.0
    assert source[0, 1].item() == 42.0
    del source
    gc.collect()
    assert e[0, 0].item() == 42.0  # the torch storage lives on through the deleter
    flipped = ember.from_numpy(np.arange(4.0)[::-1])
    assert torch.from_dlpack(flipped).tolist() == [3.0, 2.0, 1.0, 0.0]  # exported as a copy: no crash


def test_torch_errors():
    torch = require_torch()
    capsule = U.to_dlpack(ember.ones(2))
    torch.utils.dlpack.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="consumed only once"):
        torch.utils.dlpack.from_dlpack(capsule)
    with pytest.raises(RuntimeError, match="require gradient"):
        torch.from_dlpack(ember.ones(2, requires_grad=True))
    with pytest.raises(BufferError, match="string"):
        torch.from_dlpack(ember.tensor([b"x"]))


# -- JAX ---------------------------------------------------------------------------------------


_JAX_ROUND_TRIP = """
import numpy as np
import jax, jax.numpy as jnp
import ember
for dtype in (ember.float32, ember.int32, ember.bool, ember.bfloat16, ember.float16, ember.uint8, ember.complex64):
    t = ember.arange(12).view(3, 4).to(dtype)
    j = jnp.from_dlpack(t)
    assert str(j.dtype) == dtype.name and np.array_equal(np.asarray(j), t.numpy()), dtype
    j2 = jax.dlpack.from_dlpack(t.t())
    assert np.array_equal(np.asarray(j2), t.t().numpy()), dtype
    back = ember.from_dlpack(j)
    assert back.dtype is dtype and np.array_equal(back.numpy(), t.numpy()), dtype
print("ok")
"""


def test_jax_round_trip():
    # In a child process: JAX starts threads, and a process that later forks (the multiprocessing
    # and DataLoader tests) could deadlock in the child.
    if importlib.util.find_spec("jax") is None:
        pytest.skip("jax is not installed")
    done = subprocess.run([sys.executable, "-c", _JAX_ROUND_TRIP], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


# -- the seed's cross-framework wrappers -------------------------------------------------------


def test_seed_capsule_examples():
    from ember.utils import dlpack

    t = ember.ones((5, 5))
    d1 = dlpack.to_dlpack(t)
    assert repr(d1).startswith('<capsule object "dltensor" at') and type(d1).__name__ == "PyCapsule"
    x = ember.tensor(5, dtype=ember.int32)
    x_other = dlpack.from_dlpack(dlpack.to_dlpack(x))
    assert x_other.shape == () and x_other.dtype is ember.int32 and x_other.item() == 5
    assert dlpack.from_dlpack(d1).data_ptr() == t.data_ptr()


def test_seed_to_pytorch_func_pattern():
    torch = require_torch()

    def fmm(x, y, z):  # an ember function writing into its output argument, like TVM's fmm
        ember.matmul(x, y, out=z)

    x = torch.rand(56, 56)
    y = torch.rand(56, 56)
    z = x.mm(y)
    fmm_pytorch = U.to_pytorch_func(fmm)
    z2 = torch.empty(56, 56)
    fmm_pytorch(x, y, z2)
    np.testing.assert_allclose(z.numpy(), z2.numpy(), rtol=1e-5)

    scaled = U.to_pytorch_func(lambda a, k: a * k)(torch.ones(3), 2.0)
    assert isinstance(scaled, torch.Tensor) and scaled.tolist() == [2.0, 2.0, 2.0]


def test_convert_func_with_numpy_arrays():
    def add_into(x, y, out):
        out.copy_(x + y)
        return out.sum()

    add_np = U.convert_func(add_into, np.ndarray, lambda a: a.__dlpack__())
    out = np.zeros(3)
    total = add_np(np.ones(3), np.arange(3.0), out)
    assert out.tolist() == [1.0, 2.0, 3.0] and isinstance(total, ember.Tensor) and total.item() == 6.0
    with pytest.raises(TypeError, match="callable"):
        U.convert_func(3, np.ndarray, None)


def test_to_ember_func_numpy_and_torch():
    torch = require_torch()
    x = ember.arange(6.0).view(2, 3)
    out = ember.zeros(2, 3)
    U.to_ember_func(np.multiply)(x, x, out=out)  # NumPy writes into the ember tensor's memory
    assert out.tolist() == (x * x).tolist()
    total = U.to_ember_func(np.sum)(x)
    assert isinstance(total, ember.Tensor) and total.shape == () and total.item() == 15.0
    parts = U.to_ember_func(torch.split, framework="torch")(x, 1)
    assert isinstance(parts, tuple) and all(isinstance(p, ember.Tensor) for p in parts)
    assert parts[1].tolist() == [[3.0, 4.0, 5.0]] and parts[1].data_ptr() == x.data_ptr() + 3 * x.element_size()
    torch_out = ember.zeros(2, 3)
    U.to_ember_func(torch.add, framework="torch")(x, 1.0, out=torch_out)
    assert torch_out.tolist() == (x + 1).tolist()
    with pytest.raises(ValueError, match="framework"):
        U.to_ember_func(np.sum, framework="tvm")


# -- memory: many cycles, flat RSS, no live registry entries -----------------------------------


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_100k_cycles_keep_memory_flat():
    t = ember.arange(16.0).view(4, 4)
    base = np.ones((4, 4))
    for _ in range(2000):  # warm caches and allocator pools
        ember.from_dlpack(np.from_dlpack(t))
    gc.collect()
    before, exports = _rss_bytes(), D.live_exports()
    for _ in range(50_000):
        ember.from_dlpack(np.from_dlpack(t))  # an export and an import
        np.from_dlpack(ember.from_dlpack(base))  # an import and an export
    gc.collect()
    assert D.live_exports() == exports
    assert _rss_bytes() - before < 16 * 2**20


# -- hypothesis: dtypes x shapes x strides ----------------------------------------------------


@st.composite
def ember_views(draw):
    """Tensors with any layout: NumPy slices with any steps (negative ones too), then ember views."""
    dtype = draw(st.sampled_from(NUMPY_DLPACK))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    key = tuple(slice(draw(st.integers(0, 2)), None, draw(st.sampled_from([1, 2, -1, -2]))) for _ in shape)
    t = ember.from_numpy(sample(dtype, shape)[(*key, Ellipsis)])
    if t.dim() and draw(st.booleans()):
        t = t[(slice(None),) * (t.dim() - 1) + (slice(None, None, draw(st.integers(1, 3))),)]
    if t.dim() > 1 and draw(st.booleans()):
        t = t.permute(*draw(st.permutations(range(t.dim()))))
    return t


@given(ember_views())  # examples: the profile's (conftest.py), 60 in CI
def test_any_layout_round_trips(t):
    expected = t.numpy()
    shared = np.from_dlpack(t, copy=False)  # never a copy, negative strides included
    assert shared.dtype == expected.dtype and shared.shape == expected.shape and np.array_equal(shared, expected)
    default = np.from_dlpack(t)  # a copy only for negative strides
    assert np.array_equal(default, expected)
    back = ember.from_dlpack(shared)
    assert back.dtype is t.dtype and back.shape == t.shape and np.array_equal(back.numpy(), expected)
    if t.numel():
        assert shared.ctypes.data == t.data_ptr() == back.data_ptr() and back.stride() == t.stride()
        backwards = any(s < 0 and n > 1 for n, s in zip(t.shape, t.stride(), strict=True))
        assert np.shares_memory(default, expected) != backwards
