"""CPU kernels of the creation ops."""

from __future__ import annotations
