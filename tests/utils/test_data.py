"""ember.utils.data: datasets, samplers, collation and the DataLoader."""

import collections

import numpy as np
import pytest

import ember
import ember.utils.data as data


def _dataset(n=10):
    return data.TensorDataset(ember.arange(float(n)).reshape(n, 1), ember.arange(n))


# -- datasets -------------------------------------------------------------------------------------


def test_tensor_dataset():
    ds = _dataset(4)
    assert len(ds) == 4
    x, y = ds[2]
    assert x.tolist() == [2.0] and y.item() == 2
    with pytest.raises(ValueError, match="Size mismatch"):
        data.TensorDataset(ember.zeros(3), ember.zeros(4))


def test_concat_and_add():
    ds = data.ConcatDataset([_dataset(3), _dataset(2)])
    assert len(ds) == 5
    assert ds[3][1].item() == 0 and ds[-1][1].item() == 1
    assert len(_dataset(3) + _dataset(4)) == 7
    with pytest.raises(ValueError, match="empty iterable"):
        data.ConcatDataset([])


def test_subset():
    sub = data.Subset(_dataset(), [9, 1, 5])
    assert len(sub) == 3 and sub[0][1].item() == 9
    assert [y.item() for _, y in sub[[1, 2]]] == [1, 5]


@pytest.mark.parametrize("lengths", [[7, 3], [0.5, 0.3, 0.2], [0.34, 0.33, 0.33], [10, 0]])
def test_random_split_sizes_and_disjointness(lengths):
    n = 10
    splits = data.random_split(range(n), lengths, generator=ember.Generator().manual_seed(1))
    sizes = [len(s) for s in splits]
    assert sum(sizes) == n
    if all(isinstance(x, int) for x in lengths):
        assert sizes == lengths
    seen = [i for s in splits for i in s]
    assert sorted(seen) == list(range(n))


def test_random_split_fraction_rounding_like_torch():
    # floor each share, then the remainder round-robin from the first split
    splits = data.random_split(range(10), [0.34, 0.33, 0.33], generator=ember.Generator().manual_seed(0))
    assert [len(s) for s in splits] == [4, 3, 3]


def test_random_split_reproducible_and_errors():
    a = data.random_split(range(20), [10, 10], generator=ember.Generator().manual_seed(5))
    b = data.random_split(range(20), [10, 10], generator=ember.Generator().manual_seed(5))
    assert [list(s) for s in a] == [list(s) for s in b]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        data.random_split(range(5), [2, 2])


# -- samplers -------------------------------------------------------------------------------------


def test_sequential_and_batch_sampler():
    s = data.SequentialSampler(range(7))
    assert list(s) == list(range(7)) and len(s) == 7
    assert list(data.BatchSampler(s, 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(data.BatchSampler(s, 3, drop_last=True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(data.BatchSampler(s, 3, drop_last=False)) == 3 and len(data.BatchSampler(s, 3, drop_last=True)) == 2
    with pytest.raises(ValueError, match="batch_size should be a positive integer"):
        data.BatchSampler(s, 0, drop_last=False)


def test_random_sampler():
    perm = list(data.RandomSampler(range(8), generator=ember.Generator().manual_seed(0)))
    assert sorted(perm) == list(range(8))
    again = list(data.RandomSampler(range(8), generator=ember.Generator().manual_seed(0)))
    assert perm == again
    drawn = list(data.RandomSampler(range(3), replacement=True, num_samples=70, generator=ember.Generator().manual_seed(0)))
    assert len(drawn) == 70 and set(drawn) <= {0, 1, 2}
    more = list(data.RandomSampler(range(4), num_samples=10, generator=ember.Generator().manual_seed(0)))
    assert len(more) == 10 and sorted(more[:4]) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_samples"):
        data.RandomSampler(range(4), num_samples=0)


def test_random_sampler_without_generator_follows_manual_seed():
    ember.manual_seed(123)
    a = list(data.RandomSampler(range(20)))
    ember.manual_seed(123)
    b = list(data.RandomSampler(range(20)))
    assert a == b and sorted(a) == list(range(20))


def test_subset_random_sampler():
    s = data.SubsetRandomSampler([10, 20, 30], generator=ember.Generator().manual_seed(0))
    assert sorted(s) == [10, 20, 30] and len(s) == 3


def test_weighted_random_sampler():
    weights = [1.0, 0.0, 3.0]
    drawn = list(data.WeightedRandomSampler(weights, 400, generator=ember.Generator().manual_seed(0)))
    assert len(drawn) == 400 and 1 not in drawn
    assert 0.65 < drawn.count(2) / 400 < 0.85  # 3/4 expected; the bounds are 5 standard deviations
    again = list(data.WeightedRandomSampler(ember.tensor(weights), 400, generator=ember.Generator().manual_seed(0)))
    assert again == drawn
    unique = list(data.WeightedRandomSampler([1.0, 2.0, 3.0, 4.0], 4, replacement=False))
    assert sorted(unique) == [0, 1, 2, 3] and len(data.WeightedRandomSampler(weights, 7)) == 7
    ember.manual_seed(5)  # without a generator: the global RNG, as in PyTorch
    first = list(data.WeightedRandomSampler([1.0, 1.0], 20))
    ember.manual_seed(5)
    assert list(data.WeightedRandomSampler([1.0, 1.0], 20)) == first
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        data.WeightedRandomSampler(weights, 0)
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        data.WeightedRandomSampler(weights, True)
    with pytest.raises(ValueError, match="replacement should be a boolean"):
        data.WeightedRandomSampler(weights, 2, replacement=1)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence .* shape \(1, 3\)"):
        data.WeightedRandomSampler([weights], 2)
    with pytest.raises(RuntimeError, match="without replacement"):
        list(data.WeightedRandomSampler(weights, 5, replacement=False))


# -- collation ------------------------------------------------------------------------------------


def test_collate_tensors_numbers_and_arrays():
    assert default_shape(data.default_collate([ember.zeros(2, 3)] * 4)) == [4, 2, 3]
    ints = data.default_collate([1, 2, 3])
    assert ints.dtype == ember.int64 and ints.tolist() == [1, 2, 3]
    floats = data.default_collate([1.0, 2.0])
    assert floats.dtype == ember.float64
    arrays = data.default_collate([np.zeros(3, dtype=np.float32), np.ones(3, dtype=np.float32)])
    assert isinstance(arrays, ember.Tensor) and arrays.dtype == ember.float32 and default_shape(arrays) == [2, 3]
    scalars = data.default_collate([np.int32(1), np.int32(2)])
    assert scalars.dtype == ember.int32
    assert data.default_collate(["a", "b"]) == ["a", "b"]


def default_shape(t):
    return list(t.shape)


def test_collate_dicts_tuples_namedtuples_lists():
    Point = collections.namedtuple("Point", "x y")
    batch = [
        {"img": ember.ones(2), "meta": (1, "a"), "pt": Point(1.0, 2), "lst": [1, 2]},
        {"img": ember.zeros(2), "meta": (2, "b"), "pt": Point(3.0, 4), "lst": [3, 4]},
    ]
    out = data.default_collate(batch)
    assert default_shape(out["img"]) == [2, 2]
    assert isinstance(out["meta"], list) and out["meta"][0].tolist() == [1, 2] and out["meta"][1] == ["a", "b"]
    assert isinstance(out["pt"], Point) and out["pt"].x.tolist() == [1.0, 3.0] and out["pt"].y.tolist() == [2, 4]
    assert [t.tolist() for t in out["lst"]] == [[1, 3], [2, 4]]
    ordered = data.default_collate([collections.OrderedDict(a=1), collections.OrderedDict(a=2)])
    assert isinstance(ordered, collections.OrderedDict)


def test_collate_errors():
    with pytest.raises(RuntimeError, match="equal size"):
        data.default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate"):
        data.default_collate([object(), object()])


def test_collate_matches_torch_structure():
    torch_data = pytest.importorskip("torch.utils.data")
    batch = [({"a": 1.5, "b": [1, 2]}, np.arange(3)), ({"a": 2.5, "b": [3, 4]}, np.arange(3) + 1)]
    ours = data.default_collate(batch)
    theirs = torch_data.default_collate(batch)
    assert type(ours) is type(theirs)
    assert ours[0]["a"].tolist() == theirs[0]["a"].tolist() and str(ours[0]["a"].dtype).split(".")[-1] == "float64"
    assert [t.tolist() for t in ours[0]["b"]] == [t.tolist() for t in theirs[0]["b"]]
    assert ours[1].tolist() == theirs[1].tolist()


# -- DataLoader -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "bs", "drop_last", "expected"), [(10, 3, False, 4), (10, 3, True, 3), (9, 3, True, 3), (10, 20, False, 1)]
)
def test_dataloader_batching(n, bs, drop_last, expected):
    loader = data.DataLoader(_dataset(n), batch_size=bs, drop_last=drop_last)
    batches = list(loader)
    assert len(loader) == len(batches) == expected
    labels = [i for _, y in batches for i in y.tolist()]
    assert labels == list(range(n))[: len(labels)]
    assert all(len(y.tolist()) == bs for _, y in batches[: n // bs])
    x, _ = batches[0]
    assert default_shape(x) == [min(bs, n), 1]


def test_dataloader_shuffle_reproducible_with_generator():
    def order(seed):
        loader = data.DataLoader(_dataset(12), batch_size=5, shuffle=True, generator=ember.Generator().manual_seed(seed))
        return [[i for _, y in loader for i in y.tolist()] for _epoch in range(2)]

    first, second = order(7)
    assert sorted(first) == list(range(12)) and first != list(range(12))
    assert first != second  # each epoch gets a new order
    assert order(7) == [first, second]
    assert order(8) != [first, second]


def test_dataloader_shuffle_follows_manual_seed():
    ember.manual_seed(0)
    a = [y.item() for _, y in data.DataLoader(_dataset(8), shuffle=True)]
    ember.manual_seed(0)
    b = [y.item() for _, y in data.DataLoader(_dataset(8), shuffle=True)]
    assert a == b


def test_dataloader_collates_dicts_and_tuples():
    class Dicts(data.Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": np.full(2, i, dtype=np.float32), "pair": (i, str(i))}

    batches = list(data.DataLoader(Dicts(), batch_size=2))
    assert len(batches) == 3
    assert batches[0]["x"].tolist() == [[0.0, 0.0], [1.0, 1.0]]
    assert batches[2]["pair"][0].tolist() == [4] and batches[2]["pair"][1] == ["4"]


def test_dataloader_custom_collate_sampler_and_batch_sampler():
    loader = data.DataLoader(list(range(6)), batch_size=4, collate_fn=list)
    assert list(loader) == [[0, 1, 2, 3], [4, 5]]
    loader = data.DataLoader(list(range(6)), sampler=[5, 4, 3], batch_size=2, collate_fn=list)
    assert list(loader) == [[5, 4], [3]]
    loader = data.DataLoader(list(range(6)), batch_sampler=[[0, 5], [2]], collate_fn=list)
    assert list(loader) == [[0, 5], [2]] and len(loader) == 2


def test_dataloader_without_batching():
    loader = data.DataLoader([np.arange(2), np.arange(2) + 1], batch_size=None)
    out = list(loader)
    assert len(loader) == 2 and isinstance(out[0], ember.Tensor) and out[1].tolist() == [1, 2]


def test_dataloader_iterable_dataset():
    class Stream(data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

        def __len__(self):
            return 7

    assert [b.tolist() for b in data.DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in data.DataLoader(Stream(), batch_size=3, drop_last=True)] == [[0, 1, 2], [3, 4, 5]]
    assert len(data.DataLoader(Stream(), batch_size=3)) == 3
    with pytest.raises(ValueError, match="expected unspecified shuffle"):
        data.DataLoader(Stream(), shuffle=True)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"num_workers": -1}, ValueError, "non-negative"),
        ({"timeout": -1}, ValueError, "timeout"),
        ({"prefetch_factor": 2}, ValueError, "prefetch_factor"),
        ({"persistent_workers": True}, ValueError, "persistent_workers"),
        ({"sampler": [0, 1], "shuffle": True}, ValueError, "mutually exclusive with shuffle"),
        ({"batch_sampler": [[0]], "batch_size": 2}, ValueError, "batch_sampler option is mutually exclusive"),
        ({"batch_size": None, "drop_last": True}, ValueError, "disables auto-batching"),
    ],
)
def test_dataloader_argument_errors(kwargs, error, match):
    with pytest.raises(error, match=match):
        data.DataLoader(_dataset(4), **kwargs)


def _per_sample(samples):
    return data.default_collate(samples)  # not default_collate itself: the loader takes the per-sample road


@pytest.mark.parametrize("kwargs", [{"batch_size": 4}, {"batch_size": 3, "shuffle": True, "drop_last": True}, {"sampler": [5, -1, 0, 5], "batch_size": 2}])
def test_tensor_dataset_batches_by_one_gather_equal_the_per_sample_road(kwargs):
    # a TensorDataset with default_collate is gathered with one take per tensor; the batches must
    # equal stacking its samples one by one: values, dtypes, shapes, and a list per batch
    base = ember.arange(40.0).reshape(10, 4)
    dataset = data.TensorDataset(base[:, ::2], ember.arange(10) * 3, ember.arange(10) % 2 == 0, ember.randn(10, 2, 3).double())
    batches = []
    for collate in (None, _per_sample):
        gen = ember.Generator().manual_seed(8) if kwargs.get("shuffle") else None
        loader = data.DataLoader(dataset, generator=gen, collate_fn=collate, **kwargs)
        batches.append(list(loader))
    assert len(batches[0]) == len(batches[1]) > 1
    for gathered, stacked in zip(*batches, strict=True):
        assert isinstance(gathered, list) and len(gathered) == 4
        for g, s in zip(gathered, stacked, strict=True):
            assert g.dtype == s.dtype and g.shape == s.shape and g.is_contiguous()
            np.testing.assert_array_equal(g.numpy(), s.numpy())


def test_tensor_dataset_gather_keeps_the_general_road_for_autograd_and_bad_indices():
    w = ember.ones(4, 2, requires_grad=True)
    (batch,) = next(iter(data.DataLoader(data.TensorDataset(w), batch_size=4)))
    assert batch.grad_fn is not None  # stacked through ember.stack, which records
    loader = data.DataLoader(data.TensorDataset(ember.zeros(3, 2)), sampler=[0, 3], batch_size=2)
    with pytest.raises(IndexError, match="out of bounds"):
        next(iter(loader))
