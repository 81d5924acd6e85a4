"""Global tensors on real ranks (MPI): factories, the tensor-parallel example against
single-process training (2 ranks: tensor parallel; 4 ranks: data x tensor parallel), and the
global form of data parallelism against DistributedDataParallel.

Each test body is one rank's view (see tests/distributed/conftest.py); every rank also trains
the local model itself, so each compares with the single-process run on its own.
"""

from __future__ import annotations

import copy
import pathlib
import sys

import numpy as np
import pytest

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.dispatch.sbp import broadcast, split
from ember.distributed.objects import all_gather_object
from ember.distributed.tensor import distribute
from ember.nn.parallel import DistributedDataParallel

EXAMPLES = pathlib.Path(__file__).resolve().parents[3] / "examples"
ARGV = ["--steps", "5", "--batch-size", "16", "--features", "8", "--hidden", "12", "--classes", "5", "--quiet"]


def _example():
    sys.path.insert(0, str(EXAMPLES))
    try:
        import tensor_parallel_mlp
    finally:
        sys.path.remove(str(EXAMPLES))
    return tensor_parallel_mlp


def _check_example(optimizer: str) -> None:
    example = _example()
    single = example.main([*ARGV, "--optimizer", optimizer, "--single"])
    parallel = example.main([*ARGV, "--optimizer", optimizer])  # on this job's ranks
    np.testing.assert_allclose(parallel["losses"], single["losses"], rtol=1e-5)
    for name, value in single["parameters"].items():
        np.testing.assert_allclose(parallel["parameters"][name], value, rtol=1e-5, atol=1e-6, err_msg=name)
    mine = {name: p.detach().to_local().numpy() for name, p in parallel["model"].named_parameters()}
    assert tuple(mine["0.weight"].shape) == (6, 8)  # 12 hidden features over the 2 tensor-parallel ranks


@pytest.mark.mpi(n=2)
def test_tensor_parallel_mlp_on_two_ranks_matches_one_process():
    _check_example("adam")


@pytest.mark.mpi(n=4)
def test_data_and_tensor_parallel_mlp_on_four_ranks_matches_one_process():
    _check_example("adamw")


@pytest.mark.mpi(n=2)
def test_factories_give_each_rank_its_piece_of_the_local_value():
    rank = dist.get_rank()
    p = ember.placement("cpu", [0, 1])
    ember.manual_seed(7)
    want = ember.randn(5, 3).numpy()
    ember.manual_seed(7)
    g = ember.randn(5, 3, placement=p, sbp=split(0))
    np.testing.assert_array_equal(g.to_local().numpy(), want[:3] if rank == 0 else want[3:])
    np.testing.assert_array_equal(g.numpy(), want)
    b = ember.rand(4, placement=p, sbp=broadcast)
    everyone: list = [None] * dist.get_world_size()
    all_gather_object(everyone, b.to_local().numpy().tolist())
    assert everyone[0] == everyone[1]  # a broadcast random tensor is the same on every rank
    z = ember.arange(7, placement=p, sbp=split(0))
    assert z.to_local().tolist() == ([0, 1, 2, 3] if rank == 0 else [4, 5, 6])


@pytest.mark.mpi(n=2)
def test_global_data_parallel_is_ddp():
    """Parameters broadcast and the batch split by rows: the optimizer's step all-reduces the
    partial gradients, which is what DistributedDataParallel does."""
    rank, world = dist.get_rank(), dist.get_world_size()
    ember.manual_seed(3)
    model = nn.Sequential(nn.Linear(6, 10), nn.Tanh(), nn.Linear(10, 4))
    xs, ys = ember.randn(3, 8, 6), ember.randint(0, 4, (3, 8))
    ddp = DistributedDataParallel(copy.deepcopy(model))
    ddp_opt = ember.optim.Adam(ddp.parameters(), lr=0.05)
    p = ember.placement("cpu", [0, 1])
    model.to_global(p, broadcast)
    opt = ember.optim.Adam(model.parameters(), lr=0.05)
    rows = slice(rank * 8 // world, (rank + 1) * 8 // world)
    for x, y in zip(xs, ys, strict=True):
        ddp_opt.zero_grad()
        nn.functional.cross_entropy(ddp(x[rows]), y[rows]).backward()
        ddp_opt.step()
        opt.zero_grad()
        nn.functional.cross_entropy(model(distribute(x, p, split(0))), distribute(y, p, split(0))).backward()
        opt.step()
    for (name, g), ref in zip(model.named_parameters(), ddp.module.parameters(), strict=True):
        assert g.sbp == (broadcast,)
        np.testing.assert_allclose(g.detach().to_local().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=name)
