"""lstm_layer, gru_layer and their backward: the time loop of a recurrent layer inside one kernel.

A step is one BLAS GEMM (the hidden projection) and a few NumPy calls on (batch, hidden) blocks,
written into preallocated buffers. The gates are sigmoids computed as 1 / (1 + exp(-x)), and
LSTM's tanh gate as 2 * sigmoid(2x) - 1: NumPy's float32 exp is vectorized where its tanh is
not (an exp, an add and a reciprocal over all gates cost half one tanh). The factor (-1 or -2)
is folded into the recurrent weight's rows and the input projection once per call, so a step
runs one exp over all its gates. exp overflowing to inf gives the limit 0 after the reciprocal
(overflow warnings are silenced for that). The cell's tanh(c) stays np.tanh (accurate near 0)
and is saved for backward. Half types compute in float32.
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


def _steps(n: int, reverse: bool) -> range:
    return range(n - 1, -1, -1) if reverse else range(n)


def _previous_states(hx: np.ndarray, out: np.ndarray, reverse: bool) -> np.ndarray:
    """(L, N, H): the state each step started from (hx for the first step run)."""
    if out.shape[0] == 0:
        return out
    if reverse:
        return np.concatenate([out[1:], hx[None]])
    return np.concatenate([hx[None], out[:-1]])


@register_kernel("lstm_layer")
def _lstm_layer(outs, ins, attrs):
    out_o, h_o, c_o, gates_o, cells_o = outs
    xg, hx, cx, w = ins[:4]
    ct = compute_dtype(out_o.dtype)
    steps, batch, four_h = xg.shape
    hidden = four_h // 4
    two_h, three_h = 2 * hidden, 3 * hidden
    scale = _gate_scale(4, hidden, {0: -1, 1: -1, 2: -2, 3: -1}, ct)
    w_t = np.ascontiguousarray((w.astype(ct) * scale[:, None]).T)  # (H, 4H): the gates come out negated (tanh's doubled)
    # the input's share is scaled step by step into a scratch in cache: a whole-sequence pass
    # over (L, N, 4H) up front costs more (fresh memory, every page touched)
    bias = ins[4].astype(ct) * scale if len(ins) > 4 else None
    x_step = np.empty((batch, four_h), ct)
    out, gates, cells = _into(out_o, ct), _into(gates_o, ct), _into(cells_o, ct)
    h = hx.astype(ct)
    c = cx.astype(ct)
    tmp = np.empty((batch, hidden), ct)
    with np.errstate(over="ignore"):
        for t in _steps(steps, attrs["reverse"]):
            g = gates[t]
            np.matmul(h, w_t, out=g)
            np.multiply(xg[t], scale, out=x_step)
            g += x_step
            if bias is not None:
                g += bias
            _sigmoid_(g)
            i, f, gg, o = g[:, :hidden], g[:, hidden:two_h], g[:, two_h:three_h], g[:, three_h:]
            gg *= 2  # tanh(x) = 2 sigmoid(2x) - 1
            gg -= 1
            c_t, tanh_c = cells[t, :, :hidden], cells[t, :, hidden:]
            np.multiply(f, c, out=c_t)
            np.multiply(i, gg, out=tmp)
            c_t += tmp
            np.tanh(c_t, out=tanh_c)
            np.multiply(o, tanh_c, out=out[t])
            h, c = out[t], c_t
    for dst, src in ((out_o, out), (gates_o, gates), (cells_o, cells), (h_o, h), (c_o, c)):
        store(dst, src)


@register_kernel("lstm_layer_backward")
def _lstm_layer_backward(outs, ins, attrs):
    g_out, g_h, g_c, hx, cx, w, out, gates, cells = ins
    ct = gates.dtype
    steps, batch, four_h = gates.shape
    hidden = four_h // 4
    w = w.astype(ct, copy=False)
    d_pre = _into(outs[0], ct)
    dh = g_h.astype(ct)
    dc = g_c.astype(ct)
    g_out = g_out.astype(ct, copy=False)
    tmp = np.empty((batch, hidden), ct)
    reverse = attrs["reverse"]
    for t in _steps(steps, not reverse):  # backward runs the forward's steps in reverse
        dh += g_out[t]
        g = gates[t]
        i, f, gg, o = g[:, :hidden], g[:, hidden : 2 * hidden], g[:, 2 * hidden : 3 * hidden], g[:, 3 * hidden :]
        first = t == (steps - 1 if reverse else 0)
        c_prev = cx if first else cells[t + 1 if reverse else t - 1, :, :hidden]
        tc = cells[t, :, hidden:]
        d = d_pre[t]
        di, df, dg, do = d[:, :hidden], d[:, hidden : 2 * hidden], d[:, 2 * hidden : 3 * hidden], d[:, 3 * hidden :]
        # do = dh * tanh(c) * o(1-o); dc += dh * o * (1 - tanh(c)^2)
        np.multiply(dh, tc, out=do)
        np.multiply(o, o, out=tmp)
        np.subtract(o, tmp, out=tmp)
        do *= tmp
        np.multiply(tc, tc, out=tmp)
        np.subtract(1, tmp, out=tmp)
        tmp *= o
        tmp *= dh
        dc += tmp
        # di = dc * g * i(1-i); df = dc * c_prev * f(1-f); dg = dc * i * (1-g^2)
        np.multiply(i, i, out=tmp)
        np.subtract(i, tmp, out=tmp)
        np.multiply(dc, gg, out=di)
        di *= tmp
        np.multiply(f, f, out=tmp)
        np.subtract(f, tmp, out=tmp)
        np.multiply(dc, c_prev, out=df)
        df *= tmp
        np.multiply(gg, gg, out=tmp)
        np.subtract(1, tmp, out=tmp)
        np.multiply(dc, i, out=dg)
        dg *= tmp
        dc *= f
        np.matmul(d, w, out=dh)
    _write_grads(outs, d_pre, (dh, dc), d_pre, hx, out, ct, reverse)


def _write_grads(outs, d_input, state_grads, d_hidden, hx, out, ct, reverse):
    """Store the gradients of the input, the states, the weight (one GEMM over every step:
    d_hidden^T @ previous states) and the bias."""
    store(outs[0], d_input)
    for dst, src in zip(outs[1:], state_grads, strict=False):
        store(dst, src)
    k = len(state_grads) + 1
    steps, batch, chunk_h = d_hidden.shape
    rows = steps * batch
    d2 = d_hidden.reshape(rows, chunk_h)
    h_prev = _previous_states(hx.astype(ct, copy=False), out.astype(ct, copy=False), reverse)
    store(outs[k], d2.T @ h_prev.reshape(rows, hx.shape[-1]))
    if len(outs) > k + 1:
        store(outs[k + 1], d2.sum(0))


@register_kernel("gru_layer")
def _gru_layer(outs, ins, attrs):
    out_o, h_o, gates_o = outs
    xg, hx, w = ins[:3]
    ct = compute_dtype(out_o.dtype)
    steps, batch, three_h = xg.shape
    hidden = three_h // 3
    two_h = 2 * hidden
    scale = _gate_scale(3, hidden, {0: -1, 1: -1}, ct)
    w_t = np.ascontiguousarray((w.astype(ct) * scale[:, None]).T)  # (H, 3H): r and z come out negated
    bias = None if len(ins) == 3 else ins[3].astype(ct) * scale
    x_in = np.empty((batch, three_h), ct)  # one step's input share, scaled (see lstm_layer)
    out, gates = _into(out_o, ct), _into(gates_o, ct)
    h = hx.astype(ct)
    hg = np.empty((batch, three_h), ct)
    with np.errstate(over="ignore"):
        for t in _steps(steps, attrs["reverse"]):
            np.matmul(h, w_t, out=hg)
            if bias is not None:
                hg += bias
            g = gates[t]
            rz, n, hn = g[:, :two_h], g[:, two_h : 3 * hidden], g[:, 3 * hidden :]
            np.multiply(xg[t], scale, out=x_in)
            np.add(x_in[:, :two_h], hg[:, :two_h], out=rz)
            _sigmoid_(rz)
            np.copyto(hn, hg[:, two_h:])
            np.multiply(rz[:, :hidden], hn, out=n)
            n += x_in[:, two_h:]
            np.tanh(n, out=n)
            # h' = n + z * (h - n)
            o = out[t]
            np.subtract(h, n, out=o)
            o *= rz[:, hidden:]
            o += n
            h = o
    for dst, src in ((out_o, out), (gates_o, gates), (h_o, h)):
        store(dst, src)


@register_kernel("gru_layer_backward")
def _gru_layer_backward(outs, ins, attrs):
    g_out, g_h, hx, w, out, gates = ins
    ct = gates.dtype
    steps, batch, four_h = gates.shape
    hidden = four_h // 4
    two_h = 2 * hidden
    w = w.astype(ct, copy=False)
    hx_c = hx.astype(ct, copy=False)
    out_c = out.astype(ct, copy=False)
    d_input = _into(outs[0], ct)
    d_hidden = np.empty((steps, batch, 3 * hidden), ct)
    dh = g_h.astype(ct)
    g_out = g_out.astype(ct, copy=False)
    tmp = np.empty((batch, hidden), ct)
    reverse = attrs["reverse"]
    for t in _steps(steps, not reverse):
        dh += g_out[t]
        g = gates[t]
        r, z, n, hn = g[:, :hidden], g[:, hidden:two_h], g[:, two_h : 3 * hidden], g[:, 3 * hidden :]
        first = t == (steps - 1 if reverse else 0)
        h_prev = hx_c if first else out_c[t + 1 if reverse else t - 1]
        dx, dhid = d_input[t], d_hidden[t]
        dr, dz, dn = dx[:, :hidden], dx[:, hidden:two_h], dx[:, two_h:]
        # dz = dh * (h_prev - n) * z(1-z)
        np.subtract(h_prev, n, out=dz)
        dz *= dh
        np.multiply(z, z, out=tmp)
        np.subtract(z, tmp, out=tmp)
        dz *= tmp
        # dn = dh * (1-z) * (1-n^2)
        np.subtract(1, z, out=dn)
        dn *= dh
        np.multiply(n, n, out=tmp)
        np.subtract(1, tmp, out=tmp)
        dn *= tmp
        # dr = dn * hn * r(1-r)
        np.multiply(dn, hn, out=dr)
        np.multiply(r, r, out=tmp)
        np.subtract(r, tmp, out=tmp)
        dr *= tmp
        dhid[:, :two_h] = dx[:, :two_h]
        np.multiply(dn, r, out=dhid[:, two_h:])
        dh *= z
        dh += dhid @ w
    _write_grads(outs, d_input, (dh,), d_hidden, hx_c, out_c, ct, reverse)
