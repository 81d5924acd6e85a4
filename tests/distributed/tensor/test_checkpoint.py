"""Sharded checkpoints in a simulated world: every layout pair saved and loaded back, across world
sizes and meshes, loaded whole on one process, and every error the brief names.

Each check compares the loaded logical tensor with the NumPy array that was saved.
"""

from __future__ import annotations

import copy
import itertools
import json
import os

import numpy as np
import pytest

import ember
from ember.dispatch.sbp import broadcast, partial_max, partial_sum, split
from ember.distributed.tensor import _checkpoint_index as checkpoint_index, distribute, load, save, simulated_world

LAYOUTS_1D = [split(0), split(1), broadcast, partial_sum]
LAYOUTS_2D = list(itertools.product(LAYOUTS_1D, repeat=2))


def _array(shape, seed=0, dtype=np.float32) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _global(array: np.ndarray, p, sbp):
    return distribute(ember.tensor(array), p, sbp)


def _zeros_like(array: np.ndarray, p, sbp):
    return distribute(ember.zeros(array.shape, dtype=ember.tensor(array).dtype), p, sbp)


def test_every_layout_pair_on_a_1d_mesh_uneven(tmp_path):
    array = _array((5, 7))
    with simulated_world(3):
        p = ember.placement("cpu", [0, 1, 2])
        other = ember.placement("cpu", [2, 0])  # fewer ranks, another order
        for i, src in enumerate([*LAYOUTS_1D, partial_max]):
            folder = tmp_path / f"src{i}"
            save({"w": _global(array, p, src)}, folder)
            for dst_p, dst in itertools.product((p, other), LAYOUTS_1D):
                target = {"w": _zeros_like(array, dst_p, dst)}
                load(folder, target)
                assert target["w"].sbp == (dst,) and target["w"].placement == dst_p
                np.testing.assert_array_equal(target["w"].numpy(), array, err_msg=f"{src} -> {dst} on {dst_p}")


def test_every_layout_pair_on_a_2x2_mesh_uneven(tmp_path):
    array = _array((5, 3), seed=1)
    with simulated_world(4):
        mesh = ember.placement("cpu", [[0, 1], [2, 3]])
        for i, src in enumerate(LAYOUTS_2D):
            folder = tmp_path / f"src{i}"
            save({"w": _global(array, mesh, src)}, folder)
            for dst in LAYOUTS_2D:
                target = {"w": _zeros_like(array, mesh, dst)}
                load(folder, target)
                np.testing.assert_array_equal(target["w"].numpy(), array, err_msg=f"{src} -> {dst}")


def test_across_world_sizes_and_meshes(tmp_path):
    array = _array((6, 5), seed=2)
    with simulated_world(4):
        save({"w": _global(array, ember.placement("cpu", [0, 1, 2, 3]), split(0))}, tmp_path / "a")
        save({"w": _global(array, ember.placement("cpu", [[0, 1], [2, 3]]), (split(0), split(1)))}, tmp_path / "b")
    for folder in ("a", "b"):
        with simulated_world(2):
            for p, sbp in [
                (ember.placement("cpu", [0, 1]), split(1)),
                (ember.placement("cpu", [1]), broadcast),
                (ember.placement("cpu", [[0], [1]]), (split(1), split(1))),
            ]:
                target = {"w": _zeros_like(array, p, sbp)}
                load(tmp_path / folder, target)
                np.testing.assert_array_equal(target["w"].numpy(), array)
        np.testing.assert_array_equal(load(tmp_path / folder)["w"].numpy(), array)  # one process, no world


def test_each_rank_writes_only_its_own_pieces_once(tmp_path):
    a, b = _array((4, 6), 3), _array((3,), 4)
    with simulated_world(4):
        mesh = ember.placement("cpu", [[0, 1], [2, 3]])
        save(
            {"a": _global(a, mesh, (broadcast, split(1))), "b": _global(b, mesh, (broadcast, broadcast)), "c": ember.tensor(b)},
            tmp_path,
        )
    index = json.loads((tmp_path / "index.json").read_text())["index"]
    files = sorted(f for f in os.listdir(tmp_path) if f.endswith(".safetensors"))
    assert files == ["rank-00000.safetensors", "rank-00001.safetensors"]  # ranks 2, 3 hold copies of 0, 1
    records = {r["key"]: r for r in index["tensors"]}
    assert [(p["file"], p["slice"]) for p in records["a"]["pieces"]] == [
        ("rank-00000.safetensors", [[0, 4], [0, 3]]),
        ("rank-00001.safetensors", [[0, 4], [3, 6]]),
    ]
    assert [p["file"] for p in records["b"]["pieces"]] == ["rank-00000.safetensors"]
    assert records["c"]["placement"] is None and [p["file"] for p in records["c"]["pieces"]] == ["rank-00000.safetensors"]
    shard = ember.load(tmp_path / "rank-00001.safetensors")  # a shard is a plain safetensors file
    np.testing.assert_array_equal(shard["a[0:4,3:6]"].numpy(), a[:, 3:])


def test_partial_is_saved_reduced(tmp_path):
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        x = _global(_array((3, 4), 5), p, broadcast)
        partial = x.to_global(p, partial_sum)
        assert partial.sbp == (partial_sum,)
        pieces = {r: _array((3, 4), 6 + r) for r in (0, 1)}
        for r, piece in partial.pieces().items():
            piece.copy_(ember.tensor(pieces[r]))
        save({"p": partial}, tmp_path)
        target = {"p": _zeros_like(pieces[0], p, split(0))}
        load(tmp_path, target)
        np.testing.assert_allclose(target["p"].numpy(), pieces[0] + pieces[1], rtol=1e-6)
    np.testing.assert_allclose(load(tmp_path)["p"].numpy(), pieces[0] + pieces[1], rtol=1e-6)


def test_nested_values_local_tensors_and_dtypes_load_on_one_process(tmp_path):
    cases = {
        "f64": _array((3, 4), 7, np.float64),
        "i64": np.arange(10, dtype=np.int64).reshape(5, 2),
        "bool": np.array([[True, False, True]]),
        "c128": (_array((3, 2), 8) + 1j * _array((3, 2), 9)).astype(np.complex128),
        "scalar": np.array(3.5, np.float32),
        "empty": np.zeros((0, 3), np.float32),
    }
    local = ember.tensor(_array((2, 2), 10))
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        globals_ = {k: _global(v, p, split(0) if v.ndim else broadcast) for k, v in cases.items()}
        bf16 = distribute(ember.arange(5.0).to(ember.bfloat16), p, split(0))
        grad = distribute(ember.ones(4), p, split(0)).requires_grad_(True)
        obj = {
            "model": {"layers": [globals_, {"bf16": bf16}], "local": local, "grad": grad},
            "step": 12,
            "betas": (0.9, None),
            "name": "run",
        }
        save(obj, tmp_path)
    out = load(tmp_path)
    assert out["step"] == 12 and out["betas"] == (0.9, None) and out["name"] == "run"
    for k, v in cases.items():
        got = out["model"]["layers"][0][k]
        assert type(got) is ember.Tensor and got.numpy().dtype == v.dtype, k
        np.testing.assert_array_equal(got.numpy(), v)
    assert out["model"]["layers"][1]["bf16"].dtype == ember.bfloat16
    assert out["model"]["layers"][1]["bf16"].float().tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    np.testing.assert_array_equal(out["model"]["local"].numpy(), local.numpy())
    assert out["model"]["grad"].requires_grad


def test_load_in_place_keeps_the_target_objects(tmp_path):
    array = _array((4, 3), 11)
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        save({"w": _global(array, p, split(0)), "b": ember.tensor(array[0]), "step": 5, "opt": {"lr": 0.5}}, tmp_path)
        w = _zeros_like(array, p, split(1)).requires_grad_(True)
        b = ember.zeros(3)
        target = {"w": w, "b": b, "step": 0, "opt": {"lr": 0.1}}
        assert load(tmp_path, target) is target
        assert target["w"] is w and target["b"] is b and w.requires_grad
        np.testing.assert_array_equal(w.detach().numpy(), array)
        np.testing.assert_array_equal(b.numpy(), array[0])
        assert target["step"] == 5 and target["opt"] == {"lr": 0.5}


def test_a_module_saves_and_loads_its_state_dict(tmp_path):
    nn = pytest.importorskip("ember.nn")
    ember.manual_seed(0)
    a, b = nn.Linear(4, 3), nn.Linear(4, 3)
    save(a, tmp_path)
    load(tmp_path, b)
    np.testing.assert_array_equal(b.weight.detach().numpy(), a.weight.detach().numpy())
    np.testing.assert_array_equal(b.bias.detach().numpy(), a.bias.detach().numpy())


# -- errors -------------------------------------------------------------------------------


@pytest.fixture
def saved(tmp_path):
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        save({"w": _global(_array((4, 3), 12), p, split(0)), "b": ember.ones(3), "step": 1}, tmp_path)
    return tmp_path


def _target(p, shape=(4, 3), dtype=ember.float32):
    return {"w": distribute(ember.zeros(shape, dtype=dtype), p, split(0)), "b": ember.zeros(3), "step": 0}


def test_missing_folder_index_and_shard(tmp_path, saved):
    with pytest.raises(FileNotFoundError, match="no such directory"):
        load(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"empty/index\.json.*is missing"):
        load(tmp_path / "empty")
    os.remove(saved / "rank-00001.safetensors")
    with pytest.raises(FileNotFoundError, match=r"rank-00001.safetensors"):
        load(saved)


def test_truncated_and_tampered_index(saved):
    where = saved / "index.json"
    text = where.read_bytes()
    where.write_bytes(text[: len(text) // 2])
    with pytest.raises(ValueError, match=r"index.json.*not valid JSON"):
        load(saved)
    where.write_bytes(text.replace(b'"shape":[4,3]', b'"shape":[3,3]'))
    with pytest.raises(ValueError, match=r"index.json.*sha256"):
        load(saved)


def test_an_index_rewritten_with_a_valid_checksum_is_still_checked(saved):
    where = saved / "index.json"
    original = json.loads(where.read_text())["index"]
    for change, what in [
        (lambda w: w["pieces"].pop(), "cover 6 of its 12 elements"),
        (lambda w: w["pieces"][1].update(slice=[[1, 3], [0, 3]]), r"\[\[0, 2\], \[0, 3\]\] and \[\[1, 3\], \[0, 3\]\] overlap"),
        (lambda w: w["pieces"][0].update(slice=[[0, 2], [0, 4]]), "malformed piece"),
        (lambda w: w["pieces"][0].update(file="../elsewhere.safetensors"), "malformed piece"),
        (lambda w: w.update(dtype="float33"), "known dtype"),
    ]:
        index = copy.deepcopy(original)
        change(next(r for r in index["tensors"] if r["key"] == "w"))
        where.write_bytes(checkpoint_index.index_bytes(index))
        with pytest.raises(ValueError, match=f"index.json: tensor 'w'.*{what}"):
            load(saved)


def test_truncated_and_tampered_shard(saved):
    where = saved / "rank-00001.safetensors"
    data = where.read_bytes()
    where.write_bytes(data[:-4])
    with pytest.raises(ValueError, match=r"rank-00001.safetensors.*truncated"):
        load(saved)
    tampered = bytearray(data)
    tampered[-1] ^= 0x40
    where.write_bytes(bytes(tampered))
    with pytest.raises(ValueError, match=r"rank-00001.safetensors.*'w\[2:4,0:3\]'.*sha256"):
        load(saved)


def test_a_reader_checks_only_the_blocks_it_reads(tmp_path, monkeypatch):
    monkeypatch.setattr(checkpoint_index, "BLOCK_BYTES", 64)  # 4 rows of 4 float32 a block
    array = _array((10, 4), 13)
    save({"w": ember.tensor(array)}, tmp_path)
    index = checkpoint_index.read_index(str(tmp_path), "test")
    (record,) = index["tensors"]
    assert record["pieces"][0]["block_rows"] == 4 and len(record["pieces"][0]["sha256"]) == 3
    where = tmp_path / "rank-00000.safetensors"
    data = bytearray(where.read_bytes())
    data[-1] ^= 0x01  # the last row: the third block
    where.write_bytes(bytes(data))
    shards = checkpoint_index.Shards(str(tmp_path), "test")
    np.testing.assert_array_equal(shards.region(record, [[2, 7], [1, 3]]), array[2:7, 1:3])
    with pytest.raises(ValueError, match=r"rank-00000\.safetensors.*sha256 check in rows from 8"):
        shards.region(record, [[7, 9], [0, 4]])


def test_shape_and_dtype_mismatch_leave_the_target_alone(saved):
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        for target, what in [
            (_target(p, shape=(4, 2)), r"shape \[4, 3\].*shape \[4, 2\]"),
            (_target(p, dtype=ember.float64), "float32.*float64"),
        ]:
            target["b"].fill_(7.0)
            with pytest.raises(ValueError, match=f"'w'.*{what}"):
                load(saved, target)
            assert target["b"].tolist() == [7.0, 7.0, 7.0] and target["step"] == 0


def test_strict_names_missing_and_unexpected_keys(saved):
    with simulated_world(2):
        p = ember.placement("cpu", [0, 1])
        target = _target(p)
        del target["b"]
        target["extra"] = ember.zeros(2)
        with pytest.raises(KeyError, match=r"missing from the checkpoint \['extra'\].*not in the target \['b'\]"):
            load(saved, target)
        assert target["step"] == 0
        load(saved, target, strict=False)
        assert target["step"] == 1 and target["extra"].tolist() == [0.0, 0.0]
        nested = {"model": {"w": target["w"], "more": [ember.zeros(1)]}}
        with pytest.raises(KeyError, match=r"missing from the checkpoint \['model'\].*not in the target \['w', 'b', 'step'\]"):
            load(saved, nested)
        np.testing.assert_array_equal(target["w"].numpy(), _array((4, 3), 12))


def test_save_refuses_strings_and_unsupported_objects(tmp_path):
    with pytest.raises(TypeError, match=r"'s'.*strings"):
        save({"s": ember.tensor(["a", "b"])}, tmp_path)
    with pytest.raises(TypeError, match="cannot save"):
        save({"f": len}, tmp_path)
    assert not (tmp_path / "index.json").exists()


def test_strict_names_nested_paths(tmp_path):
    save({"opt": {"lr": 0.5, "state": [ember.ones(2), ember.ones(3)]}}, tmp_path)
    target = {"opt": {"lr": 0.1, "state": [ember.zeros(2)], "momentum": 0.9}}
    with pytest.raises(KeyError, match=r"\['opt.momentum'\].*\['opt.state.1'\]"):
        load(tmp_path, target)
    load(tmp_path, target, strict=False)
    assert target["opt"]["lr"] == 0.5 and target["opt"]["state"][0].tolist() == [1.0, 1.0] and target["opt"]["momentum"] == 0.9
