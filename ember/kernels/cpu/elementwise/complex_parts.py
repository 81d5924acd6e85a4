"""CPU kernels of conj_physical and angle (real and imag are views: they need no kernel)."""

from __future__ import annotations

import math

import numpy as np

from .factories import KIND, map1

map1("conj_physical", lambda x, a: np.conjugate(x) if KIND[x.dtype] == "c" else x, lower=False)


def _angle(x, attrs):
    if x.dtype.kind == "c":
        return np.angle(x)
    return np.where(np.isnan(x), x, np.where(x < 0, x.dtype.type(math.pi), x.dtype.type(0)))


map1("angle", _angle, "float")
