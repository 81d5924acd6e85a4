"""CPU kernels of the reduction ops."""

from __future__ import annotations
