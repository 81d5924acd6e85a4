"""Sharded checkpoints under MPI: each process writes its own shard, rank 0 the index; the same
job loads the folder back into fewer ranks and another SBP, into broadcast, and whole as local
tensors (no collective). Every rank compares with the NumPy array that was saved.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile

import numpy as np
import pytest

import ember
import ember.distributed as dist
from ember.dispatch.sbp import broadcast, partial_sum, split, split_range
from ember.distributed.tensor import distribute, load, save


def _shared_folder() -> str:
    """A fresh folder that every rank of the job names (rank 0 makes it and tells the others)."""
    box = [tempfile.mkdtemp(prefix="ember-ckpt-mpi-") if dist.get_rank() == 0 else None]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def _save_then_reshard(n: int) -> None:
    world = dist.get_world_size()
    assert world == n
    rank = dist.get_rank()
    folder = _shared_folder()
    try:
        weight = np.arange(7 * 5, dtype=np.float32).reshape(7, 5) / 3  # uneven over 2 and 4 ranks
        bias = np.linspace(-1, 1, 6).astype(np.float64)
        everyone = ember.placement("cpu", list(range(world)))
        state = {
            "w": distribute(ember.tensor(weight), everyone, split(0)),
            "b": distribute(ember.tensor(bias), everyone, partial_sum),
            "local": ember.tensor([rank, rank]),  # rank 0's is the one saved
            "step": 3,
        }
        save(state, folder)
        files = sorted(f for f in os.listdir(folder) if f.endswith(".safetensors"))
        assert files == [f"rank-{r:05d}.safetensors" for r in range(world)]
        with open(os.path.join(folder, "index.json")) as f:
            index = json.load(f)["index"]
        assert index["world_size"] == world

        two = ember.placement("cpu", [0, 1])  # ranks 2, 3 (if any) hold nothing
        target = {
            "w": distribute(ember.zeros(7, 5), two, split(1)),
            "b": distribute(ember.zeros(6, dtype=ember.float64), everyone, broadcast),
            "local": ember.zeros(2, dtype=ember.int64),
            "step": 0,
        }
        load(folder, target)
        piece = target["w"].to_local()
        if rank in (0, 1):
            start, stop = split_range(5, 2, rank)
            np.testing.assert_array_equal(piece.numpy(), weight[:, start:stop])
        else:
            assert piece.numel() == 0
        np.testing.assert_array_equal(target["b"].to_local().numpy(), bias)
        assert target["local"].tolist() == [0, 0] and target["step"] == 3
        np.testing.assert_array_equal(target["w"].numpy(), weight)  # a gather: every rank calls it

        whole = load(folder)  # local tensors, read from the files only
        np.testing.assert_array_equal(whole["w"].numpy(), weight)
        np.testing.assert_array_equal(whole["b"].numpy(), bias)
    finally:
        dist.barrier()
        if rank == 0:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.mpi(n=4)
def test_save_on_4_ranks_load_on_2_and_broadcast_and_local():
    _save_then_reshard(4)


@pytest.mark.mpi(n=2)
def test_save_on_2_ranks_load_on_2_and_broadcast_and_local():
    _save_then_reshard(2)
