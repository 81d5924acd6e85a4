"""One-step recurrent cells ``RNNCell``, ``LSTMCell``, ``GRUCell``: PyTorch's parameters and semantics.

A cell takes one time step's input (N, H_in) or unbatched (H_in,) and the state, and returns the
next state; the caller writes the time loop (attention decoders, custom unrolling). LSTMCell and
GRUCell run their step as one op (``lstm_cell``/``gru_cell``: ``lstm_layer``/``gru_layer`` over one step).

>>> import ember.nn as nn
>>> cell = nn.GRUCell(3, 5)
>>> cell
GRUCell(3, 5)
>>> h = cell(ember.randn(2, 3))
>>> cell(ember.randn(2, 3), h).shape
ember.Size([2, 5])
"""

from __future__ import annotations

import math

from ..._core.tensor import Tensor
from ...ops import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


class RNNCellBase(Module):
    """The parameters shared by the cells: ``weight_ih`` (chunks * hidden, input), ``weight_hh``
    (chunks * hidden, hidden) and, with ``bias``, ``bias_ih`` and ``bias_hh``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(F.empty((num_chunks * hidden_size, input_size), device=device, dtype=dtype))
        self.weight_hh = Parameter(F.empty((num_chunks * hidden_size, hidden_size), device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(F.empty((num_chunks * hidden_size,), device=device, dtype=dtype))
            self.bias_hh = Parameter(F.empty((num_chunks * hidden_size,), device=device, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _batched(self, input: Tensor, states: tuple[Tensor | None, ...], names: tuple[str, ...]):
        """The input and states as (N, features), whether the call was batched, with PyTorch's checks.

        ``names`` are the states' names in the dimension errors; the size errors call them hidden0, hidden1.
        """
        cell = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{cell}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        for state, name in zip(states, names, strict=True):
            if state is not None and state.dim() not in (1, 2):
                raise ValueError(f"{cell}: Expected {name} to be 1D or 2D, got {state.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.size(1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected {self.input_size}")
        shaped = []
        for index, state in enumerate(states):
            name = f"hidden{index}"
            if state is None:
                state = F.zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)
            elif not batched:
                state = state.unsqueeze(0)
            if state.size(0) != input.size(0):
                raise RuntimeError(f"Input batch size {input.size(0)} doesn't match {name} batch size {state.size(0)}")
            if state.size(1) != self.hidden_size:
                raise RuntimeError(f"{name} has inconsistent hidden_size: got {state.size(1)}, expected {self.hidden_size}")
            shaped.append(state)
        return input, shaped, batched


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh), or relu with ``nonlinearity='relu'``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh", device=None, dtype=None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, (h,), batched = self._batched(input, (hx,), ("hidden",))
        pre = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(h, self.weight_hh, self.bias_hh)
        if self.nonlinearity == "tanh":
            h = F.tanh(pre)
        elif self.nonlinearity == "relu":
            h = F.relu(pre)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: gates i, f, g, o (in that order in the weights); returns ``(h', c')``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        states = (None, None) if hx is None else tuple(hx)
        input, (h, c), batched = self._batched(input, states, ("hx[0]", "hx[1]"))
        h, c = F.lstm_cell(input, (h, c), self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step (PyTorch's variant: the reset gate multiplies W_hn h + b_hn); gates r, z, n."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        input, (h,), batched = self._batched(input, (hx,), ("hidden",))
        h = F.gru_cell(input, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)
