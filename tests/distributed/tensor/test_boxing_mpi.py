"""Boxing over MPI (``MpiWorld``: one rank per process): every layout pair with uneven sizes,
half/int/bool dtypes, empty and non-contiguous pieces, placement changes with ranks outside,
local pieces into global tensors (their checks), gradients, and the lazy process-group start.

Each test body is one rank's view (see tests/distributed/conftest.py); every rank boxes the
same tensors, and each checks its own piece against the slice of the logical NumPy array.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

import ember
import ember.distributed as dist
from ember.dispatch.sbp import broadcast, partial_max, partial_min, partial_sum, split
from ember.distributed import debug
from ember.distributed.tensor import box, distribute, layout
from ember.distributed.tensor.global_tensor import make_global

ENTRIES = (split(0), split(1), broadcast, partial_sum, partial_max, partial_min)
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _logical(shape, dtype=np.float32, seed=0) -> np.ndarray:
    values = np.random.RandomState(seed).randint(-9, 10, size=shape)
    return (values > 0) if dtype is np.bool_ else values.astype(dtype)


def _tensor(a: np.ndarray, dtype=None):
    t = ember.tensor(a)
    return t.to(dtype) if dtype is not None else t


def _check(t, ref: np.ndarray, sbp: tuple, p, gather: bool = True) -> None:
    """This rank's piece is its slice of ``ref`` (partial pieces: its shape), and the gathered
    value (a collective, always for partial layouts) is ``ref``."""
    rank = dist.get_rank()
    coord = p.coordinate(rank)
    if coord is None:
        assert t.pieces() == {} and t.to_local().numel() == 0
    else:
        piece = t.to_local().float().numpy() if t.dtype is ember.bfloat16 else t.to_local().numpy()
        where = layout.piece_slices(ref.shape, sbp, p.mesh_shape, coord)
        assert piece.shape == ref[where].shape
        if not any(e.is_partial for e in sbp):
            np.testing.assert_array_equal(piece, ref[where])
    if not gather and not any(e.is_partial for e in sbp):
        return
    whole = t.numpy()
    np.testing.assert_array_equal(whole.astype(np.float32) if t.dtype is ember.bfloat16 else whole, ref)


@pytest.mark.mpi(n=2)
def test_every_pair_uneven_every_dtype_kind():
    p = ember.placement("cpu", [0, 1])
    for dtype, cast in ((np.float32, None), (np.float16, None), (np.float32, ember.bfloat16), (np.int64, None), (np.bool_, None)):
        for shape in ((5, 3), (1, 3), (0, 2)):
            ref = _logical(shape, dtype)
            for a, b in itertools.product(ENTRIES, repeat=2):
                if dtype is np.bool_ and partial_sum in (a, b):
                    continue  # a sum of bools is no bool
                _check(box(distribute(_tensor(ref, cast), p, a), (b,)), ref, (b,), p)


@pytest.mark.mpi(n=2)
def test_reversed_mesh_order_and_non_contiguous_pieces():
    ref = _logical((5, 4))
    q = ember.placement("cpu", [1, 0])  # the mesh order is not the group's rank order
    for a, b in itertools.product(ENTRIES[:4], repeat=2):
        _check(box(distribute(ember.tensor(ref), q, a), (b,)), ref, (b,), q)
    p = ember.placement("cpu", [0, 1])
    x = distribute(ember.tensor(ref), p, split(1))
    piece = x.to_local().t().contiguous().t()  # column-major
    assert not piece.is_contiguous()
    y = make_global({dist.get_rank(): piece}, ref.shape, x.dtype, p, (split(1),))
    for b in (split(0), broadcast, partial_sum):
        _check(box(y, (b,)), ref, (b,), p)


@pytest.mark.mpi(n=2)
def test_placement_changes_and_ranks_outside():
    ref = _logical((5, 3))
    sets = ([0], [1], [0, 1], [1, 0])
    for src, dst in itertools.product(sets, repeat=2):
        ps, pd = ember.placement("cpu", src), ember.placement("cpu", dst)
        for a, b in ((split(0), split(1)), (partial_sum, broadcast), (broadcast, partial_max)):
            y = distribute(ember.tensor(ref), ps, a).to_global(pd, b)
            _check(y, ref, (b,), pd)
    only = distribute(ember.tensor(ref), ember.placement("cpu", [1]), broadcast)
    if dist.get_rank() == 0:
        assert "this rank holds no piece" in repr(only)
    else:
        assert "this rank holds no piece" not in repr(only)


@pytest.mark.mpi(n=2)
def test_gradients_of_every_pair_match_the_local_computation():
    # Every rank holds the same x; distribute's gradient is the whole logical gradient on each.
    # (gradcheck runs in the simulated tests: here each rank's x is its own input, and
    # finite differences would move every rank's copy at once.)
    p = ember.placement("cpu", [0, 1])
    c = np.random.RandomState(2).randn(5, 3)
    w = distribute(ember.tensor(c), p, broadcast)
    for a, b in itertools.product((split(0), split(1), broadcast, partial_sum), repeat=2):
        x = ember.tensor(np.random.RandomState(1).randn(5, 3), requires_grad=True)
        (distribute(x, p, a).to_global(sbp=b) * w).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), c, err_msg=f"{a} -> {b}")


@pytest.mark.mpi(n=2)
def test_local_pieces_to_global_and_their_gradients():
    rank = dist.get_rank()
    p = ember.placement("cpu", [0, 1])
    ref = _logical((5, 3), np.float64)
    w = _logical((5, 3), np.float64, seed=4)
    rows = slice(0, 3) if rank == 0 else slice(3, 5)  # uneven: the first rank takes the larger piece
    local = ember.tensor(ref[rows], requires_grad=True)
    g = local.to_global(p, split(0))
    assert g.shape == (5, 3)
    np.testing.assert_array_equal(g.numpy(force=True), ref)
    (g * distribute(ember.tensor(w), p, broadcast)).sum().backward()
    np.testing.assert_array_equal(local.grad.numpy(), w[rows])
    shared = ember.tensor(ref, requires_grad=True)
    (shared.to_global(p, broadcast) * distribute(ember.tensor(w), p, split(0))).sum().backward()
    np.testing.assert_array_equal(shared.grad.numpy(), w)  # every copy of a broadcast gets the whole gradient


@pytest.mark.mpi(n=2)
def test_to_global_errors_raise_on_every_rank():
    rank = dist.get_rank()
    p = ember.placement("cpu", [0, 1])
    with pytest.raises(ValueError, match=r"rank 0 has \[2, 3\], expected \[3, 3\]; rank 1 has \[3, 3\], expected \[2, 3\]"):
        ember.ones(2 + rank, 3).to_global(p, split(0))  # the larger piece must come first
    with pytest.raises(ValueError, match=r"rank 1 has \[2, 4\], expected \[2, 3\]"):
        ember.ones(2, 3 + rank).to_global(p, split(0))
    with pytest.raises(ValueError, match="differ in rank or dtype"):
        ember.ones(2, 3, dtype=ember.float64 if rank else ember.float32).to_global(p, broadcast)
    with pytest.raises(ValueError, match=r"expected \[2, 3\]"):
        ember.ones(3 - rank, 3).to_global(p, split(0), shape=(4, 3))
    assert ember.ones(2, 3).to_global(p, split(0), shape=(4, 3), check_meta=False).shape == (4, 3)


@pytest.mark.mpi(n=2)
def test_detail_mode_checks_broadcast_pieces():
    rank = dist.get_rank()
    p = ember.placement("cpu", [0, 1])
    before = debug.get_debug_level()
    debug.set_debug_level(debug.DebugLevel.DETAIL)
    try:
        with pytest.raises(ValueError, match=r"needs the same local tensor on ranks \[0, 1\], but they differ"):
            ember.full((2, 2), float(rank)).to_global(p, broadcast)
        assert ember.ones(2, 2).to_global(p, broadcast).numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    finally:
        debug.set_debug_level(before)
    ember.full((2, 2), float(rank)).to_global(p, broadcast)  # not checked outside DETAIL mode


@pytest.mark.mpi(n=4)
def test_nd_pairs_on_a_2x2_mesh():
    ref = _logical((5, 7))
    entries = (split(0), split(1), broadcast, partial_sum)
    p = ember.placement("cpu", [[3, 1], [0, 2]])  # neither mesh dim's groups in rank order
    for a in itertools.product(entries, repeat=2):
        x = distribute(ember.tensor(ref), p, a)
        for b in itertools.product(entries, repeat=2):
            _check(box(x, b), ref, b, p, gather=False)


@pytest.mark.mpi(n=4)
def test_placement_changes_on_4_ranks():
    ref = _logical((5, 7))
    sets = ([2], [1, 2], [[0, 1], [2, 3]], [3, 2, 1, 0], [0, 3])
    for src, dst in itertools.product(sets, repeat=2):
        ps, pd = ember.placement("cpu", src), ember.placement("cpu", dst)
        for a, b in ((split(0), split(1)), (partial_sum, broadcast)):
            _check(distribute(ember.tensor(ref), ps, (a,) * ps.ndim).to_global(pd, (b,) * pd.ndim), ref, (b,) * pd.ndim, pd)


# -- the process group starts by itself --------------------------------------------------------

_SCRIPT = """
import ember, ember.distributed as dist
from ember.distributed.tensor import distribute
{before}
p = ember.placement("cpu", list(range({n})))
assert dist.is_initialized() == {after_placement}, "placement"
x = distribute(ember.arange(6.0), p, ember.sbp.split(0))
assert dist.is_initialized() and dist.get_world_size() == {n}
print("OK", dist.get_rank(), x.sum().item())
"""


def _run(tmp_path, cmd: list, script: str) -> str:
    from tests.distributed.conftest import mpi_missing

    reason = mpi_missing()
    if reason:
        pytest.skip(f"needs MPI: {reason}")
    path = tmp_path / "script.py"
    path.write_text(script)
    env = dict(os.environ, PYTHONPATH=_ROOT, OMP_NUM_THREADS="1")
    env.pop("EMBER_RUN_ID", None)
    proc = subprocess.run([*cmd, str(path)], env=env, capture_output=True, text=True, timeout=120, cwd=_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_plain_python_is_a_world_of_one_started_by_the_first_global_tensor(tmp_path):
    out = _run(tmp_path, [sys.executable], _SCRIPT.format(before="", n=1, after_placement=False))
    assert "OK 0 15.0" in out


def test_ember_run_starts_the_group_at_the_first_placement(tmp_path):
    # (an explicit init_process_group before it is honoured: the MPI tests' harness makes one)
    out = _run(
        tmp_path, [sys.executable, "-m", "ember.distributed.run", "-n", "2"], _SCRIPT.format(before="", n=2, after_placement=True)
    )
    assert "OK 0 15.0" in out and "OK 1 15.0" in out
