"""Linear algebra functions of the main namespace."""

from __future__ import annotations

import numpy as np
import pytest

import ember.array_api as xp

from ._reference import E, check, check_against_strict


def test_matmul_tensordot_vecdot_transpose():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    check(xp.matmul(E(a), E(b)), np.matmul(a, b), rtol=1e-10)
    check(xp.matmul(E(b[:, 0]), E(b[:, 1])), np.matmul(b[:, 0], b[:, 1]), rtol=1e-10)
    check(xp.matrix_transpose(E(a)), np.matrix_transpose(a))
    check(xp.tensordot(E(a), E(b), axes=1), np.tensordot(a, b, axes=1), rtol=1e-10)
    check(xp.tensordot(E(a), E(a), axes=3), np.tensordot(a, a, axes=3), rtol=1e-10)
    check(xp.tensordot(E(a), E(b), axes=0), np.tensordot(a, b, axes=0), rtol=1e-10)
    check(xp.tensordot(E(a), E(a), axes=([0, 2], [0, 2])), np.tensordot(a, a, axes=([0, 2], [0, 2])), rtol=1e-10)
    c1 = rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))
    c2 = rng.standard_normal((4,)) + 1j * rng.standard_normal((4,))
    check(xp.vecdot(E(c1), E(c2)), np.vecdot(c1, c2), rtol=1e-10)  # conjugates x1
    check(xp.vecdot(E(a), E(a), axis=-2), np.vecdot(a, a, axis=-2), rtol=1e-10)
    assert xp.linalg.tensordot is xp.tensordot and xp.linalg.vecdot is xp.vecdot


# Against array-api-strict, the reference implementation, when it is installed.
STRICT_CASES = [
    ("tensordot", lambda m: ((m.asarray([[1.0, 2.0], [3.0, 4.0]]), m.asarray([[1.0, 0.0], [2.0, 1.0]])), {"axes": 1})),
    ("vecdot", lambda m: ((m.asarray([[1.0, 2.0], [3.0, 4.0]]), m.asarray([1.0, -1.0])), {"axis": -1})),
]


@pytest.mark.parametrize(("name", "build"), STRICT_CASES, ids=[c[0] for c in STRICT_CASES])
def test_against_array_api_strict(xps, name, build):
    check_against_strict(xps, name, build)
