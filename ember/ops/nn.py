"""Nn ops: functors, inference rules and (with autograd) derivatives, side by side."""

from __future__ import annotations
