"""The recurrences of ``nn.LSTM`` and ``nn.GRU`` as one op per layer and direction.

``lstm_layer`` and ``gru_layer`` take the input projection of every time step already computed
(``gates_input = linear(x, weight_ih, bias_ih)``, one GEMM for the whole sequence) and run the
time loop inside one kernel: per step, the hidden GEMM and the pointwise gates. They save the
gate activations (an auxiliary ``workspace`` output) so that backward through time is one kernel
too (``*_layer_backward``), with the weight gradient as one GEMM over all steps at its end. A
step-by-step dispatch costs a dozen small ops a step; these cost one op a layer.

Backward without ``create_graph`` takes the one-kernel form; with it (and in graph mode's
``gradients()`` while grad mode is on) the derivative is the same backward through time written
with ember's ops, recomputing the gates from the saved inputs, so it differentiates again.
Kernels: ``ember/kernels/cpu/nn/rnn.py``.

Gate order is PyTorch's: LSTM ``i, f, g, o``; GRU ``r, z, n`` (the reset gate multiplies
``W_hn h + b_hn``). The schema's entries are PyTorch's one-step functions ``lstm_cell`` and
``gru_cell`` (``torch.lstm_cell``, ``torch.gru_cell``), which run these ops over one step; the
layers' own functions are ``lstm_layer`` and ``gru_layer`` below (used by ``nn.LSTM``/``nn.GRU``).

>>> import ember
>>> from ember.ops.nn.rnn import gru_layer
>>> out, h_n = gru_layer(ember.zeros(5, 2, 9), ember.zeros(2, 3), ember.zeros(9, 3), None)
>>> out.shape, h_n.shape
(ember.Size([5, 2, 3]), ember.Size([2, 3]))
"""

from __future__ import annotations

from ..._core import dtype as _dt
from ...dispatch import OpExpr, dispatch
from ..common import functional as _F, grad_recording
from ..functor import functor
from ..schema import schema_family
from ._common import _check_floating, _needs

__all__ = ["gru_layer", "lstm_layer"]

declare = schema_family("nn")

_HALF = (_dt.float16, _dt.bfloat16)


def _check(op: str, gates_input, states, weight_hh, bias_hh, chunks: int):
    """PyTorch-worded checks of a layer's tensors: (L, N, chunks*H) gates, (N, H) states,
    (chunks*H, H) weight, (chunks*H,) bias, one floating dtype."""
    tensors = [gates_input, *states, weight_hh] + ([] if bias_hh is None else [bias_hh])
    dtype = gates_input._dtype
    _check_floating(op, dtype)
    for t in tensors:
        if t._dtype is not dtype:
            raise RuntimeError(
                f"{op}(): expected all tensors to have the same dtype, got {gates_input._dtype.name} and {t._dtype.name}"
            )
    if weight_hh.ndim != 2 or weight_hh._shape[0] != chunks * weight_hh._shape[1]:
        raise RuntimeError(f"{op}(): weight_hh must be ({chunks} * hidden_size, hidden_size), got {list(weight_hh._shape)}")
    hidden = weight_hh._shape[1]
    if gates_input.ndim != 3 or gates_input._shape[2] != chunks * hidden:
        raise RuntimeError(f"{op}(): gates_input must be (steps, batch, {chunks * hidden}), got {list(gates_input._shape)}")
    batch = gates_input._shape[1]
    for name, s in zip(("hx", "cx"), states, strict=False):
        if s._shape != (batch, hidden):
            raise RuntimeError(f"{op}(): Expected {name} size {[batch, hidden]}, got {list(s._shape)}")
    if bias_hh is not None and bias_hh._shape != (chunks * hidden,):
        raise RuntimeError(f"{op}(): bias_hh must be ({chunks * hidden},), got {list(bias_hh._shape)}")


def _workspace_dtype(dtype):
    return _dt.float32 if dtype in _HALF else dtype


def lstm_layer(gates_input, hx, cx, weight_hh, bias_hh, reverse: bool = False):
    """One LSTM layer in one direction over a whole sequence: ``(output, h_n, c_n)``.

    ``gates_input`` (L, N, 4H) is ``x @ weight_ih.T + bias_ih`` for every step; ``hx``, ``cx``
    (N, H) the initial state; ``reverse`` runs the steps from last to first (the output keeps
    the time order).

    >>> import ember
    >>> out, h, c = lstm_layer(ember.ones(3, 1, 4), ember.zeros(1, 1), ember.zeros(1, 1), ember.zeros(4, 1), None)
    >>> round(out[0, 0, 0].item(), 4), round(c[0, 0].item(), 4)  # sigmoid(1) * tanh(c_1); c_3
    (0.3696, 1.2614)
    """
    _check("lstm_layer", gates_input, (hx, cx), weight_hh, bias_hh, 4)
    inputs = (gates_input, hx, cx, weight_hh) + (() if bias_hh is None else (bias_hh,))
    out, h_n, c_n, _, _ = dispatch(_LSTM_LAYER, inputs, {"reverse": bool(reverse)})
    return out, h_n, c_n


def gru_layer(gates_input, hx, weight_hh, bias_hh, reverse: bool = False):
    """One GRU layer in one direction over a whole sequence: ``(output, h_n)``.

    ``gates_input`` (L, N, 3H) is ``x @ weight_ih.T + bias_ih`` for every step; ``hx`` (N, H).
    """
    _check("gru_layer", gates_input, (hx,), weight_hh, bias_hh, 3)
    inputs = (gates_input, hx, weight_hh) + (() if bias_hh is None else (bias_hh,))
    out, h_n, _ = dispatch(_GRU_LAYER, inputs, {"reverse": bool(reverse)})
    return out, h_n


declare(
    "lstm_cell",
    "(Tensor, Tensor) (Tensor input, TensorList hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None) => LstmCell",
    op="lstm_layer",
    doc="""
    One LSTM step, as ``torch.lstm_cell``: ``hx`` is ``(h, c)``; returns ``(h', c')``.

    >>> h, c = ember.lstm_cell(ember.ones(1, 2), (ember.zeros(1, 1), ember.zeros(1, 1)), ember.ones(4, 2), ember.zeros(4, 1))
    >>> round(h.item(), 4), round(c.item(), 4)
    (0.6083, 0.8491)
    """,
)


@functor("LstmCell")
def lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell(): Expected hx to hold two tensors (h, c), got {len(hx)}")
    _check_step_input("lstm_cell", input)
    gates_input = _F().linear(input, w_ih, b_ih).unsqueeze(0)  # a sequence of one step
    _, h, c = lstm_layer(gates_input, hx[0], hx[1], w_hh, b_hh)
    return h, c


declare(
    "gru_cell",
    "Tensor (Tensor input, Tensor hx, Tensor w_ih, Tensor w_hh, Tensor? b_ih=None, Tensor? b_hh=None) => GruCell",
    op="gru_layer",
    doc="""
    One GRU step, as ``torch.gru_cell``: returns ``h'``.

    >>> round(ember.gru_cell(ember.ones(1, 2), ember.zeros(1, 1), ember.ones(3, 2), ember.zeros(3, 1)).item(), 4)
    0.1149
    """,
)


@functor("GruCell")
def gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh):
    _check_step_input("gru_cell", input)
    gates_input = _F().linear(input, w_ih, b_ih).unsqueeze(0)  # a sequence of one step
    return gru_layer(gates_input, hx, w_hh, b_hh)[1]


def _check_step_input(op: str, input) -> None:
    if input.ndim != 2:
        raise RuntimeError(f"{op}(): Expected input to be 2-D (batch, input_size), got {input.ndim}-D")


# -- LSTM -------------------------------------------------------------------------------------

# gates: i, f, g, o after their activations; cells: c and tanh(c) after each step (both auxiliary)
_LSTM_LAYER = OpExpr(
    "lstm_layer", ("gates_input", "hx", "cx", "weight_hh", "bias_hh"), ("output", "h_n", "c_n", "gates", "cells")
)
_LSTM_LAYER.aux_outputs = (3, 4)


@_LSTM_LAYER.shape_rule
def _lstm_layer_infer(attrs, xg, hx, cx, w, *bias):
    steps, batch, _ = xg._shape
    hidden = w._shape[1]
    ws = _workspace_dtype(xg._dtype)
    state = ((batch, hidden), xg._dtype)
    return ((steps, batch, hidden), xg._dtype), state, state, ((steps, batch, 4 * hidden), ws), ((steps, batch, 2 * hidden), ws)


@_LSTM_LAYER.grad_rule(saves="both")
def _lstm_layer_grad(ctx, g_out, g_h, g_c, _g_gates=None, _g_cells=None):
    xg, hx, cx, w, *bias = ctx.inputs
    reverse = ctx.attrs["reverse"]
    if grad_recording():
        return _lstm_composite_grad(ctx, xg, hx, cx, w, bias, g_out, g_h, g_c, reverse)
    out, _, _, gates, cells = ctx.outputs
    grads = dispatch(
        _LSTM_LAYER_BACKWARD, (g_out, g_h, g_c, hx, cx, w, out, gates, cells), {"reverse": reverse, "has_bias": bool(bias)}
    )
    return tuple(grads) if bias else tuple(grads[:4])


_LSTM_LAYER_BACKWARD = OpExpr(
    "lstm_layer_backward",
    ("grad_output", "grad_h_n", "grad_c_n", "hx", "cx", "weight_hh", "output", "gates", "cells"),
    ("grad_gates_input", "grad_hx", "grad_cx", "grad_weight_hh", "grad_bias_hh"),
)
_LSTM_LAYER_BACKWARD.differentiable = False  # backward without create_graph only (see the module's docstring)


@_LSTM_LAYER_BACKWARD.shape_rule
def _lstm_layer_backward_infer(attrs, g_out, g_h, g_c, hx, cx, w, out, gates, cells):
    dtype = hx._dtype
    specs = (((*gates._shape[:2], w._shape[0]), dtype), (hx._shape, dtype), (cx._shape, dtype), (w._shape, dtype))
    return specs + ((((w._shape[0],), dtype),) if attrs["has_bias"] else ())


def _lstm_composite_grad(ctx, xg, hx, cx, w, bias, g_out, g_h, g_c, reverse):
    """Backward through time with ember's ops (differentiable): the gates recomputed step by step."""
    F = _F()
    steps = xg._shape[0]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    h, c = hx, cx
    saved = []
    for t in order:
        pre = xg[t] + F.linear(h, w, bias[0] if bias else None)
        i, f, g, o = pre.chunk(4, -1)
        i, f, g, o = F.sigmoid(i), F.sigmoid(f), F.tanh(g), F.sigmoid(o)
        c_prev, h_prev = c, h
        c = f * c + i * g
        tc = F.tanh(c)
        h = o * tc
        saved.append((t, h_prev, c_prev, i, f, g, o, tc))
    dh, dc = g_h, g_c
    d_pre: list = [None] * steps
    h_prevs: list = [None] * steps
    for t, h_prev, c_prev, i, f, g, o, tc in reversed(saved):
        dh = dh + g_out[t]
        do = dh * tc * o * (1 - o)
        dc = dc + dh * o * (1 - tc * tc)
        di = dc * g * i * (1 - i)
        df = dc * c_prev * f * (1 - f)
        dg = dc * i * (1 - g * g)
        dc = dc * f
        d = F.cat([di, df, dg, do], -1)
        dh = F.matmul(d, w)
        d_pre[t] = d
        h_prevs[t] = h_prev
    return _finish_composite(ctx, xg, w, bias, d_pre, d_pre, h_prevs, (dh, dc))


def _finish_composite(ctx, xg, w, bias, d_input, d_hidden, h_prevs, state_grads):
    """The gradients of a composite backward: the input's, the states', the weight's and bias's
    (the weight's one matmul over every step)."""
    F = _F()
    if not d_input:
        zero_w = F.zeros(w._shape, dtype=w._dtype)
        grads = (F.zeros(xg._shape, dtype=xg._dtype), *state_grads, zero_w)
        return grads + ((F.zeros(bias[0]._shape, dtype=w._dtype),) if bias else ())
    dg_all = F.stack(d_hidden)
    rows = dg_all._shape[0] * dg_all._shape[1]
    grad_w = (
        F.matmul(dg_all.reshape(rows, w._shape[0]).mT, F.stack(h_prevs).reshape(rows, w._shape[1]))
        if _needs(ctx, len(state_grads) + 1)
        else None
    )
    grads = (F.stack(d_input), *state_grads, grad_w)
    return grads + ((dg_all.sum((0, 1)),) if bias else ())


# -- GRU --------------------------------------------------------------------------------------

# gates: r, z, n after their activations and W_hn h + b_hn (auxiliary)
_GRU_LAYER = OpExpr("gru_layer", ("gates_input", "hx", "weight_hh", "bias_hh"), ("output", "h_n", "gates"))
_GRU_LAYER.aux_outputs = (2,)


@_GRU_LAYER.shape_rule
def _gru_layer_infer(attrs, xg, hx, w, *bias):
    steps, batch, _ = xg._shape
    hidden = w._shape[1]
    return (
        ((steps, batch, hidden), xg._dtype),
        ((batch, hidden), xg._dtype),
        ((steps, batch, 4 * hidden), _workspace_dtype(xg._dtype)),
    )


@_GRU_LAYER.grad_rule(saves="both")
def _gru_layer_grad(ctx, g_out, g_h, _g_gates=None):
    xg, hx, w, *bias = ctx.inputs
    reverse = ctx.attrs["reverse"]
    if grad_recording():
        return _gru_composite_grad(ctx, xg, hx, w, bias, g_out, g_h, reverse)
    out, _, gates = ctx.outputs
    grads = dispatch(_GRU_LAYER_BACKWARD, (g_out, g_h, hx, w, out, gates), {"reverse": reverse, "has_bias": bool(bias)})
    return tuple(grads) if bias else tuple(grads[:3])


_GRU_LAYER_BACKWARD = OpExpr(
    "gru_layer_backward",
    ("grad_output", "grad_h_n", "hx", "weight_hh", "output", "gates"),
    ("grad_gates_input", "grad_hx", "grad_weight_hh", "grad_bias_hh"),
)
_GRU_LAYER_BACKWARD.differentiable = False  # backward without create_graph only (see the module's docstring)


@_GRU_LAYER_BACKWARD.shape_rule
def _gru_layer_backward_infer(attrs, g_out, g_h, hx, w, out, gates):
    dtype = hx._dtype
    specs = (((*gates._shape[:2], w._shape[0]), dtype), (hx._shape, dtype), (w._shape, dtype))
    return specs + ((((w._shape[0],), dtype),) if attrs["has_bias"] else ())


def _gru_composite_grad(ctx, xg, hx, w, bias, g_out, g_h, reverse):
    """Backward through time with ember's ops (differentiable): the gates recomputed step by step."""
    F = _F()
    steps = xg._shape[0]
    order = range(steps - 1, -1, -1) if reverse else range(steps)
    h = hx
    saved = []
    for t in order:
        xr, xz, xn = xg[t].chunk(3, -1)
        hr, hz, hn = F.linear(h, w, bias[0] if bias else None).chunk(3, -1)
        r = F.sigmoid(xr + hr)
        z = F.sigmoid(xz + hz)
        n = F.tanh(xn + r * hn)
        saved.append((t, h, r, z, n, hn))
        h = n + z * (h - n)
    dh = g_h
    d_input: list = [None] * steps
    d_hidden: list = [None] * steps
    h_prevs: list = [None] * steps
    for t, h_prev, r, z, n, hn in reversed(saved):
        dh = dh + g_out[t]
        dz = dh * (h_prev - n) * z * (1 - z)
        dn = dh * (1 - z) * (1 - n * n)
        dr = dn * hn * r * (1 - r)
        d_hid = F.cat([dr, dz, dn * r], -1)
        d_input[t] = F.cat([dr, dz, dn], -1)
        d_hidden[t] = d_hid
        h_prevs[t] = h_prev
        dh = dh * z + F.matmul(d_hid, w)
    return _finish_composite(ctx, xg, w, bias, d_input, d_hidden, h_prevs, (dh,))
