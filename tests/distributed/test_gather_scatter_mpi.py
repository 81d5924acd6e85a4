"""all_gather, gather, scatter, all_to_all, send/recv, object collectives and sub-groups on 2 ranks."""

from __future__ import annotations

import pytest

import ember
import ember.distributed as dist

from ._data import DTYPES, expected, rank_input, same, tensor_of

pytestmark = pytest.mark.mpi(n=2)

SHAPE = (2, 3)


def test_all_gather_list_and_into_tensor_every_dtype():
    rank, size = dist.get_rank(), dist.get_world_size()
    for dtype in DTYPES:
        mine = tensor_of(rank_input(rank, SHAPE, dtype))
        outs = [ember.zeros(*SHAPE, dtype=dtype) for _ in range(size)]
        dist.all_gather(outs, mine)
        for r in range(size):
            same(outs[r], rank_input(r, SHAPE, dtype))
        cat = ember.zeros(size * SHAPE[0], SHAPE[1], dtype=dtype)
        dist.all_gather_into_tensor(cat, mine)
        for r in range(size):
            same(cat[r * SHAPE[0] : (r + 1) * SHAPE[0]], rank_input(r, SHAPE, dtype))
        stacked = ember.zeros(size, *SHAPE, dtype=dtype)
        dist.all_gather_into_tensor(stacked, mine, async_op=True).wait()
        for r in range(size):
            same(stacked[r], rank_input(r, SHAPE, dtype))


def test_all_gather_uneven_and_non_contiguous():
    rank, size = dist.get_rank(), dist.get_world_size()
    mine = tensor_of(rank_input(rank, (3, rank + 1), ember.float32)).t()  # (rank+1, 3), non-contiguous
    outs = [ember.zeros(r + 1, 3).t().t() for r in range(size)]
    dist.all_gather(outs, mine)
    for r in range(size):
        same(outs[r], rank_input(r, (3, r + 1), ember.float32).T)


def test_into_tensor_shape_and_dtype_errors():
    size = dist.get_world_size()
    with pytest.raises(ValueError, match=r"output_tensor must have 2 times the elements of input_tensor.*got output_tensor of shape \[5\]"):
        dist.all_gather_into_tensor(ember.zeros(5), ember.zeros(2))
    with pytest.raises(ValueError, match="different dtypes"):
        dist.all_gather_into_tensor(ember.zeros(size * 2, dtype=ember.int32), ember.zeros(2))
    with pytest.raises(ValueError, match="one tensor per rank"):
        dist.all_gather([ember.zeros(2)], ember.zeros(2))


def test_gather_and_scatter_every_dtype():
    rank, size = dist.get_rank(), dist.get_world_size()
    for dtype in DTYPES:
        for root in range(size):
            mine = tensor_of(rank_input(rank, SHAPE, dtype))
            outs = [ember.zeros(*SHAPE, dtype=dtype) for _ in range(size)] if rank == root else None
            dist.gather(mine, outs, dst=root)
            if rank == root:
                for r in range(size):
                    same(outs[r], rank_input(r, SHAPE, dtype))
            pieces = [tensor_of(rank_input(10 + r, SHAPE, dtype)) for r in range(size)] if rank == root else None
            got = ember.zeros(*SHAPE, dtype=dtype)
            dist.scatter(got, pieces, src=root)
            same(got, rank_input(10 + rank, SHAPE, dtype))
    with pytest.raises(ValueError, match=r"must be specified on destination rank|must NOT be specified"):
        dist.gather(ember.zeros(1), [ember.zeros(1)] * size if rank == 1 else None, dst=0)


def test_all_to_all_and_single_with_splits():
    rank, size = dist.get_rank(), dist.get_world_size()
    for dtype in DTYPES:
        ins = [tensor_of(rank_input(rank * size + j, SHAPE, dtype)) for j in range(size)]
        outs = [ember.zeros(*SHAPE, dtype=dtype) for _ in range(size)]
        dist.all_to_all(outs, ins)
        for j in range(size):
            same(outs[j], rank_input(j * size + rank, SHAPE, dtype))
    # uneven: rank r sends (j + r + 1) rows to rank j
    sends = [j + rank + 1 for j in range(size)]
    recvs = [rank + r + 1 for r in range(size)]
    data = {r: rank_input(r, (sum(j + r + 1 for j in range(size)), 2), ember.int64) for r in range(size)}
    out = ember.zeros(sum(recvs), 2, dtype=ember.int64)
    dist.all_to_all_single(out, tensor_of(data[rank]), output_split_sizes=recvs, input_split_sizes=sends)
    start = 0
    for r in range(size):
        offset = sum(j + r + 1 for j in range(rank))
        same(out[start : start + recvs[r]], data[r][offset : offset + recvs[r]])
        start += recvs[r]
    even = ember.zeros(size * 2, 3)
    dist.all_to_all_single(even, tensor_of(rank_input(rank, (size * 2, 3), ember.float32)), async_op=True).wait()
    for r in range(size):
        same(even[2 * r : 2 * r + 2], rank_input(r, (size * 2, 3), ember.float32)[2 * rank : 2 * rank + 2])
    with pytest.raises(ValueError, match="add up to"):
        dist.all_to_all_single(out, tensor_of(data[rank]), input_split_sizes=[1] * size)


def test_send_recv_and_async():
    rank, size = dist.get_rank(), dist.get_world_size()
    peer = (rank + 1) % size
    for dtype in (ember.bfloat16, ember.bool, ember.complex128, ember.uint64):
        if rank == 0:
            dist.send(tensor_of(rank_input(5, SHAPE, dtype)), dst=1, tag=3)
        elif rank == 1:
            got = ember.zeros(*SHAPE, dtype=dtype)
            assert dist.recv(got, src=0, tag=3) == 0
            same(got, rank_input(5, SHAPE, dtype))
    got = ember.zeros(4)
    recv_work = dist.irecv(got)  # from any rank
    send_work = dist.isend(ember.full((4,), float(rank)), dst=peer)
    recv_work.wait()
    send_work.wait()
    assert recv_work.source_rank() == (rank - 1) % size
    assert got.tolist() == [float((rank - 1) % size)] * 4
    with pytest.raises(ValueError, match="should not be the same as rank"):
        dist.send(got, dst=rank)


def test_object_collectives():
    rank, size = dist.get_rank(), dist.get_world_size()
    objs = [{"rank": 0, "tag": "x"}, [1, 2]] if rank == 0 else [None, None]
    dist.broadcast_object_list(objs, src=0)
    assert objs == [{"rank": 0, "tag": "x"}, [1, 2]]
    gathered = [None] * size
    dist.all_gather_object(gathered, ("r", rank))
    assert gathered == [("r", r) for r in range(size)]
    out = [None] * size if rank == 1 else None
    dist.gather_object(rank * 10, out, dst=1)
    if rank == 1:
        assert out == [r * 10 for r in range(size)]
    box = [None]
    dist.scatter_object_list(box, [f"to {r}" for r in range(size)] if rank == 0 else None, src=0)
    assert box == [f"to {rank}"]


def test_sub_groups_and_non_members():
    rank, size = dist.get_rank(), dist.get_world_size()
    solo = dist.new_group([1])
    if rank == 1:
        assert dist.get_world_size(solo) == 1 and dist.get_rank(solo) == 0
        t = ember.ones(3)
        dist.all_reduce(t, group=solo)
        assert t.tolist() == [1.0] * 3
    else:
        assert solo is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(solo) == -1
        with pytest.warns(UserWarning, match="does not belong to the given group"):
            assert dist.all_reduce(ember.ones(1), group=solo) is None
    pair = dist.new_group([1, 0])
    assert dist.get_process_group_ranks(pair) == [0, 1] and dist.get_group_rank(pair, 1) == 1
    t = tensor_of(rank_input(rank, SHAPE, ember.float64))
    dist.all_reduce(t, group=pair, op=dist.ReduceOp.MIN)
    same(t, expected([rank_input(r, SHAPE, ember.float64) for r in range(size)], ember.float64, "MIN"))
    mine, groups = dist.new_subgroups_by_enumeration([[r] for r in range(size)])
    assert dist.get_world_size(mine) == 1 and groups == [mine]
    dist.broadcast(t, src=rank, group=mine)
    with pytest.raises(ValueError, match="is not part of"):
        dist.broadcast(t, src=1 - rank, group=mine)
    with pytest.raises(ValueError, match="not within the world"):
        dist.new_group([0, size])
    dist.destroy_process_group(pair)
    with pytest.raises(ValueError, match="destroyed"):
        dist.all_reduce(t, group=pair)
