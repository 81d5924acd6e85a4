import copy
import gc
import math
import pickle
import weakref

import numpy as np
import pytest

import ember
from tests._oracle import require_torch


def test_the_seed_check():
    a = ember.ones((3, 3))
    b = a.view(9)
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert a.storage().data_ptr() == b.storage().data_ptr()


def test_attributes():
    t = ember.zeros(2, 3, 4, dtype=ember.int16)
    assert t.shape == (2, 3, 4) and t.size() == ember.Size([2, 3, 4]) and t.size(-1) == 4
    assert t.stride() == (12, 4, 1) and t.stride(0) == 12 and t.storage_offset() == 0
    assert t.ndim == t.dim() == 3 and t.numel() == 24 and len(t) == 2
    assert t.element_size() == t.itemsize == 2 and t.nbytes == 48
    assert t.dtype is ember.int16 and t.device == ember.device("cpu")
    assert t.is_contiguous() and not t.transpose(0, 2).is_contiguous()
    assert t.data_ptr() == t.untyped_storage().data_ptr()
    assert t[1].data_ptr() == t.data_ptr() + 12 * 2
    assert t._base is None and t[1]._base is t and t[1][0]._base is t
    assert repr(t.shape) == "ember.Size([2, 3, 4])"


def test_version_counter_is_shared_and_bumped_by_writes():
    t = ember.zeros(4)
    v = t[1:]
    assert t._version == v._version == 0
    v[0] = 1.0
    assert t._version == v._version == 1
    t.fill_(2.0)
    t.copy_(ember.ones(4))
    assert v._version == 3
    t.numpy()  # reads don't count
    assert t._version == 3


def test_python_conversions():
    assert ember.tensor([[7]]).item() == 7 and isinstance(ember.tensor(7).item(), int)
    assert ember.tensor(2.5).item() == 2.5 and isinstance(ember.tensor(2.5).item(), float)
    assert ember.tensor(True).item() is True
    assert ember.tensor(1 + 2j).item() == 1 + 2j
    assert int(ember.tensor(3.7)) == 3 and float(ember.tensor(2)) == 2.0 and complex(ember.tensor(1.0)) == 1 + 0j
    assert [10, 20, 30][ember.tensor(1)] == 20
    assert bool(ember.tensor([1])) and not bool(ember.tensor(0.0))
    assert [x.item() for x in ember.tensor([4, 5])] == [4, 5]
    assert ember.tensor([1.5, 2.5], dtype=ember.bfloat16).tolist() == [1.5, 2.5]
    assert ember.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]


@pytest.mark.parametrize(
    ("call", "error", "fragment"),
    [
        (lambda: ember.tensor([1, 2]).item(), RuntimeError, "2 elements cannot be converted to Scalar"),
        (lambda: len(ember.tensor(1)), TypeError, "len\\(\\) of a 0-d tensor"),
        (lambda: iter(ember.tensor(1)), TypeError, "iteration over a 0-d tensor"),
        (lambda: bool(ember.tensor([1, 2])), RuntimeError, "more than one value is ambiguous"),
        (lambda: bool(ember.tensor([])), RuntimeError, "no values is ambiguous"),
        (lambda: [1][ember.tensor(0.0)], TypeError, "only integer tensors of a single element"),
        (lambda: float(ember.tensor([1.0, 2.0])), ValueError, "only one element tensors"),
        (lambda: ember.empty(-1, 3), RuntimeError, "negative dimension -1"),
        (lambda: ember.empty(2, dtype="flaot32"), TypeError, "unknown dtype name 'flaot32'"),
        (lambda: ember.empty("3"), TypeError, r"empty\(\): argument 'size' \(position 1\) must be tuple of ints, not str"),
        (lambda: ember.empty(2, device="meta").numpy(), TypeError, "meta tensors hold shape and dtype only"),
        (lambda: ember.empty(2, device="meta").item(), RuntimeError, "2 elements cannot be converted"),
        (lambda: ember.empty(1, device="meta").item(), RuntimeError, "cannot be called on meta tensors"),
        (lambda: ember.empty(2, device="meta").tolist(), RuntimeError, "cannot be called on meta tensors"),
        (lambda: ember.ones(2).copy_([1, 2]), TypeError, "argument 'src' \\(position 1\\) must be Tensor, not list"),
        (lambda: ember.ones(2).copy_(ember.ones(3)), RuntimeError, "cannot be broadcast"),
        (lambda: ember.ones(2).fill_("x"), TypeError, "must be a number, not str"),
        (lambda: ember.tensor([[1, 2], [3]]), ValueError, r"expected sequence of length 2 at dim 1 \(got 1\)"),
        (lambda: ember.tensor([2**70]), ValueError, "Overflow when unpacking long long"),
        (lambda: ember.tensor([object()]), RuntimeError, "Could not infer dtype of object"),
        (lambda: ember.Tensor("ab"), TypeError, r"Tensor\(\): invalid data type .str."),
    ],
)
def test_bad_input_gets_clear_errors(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()


def test_requires_grad_only_for_floating_and_complex():
    assert ember.zeros(2, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype"):
        ember.zeros(2, dtype=ember.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Use tensor.detach\(\).numpy\(\)"):
        ember.zeros(2, requires_grad=True).numpy()
    assert ember.zeros(2, requires_grad=True).detach().numpy().tolist() == [0.0, 0.0]


def test_tensor_infers_dtypes_like_pytorch():
    assert ember.tensor(1.0).dtype is ember.float32
    assert ember.tensor([1, 2]).dtype is ember.int64
    assert ember.tensor([True]).dtype is ember.bool
    assert ember.tensor([1, 2.5]).dtype is ember.float32
    assert ember.tensor(1j).dtype is ember.complex64
    assert ember.tensor(np.zeros(2, np.float64)).dtype is ember.float64
    assert ember.tensor([b"a", "b\u00e9"]).tolist() == [b"a", "b\u00e9".encode()]
    with ember.default_dtype(ember.float64):
        assert ember.tensor(1.0).dtype is ember.float64 and ember.tensor(1j).dtype is ember.complex128


def test_tensor_copies_its_data():
    a = np.zeros(3)
    t = ember.tensor(a)
    t[0] = 1.0
    assert a[0] == 0.0
    with pytest.warns(UserWarning, match="clone\\(\\).detach\\(\\)"):
        u = ember.tensor(t)
    assert u.data_ptr() != t.data_ptr() and u.tolist() == t.tolist()


def test_factories():
    assert ember.full((2, 2), 7).dtype is ember.int64 and ember.full((2,), 7).tolist() == [7, 7]
    assert ember.full((2,), 1.5, dtype=ember.float64).tolist() == [1.5, 1.5]
    assert ember.zeros_like(ember.ones(2, 3, dtype=ember.int8)).dtype is ember.int8
    assert ember.ones_like(ember.zeros(2)).tolist() == [1.0, 1.0]
    assert ember.full_like(ember.zeros(2), 3).tolist() == [3.0, 3.0]
    assert ember.empty_like(ember.zeros(4, device="meta")).is_meta
    s = ember.empty_strided((2, 3), (1, 2))
    assert s.stride() == (1, 2) and s.untyped_storage().nbytes() == 6 * 4
    assert ember.zeros(2, 3).shape == ember.zeros((2, 3)).shape == ember.zeros([2, 3]).shape == (2, 3)


def test_clone_contiguous_copy():
    t = ember.tensor([[1, 2, 3], [4, 5, 6]])
    tt = t.T
    c = tt.clone()
    assert c.stride() == tt.stride() and c.tolist() == tt.tolist() and c.data_ptr() != t.data_ptr()
    k = tt.contiguous()
    assert k.is_contiguous() and k.tolist() == tt.tolist()
    assert t.contiguous() is t
    rev = t[:, ::-1].clone()
    assert rev.is_contiguous() and rev.tolist() == [[3, 2, 1], [6, 5, 4]]
    dst = ember.zeros(2, 3, dtype=ember.float32)
    dst.copy_(t)  # casts
    assert dst.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    dst.copy_(ember.tensor([9, 8, 7]))  # broadcasts
    assert dst.tolist() == [[9.0, 8.0, 7.0]] * 2
    overlap = ember.tensor([1, 2, 3, 4])
    overlap[1:].copy_(overlap[:-1])
    assert overlap.tolist() == [1, 1, 2, 3]


def test_to_and_meta():
    t = ember.tensor([1.5, 2.5])
    assert t.to(ember.float64).dtype is ember.float64 and t.to(ember.int32).tolist() == [1, 2]
    assert t.to("meta").is_meta and t.to(ember.float32) is t
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        t.to("meta").to("cpu")


def test_numpy_interfaces_share_memory():
    t = ember.tensor([[1.0, 2.0], [3.0, 4.0]])
    for array in (t.numpy(), np.asarray(t), t.T.numpy(), np.asarray(t[:, ::-1])):
        assert np.shares_memory(array, t.numpy())
    assert np.asarray(t.T).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    bf = ember.tensor([1.0], dtype=ember.bfloat16)
    assert np.asarray(bf).dtype.name == "bfloat16"


def test_numpy_view_keeps_memory_alive():
    t = ember.tensor([1, 2, 3])
    a = t.numpy()
    ref = weakref.ref(t)
    del t
    gc.collect()
    assert ref() is None and a.tolist() == [1, 2, 3]


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_pickling_preserves_views_and_values(protocol):
    base = ember.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    pair = (base, base.T[1:])
    a, b = pickle.loads(pickle.dumps(pair, protocol=protocol))
    assert a.tolist() == base.tolist() and b.tolist() == base.T[1:].tolist()
    assert b.stride() == base.T[1:].stride() and b.storage_offset() == 1
    assert a.untyped_storage() is b.untyped_storage()  # still views of one storage
    a[0, 1] = 10.0
    assert b[0, 0].item() == 10.0


def test_pickling_other_kinds():
    for t in [ember.tensor([b"x", b"yz"]), ember.zeros(3, device="meta"), ember.tensor(1.5, dtype=ember.bfloat16),
              ember.zeros(2, requires_grad=True)]:
        r = pickle.loads(pickle.dumps(t, protocol=5))
        assert r.dtype is t.dtype and r.shape == t.shape and r.device == t.device and r.requires_grad == t.requires_grad
        if not t.is_meta:
            assert r.detach().tolist() == t.detach().tolist()


def test_copy_and_deepcopy():
    t = ember.tensor([1, 2, 3])
    shallow = copy.copy(t)
    assert shallow is not t and shallow.untyped_storage() is t.untyped_storage()
    deep = copy.deepcopy([t, t[1:]])
    assert deep[0].untyped_storage() is deep[1].untyped_storage()
    assert deep[0].untyped_storage() is not t.untyped_storage()
    deep[1][0] = 20
    assert deep[0].tolist() == [1, 20, 3] and t.tolist() == [1, 2, 3]


def test_repr_shows_dtype_device_and_summarises():
    assert repr(ember.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(ember.tensor([1, 2], dtype=ember.int32)) == "tensor([1, 2], dtype=ember.int32)"
    assert repr(ember.empty(2, 3, device="meta")) == "tensor(..., device='meta', size=(2, 3))"
    assert repr(ember.zeros(0, dtype=ember.int64)) == "tensor([], dtype=ember.int64)"
    long = repr(ember.zeros(2000))
    assert "..." in long and long.count("0.") < 20
    with ember.printoptions(precision=2):
        assert repr(ember.tensor(math.pi)) == "tensor(3.14)"


def test_repr_matches_torch_for_views():
    torch = require_torch()
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
    for make in (lambda x: x, lambda x: x.transpose(0, 2), lambda x: x[:, 1:, ::2]):
        assert repr(make(ember.from_numpy(a))) == repr(make(torch.from_numpy(a))).replace("torch.", "ember.")


def test_legacy_constructors_from_the_seed():
    assert ember.Tensor().shape == (0,) and ember.Tensor().dtype is ember.float32
    assert ember.Tensor(2, 3).shape == (2, 3)
    assert ember.Tensor([1, 2]).tolist() == [1.0, 2.0] and ember.Tensor([1, 2]).dtype is ember.float32
    source = ember.ones((5, 5))
    tensor_a = ember.Tensor(source.untyped_storage()).view((5, 5))  # the seed's process-B line
    assert tensor_a.tolist() == [[1.0] * 5] * 5 and tensor_a.untyped_storage() is source.untyped_storage()


def test_writes_into_expanded_views_are_refused():
    expanded = ember.zeros(1).expand(3)
    for write in (lambda: expanded.copy_(ember.ones(3)), lambda: expanded.fill_(1.0), lambda: expanded.__setitem__(slice(0, 2), 1.0)):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            write()
    assert ember.zeros(1).expand(1).fill_(2.0).tolist() == [2.0]  # size-1 broadcast dims are fine
    expanded[1] = 3.0  # one element is one location: allowed, as in PyTorch
    assert expanded.tolist() == [3.0, 3.0, 3.0]


@pytest.mark.parametrize(("dtype", "value"), [(ember.uint8, -256), (ember.uint8, 256), (ember.int8, 300), (ember.int64, 2**63)])
def test_integer_overflow_is_a_clear_error(dtype, value):
    with pytest.raises(RuntimeError, match=f"value {value} cannot be converted to type ember.{dtype.name} without overflow"):
        ember.zeros(2, dtype=dtype).fill_(value)
    with pytest.raises(RuntimeError, match="without overflow"):
        ember.zeros(2, dtype=dtype)[0] = value
