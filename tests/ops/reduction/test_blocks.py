"""Large reductions in blocks on ember's threads (``ember/kernels/cpu/reduction_blocks.py``).

The block size is lowered here (``small_leaf``), so small arrays take the blocked path with deep
trees. What must hold: the same bits with 1, 2 or 3 threads; the same bits as the unblocked
kernel where NumPy's order is kept (every output element of an axis reduction; a 1-d memory
walk of a float sum, which is then np.sum's); otherwise within the pairwise bound of float64.
"""

import numpy as np
import pytest

import ember
import ember.kernels.cpu.reduction as reduction
import ember.kernels.cpu.reduction_blocks as blocks
from ember._core.threads import parallel_map

LEAF = 1000  # elements per block in these tests


@pytest.fixture
def small_leaf(monkeypatch):
    monkeypatch.setattr(blocks, "LEAF", LEAF)
    monkeypatch.setattr(reduction, "LEAF", LEAF)


@pytest.fixture
def unblocked(monkeypatch):
    """A context switching the blocked path off (the kernels call NumPy on the whole array)."""

    def off():
        monkeypatch.setattr(blocks, "LEAF", 1 << 62)
        monkeypatch.setattr(reduction, "LEAF", 1 << 62)

    return off


def _with_threads(fn, counts=(1, 2, 3)):
    previous = ember.get_num_threads()
    try:
        results = []
        for n in counts:
            ember.set_num_threads(n)
            results.append(fn())
        return results
    finally:
        ember.set_num_threads(previous)


def _views(a: np.ndarray) -> dict:
    """Contiguous, transposed, stepped and reversed views of ``a`` (2-d or more)."""
    return {"contiguous": a, "transposed": a.T, "stepped": a[::2, ::3], "reversed": a[::-1], "column": a[:, :3]}


def _rng_array(shape, dtype=np.float32):
    return (np.random.default_rng(0).standard_normal(shape) * 10 + 1).astype(dtype)


# ---------------------------------------------------------------------------------------
# same bits on every thread count, and as the unblocked kernel


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod"])
@pytest.mark.parametrize("view", ["contiguous", "transposed", "stepped", "reversed", "column"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 2), 2])
def test_thread_count_never_changes_the_bits(small_leaf, unblocked, op, view, dim):
    a = _rng_array((23, 41, 17), np.float64 if op == "prod" else np.float32)
    if op == "prod":
        a = 1 + a / 1000  # products of order 1
    x = ember.from_numpy(_views(a)[view])
    kwargs = {} if dim is None else {"dim": dim}
    if op in ("amax", "amin") and dim is None:
        kwargs = {"dim": tuple(range(x.dim()))}
    results = _with_threads(lambda: getattr(x, op)(**kwargs).numpy())
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    unblocked()
    whole = getattr(x, op)(**kwargs).numpy()
    if dim is not None or op in ("amax", "amin"):
        np.testing.assert_array_equal(results[0], whole)  # axis reductions keep NumPy's order per element
    else:
        np.testing.assert_allclose(results[0], whole, rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [LEAF + 1, 8 * LEAF + 7, 12345])
def test_a_1d_float_sum_is_numpys_pairwise_sum_bit_for_bit(small_leaf, dtype, n):
    a = _rng_array(n, dtype)
    for v in (a, a[::3], a[::-2]):
        results = _with_threads(lambda v=v: ember.from_numpy(v).sum().item())
        assert results == [float(np.sum(v))] * 3
    square = _rng_array((97, 89), dtype)  # contiguous: merged into one 1-d walk
    assert _with_threads(lambda: ember.from_numpy(square).sum().item()) == [float(np.sum(square))] * 3


def test_a_strided_full_sum_stays_within_the_pairwise_bound(small_leaf):
    a = _rng_array((3001, 7))[:, :3]  # rows that do not merge: blocks of rows, combined pairwise
    got = ember.from_numpy(a).sum().item()
    exact = a.astype(np.float64).sum()
    eps = np.finfo(np.float32).eps / 2
    blocks_count = -(-a.size // LEAF)
    rows_per_block = LEAF // 3 + 1
    bound = (np.ceil(np.log2(blocks_count)) + rows_per_block + 2) * eps * np.abs(a).astype(np.float64).sum()
    assert abs(got - exact) <= bound
    assert abs(got - exact) <= abs(float(np.sum(a)) - exact) + bound / 10  # no worse than NumPy, about


@pytest.mark.parametrize("keepdim", [False, True])
def test_keepdim_and_out_shapes(small_leaf, keepdim):
    a = _rng_array((50, 60, 7))
    x = ember.from_numpy(a)
    for dim in [(0,), (1, 2), (0, 1, 2)]:
        got = x.sum(dim, keepdim=keepdim)
        want = np.sum(a, axis=dim, keepdims=keepdim)
        assert tuple(got.shape) == want.shape
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    out = ember.empty((50, 7))
    ember.sum(x, 1, out=out)
    np.testing.assert_allclose(out.numpy(), a.sum(1), rtol=1e-5)


def test_empty_and_small_inputs_take_numpys_path(small_leaf):
    empty = ember.zeros((0, 5000))
    assert empty.sum().item() == 0 and empty.sum(0).shape == (5000,)
    assert np.isnan(empty.mean().item())
    with pytest.raises(RuntimeError):
        empty.amax()
    assert ember.ones(LEAF).sum().item() == LEAF  # exactly one block: no split


# ---------------------------------------------------------------------------------------
# dtype rules unchanged


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
def test_half_types_accumulate_in_float32(small_leaf, dtype):
    a = np.random.default_rng(1).uniform(0, 1, (70, 90)).astype(np.float32)
    x = ember.from_numpy(a).to(dtype)
    exact = x.float().numpy().astype(np.float64)
    results = _with_threads(lambda: x.sum().float().item())
    assert results[0] == results[1] == results[2]
    assert x.sum().dtype is dtype and x.mean(0).dtype is dtype
    np.testing.assert_allclose(results[0], exact.sum(), rtol=1e-2)  # within a half-type rounding of the total
    np.testing.assert_allclose(x.mean(0).float().numpy(), exact.mean(0), rtol=1e-2)
    np.testing.assert_array_equal(x.amax(1).float().numpy(), exact.max(1).astype(np.float32))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.uint8, np.bool_])
def test_integer_sums_are_int64_and_exact(small_leaf, dtype):
    a = np.random.default_rng(2).integers(0, 100, (61, 83)).astype(dtype)
    x = ember.from_numpy(a)
    results = _with_threads(lambda: x.sum().item())
    assert results == [int(a.sum(dtype=np.int64))] * 3
    assert x.sum().dtype is ember.int64
    np.testing.assert_array_equal(x.sum(0).numpy(), a.sum(0, dtype=np.int64))
    np.testing.assert_array_equal(x.amax(0).numpy(), a.max(0))
    big = ember.from_numpy(np.full(3 * LEAF, 2**62, np.int64))
    assert big.sum().item() == int(np.full(3 * LEAF, 2**62, np.int64).sum())  # wraps as NumPy and PyTorch do


def test_nan_propagates_through_blocks(small_leaf):
    a = _rng_array(5 * LEAF)
    a[3 * LEAF + 17] = np.nan
    x = ember.from_numpy(a)
    assert np.isnan(x.sum().item()) and np.isnan(x.amax().item()) and np.isnan(x.amin().item())
    assert np.isnan(x.view(5, LEAF).amax(1).numpy()[3])


def test_complex_sum(small_leaf):
    a = _rng_array((40, 70)) + 1j * _rng_array((40, 70))
    results = _with_threads(lambda: ember.from_numpy(a.astype(np.complex64)).sum().item())
    assert results[0] == results[1] == results[2]
    np.testing.assert_allclose(results[0], a.sum(), rtol=1e-5)


def test_against_torch_at_full_size():
    torch = pytest.importorskip("torch")
    a = _rng_array(3 * blocks.LEAF + 3)
    t = torch.from_numpy(a)
    x = ember.from_numpy(a)
    for threads in (1, 2):
        got = _with_threads(lambda: (x.sum().item(), x.mean().item(), x.amax().item()), (threads,))[0]
        np.testing.assert_allclose(got, (t.sum().item(), t.mean().item(), t.amax().item()), rtol=1e-5)
    m = a[: 3 * blocks.LEAF].reshape(3 * 1024, -1)
    np.testing.assert_allclose(ember.from_numpy(m).sum(0).numpy(), torch.from_numpy(m).sum(0).numpy(), rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------------------------------
# the pool


def test_parallel_map_keeps_order_context_and_errors():
    calls = parallel_map(lambda run: [(v, np.geterr()["over"]) for v in run], list(range(7)), threads=3)
    assert [v for v, _ in calls] == list(range(7))
    with np.errstate(over="ignore"):
        modes = parallel_map(lambda run: [np.geterr()["over"] for _ in run], [0, 1, 2], threads=3)
    assert modes == ["ignore"] * 3

    def fail(run):
        if 5 in run:
            raise ZeroDivisionError("block 5")
        return list(run)

    with pytest.raises(ZeroDivisionError, match="block 5"):
        parallel_map(fail, list(range(6)), threads=2)
    nested = parallel_map(
        lambda run: [sum(parallel_map(lambda r: list(r), list(range(v)), threads=2)) for v in run], [3, 4], threads=2
    )
    assert nested == [3, 6]


def test_set_num_threads_refuses_as_torch_does():
    with pytest.raises(RuntimeError, match="expects a positive integer"):
        ember.set_num_threads(0)
    with pytest.raises(RuntimeError, match="expects an int, but got float"):
        ember.set_num_threads(2.0)
    with pytest.raises(RuntimeError, match="expects an int, but got bool"):
        ember.set_num_threads(True)


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm_in_blocks_matches_the_unblocked_kernel(small_leaf, unblocked, dim, keepdim, monkeypatch):
    import ember.kernels.cpu.linalg.norms as norms

    monkeypatch.setattr(norms, "LEAF", LEAF)
    a = _rng_array((130, 90))
    x = ember.from_numpy(a[:, ::-1])
    results = _with_threads(lambda: ember.linalg.vector_norm(x, dim=dim, keepdim=keepdim).numpy())
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])
    half = ember.from_numpy(a).half()  # computed in float32, in blocks
    np.testing.assert_allclose(
        half.norm().float().item(), np.sqrt((half.float().numpy().astype(np.float64) ** 2).sum()), rtol=1e-3
    )
    monkeypatch.setattr(norms, "LEAF", 1 << 62)
    unblocked()
    whole = ember.linalg.vector_norm(x, dim=dim, keepdim=keepdim).numpy()
    assert results[0].shape == whole.shape
    np.testing.assert_allclose(results[0], whole, rtol=1e-6)


def test_a_forked_child_gets_a_pool_of_its_own():
    import multiprocessing

    parallel_map(lambda run: list(run), [1, 2, 3], threads=2)  # the parent's pool exists
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        result = pool.apply_async(parallel_map, (_squares, [1, 2, 3, 4], 2)).get(timeout=60)
    assert result == [1, 4, 9, 16]


def _squares(run):
    return [v * v for v in run]
