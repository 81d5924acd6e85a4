"""Tile sizes of fused elementwise programs from the cache sizes (``ember/graph/run/fused.py``):
the default chunk fills L2 with the chunk's scratch buffers, never under MIN_CHUNK_ELEMS, and
whatever the tiles and threads, a fused chain computes what the unfused ops compute."""

import numpy as np
import pytest

import ember
import ember.graph.run.fused as fused
from ember.dispatch import OP_REGISTRY as OPS
from ember.graph.run.fused import MIN_CHUNK_ELEMS, FusedProgram, default_chunk_elems


def chain():
    """relu(a * b + c) * 0.5"""
    return [
        (OPS["mul"], (("in", 0), ("in", 1)), {}),
        (OPS["add"], (("step", 0), ("in", 2)), {}),
        (OPS["relu"], (("step", 1),), {}),
        (OPS["mul_scalar"], (("step", 2),), {"other": 0.5}),
    ]


def unfused(a, b, c):
    """The same chain, op by op through eager dispatch."""
    x, y, z = (ember.from_numpy(np.asarray(v)) for v in (a, b, c))
    return (ember.relu(x * y + z) * 0.5).numpy()


@pytest.fixture
def small_l2(monkeypatch):
    """An L2 of 64K float32 scratch per chunk, and a floor lowered to match."""
    monkeypatch.setattr(fused, "cache_sizes", lambda: {1: 32 << 10, 2: 256 << 10, 3: 8 << 20})
    monkeypatch.setattr(fused, "MIN_CHUNK_ELEMS", 1 << 10)


def test_chunk_elems_follow_l2_and_scratch_count(small_l2):
    assert default_chunk_elems(4, 1) == 64 << 10
    assert default_chunk_elems(8, 2) == 16 << 10
    assert default_chunk_elems(4, 1000) == 1 << 10  # the floor
    n = 1 << 18
    prog = FusedProgram(chain(), [((n,), ember.float32)] * 3, [3])
    assert prog.mode == "chunked" and prog.chunk_elems == 64 << 10  # one scratch buffer, reused by every step
    two_outputs = FusedProgram(chain(), [((n,), ember.float32)] * 3, [3, 1])
    assert two_outputs.chunk_elems == 64 << 10
    wide = FusedProgram(
        [(OPS["mul"], (("in", 0), ("in", 1)), {}), (OPS["exp"], (("in", 0),), {}), (OPS["add"], (("step", 0), ("step", 1)), {})],
        [((n,), ember.float64)] * 2,
        [2],
    )
    assert wide.chunk_elems == (256 << 10) // (2 * 8)  # two live float64 scratch buffers


def test_the_real_default_is_at_least_the_floor():
    assert default_chunk_elems(4, 1) >= MIN_CHUNK_ELEMS and default_chunk_elems(8, 64) == MIN_CHUNK_ELEMS


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("n", [(1 << 18) + 3, 3 * (1 << 16) - 1])
def test_odd_sizes_match_unfused(small_l2, threads, n):
    rng = np.random.default_rng(n)
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    a[::97] = -0.0
    b[5] = np.nan
    prog = FusedProgram(chain(), [((n,), ember.float32)] * 3, [3], threads=threads)
    got = prog([a, b, c])[0]
    np.testing.assert_array_equal(got, unfused(a, b, c))
    assert np.signbit(got).sum() == np.signbit(unfused(a, b, c)).sum()  # -0.0 kept as eager keeps it


@pytest.mark.parametrize("threads", [1, 2])
def test_broadcast_and_non_contiguous_operands(small_l2, threads):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((700, 600)).astype(np.float32).T  # transposed: (600, 700)
    b = rng.standard_normal((1200, 700)).astype(np.float32)[::2]  # every other row
    c = rng.standard_normal(700).astype(np.float32)  # a bias row
    prog = FusedProgram(
        chain(), [((600, 700), ember.float32), ((600, 700), ember.float32), ((700,), ember.float32)], [3], threads=threads
    )
    np.testing.assert_array_equal(prog([a, b, c])[0], unfused(a, b, c))
    out = np.empty((700, 600), np.float32).T  # a strided output
    prog([a, b, c], [out])
    np.testing.assert_array_equal(out, unfused(a, b, c))


@pytest.mark.parametrize("dtype", [ember.float16, ember.bfloat16])
@pytest.mark.parametrize("threads", [1, 2])
def test_half_types_match_unfused(small_l2, dtype, threads):
    n = (1 << 17) + 11
    rng = np.random.default_rng(2)
    arrays = [ember.from_numpy(rng.standard_normal(n).astype(np.float32)).to(dtype).numpy() for _ in range(3)]
    prog = FusedProgram(chain(), [((n,), dtype)] * 3, [3], threads=threads)
    assert prog.chunk_elems == (256 << 10) // 2  # half-size elements: twice as many per chunk
    got = prog(arrays)[0]
    assert got.dtype == arrays[0].dtype
    np.testing.assert_array_equal(got.view(np.uint16), unfused(*arrays).view(np.uint16))


def test_empty_and_small_programs_run_whole(small_l2):
    prog = FusedProgram(chain(), [((0, 5), ember.float32)] * 3, [3])
    assert prog.mode == "whole" and prog([np.empty((0, 5), np.float32)] * 3)[0].shape == (0, 5)
    small = FusedProgram(chain(), [((100,), ember.float32)] * 3, [3], threads=2)
    x = np.linspace(-1, 1, 100, dtype=np.float32)
    np.testing.assert_array_equal(small([x, x, x])[0], unfused(x, x, x))


def test_torch_agrees():
    torch = pytest.importorskip("torch")
    n = (1 << 18) + 5
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    prog = FusedProgram(chain(), [((n,), ember.float32)] * 3, [3], threads=2)
    want = (torch.relu(torch.from_numpy(a) * torch.from_numpy(b) + torch.from_numpy(c)) * 0.5).numpy()
    np.testing.assert_array_equal(prog([a, b, c])[0], want)
