"""The eager interpreter's short road (a signature's cached decision, the kernel called without
its stream) gives what the long road gives, and what PyTorch gives."""

import numpy as np
import pytest

import ember
from ember.dispatch import interpreter as _interp
from ember.dispatch.opexpr import get_op

RNG = np.random.default_rng(0)


def _pairs():
    """(name, a, b) NumPy operands: contiguous, transposed, broadcast, empty, 0-d, mixed dtypes."""
    m = RNG.standard_normal((4, 6)).astype(np.float32)
    return [
        ("contiguous", RNG.standard_normal(100).astype(np.float32), RNG.standard_normal(100).astype(np.float32)),
        ("transposed", m.T, RNG.standard_normal((6, 4)).astype(np.float32)),
        ("both transposed", m.T, m.T.copy().T.T),
        ("broadcast", m, RNG.standard_normal(6).astype(np.float32)),
        ("broadcast first", RNG.standard_normal((4, 1)).astype(np.float32), m),
        ("empty", np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)),
        ("0-d", np.array(2.5, np.float32), m),
        ("float16", m.astype(np.float16), m.T.copy().T.astype(np.float16)),
        ("mixed", m.astype(np.int32), m.astype(np.float64)),
        ("int", (m * 10).astype(np.int64), (m * 3).astype(np.int64)),
    ]


def _both_roads(fn, *tensors):
    """fn's result on the long road (traced: every launch through its stream, and the first
    call of a signature) and on the short road (the same call again, its plan cached)."""
    with ember.trace():
        long = fn(*tensors)
    fn(*tensors)  # caches the plan
    plans = len(_interp.EAGER._plans)
    short = fn(*tensors)
    assert len(_interp.EAGER._plans) == plans  # nothing new to decide: the short road was taken
    return long, short


def _same(x, y):
    assert x.dtype == y.dtype and x.shape == y.shape and x.stride() == y.stride()
    np.testing.assert_array_equal(
        x.float().numpy() if x.dtype == ember.bfloat16 else x.numpy(),
        y.float().numpy() if y.dtype == ember.bfloat16 else y.numpy(),
    )


@pytest.mark.parametrize("name,a,b", _pairs(), ids=[p[0] for p in _pairs()])
def test_binary_ops_agree_on_both_roads_and_with_torch(name, a, b):
    torch = pytest.importorskip("torch")
    ea, eb = ember.from_numpy(np.ascontiguousarray(a)), ember.from_numpy(np.ascontiguousarray(b))
    if a.ndim == 2 and not a.flags.c_contiguous:
        ea = ember.from_numpy(np.ascontiguousarray(a.T)).t()  # a real transposed view
    ta, tb = torch.from_numpy(ea.numpy().copy()), torch.from_numpy(eb.numpy().copy())
    if ea.dim() == 2 and not ea.is_contiguous():
        ta = torch.from_numpy(np.ascontiguousarray(a.T)).t()
    for fn in (
        lambda x, y: x + y,
        lambda x, y: x * y,
        lambda x, y: x - y,
        lambda x, y: ember.maximum(x, y) if isinstance(x, ember.Tensor) else torch.maximum(x, y),
    ):
        long, short = _both_roads(fn, ea, eb)
        _same(long, short)
        expected = fn(ta, tb)
        assert str(short.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
        assert short.stride() == expected.stride()
        np.testing.assert_allclose(short.numpy().astype(np.float64), expected.numpy().astype(np.float64))


@pytest.mark.parametrize("dtype", [ember.float32, ember.float16, ember.bfloat16, ember.int32, ember.bool])
def test_unary_and_scalar_ops_agree_on_both_roads_and_with_torch(dtype):
    torch = pytest.importorskip("torch")
    base = ember.from_numpy(RNG.standard_normal((5, 3)).astype(np.float32) * 4)
    for x in (base.to(dtype), base.to(dtype).t(), base.to(dtype)[::2], base.to(dtype)[:0]):
        tx = torch.from_numpy(x.float().numpy().copy()).to(getattr(torch, str(dtype).split(".")[1]))
        cases = [
            (lambda t: t * 2, lambda t: t * 2),
            (lambda t: t * 2.0, lambda t: t * 2.0),
            (lambda t: t + True, lambda t: t + True),
        ]
        if dtype is not ember.bool:
            cases.append((lambda t: ember.relu(t) if isinstance(t, ember.Tensor) else torch.relu(t), None))
            cases.append((lambda t: -t, lambda t: -t))
        for fn, tfn in cases:
            long, short = _both_roads(fn, x)
            _same(long, short)
            expected = (tfn or fn)(tx)
            assert str(short.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
            np.testing.assert_array_equal(short.float().numpy(), expected.float().numpy())


def test_a_scalar_of_another_type_takes_its_own_decision():
    x = ember.tensor([1, 2, 3])
    for _ in range(2):
        assert (x * 2).dtype == ember.int64 and (x * 2.0).dtype == ember.float32 and (x * 2).tolist() == [2, 4, 6]


def test_a_cached_decision_still_refuses_mixed_devices():
    a, b = ember.ones(3), ember.ones(3)
    a + b
    a + b
    with pytest.raises(RuntimeError, match="same device"):
        a + ember.ones(3, device="meta")
    meta = ember.ones(3, device="meta")
    assert (meta + meta).is_meta and (meta + meta).shape == (3,)


def test_a_default_dtype_change_forgets_the_decisions():
    x = ember.tensor([1, 2])
    assert (x / 2).dtype == ember.float32
    previous = ember.get_default_dtype()
    ember.set_default_dtype(ember.float64)
    try:
        assert (x / 2).dtype == ember.float64
    finally:
        ember.set_default_dtype(previous)
    assert (x / 2).dtype == ember.float32


def test_the_short_road_calls_the_registered_kernel_now(monkeypatch):
    op = get_op("add")
    a, b = ember.ones(4), ember.ones(4)
    a + b
    a + b
    assert any(key[0] is op for key in _interp.EAGER._plans)  # decided
    calls = []
    kernel = op.kernels["cpu"]
    monkeypatch.setitem(op.kernels, "cpu", lambda outs, ins, attrs: (calls.append(1), kernel(outs, ins, attrs)))
    assert (a + b).tolist() == [2.0] * 4 and calls == [1]


def test_recorded_ops_agree_with_torch_including_gradients():
    torch = pytest.importorskip("torch")
    a_np, b_np = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal(4).astype(np.float32)
    grads = []
    for _ in range(2):  # the second pass takes the short roads
        a = ember.from_numpy(a_np.copy()).requires_grad_(True)
        b = ember.from_numpy(b_np.copy())
        y = ember.relu(a * b + 1.0) * a
        y.sum().backward()
        grads.append(a.grad.numpy().copy())
        assert y.grad_fn is not None and a.grad_fn is None
    ta = torch.from_numpy(a_np.copy()).requires_grad_(True)
    tb = torch.from_numpy(b_np.copy())
    (torch.relu(ta * tb + 1.0) * ta).sum().backward()
    for g in grads:
        np.testing.assert_allclose(g, ta.grad.numpy(), rtol=1e-6)


def test_saved_tensors_still_check_their_versions():
    a = ember.ones(3, requires_grad=True)
    b = ember.ones(3)
    for _ in range(2):
        y = a * b
        b.add_(1)  # b was saved by mul: backward must refuse
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
