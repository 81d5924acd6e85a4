"""The bucket plan of DistributedDataParallel: which gradients travel together in one all-reduce.

Gradients are taken in the order they are expected to become ready in backward (at first the
reverse of registration; after the first iteration, the order they really came in), and packed
into buckets of one dtype each. A bucket closes once it holds at least its byte limit, the tensor
that crosses the limit included; the limits are taken in turn from a list whose last entry repeats
(PyTorch's ``compute_bucket_assignment_by_size``). PyTorch's defaults are ``[1 MiB, 25 MiB]``: a
small first bucket starts communication early, larger ones keep the number of calls down.

>>> plan_buckets([(4, "f32"), (4, "f32"), (8, "f64"), (4, "f32")], [6])
[[0, 1], [2], [3]]
>>> plan_buckets([(400, "f32")] * 5, [500, 1000])
[[0, 1], [2, 3, 4]]
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_BUCKET_CAP_MB", "DEFAULT_FIRST_BUCKET_BYTES", "MIB", "bucket_limits", "plan_buckets"]

MIB = 1024 * 1024
DEFAULT_BUCKET_CAP_MB = 25
DEFAULT_FIRST_BUCKET_BYTES = 1 * MIB


def bucket_limits(bucket_cap_mb: float | None, bucket_cap_mb_list: Sequence[float] | None) -> list[int]:
    """Byte limits for the buckets in turn, PyTorch's rule: the defaults give a 1 MiB first bucket
    then 25 MiB ones; a ``bucket_cap_mb`` of the user's applies to every bucket, the first too;
    ``bucket_cap_mb_list`` gives each bucket its own limit (the last repeats)."""
    if bucket_cap_mb_list:
        limits = [_bytes("bucket_cap_mb_list", cap) for cap in bucket_cap_mb_list]
        return limits
    if bucket_cap_mb is None:
        return [DEFAULT_FIRST_BUCKET_BYTES, DEFAULT_BUCKET_CAP_MB * MIB]
    return [_bytes("bucket_cap_mb", bucket_cap_mb)]


def _bytes(name: str, cap_mb) -> int:
    if isinstance(cap_mb, bool) or not isinstance(cap_mb, (int, float)) or not cap_mb > 0:
        raise ValueError(f"DistributedDataParallel: {name} must hold positive numbers of MiB, got {cap_mb!r}")
    return max(1, int(cap_mb * MIB))


def plan_buckets(tensors: Sequence[tuple[int, object]], limits: Sequence[int]) -> list[list[int]]:
    """Group tensors, given as ``(nbytes, dtype)`` in the order their gradients are expected, into
    buckets: lists of positions in ``tensors``, ordered by their first position."""
    if not limits:
        raise ValueError("plan_buckets: at least one byte limit is needed")
    open_buckets: dict[object, list[int]] = {}  # dtype -> the bucket being filled
    sizes: dict[object, int] = {}
    limit_index: dict[object, int] = {}  # dtype -> which limit its current bucket has
    done: list[list[int]] = []
    for position, (nbytes, dtype) in enumerate(tensors):
        bucket = open_buckets.setdefault(dtype, [])
        bucket.append(position)
        sizes[dtype] = sizes.get(dtype, 0) + nbytes
        which = limit_index.get(dtype, 0)
        if sizes[dtype] >= limits[which]:
            done.append(bucket)
            del open_buckets[dtype]
            sizes[dtype] = 0
            limit_index[dtype] = min(which + 1, len(limits) - 1)
    done.extend(bucket for bucket in open_buckets.values() if bucket)
    done.sort(key=lambda bucket: bucket[0])
    return done
