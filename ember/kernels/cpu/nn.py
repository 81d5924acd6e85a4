"""CPU kernels of the nn ops."""

from __future__ import annotations
