
"""Recurrent layers ``RNN``, ``LSTM``, ``GRU``: PyTorch's parameters and semantics, a Python time loop.

Inputs are (L, N, H_in), or (N, L, H_in) with ``batch_first``, or unbatched (L, H_in), or a
``PackedSequence`` (then the output is one too, and each sequence's final state is taken at its own
last step). The input projection of every time step is one ``linear`` call; the recurrence of an
LSTM (without ``proj_size``) or GRU layer is one op (``lstm_layer``/``gru_layer``, ``ember/ops/nn/rnn.py``)
that loops inside its kernel; RNN, LSTMP and packed batches run it step by step.

>>> import ember.nn as nn
>>> lstm = nn.LSTM(4, 8, num_layers=2, batch_first=True)
>>> lstm
LSTM(4, 8, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(ember.randn(3, 5, 4))
>>> out.shape, h.shape, c.shape
(ember.Size([3, 5, 8]), ember.Size([2, 3, 8]), ember.Size([2, 3, 8]))
"""

from __future__ import annotations

import math
import numbers
import warnings

from ..._core.tensor import Tensor
from ...ops import functional as F
from ...ops.nn import rnn as rnn_ops
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """The shared constructor, parameters and layer/direction loop of RNN, LSTM and GRU."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:  # fmt: skip
        super().__init__()
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be an integer greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size or hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                in_size = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = {"weight_ih": (gate_size, in_size), "weight_hh": (gate_size, real_hidden)}
                if bias:
                    shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(F.empty(shape, device=device, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self) -> None:
        """A no-op: there is no cuDNN weight buffer to compact."""

    @property
    def _flat_weights(self) -> list[Tensor]:
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        per_layer = len(self._flat_weights_names) // (self.num_layers * (2 if self.bidirectional else 1))
        weights = self._flat_weights
        return [weights[i : i + per_layer] for i in range(0, len(weights), per_layer)]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- forward ------------------------------------------------------------------------

    def _cell(self, x_proj: Tensor, h: Tensor, c: Tensor | None, w_hh, b_hh, w_hr):
        """One time step; ``x_proj`` is the input already multiplied by weight_ih (plus bias_ih)."""
        raise NotImplementedError

    def _layer(self, x_proj: Tensor, h: Tensor, c: Tensor | None, w_hh, b_hh, w_hr, reverse: bool):
        """One layer in one direction over the whole sequence: ``(output, h_n, c_n)``. This one
        dispatches ``_cell`` step by step; LSTM and GRU run the loop in one op instead."""
        steps = x_proj.size(0)
        out: list[Tensor | None] = [None] * steps
        for t in range(steps - 1, -1, -1) if reverse else range(steps):
            h, c = self._cell(x_proj[t], h, c, w_hh, b_hh, w_hr)
            out[t] = h
        return (F.stack(out) if steps else F.zeros(0, *h.size(), dtype=h.dtype)), h, c

    def _run(self, input: Tensor, h0: Tensor, c0: Tensor | None):
        directions = 2 if self.bidirectional else 1
        steps = input.size(0)  # size(), not shape: graph mode's unknown sizes keep their formula
        if type(steps) is not int:
            raise ValueError(f"{type(self).__name__}: the number of time steps must be known to unroll the recurrence (graph mode: give the sequence dimension a size)")
        layer_input = input
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                idx = layer * directions + direction
                suffix = "_reverse" if direction == 1 else ""

                def param(kind: str, layer=layer, suffix=suffix):
                    return getattr(self, f"{kind}_l{layer}{suffix}", None)

                x_proj = F.linear(layer_input, param("weight_ih"), param("bias_ih"))
                h, c = h0[idx], None if c0 is None else c0[idx]
                out, h, c = self._layer(x_proj, h, c, param("weight_hh"), param("bias_hh"), param("weight_hr"), direction == 1)
                outputs.append(out)
                h_n.append(h)
                c_n.append(c)
            layer_input = outputs[0] if directions == 1 else F.cat(outputs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, F.stack(h_n), None if c0 is None else F.stack(c_n)

    def _run_packed(self, data: Tensor, batch_sizes: list[int], h0: Tensor, c0: Tensor | None):
        """``_run`` over packed ``data``: step ``t`` holds the first ``batch_sizes[t]`` sequences, so a
        step updates the head of the state and the finished sequences keep theirs."""
        directions = 2 if self.bidirectional else 1
        starts = [0]
        for bs in batch_sizes:
            starts.append(starts[-1] + bs)
        layer_input = data
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                idx = layer * directions + direction
                suffix = "_reverse" if direction == 1 else ""
                w_ih, b_ih, w_hh, b_hh, w_hr = (
                    getattr(self, f"{kind}_l{layer}{suffix}", None)
                    for kind in ("weight_ih", "bias_ih", "weight_hh", "bias_hh", "weight_hr")
                )
                x_proj = F.linear(layer_input, w_ih, b_ih)
                h, c = h0[idx], None if c0 is None else c0[idx]
                out: list[Tensor | None] = [None] * len(batch_sizes)
                # backwards, a sequence joins at its own last step with its initial state still in place
                for t in reversed(range(len(batch_sizes))) if direction == 1 else range(len(batch_sizes)):
                    bs = batch_sizes[t]
                    h_t, c_t = self._cell(x_proj[starts[t] : starts[t + 1]], h[:bs], None if c is None else c[:bs], w_hh, b_hh, w_hr)
                    out[t] = h_t
                    h = h_t if bs == h.shape[0] else F.cat([h_t, h[bs:]])
                    c = c_t if c is None or bs == c.shape[0] else F.cat([c_t, c[bs:]])
                outputs.append(F.cat(out) if out else F.zeros(0, h.shape[-1], dtype=h.dtype))
                h_n.append(h)
                c_n.append(c)
            layer_input = outputs[0] if directions == 1 else F.cat(outputs, dim=1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, F.stack(h_n), None if c0 is None else F.stack(c_n)

    def _forward_packed(self, input: PackedSequence, hx):
        """The forward of a packed batch: the state is permuted to the packing's sorted order and back."""
        data, batch_sizes, sorted_indices, unsorted_indices = input
        sizes = [int(v) for v in batch_sizes.tolist()]
        layers = self.num_layers * (2 if self.bidirectional else 1)
        batch = sizes[0] if sizes else 0
        lstm = self.mode == "LSTM"
        if hx is None:
            h0 = F.zeros(layers, batch, self.proj_size or self.hidden_size, dtype=data.dtype)
            c0 = F.zeros(layers, batch, self.hidden_size, dtype=data.dtype) if lstm else None
        else:
            h0, c0 = hx if lstm else (hx, None)
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = None if c0 is None else c0.index_select(1, sorted_indices)
        output, h_n, c_n = self._run_packed(data, sizes, h0, c0)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = None if c_n is None else c_n.index_select(1, unsorted_indices)
        packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return packed, ((h_n, c_n) if lstm else h_n)

    def _prepare(self, input: Tensor, hx):
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if hx is not None and not batched:
            hx = tuple(h.unsqueeze(1) for h in hx) if isinstance(hx, tuple) else hx.unsqueeze(1)
        return input, hx, batched

    def _finish(self, output: Tensor, batched: bool) -> Tensor:
        if not batched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output

    def _zeros_state(self, input: Tensor, size: int) -> Tensor:
        layers = self.num_layers * (2 if self.bidirectional else 1)
        return F.zeros(layers, input.size(1), size, dtype=input.dtype)

    def forward(self, input: Tensor | PackedSequence, hx: Tensor | None = None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, hx, batched = self._prepare(input, hx)
        h0 = self._zeros_state(input, self.hidden_size) if hx is None else hx
        output, h_n, _ = self._run(input, h0, None)
        return self._finish(output, batched), (h_n if batched else h_n.squeeze(1))


class RNN(RNNBase):
    """Elman RNN: h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh) (or relu with ``nonlinearity='relu'``)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh", bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, device=None, dtype=None) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity  # before Module.__init__: a plain attribute, as in PyTorch
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0, device, dtype)

    def _cell(self, x_proj, h, c, w_hh, b_hh, w_hr):
        pre = x_proj + F.linear(h, w_hh, b_hh)
        return (F.tanh(pre) if self.nonlinearity == "tanh" else F.relu(pre)), None


class LSTM(RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``; ``proj_size`` projects h (LSTMP)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size, device, dtype)

    def _cell(self, x_proj, h, c, w_hh, b_hh, w_hr):
        i, f, g, o = (x_proj + F.linear(h, w_hh, b_hh)).chunk(4, -1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
        h = F.sigmoid(o) * F.tanh(c)
        if w_hr is not None:
            h = F.linear(h, w_hr)
        return h, c

    def _layer(self, x_proj, h, c, w_hh, b_hh, w_hr, reverse):
        if w_hr is not None:  # LSTMP: the projection runs inside each step, outside the fused op
            return super()._layer(x_proj, h, c, w_hh, b_hh, w_hr, reverse)
        return rnn_ops.lstm_layer(x_proj, h, c, w_hh, b_hh, reverse)

    def forward(self, input: Tensor | PackedSequence, hx: tuple[Tensor, Tensor] | None = None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        input, hx, batched = self._prepare(input, hx)
        if hx is None:
            h0 = self._zeros_state(input, self.proj_size or self.hidden_size)
            c0 = self._zeros_state(input, self.hidden_size)
        else:
            h0, c0 = hx
        output, h_n, c_n = self._run(input, h0, c0)
        if not batched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(output, batched), (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit (PyTorch's variant: the reset gate multiplies W_hn h + b_hn)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device=None, dtype=None) -> None:  # fmt: skip
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, 0, device, dtype)

    def _cell(self, x_proj, h, c, w_hh, b_hh, w_hr):
        xr, xz, xn = x_proj.chunk(3, -1)
        hr, hz, hn = F.linear(h, w_hh, b_hh).chunk(3, -1)
        r = F.sigmoid(xr + hr)
        z = F.sigmoid(xz + hz)
        n = F.tanh(xn + r * hn)
        return (1 - z) * n + z * h, None

    def _layer(self, x_proj, h, c, w_hh, b_hh, w_hr, reverse):
        out, h_n = rnn_ops.gru_layer(x_proj, h, w_hh, b_hh, reverse)
        return out, h_n, None
