"""lstm_layer and gru_layer (the fused recurrences behind nn.LSTM and nn.GRU): against PyTorch's
modules (values and every gradient), against the step-by-step path they replace, by gradcheck,
through double backward, in graph mode, and on edge inputs (empty, non-contiguous, half)."""

import numpy as np
import pytest

import ember
import ember.nn as nn
from ember.autograd import gradcheck, gradgradcheck
from ember.nn.modules.rnn import RNNBase
from ember.ops.nn.rnn import gru_layer, lstm_layer

_CHUNKS = {"LSTM": 4, "GRU": 3}


def _layer(kind, xg, hx, cx, w, b, reverse):
    """The fused op of ``kind`` as (output, h_n[, c_n])."""
    if kind == "LSTM":
        return lstm_layer(xg, hx, cx, w, b, reverse)
    return gru_layer(xg, hx, w, b, reverse)


def _step_by_step(kind, xg, hx, cx, w, b, reverse):
    """The same recurrence dispatched a cell at a time (RNNBase's generic loop)."""
    module = nn.LSTM(1, w.shape[1]) if kind == "LSTM" else nn.GRU(1, w.shape[1])
    out, h, c = RNNBase._layer(module, xg, hx, cx, w, b, None, reverse)
    return (out, h, c) if kind == "LSTM" else (out, h)


def _inputs(kind, steps=4, batch=3, hidden=5, dtype=ember.float64, seed=0, bias=True):
    rng = np.random.default_rng(seed)
    chunks = _CHUNKS[kind]

    def t(*shape):
        return ember.from_numpy(rng.standard_normal(shape)).to(dtype).requires_grad_(True)

    xg, hx, cx, w = t(steps, batch, chunks * hidden), t(batch, hidden), t(batch, hidden), t(chunks * hidden, hidden)
    return xg, hx, (cx if kind == "LSTM" else None), w, (t(chunks * hidden) if bias else None)


def _grads(results, leaves, seed=1):
    rng = np.random.default_rng(seed)
    loss = sum((r * ember.from_numpy(rng.standard_normal(tuple(r.shape))).to(r.dtype)).sum() for r in results)
    return ember.autograd.grad(loss, [x for x in leaves if x is not None], allow_unused=True)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("bias", [True, False])
def test_fused_layer_equals_the_step_by_step_path(kind, reverse, bias):
    xg, hx, cx, w, b = _inputs(kind, bias=bias)
    fused = _layer(kind, xg, hx, cx, w, b, reverse)
    steps = _step_by_step(kind, xg, hx, cx, w, b, reverse)
    for got, want in zip(fused, steps, strict=True):
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-12)
    leaves = (xg, hx, cx, w, b)
    for got, want in zip(_grads(fused, leaves), _grads(steps, leaves), strict=True):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck(kind, reverse):
    xg, hx, cx, w, b = _inputs(kind, steps=3, batch=2, hidden=2)
    if kind == "LSTM":
        assert gradcheck(lambda *a: lstm_layer(*a, reverse), (xg, hx, cx, w, b))
    else:
        assert gradcheck(lambda *a: gru_layer(*a, reverse), (xg, hx, w, b))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_double_backward_takes_the_differentiable_form(kind):
    xg, hx, cx, w, b = _inputs(kind, steps=2, batch=1, hidden=1)  # (finite differences of a backward: kept tiny)
    if kind == "LSTM":
        assert gradgradcheck(lambda *a: lstm_layer(*a, True), (xg, hx, cx, w, b))
    else:
        assert gradgradcheck(lambda *a: gru_layer(*a, False), (xg, hx, w, b))
    # create_graph's composite gives the one-kernel backward's values
    leaves = [x for x in (xg, hx, cx, w, b) if x is not None]
    results = _layer(kind, xg, hx, cx, w, b, False)
    loss = sum((r * r).sum() for r in results)
    fast = ember.autograd.grad(loss, leaves, retain_graph=True)
    slow = ember.autograd.grad(loss, leaves, create_graph=True)
    assert all(s.requires_grad for s in slow)
    for f, s in zip(fast, slow, strict=True):
        np.testing.assert_allclose(f.numpy(), s.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_non_contiguous_and_broadcast_inputs(kind):
    xg, hx, cx, w, b = _inputs(kind, bias=True)
    with ember.no_grad():
        xg_t = xg.detach().transpose(0, 1).contiguous().transpose(0, 1)  # a (batch, steps) layout
        w_t = w.detach().t().contiguous().t()
        hx_b = hx.detach()[:1].expand(*hx.shape)  # stride 0 over the batch
        cx_b = None if cx is None else cx.detach()[:1].expand(*cx.shape)
    assert not xg_t.is_contiguous() and not w_t.is_contiguous() and not hx_b.is_contiguous()
    got = _layer(kind, xg_t, hx_b, cx_b, w_t, b.detach(), False)
    want = _step_by_step(kind, xg_t, hx_b, cx_b, w_t, b.detach(), False)
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize(("steps", "batch"), [(0, 3), (4, 0)])
def test_empty_sequence_or_batch(kind, steps, batch):
    xg, hx, cx, w, b = _inputs(kind, steps=steps, batch=batch)
    results = _layer(kind, xg, hx, cx, w, b, False)
    assert tuple(results[0].shape) == (steps, batch, 5)
    if steps == 0:  # the state passes through
        np.testing.assert_array_equal(results[1].detach().numpy(), hx.detach().numpy())
    grads = _grads(results, (xg, hx, cx, w, b))
    assert tuple(grads[0].shape) == tuple(xg.shape)
    np.testing.assert_array_equal(grads[-2].numpy(), np.zeros(tuple(w.shape)))  # no step, or no row: no weight gradient


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_computes_in_float32(kind, dtype):
    half = getattr(ember, dtype)
    xg, hx, cx, w, b = (None if t is None else t.detach().to(half) for t in _inputs(kind, hidden=4))
    for t in (xg, hx, cx, w, b):
        if t is not None:
            t.requires_grad_(True)
    got = _layer(kind, xg, hx, cx, w, b, True)
    assert all(r.dtype == half for r in got)
    up = [None if t is None else t.detach().to(ember.float32) for t in (xg, hx, cx, w, b)]
    want = _layer(kind, *up, True)
    tol = 2e-2 if dtype == "bfloat16" else 2e-3
    for g, e in zip(got, want, strict=True):
        np.testing.assert_allclose(g.detach().to(ember.float32).numpy(), e.numpy(), rtol=tol, atol=tol)
    grads = _grads(got, (xg, hx, cx, w, b))
    assert all(g.dtype == half for g in grads)


def test_checks_name_the_op_and_the_argument():
    xg, hx, cx, w, b = (t.detach() for t in _inputs("LSTM"))
    with pytest.raises(RuntimeError, match=r"lstm_layer\(\): Expected hx size \[3, 5\], got \[2, 5\]"):
        lstm_layer(xg, hx[:2], cx, w, b)
    with pytest.raises(RuntimeError, match=r"gru_layer\(\): gates_input must be \(steps, batch, 15\)"):
        gru_layer(xg, hx, w[:15], b[:15])
    with pytest.raises(RuntimeError, match=r"lstm_layer.*same dtype"):
        lstm_layer(xg, hx, cx.float(), w, b)
    with pytest.raises(NotImplementedError, match="lstm_layer"):
        lstm_layer(*(t.long() for t in (xg, hx, cx, w, b)))


def _copy_from_torch(tmodule, module):
    for (name, p), (ename, q) in zip(tmodule.named_parameters(), module.named_parameters(), strict=True):
        assert name == ename
        with ember.no_grad():
            q.copy_(ember.from_numpy(p.detach().numpy().copy()))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("num_layers", [1, 2])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_modules_match_torch(kind, num_layers, bidirectional, batch_first, dtype):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    kw = {"num_layers": num_layers, "bidirectional": bidirectional, "batch_first": batch_first}
    tmod = getattr(torch.nn, kind)(3, 4, dtype=getattr(torch, dtype), **kw)
    mod = getattr(nn, kind)(3, 4, dtype=getattr(ember, dtype), **kw)
    _copy_from_torch(tmod, mod)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 5, 3) if batch_first else (5, 2, 3)).astype(dtype)
    h0 = rng.standard_normal((num_layers * (2 if bidirectional else 1), 2, 4)).astype(dtype)
    tx, th = torch.from_numpy(x).requires_grad_(True), torch.from_numpy(h0).requires_grad_(True)
    ex, eh = ember.from_numpy(x).requires_grad_(True), ember.from_numpy(h0).requires_grad_(True)
    if kind == "LSTM":
        tc, ec = torch.from_numpy(h0 * 0.5).requires_grad_(True), ember.from_numpy(h0 * 0.5).requires_grad_(True)
        (tout, (thn, tcn)), (eout, (ehn, ecn)) = tmod(tx, (th, tc)), mod(ex, (eh, ec))
        t_res, e_res, t_leaves, e_leaves = (tout, thn, tcn), (eout, ehn, ecn), [tx, th, tc], [ex, eh, ec]
    else:
        (tout, thn), (eout, ehn) = tmod(tx, th), mod(ex, eh)
        t_res, e_res, t_leaves, e_leaves = (tout, thn), (eout, ehn), [tx, th], [ex, eh]
    rtol, atol = (1e-5, 1e-6) if dtype == "float32" else (1e-10, 1e-12)
    for t, e in zip(t_res, e_res, strict=True):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)
    weights = np.random.default_rng(1)
    projections = [weights.standard_normal(tuple(t.shape)).astype(dtype) for t in t_res]
    sum((t * torch.from_numpy(p)).sum() for t, p in zip(t_res, projections, strict=True)).backward()
    sum((e * ember.from_numpy(p)).sum() for e, p in zip(e_res, projections, strict=True)).backward()
    for t, e in zip([*t_leaves, *tmod.parameters()], [*e_leaves, *mod.parameters()], strict=True):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_graph_mode_records_the_op_and_its_gradient(kind):
    module = getattr(nn, kind)(3, 4, num_layers=2, bidirectional=True)
    rng = np.random.default_rng(0)
    feed = rng.standard_normal((5, 2, 3)).astype(np.float32)
    g = ember.Graph()
    with g.as_default():
        x = ember.placeholder(ember.float32, (5, None, 3))
        out = module(x)[0]
        (dx,) = ember.gradients((out * out).sum(), [x])
    assert f"{kind.lower()}_layer" in {op.type.lower() for op in g.get_operations()}
    with ember.Session(graph=g) as sess:
        got_out, got_dx = sess.run([out, dx], {x: feed})
    ex = ember.from_numpy(feed).requires_grad_(True)
    eout = module(ex)[0]
    (eout * eout).sum().backward()
    np.testing.assert_allclose(got_out, eout.detach().numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_dx, ex.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bias", [True, False])
def test_lstm_cell_and_gru_cell_match_torch(bias):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x, h, c = (rng.standard_normal(s) for s in ((3, 4), (3, 5), (3, 5)))
    w_ih4, w_hh4, b4 = rng.standard_normal((20, 4)), rng.standard_normal((20, 5)), rng.standard_normal((2, 20))
    w_ih3, w_hh3, b3 = w_ih4[:15], w_hh4[:15], b4[:, :15]

    def both(fn_name, w_ih, w_hh, b, state):
        biases = (b[0], b[1]) if bias else (None, None)
        results = []
        for lib in (ember, torch):
            t = lib.tensor if lib is ember else torch.tensor
            leaves = [t(a, requires_grad=True) for a in (x, *state, w_ih, w_hh)] + [
                None if a is None else t(a, requires_grad=True) for a in biases
            ]
            hx = (leaves[1], leaves[2]) if len(state) == 2 else leaves[1]
            rest = leaves[len(state) + 1 :]
            out = getattr(lib, fn_name)(leaves[0], hx, *rest)
            outs = out if isinstance(out, tuple) else (out,)
            sum((o * (k + 1.5)).sum() for k, o in enumerate(outs)).backward()
            results.append(([o.detach().numpy() for o in outs], [a.grad.numpy() for a in leaves if a is not None]))
        for got, want in zip(results[0][0] + results[0][1], results[1][0] + results[1][1], strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)

    both("lstm_cell", w_ih4, w_hh4, b4, (h, c))
    both("gru_cell", w_ih3, w_hh3, b3, (h,))


def test_cell_functions_refuse_bad_arguments():
    x, h = ember.zeros(2, 3), ember.zeros(2, 4)
    with pytest.raises(RuntimeError, match=r"lstm_cell\(\): Expected hx to hold two tensors"):
        ember.lstm_cell(x, (h,), ember.zeros(16, 3), ember.zeros(16, 4))
    with pytest.raises(RuntimeError, match=r"gru_cell\(\): Expected input to be 2-D"):
        ember.gru_cell(ember.zeros(3), h, ember.zeros(12, 3), ember.zeros(12, 4))
