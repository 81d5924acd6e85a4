"""Conversion ops against PyTorch: every dtype pair through to()/astype/the dtype methods,
to()'s forms and identity rule, type(), copy_ (broadcasting, casting, refusals), fill_/zero_,
clone/contiguous layouts, detach, cpu."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
from tests._oracle import needs_torch, torch

ALL = [ember.bool, ember.uint8, ember.int8, ember.int16, ember.int32, ember.int64, ember.uint16, ember.uint32, ember.uint64,
       ember.float16, ember.bfloat16, ember.float32, ember.float64, ember.complex64, ember.complex128]  # fmt: skip

# Values every dtype holds (after truncation), with fractions and negatives where the dtype has them.
SOURCE = {
    "b": [True, False, True],
    "u": [0, 7, 200],
    "i": [-100, 0, 77],
    "f": [-2.75, 0.5, 99.9],
    "c": [1.5 - 2j, -0.25 + 1j, 3.0 + 0j],
}


def source_values(dtype):
    vals = SOURCE[dtype.kind]
    if dtype in (ember.int8,):
        vals = [-100, 0, 77]
    return vals


def tdtype(d):
    return getattr(torch, d.name)


def tolist(x):
    if isinstance(x, ember.Tensor):
        if x.dtype in (ember.float16, ember.bfloat16):
            return x.to(ember.float32).tolist()
        return x.tolist()
    if x.dtype in (torch.float16, torch.bfloat16):
        return x.float().tolist()
    return x.tolist()


def in_range(values, dst):
    """Drop values whose conversion is undefined in C (negative or too large floats into integers)."""
    if dst.kind not in "iu":
        return values
    info = np.iinfo(dst.numpy_dtype)
    return [v for v in values if info.min <= (v.real if isinstance(v, complex) else v) <= info.max]


@needs_torch
@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_every_dtype_pair_matches_torch(src, dst):
    vals = source_values(src)
    if src.kind in "fc":
        vals = in_range(vals, dst)
    e = ember.tensor(vals, dtype=src)
    t = torch.tensor(vals, dtype=tdtype(src))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, expected = e.to(dst), t.to(tdtype(dst))
        got_astype = ember.astype(e, dst)
    assert got.dtype is dst and got_astype.dtype is dst
    assert tolist(got) == tolist(expected) == tolist(got_astype), (src, dst)
    if src is dst:
        assert e.to(dst) is e


@needs_torch
@pytest.mark.parametrize(("method", "dtype"), list(ember.ops.conversion.DTYPE_METHODS.items()))
def test_dtype_methods(method, dtype):
    e = ember.tensor([1.7, -1.7, 0.0])
    got = getattr(e, method)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(torch.tensor([1.7, -1.7, 0.0]), method)()
    assert got.dtype is dtype and tolist(got) == tolist(expected)
    assert getattr(got, method)() is got  # already that dtype: self


def test_dtype_names_are_still_dtypes_and_python_conversions_still_work():
    assert (
        ember.float is ember.float32 and ember.int is ember.int32 and ember.bool.name == "bool" and ember.double is ember.float64
    )
    t = ember.tensor([2.9])
    assert int(t) == 2 and float(t) == pytest.approx(2.9) and t.int().tolist() == [2]


def test_float_to_int_truncates_toward_zero_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.tensor([2.9, -2.9, 0.5, -0.5]).long().tolist() == [2, -2, 0, 0]
        assert ember.tensor([2.9, -2.9], dtype=ember.bfloat16).to(ember.int16).tolist() == [2, -2]
        ember.tensor([float("nan"), float("inf")]).long()  # undefined values, but quiet, as PyTorch


def test_complex_to_real_keeps_the_real_part_and_warns():
    z = ember.tensor([1.5 + 2j, -3 - 1j])
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        assert z.float().tolist() == [1.5, -3.0]
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        ember.zeros(2).copy_(z)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert z.to(ember.int64).tolist() == [1, -3]


def test_to_forms():
    t = ember.tensor([1, 2])
    assert t.to(ember.float64).dtype is ember.float64
    assert t.to("float64").dtype is ember.float64 and t.to(np.float32).dtype is ember.float32
    assert t.to(dtype=ember.int8).dtype is ember.int8
    assert t.to("cpu") is t and t.to(ember.device("cpu")) is t and t.to(device="cpu", dtype=ember.int64) is t
    assert t.to("cpu", ember.float32).dtype is ember.float32
    other = ember.zeros(1, dtype=ember.float64)
    assert t.to(other).dtype is ember.float64
    copied = t.to(ember.int64, copy=True)
    assert copied is not t and copied.tolist() == [1, 2] and copied.data_ptr() != t.data_ptr()
    assert t.to(ember.int64, False, True) is not t  # to(dtype, non_blocking, copy)
    m = t.to("meta")
    assert m.is_meta and m.dtype is ember.int64 and t.to("meta", ember.float16).dtype is ember.float16
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        m.to("cpu")
    with pytest.raises(TypeError, match=r"cannot convert a ember.int64 tensor to ember.string"):
        t.to(ember.string)
    with pytest.raises(TypeError, match="expected a dtype, a device or a tensor"):
        t.to([1])
    s = ember.tensor([b"a", b"bc"])
    assert s.to(ember.string) is s and s.clone().tolist() == [b"a", b"bc"]
    assert t.cpu() is t


def test_tensor_constructor_and_as_tensor_still_convert():
    t = ember.tensor([1, 2])
    with pytest.warns(UserWarning, match="clone"):
        u = ember.tensor(t, dtype=ember.float64)
    assert u.dtype is ember.float64 and u.tolist() == [1.0, 2.0]
    assert ember.as_tensor(t, dtype=ember.float32).dtype is ember.float32


def test_astype_copy_rules():
    t = ember.tensor([1.5, 2.5])
    assert ember.astype(t, ember.float32) is not t
    assert ember.astype(t, ember.float32, copy=False) is t
    assert ember.astype(t, ember.float64, copy=False).dtype is ember.float64
    assert ember.astype(t, ember.float32, device="meta").is_meta
    with pytest.raises(TypeError, match=r"argument 'dtype' \(position 2\) must be ember.dtype"):
        ember.astype(t, 3)


def test_type():
    assert ember.tensor([1, 2]).type() == "torch.LongTensor"
    assert (
        ember.tensor([1.0]).type() == "torch.FloatTensor"
        and ember.zeros(1, dtype=ember.bfloat16).type() == "torch.BFloat16Tensor"
    )
    assert ember.zeros(1, device="meta").type() == "torch.meta.FloatTensor"
    t = ember.tensor([1, 2])
    assert t.type(ember.float64).dtype is ember.float64 and t.type("ember.DoubleTensor").dtype is ember.float64
    assert t.type("torch.IntTensor").dtype is ember.int32 and t.type(ember.int64) is t


# --- copy_ ------------------------------------------------------------------------------------


@needs_torch
@settings(max_examples=40)
@given(
    dst_shape=st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple),
    data=st.data(),
    src_dtype=st.sampled_from(ALL[:-2]),
    dst_dtype=st.sampled_from(ALL[:-2]),
)
def test_copy_broadcasts_and_casts_like_torch(dst_shape, data, src_dtype, dst_dtype):
    k = data.draw(st.integers(0, len(dst_shape)))
    src_shape = tuple(data.draw(st.sampled_from([1, n])) for n in dst_shape[len(dst_shape) - k :])
    vals = np.arange(int(np.prod(src_shape)), dtype=np.float64).reshape(src_shape) % 5
    e_src = ember.tensor(vals, dtype=src_dtype) if src_dtype is not ember.bool else ember.tensor(vals > 2)
    t_src = torch.from_numpy(e_src.to(ember.float64).numpy().copy()).to(tdtype(src_dtype))
    e_dst = ember.zeros(dst_shape, dtype=dst_dtype)
    if dst_shape and data.draw(st.booleans()):
        e_dst = ember.zeros(tuple(reversed(dst_shape)), dtype=dst_dtype).permute(*reversed(range(len(dst_shape))))
    t_dst = torch.zeros(dst_shape, dtype=tdtype(dst_dtype))
    before = e_dst._version
    assert e_dst.copy_(e_src) is e_dst
    t_dst.copy_(t_src)
    assert tolist(e_dst) == tolist(t_dst) and e_dst._version == before + 1


def test_copy_refusals_and_special_cases():
    with pytest.raises(TypeError, match="argument 'src' \\(position 1\\) must be Tensor, not list"):
        ember.ones(2).copy_([1, 2])
    with pytest.raises(RuntimeError, match="src of shape \\[3\\] cannot be broadcast to destination shape \\[2\\]"):
        ember.ones(2).copy_(ember.ones(3))
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        ember.ones(3).copy_(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(1).expand(3).copy_(ember.ones(3))
    ro = np.zeros(2)
    ro.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        ember.from_numpy(ro).copy_(ember.ones(2))
    with pytest.raises(TypeError, match=r"cannot copy a ember.float32 tensor into a ember.string tensor"):
        ember.tensor([b"a"]).copy_(ember.ones(1))
    m = ember.empty(2, device="meta")
    assert m.copy_(ember.ones(2)) is m and m._version == 1
    with pytest.raises(NotImplementedError, match="Cannot copy out of meta tensor"):
        ember.ones(2).copy_(ember.empty(2, device="meta"))
    with pytest.raises(RuntimeError, match="cannot be broadcast"):
        m.copy_(ember.ones(3))
    overlap = ember.tensor([1, 2, 3, 4])
    overlap[1:].copy_(overlap[:-1])
    assert overlap.tolist() == [1, 1, 2, 3]
    s = ember.tensor([b"a", b"b"])
    s.copy_(ember.tensor([b"z"]))
    assert s.tolist() == [b"z", b"z"]


# --- fill_, zero_ ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL)
def test_fill_and_zero_every_dtype(dtype):
    t = ember.ones(2, 3, dtype=dtype)
    v = t.t()[::2]
    v.fill_(1)
    t.zero_()
    assert tolist(t) == [[0, 0, 0]] * 2 or (dtype is ember.bool and t.tolist() == [[False] * 3] * 2)
    t.fill_(ember.tensor(1))
    assert np.all(np.asarray(tolist(t)) == 1)
    assert t._version == 3


def test_fill_semantics_and_errors():
    assert ember.zeros(2, dtype=ember.int64).fill_(2.7).tolist() == [2, 2]
    assert ember.zeros(2, dtype=ember.int64).fill_(-2.7).tolist() == [-2, -2]
    assert ember.zeros(2, dtype=ember.bool).fill_(0.5).tolist() == [True, True]
    assert ember.zeros(2).fill_(ember.tensor(3.5, dtype=ember.float64)).tolist() == [3.5, 3.5]
    assert ember.tensor([b"x"]).fill_("y").tolist() == [b"y"] and ember.tensor([b"x"]).zero_().tolist() == [b""]
    assert ember.fill_(ember.zeros(2), 4).tolist() == [4.0, 4.0] and ember.zero_(ember.ones(1)).tolist() == [0.0]
    with pytest.raises(RuntimeError, match="only supports 0-dimension value tensor but got tensor with 1 dimensions"):
        ember.zeros(2).fill_(ember.tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match="must be a number, not str"):
        ember.ones(2).fill_("x")
    with pytest.raises(RuntimeError, match=r"value 300 cannot be converted to type ember.int8 without overflow"):
        ember.zeros(2, dtype=ember.int8).fill_(300)
    with pytest.raises(RuntimeError, match="more than one element"):
        ember.zeros(1).expand(2).fill_(1)
    assert ember.zeros(1).expand(1).fill_(2.0).tolist() == [2.0]
    m = ember.empty(3, device="meta")
    assert m.fill_(1) is m and m._version == 1


# --- clone, contiguous, detach ---------------------------------------------------------------------


@needs_torch
@settings(max_examples=40)
@given(
    shape=st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple),
    data=st.data(),
)
def test_clone_and_to_keep_torch_layouts(shape, data):
    base = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    perm = data.draw(st.permutations(range(len(shape))))
    step = data.draw(st.sampled_from([1, 2]))
    arr = base.transpose(perm)[::step]
    e, t = ember.from_numpy(arr), torch.from_numpy(arr)
    for fn in (lambda x: x.clone(), lambda x: x.to(x.dtype, copy=True), lambda x: x.double(), lambda x: x.contiguous()):
        a, b = fn(e), fn(t)
        assert a.tolist() == b.tolist()
        if arr.size:
            assert a.stride() == b.stride()
    assert e.clone(memory_format="contiguous_format").is_contiguous()


def test_clone_contiguous_detach():
    t = ember.tensor([[1, 2, 3], [4, 5, 6]])
    c = t.T.clone()
    assert c.stride() == (1, 3) and c.tolist() == t.T.tolist() and c.data_ptr() != t.data_ptr() and c._version == 0
    assert t.contiguous() is t and t.T.contiguous().is_contiguous() and t.T.contiguous().tolist() == t.T.tolist()
    assert ember.clone(t[:, ::-1]).is_contiguous()
    assert t.clone().untyped_storage() is not t.untyped_storage()
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported"):
        t.contiguous(memory_format="preserve_format")
    d = t.detach()
    assert d.untyped_storage() is t.untyped_storage() and d.tolist() == t.tolist() and d is not t
    d[0, 0] = 10
    assert t[0, 0].item() == 10
    r = ember.zeros(2, requires_grad=True)
    assert not r.detach().requires_grad and r.detach().numpy().tolist() == [0.0, 0.0]
    assert ember.detach(t[1])._base is t
    m = ember.empty(2, 3, device="meta").t()
    assert m.clone().is_meta and m.clone().stride() == (1, 3) and m.contiguous().stride() == (2, 1)


@pytest.mark.parametrize(
    "args",
    [(2, "tensor"), (ember.float32, "cpu"), (ember.float32, True, True, True), (1.5,), ("cpu", ember.float32, "x")],
    ids=["device then tensor", "dtype then device", "three flags", "a float", "a str flag"],
)
def test_to_refuses_what_none_of_torchs_spellings_means(args):
    t = ember.ones(2)
    args = tuple(ember.ones(1) if a == "tensor" else a for a in args)
    with pytest.raises(TypeError, match=r"to\(\)"):
        t.to(*args)


def test_cpu_checks_its_memory_format_even_when_nothing_moves():
    t = ember.ones(2)
    assert t.cpu() is t and t.cpu(memory_format="contiguous_format") is t
    with pytest.raises(TypeError, match="memory_format"):
        t.cpu(memory_format=())


def test_to_a_tensor_takes_no_dtype_or_device_beside_it():
    with pytest.raises(TypeError, match=r"to\(\): a tensor to match takes no dtype="):
        ember.ones(2).to(ember.ones(1), dtype=ember.float64)


def test_a_complex_number_is_true_when_either_part_is_nonzero():
    x = ember.tensor([0 - 0.5j, float("nan") + 0j, 0j, 2 + 0j])
    assert x.bool().tolist() == [True, True, False, True]
    assert x.to(ember.bool).tolist() == [True, True, False, True]


def test_flatten_of_a_0d_tensor_checks_its_dims():
    with pytest.raises(IndexError, match=r"expected to be in range of \[-1, 0\], but got 1"):
        ember.flatten(ember.tensor(3), 1)
    assert ember.flatten(ember.tensor(3), -1, 0).tolist() == [3]


def test_no_tensor_at_all_on_a_device_with_no_backend():
    with pytest.raises(RuntimeError, match="no CUDA backend"):
        ember.empty_like(ember.zeros(0), device=5)
