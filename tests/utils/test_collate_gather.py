"""default_collate's one-gather road for samples that are rows of one tensor, against the per-sample
stack (``np.stack`` of each sample's own view) and against PyTorch's ``default_collate``."""

import numpy as np
import pytest

import ember
import ember.utils.data as data
from ember.memory import CachingAllocator, using_allocator
from ember.utils.data import _collate


def _stacked(samples):
    """What stacking the samples one by one gives (the reference every gathered batch must equal)."""
    return np.stack([s.numpy() for s in samples])


def _gathers(samples) -> bool:
    assert all(s._storage is samples[0]._storage for s in samples)
    target = np.empty((len(samples), *samples[0].shape), samples[0].numpy().dtype)
    return _collate._gather_rows_of(samples, samples[0]._storage, target)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool", "complex64"])
def test_rows_of_one_tensor_gather_in_one_call_and_equal_the_stack(dtype):
    base = (ember.arange(60) % 7).reshape(10, 2, 3).to(getattr(ember, dtype))
    order = [7, 0, 3, 3, 9, -1, 5]
    samples = [base[i] for i in order]
    assert _gathers(samples)  # the road under test is taken
    batch = data.default_collate(samples)
    assert batch.dtype == base.dtype and batch.shape == (7, 2, 3) and batch.is_contiguous()
    np.testing.assert_array_equal(batch.numpy(), _stacked(samples))


def _rows(base, index):
    return [base[i] for i in index]


@pytest.mark.parametrize(
    "base, index",
    [
        pytest.param(ember.arange(24.0).reshape(4, 6)[1:], (2, 0, 1), id="rows of a view starting past row 0"),
        pytest.param(ember.arange(28.0)[3:].reshape(-1, 5), (4, 1, 2), id="rows at a shifted offset"),
        pytest.param(ember.arange(8.0), (5, 1, 7), id="0-d samples"),
        pytest.param(ember.empty(5, 3), (4, 0), id="storage not yet allocated"),
    ],
)
def test_aligned_views_take_the_gather(base, index):
    samples = _rows(base, index)
    assert _gathers(samples)
    np.testing.assert_array_equal(data.default_collate(samples).numpy(), _stacked(samples))


def _windows(flat, starts, width):
    return [flat[i : i + width] for i in starts]


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: _rows(ember.arange(24.0).reshape(4, 6).t(), (5, 0, 2)), id="non-contiguous columns"),
        pytest.param(lambda: _windows(ember.arange(20.0), (0, 3, 7), 4), id="overlapping windows off the row grid"),
        pytest.param(lambda: [*_rows(ember.arange(12.0).reshape(3, 4), (2, 0)), ember.ones(4)], id="two storages"),
        pytest.param(lambda: _rows(ember.zeros(3, 0), (2, 0)), id="empty samples"),
        pytest.param(lambda: _rows(ember.arange(24.0).reshape(2, 3, 4).transpose(1, 2), (1, 0)), id="transposed samples"),
    ],
)
def test_other_layouts_keep_the_per_sample_stack(make):
    samples = make()
    batch = data.default_collate(samples)
    assert batch.shape == (len(samples), *samples[0].shape) and batch.is_contiguous()
    np.testing.assert_array_equal(batch.numpy(), _stacked(samples))


def test_the_batch_is_a_copy_from_the_current_allocator():
    base = ember.arange(12.0).reshape(4, 3)
    cache = CachingAllocator()
    with using_allocator(cache):
        batch = data.default_collate([base[2], base[0]])
    assert batch._storage.allocator is cache  # a worker's batch is born in shared memory this way
    batch.fill_(-1.0)
    np.testing.assert_array_equal(base.numpy(), np.arange(12.0).reshape(4, 3))


def test_samples_that_require_grad_are_stacked_with_autograd():
    w = ember.arange(6.0).reshape(3, 2).requires_grad_()
    batch = data.default_collate([w[2], w[0]])
    assert batch.grad_fn is not None
    batch.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[1.0, 1.0], [0.0, 0.0], [1.0, 1.0]])


def test_pairs_of_rows_and_labels_match_torch():
    torch = pytest.importorskip("torch")
    images = np.random.default_rng(0).standard_normal((20, 3, 4, 4)).astype(np.float32)
    order = [17, 2, 2, 9, 0]
    mine = data.default_collate([(ember.from_numpy(images)[i], i % 3) for i in order])
    theirs = torch.utils.data.default_collate([(torch.from_numpy(images)[i], i % 3) for i in order])
    assert isinstance(mine, list) and len(mine) == len(theirs) == 2
    for m, t in zip(mine, theirs, strict=True):
        assert str(m.dtype).split(".")[-1] == str(t.dtype).split(".")[-1] and tuple(m.shape) == tuple(t.shape)
        np.testing.assert_array_equal(m.numpy(), t.numpy())
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        data.default_collate([(1, 2), (3,)])


@pytest.mark.parametrize(
    "n, size, drop_last", [(10, 3, False), (10, 3, True), (9, 3, False), (2, 5, False), (2, 5, True), (0, 2, False)]
)
def test_batch_sampler_matches_torch(n, size, drop_last):
    sampler = data.BatchSampler(range(n), size, drop_last)
    expected = [list(range(i, min(i + size, n))) for i in range(0, n, size)]
    if drop_last:
        expected = [b for b in expected if len(b) == size]
    assert list(sampler) == expected and len(sampler) == len(expected)
    torch = pytest.importorskip("torch")
    assert list(sampler) == list(torch.utils.data.BatchSampler(range(n), size, drop_last))
