"""DistributedSampler in one process: PyTorch's index layout, partitions, epochs, errors."""

import itertools

import pytest

import ember
from ember.utils.data import DataLoader, DistributedSampler, TensorDataset

SIZES = (0, 1, 2, 3, 5, 7, 10, 16)
REPLICAS = (1, 2, 3, 4, 8)


def _shards(size, replicas, **kwargs):
    return [list(DistributedSampler(range(size), num_replicas=replicas, rank=r, **kwargs)) for r in range(replicas)]


def _expected(size, replicas, drop_last):
    """PyTorch's layout written out: pad by repeating from the start (or cut), then stride by rank."""
    indices = list(range(size))
    if drop_last:
        per_rank = size // replicas
        indices = indices[: per_rank * replicas]
    else:
        per_rank = -(-size // replicas)
        while len(indices) < per_rank * replicas:
            indices.append(indices[len(indices) % size])
    return [indices[r::replicas] for r in range(replicas)]


@pytest.mark.parametrize("drop_last", [False, True])
def test_unshuffled_layout(drop_last):
    for size, replicas in itertools.product(SIZES, REPLICAS):
        shards = _shards(size, replicas, shuffle=False, drop_last=drop_last)
        assert shards == _expected(size, replicas, drop_last), (size, replicas)
        assert {len(s) for s in shards} == {len(DistributedSampler(range(size), replicas, 0, drop_last=drop_last))}


def test_padding_wraps_more_than_once():
    # 2 samples over 5 ranks: the list is repeated whole before it is cut (PyTorch's rule)
    assert _shards(2, 5, shuffle=False) == [[0], [1], [0], [1], [0]]


@pytest.mark.parametrize("drop_last", [False, True])
def test_same_indices_as_torch_unshuffled(drop_last):
    torch_data = pytest.importorskip("torch.utils.data")
    for size, replicas in itertools.product(SIZES, REPLICAS):
        for rank in range(replicas):
            theirs = torch_data.DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
            ours = DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
            assert list(ours) == list(theirs) and len(ours) == len(theirs), (size, replicas, rank)


@pytest.mark.parametrize("replicas", [2, 3, 4])
def test_shuffled_partition_is_disjoint_and_complete(replicas):
    size = 12  # divisible by every replica count here: no padding, so the shards partition exactly
    shards = _shards(size, replicas, seed=5)
    flat = [i for s in shards for i in s]
    assert sorted(flat) == list(range(size))
    assert flat != sorted(flat)  # it did shuffle


def test_shuffled_padding_repeats_the_permutations_head():
    size, replicas = 10, 4
    shards = _shards(size, replicas, seed=3)
    permutation = ember.randperm(size, generator=ember.Generator().manual_seed(3)).tolist()
    padded = permutation + permutation[:2]
    assert shards == [padded[r::replicas] for r in range(replicas)]


def test_every_rank_shuffles_alike_and_epochs_differ():
    a = DistributedSampler(range(50), num_replicas=2, rank=0, seed=7)
    b = DistributedSampler(range(50), num_replicas=2, rank=1, seed=7)
    epochs = []
    for epoch in range(3):
        a.set_epoch(epoch)
        b.set_epoch(epoch)
        first, second = list(a), list(b)
        assert sorted(first + second) == list(range(50))
        epochs.append(first)
    assert epochs[0] != epochs[1] != epochs[2]
    a.set_epoch(1)
    assert list(a) == epochs[1]  # the order is a function of seed + epoch
    assert list(DistributedSampler(range(50), num_replicas=2, rank=0, seed=8)) != epochs[0]


def test_epoch_advances_until_set_epoch_pins_it():
    auto = DistributedSampler(range(20), num_replicas=2, rank=0, seed=1)
    manual = DistributedSampler(range(20), num_replicas=2, rank=0, seed=1)
    passes = []
    for epoch in range(3):
        manual.set_epoch(epoch)
        passes.append(list(manual))
        assert list(auto) == passes[-1]  # forgetting set_epoch gives what calling it gives
    assert auto.epoch == 3 and manual.epoch == 2
    auto.set_epoch(0)
    assert list(auto) == list(auto) == passes[0]  # pinned: PyTorch's behaviour from here on
    assert auto.epoch == 0


def test_unshuffled_passes_are_equal():
    s = DistributedSampler(range(9), num_replicas=2, rank=1, shuffle=False)
    assert list(s) == list(s) == [1, 3, 5, 7, 0]


def test_with_a_dataloader():
    ds = TensorDataset(ember.arange(10.0), ember.arange(10))
    seen = []
    for rank in range(3):
        loader = DataLoader(ds, batch_size=2, sampler=DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=False))
        assert len(loader) == 2
        seen += [int(y) for _, ys in loader for y in ys]
    assert sorted(seen) == sorted([*range(10), 0, 1])


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match=r"Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=2, rank=-1)
    with pytest.raises(ValueError, match="num_replicas should be a positive integer, but got num_replicas=0"):
        DistributedSampler(range(4), num_replicas=0, rank=0)
    with pytest.raises(TypeError, match=r"num_replicas must be an int, but got float \(2.0\)"):
        DistributedSampler(range(4), num_replicas=2.0, rank=0)
    with pytest.raises(TypeError, match="rank must be an int, but got str"):
        DistributedSampler(range(4), num_replicas=2, rank="0")
    with pytest.raises(TypeError, match="must have a length"):
        DistributedSampler(iter(range(4)), num_replicas=2, rank=0)
    with pytest.raises(TypeError, match="epoch must be an int"):
        DistributedSampler(range(4), num_replicas=2, rank=0).set_epoch(1.5)


def test_dataset_that_changes_size():
    data = list(range(6))
    s = DistributedSampler(data, num_replicas=2, rank=0)
    data.append(6)
    with pytest.raises(RuntimeError, match="had 6 samples when the sampler was built and has 7 now"):
        iter(s)
