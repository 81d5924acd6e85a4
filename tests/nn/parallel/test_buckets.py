"""DDP's bucket plan: PyTorch's assignment rule and limits."""

import random

import pytest

from ember.nn.parallel._buckets import MIB, bucket_limits, plan_buckets
from tests._oracle import require_torch


def test_the_tensor_that_crosses_the_limit_closes_its_bucket():
    assert plan_buckets([(3, "f"), (3, "f"), (3, "f"), (3, "f"), (1, "f")], [5]) == [[0, 1], [2, 3], [4]]
    assert plan_buckets([(10, "f"), (1, "f")], [5]) == [[0], [1]]  # one tensor over the limit is a bucket alone


def test_limits_are_taken_in_turn_and_the_last_repeats():
    assert plan_buckets([(4, "f")] * 6, [4, 8]) == [[0], [1, 2], [3, 4], [5]]


def test_one_dtype_per_bucket_ordered_by_first_member():
    tensors = [(4, "f32"), (8, "f64"), (4, "f32"), (8, "f64"), (4, "f32")]
    assert plan_buckets(tensors, [8]) == [[0, 2], [1], [3], [4]]
    # each dtype keeps its own limit sequence
    assert plan_buckets([(4, "a"), (4, "b"), (4, "a"), (4, "b")], [4, 100]) == [[0], [1], [2], [3]]


def test_pytorch_defaults_and_user_caps():
    assert bucket_limits(None, None) == [1 * MIB, 25 * MIB]
    assert bucket_limits(4, None) == [4 * MIB]  # a user's cap applies to the first bucket too
    assert bucket_limits(None, [1, 2.5]) == [MIB, int(2.5 * MIB)]
    for bad in (0, -1, "25", True):
        with pytest.raises(ValueError, match="bucket_cap_mb must hold positive numbers of MiB"):
            bucket_limits(bad, None)
    with pytest.raises(ValueError, match="at least one byte limit"):
        plan_buckets([(1, "f")], [])


def test_the_mlp_plan():
    # MLP 784-1024-1024-10 in reverse registration order: the first bucket closes on the 4 MiB weight
    params = [(784 * 1024 * 4, "f"), (1024 * 4, "f"), (1024 * 1024 * 4, "f"), (1024 * 4, "f"), (10 * 1024 * 4, "f"), (10 * 4, "f")]
    reverse = params[::-1]
    plan = plan_buckets(reverse, bucket_limits(None, None))
    assert [[5 - k for k in bucket] for bucket in plan] == [[5, 4, 3, 2], [1, 0]]


def test_same_plan_as_torch():
    torch = require_torch()
    dist = pytest.importorskip("torch.distributed")
    rng = random.Random(0)
    for _ in range(200):
        tensors = [
            torch.empty(rng.choice([1, 10, 100, 1000, 5000]), dtype=rng.choice([torch.float32, torch.float64]))
            for _ in range(rng.randint(1, 12))
        ]
        limits = rng.choice([[1000], [500, 8000], [4000, 20000, 100000], [1]])
        theirs, _ = dist._compute_bucket_assignment_by_size(tensors, limits)
        ours = plan_buckets([(t.numel() * t.element_size(), t.dtype) for t in tensors], limits)
        assert [list(bucket) for bucket in theirs] == ours
