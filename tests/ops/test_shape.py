"""Shape ops against PyTorch and NumPy: view ops through the op path (recorded by an
interpreter, sharing storage), and the copying ops (cat, stack, flip, roll, repeat, pad, tril...)
on hypothesis-drawn shapes (0-d, empty, non-contiguous) and every dtype."""

from __future__ import annotations

import math
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ember
from ember.dispatch import Interpreter, interpreter_scope
from ember.dispatch.interpreter import EAGER

try:
    import torch
except ImportError:  # pragma: no cover - torch is optional
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")

TORCH_DTYPES = (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
ALL_DTYPES = (*TORCH_DTYPES, "uint16", "uint32", "uint64")
OPS = settings(max_examples=30, deadline=None)


class Recorder(Interpreter):
    """Runs ops eagerly and records them, checking that every attribute is hashable."""

    name = "recorder"

    def __init__(self) -> None:
        self.ops: list[str] = []

    def apply(self, op, inputs, attrs, outputs=None):
        hash(tuple(attrs.values()))
        self.ops.append(op.name)
        return EAGER.apply(op, inputs, attrs, outputs)


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _values(shape: tuple, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = math.prod(shape)
    if dtype == "bool":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.startswith(("int", "uint")):
        return rng.integers(0, 9, n).astype(dtype).reshape(shape)
    values = rng.integers(-8, 9, n) / 2
    if dtype.startswith("complex"):
        values = values + 1j * rng.integers(-3, 4, n)
    return values.astype(_np_dtype(dtype)).reshape(shape)


@st.composite
def arrays(draw, dtypes=TORCH_DTYPES, min_dims: int = 0, max_dims: int = 3, shape=None):
    """(ember tensor, NumPy array of the same values): sometimes a transposed or strided view."""
    dtype = draw(st.sampled_from(dtypes))
    if shape is None:
        ndim = draw(st.integers(min_dims, max_dims))
        shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    layout = draw(st.sampled_from(["contiguous", "transposed", "strided"]))
    seed = draw(st.integers(0, 2**16))
    if layout == "transposed" and len(shape) >= 2:
        base = _values(shape[::-1], dtype, seed)
        view = base.T
    elif layout == "strided" and shape:
        base = _values((shape[0] * 2, *shape[1:]), dtype, seed)
        view = base[::2]
    else:
        view = _values(shape, dtype, seed)
    return ember.from_numpy(view), np.ascontiguousarray(view) if view.ndim else view.copy()


def to_torch(a: np.ndarray):
    if a.dtype == np.dtype(ml_dtypes.bfloat16):
        return torch.from_numpy(a.astype(np.float32)).to(torch.bfloat16)
    return torch.from_numpy(a.copy())


def from_torch(t) -> np.ndarray:
    if t.dtype == torch.bfloat16:
        return t.float().numpy().astype(ml_dtypes.bfloat16)
    return t.numpy()


def assert_same(result, expected) -> None:
    """ember result vs a torch tensor or a NumPy array: shape, dtype and values."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(result, (tuple, list)) and len(result) == len(expected)
        for r, e in zip(result, expected, strict=True):
            assert_same(r, e)
        return
    want = expected if isinstance(expected, np.ndarray) else from_torch(expected)
    got = result.numpy()
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    if got.dtype.kind == "f":
        got, want = got.astype(np.float64), want.astype(np.float64)
    assert np.array_equal(got, want, equal_nan=got.dtype.kind in "fc"), (got, want)


# -- view ops are ops --------------------------------------------------------------------------

_FLAT = ember.zeros(24)
_SPLITS = ember.tensor([1, 3])

VIEW_CALLS = [
    ("view", lambda t: t.view(4, 6), ["view"]),
    ("view_dtype", lambda t: t.view(ember.int32), ["view_dtype"]),
    ("view_as", lambda t: t.view_as(_FLAT), ["view"]),
    ("reshape", lambda t: t.reshape(-1), ["view"]),
    ("reshape_copy", lambda t: t.transpose(0, 2).reshape(-1), ["transpose", "reshape_copy"]),
    ("flatten", lambda t: t.flatten(1), ["view"]),
    ("ravel", lambda t: ember.ravel(t), ["view"]),
    ("unflatten", lambda t: t.unflatten(2, (2, 2)), ["unflatten"]),
    ("squeeze", lambda t: t[:1].squeeze((0, 1)), ["getitem", "squeeze"]),
    ("unsqueeze", lambda t: t.unsqueeze(-1), ["unsqueeze"]),
    ("expand_dims", lambda t: ember.expand_dims(t, axis=(0, 2)), ["unsqueeze", "unsqueeze"]),
    ("transpose", lambda t: t.swapaxes(0, 1), ["transpose"]),
    ("permute", lambda t: t.permute(2, 0, 1), ["permute"]),
    ("permute_dims", lambda t: ember.permute_dims(t, (2, 0, 1)), ["permute"]),
    ("movedim", lambda t: t.moveaxis((0, 1), (2, 0)), ["movedim"]),
    ("t", lambda t: t[0].t(), ["getitem", "t"]),
    ("T", lambda t: t[0].T, ["getitem", "T"]),
    ("mT", lambda t: t.mT, ["mT"]),
    ("matrix_transpose", lambda t: ember.matrix_transpose(t), ["mT"]),
    ("expand", lambda t: t[:, :1].expand(2, 5, 4), ["getitem", "expand"]),
    ("expand_as", lambda t: t[:1].expand_as(t), ["getitem", "expand"]),
    ("broadcast_to", lambda t: t.broadcast_to((3, 2, 3, 4)), ["broadcast_to"]),
    ("narrow", lambda t: t.narrow(1, 1, 2), ["narrow"]),
    ("select", lambda t: t.select(-1, 2), ["select"]),
    ("unbind", lambda t: t.unbind(1), ["unbind"]),
    ("split", lambda t: t.split([1, 2], 1), ["split"]),
    ("chunk", lambda t: t.chunk(2, 2), ["chunk"]),
    ("tensor_split", lambda t: t.tensor_split(_SPLITS, 2), ["tensor_split"]),
    ("diagonal", lambda t: t.diagonal(1, 1, 2), ["diagonal"]),
    ("unfold", lambda t: t.unfold(2, 2, 1), ["unfold"]),
    ("as_strided", lambda t: t.as_strided((2, 2), (1, 3), 1), ["as_strided"]),
    ("getitem", lambda t: t[1, ::-1, None], ["getitem"]),
]


@pytest.mark.parametrize("name, call, ops", VIEW_CALLS, ids=[c[0] for c in VIEW_CALLS])
def test_view_ops_dispatch_as_ops_with_hashable_attrs(name, call, ops):
    t = ember.from_numpy(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    recorder = Recorder()
    with interpreter_scope(recorder):
        result = call(t)
    assert recorder.ops == ops
    eager = call(t)
    results = result if isinstance(result, tuple) else (result,)
    eagers = eager if isinstance(eager, tuple) else (eager,)
    for r, e in zip(results, eagers, strict=True):
        assert (r.shape, r.stride(), r.storage_offset(), r.dtype) == (e.shape, e.stride(), e.storage_offset(), e.dtype)
        assert r.tolist() == e.tolist()
        if name != "reshape_copy":
            assert r.untyped_storage() is t.untyped_storage()  # a view: same memory
    if name == "reshape_copy":
        assert result.untyped_storage() is not t.untyped_storage() and result._base is None


def test_views_share_storage_and_writes_go_both_ways():
    t = ember.zeros(2, 3, 4)
    for view in (
        t.permute(2, 0, 1),
        ember.expand_dims(t, axis=(0, 2)),
        t.mT,
        t.reshape(6, 4),
        ember.ravel(t),
        t.flatten(),
        t.view(ember.int32),
    ):
        assert view.untyped_storage() is t.untyped_storage()
    p = t.permute(2, 0, 1)
    p[3, 1, 2] = 7.0
    assert t[1, 2, 3].item() == 7.0
    t[0, 0, 0] = 5.0
    assert ember.matrix_transpose(t)[0, 0, 0].item() == 5.0
    assert t._version == p._version == 2


def test_reshape_copies_only_when_no_view_exists_like_torch():
    x = np.arange(24, dtype=np.int64).reshape(2, 3, 4)
    t = ember.from_numpy(x).transpose(0, 2)
    flat = t.reshape(-1)
    assert flat.untyped_storage() is not t.untyped_storage()
    assert flat.tolist() == x.transpose(2, 1, 0).reshape(-1).tolist()
    assert ember.ravel(t).tolist() == flat.tolist()
    assert t.reshape(4, 3, 2).untyped_storage() is t.untyped_storage()
    if torch is not None:
        tt = torch.from_numpy(x).transpose(0, 2)
        for shape in [(-1,), (4, 6), (4, 3, 2), (2, 2, 3, 2)]:
            ours, theirs = t.reshape(shape), tt.reshape(shape)
            assert ours.stride() == theirs.stride() and ours.tolist() == theirs.tolist()
            assert (ours.untyped_storage() is t.untyped_storage()) == (
                theirs.data_ptr() == tt.data_ptr() or theirs._base is not None
            )


def test_array_api_spellings():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 1, 3)
    t = ember.from_numpy(x)
    assert ember.squeeze(t, axis=(0, 2)).shape == (2, 3)
    assert t.squeeze(-2).shape == (1, 2, 3)
    assert ember.expand_dims(t, axis=-1).shape == np.expand_dims(x, -1).shape
    assert ember.expand_dims(t[0, :, 0], axis=(0, -1)).shape == np.expand_dims(x[0, :, 0], (0, -1)).shape
    assert ember.permute_dims(t, (3, 2, 1, 0)).shape == (3, 1, 2, 1)
    assert ember.matrix_transpose(t).shape == (1, 2, 3, 1)
    assert ember.concat([t, t], axis=1).shape == (1, 4, 1, 3)
    assert ember.flip(t, axis=(1, 3)).tolist() == np.flip(x, (1, 3)).tolist()
    assert ember.flip(t).tolist() == np.flip(x).tolist()
    assert ember.roll(t, 1, axis=3).tolist() == np.roll(x, 1, 3).tolist()
    assert ember.swapaxes(t, 1, 3).shape == (1, 3, 1, 2)
    assert ember.moveaxis(t, 0, -1).shape == (2, 1, 3, 1)


def test_view_errors_keep_their_messages():
    t = ember.zeros(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        t.transpose(0, 2)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        ember.expand_dims(t, axis=3)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(6)
    with pytest.raises(RuntimeError, match=r"shape '\[4, -1\]' is invalid for input of size 6"):
        t.reshape(4, -1)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        t.reshape(2.0, 3)
    with pytest.raises(RuntimeError, match="split_sizes to sum exactly to 2"):
        t.split(ember.tensor([1, 2]))


def test_views_of_meta_tensors_and_attrs_in_the_inference_cache():
    m = ember.empty(2, 3, 4, device="meta")
    assert m.permute(2, 0, 1).shape == (4, 2, 3) and m.reshape(6, -1).is_meta
    assert m.transpose(0, 2).reshape(-1).shape == (24,)  # the copying branch infers on meta too
    assert ember.cat([m, m], 1).shape == (2, 6, 4) and ember.flip(m, 0).is_meta
    assert ember.pad(m, (1, 1)).shape == (2, 3, 6)
    from ember.ops.shape import VIEW_OPS

    for name, op in VIEW_OPS.items():
        assert op.infer is not None and op.view is not None, name


# -- copying ops against torch ---------------------------------------------------------------


def _dims(data, ndim: int, label: str, max_size=None) -> tuple:
    if ndim == 0:
        return ()
    dims = data.draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=max_size or ndim), label=label)
    return tuple(d - ndim if data.draw(st.booleans()) else d for d in dims)


@needs_torch
@OPS
@given(data=st.data())
def test_cat_and_stack_match_torch(data):
    ndim = data.draw(st.integers(1, 3))
    shape = data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim))
    d = data.draw(st.integers(-ndim, ndim - 1))
    pieces = []
    for _ in range(data.draw(st.integers(1, 3))):
        s = list(shape)
        s[d] = data.draw(st.integers(0, 3))
        pieces.append(data.draw(arrays(shape=tuple(s))))
    ts = [p[0] for p in pieces]
    expected = torch.cat([to_torch(p[1]) for p in pieces], d)
    assert_same(ember.cat(ts, d), expected)
    assert_same(ember.concat(ts, axis=d), expected)
    same = [data.draw(arrays(shape=tuple(shape))) for _ in range(len(pieces))]
    sd = data.draw(st.integers(-ndim - 1, ndim))
    assert_same(ember.stack([p[0] for p in same], sd), torch.stack([to_torch(p[1]) for p in same], sd))
    for fn in ("hstack", "vstack", "dstack", "column_stack"):
        try:
            expected = getattr(torch, fn)([to_torch(p[1]) for p in same])
        except RuntimeError:
            continue
        assert_same(getattr(ember, fn)([p[0] for p in same]), expected)


@needs_torch
def test_stack_family_on_0d_and_1d_match_torch():
    for shapes in [[(), ()], [(3,), (3,)], [(2, 3), (2, 3)], [(0,), (0,)]]:
        arrays_ = [_values(s, "int64", i) for i, s in enumerate(shapes)]
        for fn in ("hstack", "vstack", "dstack", "column_stack", "stack"):
            assert_same(
                getattr(ember, fn)([ember.from_numpy(a) for a in arrays_]), getattr(torch, fn)([to_torch(a) for a in arrays_])
            )


def test_cat_promotes_and_skips_legacy_empty_tensors_like_torch():
    r = ember.cat(
        [
            ember.tensor([[1, 2]], dtype=ember.int32),
            ember.tensor([[True, False]]),
            ember.tensor([[0.5, 1.0]], dtype=ember.float16),
        ]
    )
    assert r.dtype is ember.float16 and r.tolist() == [[1.0, 2.0], [1.0, 0.0], [0.5, 1.0]]
    r = ember.cat([ember.zeros(2, 3, dtype=ember.bfloat16), ember.ones(1, 3, dtype=ember.complex64)])
    assert r.dtype is ember.complex64 and r.shape == (3, 3)
    r = ember.cat([ember.zeros(0), ember.ones(2, 2), ember.zeros(0)], dim=1)
    assert r.shape == (2, 2)
    assert ember.cat([ember.zeros(0), ember.zeros(0)]).shape == (0,)
    out = ember.empty(4)
    assert ember.cat([ember.ones(2), ember.zeros(2)], out=out) is out and out.tolist() == [1.0, 1.0, 0.0, 0.0]
    assert out._version == 1


def test_cat_errors_like_torch():
    with pytest.raises(
        RuntimeError,
        match=r"^Sizes of tensors must match except in dimension 1\. Expected size 2 but got size 3 for tensor number 1 in the list\.$",
    ):
        ember.cat([ember.zeros(2, 2), ember.zeros(3, 2)], dim=1)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"):
        ember.cat([ember.zeros(2, 2)], 2)
    with pytest.raises(RuntimeError, match="zero-dimensional tensor \\(at position 1\\) cannot be concatenated"):
        ember.cat([ember.zeros(2), ember.tensor(1.0)])
    with pytest.raises(RuntimeError, match="expected a non-empty list of Tensors"):
        ember.cat([])
    with pytest.raises(RuntimeError, match="Tensors must have same number of dimensions: got 2 and 1"):
        ember.cat([ember.zeros(2, 2), ember.zeros(2)])
    with pytest.raises(TypeError, match="must be tuple of Tensors"):
        ember.cat([ember.zeros(2), [1.0]])
    with pytest.raises(
        RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at entry 1"
    ):
        ember.stack([ember.zeros(2), ember.zeros(3)])
    with pytest.raises(RuntimeError, match="output with shape \\[3\\]"):
        ember.cat([ember.zeros(2), ember.zeros(2)], out=ember.empty(3))


@needs_torch
@OPS
@given(data=st.data())
def test_flip_roll_rot90_match_torch(data):
    t, a = data.draw(arrays())
    ndim = a.ndim
    dims = _dims(data, ndim, "dims")
    if dims:
        assert_same(t.flip(*dims), torch.flip(to_torch(a), dims))
    assert_same(ember.flip(t, dims), to_torch(a).flip(tuple(range(ndim))) if not dims else torch.flip(to_torch(a), dims))
    if ndim >= 2:
        assert_same(ember.fliplr(t), torch.fliplr(to_torch(a)))
    if ndim >= 1:
        assert_same(ember.flipud(t), torch.flipud(to_torch(a)))
    shifts = data.draw(st.lists(st.integers(-5, 5), min_size=len(dims) or 1, max_size=len(dims) or 1), label="shifts")
    if dims:
        assert_same(ember.roll(t, shifts, dims), torch.roll(to_torch(a), shifts, dims))
    assert_same(ember.roll(t, shifts[0]), torch.roll(to_torch(a), shifts[0]))
    if ndim >= 2:
        k = data.draw(st.integers(-5, 5), label="k")
        rdims = data.draw(st.sampled_from([(0, 1), (1, 0), (-1, 0), (0, ndim - 1)]))
        assert_same(t.rot90(k, rdims), torch.rot90(to_torch(a), k, rdims))


@needs_torch
@OPS
@given(data=st.data())
def test_repeat_tile_repeat_interleave_match_torch(data):
    t, a = data.draw(arrays(max_dims=2))
    ndim = a.ndim
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim + 2), label="repeats"))
    assert_same(t.repeat(*reps) if reps else t.repeat(()), to_torch(a).repeat(reps) if reps else to_torch(a).repeat(()))
    tile = tuple(data.draw(st.lists(st.integers(0, 3), max_size=3), label="tile"))
    assert_same(ember.tile(t, tile), torch.tile(to_torch(a), tile))
    r = data.draw(st.integers(0, 3))
    assert_same(t.repeat_interleave(r), torch.repeat_interleave(to_torch(a), r))
    if ndim:
        d = data.draw(st.integers(-ndim, ndim - 1), label="dim")
        counts = np.array(data.draw(st.lists(st.integers(0, 3), min_size=a.shape[d], max_size=a.shape[d])), dtype=np.int64)
        assert_same(
            ember.repeat_interleave(t, ember.from_numpy(counts), dim=d),
            torch.repeat_interleave(to_torch(a), torch.from_numpy(counts), dim=d),
        )
        assert_same(t.repeat_interleave(r, d, output_size=a.shape[d] * r), torch.repeat_interleave(to_torch(a), r, d))


@needs_torch
@OPS
@given(data=st.data())
def test_pad_matches_torch(data):
    t, a = data.draw(arrays(dtypes=("float32", "float64", "int64", "bfloat16", "complex64", "bool"), min_dims=1))
    mode = data.draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]), label="mode")
    n = data.draw(st.integers(1, min(a.ndim, 3)), label="padded dims")
    pads = tuple(
        data.draw(st.lists(st.integers(-2 if mode == "constant" else 0, 3), min_size=2 * n, max_size=2 * n), label="pad")
    )
    value = data.draw(st.sampled_from([None, 2.0])) if mode == "constant" else None
    try:
        if value is None:
            expected = torch.nn.functional.pad(to_torch(a), pads, mode=mode)
        else:
            expected = torch.nn.functional.pad(to_torch(a), pads, mode=mode, value=value)
    except (RuntimeError, NotImplementedError, ValueError):
        return  # torch refuses (dims it does not pad in this mode, dtypes without a kernel); errors are tested below
    assert_same(ember.pad(t, pads, mode=mode, value=value), expected)


def test_pad_errors():
    t = ember.zeros(1, 2, 3)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        ember.pad(t, (1, 2, 3))
    with pytest.raises(RuntimeError, match="Padding length should be less than or equal to two times the input dimension"):
        ember.pad(t, (1,) * 8)
    with pytest.raises(
        RuntimeError,
        match=r"Padding size should be less than the corresponding input dimension, but got: padding \(3, 0\) at dimension 2",
    ):
        ember.pad(t, (3, 0), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        ember.pad(t, (0, 4), mode="circular")
    with pytest.raises(RuntimeError, match="negative output size"):
        ember.pad(t, (-2, -2))
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode wrap"):
        ember.pad(t, (1, 1), mode="wrap")
    with pytest.raises(RuntimeError, match="doesn't take in value"):
        ember.pad(t, (1, 1), mode="reflect", value=1.0)


@needs_torch
@OPS
@given(data=st.data())
def test_triangles_and_diagonals_match_torch(data):
    t, a = data.draw(arrays(min_dims=2, max_dims=4))
    k = data.draw(st.integers(-4, 4), label="diagonal")
    assert_same(t.tril(k), torch.tril(to_torch(a), k))
    assert_same(t.triu(k), torch.triu(to_torch(a), k))
    t1, a1 = data.draw(arrays(min_dims=1, max_dims=2))
    assert_same(ember.diag(t1, k), torch.diag(to_torch(a1), k))
    assert_same(ember.diagflat(t1, k), torch.diagflat(to_torch(a1), k))
    ndim = a1.ndim + 1
    d1 = data.draw(st.integers(-ndim, ndim - 1), label="dim1")
    d2 = data.draw(st.integers(-ndim, ndim - 1).filter(lambda d: d % ndim != d1 % ndim), label="dim2")
    assert_same(ember.diag_embed(t1, k, d1, d2), torch.diag_embed(to_torch(a1), k, d1, d2))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_copying_ops_take_every_dtype_like_numpy(dtype):
    x = _values((3, 4), dtype)
    v = x[::-1, 1:]  # non-contiguous
    t = ember.from_numpy(v)
    assert_same(ember.cat([t, t], 1), np.concatenate([v, v], 1))
    assert_same(ember.stack([t, t]), np.stack([v, v]))
    assert_same(t.flip(0, 1), np.flip(v, (0, 1)))
    assert_same(ember.roll(t, (1, -1), (0, 1)), np.roll(v, (1, -1), (0, 1)))
    assert_same(t.repeat(2, 1, 2), np.tile(v, (2, 1, 2)))
    assert_same(t.repeat_interleave(2, 0), np.repeat(v, 2, 0))
    assert_same(t.tril(-1), np.tril(v, -1))
    assert_same(t.triu(1), np.triu(v, 1))
    assert_same(ember.diag(t), np.diag(v).copy())
    assert_same(ember.pad(t, (1, 0, 0, 1), mode="replicate"), np.pad(v, ((0, 1), (1, 0)), mode="edge"))
    assert_same(ember.pad(t, (1, 1), mode="circular"), np.pad(v, ((0, 0), (1, 1)), mode="wrap"))


def test_in_place_and_out_variants_bump_the_version():
    t = ember.ones(3, 3)
    v = t.T
    assert ember.tril_(v) is v
    assert t._version == 1
    assert t.tolist() == [[1.0, 1.0, 1.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    assert t.triu_(1) is t and t._version == 2
    out = ember.empty(3, 3, dtype=ember.float64)
    ember.tril(t, out=out)
    assert out.dtype is ember.float64 and out.tolist() == [[0.0, 0.0, 0.0]] * 3 and out._version == 1
    e = ember.zeros(1, 3).expand(3, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e.tril_()


def test_copying_op_errors():
    t = ember.zeros(2, 3)
    with pytest.raises(
        RuntimeError, match="Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
    ):
        t.repeat(2)
    with pytest.raises(RuntimeError, match="shifts and dimensions must align"):
        ember.roll(t, (1, 2), (0,))
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2"):
        t.rot90(1, (0,))
    with pytest.raises(RuntimeError, match="expected rotation dims to be different"):
        t.rot90(1, (0, -2))
    with pytest.raises(RuntimeError, match="dims has duplicates"):
        t.flip(0, -2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.flip(2)
    with pytest.raises(RuntimeError, match="Input must be >= 2-d"):
        ember.fliplr(ember.zeros(3))
    with pytest.raises(RuntimeError, match="input tensor must have at least 2 dimensions"):
        ember.zeros(3).tril()
    with pytest.raises(RuntimeError, match=r"Supports 1D or 2D tensors\. Got 3D"):
        ember.diag(ember.zeros(1, 1, 1))
    with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical"):
        ember.diag_embed(t, 0, 0, -3)
    with pytest.raises(RuntimeError, match="repeats must have the same size as input along dim"):
        t.repeat_interleave(ember.tensor([1, 2]), 1)
    with pytest.raises(RuntimeError, match="repeats can not be negative"):
        t.repeat_interleave(-1)


def test_T_still_warns_on_more_than_two_dims():
    with pytest.warns(UserWarning, match="deprecated"):
        ember.zeros(2, 3, 4).T
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ember.zeros(2, 3).T.shape == (3, 2)
