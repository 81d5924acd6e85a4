"""ember.save / ember.load: round trips, views, mmap, safetensors interop, hostile files, atomic saves."""

import io
import json
import math
import mmap
import os
import pickle
from collections import OrderedDict

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember
import ember.nn as nn
from ember.interop import _safetensors_file
from tests._oracle import require_torch

DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
          np.float16, ml_dtypes.bfloat16, np.float32, np.float64, np.complex64, np.complex128]


def roundtrip(obj, **kwargs):
    buf = io.BytesIO()
    ember.save(obj, buf)
    return ember.load(io.BytesIO(buf.getvalue()), **kwargs)


def header_of(raw: bytes) -> tuple[dict, int]:
    n = int.from_bytes(raw[:8], "little")
    return json.loads(raw[8 : 8 + n]), 8 + n


def with_header(raw: bytes, header: dict) -> bytes:
    _, start = header_of(raw)
    text = json.dumps(header).encode()
    text += b" " * (-(8 + len(text)) % 8)
    return len(text).to_bytes(8, "little") + text + raw[start:]


def same(a: ember.Tensor, b: ember.Tensor) -> bool:
    return a.dtype is b.dtype and a.shape == b.shape and np.array_equal(a.detach().numpy(), b.detach().numpy(), equal_nan=True)


# ---------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("np_dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(), (0,), (3, 0, 2), (5,), (2, 3, 4)])
def test_every_dtype_and_shape_round_trips(np_dtype, shape):
    values = (np.arange(int(np.prod(shape))) - 2).reshape(shape).astype(np_dtype)
    t = ember.from_numpy(values)
    out = roundtrip({"t": t})["t"]
    assert same(out, t)


def test_non_contiguous_tensors_keep_their_layout():
    base = ember.arange(24.0).view(2, 3, 4)
    views = {"perm": base.permute(2, 0, 1), "step": base[:, ::2, 1:], "neg": ember.from_numpy(np.arange(6.0)[::-1]), "expand": ember.tensor([1.0]).expand(3, 4)}
    out = roundtrip(views)
    for key, t in views.items():
        assert same(out[key], t) and out[key].stride() == t.stride() and out[key].storage_offset() == t.storage_offset()


@st.composite
def strided_views(draw):
    """A tensor and a view of it (offset, steps, transpose), or a NumPy layout with negative strides."""
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=0, max_size=3)))
    base = (np.arange(int(np.prod(shape, dtype=np.int64))) % 7).astype(dtype).reshape(shape)
    if draw(st.booleans()):  # negative strides: from_numpy of a reversed NumPy view
        t = ember.from_numpy(base[(*(slice(None, None, -1) for _ in shape), Ellipsis)])
        return t, t
    t = ember.from_numpy(base)
    view = t[tuple(slice(draw(st.integers(0, 2)), None, draw(st.sampled_from([1, 2]))) for _ in shape)]
    if view.ndim > 1 and draw(st.booleans()):
        view = view.permute(*draw(st.permutations(range(view.ndim))))
    return t, view


@settings(max_examples=40, deadline=None)
@given(strided_views(), st.booleans())
def test_any_layout_round_trips_as_views(tmp_path_factory, pair, mapped):
    base, view = pair
    path = tmp_path_factory.mktemp("h") / "v.ckpt"
    ember.save({"view": view, "base": base}, path)
    out = ember.load(path, mmap=mapped)
    assert same(out["view"], view) and same(out["base"], base)
    assert out["view"].stride() == view.stride() and out["view"].storage_offset() == view.storage_offset()
    assert out["view"].untyped_storage() is out["base"].untyped_storage()


def test_requires_grad_round_trips():
    out = roundtrip({"a": ember.ones(2, requires_grad=True), "b": ember.ones(2)})
    assert out["a"].requires_grad and not out["b"].requires_grad and out["a"].is_leaf


def test_nested_plain_values_round_trip_exactly():
    obj = OrderedDict(
        state={0: {"step": 7, "list": [1, 2.5, None, True, False]}, -3: (1, (2, [3]))},
        param_groups=[{"betas": (0.9, 0.999), "lr": 1e-3, "name": "héllo ✓", "params": [0, 1]}],
        big=2**70,
        neg_big=-(2**64) - 1,
        floats=[math.inf, -math.inf, -0.0, 1.0, 1e308, 5e-324],
        blob=b"\x00\xffbytes",
        z=complex(1.5, -2.0),
        dtype=ember.bfloat16,
        empty=({}, [], ()),
        keys={1.5: "f", None: "n", True: "t", b"k": "b", (1, "x"): "tuple"},
    )
    out = roundtrip(obj)
    assert type(out) is OrderedDict and out == obj
    assert math.isnan(roundtrip([math.nan])[0])
    assert math.copysign(1.0, out["floats"][2]) == -1.0

    def types(x):
        if isinstance(x, dict):
            return (type(x), [(type(k), types(v)) for k, v in x.items()])
        if isinstance(x, (list, tuple)):
            return (type(x), [types(v) for v in x])
        return type(x)

    assert types(out) == types(obj)


def test_a_bare_tensor_and_scalars_round_trip():
    assert same(roundtrip(ember.tensor([1, 2])), ember.tensor([1, 2]))
    assert roundtrip(3) == 3 and roundtrip(None) is None and roundtrip("s") == "s"


def test_string_and_meta_tensors():
    s = ember.tensor(["ab", "", "c\x00d"])
    m = ember.empty(2, 3, device="meta")
    out = roundtrip({"s": s, "m": m, "s2": s[::2]})
    assert out["s"].tolist() == s.tolist() and out["s2"].tolist() == [b"ab", b"c\x00d"]
    assert out["s"].untyped_storage() is out["s2"].untyped_storage()
    assert out["m"].is_meta and out["m"].shape == (2, 3)


# ---------------------------------------------------------------------------------------- views


def test_views_of_one_storage_come_back_as_views():
    w = ember.arange(12.0).view(3, 4)
    obj = {"w": w, "wT": w.t(), "rows": [w[0], w[1:]], "tied": w.detach(), "same": w}
    raw = io.BytesIO()
    ember.save(obj, raw)
    header, _ = header_of(raw.getvalue())
    assert len([k for k in header if k != "__metadata__"]) == 1  # the bytes are stored once
    out = ember.load(io.BytesIO(raw.getvalue()))
    storage = out["w"].untyped_storage()
    assert all(t.untyped_storage() is storage for t in (out["wT"], out["rows"][0], out["rows"][1], out["tied"]))
    assert out["same"] is out["w"]  # the same object twice is one tensor
    out["wT"][1, 0] = 100.0
    assert out["w"][0, 1].item() == 100.0 and out["tied"][0, 1].item() == 100.0
    assert out["rows"][1].data_ptr() == out["w"].data_ptr() + 4 * 4


def test_a_slice_saves_its_whole_storage():
    big = ember.arange(1000.0)
    out = roundtrip({"tail": big[-2:]})
    assert out["tail"].tolist() == [998.0, 999.0] and out["tail"].untyped_storage().nbytes() == 4000


# ---------------------------------------------------------------------------------------- mmap


def test_mmap_tensors_are_views_of_a_private_mapping(tmp_path):
    path = tmp_path / "w.ckpt"
    w = ember.arange(1024.0).view(32, 32)
    ember.save({"w": w, "wT": w.t()}, path)
    out = ember.load(path, mmap=True)
    base = out["w"].untyped_storage()._data.buffer
    while not isinstance(base, memoryview):
        base = base.base
    assert isinstance(base.obj, mmap.mmap)
    assert out["w"].data_ptr() % 64 == 0  # the data region is 64-byte aligned
    assert same(out["wT"], w.t())
    out["w"][0, 0] = -5.0  # copy-on-write: the process sees it, the file does not
    assert out["wT"][0, 0].item() == -5.0
    assert ember.load(path)["w"][0, 0].item() == 0.0
    # the mapping outlives the file's replacement: ember.save renames a new file over it
    ember.save({"w": ember.zeros(1)}, path)
    assert out["w"][0, 1].item() == 1.0


def test_mmap_needs_a_real_file():
    buf = io.BytesIO()
    ember.save({"a": ember.ones(2)}, buf)
    with pytest.raises(ValueError, match="mmap=True needs a path or a real file"):
        ember.load(io.BytesIO(buf.getvalue()), mmap=True)


def test_mmap_with_an_open_file_at_an_offset(tmp_path):
    path = tmp_path / "two"
    with open(path, "wb") as f:
        f.write(b"prefix")
        ember.save({"a": ember.arange(5)}, f)
    with open(path, "rb") as f:
        f.seek(6)
        assert ember.load(f, mmap=True)["a"].tolist() == [0, 1, 2, 3, 4]
        f.seek(6)
        assert ember.load(f)["a"].tolist() == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------------------------------- safetensors


def test_safetensors_reads_a_plain_state_dict(tmp_path):
    sn = pytest.importorskip("safetensors.numpy")
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    sd = model.state_dict()
    sd["flags"] = ember.tensor([True, False])
    sd["half"] = ember.ones(2, dtype=ember.float16)
    sd["z"] = ember.tensor([1 + 2j], dtype=ember.complex64)
    ember.save(sd, tmp_path / "m.safetensors")
    loaded = sn.load_file(tmp_path / "m.safetensors")
    assert set(loaded) == set(sd)
    for key, t in sd.items():
        assert loaded[key].dtype == t.dtype.numpy_dtype and loaded[key].shape == tuple(t.shape)
        assert np.array_equal(loaded[key], t.numpy())


def test_safetensors_torch_reads_bfloat16(tmp_path):
    torch = require_torch()
    st_torch = pytest.importorskip("safetensors.torch")
    t = ember.tensor([1.5, -2.0], dtype=ember.bfloat16)
    ember.save({"b": t}, tmp_path / "b.safetensors")
    loaded = st_torch.load_file(tmp_path / "b.safetensors")
    assert loaded["b"].dtype == torch.bfloat16 and loaded["b"].tolist() == [1.5, -2.0]


def test_ember_reads_a_file_written_by_safetensors(tmp_path):
    sn = pytest.importorskip("safetensors.numpy")
    arrays = {"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.array([1, -2], dtype=np.int16), "c": np.zeros((0, 2))}
    sn.save_file(arrays, tmp_path / "x.safetensors", metadata={"format": "np"})
    for mapped in (False, True):
        out = ember.load(tmp_path / "x.safetensors", mmap=mapped)
        assert set(out) == set(arrays)
        for key, a in arrays.items():
            assert out[key].numpy().dtype == a.dtype and np.array_equal(out[key].numpy(), a)


# ---------------------------------------------------------------------------------------- modules and optimizers


def test_module_and_optimizer_resume_exactly(tmp_path):
    def make():
        ember.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
        return model, ember.optim.Adam(model.parameters(), lr=0.01)

    x, y = ember.randn(16, 4), ember.randint(0, 2, (16,))

    def step(model, opt):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    model, opt = make()
    for _ in range(2):
        step(model, opt)
    ember.save({"model": model.state_dict(), "optim": opt.state_dict()}, tmp_path / "ck")
    expected = [step(model, opt) for _ in range(3)]

    ckpt = ember.load(tmp_path / "ck", mmap=True)
    assert ckpt["optim"]["param_groups"][0]["betas"] == (0.9, 0.999)
    model2, opt2 = make()
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optim"])
    assert [step(model2, opt2) for _ in range(3)] == expected
    for a, b in zip(model.parameters(), model2.parameters(), strict=True):
        assert same(a, b)


# ---------------------------------------------------------------------------------------- refusals on save


class Opaque:
    pass


@pytest.mark.parametrize(
    ("obj", "where", "what"),
    [
        ({"state": {0: [1, 2, 3, Opaque()]}}, r"obj\['state'\]\[0\]\[3\]", "Opaque"),
        ([print], r"obj\[0\]", "builtin_function_or_method"),
        ({"m": nn.Linear(1, 1)}, r"obj\['m'\]", "Linear"),
        ({"a": np.float32(1)}, r"obj\['a'\]", "float32"),
        ({"a": {1, 2}}, r"obj\['a'\]", "set"),
    ],
)
def test_unsupported_objects_are_refused_with_their_path(obj, where, what):
    with pytest.raises(TypeError, match=f"{where} of type .*{what}"):
        ember.save(obj, io.BytesIO())


def test_cycles_and_tensor_keys_are_refused():
    loop = [1]
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        ember.save({"x": loop}, io.BytesIO())
    with pytest.raises(TypeError, match="dict key"):
        ember.save({ember.ones(1): 1}, io.BytesIO())


def test_a_failed_save_leaves_the_target_untouched(tmp_path):
    path = tmp_path / "ck"
    ember.save({"v": ember.ones(3)}, path)
    before = path.read_bytes()
    with pytest.raises(TypeError):
        ember.save({"v": ember.zeros(3), "deep": [{"x": Opaque()}]}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ck"]  # no temporary left behind


def test_a_save_failing_while_writing_leaves_the_target_untouched(tmp_path, monkeypatch):
    path = tmp_path / "ck"
    ember.save({"v": ember.ones(3)}, path)
    before = path.read_bytes()
    calls = []

    def failing(f, data):
        calls.append(1)
        if len(calls) == 3:
            raise OSError("disk full")
        f.write(data)

    monkeypatch.setattr(_safetensors_file, "_write_all", failing)
    with pytest.raises(OSError, match="disk full"):
        ember.save({"v": ember.zeros(3)}, path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["ck"]


def test_save_to_a_writable_file_object_and_bad_arguments():
    with pytest.raises(TypeError, match="path or a writable"):
        ember.save({}, 3)
    with pytest.raises(TypeError, match="path or a readable"):
        ember.load(3)
    with pytest.raises(TypeError, match="text mode"):
        ember.save({}, io.StringIO())
    with pytest.raises(TypeError, match="text mode"):
        ember.load(io.StringIO("x"))
    with pytest.raises(TypeError, match="map_location must be a device, a str, a dict or a callable"):
        ember.load(io.BytesIO(), map_location=3)


# ---------------------------------------------------------------------------------------- hostile and broken files


def saved_bytes() -> bytes:
    buf = io.BytesIO()
    w = ember.arange(8.0)
    ember.save({"w": w, "half": w[4:], "s": ember.tensor(["xy"]), "n": [1, (2,)]}, buf)
    return buf.getvalue()


def test_truncated_files_are_refused_at_every_cut():
    raw = saved_bytes()
    cuts = sorted({*range(20), *range(0, len(raw), 7), len(raw) - 1})
    for cut in cuts:
        with pytest.raises(ValueError, match=r"ember\.load\(\).*(too short|truncated|not valid JSON)"):
            ember.load(io.BytesIO(raw[:cut]))


def test_trailing_bytes_are_refused():
    with pytest.raises(ValueError, match="unexpected bytes after the data"):
        ember.load(io.BytesIO(saved_bytes() + b"\0"))


def test_pickles_are_refused_unread(tmp_path):
    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    (tmp_path / "evil.pt").write_bytes(pickle.dumps(Evil(), protocol=2))
    with pytest.raises(ValueError, match="never unpickles"):
        ember.load(tmp_path / "evil.pt")
    assert not (tmp_path / "pwned").exists()


def mutate_document(raw: bytes, change) -> bytes:
    header, _ = header_of(raw)
    doc = json.loads(header["__metadata__"]["ember"])
    change(doc, header)
    header["__metadata__"]["ember"] = json.dumps(doc)
    return with_header(raw, header)


def set_tensor(index, **fields):
    return lambda doc, header: doc["tensors"][index].update(fields)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (set_tensor(0, offset=1), "reaches outside its storage"),
        (set_tensor(0, shape=[9]), "reaches outside its storage"),
        (set_tensor(0, stride=[-1], offset=0), "reaches outside its storage"),
        (set_tensor(0, stride=[2**62]), "reaches outside its storage"),
        (set_tensor(0, shape=[-1]), "negative size"),
        (set_tensor(0, storage=7), "refers to storage 7"),
        (set_tensor(0, dtype="pyobject"), "unknown dtype"),
        (set_tensor(0, dtype="string"), "cannot view a byte storage"),
        (set_tensor(0, dtype="int32", requires_grad=True), "requires_grad"),
        (set_tensor(0, offset=1.5), "int offset"),
        (lambda d, h: d["storages"][0].update(entry="nope"), "does not have"),
        (lambda d, h: d["storages"][0].update(kind="pickle"), "kind 'bytes' or 'strings'"),
        (lambda d, h: d.update(version=99), "version 99"),
        (lambda d, h: d.update(root={"import": "os.system"}), "unknown tag 'import'"),
        (lambda d, h: d.update(root={"tensor": 5}), "not one of the"),
        (lambda d, h: d.update(root={"dict": [[[1], 2]]}), "not hashable"),
        (lambda d, h: d.update(root={"int": "1e5"}), "not a decimal integer"),
        (lambda d, h: d.update(root={"a": 1, "b": 2}), "one-key tagged object"),
    ],
)
def test_malicious_metadata_is_refused(change, message):
    raw = mutate_document(saved_bytes(), change)
    with pytest.raises(ValueError, match=rf"ember\.load\(\): .*{message}"):
        ember.load(io.BytesIO(raw))


def set_entry(name, **fields):
    return lambda header: header[name].update(fields)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (set_entry("w", data_offsets=[0, 2**40]), "data_offsets span"),
        (set_entry("w", shape=[2**40], data_offsets=[0, 2**42]), "overlaps"),
        (set_entry("w", dtype="F8_E4M3"), "ember does not read"),
        (set_entry("w", dtype="U8"), "data_offsets span"),
        (set_entry("w", shape=[-8]), "non-negative"),
        (set_entry("w", data_offsets=[8, 40]), "hole|overlaps"),
        (lambda h: h.update({"w": 3}), "must be an object"),
        (lambda h: h.update({"__metadata__": {"format": 1}}), "object of strings"),
    ],
)
def test_malicious_entries_are_refused(change, message):
    raw = saved_bytes()
    header, _ = header_of(raw)
    change(header)
    with pytest.raises(ValueError, match=rf"ember\.load\(\): .*({message})"):
        ember.load(io.BytesIO(with_header(raw, header)))


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ((2**62).to_bytes(8, "little") + b"{}", "over the"),
        ((4).to_bytes(8, "little") + b"[1] ", "must be a JSON object"),
        ((8).to_bytes(8, "little") + b"{\"a\":NaN", "not valid JSON"),
        ((8).to_bytes(8, "little") + b"\xff\xfe{}    ", "not valid JSON"),
        ((16).to_bytes(8, "little") + b'{"a":1,"a":2}   ', "duplicate key"),
        ((64).to_bytes(8, "little") + b"[" * 64, "not valid JSON"),
    ],
)
def test_malformed_headers_are_refused(raw, message):
    with pytest.raises(ValueError, match=rf"ember\.load\(\): .*{message}"):
        ember.load(io.BytesIO(raw))


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=64), st.integers(0, 400))
def test_random_corruption_never_crashes(noise, position):
    raw = bytearray(saved_bytes())
    position = min(position, len(raw))
    raw[position : position + len(noise)] = noise
    try:
        out = ember.load(io.BytesIO(bytes(raw)))
    except ValueError:
        return
    assert isinstance(out, (dict, list, tuple, int, float, str, bytes, type(None), ember.Tensor))
