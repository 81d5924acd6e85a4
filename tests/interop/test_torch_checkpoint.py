"""ember.load of torch.save zips (interpreted, never unpickled) and map_location in torch.load's forms."""

from __future__ import annotations

import io
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

import ember
from tests._oracle import needs_torch, torch

# --- a torch.save-shaped archive written opcode by opcode (so these tests need no torch) -------------


def _text(s: str) -> bytes:
    data = s.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def _int(n: int) -> bytes:
    return b"J" + struct.pack("<i", n)


def _global(module: str, name: str) -> bytes:
    return b"c" + f"{module}\n{name}\n".encode()


def _tensor_pickle(location: str, shape=(2, 3), stride=(3, 1), numel=6, offset=0) -> bytes:
    """{'w': tensor over storage '0'} in protocol 2, as torch.save writes it."""
    pid = b"(" + _text("storage") + _global("torch", "FloatStorage") + _text("0") + _text(location) + _int(numel) + b"tQ"
    sizes = b"(" + b"".join(map(_int, shape)) + b"t"
    strides = b"(" + b"".join(map(_int, stride)) + b"t"
    hooks = _global("collections", "OrderedDict") + b")R"
    rebuild = (
        _global("torch._utils", "_rebuild_tensor_v2") + b"(" + pid + _int(offset) + sizes + strides + b"\x89" + hooks + b"tR"
    )
    return b"\x80\x02}(" + _text("w") + rebuild + b"u."


def _archive(pickled: bytes, storages: dict[str, bytes]) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pickled)
        z.writestr("archive/byteorder", "little")
        for key, data in storages.items():
            z.writestr(f"archive/data/{key}", data)
        z.writestr("archive/version", "3\n")
    buf.seek(0)
    return buf


VALUES = np.arange(6, dtype=np.float32)


def cuda_archive() -> io.BytesIO:
    return _archive(_tensor_pickle("cuda:0"), {"0": VALUES.tobytes()})


def test_a_torch_zip_loads_tensors_over_its_storages():
    out = ember.load(_archive(_tensor_pickle("cpu", shape=(3, 2), stride=(1, 3)), {"0": VALUES.tobytes()}))
    assert out["w"].tolist() == VALUES.reshape(2, 3).T.tolist() and out["w"].stride() == (1, 3)


@pytest.mark.parametrize(
    "map_location",
    [
        "cpu",
        ember.device("cpu"),
        {"cuda:0": "cpu"},
        lambda storage, location: storage,
        lambda storage, location: None if location == "cpu" else storage,
    ],
)
def test_map_location_moves_cuda_storages_to_the_host(map_location):
    out = ember.load(cuda_archive(), map_location=map_location)
    assert out["w"].device == ember.device("cpu") and out["w"].tolist() == VALUES.reshape(2, 3).tolist()


def test_map_location_callable_sees_each_storage_and_its_location():
    seen = []
    ember.load(cuda_archive(), map_location=lambda storage, location: seen.append((storage.nbytes(), location)) or storage)
    assert seen == [(24, "cuda:0")]


def test_unmapped_cuda_storages_and_unknown_locations_are_refused():
    with pytest.raises(RuntimeError, match=r"deserialize object on a CUDA device.*map_location='cpu'"):
        ember.load(cuda_archive())
    with pytest.raises(RuntimeError, match=r"don't know how to restore data location .*tagged with bogus"):
        ember.load(cuda_archive(), map_location="bogus")
    with pytest.raises(RuntimeError, match="CUDA device"):
        ember.load(cuda_archive(), map_location={"cuda:1": "cpu"})
    with pytest.raises(TypeError, match="must return a Storage or None, got int"):
        ember.load(cuda_archive(), map_location=lambda storage, location: 3)
    with pytest.raises(TypeError, match="map_location must be"):
        ember.load(cuda_archive(), map_location=3)


def test_map_location_meta_and_ember_checkpoints():
    assert ember.load(cuda_archive(), map_location="meta")["w"].is_meta
    buf = io.BytesIO()
    ember.save({"a": ember.ones(2), "m": ember.zeros(2, device="meta")}, buf)
    for location in ("cpu", {"cpu": "meta"}, lambda storage, location: None):
        buf.seek(0)
        out = ember.load(buf, map_location=location)
        assert out["m"].is_meta and out["a"].is_meta == isinstance(location, dict)
    buf.seek(0)
    with pytest.raises(RuntimeError, match="CUDA device"):
        ember.load(buf, map_location="cuda:0")


def test_hostile_archives_are_refused_unrun(tmp_path):
    target = tmp_path / "pwned"
    evil = b"\x80\x02" + _global("os", "system") + b"(" + _text(f"echo x > {target}") + b"tR."
    with pytest.raises(ValueError, match=r"global os\.system is not one ember rebuilds"):
        ember.load(_archive(evil, {}))
    assert not target.exists()

    class Evil:
        def __reduce__(self):
            return (os.system, (f"echo x > {target}",))

    for protocol in (2, 4):
        with pytest.raises(ValueError, match="refused"):
            ember.load(_archive(pickle.dumps(Evil(), protocol=protocol), {}))
    assert not target.exists()


@pytest.mark.parametrize(
    ("archive", "text"),
    [
        (
            lambda: _archive(_tensor_pickle("cpu"), {"0": VALUES.tobytes()[:20]}),
            r"needs 24 bytes in data/0, the archive has 20 bytes",
        ),
        (lambda: _archive(_tensor_pickle("cpu", shape=(3, 3)), {"0": VALUES.tobytes()}), "reaches outside its storage"),
        (lambda: _archive(_tensor_pickle("cpu", offset=-1), {"0": VALUES.tobytes()}), "a tensor with offset -1"),
        (lambda: _archive(_tensor_pickle("cpu")[:-1], {"0": VALUES.tobytes()}), "malformed pickle"),
        (lambda: _archive(b"\x80\x02(I1\ni1\n.", {}), "malformed"),
        (lambda: io.BytesIO(b"PK\x03\x04 not really a zip"), "damaged zip archive"),
        (lambda: io.BytesIO(_no_pickle_zip()), "exactly one"),
    ],
)
def test_broken_archives_are_refused_clearly(archive, text):
    with pytest.raises(ValueError, match=text):
        ember.load(archive())


def _no_pickle_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/version", "3\n")
    return buf.getvalue()


# --- files torch itself wrote --------------------------------------------------------------------------


@needs_torch
def test_what_torch_save_writes_loads_as_it_was(tmp_path):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    base = torch.arange(12, dtype=torch.int64).view(3, 4)
    saved = {
        "model": model.state_dict(),
        "param": torch.nn.Parameter(torch.ones(2)),
        "view": base.t(),
        "base": base,
        "epoch": 7,
        "lr": 1e-3,
        "best": np.float64(0.25),
        "betas": (0.9, 0.999),
        "name": "run",
        "blob": b"\x00\xff",
        "dtype": torch.bfloat16,
        "half": torch.full((2,), 1.5, dtype=torch.float16),
        "flags": torch.tensor([True, False]),
        "z": 1 + 2j,
        "size": torch.Size([2, 3]),
        "none": None,
    }
    torch.save(saved, tmp_path / "ck.pt")
    out = ember.load(tmp_path / "ck.pt", map_location="cpu")
    for key, value in model.state_dict().items():
        assert np.array_equal(out["model"][key].numpy(), value.numpy()), key
    assert out["param"].requires_grad and out["param"].tolist() == [1.0, 1.0]
    assert out["view"].tolist() == base.t().tolist() and out["view"].untyped_storage() is out["base"].untyped_storage()
    assert (out["epoch"], out["lr"], out["best"], out["betas"], out["name"], out["blob"]) == (
        7,
        1e-3,
        0.25,
        (0.9, 0.999),
        "run",
        b"\x00\xff",
    )
    assert out["dtype"] is ember.bfloat16 and out["half"].dtype is ember.float16 and out["flags"].tolist() == [True, False]
    assert out["z"] == 1 + 2j and out["size"] == ember.Size([2, 3]) and out["none"] is None
    net = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.BatchNorm1d(4))
    net.load_state_dict(out["model"])
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    model.eval()
    net.eval()
    assert np.allclose(net(ember.tensor(x)).detach().numpy(), model(torch.tensor(x)).detach().numpy(), atol=1e-6)


@needs_torch
def test_a_torch_checkpoint_saved_on_cuda_needs_map_location(tmp_path):
    torch.save({"w": torch.arange(4.0)}, tmp_path / "ck.pt")
    with zipfile.ZipFile(tmp_path / "ck.pt") as z:  # make it name cuda:0, as a GPU run writes it
        entries = {info.filename: z.read(info) for info in z.infolist()}
    name = next(n for n in entries if n.endswith("/data.pkl"))
    entries[name] = entries[name].replace(_text("cpu"), _text("cuda:0"))
    with zipfile.ZipFile(tmp_path / "cuda.pt", "w") as z:
        for entry, data in entries.items():
            z.writestr(entry, data)
    with pytest.raises(RuntimeError, match="CUDA device"):
        ember.load(tmp_path / "cuda.pt")
    assert ember.load(tmp_path / "cuda.pt", map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert torch.load(tmp_path / "cuda.pt", map_location="cpu")["w"].tolist() == [0.0, 1.0, 2.0, 3.0]
