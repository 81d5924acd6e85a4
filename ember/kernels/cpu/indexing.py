"""CPU kernels of the indexing ops."""

from __future__ import annotations
