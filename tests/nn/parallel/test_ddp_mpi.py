"""DistributedDataParallel on 2 and 4 ranks (MPI): each test body is one rank's view.

Every rank can rebuild every rank's batches, so each checks its DDP result against one process
training on the concatenated batches, computed locally. Run by the multi-rank harness
(``conftest.py`` here, which is the distributed tests' harness): one MPI job per world size.
"""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DistributedSampler
from tests._oracle import require_torch

from ._models import TinyModel, TwoBranch, batches, loss_fn, max_difference, shard

pytestmark = pytest.mark.mpi(n=2)

PER_RANK = 8
SMALL_BUCKETS_MB = 0.005  # TinyModel's gradients then fill two buckets: (linear2.*), (linear1.*)


def _train_and_compare(steps: int, optimizer, **ddp_kwargs) -> None:
    rank, world = dist.get_rank(), dist.get_world_size()
    ember.manual_seed(100 + rank)  # different initial weights on every rank: DDP must take rank 0's
    model = TinyModel()
    ddp = DDP(model, **ddp_kwargs)
    reference = TinyModel()
    reference.load_state_dict(model.state_dict())  # rank 0's weights, after the broadcast
    opt, ref_opt = optimizer(ddp.parameters()), optimizer(reference.parameters())
    for x, y in batches(steps, world, PER_RANK):
        opt.zero_grad()
        loss_fn(ddp(shard(x, rank, PER_RANK)), shard(y, rank, PER_RANK)).backward()
        opt.step()
        ref_opt.zero_grad()
        loss_fn(reference(x), y).backward()  # the mean over all ranks' samples: what DDP's average gives
        ref_opt.step()
    assert max_difference(model, reference) < 2e-6
    sums = ember.tensor([float(p.detach().double().sum()) for p in model.parameters()], dtype=ember.float64)
    low, high = sums.clone(), sums.clone()
    dist.all_reduce(low, op=dist.ReduceOp.MIN)
    dist.all_reduce(high, op=dist.ReduceOp.MAX)
    assert bool((low == high).all()), "the ranks ended with different parameters"


def test_same_parameters_as_one_process_on_the_concatenated_batches():
    _train_and_compare(4, lambda ps: ember.optim.SGD(ps, lr=0.5))
    _train_and_compare(4, lambda ps: ember.optim.Adam(ps, lr=1e-2), bucket_cap_mb=SMALL_BUCKETS_MB)
    _train_and_compare(4, lambda ps: ember.optim.SGD(ps, lr=0.5, momentum=0.9), bucket_cap_mb=SMALL_BUCKETS_MB, gradient_as_bucket_view=True)


def test_gradient_as_bucket_view_makes_grads_views_of_the_buckets():
    rank = dist.get_rank()
    model = TinyModel()
    ddp = DDP(model, gradient_as_bucket_view=True, bucket_cap_mb=SMALL_BUCKETS_MB)
    assert [b["parameters"] for b in ddp.bucket_plan()] == [["linear2.bias", "linear2.weight"], ["linear1.bias", "linear1.weight"]]
    x, y = next(batches(1, dist.get_world_size(), PER_RANK))
    loss_fn(ddp(shard(x, rank, PER_RANK)), shard(y, rank, PER_RANK)).backward()
    buffers = [b.buffer for b in ddp.reducer.buckets]
    for p in model.parameters():
        assert any(p.grad.untyped_storage() is buf.untyped_storage() for buf in buffers)
    record = ddp.last_iteration()
    assert [b["index"] for b in record["buckets"]] == [0, 1] and 0.0 <= record["hidden_fraction"] <= 1.0
    assert all(b["end_ms"] >= b["start_ms"] >= 0 for b in record["buckets"])


@pytest.mark.parametrize("wrap", ["forward and backward", "backward only"])
def test_no_sync_accumulates_locally_then_averages(wrap):
    rank, world = dist.get_rank(), dist.get_world_size()
    model = TinyModel()
    ddp = DDP(model)
    reference = TinyModel()
    reference.load_state_dict(model.state_dict())
    (x1, y1), (x2, y2) = batches(2, world, PER_RANK, seed=3)

    if wrap == "forward and backward":
        with ddp.no_sync():
            loss_fn(ddp(shard(x1, rank, PER_RANK)), shard(y1, rank, PER_RANK)).backward()
    else:  # read when backward starts: a forward outside the block does not matter (PyTorch would sync here)
        loss = loss_fn(ddp(shard(x1, rank, PER_RANK)), shard(y1, rank, PER_RANK))
        with ddp.no_sync():
            loss.backward()
    local = TinyModel()
    local.load_state_dict(model.state_dict())
    loss_fn(local(shard(x1, rank, PER_RANK)), shard(y1, rank, PER_RANK)).backward()
    for p, q in zip(model.parameters(), local.parameters(), strict=True):
        assert np.array_equal(p.grad.numpy(), q.grad.numpy()), "inside no_sync the gradient is this rank's own"

    loss_fn(ddp(shard(x2, rank, PER_RANK)), shard(y2, rank, PER_RANK)).backward()  # synchronised: the sum so far, averaged
    (loss_fn(reference(x1), y1) + loss_fn(reference(x2), y2)).backward()
    for p, q in zip(model.parameters(), reference.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_unused_parameters_are_named():
    model = TwoBranch()
    ddp = DDP(model)
    x = ember.randn(4, 6)
    with pytest.raises(RuntimeError, match=rf"no gradient for 2 parameter\(s\) on rank {dist.get_rank()}: right.weight, right.bias\. .*find_unused_parameters=True"):
        ddp(x, use=("left",)).sum().backward()
    ddp(x).sum().backward()  # the module goes on working once every parameter is used again
    assert all(p.grad is not None for p in model.parameters())


def test_find_unused_parameters_with_rank_dependent_branches():
    rank, world = dist.get_rank(), dist.get_world_size()
    ember.manual_seed(0)
    model = TwoBranch()
    ddp = DDP(model, find_unused_parameters=True, bucket_cap_mb=0.0001)  # one bucket per parameter
    xs = [ember.from_numpy(np.random.default_rng(r).standard_normal((4, 6)).astype(np.float32)) for r in range(world)]
    uses = [("left",) if r == 0 else ("left", "right") for r in range(world)]  # 'right' unused on rank 0 only
    ddp(xs[rank], use=uses[rank]).sum().backward()

    reference = TwoBranch()
    reference.load_state_dict(model.state_dict())
    for r in range(world):
        (reference(xs[r], use=uses[r]).sum() / world).backward()
    for p, q in zip(model.parameters(), reference.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)

    model.zero_grad()
    ddp(xs[rank], use=("left",)).sum().backward()  # 'right' unused everywhere: its .grad stays None
    assert model.right.weight.grad is None and model.right.bias.grad is None
    assert model.left.weight.grad is not None


def test_parameters_and_buffers_come_from_rank_0():
    rank = dist.get_rank()
    ember.manual_seed(rank)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    model[1].running_mean.fill_(float(rank + 1))
    DDP(model)
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, [t.detach().numpy().copy() for t in [*model.parameters(), *model.buffers()]])
    for theirs in everyone:
        for a, b in zip(theirs, everyone[0], strict=True):
            assert np.array_equal(a, b)
    assert model[1].running_mean.tolist() == [1.0] * 4  # rank 0's


def test_buffers_are_broadcast_before_a_training_forward_only():
    rank = dist.get_rank()
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    ddp = DDP(model)
    x = ember.from_numpy(np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32))
    reference = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
    reference.load_state_dict(model.state_dict())
    reference[1].running_mean.fill_(5.0)  # what rank 0 holds when the forward starts
    reference(x)
    model[1].running_mean.fill_(float(5 + rank))
    ddp(x)
    np.testing.assert_allclose(model[1].running_mean.numpy(), reference[1].running_mean.numpy(), rtol=1e-6)
    model[1].running_mean.fill_(float(rank))
    ddp.eval()
    with ember.no_grad():
        ddp(x)  # no collective under no_grad: rank 0 may evaluate alone
    assert model[1].running_mean.tolist() == [float(rank)] * 4


def test_different_models_are_refused_naming_the_parameter():
    rank = dist.get_rank()
    width = 4 if rank == 0 else 5
    model = nn.Sequential(nn.Linear(3, width), nn.Linear(width, 2))
    with pytest.raises(
        RuntimeError,
        match=r"the module differs across ranks: parameter #0 is '0\.weight' of shape \[5, 3\] and dtype ember\.float32 on rank 1 "
        r"but '0\.weight' of shape \[4, 3\] and dtype ember\.float32 on rank 0",
    ):
        DDP(model)


def test_timeline_shows_the_buckets():
    rank = dist.get_rank()
    ddp = DDP(TinyModel(), bucket_cap_mb=SMALL_BUCKETS_MB)
    x, y = next(batches(1, dist.get_world_size(), PER_RANK))
    with dist.timeline(None) as timeline:
        loss_fn(ddp(shard(x, rank, PER_RANK)), shard(y, rank, PER_RANK)).backward()
    names = [e["name"] for e in timeline.events if e["ph"] == "X" and e.get("cat") == "ddp"]
    assert names[:2] == ["DDP bucket 0 all_reduce (0.01 MiB)", "DDP bucket 1 all_reduce (0.05 MiB)"] and "DDP backward" in names


def test_state_dict_is_the_modules_with_a_prefix():
    model = TinyModel()
    ddp = DDP(model)
    assert list(ddp.state_dict()) == [f"module.{k}" for k in model.state_dict()]
    fresh = DDP(TinyModel())
    fresh.load_state_dict(ddp.state_dict())
    assert max_difference(fresh.module, model) == 0.0 and ddp.module is model


def test_distributed_sampler_partitions_from_the_default_group():
    rank, world = dist.get_rank(), dist.get_world_size()
    orders = []
    for epoch in range(2):
        sampler = DistributedSampler(range(23), seed=4)  # num_replicas and rank from the process group
        sampler.set_epoch(epoch)
        assert (sampler.num_replicas, sampler.rank) == (world, rank)
        mine = list(sampler)
        everyone = [None] * world
        dist.all_gather_object(everyone, mine)
        flat = [i for shard_ in everyone for i in shard_]
        assert len({len(s) for s in everyone}) == 1  # equal lengths: no rank waits for the others
        assert set(flat) == set(range(23)) and len(flat) == 24  # complete; one index repeated as padding
        orders.append(flat)
    assert orders[0] != orders[1]  # epoch-dependent


def test_same_parameters_as_torch_in_one_process():
    torch = require_torch()
    rank, world = dist.get_rank(), dist.get_world_size()
    model = TinyModel()
    ddp = DDP(model, bucket_cap_mb=SMALL_BUCKETS_MB)
    theirs = torch.nn.Sequential(torch.nn.Linear(64, 200), torch.nn.ReLU(), torch.nn.Linear(200, 10), torch.nn.Softmax(dim=-1))
    with torch.no_grad():
        for p, q in zip(theirs.parameters(), model.parameters(), strict=True):
            p.copy_(torch.from_numpy(q.detach().numpy().copy()))
    opt, their_opt = ember.optim.SGD(ddp.parameters(), lr=0.5), torch.optim.SGD(theirs.parameters(), lr=0.5)
    for x, y in batches(3, world, PER_RANK, seed=9):
        opt.zero_grad()
        loss_fn(ddp(shard(x, rank, PER_RANK)), shard(y, rank, PER_RANK)).backward()
        opt.step()
        their_opt.zero_grad()
        probs = theirs(torch.from_numpy(x.numpy()))
        torch.nn.functional.nll_loss(torch.log(probs + 1e-9), torch.from_numpy(y.numpy())).backward()
        their_opt.step()
    for p, q in zip(model.parameters(), theirs.parameters(), strict=True):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=2e-6)


@pytest.mark.mpi(n=4)
def test_same_parameters_as_one_process_on_4_ranks():
    _train_and_compare(3, lambda ps: ember.optim.SGD(ps, lr=0.5), bucket_cap_mb=SMALL_BUCKETS_MB)


def test_the_example_trains_on_every_rank(tmp_path):
    pytest.importorskip("sklearn")  # the digits ship in scikit-learn (the demo extra)
    example = _load_example("ddp_train")
    result = example.main(["--epochs", "3", "--quiet", "--out", str(tmp_path)])
    assert result["world_size"] == dist.get_world_size() and result["parameters_agree"]
    assert result["test_accuracy"] > 0.85 and result["losses"][-1] < result["losses"][0]
    if dist.get_rank() == 0:
        state = ember.load(result["checkpoint"])
        model = TinyModel()
        model.load_state_dict(state["model"])
        assert state["world_size"] == dist.get_world_size() and set(state["optimizer"]) == {"state", "param_groups"}


def _load_example(name: str):
    path = pathlib.Path(__file__).resolve().parents[3] / "examples" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
