"""Memory formats: ``ember.contiguous_format``, ``channels_last``, ``channels_last_3d`` and
``preserve_format``, the layouts PyTorch's ``memory_format=`` arguments name.

``channels_last`` keeps a rank-4 NCHW tensor in NHWC order (the channel dimension has stride 1),
``channels_last_3d`` a rank-5 NCDHW tensor in NDHWC order.

>>> channels_last_strides((2, 3, 4, 5))
(60, 1, 15, 3)
>>> is_channels_last_contiguous((2, 3, 4, 5), (60, 1, 15, 3))
True
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "MemoryFormat",
    "channels_last",
    "channels_last_3d",
    "channels_last_strides",
    "contiguous_format",
    "is_channels_last_contiguous",
    "preserve_format",
]


class MemoryFormat:
    """One of the four memory formats (``torch.memory_format``); compare by identity."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ember.{self.name}"

    def __reduce__(self):
        return self.name  # pickles as the module-level singleton


contiguous_format = MemoryFormat("contiguous_format")
channels_last = MemoryFormat("channels_last")
channels_last_3d = MemoryFormat("channels_last_3d")
preserve_format = MemoryFormat("preserve_format")

# the dimension order from fastest to slowest, per rank the channels-last formats need
_ORDER = {"channels_last": (4, (1, 3, 2, 0)), "channels_last_3d": (5, (1, 4, 3, 2, 0))}


def _order(fmt: str, shape: Sequence[int], op: str) -> tuple:
    rank, order = _ORDER[fmt]
    if len(shape) != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt} format")
    return order


def channels_last_strides(shape: Sequence[int], fmt: str = "channels_last", op: str = "contiguous") -> tuple:
    """The strides of a dense ``shape`` laid out channels-last (``fmt`` names the 2-d or 3-d form);
    a RuntimeError for the wrong rank, as PyTorch raises."""
    strides = [0] * len(shape)
    step = 1
    for d in _order(fmt, shape, op):
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def is_channels_last_contiguous(shape: Sequence[int], strides: Sequence[int], fmt: str = "channels_last") -> bool:
    """PyTorch's channels-last contiguity: size-1 dimensions' strides don't matter; other ranks are not."""
    rank, order = _ORDER[fmt]
    if len(shape) != rank:
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True
