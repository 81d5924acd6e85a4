"""DistributedDataParallel in a world of one process (a plain ``python`` process: MPI's singleton),
its constructor's checks, and what needs no process group at all."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import ember
import ember.distributed as dist
import ember.nn as nn
from ember.nn.parallel import DistributedDataParallel as DDP
from ember.utils.data import DistributedSampler

from ._models import TinyModel, TwoBranch, batches, loss_fn, max_difference

one_rank = pytest.mark.mpi(n=1)


def test_reachable_where_pytorch_users_look():
    assert ember.nn.parallel.DistributedDataParallel is DDP
    assert ember.nn.parallel.distributed.DistributedDataParallel is DDP


def test_needs_a_process_group():
    if dist.is_initialized():
        pytest.skip("a process group exists in this process")
    with pytest.raises((RuntimeError, ValueError), match="init_process_group"):
        DDP(TinyModel())
    with pytest.raises((RuntimeError, ValueError), match="init_process_group"):
        DistributedSampler(range(4))


@one_rank
def test_trains_exactly_as_the_plain_module():
    ember.manual_seed(0)
    model, plain = TinyModel(), TinyModel()
    plain.load_state_dict(model.state_dict())
    ddp = DDP(model)
    opt, plain_opt = ember.optim.Adam(ddp.parameters(), lr=1e-2), ember.optim.Adam(plain.parameters(), lr=1e-2)
    for x, y in batches(3, 1, 16):
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()
        opt.step()
        plain_opt.zero_grad()
        loss_fn(plain(x), y).backward()
        plain_opt.step()
    assert max_difference(model, plain) == 0.0
    assert ddp.last_iteration() is None  # nothing is communicated in a world of one
    assert [b["parameters"] for b in ddp.bucket_plan()] == [["linear2.bias", "linear2.weight", "linear1.bias", "linear1.weight"]]


@one_rank
def test_unused_parameters_in_a_world_of_one():
    model = TwoBranch()
    ddp = DDP(model)
    x = ember.randn(4, 6)
    with pytest.raises(RuntimeError, match=r"no gradient for 2 parameter\(s\) on rank 0: right\.weight, right\.bias"):
        ddp(x, use=("left",)).sum().backward()
    model.right(model.trunk(x)).sum().backward()  # a backward through no DDP forward is the user's own business
    found = DDP(TwoBranch(), find_unused_parameters=True)
    found(x, use=("left",)).sum().backward()
    assert found.module.right.weight.grad is None and found.module.left.weight.grad is not None


@one_rank
def test_no_sync_and_forward_arguments():
    model = TwoBranch()
    ddp = DDP(model)
    x = ember.randn(4, 6)
    with ddp.no_sync():
        assert not ddp.require_backward_grad_sync
        ddp(x, use=("left", "right")).sum().backward()
    assert ddp.require_backward_grad_sync
    first = model.left.weight.grad.clone()
    ddp(x, use=["left", "right"]).sum().backward()
    np.testing.assert_allclose(model.left.weight.grad.numpy(), 2 * first.numpy(), rtol=1e-6)


@one_rank
def test_constructor_checks():
    frozen = nn.Linear(2, 2).requires_grad_(False)
    with pytest.raises(RuntimeError, match="DistributedDataParallel is not needed when a module doesn't have any parameter that requires a gradient"):
        DDP(frozen)
    with pytest.raises(ValueError, match="device_ids and output_device arguments only work with"):
        DDP(TinyModel(), device_ids=[0])
    with pytest.raises(NotImplementedError, match="static_graph=True is not supported"):
        DDP(TinyModel(), static_graph=True)
    with pytest.raises(TypeError, match=r"module must be an ember\.nn\.Module, got function"):
        DDP(lambda x: x)
    with pytest.raises(ValueError, match="bucket_cap_mb must hold positive numbers of MiB, got 0"):
        DDP(TinyModel(), bucket_cap_mb=0)
    with pytest.warns(FutureWarning, match="`broadcast_buffers` is deprecated"):
        assert DDP(TinyModel(), broadcast_buffers=False).broadcast_buffers is False
    with pytest.warns(FutureWarning, match="check_reduction"):
        DDP(TinyModel(), check_reduction=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert DDP(TinyModel(), forward_sync_buffers=False).broadcast_buffers is False
    with pytest.raises(NotImplementedError, match="register_comm_hook is not supported"):
        DDP(TinyModel()).register_comm_hook(None, None)


@one_rank
def test_frozen_and_ignored_parameters_are_left_alone():
    model = TinyModel()
    model.linear1.requires_grad_(False)
    model._ddp_params_and_buffers_to_ignore = ["linear2.bias"]
    ddp = DDP(model)
    assert [b["parameters"] for b in ddp.bucket_plan()] == [["linear2.weight"]]
    x, y = next(batches(1, 1, 4))
    loss_fn(ddp(x), y).backward()
    assert model.linear1.weight.grad is None and model.linear2.bias.grad is not None


@one_rank
def test_sampler_takes_the_world_from_the_group():
    sampler = DistributedSampler(range(5), shuffle=False)
    assert (sampler.num_replicas, sampler.rank, list(sampler)) == (1, 0, [0, 1, 2, 3, 4])


@one_rank
def test_a_backward_that_raised_does_not_stop_training():
    model = TinyModel()
    ddp = DDP(model)
    x, y = next(batches(1, 1, 4))

    def fail(grad):
        raise ValueError("hook failed")

    kept = []  # (ember drops a hook with its tensor: keep the tensor alive)

    def watch(module, args, out):
        out.register_hook(fail)
        kept.append(out)

    handle = model.linear1.register_forward_hook(watch)
    with pytest.raises(ValueError, match="hook failed"):
        loss_fn(ddp(x), y).backward()  # linear2's gradients arrived (the reduction began), linear1's never did
    handle.remove()
    model.zero_grad()
    loss_fn(ddp(x), y).backward()  # in a world of one nothing was sent: training goes on
    assert all(p.grad is not None for p in model.parameters())
