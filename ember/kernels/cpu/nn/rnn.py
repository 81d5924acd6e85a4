"""lstm_layer, gru_layer and their backward: the time loop of a recurrent layer inside one kernel.

A step is one BLAS GEMM (the hidden projection) and a few NumPy calls on (batch, hidden) blocks,
written into preallocated buffers. The gates are sigmoids computed as 1 / (1 + exp(-x)), and
LSTM's tanh gate as 2 * sigmoid(2x) - 1: NumPy's float32 exp is vectorized where its tanh is
not (an exp, an add and a reciprocal over all gates cost half one tanh). The factor (-1 or -2)
is folded into the recurrent weight's rows once per call and into the step's input share, so a
step runs one exp over all its gates. exp overflowing to inf gives the limit 0 after the reciprocal
(overflow warnings are silenced for that). The cell's tanh(c) stays np.tanh (accurate near 0)
and is saved for backward. Half types compute in float32.

The arrays are seen as rows: step t is a block of rows of (steps * batch, X), or, for a packed
batch (``batch_sizes``), the step's own ``batch_sizes[t]`` rows; a step then updates the head of
the state and the finished (or not yet started) sequences keep theirs.
"""

from __future__ import annotations

import numpy as np

from ....dispatch.opexpr import register_kernel
from ..common import compute_dtype, store


def _into(out: np.ndarray, ct: np.dtype) -> np.ndarray:
    """``out`` itself when the kernel may write it directly, else a contiguous scratch of ``ct``."""
    return out if out.dtype == ct and out.flags.c_contiguous else np.empty(out.shape, ct)


def _gate_scale(chunks: int, hidden: int, factors: dict, ct: np.dtype) -> np.ndarray:
    """Per-column factor of the pre-activations: ``factors`` maps a gate's index to its own."""
    scale = np.ones(chunks * hidden, ct)
    for k, factor in factors.items():
        scale[k * hidden : (k + 1) * hidden] = factor
    return scale


def _sigmoid_(a: np.ndarray) -> None:
    """a <- 1 / (1 + exp(a)), in place (a holds the negated pre-activation)."""
    np.exp(a, out=a)
    a += 1
    np.reciprocal(a, out=a)


def _blocks(attrs, steps: int, batch: int) -> list[tuple[int, int]]:
    """(first row, rows) of each step in the flattened arrays."""
    sizes = attrs.get("batch_sizes")
    if sizes is None:
        return [(t * batch, batch) for t in range(steps)]
    starts = np.cumsum((0, *sizes[:-1])).tolist()
    return list(zip(starts, sizes, strict=True))


def _order(n: int, reverse: bool) -> range:
    return range(n - 1, -1, -1) if reverse else range(n)


def _flat(a: np.ndarray) -> np.ndarray:
    """(steps, batch, X) -> (steps * batch, X); a packed (rows, X) array as it is."""
    return a.reshape(-1, a.shape[-1]) if a.ndim == 3 else a


def _previous(initial: np.ndarray, seq: np.ndarray, blocks, reverse: bool, ct) -> np.ndarray:
    """(rows, H): the state each row's step started from: the previous step's row, or the
    initial state for the first step (and, running backwards, for a sequence joining late)."""
    prev = np.empty((len(seq), initial.shape[-1]), ct)
    order = _order(len(blocks), reverse)
    for k, t in enumerate(order):
        r0, bs = blocks[t]
        m = 0
        if k:
            p0, pb = blocks[order[k - 1]]
            m = min(bs, pb)
            prev[r0 : r0 + m] = seq[p0 : p0 + m]
        prev[r0 + m : r0 + bs] = initial[m:bs]
    return prev


def _advance(state: np.ndarray, head: np.ndarray) -> np.ndarray:
    """The state after a step that updated its first rows to ``head``."""
    return head if len(head) == len(state) else np.concatenate([head, state[len(head) :]])


@register_kernel("lstm_layer")
def _lstm_layer(outs, ins, attrs):
    out_o, h_o, c_o, gates_o, cells_o = outs
    xg, hx, cx, w = _flat(ins[0]), ins[1], ins[2], ins[3]
    ct = compute_dtype(out_o.dtype)
    batch, hidden = hx.shape
    four_h, two_h, three_h = 4 * hidden, 2 * hidden, 3 * hidden
    scale = _gate_scale(4, hidden, {0: -1, 1: -1, 2: -2, 3: -1}, ct)
    w_t = np.ascontiguousarray((w.astype(ct) * scale[:, None]).T)  # (H, 4H): the gates come out negated (tanh's doubled)
    # the input's share is scaled step by step into a scratch in cache: a whole-sequence pass
    # over (L, N, 4H) up front costs more (fresh memory, every page touched)
    bias = ins[4].astype(ct) * scale if len(ins) > 4 else None
    x_step = np.empty((batch, four_h), ct)
    out, gates, cells = _into(out_o, ct), _into(gates_o, ct), _into(cells_o, ct)
    out2, gates2, cells2 = _flat(out), _flat(gates), _flat(cells)
    h = hx.astype(ct)
    c = cx.astype(ct)
    tmp = np.empty((batch, hidden), ct)
    blocks = _blocks(attrs, out.shape[0], batch)
    with np.errstate(over="ignore"):
        for t in _order(len(blocks), attrs["reverse"]):
            r0, bs = blocks[t]
            rows = slice(r0, r0 + bs)
            g, xs, tm = gates2[rows], x_step[:bs], tmp[:bs]
            np.matmul(h[:bs], w_t, out=g)
            np.multiply(xg[rows], scale, out=xs)
            g += xs
            if bias is not None:
                g += bias
            _sigmoid_(g)
            i, f, gg, o = g[:, :hidden], g[:, hidden:two_h], g[:, two_h:three_h], g[:, three_h:]
            gg *= 2  # tanh(x) = 2 sigmoid(2x) - 1
            gg -= 1
            c_t, tanh_c = cells2[rows, :hidden], cells2[rows, hidden:]
            np.multiply(f, c[:bs], out=c_t)
            np.multiply(i, gg, out=tm)
            c_t += tm
            np.tanh(c_t, out=tanh_c)
            np.multiply(o, tanh_c, out=out2[rows])
            h, c = _advance(h, out2[rows]), _advance(c, c_t)
    for dst, src in ((out_o, out), (gates_o, gates), (cells_o, cells), (h_o, h), (c_o, c)):
        store(dst, src)


@register_kernel("lstm_layer_backward")
def _lstm_layer_backward(outs, ins, attrs):
    g_out, g_h, g_c, hx, cx, w, out, gates, cells = ins
    ct = gates.dtype
    batch, hidden = hx.shape
    two_h, three_h = 2 * hidden, 3 * hidden
    w = w.astype(ct, copy=False)
    gates2, cells2, out2 = _flat(gates), _flat(cells), _flat(out.astype(ct, copy=False))
    d_pre = _into(outs[0], ct)
    d_pre2 = _flat(d_pre)
    dh = g_h.astype(ct)
    dc = g_c.astype(ct)
    g_out2 = _flat(g_out.astype(ct, copy=False))
    tmp = np.empty((batch, hidden), ct)
    reverse = attrs["reverse"]
    blocks = _blocks(attrs, out.shape[0], batch)
    c_prevs = _previous(cx.astype(ct, copy=False), cells2[:, :hidden], blocks, reverse, ct)
    for t in _order(len(blocks), not reverse):  # backward runs the forward's steps in reverse
        r0, bs = blocks[t]
        rows = slice(r0, r0 + bs)
        dh_b, dc_b, tm = dh[:bs], dc[:bs], tmp[:bs]
        dh_b += g_out2[rows]
        g = gates2[rows]
        i, f, gg, o = g[:, :hidden], g[:, hidden:two_h], g[:, two_h:three_h], g[:, three_h:]
        c_prev, tc = c_prevs[rows], cells2[rows, hidden:]
        d = d_pre2[rows]
        di, df, dg, do = d[:, :hidden], d[:, hidden:two_h], d[:, two_h:three_h], d[:, three_h:]
        # do = dh * tanh(c) * o(1-o); dc += dh * o * (1 - tanh(c)^2)
        np.multiply(dh_b, tc, out=do)
        np.multiply(o, o, out=tm)
        np.subtract(o, tm, out=tm)
        do *= tm
        np.multiply(tc, tc, out=tm)
        np.subtract(1, tm, out=tm)
        tm *= o
        tm *= dh_b
        dc_b += tm
        # di = dc * g * i(1-i); df = dc * c_prev * f(1-f); dg = dc * i * (1-g^2)
        np.multiply(i, i, out=tm)
        np.subtract(i, tm, out=tm)
        np.multiply(dc_b, gg, out=di)
        di *= tm
        np.multiply(f, f, out=tm)
        np.subtract(f, tm, out=tm)
        np.multiply(dc_b, c_prev, out=df)
        df *= tm
        np.multiply(gg, gg, out=tm)
        np.subtract(1, tm, out=tm)
        np.multiply(dc_b, i, out=dg)
        dg *= tm
        dc_b *= f
        np.matmul(d, w, out=dh_b)
    _write_grads(outs, d_pre, (dh, dc), d_pre2, hx, out2, ct, blocks, reverse)


def _write_grads(outs, d_input, state_grads, d_hidden2, hx, out2, ct, blocks, reverse):
    """Store the gradients of the input, the states, the weight (one GEMM over every row:
    d_hidden^T @ previous states) and the bias."""
    store(outs[0], d_input)
    for dst, src in zip(outs[1:], state_grads, strict=False):
        store(dst, src)
    k = len(state_grads) + 1
    h_prev = _previous(hx.astype(ct, copy=False), out2, blocks, reverse, ct)
    store(outs[k], d_hidden2.T @ h_prev)
    if len(outs) > k + 1:
        store(outs[k + 1], d_hidden2.sum(0))


@register_kernel("gru_layer")
def _gru_layer(outs, ins, attrs):
    out_o, h_o, gates_o = outs
    xg, hx, w = _flat(ins[0]), ins[1], ins[2]
    ct = compute_dtype(out_o.dtype)
    batch, hidden = hx.shape
    two_h, three_h = 2 * hidden, 3 * hidden
    scale = _gate_scale(3, hidden, {0: -1, 1: -1}, ct)
    w_t = np.ascontiguousarray((w.astype(ct) * scale[:, None]).T)  # (H, 3H): r and z come out negated
    bias = None if len(ins) == 3 else ins[3].astype(ct) * scale
    x_in = np.empty((batch, three_h), ct)  # one step's input share, scaled (see lstm_layer)
    out, gates = _into(out_o, ct), _into(gates_o, ct)
    out2, gates2 = _flat(out), _flat(gates)
    h = hx.astype(ct)
    hg_full = np.empty((batch, three_h), ct)
    blocks = _blocks(attrs, out.shape[0], batch)
    with np.errstate(over="ignore"):
        for t in _order(len(blocks), attrs["reverse"]):
            r0, bs = blocks[t]
            rows = slice(r0, r0 + bs)
            hg, xs, h_b = hg_full[:bs], x_in[:bs], h[:bs]
            np.matmul(h_b, w_t, out=hg)
            if bias is not None:
                hg += bias
            g = gates2[rows]
            rz, n, hn = g[:, :two_h], g[:, two_h:three_h], g[:, three_h:]
            np.multiply(xg[rows], scale, out=xs)
            np.add(xs[:, :two_h], hg[:, :two_h], out=rz)
            _sigmoid_(rz)
            np.copyto(hn, hg[:, two_h:])
            np.multiply(rz[:, :hidden], hn, out=n)
            n += xs[:, two_h:]
            np.tanh(n, out=n)
            # h' = n + z * (h - n)
            o = out2[rows]
            np.subtract(h_b, n, out=o)
            o *= rz[:, hidden:]
            o += n
            h = _advance(h, o)
    for dst, src in ((out_o, out), (gates_o, gates), (h_o, h)):
        store(dst, src)


@register_kernel("gru_layer_backward")
def _gru_layer_backward(outs, ins, attrs):
    g_out, g_h, hx, w, out, gates = ins
    ct = gates.dtype
    batch, hidden = hx.shape
    two_h, three_h = 2 * hidden, 3 * hidden
    w = w.astype(ct, copy=False)
    gates2, out2 = _flat(gates), _flat(out.astype(ct, copy=False))
    d_input = _into(outs[0], ct)
    d_input2 = _flat(d_input)
    d_hidden2 = np.empty((len(gates2), three_h), ct)
    dh = g_h.astype(ct)
    g_out2 = _flat(g_out.astype(ct, copy=False))
    tmp = np.empty((batch, hidden), ct)
    reverse = attrs["reverse"]
    blocks = _blocks(attrs, out.shape[0], batch)
    h_prevs = _previous(hx.astype(ct, copy=False), out2, blocks, reverse, ct)
    for t in _order(len(blocks), not reverse):
        r0, bs = blocks[t]
        rows = slice(r0, r0 + bs)
        dh_b, tm = dh[:bs], tmp[:bs]
        dh_b += g_out2[rows]
        g = gates2[rows]
        r, z, n, hn = g[:, :hidden], g[:, hidden:two_h], g[:, two_h:three_h], g[:, three_h:]
        dx, dhid = d_input2[rows], d_hidden2[rows]
        dr, dz, dn = dx[:, :hidden], dx[:, hidden:two_h], dx[:, two_h:]
        # dz = dh * (h_prev - n) * z(1-z)
        np.subtract(h_prevs[rows], n, out=dz)
        dz *= dh_b
        np.multiply(z, z, out=tm)
        np.subtract(z, tm, out=tm)
        dz *= tm
        # dn = dh * (1-z) * (1-n^2)
        np.subtract(1, z, out=dn)
        dn *= dh_b
        np.multiply(n, n, out=tm)
        np.subtract(1, tm, out=tm)
        dn *= tm
        # dr = dn * hn * r(1-r)
        np.multiply(dn, hn, out=dr)
        np.multiply(r, r, out=tm)
        np.subtract(r, tm, out=tm)
        dr *= tm
        dhid[:, :two_h] = dx[:, :two_h]
        np.multiply(dn, r, out=dhid[:, two_h:])
        dh_b *= z
        dh_b += dhid @ w
    _write_grads(outs, d_input, (dh,), d_hidden2, hx, out2, ct, blocks, reverse)
