"""CPU kernels of the shape ops."""

from __future__ import annotations
