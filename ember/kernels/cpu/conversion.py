"""CPU kernels of the conversion ops."""

from __future__ import annotations
