"""CPU kernels of the random ops."""

from __future__ import annotations
